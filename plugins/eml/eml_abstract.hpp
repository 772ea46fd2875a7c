// mbstep — `eml [, reduced]` on systems of abstract nodes: the Livens-principle energy-momentum
// scheme in its general form [P.L. Kinon, P. Betsch, "Conserving integration of multibody
// systems with singular and non-constant mass matrix including quaternion-based rigid body
// dynamics", Multibody Syst Dyn (2024), doi:10.1007/s11044-024-10001-9, eqs. (72a)-(72d)] for
// the `lagrangian` elements' kinetic energy T(q, v), potential V(q) and holonomic constraints
// g(q) = 0 (model/lagrangian_contract.hpp, LagrangianBlock; summed over the elements). M = T_vv
// may be constant and singular or depend on q; it is never inverted.
//
// Unknowns of the full scheme: q_n+1, v_n+1, p_n+1 (one per abstract node) and lambda (one per
// constraint row); with v_mid = (v_n + v_n+1)/2, p_mid = (p_n + p_n+1)/2:
//   (1) q_n+1 - q_n = h v_mid                                           (72a)
//   (2) p_n+1 - p_n = h (dT_q - dV) - h sum_k lambda_k dg_k            (72b)
//   (3) p_mid = dT_v                                                    (72c)
//   (4) g(q_n+1) = 0                                                    (72d)
// with the partitioned discrete derivatives of T (the paper's Appendix A; for T quadratic in v
// they give its (83), dT_v = (M(q_n) + M(q_n+1)) v_mid / 2):
//   dT_q = [Dq T(.; v_n) + Dq T(.; v_n+1)] / 2,   Dq T(.; v) = Gonzalez (71) of q -> T(q, v)
//   dT_v = [Dv T(q_n; .) + Dv T(q_n+1; .)] / 2,   Dv T(q; .) = Gonzalez (71) of v -> T(q, v)
// and dV, dg_k Gonzalez's (71) of V, g_k. Directionality (73) of the pair and (69) of dV, dg_k
// make the discrete generalized energy (74), E_n = p_n.v_n - T(q_n, v_n) + V(q_n) (= p.v -
// v.M v/2 + V for T quadratic in v), exact (Proposition 4.4); the total energy (80), T + V, is
// not conserved unless M is constant (Proposition 4.6).
//
// Cyclic coordinates: (71) is taken per element and per function in the quotient by the
// coordinates the function does not depend on (its gradient there is zero at the start and at
// a perturbed state), i.e. the correction direction has zeros there. The discrete gradient of a
// function that does not depend on q_j then has a zero j component, so the momentum p_j of a
// coordinate cyclic for T, V and every g_k is conserved exactly (the spring pendulum's phi;
// Noether, the paper's Remark 4.5); directionality holds for any choice of the quotient.
//
// Variant `reduced` (unknowns q_n+1, lambda): v_n+1 = 2 (q_n+1 - q_n)/h - v_n (101),
// p_n+1 = 2 dT_v - p_n (102), equations (2), (4).
//
// Newton (the core's NewtonSolver, EmlNewtonSettings): the exact iteration matrix of (1)-(4)
// from the elements' first and second derivatives (the derivative of each Gonzalez correction
// c a, c = (f_1 - f_0 - grad f_mid . dx)/|a|^2, included), formed dense (abstract-node systems
// are small) and factored by the deck's linear solver on a full pattern (`auto`: the dense LU
// `naive`); the matrix is regular when M is positive definite on the null space of G (no
// inverse of M). Converged when the max-norm of the residual is below the deck tolerance or the
// max-norm of the increment is below 1e-13 (1 + |u|), as the rigid-body `eml`.
// Initial momenta p_0 = T_v(q_0, v_0), multipliers lambda_0 = 0 (a predictor only).
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "mbstep/formulation/abstract_formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/solver/newton.hpp"

