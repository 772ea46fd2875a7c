#include "mbstep/integrator/multistep_polynomials.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

namespace mbstep {

std::vector<std::complex<double>> PolynomialRoots(const std::vector<double>& c0) {
    std::vector<double> c = c0;
    while (c.size() > 1 && c.front() == 0.0) c.erase(c.begin());
    const int n = static_cast<int>(c.size()) - 1;
    std::vector<std::complex<double>> roots;
    if (n < 1) return roots;
    Eigen::MatrixXd comp = Eigen::MatrixXd::Zero(n, n);
    for (int j = 0; j < n; ++j) comp(0, j) = -c[j + 1] / c[0];
    for (int i = 1; i < n; ++i) comp(i, i - 1) = 1.0;
    const Eigen::VectorXcd ev = comp.eigenvalues();
    for (int i = 0; i < n; ++i) roots.push_back(ev[i]);
    return roots;
}

namespace {

// Value and scale (sum |c_k| |r|^k) of a polynomial at a real point.
std::pair<double, double> Eval(const std::vector<double>& c, double r) {
    double v = 0.0, s = 0.0;
    for (double ck : c) {
        v = v * r + ck;
        s = s * std::abs(r) + std::abs(ck);
    }
    return {v, s};
}

// Divides c by (z - r), dropping the remainder (the caller checked it is round-off).
std::vector<double> Deflate(const std::vector<double>& c, double r) {
    std::vector<double> q(c.size() - 1);
    double acc = 0.0;
    for (size_t k = 0; k + 1 < c.size(); ++k) {
        acc = acc * r + c[k];
        q[k] = acc;
    }
    return q;
}

}  // namespace

int ReduceMultistep(std::vector<double>& a, std::vector<double>& b) {
    const size_t N = a.size();
    std::vector<double> rho{1.0};
    for (double aj : a) rho.push_back(-aj);
    std::vector<double> sigma = b;
    while (sigma.size() > 1 && sigma.back() == 0.0 && rho.back() == 0.0) {
        // Common root at z = 0 (trailing zeros in both).
        sigma.pop_back();
        rho.pop_back();
    }
    int cancelled = 0;
    for (bool again = true; again && rho.size() > 2;) {
        again = false;
        const auto roots = PolynomialRoots(sigma);
        std::vector<bool> used(roots.size(), false);
        for (size_t i = 0; i < roots.size() && !again; ++i) {
            if (used[i] || std::abs(roots[i].imag()) > 1e-3) continue;
            // Cluster (multiple roots are found only to ~eps^(1/m)); the mean is accurate.
            double sum = 0.0;
            int count = 0;
            for (size_t j = i; j < roots.size(); ++j)
                if (!used[j] && std::abs(roots[j] - roots[i]) < 1e-3) {
                    sum += roots[j].real();
                    ++count;
                    used[j] = true;
                }
            const double r = sum / count;
            const auto [rv, rs] = Eval(rho, r);
            const auto [sv, ss] = Eval(sigma, r);
            if (std::abs(rv) <= 1e-10 * rs && std::abs(sv) <= 1e-10 * ss) {
                rho = Deflate(rho, r);
                sigma = Deflate(sigma, r);
                ++cancelled;
                again = true;
            }
        }
    }
    // Back to a_j, b_j of the original lengths.
    for (size_t j = 0; j < N; ++j) a[j] = j + 1 < rho.size() ? -rho[j + 1] : 0.0;
    for (size_t j = 0; j <= N; ++j) b[j] = j < sigma.size() ? sigma[j] : 0.0;
    return cancelled;
}

}  // namespace mbstep
