// mbstep — formulation `lie group` (equations in lie_group_formulation.hpp).
#include "lie_group_formulation.hpp"

#include <Eigen/SparseLU>
#include <algorithm>
#include <sstream>

#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

namespace mbstep::lie_group {

namespace {
using Mat6 = Eigen::Matrix<double, 6, 6>;

}  // namespace

LieGroupFormulation::LieGroupFormulation(const Model& model)
    : SecondOrderFormulationBase(model, "lie group") {
    const auto& mnodes = model.nodes();
    nv_ = 6 * nn_;
    nc_ = num_element_multipliers_;

    // Initial configuration and twists.
    q_.setZero(12 * nn_);
    for (int i = 0; i < nn_; ++i) {
        const FrameState& s0 = mnodes[i].initial;
        q_.segment<3>(12 * i) = s0.x;
        Eigen::Map<Mat3>(q_.data() + 12 * i + 3) = s0.R;
        states_[i] = s0;
    }
    lambda_.setZero(nc_);
}

void LieGroupFormulation::set_q(const Eigen::VectorXd& q) {
    q_ = q;
    for (int i = 0; i < nn_; ++i) {
        states_[i].x = q_.segment<3>(12 * i);
        states_[i].R = Rotation(q_, i);
    }
}

// Velocities (u, W) -> node twists (u, R W).
void LieGroupFormulation::UpdateStates(const Eigen::VectorXd& v) {
    for (int i = 0; i < nn_; ++i) {
        FrameState& s = states_[i];
        s.x = q_.segment<3>(12 * i);
        s.R = Rotation(q_, i);
        s.v = v.segment<3>(6 * i);
        s.w = s.R * v.segment<3>(6 * i + 3);
    }
}

// eq. (4)
void LieGroupFormulation::Retract(const Eigen::VectorXd& q0, const Eigen::VectorXd& dq,
                                  Eigen::VectorXd& q1) const {
    q1.resize(q0.size());
    for (int i = 0; i < nn_; ++i) {
        q1.segment<3>(12 * i) = q0.segment<3>(12 * i) + dq.segment<3>(6 * i);
        Eigen::Map<Mat3>(q1.data() + 12 * i + 3) =
            so3::Orthonormalize(Rotation(q0, i) * so3::Exp(dq.segment<3>(6 * i + 3)));
    }
}

// eq. (5); full 3x3 blocks are always stored (fixed pattern).
void LieGroupFormulation::TangentOperator(const Eigen::VectorXd& dq,
                                          Eigen::SparseMatrix<double>& T) const {
    fT_.Begin(nv_, nv_);
    for (int i = 0; i < nn_; ++i) {
        fT_.AddBlock(6 * i, 6 * i, Mat3::Identity());
        fT_.AddBlock(6 * i + 3, 6 * i + 3, so3::Texp(dq.segment<3>(6 * i + 3)));
    }
    fT_.Finish(T);
}

void LieGroupFormulation::EvaluateElement(int e, ElementBlock& block, bool jacobian) const {
    const Element& el = *model_.elements()[e];
    const ElementContext ctx = Context(e, lambda_.data());
    block.Reset(static_cast<int>(el.nodes().size()), elements_[e].m, jacobian);
    el.Evaluate(ctx, block);
}

void LieGroupFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                   const Eigen::VectorXd& lambda, Eigen::VectorXd& Ma,
                                   Eigen::VectorXd& f, Eigen::VectorXd& phi) {
    UpdateStates(v);
    lambda_ = lambda;
    Ma.setZero(nv_);
    f.setZero(nv_);
    phi.setZero(nc_);
    // Inertia, eqs. (1), (2).
    for (int i = 0; i < nn_; ++i) {
        const NodeInertia& in = inertia_[i];
        const Mat3& R = states_[i].R;
        const Vec3 W = v.segment<3>(6 * i + 3);
        const Vec3 ax = a.segment<3>(6 * i), aW = a.segment<3>(6 * i + 3);
        Ma.segment<3>(6 * i) = in.m * ax - R * in.s.cross(aW);
        Ma.segment<3>(6 * i + 3) = in.s.cross(R.transpose() * ax) + in.J * aW;
        f.segment<3>(6 * i) = R * W.cross(W.cross(in.s));
        f.segment<3>(6 * i + 3) = W.cross(in.J * W);
    }
    // Element loads (2) and constraints (3).
    const auto& elems = model_.elements();
    for (int e : active_elements_) {
        EvaluateElement(e, block_, false);
        const auto& en = elems[e]->nodes();
        for (size_t k = 0; k < en.size(); ++k) {
            const int i = en[k];
            f.segment<3>(6 * i) -= block_.f.segment<3>(6 * k);
            f.segment<3>(6 * i + 3) -= states_[i].R.transpose() * block_.f.segment<3>(6 * k + 3);
        }
        const ElementSlot& ed = elements_[e];
        if (ed.m > 0) phi.segment(ed.mult_offset, ed.m) = block_.phi;
    }
}

void LieGroupFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                   const Eigen::VectorXd& lambda, Jacobians& J) {
    UpdateStates(v);
    lambda_ = lambda;
    pieces_.Begin(nv_, nc_);
    // Inertia blocks (header: derivatives of (1), (2)).
    for (int i = 0; i < nn_; ++i) {
        const NodeInertia& in = inertia_[i];
        const Mat3& R = states_[i].R;
        const Vec3 W = v.segment<3>(6 * i + 3);
        const Vec3 ax = a.segment<3>(6 * i), aW = a.segment<3>(6 * i + 3);
        const Mat3 S = Skew(in.s), Wx = Skew(W);
        Mat6 M, Kq, C, K;
        M << in.m * Mat3::Identity(), -R * S, S * R.transpose(), in.J;
        Kq.setZero();
        Kq.block<3, 3>(0, 3) = -R * Skew(aW.cross(in.s));
        Kq.block<3, 3>(3, 3) = S * Skew(R.transpose() * ax);
        C.setZero();
        C.block<3, 3>(0, 3) = R * (-Skew(W.cross(in.s)) - Wx * S);
        C.block<3, 3>(3, 3) = Wx * in.J - Skew(in.J * W);
        K.setZero();
        K.block<3, 3>(0, 3) = -R * Skew(W.cross(W.cross(in.s)));
        pieces_.M.AddBlock(6 * i, 6 * i, M);
        pieces_.Kq.AddBlock(6 * i, 6 * i, Kq);
        pieces_.C.AddBlock(6 * i, 6 * i, C);
        pieces_.K.AddBlock(6 * i, 6 * i, K);
    }
    // Element blocks, eqs. (6), (7).
    const auto& elems = model_.elements();
    for (int e : active_elements_) {
        EvaluateElement(e, block_, true);
        const auto& en = elems[e]->nodes();
        const int k = static_cast<int>(en.size());
        const ElementSlot& ed = elements_[e];
        for (int p = 0; p < k; ++p) {
            const int i = en[p];
            const Mat3 RiT = states_[i].R.transpose();
            for (int r = 0; r < k; ++r) {
                // Blocks between two nodes only where the element declares them (the others
                // are zero: a hinge couples its nodes only through its multipliers).
                if (p != r && !((block_.k_blocks | block_.c_blocks) & ElementBlock::Pair(p, r)))
                    continue;
                const int j = en[r];
                const Mat3& Rj = states_[j].R;
                const Mat3 RWj = -Rj * Skew(v.segment<3>(6 * j + 3));
                const Mat6 Ke = block_.K.block<6, 6>(6 * p, 6 * r);
                const Mat6 Ce = block_.C.block<6, 6>(6 * p, 6 * r);
                Mat6 Kb, Cb;
                // Columns: diag(I, R_j) and the velocity change diag(0, -R_j skew(W_j)).
                Kb.leftCols<3>() = Ke.leftCols<3>();
                Kb.rightCols<3>() = Ke.rightCols<3>() * Rj + Ce.rightCols<3>() * RWj;
                Cb.leftCols<3>() = Ce.leftCols<3>();
                Cb.rightCols<3>() = Ce.rightCols<3>() * Rj;
                // Rows: P_i^T.
                Kb.bottomRows<3>() = (RiT * Kb.bottomRows<3>()).eval();
                Cb.bottomRows<3>() = (RiT * Cb.bottomRows<3>()).eval();
                if (i == j) Kb.block<3, 3>(3, 3) -= Skew(RiT * block_.f.segment<3>(6 * p + 3));
                pieces_.K.AddBlock(6 * i, 6 * j, Kb);
                pieces_.C.AddBlock(6 * i, 6 * j, Cb);
            }
            if (ed.m > 0) {
                Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, ElementBlock::kMaxMultipliers> Lb =
                    -block_.L.middleRows<6>(6 * p);
                Lb.bottomRows<3>() = (RiT * Lb.bottomRows<3>()).eval();
                pieces_.L.AddBlock(6 * i, ed.mult_offset, Lb);
                Eigen::Matrix<double, Eigen::Dynamic, 6, 0, ElementBlock::kMaxMultipliers, 6> Bb =
                    block_.phi_q.middleCols<6>(6 * p);
                Bb.rightCols<3>() = (Bb.rightCols<3>() * states_[i].R).eval();
                pieces_.B.AddBlock(ed.mult_offset, 6 * i, Bb);
            }
        }
    }
    pieces_.Finish(J);
}

