// mbstep — formulation `euler angles` (equations in euler_angles_formulation.hpp).
#include "euler_angles_formulation.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseLU>
#include <array>
#include <cmath>
#include <sstream>

#include "mbstep/math/rotation.hpp"

namespace mbstep::euler_angles {

namespace {
constexpr int kNodeCoords = 6;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// Per-node kinematics at (theta, theta'): the maps (2), the partials of Gb, W, c = Gb' theta'.
struct Kin {
    Mat3 R, Gb, Gs, H[3];
    Vec3 W, w, c;
    Kin() = default;
    Kin(const Vec3& th, const Vec3& thd) {
        R = RotationXyz(th);
        Gb = GBody(th);
        Gs = R * Gb;
        for (int k = 0; k < 3; ++k) H[k] = GBodyPartial(th, k);
        W = Gb * thd;
        w = R * W;
        c = Gdot(thd) * thd;
    }
    // sum_k z_k H_k (= Gb' for z = theta').
    Mat3 Gdot(const Vec3& z) const { return z[0] * H[0] + z[1] * H[1] + z[2] * H[2]; }
    // d(Gb z)/dtheta for fixed z.
    Mat3 DG(const Vec3& z) const {
        Mat3 out;
        for (int k = 0; k < 3; ++k) out.col(k) = H[k] * z;
        return out;
    }
    // d(Gb^T y)/dtheta for fixed y.
    Mat3 DGT(const Vec3& y) const {
        Mat3 out;
        for (int k = 0; k < 3; ++k) out.col(k) = H[k].transpose() * y;
        return out;
    }
};

// dc/dtheta, c = sum_k theta'_k H_k theta': column j = sum_k theta'_k d^2Gb/dtheta_k dtheta_j
// theta'.
Mat3 DcDtheta(const Vec3& th, const Vec3& thd) {
    Mat3 out = Mat3::Zero();
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) out.col(j) += thd[k] * (GBodyPartial2(th, k, j) * thd);
    return out;
}

}  // namespace

EulerAnglesFormulation::EulerAnglesFormulation(const Model& model)
    : VectorSpaceFormulationBase(model, "euler angles") {
    const auto& mnodes = model.nodes();
    nv_ = kNodeCoords * nn_;
    nc_ = num_element_multipliers_;
    for (int i = 0; i < nn_; ++i)
        if (mnodes[i].kind == NodeKind::kStatic)
            throw RunError("formulation 'euler angles': static structural node " +
                           std::to_string(mnodes[i].label) +
                           " is not supported (no inertia: the initial acceleration solve is "
                           "singular); use the cgr formulation");

    // Initial configuration: angles from R0, theta' = Gs^-1 w0 (regular unless theta2 is
    // singular, which InitialConditions reports).
    q_.setZero(nv_);
    v_.setZero(nv_);
    lambda_.setZero(nc_);
    for (int i = 0; i < nn_; ++i) {
        const FrameState& s0 = mnodes[i].initial;
        const Vec3 th = AnglesXyz(s0.R);
        const int o = kNodeCoords * i;
        q_.segment<3>(o) = s0.x;
        q_.segment<3>(o + 3) = th;
        v_.segment<3>(o) = s0.v;
        if (SingularityDistance(th[1]) > kSingularityMargin)
            v_.segment<3>(o + 3) = GSpatial(th).partialPivLu().solve(s0.w);
    }
    ComputeStates(v_);
}

void EulerAnglesFormulation::ComputeStates(const Eigen::VectorXd& v) {
    for (int i = 0; i < nn_; ++i) {
        const int o = kNodeCoords * i;
        const Vec3 th = q_.segment<3>(o + 3);
        FrameState& s = states_[i];
        s.x = q_.segment<3>(o);
        s.R = RotationXyz(th);
        s.v = v.segment<3>(o);
        s.w = GSpatial(th) * v.segment<3>(o + 3);
    }
}

void EulerAnglesFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                      const Eigen::VectorXd& lambda, Eigen::VectorXd& Ma,
                                      Eigen::VectorXd& f, Eigen::VectorXd& phi) {
    ComputeStates(v);
    Ma.setZero(nv_);
    f.setZero(nv_);
    phi.setZero(nc_);
    for (int i = 0; i < nn_; ++i) {
        const NodeInertia& in = inertia_[i];
        const int o = kNodeCoords * i;
        const Kin k(q_.segment<3>(o + 3), v.segment<3>(o + 3));
        const Vec3 xa = a.segment<3>(o), tha = a.segment<3>(o + 3);
        const Mat3 S = Skew(in.s);
        Ma.segment<3>(o) = in.m * xa - k.R * (S * (k.Gb * tha));  // (3)
        Ma.segment<3>(o + 3) =
            k.Gb.transpose() * (S * (k.R.transpose() * xa) + in.J * (k.Gb * tha));      // (4)
        f.segment<3>(o) = k.R * (-S * k.c + k.W.cross(k.W.cross(in.s)));                // (3)
        f.segment<3>(o + 3) = k.Gb.transpose() * (in.J * k.c + k.W.cross(in.J * k.W));  // (4)
    }
    const auto& elems = model_.elements();
    ElementBlock b;
    for (int e : active_elements_) {
        const Element& el = *elems[e];
        const ElementSlot& ed = elements_[e];
        const ElementContext ctx = Context(e, lambda.data());
        b.Reset(static_cast<int>(el.nodes().size()), ed.m, false);
        el.Evaluate(ctx, b);
        const auto& en = el.nodes();
        for (size_t k = 0; k < en.size(); ++k) {
            const int o = kNodeCoords * en[k];
            const Mat3 Gs = GSpatial(q_.segment<3>(o + 3));
            f.segment<3>(o) -= b.f.segment<3>(6 * k);                           // (3)
            f.segment<3>(o + 3) -= Gs.transpose() * b.f.segment<3>(6 * k + 3);  // (4)
        }
        for (int j = 0; j < ed.m; ++j) phi[ed.mult_offset + j] = b.phi[j];  // (5)
    }
}

void EulerAnglesFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                      const Eigen::VectorXd& lambda, Jacobians& Jac) {
    ComputeStates(v);
    pieces_.Begin(nv_, nc_);
    FixedPatternMatrix &tm = pieces_.M, &tkq = pieces_.Kq, &tc = pieces_.C, &tk = pieces_.K,
                       &tl = pieces_.L, &tb = pieces_.B;
    for (int i = 0; i < nn_; ++i) {
        const NodeInertia& in = inertia_[i];
        const int o = kNodeCoords * i;
        const Vec3 th = q_.segment<3>(o + 3), thd = v.segment<3>(o + 3);
        const Kin k(th, thd);
        const Vec3 xa = a.segment<3>(o), tha = a.segment<3>(o + 3);
        const Mat3 S = Skew(in.s), Wx = Skew(k.W), &J = in.J;
        const Mat3 GbT = k.Gb.transpose(), RT = k.R.transpose();
        // Mass matrix (3), (4).
        Mat6 M;
        M << in.m * Mat3::Identity(), -k.R * S * k.Gb, GbT * S * RT, GbT * J * k.Gb;
        // d(M a)/dtheta.
        Mat6 Kq = Mat6::Zero();
        const Vec3 y1 = S * (k.Gb * tha);
        Kq.block<3, 3>(0, 3) = Skew(k.R * y1) * k.Gs - k.R * S * k.DG(tha);
        const Vec3 z2 = S * (RT * xa) + J * (k.Gb * tha);
        Kq.block<3, 3>(3, 3) = k.DGT(z2) + GbT * (S * RT * Skew(xa) * k.Gs + J * k.DG(tha));
        // Velocity terms: f_x = R y3, f_theta = Gb^T z4.
        const Mat3 dW_dth = k.DG(thd);
        const Mat3 dc_dth = DcDtheta(th, thd);
        const Mat3 dc_dthd = dW_dth + k.Gdot(thd);
        const Mat3 DW =  // d(W x (W x s))/dW
            k.W.dot(in.s) * Mat3::Identity() + k.W * in.s.transpose() -
            2.0 * in.s * k.W.transpose();
        const Mat3 DJ = Wx * J - Skew(J * k.W);  // d(W x J W)/dW
        const Vec3 y3 = -S * k.c + k.W.cross(k.W.cross(in.s));
        const Vec3 z4 = J * k.c + k.W.cross(J * k.W);
        Mat6 K = Mat6::Zero(), C = Mat6::Zero();
        K.block<3, 3>(0, 3) = -Skew(k.R * y3) * k.Gs + k.R * (-S * dc_dth + DW * dW_dth);
        K.block<3, 3>(3, 3) = k.DGT(z4) + GbT * (J * dc_dth + DJ * dW_dth);
        C.block<3, 3>(0, 3) = k.R * (-S * dc_dthd + DW * k.Gb);
        C.block<3, 3>(3, 3) = GbT * (J * dc_dthd + DJ * k.Gb);
        tm.AddBlock(o, o, M);
        tkq.AddBlock(o, o, Kq);
        tk.AddBlock(o, o, K);
        tc.AddBlock(o, o, C);
    }
    const auto& elems = model_.elements();
    ElementBlock b;
    for (int e : active_elements_) {
        const Element& el = *elems[e];
        const ElementSlot& ed = elements_[e];
        const ElementContext ctx = Context(e, lambda.data());
        const auto& en = el.nodes();
        const int nk = static_cast<int>(en.size());
        b.Reset(nk, ed.m, true);
        el.Evaluate(ctx, b);
        // P = diag(I, Gs) maps (dx, dtheta_angles) to (dx, dtheta_W); Wv = diag(0, dw/dtheta).
        std::array<Mat6, ElementBlock::kMaxNodes> P, Wv;
        std::array<Kin, ElementBlock::kMaxNodes> kin;
        for (int c = 0; c < nk; ++c) {
            const int o = kNodeCoords * en[c];
            kin[c] = Kin(q_.segment<3>(o + 3), v.segment<3>(o + 3));
            const Kin& k = kin[c];
            P[c].setZero();
            P[c].topLeftCorner<3, 3>().setIdentity();
            P[c].bottomRightCorner<3, 3>() = k.Gs;
            Wv[c].setZero();
            Wv[c].bottomRightCorner<3, 3>() = -Skew(k.w) * k.Gs + k.R * k.DG(v.segment<3>(o + 3));
        }
        for (int r = 0; r < nk; ++r) {
            const int orow = kNodeCoords * en[r];
            const Mat6& Pr = P[r];
            for (int c = 0; c < nk; ++c) {
                // Blocks between two nodes only where the element declares them.
                if (r != c && !((b.k_blocks | b.c_blocks) & ElementBlock::Pair(r, c))) continue;
                const int ocol = kNodeCoords * en[c];
                const Mat6 Kel = b.K.block<6, 6>(6 * r, 6 * c);
                const Mat6 Cel = b.C.block<6, 6>(6 * r, 6 * c);
                // f = -P^T f_el: df/dq = P^T (K_el P + C_el Wv) - d(Gs^T M_W)/dtheta.
                Mat6 Kb = Pr.transpose() * (Kel * P[c] + Cel * Wv[c]);
                if (r == c) {
                    const Kin& k = kin[r];
                    const Vec3 Mw = b.f.segment<3>(6 * r + 3);
                    Kb.bottomRightCorner<3, 3>() -=
                        k.DGT(k.R.transpose() * Mw) +
                        k.Gb.transpose() * k.R.transpose() * Skew(Mw) * k.Gs;
                }
                tk.AddBlock(orow, ocol, Kb);
                tc.AddBlock(orow, ocol, Pr.transpose() * Cel * P[c]);
            }
            if (ed.m > 0)
                tl.AddBlock(orow, ed.mult_offset, -Pr.transpose() * b.L.middleRows<6>(6 * r));
        }
        for (int c = 0; c < nk && ed.m > 0; ++c)
            tb.AddBlock(ed.mult_offset, kNodeCoords * en[c], b.phi_q.middleCols<6>(6 * c) * P[c]);
    }
    pieces_.Finish(Jac);
}

