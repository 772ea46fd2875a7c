// mbstep — formulation `euler parameters` (equations in euler_parameters_formulation.hpp).
#include "euler_parameters_formulation.hpp"

#include <Eigen/SparseLU>
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include "mbstep/assembly/fixed_pattern.hpp"
#include "mbstep/formulation/node_chart.hpp"
#include "mbstep/math/quaternion.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::ep {

namespace {
constexpr int kNodeCoords = 7;
using Mat7 = Eigen::Matrix<double, 7, 7>;
using Mat67 = Eigen::Matrix<double, 6, 7>;

using quaternion::ETransposeTimes;
using quaternion::LTransposeTimes;
// d(G(e) b)/de for a fixed 4-vector b (E(e) b = -E(b) e).
Mat34 GTimesDerivative(const Vec4& e, const Vec4& b) {
    const double n2 = e.squaredNorm();
    return -(2.0 / n2) * quaternion::E(b) -
           (4.0 / (n2 * n2)) * (quaternion::E(e) * b) * e.transpose();
}
// d(G(e)^T m)/de for a fixed 3-vector m.
Mat4 GTransposeTimesDerivative(const Vec4& e, const Vec3& m) {
    const double n2 = e.squaredNorm();
    return (2.0 / n2) * ETransposeTimes(m) -
           (4.0 / (n2 * n2)) * (quaternion::E(e).transpose() * m) * e.transpose();
}

// Coupling of a centre of mass off the node, (6)-(7) of the header: with S = R(e) s, w = G e',
// alpha_a = G e'' and beta = d(G)/dt e' = -(2/|e|^2)(e.e') w (E(e') e' = 0):
//   Ma_x += alpha_a x S,  Ma_e += G^T (S x x''),  f_x += beta x S + w x (w x S).
struct Coupling {
    Vec3 S, w, beta;
    double n2{1.0}, ede{0.0};
    Coupling(const Vec4& e, const Vec4& ed, const Mat3& R, const Vec3& s) {
        n2 = e.squaredNorm();
        ede = e.dot(ed);
        S = R * s;
        w = quaternion::G(e) * ed;
        beta = -(2.0 / n2) * ede * w;
    }
};

// The chart of node_chart.hpp at the parameters q and their rates v (node i's coordinates at
// kNodeCoords i).
struct ParametersChart {
    static constexpr int kCoords = kNodeCoords;
    using Point = NodeChartPoint<kNodeCoords>;
    const Eigen::VectorXd& q;
    const Eigen::VectorXd& v;

    Point At(int node) const {
        Point p;
        p.offset = kNodeCoords * node;
        const Vec4 e = q.segment<4>(p.offset + 3);
        p.P.setZero();
        p.P.topLeftCorner<3, 3>().setIdentity();
        p.P.bottomRightCorner<3, 4>() = quaternion::G(e);
        p.W.setZero();
        p.W.bottomRightCorner<3, 4>() = GTimesDerivative(e, v.segment<4>(p.offset + 3));
        return p;
    }
    int Offset(int node) const { return kNodeCoords * node; }
    void SubtractRotationRows(int o, const Vec3& M, Eigen::VectorXd& f) const {
        f.segment<4>(o + 3) -= quaternion::G(q.segment<4>(o + 3)).transpose() * M;
    }
    void SubtractMomentDerivative(const Point& p, const Vec3& M, Mat7& Kb) const {
        Kb.bottomRightCorner<4, 4>() -= GTransposeTimesDerivative(q.segment<4>(p.offset + 3), M);
    }
};

}  // namespace

