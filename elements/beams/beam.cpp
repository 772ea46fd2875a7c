// mbstep — finite-volume beams (beam.hpp for the equations).
#include "beam.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <ostream>
#include <sstream>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/io/number_format.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

namespace mbstep::beams {

template <>
std::array<double, 3> ShapeFunctions<3>(double xi) {
    return {0.5 * xi * (xi - 1.0), 1.0 - xi * xi, 0.5 * xi * (xi + 1.0)};
}
template <>
std::array<double, 3> ShapeDerivatives<3>(double xi) {
    return {xi - 0.5, -2.0 * xi, xi + 0.5};
}
template <>
std::array<double, 2> ShapeFunctions<2>(double xi) {
    return {0.5 * (1.0 - xi), 0.5 * (1.0 + xi)};
}
template <>
std::array<double, 2> ShapeDerivatives<2>(double /*xi*/) {
    return {-0.5, 0.5};
}

namespace {

// Evaluation points: beam3 at xi = -+1/sqrt(3) (Gauss weights 1), beam2 at xi = 0 (weight 2).
// Rotation vector of a relative rotation R between a beam's nodal triads (LogSO3). The axial
// vector of R's skew part is sin(a) n; where s = sin(a) <= 0.05 and cos(a) > 0 (the usual case
// between neighbouring triads) a / s = asin(s) / s by its series, sum_k (2k)! / (4^k (k!)^2
// (2k+1)) s^2k to s^10 (the first omitted term, 231/13312 s^12, is below 5e-18), without the
// acos and sin of LogSO3.
Vec3 RelativeLog(const Mat3& R) {
    const Vec3 ax = Axial(R);
    const double s2 = ax.squaredNorm();
    if (s2 > 0.0025 || R.trace() <= 1.0) return LogSO3(R);
    const double f =
        1.0 +
        s2 * (1.0 / 6.0 +
              s2 * (3.0 / 40.0 + s2 * (5.0 / 112.0 + s2 * (35.0 / 1152.0 + s2 * (63.0 / 2816.0)))));
    return f * ax;
}

template <int N>
double PointAbscissa(int e) {
    if constexpr (N == 3) return (e == 0 ? -1.0 : 1.0) / std::sqrt(3.0);
    return 0.0;
}

}  // namespace

template <int N>
Beam<N>::Beam(int label, const std::array<BeamNodeInput, N>& nodes,
              const std::array<FrameState, N>& initial, const std::array<Mat3, N - 1>& section,
              const std::array<ConstitutiveLawPtr, N - 1>& laws)
    : Element(label, N == 3 ? "beam3" : "beam2") {
    set_statement(N == 3 ? "beam3" : "beam2");
    const Mat3 L0 = section[0];  // every nodal triad equals it at t0, eq. (1)
    for (int j = 0; j < N; ++j) {
        nodes_.push_back(nodes[j].node);
        offset_[j] = nodes[j].offset;
        Gamma_[j] = initial[j].R.transpose() * L0;
    }
    for (int e = 0; e < kPoints; ++e) {
        BeamPoint<N>& pt = points_[e];
        const double xi = PointAbscissa<N>(e);
        pt.Nv = ShapeFunctions<N>(xi);
        pt.dNv = ShapeDerivatives<N>(xi);
        pt.weight = N == 3 ? 1.0 : 2.0;
        pt.left = e;
        pt.right = e + 1;
        Vec3 dp = Vec3::Zero();
        for (int j = 0; j < N; ++j) dp += pt.dNv[j] * (initial[j].x + initial[j].R * offset_[j]);
        pt.J = dp.norm();
        pt.Delta = L0.transpose() * section[e];
        pt.law = laws[e];
        pt.linear = pt.law->IsLinear();
        pt.viscous = pt.law->IsViscous();
        if (pt.linear) {
            pt.K = pt.law->Stiffness();
            pt.C = pt.law->Damping();
            const auto off_diagonal_zero = [](const Mat6& A) {
                return (A - Mat6(A.diagonal().asDiagonal())).cwiseAbs().maxCoeff() == 0.0;
            };
            pt.diagonal = off_diagonal_zero(pt.K) && off_diagonal_zero(pt.C);
        }
    }
    // eps0, kap0: the strains of the initial configuration (stress-free reference).
    std::array<const FrameState*, N> ptr;
    for (int j = 0; j < N; ++j) ptr[j] = &initial[j];
    ElementContext ctx;
    ctx.node = ptr.data();
    for (int e = 0; e < kPoints; ++e) {
        const SectionState s = Section(ctx, e);
        points_[e].eps0 = s.eps;
        points_[e].kap0 = s.kap;
    }
}

// eqs. (1)-(5)
template <int N>
SectionState Beam<N>::Section(const ElementContext& ctx, int e) const {
    std::array<SectionState, kPoints> s;
    Sections(ctx, s, e, e + 1, true);
    return s[e];
}

// eqs. (1)-(5) at points first..last-1: the nodes' relative rotations phi_j are computed once
// for all points. forces = false stops after the strains eps, kap (energy).
template <int N>
void Beam<N>::Sections(const ElementContext& ctx, std::array<SectionState, kPoints>& out, int first,
                       int last, bool forces) const {
    const FrameState& nr = *ctx.node[kRef];
    const Mat3 Lr = nr.R * Gamma_[kRef];
    std::array<Vec3, N> a, y, phij;
    for (int j = 0; j < N; ++j) {
        const FrameState& n = *ctx.node[j];
        a[j] = n.R * offset_[j];
        y[j] = n.x + a[j];
        if (j != kRef) phij[j] = RelativeLog(Lr.transpose() * n.R * Gamma_[j]);
    }
    for (int e = first; e < last; ++e) {
        const BeamPoint<N>& pt = points_[e];
        SectionState& s = out[e];
        Vec3 phi = Vec3::Zero(), dphi = Vec3::Zero(), l = Vec3::Zero(), p = Vec3::Zero();
        for (int j = 0; j < N; ++j) {
            if (j != kRef) {
                phi += pt.Nv[j] * phij[j];
                dphi += pt.dNv[j] * phij[j];
            }
            l += pt.dNv[j] * y[j];
            p += pt.Nv[j] * y[j];
        }
        l /= pt.J;
        s.Rs = Lr * so3::Exp(phi) * pt.Delta;                                     // eq. (1)
        s.eps = s.Rs.transpose() * l - pt.eps0;                                   // eq. (2)
        s.kap = pt.Delta.transpose() * (so3::Texp(phi) * dphi) / pt.J - pt.kap0;  // eq. (3)
        s.p = p;
        if (!forces) continue;
        Vec3 w = Vec3::Zero(), wp = Vec3::Zero(), ld = Vec3::Zero();
        for (int j = 0; j < N; ++j) {
            const FrameState& n = *ctx.node[j];
            w += pt.Nv[j] * n.w;
            wp += pt.dNv[j] * n.w;
            ld += pt.dNv[j] * (n.v + n.w.cross(a[j]));
        }
        wp /= pt.J;
        ld /= pt.J;
        s.epsd = s.Rs.transpose() * (ld - w.cross(l));  // eq. (4)
        s.kapd = s.Rs.transpose() * wp;
        Vec6 f;
        if (pt.linear) {
            Vec6 st, sd;
            st << s.eps, s.kap;
            f = pt.K * st;  // eq. (5)
            if (pt.viscous) {
                sd << s.epsd, s.kapd;
                f += pt.C * sd;
            }
        } else {
            ConstitutiveLaw::Vec st(6), sd(6), fl(6);
            st << s.eps, s.kap;
            sd << s.epsd, s.kapd;
            pt.law->Evaluate(st, sd, fl, nullptr, nullptr);
            f = fl;
        }
        s.Fs = f.head<3>();
        s.Ms = f.tail<3>();
        s.F = s.Rs * s.Fs;
        s.M = s.Rs * s.Ms;
    }
}

template <int N>
void Beam<N>::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    using Mat63 = Eigen::Matrix<double, 6, 3>;
    const FrameState& nr = *ctx.node[kRef];
    const Mat3 Lr = nr.R * Gamma_[kRef];
    // Node data: arms, beam points, phi_j and H_j of eqs. (1), (7).
    std::array<Vec3, N> a, y, phij;
    std::array<Mat3, N> H, Sa;
    for (int j = 0; j < N; ++j) {
        const FrameState& n = *ctx.node[j];
        a[j] = n.R * offset_[j];
        y[j] = n.x + a[j];
        if (out.want_jacobian) Sa[j] = Skew(a[j]);
        if (j == kRef) {
            phij[j].setZero();
            continue;
        }
        const Mat3 Lj = n.R * Gamma_[j];
        phij[j] = RelativeLog(Lr.transpose() * Lj);
        if (out.want_jacobian) H[j] = so3::TexpInverse(phij[j]) * Lj.transpose();
    }
    for (int e = 0; e < kPoints; ++e) {
        const BeamPoint<N>& pt = points_[e];
        const double iJ = 1.0 / pt.J;
        Vec3 phi = Vec3::Zero(), dphi = Vec3::Zero(), l = Vec3::Zero(), p = Vec3::Zero();
        Vec3 w = Vec3::Zero(), wp = Vec3::Zero(), ld = Vec3::Zero();
        for (int j = 0; j < N; ++j) {
            const FrameState& n = *ctx.node[j];
            phi += pt.Nv[j] * phij[j];
            dphi += pt.dNv[j] * phij[j];
            l += pt.dNv[j] * y[j];
            p += pt.Nv[j] * y[j];
            w += pt.Nv[j] * n.w;
            wp += pt.dNv[j] * n.w;
            ld += pt.dNv[j] * (n.v + n.w.cross(a[j]));
        }
        l *= iJ;
        wp *= iJ;
        ld *= iJ;
        const Mat3 Lam = Lr * so3::Exp(phi);
        const Mat3 Rs = Lam * pt.Delta;  // eq. (1)
        const Mat3 T = so3::Texp(phi);
        Vec6 st, sd;
        st << Rs.transpose() * l - pt.eps0, pt.Delta.transpose() * (T * dphi) * iJ - pt.kap0;
        const Vec3 et = ld - w.cross(l);
        sd << Rs.transpose() * et, Rs.transpose() * wp;  // eq. (4)
        Vec6 f;
        Mat6 De, Dv;
        if (pt.diagonal) {  // the products below without their zero terms: same values
            f = pt.K.diagonal().cwiseProduct(st);  // eq. (5)
            if (pt.viscous) f += pt.C.diagonal().cwiseProduct(sd);
        } else if (pt.linear) {
            f = pt.K * st;  // eq. (5)
            if (pt.viscous) f += pt.C * sd;
        } else {
            ConstitutiveLaw::Vec stl(6), sdl(6), fl(6);
            ConstitutiveLaw::Mat Del(6, 6), Dvl(6, 6);
            stl = st;
            sdl = sd;
            pt.law->Evaluate(stl, sdl, fl, &Del, &Dvl);
            f = fl;
            De = Del;
            Dv = Dvl;
        }
        const Mat6& DE = pt.linear ? pt.K : De;
        const Mat6& DV = pt.linear ? pt.C : Dv;
        const bool viscous = pt.viscous || !pt.linear;
        // D B for a 6 x 3 block B; a diagonal law's product without its zero terms.
        const auto times = [&pt](const Mat6& Dm, const Mat63& B) -> Mat63 {
            if (pt.diagonal) return Dm.diagonal().asDiagonal() * B;
            return Dm * B;
        };
        const Vec3 F = Rs * f.head<3>();
        const Vec3 M = Rs * f.tail<3>();
        // eq. (6)
        const int ia = pt.left, ib = pt.right;
        const Vec3 ra = p - ctx.node[ia]->x, rb = p - ctx.node[ib]->x;
        out.f.template segment<3>(6 * ia) += F;
        out.f.template segment<3>(6 * ia + 3) += M + ra.cross(F);
        out.f.template segment<3>(6 * ib) -= F;
        out.f.template segment<3>(6 * ib + 3) -= M + rb.cross(F);
        if (!out.want_jacobian) continue;

        // Jacobian node by node: 3x3 blocks of the variations of eqs. (7)-(12) with respect to
        // node j's dx_j (x) and dtheta_j (t).
        const Mat3 W = Lam * T;                         // eq. (8)
        const Mat3 D = so3::TexpDerivative(phi, dphi);  // eq. (10)
        const Mat3 RsT = Rs.transpose();
        const Mat3 DeltaT = pt.Delta.transpose();
        const Mat3 Sl = Skew(l), SF = Skew(F), SM = Skew(M);
        const Mat3 Sra = Skew(ra), Srb = Skew(rb);
        std::array<Mat3, N> Th, Ph, Php;  // dtheta_s, dphi, dphi' by dtheta_j
        Th[kRef] = Mat3::Identity();
        Ph[kRef].setZero();
        Php[kRef].setZero();
        for (int j = 0; j < N; ++j) {
            if (j == kRef) continue;
            Ph[j] = pt.Nv[j] * H[j];  // eq. (7)
            Php[j] = pt.dNv[j] * H[j];
            Th[j] = W * Ph[j];
            Ph[kRef] -= Ph[j];
            Php[kRef] -= Php[j];
            Th[kRef] -= Th[j];
        }
        const Mat3 SEt = Skew(et), Sw = Skew(w), Swp = Skew(wp);
        const Mat3 RsTSw = RsT * Sw;
        for (int j = 0; j < N; ++j) {
            const double c = pt.dNv[j] * iJ;
            // eqs. (9), (10): strain by dx_j (top rows only) and by dtheta_j
            Mat63 Bt;
            Bt.template topRows<3>() = RsT * (Sl * Th[j] - c * Sa[j]);
            Bt.template bottomRows<3>() = DeltaT * (T * Php[j] + D * Ph[j]) * iJ;
            Mat63 dfx;
            if (pt.diagonal) {
                dfx.template topRows<3>() =
                    (DE.diagonal().template head<3>().asDiagonal() * RsT) * c;
                dfx.template bottomRows<3>().setZero();
            } else {
                dfx = (DE.template leftCols<3>() * RsT) * c;
            }
            Mat63 dft = times(DE, Bt);
            Mat63 dvx, dvt;  // viscous: d(f)/dv_j, d(f)/dw_j
            if (viscous) {
                // eq. (11)
                Mat63 Bqt, Bqx, Bvx, Bvt;
                Bqt.template topRows<3>() =
                    RsT * (SEt * Th[j] - c * Skew(ctx.node[j]->w) * Sa[j] + Sw * (c * Sa[j]));
                Bqt.template bottomRows<3>() = RsT * (Swp * Th[j]);
                Bqx.template topRows<3>() = -c * RsTSw;
                Bqx.template bottomRows<3>().setZero();
                dft += times(DV, Bqt);
                dfx += times(DV, Bqx);
                Bvx.template topRows<3>() = c * RsT;
                Bvx.template bottomRows<3>().setZero();
                Bvt.template topRows<3>() = RsT * (pt.Nv[j] * Sl - c * Sa[j]);
                Bvt.template bottomRows<3>() = c * RsT;
                dvx = times(DV, Bvx);
                dvt = times(DV, Bvt);
            }
            // eq. (12)
            // A diagonal law leaves the moment rows of dfx and dvx zero.
            const Mat3 GFx = Rs * dfx.template topRows<3>();
            const Mat3 GMx =
                pt.diagonal ? Mat3::Zero().eval() : Mat3(Rs * dfx.template bottomRows<3>());
            const Mat3 GFt = -SF * Th[j] + Rs * dft.template topRows<3>();
            const Mat3 GMt = -SM * Th[j] + Rs * dft.template bottomRows<3>();
            const Mat3 SFPx = pt.Nv[j] * SF, SFPt = -pt.Nv[j] * (SF * Sa[j]);
            Mat3 GFvx, GMvx, GFvt, GMvt;
            if (viscous) {
                GFvx = Rs * dvx.template topRows<3>();
                GMvx = pt.diagonal ? Mat3::Zero().eval() : Mat3(Rs * dvx.template bottomRows<3>());
                GFvt = Rs * dvt.template topRows<3>();
                GMvt = Rs * dvt.template bottomRows<3>();
            }
            for (int side = 0; side < 2; ++side) {
                const int i = side == 0 ? ia : ib;
                const double sign = side == 0 ? 1.0 : -1.0;  // K = -df/dq
                const Mat3& Sr = side == 0 ? Sra : Srb;
                Mat3 dMx = GMx + Sr * GFx - SFPx;
                if (i == j) dMx += SF;
                const Mat3 dMt = GMt + Sr * GFt - SFPt;
                out.K.template block<3, 3>(6 * i, 6 * j) -= sign * GFx;
                out.K.template block<3, 3>(6 * i, 6 * j + 3) -= sign * GFt;
                out.K.template block<3, 3>(6 * i + 3, 6 * j) -= sign * dMx;
                out.K.template block<3, 3>(6 * i + 3, 6 * j + 3) -= sign * dMt;
                if (!viscous) continue;
                out.C.template block<3, 3>(6 * i, 6 * j) -= sign * GFvx;
                out.C.template block<3, 3>(6 * i, 6 * j + 3) -= sign * GFvt;
                out.C.template block<3, 3>(6 * i + 3, 6 * j) -= sign * (GMvx + Sr * GFvx);
                out.C.template block<3, 3>(6 * i + 3, 6 * j + 3) -= sign * (GMvt + Sr * GFvt);
            }
        }
    }
}

