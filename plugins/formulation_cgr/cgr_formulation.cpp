// mbstep — formulation `cgr` (equations in cgr_formulation.hpp).
#include "cgr_formulation.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

#include "mbstep/assembly/assembly.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/solver/linear_solver.hpp"

namespace mbstep::cgr {

namespace {

// The chart of the rotation increments: R = R(g) R_ref, w = G(g) g' (w in the global frame).
// CGR (MBDyn): rotation.hpp (1)-(4). Rotation vector: R(g) = exp(g), G(g) = T_exp(-g) (the
// left-trivialised tangent, so3.hpp (2) with -g), G^-1 = T_exp(-g)^-1, g = log(R), and
// d(G(g) a)/dg = -(so3.hpp (5) at -g): a rotation at constant rate about a fixed axis is linear
// in g, so a multistep formula integrates it exactly (docs/verification.md).
Mat3 ChartRotation(bool rv, const Vec3& g) { return rv ? so3::Exp(g) : CgrRotation(g); }
Mat3 ChartG(bool rv, const Vec3& g) { return rv ? Mat3(so3::Texp(-g)) : CgrG(g); }
Mat3 ChartGInverse(bool rv, const Vec3& g) {
    return rv ? Mat3(so3::TexpInverse(-g)) : CgrGInverse(g);
}
Vec3 ChartFromRotation(bool rv, const Mat3& R) { return rv ? so3::Log(R) : CgrFromRotation(R); }
Mat3 ChartGTimesDerivative(bool rv, const Vec3& g, const Vec3& a) {
    return rv ? Mat3(-so3::TexpDerivative(-g, a)) : CgrGTimesDerivative(g, a);
}
constexpr int kDynamicDofs = 12;
constexpr int kStaticDofs = 6;

// True when the rows x cols block at (r0, c0) of a column-major array with leading dimension
// ld holds only +0.0 and -0.0 (a NaN or any other value makes it false); branch-free.
bool AllZero(const double* data, int ld, int r0, int c0, int rows, int cols) {
    std::uint64_t bits = 0;
    for (int j = 0; j < cols; ++j) {
        const double* col = data + static_cast<std::ptrdiff_t>(c0 + j) * ld + r0;
        for (int i = 0; i < rows; ++i) {
            std::uint64_t u;
            std::memcpy(&u, col + i, sizeof u);
            bits |= u;
        }
    }
    return (bits << 1) == 0;  // every bit but the sign bits
}

// The same entries stored as 0.0 + b(i, j): the bits AddColumnRuns gives on zeroed entries.
template <class Block>
void StoreColumnRuns(double* values, const int* slots, int cols, int rows, const Block& b) {
    for (int j = 0; j < cols; ++j) {
        double* v = values + slots[j];
        for (int i = 0; i < rows; ++i) v[i] = 0.0 + b(i, j);
    }
}

template <class Block>
void AddColumnRuns(double* values, const int* slots, int cols, int rows, const Block& b) {
    for (int j = 0; j < cols; ++j) {
        double* v = values + slots[j];
        for (int i = 0; i < rows; ++i) v[i] += b(i, j);
    }
}
}  // namespace

// Structure of a dynamic node's own 12x12 block of `cgr` (momenta unknowns) outside its
// top-left 6x6 (x', g' rows and columns, where elements add): 3x3 sub-blocks (rb, cb) of the
// row groups (1)-(4) and column groups x', g', beta', gamma', as written by Jacobian()'s node
// pass. kDiagonal: c I, m I or I; kDense: skew or full 3x3; kFirstMoment: dense, and zero when
// the node's first moment of mass s is zero (centre of mass at the node).
enum class SubBlock { kDiagonal, kDense, kFirstMoment };
struct NodeSubBlock {
    int rb, cb;
    SubBlock kind;
};
constexpr NodeSubBlock kNodeSubBlocks[] = {
    {0, 2, SubBlock::kDiagonal},     // (1) beta': -I
    {1, 2, SubBlock::kDense},        // (2) beta: -c v~
    {1, 3, SubBlock::kDiagonal},     // (2) gamma': -I
    {2, 0, SubBlock::kDiagonal},     // (3) x': -m I
    {2, 1, SubBlock::kFirstMoment},  // (3) g', g: S~ G + ...
    {2, 2, SubBlock::kDiagonal},     // (3) beta: c I
    {3, 0, SubBlock::kFirstMoment},  // (4) x': -S~
    {3, 1, SubBlock::kDense},        // (4) g', g: -J G + ...
    {3, 3, SubBlock::kDiagonal},     // (4) gamma: c I
};

CgrFormulation::CgrFormulation(const Model& model, bool rereference_at_prediction, Momenta momenta,
                               Chart chart)
    : model_(model),
      rereference_at_prediction_(rereference_at_prediction),
      rotation_vector_(chart == Chart::kRotationVector),
      eliminate_(momenta != Momenta::kUnknowns),
      scale_rows_(momenta == Momenta::kEliminated),
      static_(model.static_model()) {
    const auto& mnodes = model.nodes();
    const int nn = static_cast<int>(mnodes.size());
    nodes_.resize(nn);
    states_.resize(nn);
    past_.resize(nn);

    // Inertia attached to nodes by bodies (node frame). A node all of whose inertia comes
    // from elements that contribute only its weight (bodies) gets that weight in the node
    // pass, and those elements leave the element passes (NodeData::weighted).
    std::vector<NodeInertia> inertia(nn);
    std::vector<int> providers(nn, 0), weights(nn, 0);
    const auto& elems = model.elements();
    auto folds = [&](const Element& e) {
        return e.ContributesOnlyWeight() && e.nodes().size() == 1 && e.num_multipliers() == 0;
    };
    for (const auto& e : elems) {
        std::vector<NodeInertia> local(e->nodes().size());
        e->AddInertia(local);
        for (size_t k = 0; k < local.size(); ++k) {
            const int i = e->nodes()[k];
            inertia[i] += local[k];
            if (local[k].m != 0.0 || !local[k].s.isZero(0.0) || !local[k].J.isZero(0.0)) {
                ++providers[i];
                if (folds(*e)) ++weights[i];
            }
        }
    }

    // Dof numbering: nodes, then multipliers; Newton numbering likewise, without the momenta
    // when they are eliminated.
    int off = 0, row = 0;
    for (int i = 0; i < nn; ++i) {
        NodeData& nd = nodes_[i];
        nd.offset = off;
        nd.row = row;
        // A static model treats every node as static (eq. (6)).
        nd.dynamic = !static_ && mnodes[i].kind == NodeKind::kDynamic;
        nd.weighted = nd.dynamic && providers[i] > 0 && weights[i] == providers[i];
        nd.inertia = inertia[i];
        nd.inertia_diagonal = inertia[i].J.isDiagonal(0.0);
        if (nd.dynamic && inertia[i].m <= 0.0)
            throw RunError("dynamic structural node " + std::to_string(mnodes[i].label) +
                           " has no mass: attach a body or make it static");
        off += nd.dynamic ? kDynamicDofs : kStaticDofs;
        row += nd.dynamic && !eliminate_ ? kDynamicDofs : kStaticDofs;
        if (eliminate_)
            for (int j = 0; j < kStaticDofs; ++j) unknowns_.push_back(nd.offset + j);
    }
    const int node_dofs = off;
    node_dofs_ = node_dofs;
    node_rows_ = row;
    elements_.resize(elems.size());
    state_ptr_offset_.resize(elems.size());
    int ptrs = 0;
    for (size_t e = 0; e < elems.size(); ++e) {
        const int m = elems[e]->num_multipliers();
        if (m > ElementBlock::kMaxMultipliers ||
            static_cast<int>(elems[e]->nodes().size()) > ElementBlock::kMaxNodes)
            throw RunError("element " + std::to_string(elems[e]->label()) +
                           " exceeds the block size");
        elements_[e].m = m;
        const auto& en = elems[e]->nodes();
        elements_[e].k = static_cast<int>(en.size());
        for (size_t a = 0; a < en.size(); ++a) {
            const NodeData& na = nodes_[en[a]];
            elements_[e].node[a] = en[a];
            elements_[e].node_row[a] = na.row;
            elements_[e].scaled[a] = RowFactor(na, 2.0) != 1.0;
        }
        for (int j = 0; j < m; ++j)
            if (elems[e]->row_level(j) == ConstraintLevel::kVelocity) {
                // A static model has no velocities to prescribe (eq. (6)).
                if (static_) {
                    const SourceLocation& w = elems[e]->where();
                    throw RunError(DescribeConstraintRow(*elems[e], j) +
                                   (w.line > 0 ? " (" + w.ToString() + ")" : std::string()) +
                                   " is a velocity-level constraint, which a static model "
                                   "(control data `model: static;`) cannot have: its node "
                                   "velocities are zero");
                }
                elements_[e].velocity_rows |= 1u << j;
            }
        if (m > 0) {
            elements_[e].mult_offset = off;
            elements_[e].mult_row = row;
            for (int j = 0; j < m && eliminate_; ++j) unknowns_.push_back(off + j);
            off += m;
            row += m;
        }
        state_ptr_offset_[e] = ptrs;
        ptrs += static_cast<int>(elems[e]->nodes().size());
        const bool folded = folds(*elems[e]) && nodes_[en[0]].weighted;
        if ((elems[e]->HasContribution() || m > 0) && !folded)
            active_elements_.push_back(static_cast<int>(e));
    }
    n_ = off;
    nu_ = row;
    kinds_.assign(n_, DofKind::kDifferential);
    std::fill(kinds_.begin() + node_dofs, kinds_.end(), DofKind::kAlgebraic);
    state_ptrs_.resize(ptrs);
    for (size_t e = 0; e < elems.size(); ++e)
        for (size_t k = 0; k < elems[e]->nodes().size(); ++k)
            state_ptrs_[state_ptr_offset_[e] + k] = &states_[elems[e]->nodes()[k]];

    // Colouring of the active elements for deterministic parallel assembly.
    std::vector<std::vector<int>> en;
    for (int e : active_elements_) en.push_back(elems[e]->nodes());
    colors_ = ColorElements(en, nn);
    for (auto& c : colors_)
        for (int& k : c) k = active_elements_[k];
    BuildTiles();

    // Initial state: g = 0 relative to R0, g' = w0 with w_ref = 0 (so w = G(0) g' = w0); a
    // static model starts its load path at rest (y' = 0, the deck's velocities ignored).
    y_.setZero(n_);
    yp_.setZero(n_);
    past_.advance();
    for (int i = 0; i < nn; ++i) {
        const FrameState& s0 = mnodes[i].initial;
        NodeData& nd = nodes_[i];
        nd.R_ref = s0.R;
        nd.w_ref.setZero();
        y_.segment<3>(nd.offset) = s0.x;
        if (static_) {
            past_.front(i) = {s0.R, Vec3::Zero()};
            continue;
        }
        yp_.segment<3>(nd.offset) = s0.v;
        yp_.segment<3>(nd.offset + 3) = s0.w;
        past_.front(i) = {s0.R, s0.w};
    }
    t_ = 0.0;
    ComputeStates();
    ReadElementStructure();
    BuildPattern();
    // Momenta consistent with the initial twist.
    for (int i = 0; i < nn; ++i) {
        NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        const FrameState& s = states_[i];
        y_.segment<3>(nd.offset + 6) = nd.inertia.m * s.v + s.w.cross(nd.S);
        y_.segment<3>(nd.offset + 9) = nd.S.cross(s.v) + nd.J * s.w;
    }
    states_dirty_ = true;
}

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

void CgrFormulation::ReadElementStructure() {
    // Node-pair blocks of K and C each element can write (ElementBlock::k_blocks, c_blocks):
    // part of the element's structure, the same at every state, so one evaluation at the
    // initial state reads them. Blocks between different nodes enter the pattern only if
    // declared; a later evaluation writing elsewhere stops the run (Jacobian()).
    ElementBlock& b = scratch_.local();
    for (int e : active_elements_) {
        EvaluateElement(e, b, true, Gravity());
        elements_[e].k_pairs = b.k_blocks;
        elements_[e].c_pairs = b.c_blocks;
        // A static model maps no C block (eq. (6)): only K's pairs enter the pattern.
        elements_[e].pairs = static_ ? b.k_blocks : b.k_blocks | b.c_blocks;
        elements_[e].k_quadrants = b.k_quadrants;
        elements_[e].c_quadrants = b.c_quadrants;
    }
}

void CgrFormulation::BuildPattern() {
    // In Newton numbering: a node's own block is 12x12 (dynamic node, momenta unknowns) or 6x6;
    // elements touch only the first 6 unknowns (x', g') of their nodes and their multipliers.
    const auto& elems = model_.elements();
    auto block = [&](const NodeData& nd) {
        return nd.dynamic && !eliminate_ ? kDynamicDofs : kStaticDofs;
    };
    PatternBuilder pb(nu_);
    // A node's own block: dense 6x6 (x', g'), and for `cgr`'s dynamic nodes the structurally
    // non-zero 3x3 sub-blocks of the momentum rows and columns (kNodeSubBlocks), diagonal ones
    // as diagonals: 69 of 144 entries for a node at its centre of mass.
    for (const NodeData& nd : nodes_) {
        pb.AddBlock(nd.row, kStaticDofs, nd.row, kStaticDofs);
        if (block(nd) == kStaticDofs) continue;
        for (const NodeSubBlock& sb : kNodeSubBlocks) {
            const int r = nd.row + 3 * sb.rb, c = nd.row + 3 * sb.cb;
            if (sb.kind == SubBlock::kDiagonal) {
                for (int j = 0; j < 3; ++j) pb.AddBlock(r + j, 1, c + j, 1);
            } else if (sb.kind == SubBlock::kDense || !nd.inertia.s.isZero(0.0)) {
                pb.AddBlock(r, 3, c, 3);
            }
        }
    }
    for (int e : active_elements_) {
        const auto& en = elems[e]->nodes();
        const ElementData& ed = elements_[e];
        for (size_t ia = 0; ia < en.size(); ++ia) {
            const int a = en[ia];
            for (size_t ib = 0; ib < en.size(); ++ib)
                if (HasPairBlock(ed, static_cast<int>(ia), static_cast<int>(ib)))
                    pb.AddBlock(nodes_[a].row, 6, nodes_[en[ib]].row, 6);
            if (ed.m > 0) {
                pb.AddBlock(nodes_[a].row, 6, ed.mult_row, ed.m);
                pb.AddBlock(ed.mult_row, ed.m, nodes_[a].row, 6);
            }
        }
        if (ed.m > 0 && en.empty()) pb.AddBlock(ed.mult_row, ed.m, ed.mult_row, ed.m);
    }
    pattern_ = pb.Build();

    // Slots: for every column of a dense block, the value index of the block's first row.
    // Node blocks: the 6 column starts of the dense 6x6 part, and for `cgr`'s dynamic nodes a
    // list of (value index, row * 12 + column) for every pattern entry of the rest.
    node_slots_.clear();
    node_entries_.clear();
    node_entry_begin_.assign(nodes_.size() + 1, 0);
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const NodeData& nd = nodes_[i];
        for (int j = 0; j < kStaticDofs; ++j)
            node_slots_.push_back(PatternSlot(pattern_, nd.row, nd.row + j));
        node_entry_begin_[i] = static_cast<int>(node_entries_.size());
        if (block(nd) == kStaticDofs) continue;
        const int* outer = pattern_.outerIndexPtr();
        const int* inner = pattern_.innerIndexPtr();
        for (int c = 0; c < kDynamicDofs; ++c)
            for (int k = outer[nd.row + c]; k < outer[nd.row + c + 1]; ++k) {
                const int r = inner[k] - nd.row;
                if (r >= 0 && r < kDynamicDofs && (r >= kStaticDofs || c >= kStaticDofs))
                    node_entries_.push_back({k, r * kDynamicDofs + c});
            }
    }
    node_entry_begin_[nodes_.size()] = static_cast<int>(node_entries_.size());
    slots_.clear();
    // In the order the one-thread passes visit the elements (by tiles, else by colours).
    std::vector<int> order = tiled_elements_;
    if (order.empty())
        for (const auto& color : colors_) order.insert(order.end(), color.begin(), color.end());
    for (int e : order) {
        const auto& en = elems[e]->nodes();
        ElementData& ed = elements_[e];
        ed.slot_begin = static_cast<int>(slots_.size());
        const int k = static_cast<int>(en.size());
        for (int a = 0; a < k; ++a)  // node rows x node columns: [(a * k + b) * 6 + j]
            for (int b = 0; b < k; ++b)
                for (int j = 0; j < 6; ++j)
                    slots_.push_back(
                        HasPairBlock(ed, a, b)
                            ? PatternSlot(pattern_, nodes_[en[a]].row, nodes_[en[b]].row + j)
                            : -1);
        for (int a : en)  // node rows x multiplier columns: [k*k*6 + a * m + j]
            for (int j = 0; j < ed.m; ++j)
                slots_.push_back(PatternSlot(pattern_, nodes_[a].row, ed.mult_row + j));
        for (int b : en)  // multiplier rows x node columns: [k*k*6 + k*m + b * 6 + j]
            for (int j = 0; j < 6 && ed.m > 0; ++j)
                slots_.push_back(PatternSlot(pattern_, ed.mult_row, nodes_[b].row + j));
    }
    slots_.shrink_to_fit();

