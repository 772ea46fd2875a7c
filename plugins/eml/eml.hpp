// mbstep — `eml [, reduced | null space]`: the energy-momentum scheme from Livens' principle with
// unit quaternions and the singular 4 x 4 quaternion mass matrix [Kinon & Betsch, Multibody Syst
// Dyn (2024), eqs. (72a)-(72d), (86a)-(86d), (101)-(105)], on the `euler parameters`
// formulation (its coordinates q = (x, e) per node, its checks: no static nodes, no
// velocity-level rows). A centre of mass off the node (s != 0, J about the node) adds the
// coupling T_c = v_x . (w x S) (Gonzalez (71) over (e, v_x, v_e)); body gravity is taken in the
// quadratic form V = -g.(m x + E(e) L(e)^T s) (the paper's (115)), exact at the midpoint.
//
// Per node (J body-frame inertia about the node = CoM, m mass), with L(e) = [-e_v, e0 I - e_v~],
// E(e) = [-e_v, e0 I + e_v~], Omega = 2 L(e) v_e (body angular velocity), Omega_mid =
// (Omega_n + Omega_n+1)/2, e_mid = (e_n + e_n+1)/2, v_mid = (v_n + v_n+1)/2:
//   (a) q_n+1 - q_n = h v_mid                                                   (72a)
//   (b) p_n+1 - p_n = h (dT_q + Q_mid - sum_k lambda_k grad_k) - h lambda_e e_mid   (72b), (93)
//   (c) (p_n + p_n+1)/2 = dT_v                                                  (72c)
//   (d) phi(q_n+1, t_n+1) = 0,  (|e_n+1|^2 - 1)/2 = 0                           (72d)
// with the G-equivariant partitioned discrete derivatives of T = Omega.J Omega/2 (87)-(88):
//   dT_v = 2 L(e_mid)^T J Omega_mid,  dT_q = -2 L(v_e,mid)^T J Omega_mid   (rotation)
//   dT_v = m v_x,mid,                 dT_q = 0                              (translation)
// Element contributions are taken through the element contract at the midpoint configuration
// (R = R(e/|e|), the formulation's exact map dtheta = (2/|e|^2) E(e) de):
//   - applied loads of non-conservative elements (forces, couples, dampers): the
//     power-equivalent load Q_mid = (F, (2/|e|^2) E(e)^T M) at q_mid, v_mid, t_mid;
//   - conservative elements (body gravity, rod, deformable hinge: the elements implementing
//     PotentialEnergy) split into f(q_mid, v = 0) (elastic, Gonzalez discrete gradient (71)
//     over the element's own coordinates, with V at q_n and q_n+1) and the remainder (damping);
//   - constraint rows of joints: Gonzalez discrete gradient (71) of phi_k over the element's
//     coordinates (phi at q_n, t_n and q_n+1, t_n+1; gradient phi_q P at q_mid). Joint
//     constraints are functions of R(e/|e|), not quadratic in e, so the midpoint form is used
//     only for the quadratic unit-length constraint (93).
//   Potentials and constraint rows invariant under global translations take (71) in the
//   quotient by them (linear momentum exact); rotations cannot be treated so, and the angular
//   momentum of models with joints changes by O(h^3) per step (DESIGN.md, `eml`).
// Variants (same solution, different unknowns):
//   full       (q, v, p, lambda): 21 unknowns per node + multipliers
//   reduced    (q, lambda): v_n+1 = 2 (q_n+1 - q_n)/h - v_n (101), p_n+1 = 2 dT_v - p_n (102)
//   null space (dx, theta, element lambdas): e_n+1 = exp((0, theta/2)) e_n (105) (unit length
//              exact), rotational rows of (b) premultiplied by L(e_mid) (104)
// Newton (the core's NewtonSolver, full Newton): the iteration matrix is a forward-difference
// Jacobian of the residual (exact residual, so the solution and its conservation properties do
// not depend on it), sparse and coloured: one residual per group of columns with disjoint rows
// (DetectPattern, the core's ColorElements). Conservation holds to the Newton tolerance:
// converged when the max-norm of the residual is below the deck tolerance or the max-norm of the
// increment is below 1e-13 (1 + |u|) (IncrementConverged; round-off: v_n+1 = 2 (q_n+1 - q_n)/h
// amplifies the last bits of q by 2/h); EmlNewtonSettings.
// On a model of abstract nodes (formulation `lagrangian`) the general form of (72a)-(72d) runs
// instead (eml_abstract.hpp).
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "eml_abstract.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/solver/newton.hpp"

namespace mbstep::eml {

class Eml final : public Integrator, private NewtonSystem {
  public:
    explicit Eml(Variant v) : variant_(v) {}
    std::string name() const override { return "eml"; }
    ProblemInterface requires_interface() const override {
        return ProblemInterface::kSecondOrderDae;
    }
    void Attach(Formulation& f, const SolverSettings& s) override;
    void Start(double t0, double h) override;
    StepStats Advance(double t, double h) override;
    int order() const override { return 2; }
    /// `.csv`: the generalized energy (74) and the momentum map (65), the quantities the scheme
    /// conserves (the energy column is E_tot (80) from the velocities, which it does not).
    std::vector<std::pair<std::string, std::string>> ExtraCsvColumns() const override;
    void ExtraCsvValues(std::vector<double>& values) const override;