template <int N>
double Beam<N>::PotentialEnergy(const ElementContext& ctx) const {
    double energy = 0.0;
    std::array<SectionState, kPoints> sections;
    Sections(ctx, sections, 0, kPoints, false);
    for (int e = 0; e < kPoints; ++e) {
        const SectionState& s = sections[e];
        ConstitutiveLaw::Vec st(6);
        st << s.eps, s.kap;
        energy += points_[e].weight * points_[e].J * points_[e].law->Energy(st);
    }
    return energy;
}

template <int N>
void Beam<N>::WriteReaction(std::ostream& os, const ElementContext& ctx) const {
    const int p = static_cast<int>(os.precision());
    char line[24 + 6 * kPoints * (kMaxNumberChars + 1)];
    char* o = FormatNumber(line, static_cast<long>(label()));
    std::array<SectionState, kPoints> sections;
    Sections(ctx, sections, 0, kPoints, true);
    for (int e = 0; e < kPoints; ++e) {
        const SectionState& s = sections[e];
        o = FormatVector3(o, s.Fs, p);
        o = FormatVector3(o, s.Ms, p);
    }
    *o++ = '\n';
    os.write(line, o - line);
}

template <int N>
void Beam<N>::OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                            std::vector<Vec3>& moment) const {
    std::array<SectionState, kPoints> sections;
    Sections(ctx, sections, 0, kPoints, true);
    for (int e = 0; e < kPoints; ++e) {
        const SectionState& s = sections[e];
        force.push_back(s.F);
        moment.push_back(s.M);
    }
}

