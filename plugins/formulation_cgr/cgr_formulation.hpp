// mbstep — formulation `cgr`: the first-order implicit DAE r(y, y', t) = 0 of MBDyn, with
// node rotations in Cayley–Gibbs–Rodrigues parameters relative to the last solved point.
//
// Unknowns per dynamic node (12): x, g (pose), beta, gamma (momentum and moment of momentum
// about the node, global); per static node (6): x, g; per element: its multipliers lambda.
// With S = R s and J = R J_n R^T (node-frame data summed over the attached bodies),
// w = G(g) g' + R(g) w_ref, R = R(g) R_ref, and f the element forces (reactions included):
//
//   (1) r_F     = f_F - beta'                      force balance
//   (2) r_M     = f_M - gamma' - x' x beta         moment balance about the moving node
//   (3) r_beta  = beta - m x' - w x S              momentum definition
//   (4) r_gamma = gamma - S x x' - J w             moment-of-momentum definition
//   (5) r_phi   = -phi / c                         holonomic constraints, scaled by 1/(b0 h)
//                                                  [Bottasso, Bauchau, Cardona 2007; MBDyn]
//       r_phi   = -phi                             velocity-level constraints (row by row:
//                                                  Element::row_level)
//   static nodes: (1), (2) without inertia terms.
//
// Static model (Model::static_model(), MBDyn's `model: static;`, docs/DESIGN.md "Static
// solution"): every node is static (6 unknowns x, g; bodies contribute only their weight), the
// elements are evaluated with v = w = 0, and time is only the load parameter:
//   (6) r_F = f_F(x, R, 0, 0, lambda, t),  r_M = f_M(...),  r_phi = -phi(x, R, t) / c
// r depends on y and t only, so the converged point solves f(q, t_n) = 0 with the
// position-level constraints whatever the integrator (which only predicts); J = c dr/dy (C
// blocks and phi_v are not mapped), and velocity-level constraint rows are refused. y' keeps
// the rate of the load path, dy/dt (the predictor extrapolates with it); the node states (and
// the .mov) carry zero velocities.
//
// Newton works on y' (differential dofs: dy = c dy', c = b0 h) and on lambda; the iteration
// matrix J = dr/dy' + c dr/dy is exact: element blocks K, C (twist space) are mapped with
// dtheta = G(g) dg, dw = G(g) dg' + Omega dg, Omega = d(G(g) g')/dg - skew(R(g) w_ref) G(g).
//
// Rotation prediction and correction [Zhang, Masarati et al., section 3.1]:
//   before predicting point N: g_{N-1} = 0, g'_{N-1} = w_{N-1}; for older points
//   g_{N-j} = g(R_{N-j} R_{N-1}^T), g'_{N-j} = G(g_{N-j})^-1 w_{N-j};
//   `cgr` (default): the correction stays relative to R_{N-1} (R = R(g) R_{N-1}, w = G(g) g'),
//     so the integration formula holds exactly in g and the solution is independent of the
//     predictor;
//   `mbdyn cgr` (MBDyn, paper eq. after (14)): after prediction R_ref = R(g_p) R_{N-1},
//     w_ref = G(g_p) g'_p, and g, g' restart at 0 — the correction is composed with the
//     prediction, so the converged point depends on the predictor (docs/DESIGN.md).
//
// Initial derivatives: y' and lambda at t0 solved at acceleration level
// (cgr_initial_derivatives.cpp); none for a static model (y' = 0, lambda = 0 at t0).
//
// With Momenta::kEliminated[Unscaled] the same class is `cgr velocity` [unscaled]: the state
// y, y' is the same, but Newton's unknowns are only x', g' and lambda; the momenta are set from
// them in the node pass and the iteration matrix is the Schur complement of the one above,
// assembled directly (cgr_velocity_formulation.hpp).
#pragma once

#include <tbb/enumerable_thread_specific.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "mbstep/formulation/formulation.hpp"

namespace mbstep::cgr {

class CgrFormulation final : public Formulation, public FirstOrderProblem {
  public:
    /// How the momenta beta, gamma enter Newton: as unknowns (`cgr`), or eliminated with the
    /// force and moment rows of dynamic nodes multiplied by c (`cgr velocity`) or not
    /// (`cgr velocity unscaled`).
    enum class Momenta { kUnknowns, kEliminated, kEliminatedUnscaled };

