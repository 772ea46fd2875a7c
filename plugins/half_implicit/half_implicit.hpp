// mbstep — `half implicit [, jacobian, step | predicted]`: the half-implicit symplectic Euler
// for the index-3 DAEs of multibody dynamics on the `lie group` formulation [Fang, Kissel,
// Zhang, Negrut, "On the use of half-implicit numerical integration in multibody dynamics",
// J. Comput. Nonlinear Dyn. 18 (2023) 014501, doi:10.1115/1.4056183; the
// equation numbers below are the paper's].
//
// Equations of motion (2a)-(2c) in the Lie group formulation's form (second_order.hpp),
// q = (x, R) per node, v = (x', W_body), with a constant diagonal mass matrix M (central
// principal node frames, sec. 2: M = diag(m I, J), J diagonal):
//   M a + f(q, v, t) + L(q) lambda = 0,   phi(q, t) = 0,    L = df/dlambda, B = dphi/dq
// (f holds the gyroscopic terms W x J W and the applied forces with a minus sign; L lambda the
// constraint reactions Phi_r^T lambda, Pi^T lambda of (2a)-(2b)).
//
// One step t_n -> t_{n+1} = t_n + h, given (q_n, v_n):
//   (3)  a_n = -M^-1 (f(q_n, v_n, t_n) + L(q_n) lambda_n)        accelerations at t_n
//   (4a,b) v_{n+1} = v_n + h a_n                                  explicit velocity update
//   (4c,d) q_{n+1} = q_n (+) h v_{n+1},  i.e. x_{n+1} = x_n + h x'_{n+1},
//          R_{n+1} = R_n exp(h skew(W_{n+1}))                     implicit position update
//   (2c) phi(q_{n+1}(lambda_n), t_{n+1}) = 0                      nc equations in lambda_n only
// The multipliers at t_n are the only unknowns: they are chosen so that the constraints hold at
// t_{n+1}. Newton on (2c) in the scaled unknown mu = h^2 lambda_n (the public code's
// lambda_hat), with the iteration matrix of the paper's quasi-Newton scheme, eqs. (11)-(12):
//   d phi(q_{n+1}) / d mu = -B(q_{n+1}) T(h v_{n+1}) M^-1 L(q_n)
//                         ~ -S,   S = B(q_n) M^-1 L(q_n)            (`jacobian, step`, default)
//                         ~ -S_p, S_p = B(q_{n+1}^(0)) M^-1 L(q_n)  (`jacobian, predicted`)
//   mu^(k+1) = mu^(k) + S^-1 phi(q_{n+1}(mu^(k)), t_{n+1}),   mu^(0) = h^2 lambda_{n-1},
// S (nc x nc, sparse, the Schur complement of [M, L; B, 0]) is factorized once per step (KLU,
// symbolic analysis once per pattern); each iteration costs one evaluation of phi and one
// solve. Converged when max |phi(q_{n+1})| <= the deck's tolerance (position units of the
// constraints, unscaled). T(h v) = I + O(h) and B(q_{n+1}) - B(q_n) = O(h), so the iteration
// contracts with a rate O(h). No Jacobian of the applied forces (K, C) enters the scheme;
// the SecondOrderProblem interface evaluates them along with L and B, once per step.
//
// Friction (sec. 3.4): forces are evaluated explicitly at (q_n, v_n, t_n); the joints' friction
// reads the reactions of the previous converged step (Element::AfterConvergence). After a step
// the formulation holds (q_{n+1}, v_{n+1}) and lambda_n, so reactions (.jnt output, friction
// normal forces) lag the configuration by one step, as in the paper.
//
// Start: consistent (v_0, a_0, lambda_0) from the formulation's InitialConditions; lambda_0
// (scaled) is the first Newton guess. The method is first order and symplectic for
// unconstrained separable Hamiltonians (bounded energy error, no secular drift; tested on the
// double pendulum).
//
// Refused in Attach (before the first step): formulations other than `lie group`; static
// nodes (no inertia to invert); bodies whose centre of mass is off their node or whose inertia
// is not diagonal in the node frame (the mass matrix would not be constant and diagonal), the
// body is named. Not implemented: higher-order half-implicit variants, velocity-level
// constraints (refused by `lie group` itself).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "mbstep/formulation/second_order.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/solver/linear_solver.hpp"

namespace mbstep::half_implicit {

class HalfImplicitEuler final : public Integrator {
  public:
    /// predicted_jacobian: B evaluated at the predicted q_{n+1} instead of q_n.
    explicit HalfImplicitEuler(bool predicted_jacobian) : predicted_(predicted_jacobian) {}

    std::string name() const override { return "half implicit"; }
    ProblemInterface requires_interface() const override {
        return ProblemInterface::kSecondOrderDae;
    }
    void Attach(Formulation& f, const SolverSettings& s) override;
    void Start(double t0, double h) override;
    StepStats Advance(double t, double h) override;
    int order() const override { return 1; }

    /// The constant diagonal of M^-1 (tests).
    const Eigen::VectorXd& inverse_mass() const { return minv_; }

  private:
    /// q_{n+1} and v_{n+1} for the scaled multipliers mu = h^2 lambda_n.
    void Propagate(const Eigen::VectorXd& mu, double h, Eigen::VectorXd& q1, Eigen::VectorXd& v1);
    bool FactorIterationMatrix(const Eigen::SparseMatrix<double>& B, std::string& why);

    bool predicted_;
    Formulation* formulation_{nullptr};
    SecondOrderProblem* problem_{nullptr};
    SolverSettings settings_;
    std::unique_ptr<LinearSolver> solver_;
    std::vector<int> pattern_outer_, pattern_inner_;
    int nv_{0}, nc_{0};
    Eigen::VectorXd minv_;
    // Converged state at t_n and the last multipliers.
    Eigen::VectorXd q_n_, v_n_, lambda_n_;
    // Per-step work: f(q_n, v_n, 0, t_n), M^-1 L(q_n).
    Eigen::VectorXd f0_, fs_, Ma_, phi_, zero_v_, zero_l_;
    Eigen::SparseMatrix<double> minv_l_;
    SecondOrderProblem::Jacobians jac_;
};

}  // namespace mbstep::half_implicit
