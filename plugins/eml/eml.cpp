// mbstep — the Livens energy-momentum scheme `eml` (see eml.hpp for the equations).
#include "eml.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>

#include "mbstep/assembly/assembly.hpp"
#include "mbstep/math/quaternion.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep::eml {

namespace {

using quaternion::Mat34;
using quaternion::Vec4;
constexpr int kNode = 7;

using quaternion::LTransposeTimes;

// S(e) = E(e) L(e)^T s: the body-frame vector s in the spatial frame, quadratic in e (R(e) for
// unit e), and its derivative dS/de = -E(L(e)^T s) + E(e) L^T(s) (E(e) b = -E(b) e).
Vec3 SpatialQuadratic(const Vec4& e, const Vec3& s) {
    return quaternion::E(e) * (quaternion::L(e).transpose() * s);
}
Mat34 SpatialQuadraticDerivative(const Vec4& e, const Vec3& s) {
    return -quaternion::E(quaternion::L(e).transpose() * s) + quaternion::E(e) * LTransposeTimes(s);
}
// The coupling kinetic energy of a centre of mass off the node, T_c = v_x . (w x S), with
// w = 2 E(e) v_e, S = S(e) (polynomial in (e, v_x, v_e)), and its gradient (11 entries: e, v_x,
// v_e): dT_c/dv_x = w x S, dT_c/dv_e = 2 E(e)^T (S x v_x),
// dT_c/de = (dw/de)^T (S x v_x) + (dS/de)^T (v_x x w), dw/de = -2 E(v_e).
double CouplingEnergy(const Vec4& e, const Vec3& vx, const Vec4& ve, const Vec3& s,
                      Eigen::Matrix<double, 11, 1>* grad) {
    const Vec3 w = 2.0 * quaternion::E(e) * ve;
    const Vec3 S = SpatialQuadratic(e, s);
    if (grad != nullptr) {
        const Vec3 Sxv = S.cross(vx);
        grad->segment<4>(0) = -2.0 * quaternion::E(ve).transpose() * Sxv +
                              SpatialQuadraticDerivative(e, s).transpose() * vx.cross(w);
        grad->segment<3>(4) = w.cross(S);
        grad->segment<4>(7) = 2.0 * quaternion::E(e).transpose() * Sxv;
    }
    return vx.dot(w.cross(S));
}

// Types whose Evaluate at zero twist is the negative gradient of PotentialEnergy.
bool Conservative(const Element& e) {
    return e.type() == "body" || e.type() == "rod" || e.type() == "deformable hinge";
}

// The six generators of rigid motions (translations along and rotations about the global axes
// through the origin) at the element's coordinates z = (x, e) per node: column j of B.
// Rotation about a: dx = a x x, de = E(e)^T a / 2 (= (0, a/2) (x) e, left multiplication).
Eigen::MatrixXd Generators(const Eigen::VectorXd& z, unsigned mask) {
    const int k = static_cast<int>(z.size()) / kNode;
    int cols = 0;
    for (int j = 0; j < 6; ++j) cols += (mask >> j) & 1u;
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(z.size(), cols);
    int col = 0;
    for (int j = 0; j < 6; ++j) {
        if (!((mask >> j) & 1u)) continue;
        for (int c = 0; c < k; ++c) {
            const Vec3 a = Vec3::Unit(j % 3);
            if (j < 3) {
                B.block<3, 1>(kNode * c, col) = a;
            } else {
                B.block<3, 1>(kNode * c, col) = a.cross(Vec3(z.segment<3>(kNode * c)));
                B.block<4, 1>(kNode * c + 3, col) =
                    0.5 * quaternion::E(z.segment<4>(kNode * c + 3)).transpose() * a;
            }
        }
        ++col;
    }
    return B;
}

// Discrete gradient of f from the midpoint gradient g, in two corrections:
//   g' = g - P_B g                          so that g'.b_j = 0 for the columns b_j of B
//   g'' = g' + (f1 - f0 - g'.dz) / |a|^2 a,  a = (I - P_B) dz   (directionality (69))
// with P_B the orthogonal projector onto span(B); a is orthogonal to B, so both conditions hold
// exactly. With B empty this is Gonzalez's formula (71); with B = the translations under which
// f is invariant it is Gonzalez's formula in the quotient by them (translations act linearly,
// so f1 - f0 = f(z0 + a) - f(z0)), and the discrete forces then conserve linear momentum
// exactly; (71) alone would change it by O(h^3) per step. Rotations are not used: in quaternion
// coordinates a rigid rotation increment is not in span(B(q_mid)) (x turns by 2 tan(theta/2),
// e by 4 tan(theta/4)), so the two conditions force an O(1) error in the gradient along a.
// Below |a| = 1e-6 the directionality correction (O(|a|^2) relative, dominated by the
// round-off of f1 - f0) is dropped (energy error O(|a|^3)).
void DiscreteGradient(double f0, double f1, const Eigen::VectorXd& dz, const Eigen::MatrixXd& B,
                      Eigen::VectorXd& g) {
    Eigen::VectorXd a = dz;
    if (B.cols() > 0) {
        const Eigen::MatrixXd BtB = B.transpose() * B;
        const Eigen::LDLT<Eigen::MatrixXd> ldlt(BtB);
        g -= B * ldlt.solve(B.transpose() * g);
        a -= B * ldlt.solve(B.transpose() * dz);
    }
    const double a2 = a.squaredNorm();
    if (a2 < 1e-12) return;
    g += ((f1 - f0 - g.dot(dz)) / a2) * a;
}

}  // namespace