    // Exclusive multiplier entries: every entry of a multiplier column, and every entry of a
    // node column in a multiplier row, covered exactly once by the slots ElementJacobian
    // writes (6 node rows per multiplier column and node, m multiplier rows per node column).
    // Not so for an element with multipliers and no nodes (its D block is only zeroed) or
    // one that lists a node twice.
    const int* outer = pattern_.outerIndexPtr();
    const int* inner = pattern_.innerIndexPtr();
    std::vector<int> count(pattern_.nonZeros(), 0);
    for (int e : active_elements_) {
        const ElementData& ed = elements_[e];
        if (ed.m == 0) continue;
        const int* ls = slots_.data() + ed.slot_begin + ed.k * ed.k * 6;
        for (int q = 0; q < ed.k * ed.m; ++q)
            for (int i = 0; i < 6; ++i) ++count[ls[q] + i];
        const int* cs = ls + ed.k * ed.m;
        for (int q = 0; q < ed.k * 6; ++q)
            for (int i = 0; i < ed.m; ++i) ++count[cs[q] + i];
    }
    exclusive_multipliers_ = true;
    for (int col = 0; col < nu_ && exclusive_multipliers_; ++col)
        for (int q = outer[col]; q < outer[col + 1]; ++q) {
            const bool multiplier_entry = col >= node_rows_ || inner[q] >= node_rows_;
            if (count[q] != (multiplier_entry ? 1 : 0)) {
                exclusive_multipliers_ = false;
                break;
            }
        }
}

