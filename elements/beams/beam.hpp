// mbstep — finite-volume beams (MBDyn `beam3`, `beam2`): geometrically exact, shear-deformable
// beams whose internal forces are evaluated at points between the nodes and applied to the
// nodes by the equilibrium of the volumes around them [Ghiringhelli, Masarati, Mantegazza,
// "Multibody implementation of finite volume C0 beams", AIAA J. 38(1), 2000; MBDyn input
// manual, "Beam Elements"]. Force providers: no multipliers, no inertia (MBDyn decks lump the
// beam's mass in `body` elements on its nodes).
//
// Nodes j = 1..n (n = 3: beam3, n = 2: beam2) with state (x_j, R_j, v_j, w_j), offsets f_j
// (node frame) and arms a_j = R_j f_j; beam points y_j = x_j + a_j. Abscissa xi in [-1, 1]
// (nodes at -1, 0, 1 or -1, 1), shape functions
//   beam3: N_1 = xi (xi - 1)/2, N_2 = 1 - xi^2, N_3 = xi (xi + 1)/2; points xi = -+1/sqrt(3)
//   beam2: N_1 = (1 - xi)/2,    N_2 = (1 + xi)/2;                    point  xi = 0
// and N'_j = dN_j/dxi. At each evaluation point, with J = |sum N'_j y_j| at t0 (ds/dxi):
//
// Rotation field [Jelenic, Crisfield, "Geometrically exact 3D beam theory: implementation of a
// strain-invariant finite element for statics and dynamics", CMAME 171 (1999)]: nodal triads
// L_j = R_j Gamma_j (Gamma_j constant, all L_j equal to the section frame of point I at t0),
// interpolated about the reference node r (beam3: node 2, beam2: node 1):
//   (1) phi_j = log(L_r^T L_j),  phi = sum N_j phi_j,  phi' = sum N'_j phi_j,
//       L = L_r exp(phi),  R_s = L Delta                  (section frame; Delta constant, so
//                                                           that R_s(t0) is the deck's)
// Generalized strains (section frame, per unit reference length):
//   (2) l = sum N'_j y_j / J,            eps = R_s^T l - eps0
//   (3) k = T(phi) phi' / J,             kap = Delta^T k - kap0
//       (T = T_exp of math/so3.hpp; eps0, kap0 their values at t0, so the deck's configuration
//       is stress free). Rigid motions leave (2), (3) unchanged (objectivity), and they depend
//       on the current configuration only (no history).
// Strain rates (MBDyn's: interpolated nodal angular velocities; objective):
//   (4) w = sum N_j w_j,  w' = sum N'_j w_j / J,  l. = sum N'_j (v_j + w_j x a_j) / J,
//       eps. = R_s^T (l. - w x l),  kap. = R_s^T w'
// Section forces by the 6-D constitutive law (F, M in the section frame, then global):
//   (5) (F_s, M_s) = law(eps, kap, eps., kap.),  F = R_s F_s,  M = R_s M_s
// Finite-volume balance: the point between nodes a (left) and b (right), at p = sum N_j y_j,
// transmits F, M; the volume of node a receives them, that of node b their opposites, with
// moments about the node points:
//   (6) f_a += (F, M + (p - x_a) x F),   f_b -= (F, M + (p - x_b) x F)
//       (beam3: point I between nodes 1, 2 and point II between nodes 2, 3; beam2: nodes 1, 2)
//
// Exact derivatives (spatial increments dtheta; H_j = T(phi_j)^-1 L_j^T, node r: phi_r = 0):
//   (7) dphi_j = H_j (dtheta_j - dtheta_r)
//   (8) dtheta_s = dtheta_r + L T(phi) dphi           (spatial increment of L and R_s)
//   (9) deps = R_s^T (skew(l) dtheta_s + dl),  dl = sum N'_j (dx_j - skew(a_j) dtheta_j) / J
//  (10) dkap = Delta^T (T(phi) dphi' + D(phi, phi') dphi) / J,  D(phi, a) = d(T(phi) a)/dphi
//       (math/so3.hpp (5))
//  (11) deps. = R_s^T (skew(eps.~) dtheta_s - sum N'_j skew(w_j) skew(a_j) dtheta_j / J
//               - skew(w) dl) + R_s^T (sum N'_j (dv_j - skew(a_j) dw_j) / J + N_j skew(l) dw_j)
//       with eps.~ = l. - w x l;  dkap. = R_s^T (skew(w') dtheta_s + sum N'_j dw_j / J)
//  (12) dF = -skew(F) dtheta_s + R_s dF_s,  dM = -skew(M) dtheta_s + R_s dM_s,
//       d((p - x_i) x F) = -skew(F) (dp - dx_i) + skew(p - x_i) dF,
//       dp = sum N_j (dx_j - skew(a_j) dtheta_j)
// The stiffness of a finite-volume beam is not symmetric ((6) is a balance, not a gradient).
//
// Energy (.csv potential): sum over points of w_e J W(eps, kap), W the law's stored energy
// and w_e the Gauss weight of the point (1 for beam3, 2 for beam2).
//
// Deck syntax [MBDyn manual, "Beam Elements"]:
//   beam3: <label>,
//       <node 1>, [position,] <offset 1> [, orientation, <relative orientation 1>],
//       <node 2>, ..., <node 3>, ...,
//       { <orientation I> | from nodes }, <6-D law I>,
//       { same | <orientation II> | from nodes }, { same | <6-D law II> } [, custom output, ...];
//   beam2: <label>, <node 1> ..., <node 2> ..., { <orientation I> | from nodes }, <6-D law I>
//       [, custom output, ...];
//   Offsets are in the node frame (`reference, node, ...`); section orientations are absolute
//   (axis 1 along the beam); `from nodes` interpolates the nodes' orientations (times their
//   relative orientations) by (1). A 6-D law is any registered law or `reference, <label>`.
//   Refused: coincident beam points (zero length), a non positive-definite section stiffness
//   of a linear law, `same` at point I, piezoelectric beams. `custom output` is read and
//   ignored with a warning (MBDyn writes it to NetCDF only).
// Output (.act, MBDyn layout): label, then F_s, M_s of point I (and of point II for beam3),
// section frame.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "mbstep/model/constitutive_law.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::beams {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