int Eml::num_unknowns() const {
    switch (variant_) {
        case Variant::kFull:
            return 3 * nq_ + nm_ + nn_;
        case Variant::kReduced:
            return nq_ + nm_ + nn_;
        case Variant::kNullSpace:
            return 6 * nn_ + nm_;
    }
    return 0;
}

void Eml::Attach(Formulation& f, const SolverSettings& s) {
    abstract_.reset();
    if (f.name() == "lagrangian") {  // abstract nodes: the general form (eml_abstract.hpp)
        formulation_ = &f;
        settings_ = EmlNewtonSettings(s);
        abstract_ =
            std::make_unique<AbstractEml>(static_cast<AbstractFormulation&>(f), variant_, s);
        return;
    }
    if (f.name() != "euler parameters" || f.second_order() == nullptr)
        throw RunError(
            "eml: needs the `euler parameters` formulation (unit quaternions with the "
            "singular 4 x 4 mass matrix), not '" +
            f.name() + "'");
    formulation_ = &f;
    problem_ = f.second_order();
    settings_ = EmlNewtonSettings(s);
    const Model& model = f.model();
    nn_ = static_cast<int>(model.nodes().size());
    nq_ = kNode * nn_;
    for (const StructuralNode& n : model.nodes())
        if (n.kind != NodeKind::kDynamic)
            throw RunError("eml: structural node " + std::to_string(n.label) +
                           " is static; static nodes are not implemented (their rows have no "
                           "mass in the Livens equations)");
    inertia_.assign(nn_, NodeInertia{});
    elements_.clear();
    nm_ = 0;
    const auto& elems = model.elements();
    for (size_t i = 0; i < elems.size(); ++i) {
        const Element& e = *elems[i];
        std::vector<NodeInertia> local(e.nodes().size());
        e.AddInertia(local);
        for (size_t k = 0; k < local.size(); ++k) inertia_[e.nodes()[k]] += local[k];
        const std::string who =
            e.statement() + " " + std::to_string(e.label()) + " (" + e.type() + ")";
        if (e.NeedsConvergedState())
            throw RunError("eml: " + who +
                           " keeps state between steps (e.g. friction); not implemented");
        ElementInfo info;
        info.index = static_cast<int>(i);
        info.m = e.num_multipliers();
        if (info.m > 0) {
            for (int j = 0; j < info.m; ++j)
                if (e.row_level(j) != ConstraintLevel::kPosition)
                    throw RunError("eml: " + who +
                                   " has velocity-level constraint rows; only holonomic "
                                   "constraints have discrete gradients");
            info.mult_offset = nm_;
            nm_ += info.m;
        } else if (e.HasContribution()) {
            info.conservative = Conservative(e);
            info.load = !info.conservative;
            if (e.type() == "body") {
                info.body = true;
                info.inertia = local[0];
            }
        } else {
            continue;
        }
        elements_.push_back(info);
    }
    if (problem_->num_constraints() != nm_ + nn_)
        throw RunError("eml: formulation multipliers do not match the model");
}

void Eml::States(const Eigen::VectorXd& q, const Eigen::VectorXd& v, std::vector<FrameState>& s) {
    s.resize(nn_);
    for (int i = 0; i < nn_; ++i) {
        const int o = kNode * i;
        const Vec4 e = q.segment<4>(o + 3);
        s[i].x = q.segment<3>(o);
        s[i].R = quaternion::Rotation(e);
        s[i].v = v.segment<3>(o);
        s[i].w = quaternion::G(e) * v.segment<4>(o + 3);
    }
}

double Eml::Potential(const std::vector<FrameState>& s, double t) const {
    const Model& model = formulation_->model();
    const Vec3 g = model.gravity() ? model.gravity()->At(t) : Vec3::Zero();
    double V = 0.0;
    for (const ElementInfo& info : elements_) {
        if (!info.conservative) continue;
        const Element& e = *model.elements()[info.index];
        const FrameState* ptrs[ElementBlock::kMaxNodes];
        for (size_t k = 0; k < e.nodes().size(); ++k) ptrs[k] = &s[e.nodes()[k]];
        const ElementContext ctx{t, ptrs, nullptr, g};
        V += e.PotentialEnergy(ctx);
    }
    return V;
}