    Variant variant() const { return variant_; }
    /// Discrete generalized energy (74): p.v - v.M(q) v/2 + V(q) at the last converged point.
    double GeneralizedEnergy() const;
    /// Angular momentum about the origin from (q, v): sum m x x v + R J Omega (equals
    /// MomentumMap() only where p = M(q) v).
    Vec3 AngularMomentum() const;
    /// Angular momentum from the momenta p (the discrete momentum map (65)):
    /// sum x x p_x + E(e) p_e / 2.
    Vec3 MomentumMap() const;
    const Eigen::VectorXd& q() const { return q_n_; }
    const Eigen::VectorXd& v() const { return v_n_; }
    const Eigen::VectorXd& p() const { return p_n_; }
    int num_unknowns() const;
    /// The scheme on a model of abstract nodes (formulation `lagrangian`), or nullptr.
    const AbstractEml* abstract() const { return abstract_.get(); }

  private:
    struct ElementInfo {
        int index{0};
        int m{0};
        int mult_offset{0};
        bool conservative{false};
        bool load{false};
        /// Bit j: invariant under the translation along global axis j, detected at q_n and at a
        /// perturbed configuration (Symmetries).
        unsigned symmetry{0};
        /// Constraint rows depend on time (prescribed motion): plain Gonzalez (71).
        bool rheonomic{false};
        /// A `body`: its gravity potential is taken in the quadratic form (see Discrete).
        bool body{false};
        NodeInertia inertia;
    };
    // Residual of the variant at unknowns u; also returns q1, v1, p1, lambda.
    void Residual(const Eigen::VectorXd& u, Eigen::VectorXd& r);
    void Unpack(const Eigen::VectorXd& u, Eigen::VectorXd& q1, Eigen::VectorXd& v1,
                Eigen::VectorXd& p1, Eigen::VectorXd& lambda) const;
    // Row `row` of Residual() by node or element label and component (failure messages).
    std::string DescribeEquation(int row) const override;
    // NewtonSystem at the iterate u_: the residual (kept in r_), the coloured Jacobian, the
    // update and eml's increment test.
    void Residual(Eigen::VectorXd& r) override;
    void Jacobian(Eigen::SparseMatrix<double>& J) override;
    void ResidualAndJacobian(Eigen::VectorXd& r, Eigen::SparseMatrix<double>& J) override;
    void Update(const Eigen::VectorXd& dx) override { u_ += dx; }
    bool IncrementConverged(const Eigen::VectorXd& dx) const override;
    // Discrete forces h-free: F (7N) = dT_q + Q - sum lambda grad; dTv (7N).
    void Discrete(const Eigen::VectorXd& q1, const Eigen::VectorXd& v1,
                  const Eigen::VectorXd& lambda, Eigen::VectorXd& force, Eigen::VectorXd& dTv,
                  Eigen::VectorXd& phi1);
    void States(const Eigen::VectorXd& q, const Eigen::VectorXd& v, std::vector<FrameState>& s);
    double Potential(const std::vector<FrameState>& s, double t) const;
    // Sets ElementInfo::symmetry from the gradients at the converged point q_n: rigid motion j
    // is kept while grad f . b_j = 0 (relative 1e-8) for every row, at the start and at every
    // step since (a true symmetry never fails; a coincidental one is dropped once it fails).
    void Symmetries();
    unsigned SymmetryMask(const ElementInfo& info, const Eigen::VectorXd& q);

    Variant variant_;
    Formulation* formulation_{nullptr};
    SecondOrderProblem* problem_{nullptr};
    SolverSettings settings_;
    int nn_{0}, nq_{0}, nm_{0};
    std::vector<NodeInertia> inertia_;
    std::vector<ElementInfo> elements_;
    // Converged point n and the step being solved.
    double t_n_{0.0}, h_{0.0};
    Eigen::VectorXd q_n_, v_n_, p_n_, lambda_n_;
    Eigen::VectorXd phi_n_;  // element constraint values at q_n
    std::vector<FrameState> s0_, s1_, sm_, sm0_;
    bool started_{false};
    // Iteration matrix: forward differences, one residual per colour of its columns.
    void DetectPattern(const Eigen::VectorXd& u);
    // For each unknown, a sorted superset of the residual rows it can change (element
    // connectivity; DetectPattern).
    std::vector<std::vector<int>> StructuralRows() const;
    bool pattern_ready_{false};
    std::vector<std::vector<int>> col_rows_;  // rows of each column (sorted)
    std::vector<std::vector<int>> colors_;    // columns per colour
    std::unique_ptr<NewtonSolver> newton_;
    Eigen::VectorXd u_, r_;  // Newton's iterate and its residual
    std::unique_ptr<AbstractEml> abstract_;
};

}  // namespace mbstep::eml