std::string CgrFormulation::name() const {
    if (eliminate_) return scale_rows_ ? "cgr velocity" : "cgr velocity unscaled";
    if (rotation_vector_) return "cgr rotation vector";
    return rereference_at_prediction_ ? "mbdyn cgr" : "cgr";
}

void CgrFormulation::UpdateNodeState(size_t i, bool omega) const {
    NodeData& nd = nodes_[i];
    FrameState& s = states_[i];
    s.x = y_.segment<3>(nd.offset);
    if (static_) {
        // A static model's elements see zero velocities and no C block is mapped: no Omega.
        omega = false;
        s.v.setZero();
    } else {
        s.v = yp_.segment<3>(nd.offset);
    }
    // The maps depend on g, g' (and the reference): skipped when their bits did not change,
    // e.g. Jacobian() after Residual() at the same Newton point. Omega only enters the
    // Jacobian: computed when asked for (once per point).
    const double* g_bits = y_.data() + nd.offset + 3;
    const double* gp_bits = yp_.data() + nd.offset + 3;
    const Vec3 g = y_.segment<3>(nd.offset + 3);
    const Vec3 gp = yp_.segment<3>(nd.offset + 3);
    if (!nd.maps_valid || std::memcmp(g_bits, nd.at.data(), 3 * sizeof(double)) != 0 ||
        std::memcmp(gp_bits, nd.at.data() + 3, 3 * sizeof(double)) != 0) {
        // (rotation.hpp's coefficient-wise 3x3 products: the values of the Eigen expressions
        // Rg R_ref, G g' + Rg w_ref, R s, (R J_n) R^T without their store-forwarding stalls.)
        const Mat3 Rg = ChartRotation(rotation_vector_, g);
        nd.G = ChartG(rotation_vector_, g);
        Mul3(Rg, nd.R_ref, s.R);
        const Vec3 Rw = Mul3(Rg, nd.w_ref);
        if (static_)
            s.w.setZero();
        else
            s.w = Mul3(nd.G, gp) + Rw;
        if (nd.dynamic) {
            nd.S = Mul3(s.R, nd.inertia.s);
            // Principal axes (the usual body input): R J_n by column scaling, the same values.
            if (nd.inertia_diagonal) {
                nd.J = RotateDiagonal(s.R, nd.inertia.J);
            } else {
                nd.J = s.R * nd.inertia.J * s.R.transpose();
            }
        }
        std::memcpy(nd.at.data(), g_bits, 3 * sizeof(double));
        std::memcpy(nd.at.data() + 3, gp_bits, 3 * sizeof(double));
        nd.maps_valid = true;
        nd.elim_valid = false;
        if (omega) {
            nd.Omega = ChartGTimesDerivative(rotation_vector_, g, gp) - SkewMul3(Rw, nd.G);
            nd.omega_valid = true;
        } else {
            nd.omega_valid = false;
        }
        return;
    }
    if (omega && !nd.omega_valid) {
        // R(g) again (the same bits) rather than kept: NodeData stays on ten cache lines.
        const Vec3 Rw = Mul3(ChartRotation(rotation_vector_, g), nd.w_ref);
        nd.Omega = ChartGTimesDerivative(rotation_vector_, g, gp) - SkewMul3(Rw, nd.G);
        nd.omega_valid = true;
    }
}