void Eml::Discrete(const Eigen::VectorXd& q1, const Eigen::VectorXd& v1,
                   const Eigen::VectorXd& lambda, Eigen::VectorXd& force, Eigen::VectorXd& dTv,
                   Eigen::VectorXd& phi1) {
    force.setZero(nq_);
    dTv.setZero(nq_);
    phi1.setZero(nm_);
    // Kinetic energy: (87)-(88) for rotations, m v_mid for translations.
    for (int i = 0; i < nn_; ++i) {
        const int o = kNode * i;
        const Vec4 e0 = q_n_.segment<4>(o + 3), e1 = q1.segment<4>(o + 3);
        const Vec4 w0 = v_n_.segment<4>(o + 3), w1 = v1.segment<4>(o + 3);
        const Vec3 Om = quaternion::L(e0) * w0 + quaternion::L(e1) * w1;  // (Omega_n + Omega_n+1)/2
        const Vec3 JOm = inertia_[i].J * Om;
        dTv.segment<4>(o + 3) = 2.0 * quaternion::L(0.5 * (e0 + e1)).transpose() * JOm;
        force.segment<4>(o + 3) = -2.0 * quaternion::L(0.5 * (w0 + w1)).transpose() * JOm;
        dTv.segment<3>(o) = inertia_[i].m * 0.5 * (v_n_.segment<3>(o) + v1.segment<3>(o));
        if (inertia_[i].s.isZero(0.0)) continue;
        // Centre of mass off the node: T_c = v_x . (w x S) (CouplingEnergy) by Gonzalez's
        // discrete gradient (71) over y = (e, v_x, v_e), split into its v part (dT_v) and its
        // e part (dT_q).
        Eigen::Matrix<double, 11, 1> y0, y1, g;
        y0 << e0, v_n_.segment<3>(o), w0;
        y1 << e1, v1.segment<3>(o), w1;
        const Eigen::Matrix<double, 11, 1> ym = 0.5 * (y0 + y1), dy = y1 - y0;
        const Vec3& s = inertia_[i].s;
        CouplingEnergy(ym.head<4>(), ym.segment<3>(4), ym.tail<4>(), s, &g);
        const double dT = CouplingEnergy(e1, v1.segment<3>(o), w1, s, nullptr) -
                          CouplingEnergy(e0, v_n_.segment<3>(o), w0, s, nullptr);
        if (dy.squaredNorm() > 1e-24) g += ((dT - g.dot(dy)) / dy.squaredNorm()) * dy;
        force.segment<4>(o + 3) += g.head<4>();
        dTv.segment<3>(o) += g.segment<3>(4);
        dTv.segment<4>(o + 3) += g.tail<4>();
    }
    const Eigen::VectorXd qm = 0.5 * (q_n_ + q1), vm = 0.5 * (v_n_ + v1);
    States(q1, v1, s1_);
    States(qm, vm, sm_);
    sm0_ = sm_;
    for (FrameState& s : sm0_) s.v.setZero(), s.w.setZero();
    const double tm = t_n_ + 0.5 * h_, t1 = t_n_ + h_;
    const Model& model = formulation_->model();
    const Vec3 gm = model.gravity() ? model.gravity()->At(tm) : Vec3::Zero();
    ElementBlock b, b0;
    Eigen::VectorXd dz, zm, g;
    for (const ElementInfo& info : elements_) {
        const Element& e = *model.elements()[info.index];
        const int k = static_cast<int>(e.nodes().size());
        const FrameState *p1[ElementBlock::kMaxNodes], *pm[ElementBlock::kMaxNodes],
            *pm0[ElementBlock::kMaxNodes], *p0[ElementBlock::kMaxNodes];
        for (int c = 0; c < k; ++c) {
            const int n = e.nodes()[c];
            p1[c] = &s1_[n], pm[c] = &sm_[n], pm0[c] = &sm0_[n], p0[c] = &s0_[n];
        }
        // The element's coordinates: increments, midpoint, and the midpoint map P^T.
        dz.resize(kNode * k);
        zm.resize(kNode * k);
        for (int c = 0; c < k; ++c) {
            const int o = kNode * e.nodes()[c];
            dz.segment<kNode>(kNode * c) = q1.segment<kNode>(o) - q_n_.segment<kNode>(o);
            zm.segment<kNode>(kNode * c) = qm.segment<kNode>(o);
        }
        auto map_force = [&](const ElementBlock::Vec& fe, Eigen::VectorXd& out) {
            out.setZero(kNode * k);
            for (int c = 0; c < k; ++c) {
                const Vec4 em = qm.segment<4>(kNode * e.nodes()[c] + 3);
                out.segment<3>(kNode * c) = fe.segment<3>(6 * c);
                out.segment<4>(kNode * c + 3) =
                    quaternion::G(em).transpose() * fe.segment<3>(6 * c + 3);
            }
        };
        auto scatter = [&](const Eigen::VectorXd& loc, double sign) {
            for (int c = 0; c < k; ++c)
                force.segment<kNode>(kNode * e.nodes()[c]) += sign * loc.segment<kNode>(kNode * c);
        };
        if (info.body) {
            // Gravity on a body: V = -g.(m x + S(e)), S(e) = E(e) L(e)^T s quadratic in e (= R s
            // on |e| = 1, the paper's (115)); its midpoint gradient is an exact discrete
            // gradient and, V being invariant under rotations about g, conserves the momentum
            // about the vertical exactly.
            const int o = kNode * e.nodes()[0];
            force.segment<3>(o) += info.inertia.m * gm;
            force.segment<4>(o + 3) +=
                SpatialQuadraticDerivative(qm.segment<4>(o + 3), info.inertia.s).transpose() * gm;
        } else if (info.load) {
            b.Reset(k, 0, false);
            e.Evaluate(ElementContext{tm, pm, nullptr, gm}, b);
            map_force(b.f, g);
            scatter(g, 1.0);
        } else if (info.conservative) {
            b0.Reset(k, 0, false);
            e.Evaluate(ElementContext{tm, pm0, nullptr, gm}, b0);  // elastic part
            b.Reset(k, 0, false);
            e.Evaluate(ElementContext{tm, pm, nullptr, gm}, b);
            ElementBlock::Vec fd = b.f - b0.f;  // damping part
            map_force(fd, g);
            scatter(g, 1.0);
            map_force(b0.f, g);
            g = -g;  // midpoint gradient of V
            const double V0 = e.PotentialEnergy(ElementContext{tm, p0, nullptr, gm});
            const double V1 = e.PotentialEnergy(ElementContext{tm, p1, nullptr, gm});
            {
                const Eigen::MatrixXd B = Generators(zm, info.symmetry);
                DiscreteGradient(V0, V1, dz, B, g);
            }
            scatter(g, -1.0);
        } else {
            static thread_local std::vector<double> zero;
            zero.assign(info.m, 0.0);
            b.Reset(k, info.m, true);
            e.Evaluate(ElementContext{tm, pm, zero.data(), gm}, b);
            b0.Reset(k, info.m, false);
            e.Evaluate(ElementContext{t1, p1, zero.data(), gm}, b0);
            const Eigen::MatrixXd B = Generators(zm, info.symmetry);
            for (int j = 0; j < info.m; ++j) {
                g.setZero(kNode * k);
                for (int c = 0; c < k; ++c) {
                    const Vec4 em = qm.segment<4>(kNode * e.nodes()[c] + 3);
                    g.segment<3>(kNode * c) = b.phi_q.block<1, 3>(j, 6 * c).transpose();
                    g.segment<4>(kNode * c + 3) = quaternion::G(em).transpose() *
                                                  b.phi_q.block<1, 3>(j, 6 * c + 3).transpose();
                }
                const double f0 = phi_n_[info.mult_offset + j], f1 = b0.phi[j];
                DiscreteGradient(f0, f1, dz, B, g);
                scatter(g, -lambda[info.mult_offset + j]);
                phi1[info.mult_offset + j] = f1;
            }
        }
    }
}

