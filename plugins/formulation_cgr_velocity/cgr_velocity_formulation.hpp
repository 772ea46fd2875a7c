// mbstep — formulation `cgr velocity`: MBDyn's momentum-form DAE of `cgr` with the momenta
// eliminated from Newton, 6 unknowns per node (x', g') plus the multipliers (tracker issue 7).
//
// The state y, y' is cgr's, dof for dof (x, g, beta, gamma per dynamic node; x, g per static
// node; the multipliers), so every integrator keeps, predicts and re-references the same
// history as under `cgr`. Newton solves only for x', g' and lambda (unknown_dof() maps Newton
// numbering to state numbering). The momenta are functions of the unknowns,
//
//   beta  = m x' + w x S,   gamma = S x x' + J w        (cgr's rows (3), (4) hold exactly),
//
// and their derivatives follow from the same integration formula as every differential dof:
// Newton keeps y - c y' of the prediction (the method's history term, c = b0 h), so
//
//   beta' = (beta - (beta_p - c beta'_p)) / c,   gamma' likewise.
//
// The residual is cgr's force and moment balance (1), (2) with these momenta and cgr's
// constraint rows (5). The equations and the history are those of `cgr`; only the unknowns
// beta', gamma' are eliminated, so the converged points agree with `cgr` to the Newton
// tolerance for every first-order method (tested).
//
// Row scaling (what Newton's residual test measures). `cgr velocity` multiplies the force and
// moment rows of dynamic nodes by c: c f - (beta - history) is an impulse balance over the
// step, in the units of cgr's momentum rows (3), (4), which set cgr's effective accuracy; its
// round-off is ~eps |beta|. `cgr velocity unscaled` keeps cgr's force rows: the test is then
// ~1/c stricter on the momenta than cgr's, and the rows carry round-off eps |beta| / c (beta' is
// a difference of O(|beta|) values divided by c), which a tight tolerance may not clear.
//
// Implementation: a `cgr` formulation evaluates everything (rotation charts, elements,
// initial derivatives, invariants) on the same state. The iteration matrix is the exact one of
// the eliminated system, the Schur complement of cgr's: with u = (x', g'), m = (beta', gamma'),
// dr_m/dm = c I (rows (3), (4)), so J = J_uu - J_um J_mu / c, a correction of each dynamic
// node's own 6x6 block.
#pragma once

#include <vector>

#include "../formulation_cgr/cgr_formulation.hpp"

namespace mbstep::cgr {

class CgrVelocityFormulation final : public Formulation, public FirstOrderProblem {
  public:
    /// scale_rows: force and moment rows of dynamic nodes multiplied by c (`cgr velocity`);
    /// false: cgr's rows unscaled (`cgr velocity unscaled`). See the header comment.
    explicit CgrVelocityFormulation(const Model& model, bool scale_rows = true);

    // Formulation
    std::string name() const override {
        return scale_rows_ ? "cgr velocity" : "cgr velocity unscaled";
    }
    ProblemInterface interface() const override { return ProblemInterface::kFirstOrderDae; }
    FirstOrderProblem* first_order() override { return this; }
    const Model& model() const override { return cgr_.model(); }
    const std::vector<FrameState>& node_states() const override;
    const double* multipliers(int element) const override;
    double time() const override { return cgr_.time(); }
    Invariants ComputeInvariants() const override;
    void set_threads(int n) override { cgr_.set_threads(n); }

    // FirstOrderProblem
    int num_dofs() const override { return cgr_.num_dofs(); }
    const std::vector<DofKind>& dof_kinds() const override { return cgr_.dof_kinds(); }
    void SetTime(double t) override { cgr_.SetTime(t); }
    void BeforePredict(std::vector<Eigen::VectorXd>& y_history,
                       std::vector<Eigen::VectorXd>& yp_history, int chart = 0) override {
        eliminated_c_ = 0.0;
        cgr_.BeforePredict(y_history, yp_history, chart);
    }
    void AfterPredict() override {
        eliminated_c_ = 0.0;
        cgr_.AfterPredict();
    }
    void Residual(double c, Eigen::VectorXd& r) override;
    void Jacobian(double c, Eigen::SparseMatrix<double>& J) override;
    const Eigen::SparseMatrix<double>& pattern() const override { return pattern_; }
    int unknown_dof(int k) const override { return unknowns_[k]; }
    void Update(const Eigen::VectorXd& delta, double c) override;
    void AfterConvergence() override;
    void RestoreLastSolved() override {
        eliminated_c_ = 0.0;
        cgr_.RestoreLastSolved();
    }
    void DiscardSolved(int count) override {
        eliminated_c_ = 0.0;
        cgr_.DiscardSolved(count);
    }
    std::string DescribeEquation(int row) const override {
        return cgr_.DescribeEquation(unknowns_[row]);
    }
    int SolveInitialDerivatives(const SolverSettings& s, double h) override;

  private:
    struct DynamicNode {
        int node{0};
        int offset{0};          // state offset (cgr's)
        int reduced_offset{0};  // Newton offset
        NodeInertia inertia;    // node frame
        int full_slots[12]{};   // cgr pattern: value index of row `offset` in column offset + j
        int reduced_slots[6]{};
    };

    /// Copies y, y' into the cgr evaluator unless it holds them already (its node states are
    /// then recomputed on next use); true if it copied.
    bool Sync() const;
    /// Sets the momenta from the unknowns and their derivatives from the integration formula
    /// (y - c y' unchanged), here and in the evaluator. Skipped when nothing changed since the
    /// last elimination with the same c (Jacobian after Residual at the same point).
    void EliminateMomenta(double c);

    mutable CgrFormulation cgr_;
    bool scale_rows_{true};
    std::vector<int> unknowns_;  // Newton index -> state index
    std::vector<DynamicNode> dynamic_;
    Eigen::SparseMatrix<double> pattern_;
    Eigen::SparseMatrix<double> full_;  // cgr's iteration matrix
    struct Run {
        int dst, src, len;  // reduced values [dst, dst + len) = full values [src, src + len)
    };
    std::vector<Run> runs_;
    std::vector<std::pair<int, int>> scaled_runs_;  // (first value, count) in dynamic rows
    Eigen::VectorXd full_r_, zero_;
    double eliminated_c_{0.0};  // c of the last elimination; 0 after a chart or state reset
    double last_c_{0.0};        // c of the current solve
};

}  // namespace mbstep::cgr