// Initial conditions (header): [M, L; B, 0] (a; lambda) = -(f(lambda = 0); psi'(0)),
// psi(tau) = phi_q v + phi_t along x + tau u, exp(tau skew(w)) R.
void LieGroupFormulation::InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                                            Eigen::VectorXd& lambda) {
    const auto& mnodes = model_.nodes();
    v.setZero(nv_);
    for (int i = 0; i < nn_; ++i) {
        const FrameState& s0 = mnodes[i].initial;
        v.segment<3>(6 * i) = s0.v;
        v.segment<3>(6 * i + 3) = Rotation(q_, i).transpose() * s0.w;
    }
    a.setZero(nv_);
    lambda.setZero(nc_);
    Eigen::VectorXd Ma, f, phi;
    Evaluate(v, a, lambda, Ma, f, phi);
    Jacobians J;
    Evaluate(v, a, lambda, J);
    Eigen::VectorXd rhs_phi = Eigen::VectorXd::Zero(nc_);

    // Velocity-product terms of the constraints: psi'(0) by central differences.
    const auto& elems = model_.elements();
    const Vec3 grav = model_.gravity() ? model_.gravity()->At(t_) : Vec3::Zero();
    for (size_t e = 0; e < elems.size(); ++e) {
        const int m = elements_[e].m;
        if (m == 0) continue;
        const Element& el = *elems[e];
        const auto& en = el.nodes();
        const int k = static_cast<int>(en.size());
        auto psi = [&](double tau) {
            return ConstraintRateAlongMotion(el, states_, t_, tau, grav);
        };
        double wmax = 1.0;
        for (int p = 0; p < k; ++p) wmax = std::max(wmax, states_[en[p]].w.norm());
        const double d = 1e-3 / wmax;
        const Eigen::VectorXd d1 = (psi(d) - psi(-d)) / (2 * d);
        const Eigen::VectorXd d2 = (psi(0.5 * d) - psi(-0.5 * d)) / d;
        rhs_phi.segment(elements_[e].mult_offset, m) = -(4.0 * d2 - d1) / 3.0;
    }
    SolveInitialSystem(J, f, rhs_phi, a, lambda);
    AfterConvergence(v, lambda);
}

void LieGroupFormulation::AfterConvergence(const Eigen::VectorXd& v,
                                           const Eigen::VectorXd& lambda) {
    lambda_ = lambda;
    UpdateStates(v);
}

const std::vector<std::string>& LieGroupFormulation::NodeRowNames() const {
    static const std::vector<std::string> kRows = {
        "force x", "force y", "force z", "moment x (body)", "moment y (body)", "moment z (body)"};
    return kRows;
}

}  // namespace mbstep::lie_group