void EulerAnglesFormulation::CheckSingularity() const {
    for (int i = 0; i < nn_; ++i) {
        const double th2 = q_[kNodeCoords * i + 4];
        if (SingularityDistance(th2) <= kSingularityMargin) {
            std::ostringstream os;
            os.precision(10);
            os << "formulation 'euler angles': structural node " << model_.nodes()[i].label
               << " reached theta2 = " << th2 << " rad at t = " << t_ << ", within "
               << kSingularityMargin
               << " rad of the Cardan singularity theta2 = +-pi/2 (body z axis along global "
                  "x, where G(theta) is singular); the run stops here. Use the `euler "
                  "parameters` or `lie group` formulation for this motion, or choose the node's "
                  "reference frame so that its body z axis stays away from global x";
            throw RunError(os.str());
        }
    }
}

std::string EulerAnglesFormulation::FailureContext() const {
    // Near theta2 = +-pi/2 the angle rates G(theta)^-1 w grow as 1/cos(theta2): Newton fails
    // there long before the stop margin of CheckSingularity is reached.
    constexpr double kNear = 0.1;  // rad (5.7 degrees)
    int worst = -1;
    double distance = kNear;
    for (int i = 0; i < nn_; ++i) {
        const double d = SingularityDistance(q_[kNodeCoords * i + 4]);
        if (d < distance) distance = d, worst = i;
    }
    if (worst < 0) return {};
    std::ostringstream os;
    os.precision(3);
    os << "structural node " << model_.nodes()[worst].label << " is " << distance * 180.0 / M_PI
       << " degrees from the Cardan singularity theta2 = +-pi/2 of the `euler angles` "
          "formulation (theta2 = "
       << q_[kNodeCoords * worst + 4]
       << " rad), where its angle rates grow without bound: run this motion with `euler "
          "parameters`, `lie group` or `cgr`, which have no singularity there";
    return os.str();
}

void EulerAnglesFormulation::InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                                               Eigen::VectorXd& lambda) {
    CheckSingularity();
    v = v_;
    a.setZero(nv_);
    lambda.setZero(nc_);
    Eigen::VectorXd Ma, f0, phi;
    Evaluate(v, a, lambda, Ma, f0, phi);
    Jacobians J;
    Evaluate(v, a, lambda, J);
    SolveInitialSystem(J, f0, -VectorSpacePhiSecondDerivative(v, a, lambda), a, lambda);
    lambda_ = lambda;
    ComputeStates(v);
}

void EulerAnglesFormulation::AfterConvergence(const Eigen::VectorXd& v,
                                              const Eigen::VectorXd& lambda) {
    VectorSpaceFormulationBase::AfterConvergence(v, lambda);
    CheckSingularity();
}

const std::vector<std::string>& EulerAnglesFormulation::NodeRowNames() const {
    static const std::vector<std::string> kRows = {"force x",      "force y",      "force z",
                                                   "angle theta1", "angle theta2", "angle theta3"};
    return kRows;
}

}  // namespace mbstep::euler_angles
