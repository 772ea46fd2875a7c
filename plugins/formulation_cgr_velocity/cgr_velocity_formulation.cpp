// mbstep — formulation `cgr velocity` (equations in cgr_velocity_formulation.hpp).
#include "cgr_velocity_formulation.hpp"

#include <algorithm>

#include "mbstep/assembly/assembly.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::cgr {

CgrVelocityFormulation::CgrVelocityFormulation(const Model& model, bool scale_rows)
    : cgr_(model), scale_rows_(scale_rows) {
    const int n = cgr_.num_dofs();
    y_ = cgr_.y();
    yp_ = cgr_.yp();
    zero_.setZero(n);
    full_ = cgr_.pattern();

    // Inertia attached to nodes by bodies (node frame), as cgr sums it.
    const auto& mnodes = model.nodes();
    std::vector<NodeInertia> inertia(mnodes.size());
    for (const auto& e : model.elements()) {
        std::vector<NodeInertia> local(e->nodes().size());
        e->AddInertia(local);
        for (size_t k = 0; k < local.size(); ++k) inertia[e->nodes()[k]] += local[k];
    }

    // Newton unknowns: every state dof except the momenta (offset + 6 .. + 11 of a dynamic node).
    std::vector<int> reduced(n, -1);
    std::vector<bool> eliminated(n, false);
    for (size_t i = 0; i < mnodes.size(); ++i) {
        if (mnodes[i].kind != NodeKind::kDynamic) continue;
        DynamicNode d;
        d.node = static_cast<int>(i);
        d.offset = cgr_.node_offset(static_cast<int>(i));
        d.inertia = inertia[i];
        for (int j = 6; j < 12; ++j) eliminated[d.offset + j] = true;
        dynamic_.push_back(d);
    }
    for (int k = 0; k < n; ++k)
        if (!eliminated[k]) {
            reduced[k] = static_cast<int>(unknowns_.size());
            unknowns_.push_back(k);
        }
    const int m = static_cast<int>(unknowns_.size());

    // Reduced pattern: cgr's without the momentum rows and columns.
    std::vector<Eigen::Triplet<double>> trip;
    for (int col = 0; col < full_.outerSize(); ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(full_, col); it; ++it)
            if (reduced[it.row()] >= 0 && reduced[col] >= 0)
                trip.emplace_back(reduced[it.row()], reduced[col], 0.0);
    pattern_.resize(m, m);
    pattern_.setFromTriplets(trip.begin(), trip.end());
    pattern_.makeCompressed();
    // Value copy as runs contiguous in both matrices (the momentum rows cut each column of a
    // dynamic node into at most a few runs).
    for (int col = 0; col < pattern_.outerSize(); ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(pattern_, col); it; ++it) {
            const int dst = static_cast<int>(&it.value() - pattern_.valuePtr());
            const int src = PatternSlot(full_, unknowns_[it.row()], unknowns_[col]);
            if (!runs_.empty() && runs_.back().dst + runs_.back().len == dst &&
                runs_.back().src + runs_.back().len == src)
                ++runs_.back().len;
            else
                runs_.push_back({dst, src, 1});
        }
    // Values in the force and moment rows of dynamic nodes (scaled by c), as runs.
    std::vector<bool> scaled(m, false);
    for (const DynamicNode& d : dynamic_)
        for (int j = 0; j < 6; ++j) scaled[reduced[d.offset] + j] = true;
    for (int k = 0; k < pattern_.nonZeros(); ++k)
        if (scaled[pattern_.innerIndexPtr()[k]]) {
            if (!scaled_runs_.empty() &&
                scaled_runs_.back().first + scaled_runs_.back().second == k)
                ++scaled_runs_.back().second;
            else
                scaled_runs_.emplace_back(k, 1);
        }
    for (DynamicNode& d : dynamic_) {
        d.reduced_offset = reduced[d.offset];
        for (int j = 0; j < 12; ++j) d.full_slots[j] = PatternSlot(full_, d.offset, d.offset + j);
        for (int j = 0; j < 6; ++j)
            d.reduced_slots[j] = PatternSlot(pattern_, d.reduced_offset, d.reduced_offset + j);
    }
    full_r_.setZero(n);
}

bool CgrVelocityFormulation::Sync() const {
    if (y_ == cgr_.y() && yp_ == cgr_.yp()) return false;
    cgr_.y() = y_;
    cgr_.yp() = yp_;
    cgr_.Update(zero_, 0.0);  // no change; marks the evaluator's node states stale
    return true;
}