namespace mbstep::eml {

/// The Newton settings of both paths: the deck's residual tolerance, iteration bound and linear
/// solver, with the scheme's own tests: the residual's max-norm, full Newton, no `at most`, no
/// solution tolerance (the increment test is the system's IncrementConverged), the increment
/// reported in max-norm, no iteration printout.
SolverSettings EmlNewtonSettings(const SolverSettings& deck);

/// The increment test of both paths (NewtonSystem::IncrementConverged): the max-norm of the
/// increment dx below 1e-13 (1 + |u|_inf) at the updated iterate u, i.e. at round-off (the
/// velocities v_n+1 = 2 (q_n+1 - q_n)/h - v_n (101) amplify the last bits of q by 2/h, so
/// the residual can stall above a tight tolerance).
bool IncrementAtRoundoff(const Eigen::VectorXd& dx, const Eigen::VectorXd& u);

/// The failure message of an `eml` step whose Newton loop did not converge (both paths): the
/// time, step, residual and tolerance, and, when r is the last residual evaluated (size n),
/// its worst equation as `describe` names it (the first non-finite one if any).
std::string EmlNewtonFailure(double t, double h, double residual, double tol,
                             const Eigen::VectorXd& r, int n,
                             const std::function<std::string(int)>& describe);

/// The scheme's unknowns: (q, v, p, lambda), (q, lambda) with (101)-(102), or rotation-vector
/// increments (105) (structural nodes only).
enum class Variant { kFull, kReduced, kNullSpace };

/// The scheme (1)-(4) on an AbstractFormulation.
class AbstractEml final : private NewtonSystem {
  public:
    AbstractEml(AbstractFormulation& f, Variant variant, const SolverSettings& s);
    void Start(double t0);
    StepStats Advance(double t, double h);

    /// Discrete generalized energy (74): p.v - T(q, v) + V(q) at the last converged point.
    double GeneralizedEnergy() const;
    const Eigen::VectorXd& q() const { return q_n_; }
    const Eigen::VectorXd& v() const { return v_n_; }
    const Eigen::VectorXd& p() const { return p_n_; }
    const Eigen::VectorXd& lambda() const { return lambda_n_; }
    int num_unknowns() const;
    /// Residual of the variant at unknowns u for the step from the converged point with step h
    /// and, if J != nullptr, its exact iteration matrix (for tests).
    void Residual(const Eigen::VectorXd& u, Eigen::VectorXd& r, Eigen::MatrixXd* J);
    /// Sets the step (t_n = t, h) without solving, for Residual() in tests.
    void SetStep(double t, double h) { t_n_ = t, h_ = h; }
    /// The predictor of Advance (explicit Euler for q, the last v, p, lambda).
    Eigen::VectorXd Predict() const;

    std::vector<std::pair<std::string, std::string>> CsvColumns() const;
    void CsvValues(std::vector<double>& values) const;

  private:
    // Discrete derivatives at (q1, v1) from the converged point: force F = dT_q - dV -
    // sum lambda_k dg_k, dT_v, g(q1); with jac, their derivatives w.r.t. q1, v1, lambda.
    struct Jac {
        Eigen::MatrixXd F_q, F_v, F_l, Tv_q, Tv_v, g_q;
    };
    void Discrete(const Eigen::VectorXd& q1, const Eigen::VectorXd& v1,
                  const Eigen::VectorXd& lambda, Eigen::VectorXd& F, Eigen::VectorXd& dTv,
                  Eigen::VectorXd& g1, Jac* jac);
    std::string DescribeEquation(int row) const override;
    void DetectCyclic();
    // NewtonSystem at the iterate u_: the residual (kept in r_) with its exact matrix (J_), the
    // matrix copied into the full pattern, the update and the increment test.
    void Residual(Eigen::VectorXd& r) override;
    void Jacobian(Eigen::SparseMatrix<double>& J) override;
    void Update(const Eigen::VectorXd& dx) override { u_ += dx; }
    bool IncrementConverged(const Eigen::VectorXd& dx) const override;

    AbstractFormulation& f_;
    Variant variant_;
    SolverSettings settings_;
    int n_{0}, m_{0};
    double t_n_{0.0}, h_{0.0};
    Eigen::VectorXd q_n_, v_n_, p_n_, lambda_n_;
    // Per element: coordinates (local index) on which T, V, g_k do not depend (char: 1).
    struct Cyclic {
        std::vector<char> T, V;
        std::vector<std::vector<char>> g;
    };
    std::vector<Cyclic> cyclic_;
    std::vector<LagrangianBlock> b00_;  // per element at (q_n, v_n) (fixed during a step)
    NewtonSolver newton_;
    Eigen::VectorXd u_, r_;  // Newton's iterate and its residual
    Eigen::MatrixXd J_;      // the iteration matrix at u_
};

}  // namespace mbstep::eml
