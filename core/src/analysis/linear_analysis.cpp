// mbstep — linear analysis (equations in mbstep/analysis/linear_analysis.hpp).
#include "mbstep/analysis/linear_analysis.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

#include "mbstep/common.hpp"
#include "mbstep/integrator/first_order.hpp"

namespace mbstep::analysis {

namespace {

constexpr double kPi = 3.14159265358979323846;

Eigen::MatrixXcd Amplification(const FirstOrderIntegrator& m, std::complex<double> z, double rho) {
    Eigen::MatrixXcd A = m.AmplificationMatrix(z, rho);
    if (A.size() == 0)
        throw RunError("integrator '" + m.name() +
                       "' provides no amplification matrix (linear analysis)");
    return A;
}

std::vector<std::complex<double>> Eigenvalues(const Eigen::MatrixXcd& A) {
    if (A.rows() == 1) return {A(0, 0)};
    Eigen::ComplexEigenSolver<Eigen::MatrixXcd> es(A, false);
    const Eigen::VectorXcd ev = es.eigenvalues();
    return {ev.data(), ev.data() + ev.size()};
}

double MaxModulus(const std::vector<std::complex<double>>& v) {
    double r = 0.0;
    for (const auto& x : v) r = std::max(r, std::abs(x));
    return r;
}

}  // namespace

std::vector<double> LogGrid(const Grid& g) {
    if (!(g.min > 0.0) || !(g.max > g.min) || g.points < 2) {
        std::ostringstream os;
        os << "linear analysis grid: need 0 < min < max and points >= 2, got min = " << g.min
           << ", max = " << g.max << ", points = " << g.points;
        throw RunError(os.str());
    }
    std::vector<double> x(g.points);
    const double l0 = std::log(g.min), l1 = std::log(g.max);
    for (int i = 0; i < g.points; ++i) x[i] = std::exp(l0 + (l1 - l0) * i / (g.points - 1));
    x.front() = g.min;
    x.back() = g.max;
    return x;
}

std::vector<std::complex<double>> CharacteristicRoots(const FirstOrderIntegrator& m,
                                                      std::complex<double> z, double rho) {
    return Eigenvalues(Amplification(m, z, rho));
}

double SpectralRadius(const FirstOrderIntegrator& m, std::complex<double> z, double rho) {
    return MaxModulus(CharacteristicRoots(m, z, rho));
}

Eigen::MatrixXcd LimitAmplificationMatrix(const FirstOrderIntegrator& m, double rho) {
    // (7): A(z) = A_inf + B w + C w^2 + D w^3 + O(w^4), w = 1/z, for |z| beyond the poles.
    // Truncation falls like |pole / Z|^4 while the round-off of a method's A(z) grows with
    // |z| (e.g. eps |z| for R(z) from (I - z A)^-1), so the extrapolation is done on a ladder
    // of Z and the two neighbours that agree best are kept (their mean).
    auto extrapolate = [&](double Z) {
        // Lagrange weights of the nodes w, w/2, w/4, w/8 at w = 0: -1/21, 2/3, -8/3, 64/21.
        return Eigen::MatrixXcd(
            (64.0 * Amplification(m, -8.0 * Z, rho) - 56.0 * Amplification(m, -4.0 * Z, rho) +
             14.0 * Amplification(m, -2.0 * Z, rho) - Amplification(m, -Z, rho)) /
            21.0);
    };
    Eigen::MatrixXcd prev = extrapolate(1e2), best;
    double best_diff = std::numeric_limits<double>::infinity();
    for (double Z = std::sqrt(10.0) * 1e2; Z <= 1.01e6; Z *= std::sqrt(10.0)) {
        const Eigen::MatrixXcd next = extrapolate(Z);
        const double diff = (next - prev).cwiseAbs().maxCoeff();
        if (diff < best_diff) {
            best_diff = diff;
            best = 0.5 * (next + prev);
        }
        prev = next;
    }
    return best;
}

std::vector<std::complex<double>> ClusterMeans(const std::vector<std::complex<double>>& roots,
                                               double radius) {
    // Single-linkage clusters (union-find over pairs closer than radius).
    const size_t n = roots.size();
    std::vector<size_t> parent(n);
    for (size_t i = 0; i < n; ++i) parent[i] = i;
    auto find = [&](size_t i) {
        while (parent[i] != i) i = parent[i] = parent[parent[i]];
        return i;
    };
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j)
            if (std::abs(roots[i] - roots[j]) < radius) parent[find(i)] = find(j);
    std::vector<std::complex<double>> out(n);
    for (size_t i = 0; i < n; ++i) {
        std::complex<double> sum = 0.0;
        int count = 0;
        for (size_t j = 0; j < n; ++j)
            if (find(j) == find(i)) {
                sum += roots[j];
                ++count;
            }
        out[i] = sum / double(count);
    }
    return out;
}

