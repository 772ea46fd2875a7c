// mbstep — formulation `cgr` (equations in cgr_formulation.hpp): Residual() and Jacobian():
// the node pass (rows (1)-(4) and the inertia block), the element pass (evaluation and
// residual rows; the Jacobian blocks in cgr_element_map.cpp), and their schedule: tiles of
// nodes on one thread, colours on several (cgr_schedule.hpp), elements prefetched.
#include <algorithm>

#include "cgr_formulation.hpp"
#include "cgr_internal.hpp"
#include "cgr_schedule.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::cgr {

void CgrFormulation::BuildTiles() {
    // Tile t holds nodes [t kTile, (t + 1) kTile). Element e joins the first tile after which
    // all its nodes are done and every lower-colour element sharing a node with it has been
    // visited (last[i]: the latest tile of the elements visited so far at node i): within a
    // tile the colours keep their order, so every entry of r and J receives its terms in the
    // order of the colour sweeps.
    const int tile = kTileNodes;
    tiles_.clear();
    tiled_elements_.clear();
    const int nn = static_cast<int>(nodes_.size());
    if (nn == 0) return;
    const int ntiles = (nn + tile - 1) / tile;
    std::vector<std::vector<int>> members(ntiles);
    std::vector<int> last(nn, 0);
    for (const auto& color : colors_)
        for (int e : color) {
            const ElementData& ed = elements_[e];
            int t = 0;
            for (int a = 0; a < ed.k; ++a) t = std::max({t, ed.node[a] / tile, last[ed.node[a]]});
            for (int a = 0; a < ed.k; ++a) last[ed.node[a]] = t;
            members[t].push_back(e);
        }
    for (int t = 0; t < ntiles; ++t) {
        Tile tl;
        tl.node_end = std::min(nn, (t + 1) * tile);
        tl.element_begin = static_cast<int>(tiled_elements_.size());
        tiled_elements_.insert(tiled_elements_.end(), members[t].begin(), members[t].end());
        tl.element_end = static_cast<int>(tiled_elements_.size());
        tiles_.push_back(tl);
    }
}

Vec3 CgrFormulation::Gravity() const {
    return model_.gravity() ? model_.gravity()->At(t_) : Vec3::Zero();
}

void CgrFormulation::EvaluateElement(int e, ElementBlock& block, bool jacobian,
                                     const Vec3& gravity) const {
    const Element& el = *model_.elements()[e];
    ElementContext ctx{t_, state_ptrs_.data() + state_ptr_offset_[e], multipliers(e), gravity};
    const ElementData& ed = elements_[e];
    block.Reset(ed.k, ed.m, jacobian, ed.k_pairs, ed.c_pairs);
    el.Evaluate(ctx, block);
}

void CgrFormulation::PrefetchElement(int e) const {
    // The Element base takes ~150 bytes; a joint's two sides (node, offset, orientation) end
    // ~350 bytes into the object: the lines of the first 384 bytes, whatever the alignment.
    const char* p = reinterpret_cast<const char*>(model_.elements()[e].get());
    for (int line = 0; line < 6; ++line) __builtin_prefetch(p + 64 * line);
    __builtin_prefetch(p + 383);
}

void CgrFormulation::PrefetchMultiplierColumns(int e, const double* values) const {
    const ElementData& ed = elements_[e];
    if (ed.m == 0) return;
    const int* lslots = slots_.data() + ed.slot_begin + ed.k * ed.k * 6;
    for (int s = 0; s < ed.k * ed.m; ++s) {
        const double* v = values + lslots[s];
        __builtin_prefetch(v, 1);
        __builtin_prefetch(v + 5, 1);
    }
}