    /// The chart of the rotation increments g: MBDyn's CGR parameters, or the rotation vector
    /// (`cgr rotation vector`, exact for rotations at constant rate about a fixed axis).
    enum class Chart { kCgr, kRotationVector };

    /// rereference_at_prediction: MBDyn's variant (`mbdyn cgr`), see AfterPredict.
    explicit CgrFormulation(const Model& model, bool rereference_at_prediction = false,
                            Momenta momenta = Momenta::kUnknowns, Chart chart = Chart::kCgr);

    // Formulation
    std::string name() const override;
    ProblemInterface interface() const override { return ProblemInterface::kFirstOrderDae; }
    FirstOrderProblem* first_order() override { return this; }
    const Model& model() const override { return model_; }
    const std::vector<FrameState>& node_states() const override;
    const double* multipliers(int element) const override;
    double time() const override { return t_; }
    Invariants ComputeInvariants() const override;
    void set_threads(int n) override { threads_ = n < 1 ? 1 : n; }

    // FirstOrderProblem
    int num_dofs() const override { return n_; }
    const std::vector<DofKind>& dof_kinds() const override { return kinds_; }
    void SetTime(double t) override { t_ = t; }
    void BeforePredict(std::vector<Eigen::VectorXd>& y_history,
                       std::vector<Eigen::VectorXd>& yp_history, int chart = 0) override;
    void AfterPredict() override;
    void Residual(double c, Eigen::VectorXd& r) override;
    void Jacobian(double c, Eigen::SparseMatrix<double>& J) override;
    void ResidualAndJacobian(double c, Eigen::VectorXd& r, Eigen::SparseMatrix<double>& J) override;
    const Eigen::SparseMatrix<double>& pattern() const override { return pattern_; }
    std::shared_ptr<Eigen::SparseMatrix<double>> shared_pattern() override {
        return pattern_storage_;
    }
    int unknown_dof(int k) const override { return eliminate_ ? unknowns_[k] : k; }
    void Update(const Eigen::VectorXd& delta, double c) override;
    void AfterConvergence() override;
    void RestoreLastSolved() override;
    void DiscardSolved(int count) override {
        past_.drop_front(std::min<int>(count, int(past_.size()) - 1));
        RestoreLastSolved();
    }
    std::string DescribeEquation(int row) const override;
    void ResidualNoise(double c, Eigen::VectorXd& noise) const override;
    int SolveInitialDerivatives(const SolverSettings& s, double h) override;

    /// Offset of node i's dofs (tests).
    int node_offset(int i) const { return nodes_[i].offset; }

    // For MixedFormulation (mixed_formulation.hpp), which holds this formulation for the
    // structural part of a model with abstract nodes too.
    /// Newton index of node i's x' (its force rows follow the same numbering).
    int node_row(int i) const { return nodes_[i].row; }
    /// Factor of node i's force rows (RowFactor): c for dynamic nodes of `cgr velocity`.
    double node_row_factor(int i, double c) const { return RowFactor(nodes_[i], c); }
    /// Whether node i has momenta (a dynamic node: its accelerations are unknowns of the
    /// initial-derivative solve).
    bool node_dynamic(int i) const { return nodes_[i].dynamic; }
    /// y or y' were written from outside (the node states are recomputed when next needed).
    void StateChanged() { states_dirty_ = true; }
    /// Node states at the current y, y' (node_states() after StateChanged()).
    const std::vector<FrameState>& CurrentStates() {
        ComputeStates();
        return states_;
    }
    /// Unknowns and equations that a model with abstract nodes adds to the initial-derivative
    /// solve (cgr_initial_derivatives.cpp), numbered from `base` on: node i's accelerations
    /// (a, alpha) are unknowns 6 i ... 6 i + 5 and its force and moment rows the same rows.
    struct InitialCoupling {
        int unknowns{0};
        std::function<void(int base, const std::vector<FrameState>& states,
                           std::vector<Eigen::Triplet<double>>& triplets, Eigen::VectorXd& rhs)>
            assemble;
        /// The solved values of the added unknowns.
        std::function<void(const Eigen::VectorXd& solution)> accept;
    };
    int SolveInitialDerivatives(const SolverSettings& s, double h, const InitialCoupling* coupling);