void CgrFormulation::EliminateMomenta(size_t i, double c) {
    NodeData& nd = nodes_[i];
    const int o = nd.offset;
    // Skipped when (x', g'), (g, beta, gamma), (beta', gamma') and c are those of the last
    // elimination (Jacobian after Residual at the same Newton point): repeating it would move
    // y - c y' by round-off.
    // (g, g' are not compared: a change of them recomputed the maps, which cleared elim_valid.)
    const size_t kXp = 3 * sizeof(double), kM = 6 * sizeof(double);
    if (nd.elim_valid && nd.elim_c == c &&
        std::memcmp(yp_.data() + o, nd.elim_at.data(), kXp) == 0 &&
        std::memcmp(y_.data() + o + 6, nd.elim_at.data() + 3, kM) == 0 &&
        std::memcmp(yp_.data() + o + 6, nd.elim_at.data() + 9, kM) == 0)
        return;
    const FrameState& s = states_[i];
    // p = [m v + w x S; S x v + J w], y - c y' kept: coefficient by coefficient (the values of
    // the Eigen expressions; its 6-vector assembled from two 3-vectors was read back in packets
    // that straddled their stores, a store-forwarding stall).
    const Vec3 Jw = Mul3(nd.J, s.w);
    const Vec3& v = s.v;
    const Vec3& w = s.w;
    const Vec3& S = nd.S;
    const double m = nd.inertia.m;
    double p[6];
    p[0] = m * v[0] + (w[1] * S[2] - w[2] * S[1]);
    p[1] = m * v[1] + (w[2] * S[0] - w[0] * S[2]);
    p[2] = m * v[2] + (w[0] * S[1] - w[1] * S[0]);
    p[3] = (S[1] * v[2] - S[2] * v[1]) + Jw[0];
    p[4] = (S[2] * v[0] - S[0] * v[2]) + Jw[1];
    p[5] = (S[0] * v[1] - S[1] * v[0]) + Jw[2];
    double* y = y_.data() + o + 6;
    double* yp = yp_.data() + o + 6;
    for (int k = 0; k < 6; ++k) {
        const double history = y[k] - c * yp[k];
        y[k] = p[k];
        yp[k] = (p[k] - history) / c;
    }
    std::memcpy(nd.elim_at.data(), yp_.data() + o, kXp);
    std::memcpy(nd.elim_at.data() + 3, y_.data() + o + 6, kM);
    std::memcpy(nd.elim_at.data() + 9, yp_.data() + o + 6, kM);
    nd.elim_c = c;
    nd.elim_valid = true;
}

// `cgr velocity unscaled`: rows (1), (2) hold beta' = (p - h) / c with h = y - c y' of the
// prediction and p = [m v + w x S; S x v + J w], a difference of two momenta divided by c, so
// they carry round-off ~eps (|p| + |h|) / c that `cgr`'s rows (1)-(4) at the same point do not
// (there beta' is an unknown and the momenta's round-off, eps |p|, stays in rows (3), (4)).
// The bound, per node and for its three force and its three moment rows alike: 4 eps (the
// magnitudes of p's terms, which may cancel, plus |h|) / c, in norms, since v and w come out
// of the rotation maps with round-off eps |v|, eps |w| in every component (Higham, "Accuracy
// and Stability of Numerical Algorithms", 2nd ed., section 3.1). Elsewhere (`cgr`, the impulse
// rows of `cgr velocity`): none.
void CgrFormulation::ResidualNoise(double c, Eigen::VectorXd& noise) const {
    if (!eliminate_ || scale_rows_ || !(c > 0.0)) {
        noise.resize(0);
        return;
    }
    noise.setZero(pattern_.rows());
    const double k = 4.0 * std::numeric_limits<double>::epsilon() / c;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        const FrameState& st = states_[i];
        const double v = st.v.norm(), w = st.w.norm(), S = nd.S.norm();
        const int o = nd.offset + 6, ro = nd.row;
        const Vec6 h = y_.segment<6>(o) - c * yp_.segment<6>(o);
        const double force = std::abs(nd.inertia.m) * v + w * S + h.head<3>().norm();
        const double moment = S * v + nd.J.norm() * w + h.tail<3>().norm();
        for (int j = 0; j < 3; ++j) {
            noise[ro + j] = k * force;
            noise[ro + 3 + j] = k * moment;
        }
    }
}

void CgrFormulation::ComputeStates() const {
    if (!states_dirty_) return;
    Parallel([&] { ForEachNode([&](size_t i) { UpdateNodeState(i); }); });
    states_dirty_ = false;
}

const std::vector<FrameState>& CgrFormulation::node_states() const {
    ComputeStates();
    return states_;
}