void Eml::Unpack(const Eigen::VectorXd& u, Eigen::VectorXd& q1, Eigen::VectorXd& v1,
                 Eigen::VectorXd& p1, Eigen::VectorXd& lambda) const {
    lambda.setZero(nm_ + nn_);
    switch (variant_) {
        case Variant::kFull:
            q1 = u.segment(0, nq_);
            v1 = u.segment(nq_, nq_);
            p1 = u.segment(2 * nq_, nq_);
            lambda = u.tail(nm_ + nn_);
            return;
        case Variant::kReduced:
            q1 = u.head(nq_);
            lambda = u.tail(nm_ + nn_);
            break;
        case Variant::kNullSpace:
            q1.resize(nq_);
            for (int i = 0; i < nn_; ++i) {
                const int o = kNode * i;
                q1.segment<3>(o) = q_n_.segment<3>(o) + u.segment<3>(6 * i);
                q1.segment<4>(o + 3) = quaternion::RotateLeft(u.segment<3>(6 * i + 3),
                                                              q_n_.segment<4>(o + 3));  // (105)
            }
            lambda.head(nm_) = u.tail(nm_);
            break;
    }
    v1 = (2.0 / h_) * (q1 - q_n_) - v_n_;  // (101)
    p1.resize(0);                          // (102) needs dT_v: set in Residual
}

void Eml::Residual(const Eigen::VectorXd& u, Eigen::VectorXd& r) {
    Eigen::VectorXd q1, v1, p1, lambda, force, dTv, phi1;
    Unpack(u, q1, v1, p1, lambda);
    Discrete(q1, v1, lambda, force, dTv, phi1);
    if (variant_ != Variant::kFull) p1 = 2.0 * dTv - p_n_;  // (102)
    // (b) in momentum units; the unit-length reaction lambda_e e_mid (93).
    Eigen::VectorXd rb = p1 - p_n_ - h_ * force;
    if (variant_ != Variant::kNullSpace)
        for (int i = 0; i < nn_; ++i) {
            const int o = kNode * i;
            rb.segment<4>(o + 3) +=
                h_ * lambda[nm_ + i] * 0.5 * (q_n_.segment<4>(o + 3) + q1.segment<4>(o + 3));
        }
    r.resize(num_unknowns());
    int row = 0;
    if (variant_ == Variant::kFull) {
        r.segment(row, nq_) = q1 - q_n_ - 0.5 * h_ * (v_n_ + v1);  // (a)
        row += nq_;
    }
    if (variant_ == Variant::kNullSpace) {
        for (int i = 0; i < nn_; ++i) {
            const int o = kNode * i;
            const Vec4 em = 0.5 * (q_n_.segment<4>(o + 3) + q1.segment<4>(o + 3));
            r.segment<3>(row) = rb.segment<3>(o);
            r.segment<3>(row + 3) = quaternion::L(em) * rb.segment<4>(o + 3);  // (104)
            row += 6;
        }
    } else {
        r.segment(row, nq_) = rb;
        row += nq_;
    }
    if (variant_ == Variant::kFull) {
        r.segment(row, nq_) = 0.5 * (p_n_ + p1) - dTv;  // (c)
        row += nq_;
    }
    r.segment(row, nm_) = phi1;  // (d)
    row += nm_;
    if (variant_ != Variant::kNullSpace)
        for (int i = 0; i < nn_; ++i)
            r[row++] = 0.5 * (q1.segment<4>(kNode * i + 3).squaredNorm() - 1.0);
}

