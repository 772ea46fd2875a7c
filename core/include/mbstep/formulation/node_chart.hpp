// mbstep — the element map of the second-order formulations over a node chart (docs/DESIGN.md,
// "The element contract"). An element writes its generalized force f_el, K = -df_el/dq_tw,
// C = -df_el/dv_tw, L and phi_q in twist space; a formulation whose node coordinates q have the
// chart P (twist increment = P dq) and the rate map W = d(twist rate)/dq at fixed coordinate
// rates turns them into its own rows f = -P^T f_el:
//   df/dq = P^T (K P + C W) - d(P^T M)/dq |_M (on the node's own block; M the element's moment
//   on the node), df/dq' = P^T C P, the multiplier columns -P^T L, the constraint rows phi_q P.
// `euler angles` and `euler parameters` are charts of this form (their At and
// SubtractMomentDerivative); the element loop is written once, here.
#pragma once

#include <array>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order_base.hpp"
#include "mbstep/model/element.hpp"

namespace mbstep {

/// A node's chart at the current coordinates and rates: the node's first coordinate, P and W
/// (6 x N: rows dx, then the spatial rotation increment).
template <int N>
struct NodeChartPoint {
    int offset{0};
    Eigen::Matrix<double, 6, N> P, W;
};

/// Subtracts one element's generalized force, evaluated into `b`, from the rows f of its nodes
/// (f -= P^T f_el: the translation rows, then `chart.AddRotationRows(node, M, f)` adding the
/// rotation rows' -P_rot^T M) and writes its constraint rows into phi.
template <class Chart>
void AddElementResidual(const Chart& chart, const std::vector<int>& nodes, const ElementBlock& b,
                        const ElementSlot& slot, Eigen::VectorXd& f, Eigen::VectorXd& phi) {
    for (size_t k = 0; k < nodes.size(); ++k) {
        const int o = chart.Offset(nodes[k]);
        f.segment<3>(o) -= b.f.segment<3>(6 * k);
        chart.SubtractRotationRows(o, b.f.segment<3>(6 * k + 3), f);
    }
    for (int j = 0; j < slot.m; ++j) phi[slot.mult_offset + j] = b.phi[j];
}

/// Adds the Jacobian blocks of one element, evaluated with want_jacobian into `b`, whose nodes
/// are `nodes` and whose multipliers `slot` numbers, to `pieces` (K, C, L, B). `Chart` provides
///   static constexpr int kCoords;  // N, the coordinates per node
///   using Point = ...;             // NodeChartPoint<N> or a type derived from it
///   Point At(int node) const;      // the chart at the node's current coordinates and rates
///   void SubtractMomentDerivative(const Point& p, const Vec3& M,
///                                 Eigen::Matrix<double, N, N>& Kb) const;  // Kb -= d(P^T M)/dq
/// and, for AddElementResidual,
///   int Offset(int node) const;    // the node's first coordinate
///   void SubtractRotationRows(int offset, const Vec3& M, Eigen::VectorXd& f) const;
///                                  // f's rotation rows of the node at `offset` -= P_rot^T M
/// Blocks between two nodes are written only where the element declares them.
template <class Chart>
void AddElementJacobians(const Chart& chart, const std::vector<int>& nodes, const ElementBlock& b,
                         const ElementSlot& slot, JacobianPieces& pieces) {
    constexpr int N = Chart::kCoords;
    using MatN = Eigen::Matrix<double, N, N>;
    const int nk = static_cast<int>(nodes.size());
    std::array<typename Chart::Point, ElementBlock::kMaxNodes> pt;
    for (int c = 0; c < nk; ++c) pt[c] = chart.At(nodes[c]);
    for (int r = 0; r < nk; ++r) {
        const auto& Pr = pt[r].P;
        for (int c = 0; c < nk; ++c) {
            if (r != c && !((b.k_blocks | b.c_blocks) & ElementBlock::Pair(r, c))) continue;
            const Mat6 Kel = b.K.block<6, 6>(6 * r, 6 * c);
            const Mat6 Cel = b.C.block<6, 6>(6 * r, 6 * c);
            MatN Kb = Pr.transpose() * (Kel * pt[c].P + Cel * pt[c].W);
            if (r == c) {
                const Vec3 M = b.f.segment<3>(6 * r + 3);
                chart.SubtractMomentDerivative(pt[r], M, Kb);
            }
            pieces.K.AddBlock(pt[r].offset, pt[c].offset, Kb);
            pieces.C.AddBlock(pt[r].offset, pt[c].offset, Pr.transpose() * Cel * pt[c].P);
        }
        if (slot.m > 0)
            pieces.L.AddBlock(pt[r].offset, slot.mult_offset,
                              -Pr.transpose() * b.L.middleRows<6>(6 * r));
    }
    for (int c = 0; c < nk && slot.m > 0; ++c)
        pieces.B.AddBlock(slot.mult_offset, pt[c].offset, b.phi_q.middleCols<6>(6 * c) * pt[c].P);
}

template <class Chart>
void SecondOrderFormulationBase::AddElementResiduals(const Chart& chart,
                                                     const Eigen::VectorXd& lambda,
                                                     Eigen::VectorXd& f,
                                                     Eigen::VectorXd& phi) const {
    const auto& elems = model_.elements();
    ElementBlock& b = block_;
    for (int e : active_elements_) {
        const Element& el = *elems[e];
        b.Reset(static_cast<int>(el.nodes().size()), elements_[e].m, false);
        el.Evaluate(Context(e, lambda.data()), b);
        AddElementResidual(chart, el.nodes(), b, elements_[e], f, phi);
    }
}

template <class Chart>
void SecondOrderFormulationBase::AddElementJacobians(const Chart& chart,
                                                     const Eigen::VectorXd& lambda) {
    const auto& elems = model_.elements();
    ElementBlock& b = block_;
    for (int e : active_elements_) {
        const Element& el = *elems[e];
        b.Reset(static_cast<int>(el.nodes().size()), elements_[e].m, true);
        el.Evaluate(Context(e, lambda.data()), b);
        mbstep::AddElementJacobians(chart, el.nodes(), b, elements_[e], pieces_);
    }
}

}  // namespace mbstep
