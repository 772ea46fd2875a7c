// mbstep tests — the iteration matrix of a first-order problem against central differences of
// its residual (shared by the formulation and element tests).
#pragma once

#include <doctest/doctest.h>

#include <Eigen/Sparse>

#include "mbstep/formulation/formulation.hpp"

namespace mbstep::test {

/// J = dr/dy' + c dr/dy against central differences of the residual, column by column of the
/// Newton unknowns (FirstOrderProblem::unknown_dof), at the problem's current state, which is
/// restored afterwards. Step 1e-6: truncation ~1e-12 relative, round-off ~1e-10 for residuals
/// of O(100) divided by c ~ 0.01, the test elements' own FD derivatives ~1e-8 relative; the
/// tolerance is 1e-6 relative to the column norm, far above all three.
inline void CheckIterationMatrix(FirstOrderProblem& p, double c) {
    const int nu = static_cast<int>(p.pattern().rows());
    Eigen::SparseMatrix<double> J = p.pattern();
    p.Jacobian(c, J);
    const Eigen::MatrixXd Jd(J);
    const Eigen::VectorXd y0 = p.y(), yp0 = p.yp();
    const auto& kinds = p.dof_kinds();
    Eigen::VectorXd rp, rm;
    const double e = 1e-6;
    for (int k = 0; k < nu; ++k) {
        const int i = p.unknown_dof(k);
        for (int sgn : {1, -1}) {
            p.y() = y0;
            p.yp() = yp0;
            if (kinds[i] == DofKind::kDifferential) {
                p.yp()[i] += sgn * e;
                p.y()[i] += sgn * c * e;
            } else {
                p.y()[i] += sgn * e;
            }
            p.Residual(c, sgn > 0 ? rp : rm);
        }
        REQUIRE(rp.size() == nu);
        const Eigen::VectorXd fd = (rp - rm) / (2 * e);
        INFO("column ", k, " (", p.DescribeEquation(k), ")");
        CHECK((fd - Jd.col(k)).norm() <= 1e-6 * (1.0 + fd.norm()));
    }
    // ResidualAndJacobian (Newton's first iteration of a point): the bits of Residual() then
    // Jacobian() at the same state.
    Eigen::VectorXd r0, r1;
    Eigen::SparseMatrix<double> J0 = p.pattern(), J1 = p.pattern();
    p.y() = y0;
    p.yp() = yp0;
    p.Residual(c, r0);
    p.Jacobian(c, J0);
    p.y() = y0;
    p.yp() = yp0;
    p.ResidualAndJacobian(c, r1, J1);
    CHECK(r1.size() == r0.size());
    CHECK(r1 == r0);
    CHECK(Eigen::Map<const Eigen::VectorXd>(J1.valuePtr(), J1.nonZeros()) ==
          Eigen::Map<const Eigen::VectorXd>(J0.valuePtr(), J0.nonZeros()));
    p.y() = y0;
    p.yp() = yp0;
}

/// CheckIterationMatrix at three random states: random references (through AfterPredict) and
/// random increments on top of them, at times t0, t0 + 1, t0 + 2 and c = c0, 2 c0, 3 c0.
inline void CheckIterationMatrixAtRandomStates(FirstOrderProblem& p, double t0, double c0) {
    const int n = p.num_dofs();
    for (int trial = 0; trial < 3; ++trial) {
        p.SetTime(t0 + trial);
        p.y() += Eigen::VectorXd::Random(n) * 0.3;
        p.yp() += Eigen::VectorXd::Random(n) * 0.5;
        p.AfterPredict();
        p.y() += Eigen::VectorXd::Random(n) * 0.3;
        p.yp() += Eigen::VectorXd::Random(n) * 0.5;
        CheckIterationMatrix(p, c0 * (trial + 1));
    }
}

}  // namespace mbstep::test