  private:
    // One node's data, 640 bytes on ten cache lines (alignas: the node passes stream it, and
    // at 10000 nodes it leaves the cache between passes: docs/DESIGN.md, "Solver services").
    struct alignas(64) NodeData {
        int offset{0};  // of x in y, y'
        int row{0};     // Newton index of x' (= offset unless the momenta are eliminated)
        bool dynamic{false};
        // The weight of the node's inertia (m g, S x g and its Jacobian) is applied in the node
        // pass: every element attaching inertia to it contributes only that weight (bodies,
        // Element::ContributesOnlyWeight) and is not evaluated in the element passes.
        bool weighted{false};
        bool inertia_diagonal{false};  // J_n diagonal (node axes are principal axes)
        bool maps_valid{false};        // false after R_ref or w_ref changed
        bool omega_valid{false};       // Omega computed for the maps below
        // Momenta eliminated: false after the maps were recomputed (g or g' changed) or the
        // prediction wrote the momenta; with elim_at and elim_c, whether the last elimination
        // still holds.
        bool elim_valid{false};
        // (The flags, R_ref and w_ref share the first two lines: BeforePredict writes only them.)
        Mat3 R_ref{Mat3::Identity()};
        Vec3 w_ref{Vec3::Zero()};
        NodeInertia inertia;  // node frame
        // Per evaluation (after UpdateNodeState): maps of the rotation parameters and the
        // global inertia S = R s, J = R J_n R^T (dynamic nodes), computed at the rotation
        // parameters g, g' whose bits are kept in `at` (recomputed only when they change).
        Mat3 G{Mat3::Identity()};
        Mat3 Omega{Mat3::Zero()};  // d(w)/dg at fixed g' (Jacobian passes only)
        Vec3 S{Vec3::Zero()};
        Mat3 J{Mat3::Zero()};
        std::array<double, 6> at{};
        // Momenta eliminated: the bits of x', (beta, gamma), (beta', gamma') and c after the
        // last elimination (repeated only when one of them or g, g' changed).
        std::array<double, 15> elim_at{};
        double elim_c{0.0};
    };
    static_assert(sizeof(NodeData) == 640, "NodeData: ten cache lines");
    struct ElementData {
        int mult_offset{-1};
        int mult_row{-1};  // Newton index of the first multiplier
        int m{0};
        unsigned velocity_rows{0};  // bit j: row j is a velocity-level constraint (scale 1)
        std::uint32_t pairs{~0u};   // node-pair blocks of K, C it may write (ElementBlock::Pair)
        std::uint32_t k_pairs{~0u}, c_pairs{~0u};  // ... of K and of C (zeroed by Reset)
        std::uint8_t k_quadrants{ElementBlock::kAllQuadrants};  // ElementBlock::k_quadrants
        std::uint8_t c_quadrants{ElementBlock::kAllQuadrants};
        int slot_begin{0};  // into slots_ (see BuildPattern())
        // The element's nodes and, per node, its Newton row and whether its rows are scaled
        // by c (RowFactor): kept here so that the element passes need not reach the Element
        // object or the nodes' NodeData for them.
        int k{0};
        std::array<int, ElementBlock::kMaxNodes> node{}, node_row{};
        std::array<bool, ElementBlock::kMaxNodes> scaled{};
    };
    /// RowFactor of element node a.
    static double ElementRowFactor(const ElementData& ed, int a, double c) {
        return ed.scaled[a] ? c : 1.0;
    }
    struct PastPoint {
        Mat3 R;
        Vec3 w;
    };
    /// The last solved points of every node, most recent first (at(0, i)), in one ring that
    /// all nodes share (they are pushed and dropped together), slot by slot: pushing a point for
    /// every node writes one array, the predictor reads one array per point. The ring holds one
    /// point more than the predictor has ever asked for (need), so it is as deep as the method's
    /// history (3 points for ms2, 8 KB per 10 nodes less than a fixed depth of 8); it grows, by
    /// one copy, only when a method asks for more, which the integration templates do one point
    /// at a time (StepN's start-up, StageN's stages).
    class PastPoints {
      public:
        void resize(size_t nodes) {
            nodes_ = nodes;
            capacity_ = 2;
            p_.assign(capacity_ * nodes, PastPoint{Mat3::Identity(), Vec3::Zero()});
        }
        const PastPoint& at(size_t j, size_t node) const {
            return p_[((head_ + j) % capacity_) * nodes_ + node];
        }
        size_t size() const { return static_cast<size_t>(size_); }
        /// The predictor reads the last `count` points now: keep count + 1 from here on. A point
        /// asked for that the ring has already dropped is an internal error, never a silent
        /// use of fewer points.
        void need(size_t count) {
            needed_ = std::max(needed_, static_cast<int>(count));
            if (dropped_ && static_cast<int>(count) > size_)
                throw RunError("internal error: the rotation history holds " +
                               std::to_string(size_) + " points, the predictor asks for " +
                               std::to_string(count));
        }
        /// A new most recent point for every node: front(i) = ... for each node after this.
        void advance() {
            if (size_ == capacity_ && capacity_ < needed_ + 1) grow(needed_ + 1);
            if (size_ == capacity_) dropped_ = true;
            head_ = (head_ + capacity_ - 1) % capacity_;
            size_ = std::min(size_ + 1, capacity_);
        }
        PastPoint& front(size_t node) { return p_[head_ * nodes_ + node]; }
        void drop_front(int count) {
            head_ = (head_ + count) % capacity_;
            size_ -= count;
        }