template <int N>
NetcdfGroup Beam<N>::NetcdfDescription(const Element& /*element*/) const {
    NetcdfGroup g;
    g.prefix = "elem.beam";
    bool viscous = false;
    for (const BeamPoint<N>& pt : points_) viscous = viscous || pt.law->IsViscous();
    g.type = viscous ? "viscoelastic" : "elastic";
    for (int e = 0; e < kPoints; ++e) {
        const std::string suffix = N == 3 ? (e == 0 ? "_I" : "_II") : "";
        const std::string where = N == 3 ? (e == 0 ? "evaluation point I " : "evaluation point II ")
                                         : "evaluation point ";
        g.variables.push_back({"F" + suffix, OutputQuantity::kForce,
                               where + "internal force in local frame (F_X, F_Y, F_Z)"});
        g.variables.push_back({"M" + suffix, OutputQuantity::kMoment,
                               where + "internal moment in local frame (M_X, M_Y, M_Z)"});
    }
    return g;
}

template <int N>
bool Beam<N>::NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const {
    out.resize(6 * kPoints);
    std::array<SectionState, kPoints> sections;
    Sections(ctx, sections, 0, kPoints, true);
    for (int e = 0; e < kPoints; ++e) {
        const SectionState& s = sections[e];
        for (int i = 0; i < 3; ++i) {
            out[6 * e + i] = s.Fs[i];
            out[6 * e + 3 + i] = s.Ms[i];
        }
    }
    return true;
}