std::string Eml::DescribeEquation(int row) const {
    static const char* kComponent[kNode] = {"x", "y", "z", "e0", "e1", "e2", "e3"};
    static const char* kNullSpaceRows[6] = {"force x",  "force y",  "force z",
                                            "moment x", "moment y", "moment z"};
    const Model& model = formulation_->model();
    std::ostringstream os;
    auto node = [&](int i) -> std::ostream& {
        return os << "structural node " << model.nodes()[i].label << ", ";
    };
    // The node rows of the variant, in Residual()'s order: (a), (b), (c) of eq. (72) for the
    // full scheme, (b) alone for the reduced one (102), (104) for the null-space one.
    struct NodeRows {
        const char* what;
        int size;
    };
    std::vector<NodeRows> groups;
    if (variant_ == Variant::kFull) groups.push_back({"velocity definition", nq_});
    if (variant_ == Variant::kNullSpace)
        groups.push_back({nullptr, 6 * nn_});
    else
        groups.push_back({"momentum balance", nq_});
    if (variant_ == Variant::kFull) groups.push_back({"momentum definition", nq_});
    int base = 0;
    for (const NodeRows& g : groups) {
        if (row >= base && row < base + g.size) {
            const int k = row - base;
            if (!g.what) {
                node(k / 6) << kNullSpaceRows[k % 6];
            } else {
                node(k / kNode) << g.what << " " << kComponent[k % kNode];
            }
            return os.str();
        }
        base += g.size;
    }
    for (const ElementInfo& info : elements_)
        if (info.m > 0 && row >= base + info.mult_offset && row < base + info.mult_offset + info.m)
            return DescribeConstraintRow(*model.elements()[info.index],
                                         row - base - info.mult_offset);
    base += nm_;
    if (variant_ != Variant::kNullSpace && row >= base && row < base + nn_) {
        node(row - base) << "unit length of the Euler parameters";
        return os.str();
    }
    os << "equation " << row;
    return os.str();
}

// Bits 0-2: f invariant under the translation along axis j (grad f . t_j = 0, every row).
unsigned Eml::SymmetryMask(const ElementInfo& info, const Eigen::VectorXd& q) {
    const Model& model = formulation_->model();
    const Vec3 g0 = model.gravity() ? model.gravity()->At(t_n_) : Vec3::Zero();
    std::vector<FrameState> rest;
    States(q, Eigen::VectorXd::Zero(nq_), rest);
    const Element& e = *model.elements()[info.index];
    const int k = static_cast<int>(e.nodes().size());
    const FrameState* ptrs[ElementBlock::kMaxNodes];
    Eigen::VectorXd z(kNode * k);
    for (int c = 0; c < k; ++c) {
        ptrs[c] = &rest[e.nodes()[c]];
        z.segment<kNode>(kNode * c) = q.segment<kNode>(kNode * e.nodes()[c]);
    }
    std::vector<double> zero(info.m, 0.0);
    ElementBlock b;
    b.Reset(k, info.m, info.m > 0);
    e.Evaluate(ElementContext{t_n_, ptrs, zero.data(), g0}, b);
    const Eigen::MatrixXd B = Generators(z, 0x7u);
    const int rows = std::max(info.m, 1);
    Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(rows, kNode * k);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < k; ++c) {
            const Mat34 G = quaternion::G(z.segment<4>(kNode * c + 3));
            if (info.m == 0) {  // gradient of V
                grad.block<1, 3>(r, kNode * c) = -b.f.segment<3>(6 * c).transpose();
                grad.block<1, 4>(r, kNode * c + 3) =
                    -(G.transpose() * b.f.segment<3>(6 * c + 3)).transpose();
            } else {
                grad.block<1, 3>(r, kNode * c) = b.phi_q.block<1, 3>(r, 6 * c);
                grad.block<1, 4>(r, kNode * c + 3) = b.phi_q.block<1, 3>(r, 6 * c + 3) * G;
            }
        }
    unsigned mask = 0;
    for (int j = 0; j < 3; ++j) {
        const Eigen::VectorXd d = grad * B.col(j);
        if (d.lpNorm<Eigen::Infinity>() <= 1e-8 * (grad.norm() * B.col(j).norm() + 1e-300))
            mask |= 1u << j;
    }
    return mask;
}

void Eml::Symmetries() {
    // A deterministic perturbation of the configuration, off any special position.
    Eigen::VectorXd qp = q_n_;
    for (int i = 0; i < nq_; ++i)
        qp[i] += 1e-2 * (1.0 + std::abs(q_n_[i])) * std::sin(1.7 * i + 0.3);
    for (ElementInfo& info : elements_) {
        if (info.load) continue;
        // A symmetry holds everywhere: checked at q_n and at a perturbed configuration, so that
        // a gradient orthogonal to b_j at q_n only (e.g. gravity with the node on the rotation
        // axis) is not taken for one; once failed, it stays off.
        unsigned mask = SymmetryMask(info, q_n_) & SymmetryMask(info, qp);
        if (started_) mask &= info.symmetry;
        if (info.rheonomic) mask = 0;  // prescribed motion: plain Gonzalez (71)
        info.symmetry = mask;
    }
    started_ = true;
}