      private:
        void grow(int capacity) {
            std::vector<PastPoint> p(capacity * nodes_);
            for (int j = 0; j < size_; ++j)
                for (size_t i = 0; i < nodes_; ++i) p[j * nodes_ + i] = at(j, i);
            p_.swap(p);
            capacity_ = capacity;
            head_ = 0;
        }
        std::vector<PastPoint> p_;
        size_t nodes_{0};
        int capacity_{2}, head_{0}, size_{0}, needed_{1};
        bool dropped_{false};
    };

    /// The one-thread schedule of the node and element passes by tiles of nodes (Assemble).
    void BuildTiles();
    void ReadElementStructure();
    /// Scale of constraint row j in r_phi, eq. (5): 1/c at position level, 1 at velocity level
    /// (the element's row levels, read once at set-up).
    static double RowScale(const ElementData& ed, int j, double c) {
        return ed.velocity_rows >> j & 1u ? 1.0 : 1.0 / c;
    }
    void BuildPattern();
    /// Whether element pair block (a, b) (element-local node indices) is in the pattern: a
    /// node's own block always is; blocks between two nodes only if the element declares them.
    static bool HasPairBlock(const ElementData& ed, int a, int b) {
        return a == b || (ed.pairs & ElementBlock::Pair(a, b)) != 0;
    }
    /// Node states and rotation maps of every node at the current y, y' (unless known clean).
    void ComputeStates() const;
    /// Node i's state and maps; the maps only when g, g' or the reference changed, Omega (the
    /// Jacobian's) only when `omega`.
    void UpdateNodeState(size_t i, bool omega = false) const;
    /// Momenta eliminated: beta = m x' + w x S, gamma = S x x' + J w from node i's state,
    /// beta', gamma' from the integration formula with y - c y' kept (after UpdateNodeState).
    void EliminateMomenta(size_t i, double c);
    /// Factor of node i's force and moment rows: c for dynamic nodes of `cgr velocity`.
    double RowFactor(const NodeData& nd, double c) const {
        return scale_rows_ && nd.dynamic ? c : 1.0;
    }
    void InvalidateNodeCaches(NodeData& nd) const {
        nd.maps_valid = false;
        nd.elim_valid = false;
    }
    /// The gravity field at t_ (zero without a gravity element): evaluated once per pass.
    Vec3 Gravity() const;
    void EvaluateElement(int e, ElementBlock& block, bool jacobian, const Vec3& gravity) const;
    // The passes of Residual() and Jacobian() for one node (after UpdateNodeState) and one
    // evaluated element; ResidualAndJacobian() runs both in one pass.
    /// Residual (r), Jacobian (J) or both in one node pass and one element pass.
    void Assemble(double c, Eigen::VectorXd* r, Eigen::SparseMatrix<double>* J);
    void NodeResidual(size_t i, double c, const Vec3& gravity, Eigen::VectorXd& r);
    void ElementResidual(int e, const ElementBlock& b, double c, Eigen::VectorXd& r) const;
    void NodeJacobian(size_t i, double c, const Vec3& gravity, double* values, const int* outer);
    /// A weighted node's weight: r rows (1), (2) and, off its centre of mass, its block in J.
    void AddNodeWeight(const NodeData& nd, double c, const Vec3& gravity, double* r) const;
    void AddNodeWeightJacobian(size_t i, double c, const Vec3& gravity, double* values) const;
    void ElementJacobian(int e, const ElementBlock& b, double c, double* values) const;
    static void QuadrantJacobian(const ElementBlock& b, int a, int bb, unsigned kq, unsigned cq,
                                 const NodeData& nb, double c, double rs, const int* slots,
                                 double* values);
    /// Runs f in the formulation's arena (threads_ > 1) or directly. ForEachNode and
    /// ForEachElementColored are parallel inside it; every pass writes disjoint data, so the
    /// results do not depend on the number of threads.
    template <class F>
    void Parallel(F&& f) const;
    template <class F>
    void ForEachNode(F&& f) const;
    template <class F>
    void ForEachElementColored(F&& f) const;
    /// Requests the first cache lines of element e's object (ForEachElementColored).
    void PrefetchElement(int e) const;
    /// Requests element e's multiplier columns of J for writing (their entries are stored,
    /// not added: no pass before the element's reads them).
    void PrefetchMultiplierColumns(int e, const double* values) const;