void CgrVelocityFormulation::EliminateMomenta(double c) {
    last_c_ = c;
    if (!Sync() && c == eliminated_c_) return;
    eliminated_c_ = c;
    const std::vector<FrameState>& states = cgr_.node_states();
    for (const DynamicNode& d : dynamic_) {
        const FrameState& s = states[d.node];
        const Vec3 S = s.R * d.inertia.s;
        const Mat3 J = s.R * d.inertia.J * s.R.transpose();
        Eigen::Matrix<double, 6, 1> p;
        p << d.inertia.m * s.v + s.w.cross(S), S.cross(s.v) + J * s.w;
        const Eigen::Matrix<double, 6, 1> history =
            y_.segment<6>(d.offset + 6) - c * yp_.segment<6>(d.offset + 6);
        y_.segment<6>(d.offset + 6) = p;
        yp_.segment<6>(d.offset + 6) = (p - history) / c;
        cgr_.y().segment<6>(d.offset + 6) = p;
        cgr_.yp().segment<6>(d.offset + 6) = yp_.segment<6>(d.offset + 6);
    }
}

const std::vector<FrameState>& CgrVelocityFormulation::node_states() const {
    Sync();
    return cgr_.node_states();
}

const double* CgrVelocityFormulation::multipliers(int element) const {
    const double* p = cgr_.multipliers(element);
    return p ? y_.data() + (p - cgr_.y().data()) : nullptr;
}

Invariants CgrVelocityFormulation::ComputeInvariants() const {
    Sync();
    return cgr_.ComputeInvariants();
}

void CgrVelocityFormulation::Residual(double c, Eigen::VectorXd& r) {
    EliminateMomenta(c);
    cgr_.Residual(c, full_r_);
    r.resize(static_cast<Eigen::Index>(unknowns_.size()));
    for (size_t k = 0; k < unknowns_.size(); ++k) r[k] = full_r_[unknowns_[k]];
    if (scale_rows_)
        for (const DynamicNode& d : dynamic_) r.segment<6>(d.reduced_offset) *= c;
}

void CgrVelocityFormulation::Jacobian(double c, Eigen::SparseMatrix<double>& J) {
    EliminateMomenta(c);
    cgr_.Jacobian(c, full_);
    const double* fv = full_.valuePtr();
    double* v = J.valuePtr();
    for (const Run& run : runs_) std::copy_n(fv + run.src, run.len, v + run.dst);
    // Schur complement of the momentum rows (3), (4), whose block in the momentum columns is
    // c I: J_uu -= J_um J_mu / c on each dynamic node's own block.
    for (const DynamicNode& d : dynamic_) {
        Eigen::Matrix<double, 6, 6> Jum, Jmu;
        for (int j = 0; j < 6; ++j) {
            Jum.col(j) = Eigen::Map<const Eigen::Matrix<double, 6, 1>>(fv + d.full_slots[6 + j]);
            Jmu.col(j) = Eigen::Map<const Eigen::Matrix<double, 6, 1>>(fv + d.full_slots[j] + 6);
        }
        const Eigen::Matrix<double, 6, 6> corr = Jum * Jmu / c;
        for (int j = 0; j < 6; ++j)
            Eigen::Map<Eigen::Matrix<double, 6, 1>>(v + d.reduced_slots[j]) -= corr.col(j);
    }
    if (scale_rows_)
        for (const auto& [start, len] : scaled_runs_)
            for (int k = start; k < start + len; ++k) v[k] *= c;
}

void CgrVelocityFormulation::Update(const Eigen::VectorXd& delta, double c) {
    const auto& kinds = cgr_.dof_kinds();
    for (size_t k = 0; k < unknowns_.size(); ++k) {
        const int i = unknowns_[k];
        if (kinds[i] == DofKind::kDifferential) {
            yp_[i] += delta[k];
            y_[i] += c * delta[k];
        } else {
            y_[i] += delta[k];
        }
    }
    last_c_ = c;  // the momenta follow at the next Residual (Newton ends with one)
}

void CgrVelocityFormulation::AfterConvergence() {
    EliminateMomenta(last_c_);
    cgr_.AfterConvergence();
}

int CgrVelocityFormulation::SolveInitialDerivatives(const SolverSettings& s, double h) {
    Sync();
    eliminated_c_ = 0.0;
    const int it = cgr_.SolveInitialDerivatives(s, h);
    y_ = cgr_.y();
    yp_ = cgr_.yp();
    return it;
}

}  // namespace mbstep::cgr