void Eml::Start(double t0, double /*h*/) {
    if (abstract_) {
        abstract_->Start(t0);
        return;
    }
    pattern_ready_ = false;
    col_rows_.clear();
    problem_->SetTime(t0);
    Eigen::VectorXd a;
    q_n_ = problem_->q();
    problem_->InitialConditions(v_n_, a, lambda_n_);
    // Consistent initial momenta p = M(q) v (paper: p0 = M(q0) v0, singular 4 L^T J L).
    p_n_.setZero(nq_);
    for (int i = 0; i < nn_; ++i) {
        const int o = kNode * i;
        const Mat34 L = quaternion::L(q_n_.segment<4>(o + 3));
        p_n_.segment<3>(o) = inertia_[i].m * v_n_.segment<3>(o);
        p_n_.segment<4>(o + 3) = 4.0 * L.transpose() * inertia_[i].J * L * v_n_.segment<4>(o + 3);
        if (!inertia_[i].s.isZero(0.0)) {  // + dT_c/dv
            Eigen::Matrix<double, 11, 1> g;
            CouplingEnergy(q_n_.segment<4>(o + 3), v_n_.segment<3>(o), v_n_.segment<4>(o + 3),
                           inertia_[i].s, &g);
            p_n_.segment<3>(o) += g.segment<3>(4);
            p_n_.segment<4>(o + 3) += g.tail<4>();
        }
    }
    t_n_ = t0;
    States(q_n_, v_n_, s0_);
    phi_n_.setZero(nm_);
    const Model& model = formulation_->model();
    ElementBlock b;
    for (ElementInfo& info : elements_) {
        if (info.m == 0) continue;
        const Element& e = *model.elements()[info.index];
        const FrameState* ptrs[ElementBlock::kMaxNodes];
        for (size_t k = 0; k < e.nodes().size(); ++k) ptrs[k] = &s0_[e.nodes()[k]];
        std::vector<double> zero(info.m, 0.0);
        b.Reset(static_cast<int>(e.nodes().size()), info.m, false);
        e.Evaluate(ElementContext{t0, ptrs, zero.data(), Vec3::Zero()}, b);
        for (int j = 0; j < info.m; ++j) phi_n_[info.mult_offset + j] = b.phi[j];
        // Time-dependent rows (drives): phi at the same configuration, two later times.
        ElementBlock bt;
        info.rheonomic = false;
        for (double dt : {0.37, 1.91}) {
            bt.Reset(static_cast<int>(e.nodes().size()), info.m, false);
            e.Evaluate(ElementContext{t0 + dt, ptrs, zero.data(), Vec3::Zero()}, bt);
            if ((bt.phi - b.phi).lpNorm<Eigen::Infinity>() > 0.0) info.rheonomic = true;
        }
    }
    started_ = false;
    Symmetries();
    problem_->AfterConvergence(v_n_, lambda_n_);
}

StepStats Eml::Advance(double t, double h) {
    if (abstract_) return abstract_->Advance(t, h);
    StepStats st;
    t_n_ = t;
    h_ = h;
    States(q_n_, v_n_, s0_);
    Symmetries();
    // Prediction: explicit Euler for q, v = v_n, p = p_n, multipliers of the last step.
    Eigen::VectorXd u(num_unknowns());
    switch (variant_) {
        case Variant::kFull:
            u << q_n_ + h * v_n_, v_n_, p_n_, lambda_n_;
            break;
        case Variant::kReduced:
            u << q_n_ + h * v_n_, lambda_n_;
            break;
        case Variant::kNullSpace:
            for (int i = 0; i < nn_; ++i) {
                u.segment<3>(6 * i) = h * v_n_.segment<3>(kNode * i);
                u.segment<3>(6 * i + 3) = h * s0_[i].w;
            }
            u.tail(nm_) = lambda_n_.head(nm_);
            break;
    }
    if (!pattern_ready_) DetectPattern(u);
    const Eigen::VectorXd u0 = u;
    u_ = u;
    // A second attempt when Newton fails: the sparsity found so far is extended at the
    // failing point (a dependence that vanished at both detection points) and the step redone.
    for (int attempt = 0; attempt < 2 && !st.converged; ++attempt) {
        if (attempt == 1) {
            DetectPattern(u_);
            u_ = u0;
        }
        const NewtonResult res = newton_->Solve(*this);
        st.converged = res.converged;
        st.iterations += res.iterations;
        st.factorizations += res.factorizations;
        st.residual = res.residual;
        st.solution = res.solution;
        if (!st.converged && !u_.allFinite()) u_ = u0;
    }
    if (!st.converged) {
        st.failure =
            EmlNewtonFailure(t + h, h, st.residual, settings_.residual_tolerance, r_,
                             num_unknowns(), [this](int row) { return DescribeEquation(row); });
        return st;
    }
    u = u_;
    Eigen::VectorXd q1, v1, p1, lambda, force, dTv, phi1;
    Unpack(u, q1, v1, p1, lambda);
    if (variant_ != Variant::kFull) {
        Discrete(q1, v1, lambda, force, dTv, phi1);
        p1 = 2.0 * dTv - p_n_;
    } else {
        Discrete(q1, v1, lambda, force, dTv, phi1);
    }
    q_n_ = q1;
    v_n_ = v1;
    p_n_ = p1;
    lambda_n_ = lambda;
    phi_n_ = phi1;
    problem_->SetTime(t + h);
    problem_->set_q(q_n_);
    problem_->AfterConvergence(v_n_, lambda_n_);
    return st;
}