    const Model& model_;
    bool rereference_at_prediction_{false};
    bool rotation_vector_{false};
    bool eliminate_{false};   // momenta eliminated (`cgr velocity`)
    bool scale_rows_{false};  // ... with force/moment rows of dynamic nodes times c
    bool static_{false};      // Model::static_model(): eq. (6)
    int n_{0};
    int node_dofs_{0};           // differential dofs (nodes) come first, multipliers after
    int nu_{0};                  // Newton unknowns
    int node_rows_{0};           // Newton rows of the nodes (first), multipliers after
    std::vector<int> unknowns_;  // momenta eliminated: Newton index -> state index
    double last_c_{0.0};         // c of the last Residual/Update (elimination at convergence)
    double t_{0.0};
    int threads_{1};
    std::vector<DofKind> kinds_;
    mutable std::vector<NodeData> nodes_;
    std::vector<ElementData> elements_;
    std::vector<int> active_elements_;
    std::vector<std::vector<int>> colors_;
    // One thread: nodes by tiles of kTileNodes, each tile followed by the elements whose nodes
    // and lower-colour neighbours are done (BuildTiles): the same terms in the same order per
    // entry as the colour sweeps.
    static constexpr int kTileNodes = 256;
    struct Tile {
        int node_end;
        int element_begin, element_end;  // into tiled_elements_
    };
    std::vector<Tile> tiles_;
    std::vector<int> tiled_elements_;
    mutable std::vector<FrameState> states_;
    mutable std::vector<const FrameState*> state_ptrs_;  // per element, flattened
    std::vector<int> state_ptr_offset_;
    mutable bool states_dirty_{true};
    // The pattern, shared with the Newton solver that assembles into it (shared_pattern).
    std::shared_ptr<Eigen::SparseMatrix<double>> pattern_storage_{
        std::make_shared<Eigen::SparseMatrix<double>>()};
    Eigen::SparseMatrix<double>& pattern_{*pattern_storage_};
    std::vector<int> node_slots_;  // node's own dense 6x6 (x', g'): 6 column starts each
    // Every element's slots (BuildPattern), one array in the order the element passes visit
    // the elements (colour by colour): read as one stream.
    std::vector<int> slots_;
    // Each entry of the multiplier columns and of the multiplier rows of J is written by
    // exactly one element slot (an element's multipliers are its own): those entries are
    // stored, not added, and the multiplier columns are not zeroed first (BuildPattern).
    bool exclusive_multipliers_{false};
    struct NodeEntry {
        int slot;  // value index
        int rc;    // row * 12 + column in the node's 12x12 block
    };
    std::vector<NodeEntry> node_entries_;  // `cgr` dynamic nodes: the rest of their block
    std::vector<int> node_entry_begin_;    // per node, into node_entries_ (size nodes + 1)
    PastPoints past_;                      // most recent first
    mutable tbb::enumerable_thread_specific<ElementBlock> scratch_;
    mutable std::optional<tbb::task_arena> arena_;  // threads_ > 1
};

}  // namespace mbstep::cgr