const double* CgrFormulation::multipliers(int element) const {
    const ElementData& ed = elements_[element];
    return ed.m > 0 ? y_.data() + ed.mult_offset : nullptr;
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

template <class F>
void CgrFormulation::Parallel(F&& f) const {
    if (threads_ <= 1) {
        f();
        return;
    }
    // One arena for the formulation's life (creating one per call allocates).
    if (!arena_ || arena_->max_concurrency() != threads_) arena_.emplace(threads_);
    arena_->execute(f);
}

template <class F>
void CgrFormulation::ForEachNode(F&& f) const {
    if (threads_ <= 1) {
        for (size_t i = 0; i < nodes_.size(); ++i) f(i);
        return;
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, nodes_.size(), 16),
                      [&](const tbb::blocked_range<size_t>& range) {
                          for (size_t i = range.begin(); i != range.end(); ++i) f(i);
                      });
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

template <class F>
void CgrFormulation::ForEachElementColored(F&& f) const {
    // Each element object is a separate heap allocation that the hardware prefetcher cannot
    // follow: its first cache lines are requested kAhead elements early.
    constexpr size_t kAhead = 8;
    if (threads_ <= 1) {
        ElementBlock& block = scratch_.local();  // one thread-local lookup per pass
        for (const auto& color : colors_)
            for (size_t k = 0; k < color.size(); ++k) {
                if (k + kAhead < color.size()) PrefetchElement(color[k + kAhead]);
                f(color[k], block);
            }
        return;
    }
    for (const auto& color : colors_)
        tbb::parallel_for(tbb::blocked_range<size_t>(0, color.size(), 8),
                          [&](const tbb::blocked_range<size_t>& range) {
                              ElementBlock& block = scratch_.local();
                              for (size_t k = range.begin(); k != range.end(); ++k) {
                                  if (k + kAhead < range.end()) PrefetchElement(color[k + kAhead]);
                                  f(color[k], block);
                              }
                          });
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

// ElementJacobian's mapping of one node-pair block quadrant by quadrant, for an element that
// declares some quadrants zero (ElementBlock::k_quadrants): kq, cq are the quadrants of K and C
// to map (0: none). The same operations per entry as the 6x6 mapping in ElementJacobian.
void CgrFormulation::QuadrantJacobian(const ElementBlock& b, int a, int bb, unsigned kq,
                                      unsigned cq, const NodeData& nb, double c, double rs,
                                      const int* slots, double* values) {
    for (int qr = 0; qr < 2; ++qr)
        for (int qc = 0; qc < 2; ++qc) {
            const unsigned bit = ElementBlock::Quadrant(qr, qc);
            const bool kz = !(kq & bit), cz = !(cq & bit);
            assert(!kz ||
                   AllZero(b.K.data(), int(b.K.rows()), 6 * a + 3 * qr, 6 * bb + 3 * qc, 3, 3));
            assert(!cz ||
                   AllZero(b.C.data(), int(b.C.rows()), 6 * a + 3 * qr, 6 * bb + 3 * qc, 3, 3));
            if (kz && cz) continue;
            // (Blocks of a pair that K or C does not write are not zeroed by Reset: not read.)
            // Coefficient by coefficient, with rotation.hpp's products (the values of the Eigen
            // expressions in the comments): Eigen's 3x3 block copies and products stored packets
            // that the next loads straddled (store-forwarding stalls).
            const int ldk = static_cast<int>(b.K.rows()), ldc = static_cast<int>(b.C.rows());
            const double* K0 =
                b.K.data() + static_cast<std::ptrdiff_t>(6 * bb + 3 * qc) * ldk + (6 * a + 3 * qr);
            const double* C0 =
                b.C.data() + static_cast<std::ptrdiff_t>(6 * bb + 3 * qc) * ldc + (6 * a + 3 * qr);
            Mat3 Kq, Cq, q;
            for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 3; ++i) {
                    Kq(i, j) = kz ? 0.0 : K0[j * ldk + i];
                    Cq(i, j) = cz ? 0.0 : C0[j * ldc + i];
                }
            if (qc == 0) {
                // kz: -Cq; cz: -(c Kq); else -(Cq + c Kq)
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 3; ++i)
                        q(i, j) = kz   ? -Cq(i, j)
                                  : cz ? -(c * Kq(i, j))
                                       : -(Cq(i, j) + c * Kq(i, j));
            } else if (kz) {
                // -(Cq G + c (Cq Omega)), Eigen moving c into the left factor: (c Cq) Omega
                Mat3 CG, cC, CO;
                Mul3(Cq, nb.G, CG);
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 3; ++i) cC(i, j) = c * Cq(i, j);
                Mul3(cC, nb.Omega, CO);
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 3; ++i) q(i, j) = -(CG(i, j) + CO(i, j));
            } else if (cz) {
                // -(c (Kq G)) as Eigen evaluates it: -((c Kq) G)
                Mat3 cK, KG;
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 3; ++i) cK(i, j) = c * Kq(i, j);
                Mul3(cK, nb.G, KG);
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 3; ++i) q(i, j) = -KG(i, j);
            } else {
                Mat3 CG, KG, CO;  // -(Cq G + c (Kq G + Cq Omega))
                Mul3(Cq, nb.G, CG);
                Mul3(Kq, nb.G, KG);
                Mul3(Cq, nb.Omega, CO);
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 3; ++i) q(i, j) = -(CG(i, j) + c * (KG(i, j) + CO(i, j)));
            }
            for (int j = 0; j < 3; ++j) {
                double* v = values + slots[3 * qc + j] + 3 * qr;
                if (rs != 1.0)
                    for (int i = 0; i < 3; ++i) v[i] += q(i, j) * rs;
                else
                    for (int i = 0; i < 3; ++i) v[i] += q(i, j);
            }
        }
}

