// mbstep — the `cgr` family on a model with structural and abstract nodes both: cgr's
// equations (1)-(5) of the structural nodes (cgr_formulation.hpp, held as a CgrFormulation of
// any variant: `cgr`, `mbdyn cgr`, `cgr rotation vector`, `cgr velocity` [unscaled]) and the
// momentum form (L1)-(L3) of the abstract nodes (lagrangian_formulation.hpp) in one sparse
// system, coupled through the elements on abstract nodes that also read structural node
// positions (the `lagrangian` genel with `positions`, elements/lagrangian/lagrangian.hpp).
//
// State y, y': cgr's (its nodes, the multipliers of the structural elements), then per
// abstract node i its coordinate q_i and momentum p_i, then the multipliers lambda of the
// elements on abstract nodes. Newton numbering: cgr's unknowns, then the abstract part.
//
// An element on abstract nodes with structural nodes x writes the Lagrangian contract at (q, v,
// x) (T(q, v), V(q, x), g(q, x), the mixed blocks V_qx, G_x, g_qx) and, through Element::Evaluate
// with ElementContext::abstract_q = q, the twist-space blocks of its force on the nodes:
// f = (-V_x - G_x^T lambda, 0) per node, K (force x translation quadrants), L = -G_x^T. With
// H_qx = V_qx + sum_k lambda_k g_k,qx and rf the factor of a node's force rows (c for the dynamic
// nodes of `cgr velocity`, else 1), the rows and the iteration matrix J = dr/dy' + c dr/dy:
//   structural rows (1), (2):  r += rf f;  J(F, x') += -c rf K,  J(F, lambda) += rf L,
//                              J(F, q') += -c rf H_qx^T
//   (L2) of q_i:               r as in lagrangian_formulation.hpp with V_q(q, x);
//                              J(L2, x') += -c H_qx
//   (L3):                      r = -g(q, x) / c;  J(L3, q') = -G,  J(L3, x') = -G_x.
// The force acts at the node's reference point and depends on positions only (no moment, no
// rotation or velocity columns): the blocks map to x' directly, whatever cgr's rotation chart.
//
// Initial derivatives: cgr's acceleration-level solve (cgr_initial_derivatives.cpp) with the
// abstract accelerations a and the elements' multipliers as further unknowns
// (CgrFormulation::InitialCoupling): the node rows get -V_x and the columns G_x^T of the
// multipliers, and
//   [ T_vv  G^T ] [ a      ]   [ T_q - V_q - T_vq v                                    ]
//   [ G     G_x ] [ a_x    ] = [ -(v^T g_qq v + 2 v^T g_qx x' + x'^T g_xx x')  (each k) ]
// beside cgr's rows (a_x: the node accelerations, x' their velocities); p' from (L2).
//
// cgr's own state lives in the CgrFormulation; this class keeps the whole y, y' (the
// integrators' view) and copies cgr's part to it after every call that may change it, and back
// before every call when the integrator wrote it (compared bit by bit).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "cgr_formulation.hpp"
#include "mbstep/formulation/abstract_formulation.hpp"

namespace mbstep::cgr {

class MixedFormulation final : public Formulation, public FirstOrderProblem {
  public:
    /// structural: the cgr variant the deck named, built on the same model (it leaves the
    /// elements on abstract nodes to this class). Throws RunError for a model it cannot run
    /// (`model: static;`, an abstract node no element reads, an element on abstract nodes that
    /// writes rotation blocks or exceeds the block size).
    MixedFormulation(const Model& model, std::unique_ptr<CgrFormulation> structural);

    // Formulation
    std::string name() const override { return cgr_->name(); }
    ProblemInterface interface() const override { return ProblemInterface::kFirstOrderDae; }
    FirstOrderProblem* first_order() override { return this; }
    const Model& model() const override { return model_; }
    const std::vector<FrameState>& node_states() const override { return cgr_->node_states(); }
    const std::vector<AbstractState>& abstract_states() const override;
    const double* multipliers(int element) const override;
    double time() const override { return t_; }
    /// cgr's, plus T and V of the elements on abstract nodes and their |g|.
    Invariants ComputeInvariants() const override;
    void set_threads(int n) override { cgr_->set_threads(n); }
    std::string FailureContext() const override { return cgr_->FailureContext(); }

    // FirstOrderProblem
    int num_dofs() const override { return n_; }
    const std::vector<DofKind>& dof_kinds() const override { return kinds_; }
    void SetTime(double t) override;
    void BeforePredict(std::vector<Eigen::VectorXd>& y_history,
                       std::vector<Eigen::VectorXd>& yp_history, int chart = 0) override;
    void AfterPredict() override;
    void Residual(double c, Eigen::VectorXd& r) override;
    void Jacobian(double c, Eigen::SparseMatrix<double>& J) override;
    void ResidualAndJacobian(double c, Eigen::VectorXd& r, Eigen::SparseMatrix<double>& J) override;
    const Eigen::SparseMatrix<double>& pattern() const override { return pattern_; }
    int unknown_dof(int k) const override {
        return k < nuc_ ? cgr_->unknown_dof(k) : nc_ + (k - nuc_);
    }
    void Update(const Eigen::VectorXd& delta, double c) override;
    void AfterConvergence() override;
    void RestoreLastSolved() override;
    void DiscardSolved(int count) override;
    std::string DescribeEquation(int row) const override;
    void ResidualNoise(double c, Eigen::VectorXd& noise) const override;
    int SolveInitialDerivatives(const SolverSettings& s, double h) override;

    /// Index in y of abstract node i's coordinate (its momentum follows).
    int coordinate_dof(int i) const { return nc_ + 2 * i; }

  private:
    struct ElementData : AbstractElement {
        std::vector<int> structural;  ///< the element's structural nodes (Element::nodes())
    };
    /// cgr's part of y, y' to cgr (when the integrator changed it) and back.
    void SyncDown();
    void SyncUp();
    /// Element k's Lagrangian contract into block_[k] (at the current q, v and node positions)
    /// and, with structural nodes, its twist-space block into sblock_[k].
    void Evaluate(int k, bool jacobian) const;
    void EvaluateAll(bool jacobian);
    void FillResidual(double c, Eigen::VectorXd& r) const;
    /// The abstract part's and the coupling's triplets (zero: the pattern).
    void Triplets(double c, bool zero, std::vector<Eigen::Triplet<double>>& out) const;
    void Assemble(double c, Eigen::VectorXd* r, Eigen::SparseMatrix<double>* J);
    /// Newton index of abstract state index j (>= nc_).
    int row(int j) const { return nuc_ + (j - nc_); }

    const Model& model_;
    std::unique_ptr<CgrFormulation> cgr_;
    int nc_{0}, nuc_{0};  // cgr's dofs and Newton unknowns
    int n_{0}, nu_{0};
    int num_abstract_{0};
    double t_{0.0};
    std::vector<DofKind> kinds_;
    std::vector<ElementData> elements_;
    std::vector<int> lagrangian_of_;  // per model element: index into elements_, or -1
    mutable std::vector<LagrangianBlock> block_;
    mutable std::vector<ElementBlock> sblock_;
    mutable std::vector<double> q_, v_, x_;
    mutable std::vector<AbstractState> abs_;
    Eigen::SparseMatrix<double> pattern_;
    Eigen::SparseMatrix<double> Jc_;  // cgr's iteration matrix
    Eigen::VectorXd rc_;
    std::vector<Eigen::Triplet<double>> triplets_;
};

}  // namespace mbstep::cgr