double SpectralRadiusAtInfinity(const FirstOrderIntegrator& m, double rho) {
    const Eigen::MatrixXcd A = LimitAmplificationMatrix(m, rho);
    // A perturbation ~1e-15 of A_inf spreads a root of multiplicity m <= 5 over <~1e-3.
    const auto roots = Eigenvalues(A);
    return MaxModulus(ClusterMeans(roots, 1e-2));
}

OscillatorCurve AnalyzeOscillator(const FirstOrderIntegrator& m, double rho,
                                  const std::vector<double>& grid) {
    OscillatorCurve c;
    c.method = m.name();
    c.rho = rho;
    c.tunable = m.tunable();
    c.stages = m.implicit_stages();
    if (grid.empty()) return c;
    const double n = c.stages;
    auto z_at = [&](double s) { return std::complex<double>(0.0, 2.0 * kPi * n * std::exp(s)); };

    // Start (4): at a tiny z the principal root is the one nearest exp(z), well apart from the
    // others for a zero-stable method.
    double s = std::log(std::min(grid.front() * 0.5, 1e-6));
    std::complex<double> mu;
    {
        const std::complex<double> z = z_at(s);
        const auto roots = CharacteristicRoots(m, z, rho);
        std::vector<double> d;
        for (const auto& r : roots) d.push_back(std::abs(r - std::exp(z)));
        const size_t k = std::min_element(d.begin(), d.end()) - d.begin();
        std::sort(d.begin(), d.end());
        if (d.size() > 1 && !(d[0] < 1e-3 * d[1]))
            throw RunError("integrator '" + m.name() +
                           "': no isolated principal root near 1 at h lambda -> 0");
        mu = roots[k];
    }
    double phase = std::arg(mu);
    std::complex<double> dmu_ds = z_at(s) * mu;  // d exp(z)/ds = z exp(z), since z ~ e^s
    double ds_try = (grid.size() > 1) ? std::log(grid[1] / grid[0]) : 0.1;

    for (double x : grid) {
        const double s_target = std::log(x);
        // Adaptive continuation from s to s_target (4).
        while (s < s_target) {
            double ds = std::min(ds_try, s_target - s);
            for (;;) {
                const double s_new = (s_target - s - ds < 1e-14) ? s_target : s + ds;
                const std::complex<double> pred = mu + dmu_ds * (s_new - s);
                const auto roots = CharacteristicRoots(m, z_at(s_new), rho);
                double d1 = std::numeric_limits<double>::infinity(), d2 = d1;
                size_t k = 0;
                for (size_t j = 0; j < roots.size(); ++j) {
                    const double d = std::abs(roots[j] - pred);
                    if (d < d1) {
                        d2 = d1;
                        d1 = d;
                        k = j;
                    } else if (d < d2) {
                        d2 = d;
                    }
                }
                const std::complex<double> mu_new = roots[k];
                const double turn =
                    (std::abs(mu) > 0.0 && std::abs(mu_new) > 0.0) ? std::arg(mu_new / mu) : 0.0;
                const bool clear = d1 <= 0.3 * d2 && std::abs(turn) < 0.5;
                if (clear || ds < 1e-12) {
                    dmu_ds = (mu_new - mu) / (s_new - s);
                    phase += turn;
                    mu = mu_new;
                    s = s_new;
                    ds_try = std::min(2.0 * ds, 0.1);
                    break;
                }
                ds *= 0.5;
            }
        }
        // Quantities (3), (5), (6) at x.
        OscillatorPoint p;
        p.h_over_nT = x;
        p.principal_root = mu;
        p.phase = phase;
        p.spectral_radius = SpectralRadius(m, z_at(s_target), rho);
        const double wh = std::abs(z_at(s_target));
        const double log_mod = std::log(std::abs(mu));
        const double wbar_h = std::hypot(log_mod, phase);
        if (std::isfinite(log_mod) && wbar_h > 0.0) {
            p.ad_percent = -100.0 * log_mod / wbar_h;
            p.pe_percent = 100.0 * (wh / wbar_h - 1.0);
        } else {
            p.ad_percent = 100.0;
            p.pe_percent = std::numeric_limits<double>::quiet_NaN();
        }
        c.points.push_back(p);
    }
    return c;
}

void WriteCsv(std::ostream& os, const OscillatorCurve& c) {
    os << "h_over_T,spectral_radius,AD_percent,PE_percent\n";
    os << std::setprecision(17);
    for (const auto& p : c.points)
        os << p.h_over_nT << ',' << p.spectral_radius << ',' << p.ad_percent << ',' << p.pe_percent
           << '\n';
}

double LogLogSlope(const std::vector<double>& x, const std::vector<double>& y, double x_lo,
                   double x_hi) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (x[i] < x_lo || x[i] > x_hi || !(std::abs(y[i]) > 0.0)) continue;
        const double lx = std::log(x[i]), ly = std::log(std::abs(y[i]));
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
        ++n;
    }
    if (n < 2) return std::numeric_limits<double>::quiet_NaN();
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace mbstep::analysis