// Element e's blocks mapped to (x', g') columns, added to J from its evaluated block.
void CgrFormulation::ElementJacobian(int e, const ElementBlock& b, double c, double* values) const {
    const ElementData& ed = elements_[e];
    const int k = ed.k;
    const int* slots = slots_.data() + ed.slot_begin;
    const int ld = static_cast<int>(b.K.rows());
    // Blocks the element declares now but did not at set-up (ReadElementStructure) were not
    // zeroed by Reset and may be outside the pattern: refused, whatever their values.
    const std::uint32_t undeclared = (b.k_blocks & ~ed.k_pairs) | (b.c_blocks & ~ed.c_pairs);
    if ((b.k_quadrants & ~ed.k_quadrants) || (b.c_quadrants & ~ed.c_quadrants))
        throw RunError("element " + std::to_string(model_.elements()[e]->label()) +
                       " may write Jacobian quadrants that it did not declare at set-up " +
                       "(ElementBlock::k_quadrants/c_quadrants must not depend on the state)");
    // Quadrants outside the declaration are skipped (a spherical joint's blocks have only
    // moment x rotation terms): the full 6x6 mapping below when all four may be non-zero.
    // (A static model maps K alone, eq. (6).)
    const unsigned mapped = static_ ? b.k_quadrants : b.k_quadrants & b.c_quadrants;
    const bool all_quadrants = mapped == ElementBlock::kAllQuadrants;
    // An element that declares its blocks writes something in them (mapped without testing
    // them for zeros first: adding zeros would not change a bit either); the blocks of one
    // that does not are tested.
    const bool k_declared = ed.k_pairs != ~0u, c_declared = ed.c_pairs != ~0u;
    Mat6 blk, Kb, Cb;
    for (int a = 0; a < k; ++a) {
        const double rs = ElementRowFactor(ed, a, c);  // rows of node a
        for (int bb = 0; bb < k; ++bb) {
            // An all-zero block (e.g. a hinge couples its nodes only through the multipliers)
            // would add -0.0 to every entry: skipping it changes no bit. Blocks outside the
            // element's declared structure are not even read.
            const std::uint32_t pair = ElementBlock::Pair(a, bb);
            if (undeclared & pair)
                throw RunError("element " + std::to_string(model_.elements()[e]->label()) +
                               " may write a Jacobian block between its nodes " +
                               std::to_string(a + 1) + " and " + std::to_string(bb + 1) +
                               " that it did not declare at set-up (ElementBlock::" +
                               "k_blocks/c_blocks must not depend on the state)");
            assert((b.k_blocks & pair) || AllZero(b.K.data(), ld, 6 * a, 6 * bb, 6, 6));
            assert((b.c_blocks & pair) || AllZero(b.C.data(), ld, 6 * a, 6 * bb, 6, 6));
            const bool k_zero = !(b.k_blocks & pair) ||
                                (!k_declared && AllZero(b.K.data(), ld, 6 * a, 6 * bb, 6, 6));
            const bool c_zero = static_ || !(b.c_blocks & pair) ||
                                (!c_declared && AllZero(b.C.data(), ld, 6 * a, 6 * bb, 6, 6));
            if (k_zero && c_zero) continue;
            assert(HasPairBlock(ed, a, bb));  // declared at set-up: in the pattern
            const NodeData& nb = nodes_[ed.node[bb]];
            if (!all_quadrants) {
                QuadrantJacobian(b, a, bb, k_zero ? 0 : b.k_quadrants, c_zero ? 0 : b.c_quadrants,
                                 nb, c, rs, slots + (a * k + bb) * 6, values);
                continue;
            }
            Kb = b.K.block<6, 6>(6 * a, 6 * bb);  // fixed-size copies: unrolled products
            if (c_zero) {
                blk.leftCols<3>() = -(c * Kb.leftCols<3>());
                blk.rightCols<3>() = -(c * (Kb.rightCols<3>() * nb.G));
            } else {
                Cb = b.C.block<6, 6>(6 * a, 6 * bb);
                blk.leftCols<3>() = -(Cb.leftCols<3>() + c * Kb.leftCols<3>());
                blk.rightCols<3>() =
                    -(Cb.rightCols<3>() * nb.G +
                      c * (Kb.rightCols<3>() * nb.G + Cb.rightCols<3>() * nb.Omega));
            }
            if (rs != 1.0) blk *= rs;
            AddColumnRuns(values, slots + (a * k + bb) * 6, 6, 6, blk);
        }
    }
    if (ed.m == 0) return;
    const int* lslots = slots + k * k * 6;
    // Entries only this element writes (exclusive_multipliers_) are stored as 0.0 + value,
    // the bits of adding to the zeroed entry, without reading it first.
    const bool store = exclusive_multipliers_;
    for (int a = 0; a < k; ++a) {
        const double rs = ElementRowFactor(ed, a, c);
        for (int j = 0; j < ed.m; ++j) {
            double* v = values + lslots[a * ed.m + j];
            const double* l = b.L.data() + j * b.L.rows() + 6 * a;
            if (store)
                for (int i = 0; i < 6; ++i) v[i] = 0.0 + rs * l[i];
            else
                for (int i = 0; i < 6; ++i) v[i] += rs * l[i];
        }
    }
    // Row scales of r_phi (5) and whether phi_v has anything (position-level rows
    // leave it zero): both per element, the latter per evaluation.
    const int* cslots = lslots + k * ed.m;
    const int m = ed.m, ldc = static_cast<int>(b.phi_q.rows());
    const bool pv_zero = static_ || AllZero(b.phi_v.data(), ldc, 0, 0, m, 6 * k);
    double scale[ElementBlock::kMaxMultipliers];
    for (int j = 0; j < m; ++j) scale[j] = RowScale(ed, j, c);
    auto map_rows = [&](auto rows_tag) {
        constexpr int R = decltype(rows_tag)::value;
        constexpr int kMax = R == Eigen::Dynamic ? ElementBlock::kMaxMultipliers : R;
        using MatR6 = Eigen::Matrix<double, R, 6, 0, kMax, 6>;
        MatR6 cb(m, 6), Pq(m, 6), Pv(m, 6);
        for (int bb = 0; bb < k; ++bb) {
            const NodeData& nb = nodes_[ed.node[bb]];
            Pq = b.phi_q.block(0, 6 * bb, m, 6);
            if (pv_zero) {
                cb.leftCols(3) = -(c * Pq.leftCols(3));
                cb.rightCols(3) = -(c * (Pq.rightCols(3) * nb.G));
            } else {
                Pv = b.phi_v.block(0, 6 * bb, m, 6);
                cb.leftCols(3) = -(Pv.leftCols(3) + c * Pq.leftCols(3));
                cb.rightCols(3) = -(Pv.rightCols(3) * nb.G +
                                    c * (Pq.rightCols(3) * nb.G + Pv.rightCols(3) * nb.Omega));
            }
            for (int j = 0; j < m; ++j) cb.row(j) *= scale[j];
            if (store)
                StoreColumnRuns(values, cslots + bb * 6, 6, m, cb);
            else
                AddColumnRuns(values, cslots + bb * 6, 6, m, cb);
        }
    };
    if (m == 3 && pv_zero) {
        // Three position-level rows (a spherical joint): 3x3 blocks with rotation.hpp's product,
        // phi_q read coefficient by coefficient (the values of the lines above without Eigen's
        // 3-row packet stalls and the store-forwarding stalls of its 3x3 block copies).
        const double* pq = b.phi_q.data();
        for (int bb = 0; bb < k; ++bb) {
            const NodeData& nb = nodes_[ed.node[bb]];
            const double* Pl = pq + static_cast<std::ptrdiff_t>(6 * bb) * ldc;
            const double* Pr = Pl + 3 * ldc;
            // c (Pr G) as Eigen evaluates it: the scalar moved into the left factor.
            Mat3 cPr;
            for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 3; ++i) cPr(i, j) = c * Pr[j * ldc + i];
            Mat3 PG;
            Mul3(cPr, nb.G, PG);
            const int* cs = cslots + bb * 6;
            for (int j = 0; j < 3; ++j) {
                double* v = values + cs[j];
                double* w = values + cs[3 + j];
                if (store)
                    for (int i = 0; i < 3; ++i) {
                        v[i] = 0.0 + -(c * Pl[j * ldc + i]) * scale[i];
                        w[i] = 0.0 + -PG(i, j) * scale[i];
                    }
                else
                    for (int i = 0; i < 3; ++i) {
                        v[i] += -(c * Pl[j * ldc + i]) * scale[i];
                        w[i] += -PG(i, j) * scale[i];
                    }
            }
        }
    } else if (m == 3) {
        map_rows(std::integral_constant<int, 3>{});
    } else {
        map_rows(std::integral_constant<int, Eigen::Dynamic>{});
    }
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

void CgrFormulation::Update(const Eigen::VectorXd& delta, double c) {
    // Differential dofs (the nodes') come first, the multipliers after them.
    const int nm = n_ - node_dofs_;
    if (eliminate_) {
        // x', g' of every node (their state indices from unknowns_, a dense array, rather
        // than from each NodeData); the momenta follow at the next elimination.
        const int* u = unknowns_.data();
        double* yp = yp_.data();
        double* y = y_.data();
        const double* d = delta.data();
        for (int k = 0; k < node_rows_; ++k) {
            yp[u[k]] += d[k];
            y[u[k]] += c * d[k];
        }
    } else {
        yp_.head(node_dofs_) += delta.head(node_dofs_);
        y_.head(node_dofs_) += c * delta.head(node_dofs_);
    }
    y_.tail(nm) += delta.tail(nm);
    last_c_ = c;
    states_dirty_ = true;
}

void CgrFormulation::BeforePredict(std::vector<Eigen::VectorXd>& yh,
                                   std::vector<Eigen::VectorXd>& yph, int chart) {
    // MBDyn's variant re-references every point to the last solved one.
    if (rereference_at_prediction_) chart = 0;
    // Per node, writing only the node's own rows of the history (parallel, disjoint).
    Parallel([&] {
        ForEachNode([&](size_t i) {
            NodeData& nd = nodes_[i];
            const size_t n = std::min(yh.size(), past_.size());
            const size_t k = std::min(static_cast<size_t>(chart), past_.size() - 1);
            const Mat3 Rt_chart = past_.at(k, i).R.transpose();
            for (size_t j = 0; j < n; ++j) {
                const PastPoint& pj = past_.at(j, i);
                if (j == k) {
                    yh[j].segment<3>(nd.offset + 3).setZero();
                    yph[j].segment<3>(nd.offset + 3) = pj.w;
                } else {
                    const Vec3 g = ChartFromRotation(rotation_vector_, pj.R * Rt_chart);
                    yh[j].segment<3>(nd.offset + 3) = g;
                    yph[j].segment<3>(nd.offset + 3) = ChartGInverse(rotation_vector_, g) * pj.w;
                }
            }
            nd.R_ref = past_.at(k, i).R;
            nd.w_ref.setZero();
            InvalidateNodeCaches(nd);
        });
    });
    states_dirty_ = true;
}