EulerParametersFormulation::EulerParametersFormulation(const Model& model)
    : VectorSpaceFormulationBase(model, "euler parameters") {
    const auto& mnodes = model.nodes();
    const int nn = nn_;
    nodes_.resize(nn);
    for (int i = 0; i < nn; ++i) {
        nodes_[i].offset = kNodeCoords * i;
        nodes_[i].offset_mass = inertia_[i].s.norm() > 0.0;
    }
    nv_ = kNodeCoords * nn;
    nc_ = num_element_multipliers_ + nn;

    // Initial configuration: e from R0 (unit quaternion with e0 >= 0), twist mapped to e'.
    q_.setZero(nv_);
    v_.setZero(nv_);
    lambda_.setZero(nc_);
    for (int i = 0; i < nn; ++i) {
        const FrameState& s0 = mnodes[i].initial;
        const Eigen::Quaterniond quat(s0.R);
        Vec4 e(quat.w(), quat.x(), quat.y(), quat.z());
        if (e[0] < 0) e = -e;
        const int o = nodes_[i].offset;
        q_.segment<3>(o) = s0.x;
        q_.segment<4>(o + 3) = e;
        v_.segment<3>(o) = s0.v;
        v_.segment<4>(o + 3) = 0.5 * quaternion::E(e).transpose() * s0.w;  // inverse of eq. (1)
    }
    ComputeStates(v_);
}

void EulerParametersFormulation::ComputeStates(const Eigen::VectorXd& v) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const int o = nodes_[i].offset;
        const Vec4 e = q_.segment<4>(o + 3);
        FrameState& s = states_[i];
        s.x = q_.segment<3>(o);
        s.R = quaternion::Rotation(e);
        s.v = v.segment<3>(o);
        s.w = quaternion::G(e) * v.segment<4>(o + 3);  // eq. (1)
    }
}

void EulerParametersFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                          const Eigen::VectorXd& lambda, Eigen::VectorXd& Ma,
                                          Eigen::VectorXd& f, Eigen::VectorXd& phi) {
    ComputeStates(v);
    Ma.setZero(nv_);
    f.setZero(nv_);
    phi.setZero(nc_);
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const NodeData& nd = nodes_[i];
        const int o = nd.offset;
        const Vec4 e = q_.segment<4>(o + 3), ed = v.segment<4>(o + 3), ea = a.segment<4>(o + 3);
        const Mat34 L = quaternion::L(e);
        const Mat3& J = inertia_[i].J;
        Ma.segment<3>(o) = inertia_[i].m * a.segment<3>(o);       // (2)
        Ma.segment<4>(o + 3) = 4.0 * L.transpose() * J * L * ea;  // (3)
        f.segment<4>(o + 3) =
            8.0 * L.transpose() * L * quaternion::L(ed).transpose() * J * L * ed  // (3)
            + e * lambda[unit_offset(static_cast<int>(i))];
        phi[unit_offset(static_cast<int>(i))] = 0.5 * (e.squaredNorm() - 1.0);  // (4)
        if (nd.offset_mass) {                                                   // (6), (7)
            const Coupling c(e, ed, states_[i].R, inertia_[i].s);
            const Mat34 G = quaternion::G(e);
            Ma.segment<3>(o) += (G * ea).cross(c.S);
            Ma.segment<4>(o + 3) += G.transpose() * c.S.cross(Vec3(a.segment<3>(o)));
            f.segment<3>(o) += c.beta.cross(c.S) + c.w.cross(c.w.cross(c.S));
        }
    }
    // The elements: (2), (3) with f_e -= G^T M, and their constraint rows (5).
    AddElementResiduals(ParametersChart{q_, v}, lambda, f, phi);
}

void EulerParametersFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                          const Eigen::VectorXd& lambda, Jacobians& Jac) {
    ComputeStates(v);
    pieces_.Begin(nv_, nc_);
    FixedPatternMatrix &tm = pieces_.M, &tkq = pieces_.Kq, &tc = pieces_.C, &tk = pieces_.K,
                       &tl = pieces_.L, &tb = pieces_.B;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const NodeData& nd = nodes_[i];
        const int o = nd.offset;
        const int u = unit_offset(static_cast<int>(i));
        const Vec4 e = q_.segment<4>(o + 3), ed = v.segment<4>(o + 3), ea = a.segment<4>(o + 3);
        const Mat34 L = quaternion::L(e), Ld = quaternion::L(ed);
        const Mat3& J = inertia_[i].J;
        tm.AddBlock(o, o, inertia_[i].m * Mat3::Identity());
        tm.AddBlock(o + 3, o + 3, 4.0 * L.transpose() * J * L);
        // d(4 L^T J L a)/de, with L(e) a = -L(a) e.
        tkq.AddBlock(o + 3, o + 3,
                     4.0 * (LTransposeTimes(J * L * ea) - L.transpose() * J * quaternion::L(ea)));
        // f_w = 8 L^T y, y = L z, z = L(e')^T p, p = J L e'  (eq. (3), velocity term).
        const Vec3 p = J * L * ed;
        const Vec4 z = Ld.transpose() * p;
        const Vec3 y = L * z;
        const Mat34 dp_de = -J * Ld;
        const Mat4 dz_de = Ld.transpose() * dp_de;
        const Mat34 dy_de = -quaternion::L(z) + L * dz_de;
        Mat4 dfe = 8.0 * (LTransposeTimes(y) + L.transpose() * dy_de);
        dfe += lambda[u] * Mat4::Identity();  // d(e lambda_e)/de
        tk.AddBlock(o + 3, o + 3, dfe);
        const Mat34 dp_ded = J * L;
        const Mat4 dz_ded = LTransposeTimes(p) + Ld.transpose() * dp_ded;
        tc.AddBlock(o + 3, o + 3, 8.0 * L.transpose() * L * dz_ded);
        tl.AddBlock(o + 3, u, e);
        tb.AddBlock(u, o + 3, e.transpose());
        // Static and translational blocks keep a fixed pattern.
        tk.AddBlock(o, o, Mat3::Zero());
        tc.AddBlock(o, o, Mat3::Zero());
        if (nd.offset_mass) {  // derivatives of (6), (7)
            const Coupling cp(e, ed, states_[i].R, inertia_[i].s);
            const Mat34 G = quaternion::G(e);
            const Mat3 Ss = Skew(cp.S), ws = Skew(cp.w);
            const Mat34 dS = -Ss * G;  // dS/de
            const Vec3 aa = G * ea, xa = a.segment<3>(o);
            tm.AddBlock(o, o + 3, -Ss * G);
            tm.AddBlock(o + 3, o, G.transpose() * Ss);
            tkq.AddBlock(o, o + 3, -Ss * GTimesDerivative(e, ea) + Skew(aa) * dS);
            tkq.AddBlock(
                o + 3, o + 3,
                GTransposeTimesDerivative(e, cp.S.cross(xa)) - G.transpose() * Skew(xa) * dS);
            // f_x = beta x S + w x (w x S); d(w x (w x S))/dw = -skew(w x S) - skew(w) skew(S).
            const Mat3 dfdw = -Skew(cp.w.cross(cp.S)) - ws * Ss;
            const Mat34 dwde = GTimesDerivative(e, ed);
            const Mat34 dbeta_ded = -(2.0 / cp.n2) * (cp.w * e.transpose() + cp.ede * G);
            const Mat34 dbeta_de = -(2.0 / cp.n2) * (cp.w * ed.transpose() + cp.ede * dwde) +
                                   (4.0 / (cp.n2 * cp.n2)) * cp.ede * cp.w * e.transpose();
            tc.AddBlock(o, o + 3, -Ss * dbeta_ded + dfdw * G);
            tk.AddBlock(o, o + 3, -Ss * dbeta_de + Skew(cp.beta) * dS + dfdw * dwde + ws * ws * dS);
        }
    }
    // The elements: P = diag(I, G) maps (dx, de) to (dx, dtheta), W = diag(0, dw/de); d(G^T M)/de
    // on the diagonal (node_chart.hpp).
    AddElementJacobians(ParametersChart{q_, v}, lambda);
    pieces_.Finish(Jac);
}