// Node i's rows of r: state and inertia terms (1)-(4) of a dynamic node (with the momenta
// eliminated: (1), (2) at the momenta of the unknowns, rows (3), (4) hold exactly); a static
// node's rows start at zero. After UpdateNodeState(i) (and EliminateMomenta(i)).
void CgrFormulation::NodeResidual(size_t i, double c, const Vec3& gravity, Eigen::VectorXd& r) {
    const NodeData& nd = nodes_[i];
    const int o = nd.offset, ro = nd.row;
    if (!nd.dynamic) {
        r.segment<kStaticDofs>(ro).setZero();
        return;
    }
    const FrameState& s = states_[i];
    if (eliminate_) {
        const double rs = RowFactor(nd, c);
        const Vec3 beta = y_.segment<3>(o + 6);
        r.segment<3>(ro) = -(rs * yp_.segment<3>(o + 6));                          // (1)
        r.segment<3>(ro + 3) = -(rs * (yp_.segment<3>(o + 9) + s.v.cross(beta)));  // (2)
        if (nd.weighted) AddNodeWeight(nd, rs, gravity, r.data() + ro);
        return;
    }
    const Vec3 beta = y_.segment<3>(o + 6), gamma = y_.segment<3>(o + 9);
    r.segment<3>(o) = -yp_.segment<3>(o + 6);                           // (1)
    r.segment<3>(o + 3) = -yp_.segment<3>(o + 9) - s.v.cross(beta);     // (2)
    r.segment<3>(o + 6) = beta - nd.inertia.m * s.v - s.w.cross(nd.S);  // (3)
    r.segment<3>(o + 9) = gamma - nd.S.cross(s.v) - nd.J * s.w;         // (4)
    if (nd.weighted) AddNodeWeight(nd, 1.0, gravity, r.data() + o);
}

// The weight F = m g, M = S x g (S = R s) added to rows (1), (2) times their factor rs: the
// operations of a body's ElementResidual (elements/body/body.cpp (4), (5)), so a node with one
// body that its elements reach first (the body's colour before its joints') gets the same bits.
void CgrFormulation::AddNodeWeight(const NodeData& nd, double rs, const Vec3& gravity,
                                   double* r) const {
    const Vec3 F = nd.inertia.m * gravity;
    const Vec3 M = nd.S.cross(gravity);
    for (int k = 0; k < 3; ++k) {
        r[k] += rs * F[k];
        r[3 + k] += rs * M[k];
    }
}

// A weighted node off its centre of mass (s != 0): the weight's K_M,theta = -skew(g) skew(S)
// (body.hpp (6)) mapped to the g' columns as ElementJacobian maps a body's block: -(c K G),
// Eigen's (c K) G, times the rows' factor.
void CgrFormulation::AddNodeWeightJacobian(size_t i, double c, const Vec3& gravity,
                                           double* values) const {
    const NodeData& nd = nodes_[i];
    if (nd.inertia.s.isZero(0.0)) return;  // K = 0
    const double rs = RowFactor(nd, c);
    const Mat3 K = -Skew(gravity) * Skew(nd.S);
    const Mat3 q = -((c * K) * nd.G);
    for (int j = 0; j < 3; ++j) {
        double* v = values + node_slots_[i * kStaticDofs + 3 + j] + 3;
        for (int k = 0; k < 3; ++k) v[k] += rs != 1.0 ? q(k, j) * rs : q(k, j);
    }
}

// Element e's forces and constraint rows (5) added to r from its evaluated block.
void CgrFormulation::ElementResidual(int e, const ElementBlock& b, double c,
                                     Eigen::VectorXd& r) const {
    const ElementData& ed = elements_[e];
    for (int a = 0; a < ed.k; ++a)
        r.segment<6>(ed.node_row[a]) += ElementRowFactor(ed, a, c) * b.f.segment<6>(6 * a);
    for (int j = 0; j < ed.m; ++j) r[ed.mult_row + j] = -RowScale(ed, j, c) * b.phi[j];  // (5)
}