void CgrFormulation::AfterPredict() {
    if (!rereference_at_prediction_) {
        // The correction stays in parameters relative to R_{N-1}: R = R(g) R_{N-1},
        // w = G(g) g', with g = g_p + c (g' - g'_p) additive, so the converged point satisfies
        // the integration formula in g exactly and does not depend on the predictor.
        for (NodeData& nd : nodes_) nd.elim_valid = false;  // momenta: from the prediction
        states_dirty_ = true;
        return;
    }
    // MBDyn: the prediction becomes the reference and g, g' restart at zero; the correction
    // is composed with the prediction, which makes the converged point depend on it.
    for (NodeData& nd : nodes_) {
        const Vec3 g = y_.segment<3>(nd.offset + 3);
        const Vec3 gp = yp_.segment<3>(nd.offset + 3);
        nd.w_ref = ChartG(rotation_vector_, g) * gp + ChartRotation(rotation_vector_, g) * nd.w_ref;
        nd.R_ref = ChartRotation(rotation_vector_, g) * nd.R_ref;
        InvalidateNodeCaches(nd);
        y_.segment<3>(nd.offset + 3).setZero();
        yp_.segment<3>(nd.offset + 3).setZero();
    }
    states_dirty_ = true;
}

void CgrFormulation::AfterConvergence() {
    if (eliminate_ && states_dirty_) {
        // Newton may stop on the increment test right after Update: the momenta follow the
        // converged unknowns (as in every Residual, with the c of the last one). (Not dirty: the
        // last pass eliminated them at this y, y' and c; every node would skip.)
        Parallel([&] {
            ForEachNode([&](size_t i) {
                UpdateNodeState(i);
                if (nodes_[i].dynamic) EliminateMomenta(i, last_c_);
            });
        });
        states_dirty_ = false;
    }
    ComputeStates();
    past_.advance();
    if (static_) {
        // The nodes' states carry zero velocities; the history keeps the rate of the load
        // path, w = G(g) g' + R(g) w_ref (the w of UpdateNodeState), for the predictor.
        for (size_t i = 0; i < nodes_.size(); ++i) {
            const NodeData& nd = nodes_[i];
            const Vec3 g = y_.segment<3>(nd.offset + 3);
            const Vec3 gp = yp_.segment<3>(nd.offset + 3);
            const Vec3 w = Mul3(ChartG(rotation_vector_, g), gp) +
                           Mul3(ChartRotation(rotation_vector_, g), nd.w_ref);
            past_.front(i) = PastPoint{states_[i].R, w};
        }
        return;
    }
    for (size_t i = 0; i < nodes_.size(); ++i)
        past_.front(i) = PastPoint{states_[i].R, states_[i].w};
}

void CgrFormulation::RestoreLastSolved() {
    for (size_t i = 0; i < nodes_.size(); ++i) {
        nodes_[i].R_ref = past_.at(0, i).R;
        nodes_[i].w_ref.setZero();
        InvalidateNodeCaches(nodes_[i]);
    }
    states_dirty_ = true;
}

std::string CgrFormulation::DescribeEquation(int row) const {
    static const char* kNodeRows[12] = {
        "force x",    "force y",           "force z",           "moment x",
        "moment y",   "moment z",          "momentum x",        "momentum y",
        "momentum z", "momentum moment x", "momentum moment y", "momentum moment z"};
    if (eliminate_ && row >= 0 && row < nu_) row = unknowns_[row];  // Newton -> state numbering
    std::ostringstream os;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const int k = nodes_[i].dynamic ? kDynamicDofs : kStaticDofs;
        if (row >= nodes_[i].offset && row < nodes_[i].offset + k) {
            os << "structural node " << model_.nodes()[i].label << ", "
               << kNodeRows[row - nodes_[i].offset];
            return os.str();
        }
    }
    const auto& elems = model_.elements();
    for (size_t e = 0; e < elements_.size(); ++e) {
        const ElementData& ed = elements_[e];
        if (ed.m > 0 && row >= ed.mult_offset && row < ed.mult_offset + ed.m) {
            return DescribeConstraintRow(*elems[e], row - ed.mult_offset);
        }
    }
    os << "equation " << row;
    return os.str();
}

Invariants CgrFormulation::ComputeInvariants() const {
    ComputeStates();
    Invariants inv;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        AddNodeInvariants(nd.inertia, states_[i], inv);
    }
    const auto& elems = model_.elements();
    ElementBlock& b = scratch_.local();
    const Vec3 gravity = Gravity();
    for (size_t e = 0; e < elems.size(); ++e) {
        ElementContext ctx{t_, state_ptrs_.data() + state_ptr_offset_[e],
                           multipliers(static_cast<int>(e)), gravity};
        inv.potential += elems[e]->PotentialEnergy(ctx);
        if (elements_[e].m > 0) {
            EvaluateElement(static_cast<int>(e), b, false, gravity);
            for (int j = 0; j < elements_[e].m; ++j)
                if (elems[e]->row_level(j) == ConstraintLevel::kPosition)
                    inv.constraint_violation =
                        std::max(inv.constraint_violation, std::abs(b.phi[j]));
        }
    }
    return inv;
}

