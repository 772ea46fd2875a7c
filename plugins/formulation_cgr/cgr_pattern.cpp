// mbstep — formulation `cgr` (equations in cgr_formulation.hpp): the sparsity pattern of the
// iteration matrix in Newton numbering, and the value indices (slots) the node and element
// passes write.
#include <vector>

#include "cgr_formulation.hpp"
#include "cgr_internal.hpp"
#include "mbstep/assembly/assembly.hpp"

namespace mbstep::cgr {

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
            // A block of one node with itself is the node's own 6x6, added above: only the
            // blocks between different nodes are new (fewer repeats for Build to sort out).
            for (size_t ib = 0; ib < en.size(); ++ib)
                if (en[ib] != a && HasPairBlock(ed, static_cast<int>(ia), static_cast<int>(ib)))
                    pb.AddBlock(nodes_[a].row, 6, nodes_[en[ib]].row, 6);
            if (ed.m > 0) {
                pb.AddBlock(nodes_[a].row, 6, ed.mult_row, ed.m);
                pb.AddBlock(ed.mult_row, ed.m, nodes_[a].row, 6);
            }
        }
        if (ed.m > 0 && en.empty()) pb.AddBlock(ed.mult_row, ed.m, ed.mult_row, ed.m);
    }
    {
        // Swapped in: Eigen 3.4's SparseMatrix has no move assignment (a copy of the pattern).
        Eigen::SparseMatrix<double> built = pb.Build();
        pattern_.swap(built);
    }

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

}  // namespace mbstep::cgr