// Node i's columns of J: zeroed (all rows), then the inertia block of a dynamic node, columns
// (x', g', beta', gamma') + c d/d(x, g, beta, gamma). After UpdateNodeState(i) (and
// EliminateMomenta(i)).
void CgrFormulation::NodeJacobian(size_t i, double c, const Vec3& gravity, double* values,
                                  const int* outer) {
    const NodeData& nd = nodes_[i];
    const int o = nd.offset, ro = nd.row;
    std::fill(values + outer[ro],
              values + outer[ro + (nd.dynamic && !eliminate_ ? kDynamicDofs : kStaticDofs)], 0.0);
    if (!nd.dynamic) return;
    const FrameState& s = states_[i];
    const Vec3 beta = y_.segment<3>(o + 6);
    const Mat3& J = nd.J;
    Mat3 JG;
    Mul3(J, nd.G, JG);
    // Rows (3), (4) in the columns (x', g') + c d/d(x, g): J_mu. The first-moment terms
    // (S = R s) vanish for a node at its centre of mass (s = 0, fixed at set-up).
    Eigen::Matrix<double, 3, 6> Jmu1, Jmu2;
    Jmu1.leftCols<3>() = -nd.inertia.m * Mat3::Identity();  // (3) x'
    const bool centred = nd.inertia.s.isZero(0.0);
    if (centred) {
        Jmu1.rightCols<3>().setZero();
        Jmu2.leftCols<3>().setZero();
        // -JG + c (skew(J w) G - J skew(w) G - J Omega) (4), with rotation.hpp's products
        Mat3 JwxG, JOmega;
        Mul3(J * Skew(s.w), nd.G, JwxG);
        Mul3(J, nd.Omega, JOmega);
        Jmu2.rightCols<3>() = -JG + c * (SkewMul3(Mul3(J, s.w), nd.G) - JwxG - JOmega);
    } else {
        const Mat3 Sx = Skew(nd.S);
        const Mat3 SxG = Sx * nd.G;
        Jmu1.rightCols<3>() = SxG + c * (Sx * nd.Omega + Skew(s.w) * SxG);  // (3) g', g
        Jmu2.leftCols<3>() = -Sx;                                           // (4) x'
        Jmu2.rightCols<3>() = -JG + c * (-Skew(s.v) * SxG + Skew(J * s.w) * nd.G -
                                         J * Skew(s.w) * nd.G - J * nd.Omega);  // (4)
    }
    if (!eliminate_) {
        const Mat3 I = Mat3::Identity();
        Eigen::Matrix<double, 12, 12> B = Eigen::Matrix<double, 12, 12>::Zero();
        B.block<3, 3>(0, 6) = -I;              // (1) beta'
        B.block<3, 3>(3, 9) = -I;              // (2) gamma'
        B.block<3, 3>(3, 0) = Skew(beta);      // (2) x'
        B.block<3, 3>(3, 6) = -c * Skew(s.v);  // (2) beta
        B.block<3, 3>(6, 6) = c * I;           // (3) beta
        B.block<3, 6>(6, 0) = Jmu1;
        B.block<3, 3>(9, 9) = c * I;  // (4) gamma
        B.block<3, 6>(9, 0) = Jmu2;
        AddColumnRuns(values, &node_slots_[i * kStaticDofs], 6, 6, B.topLeftCorner<6, 6>());
        // The rest at the pattern's entries only: what it leaves out is zero in B.
        const double* Bd = B.data();
        for (int k = node_entry_begin_[i]; k < node_entry_begin_[i + 1]; ++k) {
            const NodeEntry& ne = node_entries_[k];
            values[ne.slot] += Bd[(ne.rc % kDynamicDofs) * kDynamicDofs + ne.rc / kDynamicDofs];
        }
        if (nd.weighted) AddNodeWeightJacobian(i, c, gravity, values);
        return;
    }
    // Momenta eliminated: the Schur complement of rows (3), (4), whose block in the
    // momentum columns is c I: J_uu - J_um J_mu / c with J_um = [-I, 0; -c v~, -I]
    // (rows (1), (2)), J_uu = [0; beta~, 0]; rows times RowFactor.
    Mat6 Bu;
    if (scale_rows_ && centred) {
        // Jmu1 = [-m I, 0], Jmu2 = [0, *]: the product with v~ reduces to -m v~ (the same
        // values as the general line below).
        Bu.topRows<3>() = Jmu1;
        Bu.block<3, 3>(3, 0) = (c * Skew(s.v)) * -nd.inertia.m + c * Skew(beta);
        Bu.block<3, 3>(3, 3) = Jmu2.rightCols<3>();
    } else if (scale_rows_) {
        Bu.topRows<3>() = Jmu1;
        Bu.bottomRows<3>() = c * (Skew(s.v) * Jmu1) + Jmu2;
        Bu.block<3, 3>(3, 0) += c * Skew(beta);
    } else {
        Bu.topRows<3>() = Jmu1 / c;
        Bu.bottomRows<3>() = Skew(s.v) * Jmu1 + Jmu2 / c;
        Bu.block<3, 3>(3, 0) += Skew(beta);
    }
    AddColumnRuns(values, &node_slots_[i * kStaticDofs], 6, 6, Bu);
    if (nd.weighted) AddNodeWeightJacobian(i, c, gravity, values);
}