// Initial derivatives, solved at acceleration level (exact, no regularisation): with the
// node accelerations a, alpha and the multipliers as unknowns,
//   [m I, -skew(S); skew(S), J] (a; alpha) - L lambda = f_app - (w x (w x S);
//                                            v x beta + (w x S) x v + w x (J w))
//   phi_q (a; alpha) = -d2/dtau2 phi(q(tau), t0 + tau)   (position-level constraints)
//   phi_v (a; alpha) = -d/dtau phi(q(tau), v, t0 + tau)  (velocity-level constraints)
// where q(tau) moves with the constant initial twist; the tau-derivatives of phi are central
// differences of phi_q v + phi_t. Then beta' = m a + alpha x S + w x (w x S) and
// gamma' = (w x S) x v + S x a + J alpha + w x (J w). MBDyn's regularised derivative phase
// omits the velocity-product terms (its multipliers miss centripetal contributions); the
// `derivatives ...` statements are accepted and this exact solve replaces it.
int CgrFormulation::SolveInitialDerivatives(const SolverSettings& /*s*/, double /*h*/) {
    // A static model has no initial derivatives: its load path starts at rest (y' = 0, set at
    // construction), and the multipliers stay 0 until the first step's equilibrium (the
    // initial configuration need not be one).
    if (static_) return 0;
    ComputeStates();
    const auto& elems = model_.elements();
    const int nn = static_cast<int>(nodes_.size());
    const int node_dofs = 6 * nn;
    int nm = 0;
    std::vector<int> moff(elems.size(), -1);
    for (size_t e = 0; e < elems.size(); ++e)
        if (elements_[e].m > 0) {
            moff[e] = node_dofs + nm;
            nm += elements_[e].m;
        }
    const int N = node_dofs + nm;
    std::vector<Eigen::Triplet<double>> trip;
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(N);
    for (int i = 0; i < nn; ++i) {
        const NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        const FrameState& s = states_[i];
        const Vec3 S = s.R * nd.inertia.s;
        const Mat3 J = s.R * nd.inertia.J * s.R.transpose();
        Mat6 M;
        M << nd.inertia.m * Mat3::Identity(), -Skew(S), Skew(S), J;
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 6; ++c)
                if (M(r, c) != 0.0) trip.emplace_back(6 * i + r, 6 * i + c, M(r, c));
        const Vec3 beta = nd.inertia.m * s.v + s.w.cross(S);
        rhs.segment<3>(6 * i) -= s.w.cross(s.w.cross(S));
        rhs.segment<3>(6 * i + 3) -= s.v.cross(beta) + s.w.cross(S).cross(s.v) + s.w.cross(J * s.w);
    }
    // Element loads with lambda = 0 (f is affine in lambda: f = f_app + L lambda).
    ElementBlock b;
    std::vector<double> zero_lambda(ElementBlock::kMaxMultipliers, 0.0);
    const Vec3 grav = Gravity();
    for (size_t e = 0; e < elems.size(); ++e) {
        const Element& el = *elems[e];
        if (!el.HasContribution() && elements_[e].m == 0) continue;
        const auto& en = el.nodes();
        const int k = static_cast<int>(en.size());
        const int m = elements_[e].m;
        ElementContext ctx{t_, state_ptrs_.data() + state_ptr_offset_[e], zero_lambda.data(), grav};
        b.Reset(k, m, true);
        el.Evaluate(ctx, b);
        for (int a = 0; a < k; ++a) {
            rhs.segment<6>(6 * en[a]) += b.f.segment<6>(6 * a);
            for (int r = 0; r < 6; ++r)
                for (int j = 0; j < m; ++j)
                    if (b.L(6 * a + r, j) != 0.0)
                        trip.emplace_back(6 * en[a] + r, moff[e] + j, -b.L(6 * a + r, j));
        }
        if (m == 0) continue;
        // Velocity-level rows differentiate once (phi_v), position-level rows twice (phi_q).
        std::vector<bool> velocity_row(m);
        bool any_velocity = false, any_position = false;
        for (int j = 0; j < m; ++j) {
            velocity_row[j] = el.row_level(j) == ConstraintLevel::kVelocity;
            (velocity_row[j] ? any_velocity : any_position) = true;
        }
        for (int j = 0; j < m; ++j) {
            const auto& G = velocity_row[j] ? b.phi_v : b.phi_q;
            for (int a = 0; a < k; ++a)
                for (int c = 0; c < 6; ++c)
                    if (G(j, 6 * a + c) != 0.0)
                        trip.emplace_back(moff[e] + j, 6 * en[a] + c, G(j, 6 * a + c));
        }
        // psi(tau) = phi_q v + phi_t along the constant-twist motion.
        std::vector<FrameState> moved(k);
        std::vector<const FrameState*> ptr(k);
        auto psi = [&](double tau) {
            for (int a = 0; a < k; ++a) {
                const FrameState& s = states_[en[a]];
                moved[a] = s;
                moved[a].x = s.x + tau * s.v;
                moved[a].R = so3::Exp(tau * s.w) * s.R;
                ptr[a] = &moved[a];
            }
            Eigen::VectorXd vt(6 * k);
            for (int a = 0; a < k; ++a) vt.segment<6>(6 * a) << moved[a].v, moved[a].w;
            ElementBlock bb;
            ElementContext c2{t_ + tau, ptr.data(), zero_lambda.data(), grav};
            bb.Reset(k, m, true);
            el.Evaluate(c2, bb);
            Eigen::VectorXd out = bb.phi_q * vt;
            const double eps = 1e-6;
            ElementBlock bp, bm;
            c2.t = t_ + tau + eps;
            bp.Reset(k, m, false);
            el.Evaluate(c2, bp);
            c2.t = t_ + tau - eps;
            bm.Reset(k, m, false);
            el.Evaluate(c2, bm);
            out += (bp.phi - bm.phi) / (2 * eps);
            return out;
        };
        Eigen::VectorXd acc = Eigen::VectorXd::Zero(m), first;
        if (any_velocity) first = psi(0.0);
        if (any_position) {
            // Central differences with Richardson extrapolation (error O(d^4)); d scaled so
            // that the rotation over d stays ~1e-3 rad.
            double wmax = 1.0;
            for (int a = 0; a < k; ++a) wmax = std::max(wmax, states_[en[a]].w.norm());
            const double d = 1e-3 / wmax;
            const Eigen::VectorXd d1 = (psi(d) - psi(-d)) / (2 * d);
            const Eigen::VectorXd d2 = (psi(0.5 * d) - psi(-0.5 * d)) / d;
            acc = (4.0 * d2 - d1) / 3.0;
        }
        for (int j = 0; j < m; ++j)
            if (velocity_row[j]) acc[j] = first[j];
        rhs.segment(moff[e], m) -= acc;
    }
    Eigen::SparseMatrix<double> A(N, N);
    A.setFromTriplets(trip.begin(), trip.end());
    A.makeCompressed();
    std::vector<Eigen::Triplet<double>>().swap(trip);
    // The steps' solver (`auto`): each dynamic node's 6x6 mass block is eliminated and the
    // multipliers' Schur complement G M^-1 L factored (schur_solver.cpp). A general sparse LU
    // (Eigen's SparseLU, COLAMD) set the run's peak memory on the 100000-link chain
    // (docs/PERFORMANCE.md, "Scale: 100 000-link chain").
    const std::unique_ptr<LinearSolver> lu = MakeLinearSolver("auto");
    lu->Analyze(A);
    if (!lu->Factor(A)) {
        // The constraint rows (node columns only) say whether constraints are redundant.
        const Eigen::SparseMatrix<double> G = A.block(node_dofs, 0, nm, node_dofs);
        auto owner = [&](int row) {
            for (size_t e = 0; e < elems.size(); ++e)
                if (moff[e] >= 0 && node_dofs + row >= moff[e] &&
                    node_dofs + row < moff[e] + elements_[e].m)
                    return ElementRowOwner(*elems[e], node_dofs + row - moff[e]);
            return ConstraintRowOwner{"constraint row " + std::to_string(row + 1), 0};
        };
        throw RunError(SingularSystemMessage(
            "initial derivatives: singular system at t = " + std::to_string(t_), G, owner,
            "no redundant constraint rows: a static node without stiffness in some direction?"));
    }
    Eigen::VectorXd sol = rhs;
    lu->Solve(sol);
    if (!sol.allFinite()) throw RunError("initial derivatives: non-finite solution");
    for (int i = 0; i < nn; ++i) {
        const NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        const FrameState& s = states_[i];
        const Vec3 S = s.R * nd.inertia.s;
        const Mat3 J = s.R * nd.inertia.J * s.R.transpose();
        const Vec3 a = sol.segment<3>(6 * i), alpha = sol.segment<3>(6 * i + 3);
        yp_.segment<3>(nd.offset + 6) = nd.inertia.m * a + alpha.cross(S) + s.w.cross(s.w.cross(S));
        yp_.segment<3>(nd.offset + 9) =
            s.w.cross(S).cross(s.v) + S.cross(a) + J * alpha + s.w.cross(J * s.w);
    }
    for (size_t e = 0; e < elems.size(); ++e)
        if (elements_[e].m > 0)
            y_.segment(elements_[e].mult_offset, elements_[e].m) =
                sol.segment(moff[e], elements_[e].m);
    for (NodeData& nd : nodes_) nd.elim_valid = false;
    states_dirty_ = true;
    return 1;
}

}  // namespace mbstep::cgr