// Sparsity of the iteration matrix, found numerically: a column's rows are those whose
// residual changes (bit for bit) when its unknown is perturbed, at u and at a deterministic
// perturbation of u (velocity-dependent terms vanish at rest); unions with what was found
// before. Columns with disjoint rows share a colour (ColorElements with columns as its elements
// and rows as their nodes: Boost.Graph's greedy sequential colouring), so one residual
// evaluation per colour gives the whole forward-difference Jacobian [Curtis, Powell, Reid 1974].
//
// The detection itself perturbs the columns by the same colouring of a structural superset
// (StructuralRows: an element couples the unknowns and equations of its nodes and its own
// multipliers and constraint rows): columns of one colour have disjoint rows in the superset,
// so each changed row belongs to one column of the perturbed colour, and the pattern found is
// the one column-by-column perturbation finds, at one residual evaluation per colour instead
// of one per unknown. A changed row outside every perturbed column's superset (an element
// coupling more than its nodes) falls back to one column at a time.
std::vector<std::vector<int>> Eml::StructuralRows() const {
    const int n = num_unknowns();
    const bool full = variant_ == Variant::kFull, null_space = variant_ == Variant::kNullSpace;
    // Rows and columns of node i and of element e (Residual() and Unpack() layouts).
    const int node_block = null_space ? 6 : kNode;
    const int groups = full ? 3 : 1;  // (a), (b), (c) or (b) alone; q, v, p or q alone
    const int elem_base = null_space ? 6 * nn_ : groups * nq_;
    auto node_indices = [&](int i, std::vector<int>& out) {
        for (int g = 0; g < groups; ++g)
            for (int k = 0; k < node_block; ++k) out.push_back(g * nq_ + node_block * i + k);
        if (!null_space) out.push_back(elem_base + nm_ + i);  // unit-length row / multiplier
    };
    std::vector<std::vector<int>> rows(n);
    std::vector<int> set;
    auto couple = [&](const std::vector<int>& idx) {
        for (int c : idx) rows[c].insert(rows[c].end(), idx.begin(), idx.end());
    };
    for (int i = 0; i < nn_; ++i) {
        set.clear();
        node_indices(i, set);
        couple(set);
    }
    const Model& model = formulation_->model();
    for (const ElementInfo& info : elements_) {
        set.clear();
        for (int node : model.elements()[info.index]->nodes()) node_indices(node, set);
        for (int j = 0; j < info.m; ++j) set.push_back(elem_base + info.mult_offset + j);
        couple(set);
    }
    for (std::vector<int>& r : rows) {
        std::sort(r.begin(), r.end());
        r.erase(std::unique(r.begin(), r.end()), r.end());
    }
    return rows;
}