void CgrFormulation::Assemble(double c, Eigen::VectorXd* r, Eigen::SparseMatrix<double>* Jm) {
    // y, y' may have been written directly (prediction, tests): every node's state is brought
    // up to date in the node pass (its rotation maps only where g, g' changed).
    // r: every multiplier row is written by its element. J: values are written column by
    // column: each node pass zeroes its node's columns (all rows) and writes its inertia block;
    // the multiplier columns are zeroed here. Then the element colours add in a fixed order, so
    // every value is the same sum for any number of threads. With both (Newton's first
    // iteration), each element is evaluated once: the same operations in the same order as the
    // two separate calls, so the same bits.
    if (r) {
        r->resize(nu_);
        r->tail(nu_ - node_rows_).setZero();
        last_c_ = c;
    }
    double* values = Jm ? Jm->valuePtr() : nullptr;
    const int* outer = Jm ? Jm->outerIndexPtr() : nullptr;
    if (Jm && !exclusive_multipliers_)
        std::fill(values + outer[node_rows_], values + Jm->nonZeros(), 0.0);
    const Vec3 gravity = Gravity();
    auto node = [&](size_t i) {
        UpdateNodeState(i, Jm != nullptr);
        if (eliminate_ && nodes_[i].dynamic) EliminateMomenta(i, c);
        if (r) NodeResidual(i, c, gravity, *r);
        if (Jm) NodeJacobian(i, c, gravity, values, outer);
    };
    auto element = [&](int e, ElementBlock& b) {
        EvaluateElement(e, b, Jm != nullptr, gravity);
        if (r) ElementResidual(e, b, c, *r);
        if (Jm) ElementJacobian(e, b, c, values);
    };
    if (threads_ <= 1 && !tiles_.empty()) {
        // One thread: tile by tile, the tile's nodes then the elements that can follow them,
        // while the nodes' data and their columns of J are in cache (BuildTiles).
        constexpr size_t kAhead = 8;
        ElementBlock& block = scratch_.local();
        const size_t ne = tiled_elements_.size();
        size_t i = 0, k = 0;
        for (const Tile& t : tiles_) {
            for (; i < static_cast<size_t>(t.node_end); ++i) node(i);
            for (; k < static_cast<size_t>(t.element_end); ++k) {
                if (k + kAhead < ne) {
                    PrefetchElement(tiled_elements_[k + kAhead]);
                    if (values) PrefetchMultiplierColumns(tiled_elements_[k + kAhead], values);
                }
                element(tiled_elements_[k], block);
            }
        }
    } else {
        Parallel([&] {
            ForEachNode(node);
            ForEachElementColored(element);
        });
    }
    states_dirty_ = false;
}

void CgrFormulation::Residual(double c, Eigen::VectorXd& r) { Assemble(c, &r, nullptr); }

void CgrFormulation::Jacobian(double c, Eigen::SparseMatrix<double>& J) {
    Assemble(c, nullptr, &J);
}

void CgrFormulation::ResidualAndJacobian(double c, Eigen::VectorXd& r,
                                         Eigen::SparseMatrix<double>& J) {
    Assemble(c, &r, &J);
}

}  // namespace mbstep::cgr