void EulerParametersFormulation::InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                                                   Eigen::VectorXd& lambda) {
    v = v_;
    a.setZero(nv_);
    lambda.setZero(nc_);
    Eigen::VectorXd Ma, f0, phi;
    Evaluate(v, a, lambda, Ma, f0, phi);
    Jacobians J;
    Evaluate(v, a, lambda, J);
    Eigen::VectorXd phi_dd = VectorSpacePhiSecondDerivative(v, a, lambda);
    // The unit-length rows exactly: d^2/dt^2 (e^T e - 1)/2 = e'^T e' + e^T e''.
    for (size_t i = 0; i < nodes_.size(); ++i)
        phi_dd[unit_offset(static_cast<int>(i))] = v.segment<4>(nodes_[i].offset + 3).squaredNorm();
    // Static nodes have no inertia: their rows are equilibrium, columns need the stiffness.
    for (size_t i = 0; i < nodes_.size(); ++i)
        if (model_.nodes()[i].kind == NodeKind::kStatic)
            throw RunError(
                "formulation 'euler parameters': static structural node " +
                std::to_string(model_.nodes()[i].label) +
                " is not supported yet (initial accelerations); use the cgr formulation");
    SolveInitialSystem(J, f0, -phi_dd, a, lambda);
    lambda_ = lambda;
    ComputeStates(v);
}

// The modified HHT's quaternion rates: Sherif, Nachbagauer, Steiner, Lauss (2019), eqs. (33),
// (34), (69), (70); L = L(e) of their eq. (4) (mbstep/math/quaternion.hpp).
void EulerParametersFormulation::Rates::AngularVelocities(const Eigen::VectorXd& q,
                                                          const Eigen::VectorXd& v,
                                                          const Eigen::VectorXd& a, double c,
                                                          std::vector<Eigen::Vector3d>& w) const {
    w.resize(f_.nodes_.size());
    for (size_t k = 0; k < f_.nodes_.size(); ++k) {  // (34)
        const int o = f_.nodes_[k].offset + 3;
        const Mat34 L = quaternion::L(q.segment<4>(o));
        w[k] = L * (v.segment<4>(o) + c * a.segment<4>(o));
    }
}

void EulerParametersFormulation::Rates::Velocities(const Eigen::VectorXd& q,
                                                   const Eigen::VectorXd& a,
                                                   const std::vector<Eigen::Vector3d>& w, double hg,
                                                   Eigen::VectorXd& v) const {
    for (size_t k = 0; k < f_.nodes_.size(); ++k) {  // (33)
        const int o = f_.nodes_[k].offset + 3;
        const Vec4 e = q.segment<4>(o), ea = a.segment<4>(o);
        v.segment<4>(o) = quaternion::L(e).transpose() * w[k] + hg * (ea - e * e.dot(ea));
    }
}

void EulerParametersFormulation::Rates::VelocityDerivative(const Eigen::VectorXd& q,
                                                           const Eigen::VectorXd& a,
                                                           const std::vector<Eigen::Vector3d>& w,
                                                           double hg, double bh2,
                                                           FixedPatternMatrix& D) const {
    size_t next = 0;  // the nodes' quaternions, in increasing offsets
    for (int i = 0; i < f_.nv_;) {
        if (next < f_.nodes_.size() && f_.nodes_[next].offset + 3 == i) {
            const Vec4 e = q.segment<4>(i), ea = a.segment<4>(i);
            // (69), with w^ of (70): L(e)^T w = w^ e.
            const Mat4 Dk = bh2 * quaternion::LTransposeTimes(w[next]) +
                            hg * (Mat4::Identity() - e * e.transpose()) -
                            hg * bh2 * (e * ea.transpose() + e.dot(ea) * Mat4::Identity());
            D.AddBlock(i, i, Dk);
            ++next;
            i += 4;
        } else {
            D.Add(i, i, hg);
            ++i;
        }
    }
}

double EulerParametersFormulation::Rates::UnitNormDefect(const Eigen::VectorXd& q) const {
    double d = 0.0;
    for (const NodeData& nd : f_.nodes_)
        d = std::max(d, std::abs(q.segment<4>(nd.offset + 3).norm() - 1.0));
    return d;
}

const std::vector<std::string>& EulerParametersFormulation::NodeRowNames() const {
    static const std::vector<std::string> kRows = {"force x",
                                                   "force y",
                                                   "force z",
                                                   "euler parameter e0",
                                                   "euler parameter e1",
                                                   "euler parameter e2",
                                                   "euler parameter e3"};
    return kRows;
}

std::string EulerParametersFormulation::DescribeExtraConstraint(int k) const {
    return "structural node " + std::to_string(model_.nodes()[k].label) + ", unit length of e";
}

}  // namespace mbstep::ep
