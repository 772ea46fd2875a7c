// mbstep — formulation `cgr` (equations in cgr_formulation.hpp): the chart of the rotation
// increments, the node states and rotation maps at y, y' (and the momenta of `cgr velocity`
// from its unknowns), and the history of solved orientations re-referenced for the predictor.
#include <algorithm>
#include <cstring>

#include "cgr_formulation.hpp"
#include "cgr_schedule.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

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
}  // namespace

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

void CgrFormulation::ComputeStates() const {
    if (!states_dirty_) return;
    Parallel([&] { ForEachNode([&](size_t i) { UpdateNodeState(i); }); });
    states_dirty_ = false;
}

const std::vector<FrameState>& CgrFormulation::node_states() const {
    ComputeStates();
    return states_;
}

void CgrFormulation::BeforePredict(std::vector<Eigen::VectorXd>& yh,
                                   std::vector<Eigen::VectorXd>& yph, int chart) {
    // MBDyn's variant re-references every point to the last solved one.
    if (rereference_at_prediction_) chart = 0;
    past_.need(std::max(yh.size(), static_cast<size_t>(chart) + 1));
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

}  // namespace mbstep::cgr