template <int N>
std::string Beam<N>::LogDescription() const {
    std::ostringstream os;
    double length = 0.0;
    for (const BeamPoint<N>& pt : points_) length += pt.weight * pt.J;
    os << type() << ' ' << label() << ": reference length " << length;
    for (int e = 0; e < kPoints; ++e)
        os << "; point " << (e == 0 ? "I" : "II") << ": " << points_[e].law->Describe();
    return os.str();
}

template <int N>
std::string Beam<N>::MbdynLogLine(const LogLineContext& ctx) const {
    LogLine line(N == 3 ? "beam3" : "beam2", label(), ctx.precision);
    for (int i = 0; i < N; ++i) line.Node(ctx.node_label[i]).Vec(offset_[i]);
    return line.str();
}

template class Beam<2>;
template class Beam<3>;

// ---------------------------------------------------------------------------------------------
// Input

namespace {

struct NodeRead {
    BeamNodeInput input;
    SourceLocation where;
};

NodeRead ReadNode(DeckInput& in) {
    NodeRead r;
    r.where = in.Where();
    r.input.node = in.GetNode("beam node label");
    const FrameState& rf = in.node(r.input.node).initial;
    in.IsKeyword("position");
    const SourceLocation at = in.Where();
    r.input.offset = in.GetPosition(rf, "beam node offset");
    if (!r.input.offset.allFinite()) in.Fail(at, "beam node offset is not finite");
    if (in.IsKeyword("orientation")) {
        const SourceLocation at_o = in.Where();
        r.input.relative = in.GetOrientation(rf, "beam node relative orientation");
        const Mat3& R = r.input.relative;
        if (!R.allFinite() || (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff() > 1e-6 ||
            R.determinant() < 0.0)
            in.Fail(at_o, "relative orientation is not an orthonormal rotation matrix");
    }
    return r;
}

Mat3 ReadSectionOrientation(DeckInput& in, const char* what) {
    const SourceLocation at = in.Where();
    const Mat3 R = in.GetOrientation(FrameState{}, what);
    if (!R.allFinite() || (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff() > 1e-6 ||
        R.determinant() < 0.0)
        in.Fail(at, std::string(what) + " is not an orthonormal rotation matrix");
    return R;
}

// `from nodes`: the nodes' orientations (times their relative orientations) interpolated at
// xi by eq. (1).
template <int N>
Mat3 FromNodes(DeckInput& in, const std::array<NodeRead, N>& nodes, double xi) {
    constexpr int r = N == 3 ? 1 : 0;
    const std::array<double, N> Nv = ShapeFunctions<N>(xi);
    std::array<Mat3, N> L;
    for (int j = 0; j < N; ++j)
        L[j] = in.node(nodes[j].input.node).initial.R * nodes[j].input.relative;
    Vec3 phi = Vec3::Zero();
    for (int j = 0; j < N; ++j)
        if (j != r) phi += Nv[j] * RelativeLog(L[r].transpose() * L[j]);
    return L[r] * so3::Exp(phi);
}

// The section stiffness of a linear law must be positive definite (a beam without stiffness in
// some direction has a singular Jacobian).
void CheckLaw(DeckInput& in, const SourceLocation& at, const ConstitutiveLaw& law) {
    if (!law.IsLinear()) return;
    const ConstitutiveLaw::Mat K = law.Stiffness();
    const Mat6 S = 0.5 * (K + K.transpose());
    const double lo =
        Eigen::SelfAdjointEigenSolver<Mat6>(S, Eigen::EigenvaluesOnly).eigenvalues().minCoeff();
    if (!(lo > 0.0)) {
        std::ostringstream os;
        os << "the beam section stiffness is not positive definite (smallest eigenvalue of its "
              "symmetric part "
           << lo << ")";
        in.Fail(at, os.str());
    }
}

void ReadOptions(DeckInput& in) {
    while (in.HasArg()) {
        const SourceLocation at = in.Where();
        if (in.IsKeyword("custom output")) {
            // flags until the end of the statement (MBDyn writes them to NetCDF only)
            while (in.HasArg())
                in.GetKeyword(
                    "custom output flag",
                    {"position", "orientation", "configuration", "force", "moment", "forces",
                     "linear strain", "angular strain", "strains", "linear strain rate",
                     "angular strain rate", "strain rates", "all", "none"});
            in.Warn(at,
                    "beam 'custom output' ignored: MBDyn writes it to NetCDF only, and the "
                    ".act file has the section forces");
        } else if (in.IsKeyword("piezoelectric actuator") || in.IsKeyword("piezoelectric beam")) {
            in.Fail(at, "piezoelectric beams are not supported");
        } else {
            in.Fail(at, "unexpected argument in beam; accepted: custom output");
        }
    }
}

template <int N>
std::unique_ptr<Element> ReadBeam(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const SourceLocation where = in.Where();
    std::array<NodeRead, N> nodes;
    for (int j = 0; j < N; ++j) nodes[j] = ReadNode(in);
    std::array<FrameState, N> initial;
    for (int j = 0; j < N; ++j) initial[j] = in.node(nodes[j].input.node).initial;
    // Coincident beam points: the beam has no length.
    double scale = 0.0;
    std::array<Vec3, N> y;
    for (int j = 0; j < N; ++j) {
        y[j] = initial[j].x + initial[j].R * nodes[j].input.offset;
        scale = std::max(scale, y[j].norm());
    }
    for (int j = 1; j < N; ++j)
        for (int k = 0; k < j; ++k)
            if ((y[j] - y[k]).norm() <= 1e-12 * std::max(1.0, scale))
                in.Fail(nodes[j].where, "beam points of nodes " +
                                            std::to_string(in.node(nodes[k].input.node).label) +
                                            " and " +
                                            std::to_string(in.node(nodes[j].input.node).label) +
                                            " coincide: the beam has zero length there");

    std::array<Mat3, N - 1> section;
    std::array<ConstitutiveLawPtr, N - 1> laws;
    bool from_nodes = false;
    for (int e = 0; e < N - 1; ++e) {
        const double xi = N == 3 ? (e == 0 ? -1.0 : 1.0) / std::sqrt(3.0) : 0.0;
        const SourceLocation at_o = in.Where();
        if (e > 0 && in.IsKeyword("same")) {
            section[e] = from_nodes ? FromNodes<N>(in, nodes, xi) : section[0];
        } else if (in.IsKeyword("same")) {
            in.Fail(at_o, "'same' is not valid for the first evaluation point");
        } else if (in.IsKeyword("from nodes")) {
            from_nodes = true;
            section[e] = FromNodes<N>(in, nodes, xi);
        } else {
            section[e] = ReadSectionOrientation(
                in, e == 0 ? "section orientation of point I" : "section orientation of point II");
        }
        const SourceLocation at_l = in.Where();
        if (e > 0 && in.IsKeyword("same")) {
            laws[e] = laws[0];
        } else if (in.IsKeyword("same")) {
            in.Fail(at_l, "'same' is not valid for the first evaluation point");
        } else {
            laws[e] = in.GetConstitutiveLaw(
                6, e == 0 ? "beam section law of point I" : "beam section law of point II");
            CheckLaw(in, at_l, *laws[e]);
        }
    }
    ReadOptions(in);
    std::array<BeamNodeInput, N> inputs;
    for (int j = 0; j < N; ++j) inputs[j] = nodes[j].input;
    auto b = std::make_unique<Beam<N>>(args.label, inputs, initial, section, laws);
    for (int e = 0; e < N - 1; ++e)
        if (!(b->point(e).J > 1e-12 * std::max(1.0, scale)))
            in.Fail(where, "the beam has zero length at its evaluation point " +
                               std::string(e == 0 ? "I" : "II"));
    b->set_where(where);
    return b;
}

}  // namespace

std::unique_ptr<Element> ReadBeam3(ElementReadArgs& args) { return ReadBeam<3>(args); }
std::unique_ptr<Element> ReadBeam2(ElementReadArgs& args) { return ReadBeam<2>(args); }

}  // namespace mbstep::beams
