// mbstep — StageN<S>: the non-template part and the explicit instantiations for S = 1..6
// (equations in stage_n.hpp).
#include "mbstep/integrator/stage_n.hpp"

#include <Eigen/LU>
#include <cmath>

namespace mbstep {

Eigen::VectorXd HermiteExtrapolation(const Eigen::VectorXd& tau) {
    // Exactness on t^q, q = 0..2k-1, at t = 0 (dt = 1): sum_j m_j tau_j^q + n_j q tau_j^(q-1)
    // = d/dt t^q at 0 — the Taylor conditions of eqs. (13) and (16).
    const int k = static_cast<int>(tau.size());
    Eigen::MatrixXd M(2 * k, 2 * k);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(2 * k);
    for (int q = 0; q < 2 * k; ++q) {
        for (int j = 0; j < k; ++j) {
            M(q, j) = std::pow(tau[j], q);
            M(q, k + j) = q ? q * std::pow(tau[j], q - 1) : 0.0;
        }
    }
    if (2 * k > 1) rhs[1] = 1.0;
    return M.fullPivLu().solve(rhs);
}

std::complex<double> StageNBase::StabilityFunction(const EsdirkTableau& t, std::complex<double> z) {
    // (4): R(z) = 1 + z b^T (I - z A)^-1 1 = Y_S with Y = (I - z A)^-1 1, since b^T is the
    // last row of A (stiffly accurate); the second form has no cancellation at large |z|.
    const int n = static_cast<int>(t.c.size());
    const Eigen::MatrixXcd M =
        Eigen::MatrixXcd::Identity(n, n) - z * t.a.cast<std::complex<double>>();
    const Eigen::VectorXcd Y = M.partialPivLu().solve(Eigen::VectorXcd::Ones(n));
    return Y[n - 1];
}

Eigen::MatrixXcd StageNBase::AmplificationMatrix(std::complex<double> z, double rho) const {
    // A rho_inf the method does not accept (off its table) gives an empty matrix, as for a
    // method without linear analysis; Tableau(rho) names the accepted values.
    EsdirkTableau t;
    try {
        t = DoTableau(rho);
    } catch (const RunError&) {
        return {};
    }
    Eigen::MatrixXcd R(1, 1);
    R(0, 0) = StabilityFunction(t, z);
    return R;
}

template class StageN<1>;
template class StageN<2>;
template class StageN<3>;
template class StageN<4>;
template class StageN<5>;
template class StageN<6>;

}  // namespace mbstep
