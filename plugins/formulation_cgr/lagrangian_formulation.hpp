// mbstep — the `cgr` family's first-order form for models of abstract nodes: the momentum
// form of the Euler-Lagrange equations of the elements' Lagrangian contract
// (model/lagrangian_contract.hpp, LagrangianBlock), in the same shape as `cgr`'s equations (3),
// (1), (5):
//
// Unknowns: per abstract node i its coordinate q_i and momentum p_i (differential), per
// element its multipliers lambda (algebraic). With v = q', T, V, g summed over the elements:
//
//   (L1) r_p   = p - T_v(q, v)                           momentum definition
//   (L2) r_d   = T_q(q, v) - V_q(q) - G(q)^T lambda - p' balance (Euler-Lagrange)
//   (L3) r_g   = -g(q) / c                               holonomic constraints, scaled by
//                                                        1/(b0 h) as `cgr`'s eq. (5)
//
// Newton works on q', p' (dq = c dq', c = b0 h) and lambda; the iteration matrix is exact and
// needs only second derivatives of T, V, g (no third derivative of T, as the acceleration form
// M(q) q'' + ... would):
//   d(L1)/dq' = -T_vv - c T_vq,   d(L1)/dp' = c I
//   d(L2)/dq' = T_qv + c (T_qq - V_qq - sum_k lambda_k g_k,qq),  d(L2)/dp' = -I,
//   d(L2)/dlambda = -G^T,         d(L3)/dq' = -G.
// M = T_vv may be singular (redundant coordinates with a constant singular mass matrix,
// P.L. Kinon, P. Betsch, "Conserving integration of multibody systems with singular and
// non-constant mass matrix including quaternion-based rigid body dynamics", Multibody Syst Dyn
// (2024), doi:10.1007/s11044-024-10001-9, sect. 5.1); it is never inverted: the Newton matrix
// is regular when M is positive definite on the null space of G. The momentum p is an
// independent unknown as in that paper's Livens form (its eqs. (72a)-(72d) in continuous time).
// Initial derivatives: q' = v0 (the nodes' initial derivatives), p = T_v(q0, v0); the
// accelerations a and multipliers at t0 from
//   [ M  G^T ] [ a      ]   [ T_q - V_q - T_vq v0            ]
//   [ G  0   ] [ lambda ] = [ -sum_jl g_k,q_j q_l v0_j v0_l  ]
// (dense, rank-revealing QR; a singular system is an error), p' = T_q - V_q - G^T lambda.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "mbstep/formulation/abstract_formulation.hpp"
#include "mbstep/formulation/formulation.hpp"

namespace mbstep::cgr {

class LagrangianFormulation final : public Formulation, public FirstOrderProblem {
  public:
    /// name: the formulation keyword the deck chose (`cgr`, `cgr velocity`, ...). Throws
    /// RunError for a model it cannot run (structural nodes, elements without the Lagrangian
    /// contract, abstract nodes no element reads).
    LagrangianFormulation(const Model& model, std::string name);

    // Formulation
    std::string name() const override { return name_; }
    ProblemInterface interface() const override { return ProblemInterface::kFirstOrderDae; }
    FirstOrderProblem* first_order() override { return this; }
    const Model& model() const override { return model_; }
    const std::vector<FrameState>& node_states() const override { return no_nodes_; }
    const std::vector<AbstractState>& abstract_states() const override;
    const double* multipliers(int element) const override;
    double time() const override { return t_; }
    Invariants ComputeInvariants() const override;
    void set_threads(int) override {}

    // FirstOrderProblem
    int num_dofs() const override { return n_; }
    const std::vector<DofKind>& dof_kinds() const override { return kinds_; }
    void SetTime(double t) override { t_ = t; }
    void BeforePredict(std::vector<Eigen::VectorXd>&, std::vector<Eigen::VectorXd>&,
                       int = 0) override {}
    void AfterPredict() override {}
    void Residual(double c, Eigen::VectorXd& r) override;
    void Jacobian(double c, Eigen::SparseMatrix<double>& J) override;
    /// Both from one evaluation of the elements (their second-order jets serve r and J).
    void ResidualAndJacobian(double c, Eigen::VectorXd& r, Eigen::SparseMatrix<double>& J) override;
    const Eigen::SparseMatrix<double>& pattern() const override { return pattern_; }
    void Update(const Eigen::VectorXd& delta, double c) override;
    void AfterConvergence() override {}
    void RestoreLastSolved() override {}
    void DiscardSolved(int) override {}
    std::string DescribeEquation(int row) const override;
    int SolveInitialDerivatives(const SolverSettings& s, double h) override;

    /// Index in y of abstract node i's coordinate (its momentum follows).
    static int coordinate_dof(int i) { return 2 * i; }

  private:
    using ElementData = AbstractElement;
    /// Evaluates element k at the current y, y' into block_[k].
    void Evaluate(int k) const;
    /// r and J from block_ as Evaluate left it.
    void FillResidual(double c, Eigen::VectorXd& r) const;
    void FillJacobian(double c, Eigen::SparseMatrix<double>& J);
    /// The triplets of the iteration matrix (values of coefficient c; zeros kept).
    void Triplets(double c, bool zero, std::vector<Eigen::Triplet<double>>& out) const;

    const Model& model_;
    std::string name_;
    int n_{0};
    int num_nodes_{0};
    double t_{0.0};
    std::vector<DofKind> kinds_;
    std::vector<ElementData> elements_;
    mutable std::vector<LagrangianBlock> block_;
    mutable std::vector<double> q_, v_;  // scratch: an element's coordinates and rates
    mutable std::vector<AbstractState> abs_;
    std::vector<FrameState> no_nodes_;
    Eigen::SparseMatrix<double> pattern_;
    mutable std::vector<Eigen::Triplet<double>> triplets_;
};

}  // namespace mbstep::cgr
