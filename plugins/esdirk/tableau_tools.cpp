// mbstep — esdirk tableau building blocks (equations in tableau_tools.hpp).
#include "tableau_tools.hpp"

#include <Eigen/LU>
#include <cmath>
#include <sstream>

namespace mbstep::esdirk {

EsdirkTableau TrapezoidalStart(int S, double gamma, const std::vector<double>& c_inner) {
    EsdirkTableau t;
    t.a = Eigen::MatrixXd::Zero(S + 1, S + 1);
    t.c = Eigen::VectorXd::Zero(S + 1);
    for (int i = 1; i <= S; ++i) t.a(i, i) = gamma;
    t.a(1, 0) = gamma;  // stage_n.hpp eq. (2)
    t.c[1] = 2.0 * gamma;
    for (size_t k = 0; k < c_inner.size(); ++k) t.c[2 + k] = c_inner[k];
    t.c[S] = 1.0;
    return t;
}

void SolveStageOrderTwoRows(EsdirkTableau& t, int first, int last,
                            const std::vector<WeightedCondition>& extra) {
    // Unknowns: a_ij, first <= i <= last, j < i, in row order.
    std::vector<std::pair<int, int>> idx;
    for (int i = first; i <= last; ++i)
        for (int j = 0; j < i; ++j) idx.emplace_back(i, j);
    const int m = static_cast<int>(idx.size());
    if (m == 0) return;
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(m, m);
    Eigen::VectorXd rhs(m);
    const double gamma = t.gamma();
    int row = 0;
    for (int i = first; i <= last; ++i) {  // (T1)
        for (int k = 0; k < m; ++k)
            if (idx[k].first == i) {
                M(row, k) = 1.0;
                M(row + 1, k) = t.c[idx[k].second];
            }
        rhs[row] = t.c[i] - gamma;
        rhs[row + 1] = t.c[i] * t.c[i] / 2.0 - gamma * t.c[i];
        row += 2;
    }
    const int n = static_cast<int>(t.c.size());
    for (const WeightedCondition& e : extra) {
        double known = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j) {
                if (i >= first && i <= last && j < i) continue;
                known += e.w[i] * t.a(i, j) * e.f[j];
            }
        for (int k = 0; k < m; ++k) M(row, k) = e.w[idx[k].first] * e.f[idx[k].second];
        rhs[row] = e.target - known;
        ++row;
    }
    if (row != m) throw RunError("esdirk: row conditions do not determine the rows");
    const Eigen::VectorXd x = M.fullPivLu().solve(rhs);
    for (int k = 0; k < m; ++k) t.a(idx[k].first, idx[k].second) = x[k];
}

void QuadratureWeights(EsdirkTableau& t) {
    const int S = t.implicit_stages();
    Eigen::MatrixXd M(S, S);
    Eigen::VectorXd rhs(S);
    for (int q = 1; q <= S; ++q) {  // (T2), b_S = gamma known
        for (int j = 0; j < S; ++j) M(q - 1, j) = std::pow(t.c[j], q - 1);
        rhs[q - 1] = 1.0 / q - t.gamma() * std::pow(t.c[S], q - 1);
    }
    const Eigen::VectorXd b = M.fullPivLu().solve(rhs);
    for (int j = 0; j < S; ++j) t.a(S, j) = b[j];
}

std::vector<double> StabilitySeries(const EsdirkTableau& t, int K) {
    const int n = static_cast<int>(t.c.size());
    std::vector<double> r(K);
    Eigen::VectorXd v = Eigen::VectorXd::Ones(n);
    r[0] = 1.0;
    for (int k = 1; k < K; ++k) {  // (T3)
        r[k] = t.a.row(n - 1).dot(v);
        v = t.a * v;
    }
    return r;
}

std::vector<double> AmplitudeSeries(const std::vector<double>& r) {
    const int K = static_cast<int>(r.size());
    std::vector<double> a((K + 1) / 2, 0.0);
    for (int m = 0; 2 * m < K; ++m) {  // (T4)
        double s = 0.0;
        for (int k = 0; k <= 2 * m; ++k) {
            const int l = 2 * m - k;
            s += (l % 2 ? -1.0 : 1.0) * r[k] * r[l];
        }
        a[m] = (m % 2 ? -1.0 : 1.0) * s;
    }
    return a;
}

double StabilityAtInfinity(const EsdirkTableau& t) {
    const int n = static_cast<int>(t.c.size());
    Eigen::VectorXd Y(n);
    Y[0] = 1.0;
    for (int i = 1; i < n; ++i) Y[i] = -t.a.row(i).head(i).dot(Y.head(i)) / t.gamma();  // (T5)
    return Y[n - 1];
}

int TenthsIndex(double rho) {
    const double k = std::round(10.0 * rho);
    if (!(std::abs(10.0 * rho - k) < 1e-9) || k < 0.0 || k > 10.0) return -1;
    return static_cast<int>(k);
}

void RejectRho(const std::string& method, double rho, const std::string& accepted) {
    std::ostringstream os;
    os << method << ": rho_inf = " << rho << " is not tabulated; accepted values: " << accepted;
    throw RunError(os.str());
}

}  // namespace mbstep::esdirk