/// One evaluation point of a beam: shape functions, reference data and its law.
template <int N>
struct BeamPoint {
    std::array<double, N> Nv{};   // N_j(xi)
    std::array<double, N> dNv{};  // N'_j(xi)
    double J{1.0};                // ds/dxi at t0
    double weight{1.0};           // Gauss weight (energy)
    int left{0}, right{1};        // the nodes whose volumes it separates
    Mat3 Delta{Mat3::Identity()};
    Vec3 eps0{Vec3::Zero()}, kap0{Vec3::Zero()};
    ConstitutiveLawPtr law;
    bool linear{true};
    bool viscous{false};
    bool diagonal{false};                   // linear, K and C diagonal
    Mat6 K{Mat6::Zero()}, C{Mat6::Zero()};  // the linear law's matrices
};

/// Data of one node of the beam as read from the deck.
struct BeamNodeInput {
    int node{-1};
    Vec3 offset{Vec3::Zero()};        // node frame
    Mat3 relative{Mat3::Identity()};  // relative orientation (used by `from nodes`)
};

/// Section kinematics and forces of one point at the current state (eqs. (1)-(5)).
struct SectionState {
    Mat3 Rs;          // section frame
    Vec3 eps, kap;    // strains
    Vec3 epsd, kapd;  // rates
    Vec3 Fs, Ms;      // section forces, section frame
    Vec3 F, M;        // global
    Vec3 p;           // point position
};

template <int N>
class Beam final : public Element, public ElementOutput {
  public:
    /// nodes: the beam's nodes with offsets; R_I, R_II: section orientations at t0 (absolute;
    /// R_II ignored for beam2); laws per point; initial: the nodes' initial states.
    Beam(int label, const std::array<BeamNodeInput, N>& nodes,
         const std::array<FrameState, N>& initial, const std::array<Mat3, N - 1>& section,
         const std::array<ConstitutiveLawPtr, N - 1>& laws);

    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    double PotentialEnergy(const ElementContext& ctx) const override;
    const ElementOutput* output() const override { return this; }
    bool HasReactionOutput() const override { return true; }
    const char* output_extension() const override { return "act"; }
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override;
    /// The internal force and moment at each evaluation point, global frame (one per segment).
    void OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                       std::vector<Vec3>& moment) const override;
    /// MBDyn's `elem.beam.<label>` (Beam::OutputPrepare, Beam2::OutputPrepare with the default
    /// output flags): type elastic | viscoelastic, the internal force and moment in the
    /// section frame at each evaluation point (`F_I`, `M_I`, `F_II`, `M_II`; beam2 `F`, `M`).
    NetcdfGroup NetcdfDescription(const Element& element) const override;
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override;
    std::string LogDescription() const override;
    /// beam3|beam2: <label> <node 1> f_1 <node 2> f_2 [<node 3> f_3] (MBDyn's ReadBeam,
    /// mbdyn/struct/beam.cc, beam2.cc: the nodes' offsets, node frames).
    std::string MbdynLogLine(const LogLineContext& ctx) const override;

    static constexpr int kPoints = N - 1;
    /// eqs. (1)-(5) at point e (tests, output).
    SectionState Section(const ElementContext& ctx, int e) const;
    const BeamPoint<N>& point(int e) const { return points_[e]; }

  private:
    static constexpr int kRef = N == 3 ? 1 : 0;  // the reference node r of (1)
    void Sections(const ElementContext& ctx, std::array<SectionState, kPoints>& out, int first,
                  int last, bool forces) const;
    std::array<Vec3, N> offset_;
    std::array<Mat3, N> Gamma_;
    std::array<BeamPoint<N>, N - 1> points_;
};

/// The shape functions and evaluation points of beam3 / beam2.
template <int N>
std::array<double, N> ShapeFunctions(double xi);
template <int N>
std::array<double, N> ShapeDerivatives(double xi);

std::unique_ptr<Element> ReadBeam3(ElementReadArgs& args);
std::unique_ptr<Element> ReadBeam2(ElementReadArgs& args);

}  // namespace mbstep::beams
