// mbstep — `rk, <tableau> [, rtol [, atol] | fixed]`: explicit Runge–Kutta methods on
// second-order formulations without holonomic constraints (SecondOrderProblem), as explicit
// RK on vector-space formulations (`euler parameters`, `euler angles`) and as
// Runge–Kutta–Munthe-Kaas (RKMK) on `lie group`, with step-size control for embedded pairs.
//
// The ODE. With the element constraints refused (see below), the formulation's equations are
//   (1) M(q) a + f(q, v, lambda, t) = 0,   phi_own(q) = 0
// where phi_own are the formulation's own algebraic equations (the unit length of Euler
// parameters; none for `lie group` and `euler angles`). Per stage, given (Q, V, t), the
// acceleration and the multipliers of phi_own solve the index-1 system
//   (2) [M  L] [a     ]   [-f(Q, V, 0, t)]       L = df/dlambda, B = dphi/dq
//       [B  0] [lambda] = [-gamma        ],      gamma = d^2/dtau^2 phi(Q (+) tau V, t + tau)
// (gamma: the velocity-product term of the acceleration-level constraint, by central
// differences with Richardson extrapolation at tau = 0.1/|V|_inf and 0.05/|V|_inf; for the
// quadratic e^T e - 1 of Euler parameters the second difference is exact for any tau, so only
// round-off, ~1e-14 |V|^2, remains). The kinematic equation is
//   (3) vector space (q' = v):  dq/dt = v
//       Lie group (RKMK):       q(t) = q_n (+) Theta(t),  Theta' = T(Theta)^-1 v,  Theta(t_n) = 0
// with T the formulation's TangentOperator (T_exp on SO(3), identity on R^3): the local
// coordinates Theta are integrated in the chart at q_n, stage configurations are
// Q_i = q_n (+) Theta_i, so rotations are composed (R_n exp(Theta_i)) and stay on SO(3) without
// any constraint. One step with tableau (A, b, c):
//   Theta_i = h sum_j a_ij kq_j,  V_i = v_n + h sum_j a_ij kv_j,  Q_i = q_n (+) Theta_i
//   kv_i = a(Q_i, V_i, t_n + c_i h) from (2),  kq_i = V_i (vector space) | T(Theta_i)^-1 V_i
//   q_{n+1} = q_n (+) h sum_i b_i kq_i,  v_{n+1} = v_n + h sum_i b_i kv_i.
// Euler parameters are never normalised by the integrator: the formulation evaluates every
// orientation from e/|e| (its exact maps), and (2) keeps d^2/dt^2 (e^T e) = 0, so |e| - 1
// drifts only by the method's error (tested: order p; the .csv drift column does not show it).
//
// Error estimate (embedded pairs): e = h sum_i (b_i - b_hat_i) (kq_i; kv_i), i.e. the difference
// of the two solutions' local increments in the chart at q_n (for rotations the difference of
// the two rotation increments, = log(R_hat^T R) to leading order, never a component-wise
// difference of absolute rotation vectors), in the RMS norm
//   err = sqrt(1/(2 nv) sum_i (e_i / sc_i)^2),  sc_i = atol + rtol m_i,
// m_i = max(|y_n,i|, |y_{n+1},i|) for velocity rows and the configuration rows of vector-space
// formulations, m_i = 1 for the configuration rows of a Lie group formulation (its local
// coordinates have no absolute size: rotation errors in rad, positions in m). A step with
// err <= 1 is accepted. Controller: PI [Hairer, Norsett, Wanner I, sec. II.4 and IV.2]
//   h_new = h min(fac_max, max(fac_min, 0.9 err^(-alpha) err_prev^beta)),
//   k = min(p, p_hat) + 1, beta = 0.4/k, alpha = 1/k - 0.75 beta, fac_min = 0.2, fac_max = 5,
// standard (beta = 0, no growth) after a rejected step. FSAL pairs reuse their last stage as
// the next step's first; every tableau reuses the acceleration at the accepted point.
//
// Abstract nodes (formulation `lagrangian`, mbstep/formulation/abstract_formulation.hpp): with
// T(q, v) and V(q) of the `lagrangian` elements, (2) is replaced by the Lagrange equations
//   (4) M(q, v) a = T_q - V_q - T_vq v,   M = T_vv,  (T_vq v)_i = sum_j d2T/dv_i dq_j v_j
// solved per stage by a dense, fully pivoted LU (these systems are small) and (3) is q' = v.
// A mass matrix of numerical rank < n (relative pivot threshold 1e-12) is refused: at the
// initial time in Start, later as a step failure, naming the time and the rank (a singular M
// needs `eml` or a `cgr` formulation, which never invert it).
//
// Refused in Attach, before the first step: models with element multipliers (holonomic or
// velocity-level constraints; the first such element is named), formulations that are not
// second order. Not implemented: index-1/Baumgarte variants for constrained models.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "mbstep/formulation/abstract_formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/integrator/butcher_tableau.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/solver/linear_solver.hpp"

