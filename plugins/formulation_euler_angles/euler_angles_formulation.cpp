// mbstep — formulation `euler angles` (equations in euler_angles_formulation.hpp).
#include "euler_angles_formulation.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseLU>
#include <array>
#include <cmath>
#include <sstream>

#include "mbstep/formulation/node_chart.hpp"
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

// The chart of node_chart.hpp at the angles q and their rates v.
struct AnglesChart {
    static constexpr int kCoords = 6;
    struct Point : NodeChartPoint<6> {
        Kin k;
    };
    const Eigen::VectorXd& q;
    const Eigen::VectorXd& v;

    Point At(int node) const {
        Point p;
        p.offset = kNodeCoords * node;
        p.k = Kin(q.segment<3>(p.offset + 3), v.segment<3>(p.offset + 3));
        p.P.setZero();
        p.P.topLeftCorner<3, 3>().setIdentity();
        p.P.bottomRightCorner<3, 3>() = p.k.Gs;
        p.W.setZero();
        p.W.bottomRightCorner<3, 3>() =
            -Skew(p.k.w) * p.k.Gs + p.k.R * p.k.DG(v.segment<3>(p.offset + 3));
        return p;
    }
    int Offset(int node) const { return kNodeCoords * node; }
    void SubtractRotationRows(int o, const Vec3& M, Eigen::VectorXd& f) const {
        f.segment<3>(o + 3) -= GSpatial(q.segment<3>(o + 3)).transpose() * M;
    }
    void SubtractMomentDerivative(const Point& p, const Vec3& M, Mat6& Kb) const {
        const Kin& k = p.k;
        Kb.bottomRightCorner<3, 3>() -=
            k.DGT(k.R.transpose() * M) + k.Gb.transpose() * k.R.transpose() * Skew(M) * k.Gs;
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
    // The elements: (3), (4) with f_theta -= Gs^T M, and their constraint rows (5).
    AddElementResiduals(AnglesChart{q_, v}, lambda, f, phi);
}

void EulerAnglesFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                      const Eigen::VectorXd& lambda, Jacobians& Jac) {
    ComputeStates(v);
    pieces_.Begin(nv_, nc_);
    FixedPatternMatrix &tm = pieces_.M, &tkq = pieces_.Kq, &tc = pieces_.C, &tk = pieces_.K;
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
    // The elements: P = diag(I, Gs) maps (dx, dtheta_angles) to (dx, dtheta_W), W =
    // diag(0, dw/dtheta); d(Gs^T M)/dtheta on the diagonal (node_chart.hpp).
    AddElementJacobians(AnglesChart{q_, v}, lambda);
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
