// mbstep — formulation `cgr` (equations in cgr_formulation.hpp): an element's K, C and
// constraint blocks mapped to the (x', g') columns of the iteration matrix: the full 6x6
// mapping of a node pair, the quadrant-by-quadrant one for elements that declare zero
// quadrants, and the multiplier rows and columns.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cgr_formulation.hpp"
#include "cgr_internal.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::cgr {

namespace {

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
}  // namespace

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

}  // namespace mbstep::cgr