namespace mbstep::rk {

class ExplicitRk final : public Integrator, public TableauIntegrator {
  public:
    /// adaptive: step-size control with (rtol, atol); requires an embedded tableau.
    ExplicitRk(const ButcherTableau& tableau, bool adaptive, double rtol, double atol);

    std::string name() const override { return tableau_.name; }
    ProblemInterface requires_interface() const override {
        return ProblemInterface::kSecondOrderDae;
    }
    void Attach(Formulation& f, const SolverSettings& s) override;
    void Start(double t0, double h) override;
    StepStats Advance(double t, double h) override;
    int order() const override { return tableau_.order; }
    bool adaptive() const override { return adaptive_; }
    double next_step() const override { return h_next_; }
    const ButcherTableau& tableau() const override { return tableau_; }

    double rtol() const { return rtol_; }
    double atol() const { return atol_; }

  private:
    /// (2) at (q, v, t); false (with the reason) for a singular matrix or a non-finite result.
    bool Acceleration(const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t,
                      Eigen::VectorXd& a, Eigen::VectorXd& lambda, std::string& why);
    /// (4) at (q, v) for abstract nodes; false (with the reason) for a singular M.
    bool AbstractAcceleration(const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t,
                              Eigen::VectorXd& a, std::string& why);
    /// q (+) theta: the formulation's retraction, or q + theta for abstract nodes.
    void Retract(const Eigen::VectorXd& q, const Eigen::VectorXd& theta, Eigen::VectorXd& out);
    /// The state (q, t) the formulation shows (nothing to restore for abstract nodes, whose
    /// formulation is written only at an accepted point).
    void ShowState(const Eigen::VectorXd& q, double t);
    /// kq = T(theta)^-1 v (Lie group) or v.
    void Kinematic(const Eigen::VectorXd& theta, const Eigen::VectorXd& v, Eigen::VectorXd& kq);
    double ErrorNorm(const Eigen::VectorXd& eq, const Eigen::VectorXd& ev,
                     const Eigen::VectorXd& q1, const Eigen::VectorXd& v1) const;
    void Propose(double h, double err, bool accepted);

    ButcherTableau tableau_;
    bool adaptive_;
    double rtol_, atol_;
    Formulation* formulation_{nullptr};
    SecondOrderProblem* problem_{nullptr};
    AbstractFormulation* abstract_{nullptr};  // abstract nodes: (4) instead of (2)
    std::unique_ptr<LinearSolver> solver_;
    std::vector<int> pattern_outer_, pattern_inner_;
    int nv_{0}, nc_{0};
    bool vector_space_{true};
    int solves_{0};  // factorizations in the current Advance
    // Accepted state and stage slopes.
    Eigen::VectorXd q_n_, v_n_, a_n_, lambda_n_;
    std::vector<Eigen::VectorXd> kq_, kv_;
    Eigen::VectorXd Ma_, f_, phi_, zero_v_, zero_l_;
    SecondOrderProblem::Jacobians jac_;
    // Controller.
    double h_next_{0.0}, err_prev_{1e-4};
    bool last_rejected_{false};
};

}  // namespace mbstep::rk