void Eml::DetectPattern(const Eigen::VectorXd& u) {
    const int n = static_cast<int>(u.size());
    col_rows_.resize(n);  // sorted rows of each column: O(nnz) memory
    const std::vector<std::vector<int>> super = StructuralRows();
    const std::vector<std::vector<int>> groups = ColorElements(super, n);
    std::vector<int> owner(n, -1);  // the perturbed column whose superset holds a row
    std::vector<int> changed;
    auto add = [&](int j, const std::vector<int>& found) {
        std::vector<int>& rows = col_rows_[j];
        const auto middle = static_cast<std::ptrdiff_t>(rows.size());
        rows.insert(rows.end(), found.begin(), found.end());
        std::inplace_merge(rows.begin(), rows.begin() + middle, rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    };
    std::vector<std::vector<int>> found(n);
    std::vector<double> keep;
    Eigen::VectorXd point = u, r, rp;
    for (int sample = 0; sample < 2; ++sample) {
        if (sample == 1)
            for (int i = 0; i < n; ++i)
                point[i] = u[i] + 1e-3 * (1.0 + std::abs(u[i])) * std::sin(1.3 * i + 0.7);
        Residual(point, r);
        for (const std::vector<int>& group : groups) {
            bool one_by_one = false;
            keep.clear();
            for (int j : group) {
                for (int row : super[j]) owner[row] = j;
                keep.push_back(point[j]);
                point[j] += 1e-7 * std::max(1.0, std::abs(point[j]));
            }
            Residual(point, rp);
            for (int j : group) found[j].clear();
            for (int row = 0; row < n; ++row) {
                if (rp[row] == r[row]) continue;
                if (owner[row] < 0) {
                    one_by_one = true;
                    break;
                }
                found[owner[row]].push_back(row);
            }
            for (size_t k = 0; k < group.size(); ++k) {
                point[group[k]] = keep[k];
                for (int row : super[group[k]]) owner[row] = -1;
            }
            if (!one_by_one) {
                for (int j : group) add(j, found[j]);
                continue;
            }
            for (int j : group) {
                const double keep = point[j];
                point[j] += 1e-7 * std::max(1.0, std::abs(keep));
                Residual(point, rp);
                point[j] = keep;
                changed.clear();
                for (int row = 0; row < n; ++row)
                    if (rp[row] != r[row]) changed.push_back(row);
                add(j, changed);
            }
        }
    }
    std::vector<Eigen::Triplet<double>> trip;
    for (int j = 0; j < n; ++j)
        for (int row : col_rows_[j]) trip.emplace_back(row, j, 0.0);
    colors_ = ColorElements(col_rows_, n);
    Eigen::SparseMatrix<double> pattern(n, n);
    pattern.setFromTriplets(trip.begin(), trip.end());
    pattern.makeCompressed();
    newton_ = std::make_unique<NewtonSolver>(settings_);
    newton_->Setup(pattern);
    pattern_ready_ = true;
}

void Eml::Residual(Eigen::VectorXd& r) {
    Residual(u_, r_);
    r = r_;
}

void Eml::ResidualAndJacobian(Eigen::VectorXd& r, Eigen::SparseMatrix<double>& J) {
    Residual(r);
    // A predictor that meets the tolerance ends the point (NewtonSolver's residual test):
    // no Jacobian for it.
    if (r.allFinite() && r.lpNorm<Eigen::Infinity>() > settings_.residual_tolerance) Jacobian(J);
}

// Forward differences at u_ from its residual r_, one residual per colour of the columns.
void Eml::Jacobian(Eigen::SparseMatrix<double>& J) {
    Eigen::VectorXd up = u_, rp;
    const int* outer = J.outerIndexPtr();
    double* values = J.valuePtr();
    for (const std::vector<int>& color : colors_) {
        for (int j : color) up[j] = u_[j] + 1e-7 * std::max(1.0, std::abs(u_[j]));
        Residual(up, rp);
        for (int j : color) {
            const double d = up[j] - u_[j];
            const std::vector<int>& rows = col_rows_[j];
            for (size_t k = 0; k < rows.size(); ++k)
                values[outer[j] + k] = (rp[rows[k]] - r_[rows[k]]) / d;
            up[j] = u_[j];
        }
    }
}

bool Eml::IncrementConverged(const Eigen::VectorXd& dx) const {
    return IncrementAtRoundoff(dx, u_);
}

double Eml::GeneralizedEnergy() const {
    double E = p_n_.dot(v_n_);
    for (int i = 0; i < nn_; ++i) {
        const int o = kNode * i;
        const Vec3 Om = 2.0 * quaternion::L(q_n_.segment<4>(o + 3)) * v_n_.segment<4>(o + 3);
        E -= 0.5 * Om.dot(inertia_[i].J * Om) +
             0.5 * inertia_[i].m * v_n_.segment<3>(o).squaredNorm() +
             CouplingEnergy(q_n_.segment<4>(o + 3), v_n_.segment<3>(o), v_n_.segment<4>(o + 3),
                            inertia_[i].s, nullptr);
    }
    std::vector<FrameState> s;
    const_cast<Eml*>(this)->States(q_n_, v_n_, s);
    return E + Potential(s, formulation_->time());
}

Vec3 Eml::MomentumMap() const {
    Vec3 L = Vec3::Zero();
    for (int i = 0; i < nn_; ++i) {
        const int o = kNode * i;
        L += Vec3(q_n_.segment<3>(o)).cross(Vec3(p_n_.segment<3>(o))) +
             0.5 * quaternion::E(q_n_.segment<4>(o + 3)) * p_n_.segment<4>(o + 3);
    }
    return L;
}

std::vector<std::pair<std::string, std::string>> Eml::ExtraCsvColumns() const {
    if (abstract_) return abstract_->CsvColumns();
    return {{"generalized_energy",
             "discrete generalized energy p.v - v.M(q) v/2 + V(q), conserved by eml "
             "[Kinon & Betsch 2024, eq. (74)]; `energy` is E_tot = v.M(q) v/2 + V (80), from the "
             "node velocities, which eml does not conserve when M depends on q"},
            {"momentum_map_x",
             "angular momentum map sum x x p_x + E(e) p_e/2 about the origin, "
             "from the momenta [eq. (65)]; lx, ly, lz are from the velocities"},
            {"momentum_map_y", "(as momentum_map_x)"},
            {"momentum_map_z", "(as momentum_map_x)"}};
}

void Eml::ExtraCsvValues(std::vector<double>& values) const {
    if (abstract_) {
        abstract_->CsvValues(values);
        return;
    }
    if (!started_) {
        // Before Start the momenta are p = M(q) v (Start sets them so): (74) and (65) equal
        // the energy and the angular momentum from the velocities.
        const Invariants inv = formulation_->ComputeInvariants();
        values.insert(values.end(), {inv.kinetic + inv.potential, inv.angular_momentum.x(),
                                     inv.angular_momentum.y(), inv.angular_momentum.z()});
        return;
    }
    const Vec3 L = MomentumMap();
    values.insert(values.end(), {GeneralizedEnergy(), L.x(), L.y(), L.z()});
}

Vec3 Eml::AngularMomentum() const {
    Vec3 L = Vec3::Zero();
    for (int i = 0; i < nn_; ++i) {
        const int o = kNode * i;
        const Vec4 e = q_n_.segment<4>(o + 3);
        const Vec3 Om = 2.0 * quaternion::L(e) * v_n_.segment<4>(o + 3);
        const Vec3 x = q_n_.segment<3>(o), vx = v_n_.segment<3>(o);
        const Vec3 S = SpatialQuadratic(e, inertia_[i].s),
                   w = 2.0 * quaternion::E(e) * v_n_.segment<4>(o + 3);
        L += x.cross(inertia_[i].m * vx + w.cross(S)) + S.cross(vx) +
             quaternion::E(e) * quaternion::L(e).transpose() * (inertia_[i].J * Om);
    }
    return L;
}

}  // namespace mbstep::eml
