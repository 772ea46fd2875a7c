// mbstep — spring-damper elements between two nodes (MBDyn `joint` statements): the rod (axial
// force between two points) and the deformable hinge (couple from the relative rotation), with
// linear elastic and linear viscoelastic constitutive laws. Force providers: no multipliers.
//
// Notation: node a (x_a, R_a, v_a, w_a), node b likewise; arms p = R f (f offsets in the node
// frames [m]); d = x_b + p_b - x_a - p_a, l = |d|, n = d / l; dv = v_b + w_b x p_b - v_a -
// w_a x p_a; spatial increments R <- exp(skew(dtheta)) R; S. = skew(.).
//
// Rod [N]:
//   (1) strain e = (l - l0) / l0,  strain rate e' = (n . dv) / l0
//   (2) tension T = F(e, e'), a 1-D constitutive law; linear laws: T = EA e + C e'
//       (EA = K, C of the law), and EA, C below stand for dT/de, dT/de' otherwise
//   (3) f = -T g,  g = dl/dq = (-n, n x p_a, n, p_b x n)   (node a pulled towards b if T > 0)
//   (4) K = -df/dq = g (dT/dq)^T + T H,  H = J^T P J + diag(-Sn Sp_a, Sn Sp_b) on the rotations,
//       J = dd/dq = [-I, Sp_a, I, -Sp_b],  P = (I - n n^T) / l,
//       dT/dq = (EA / l0) g + (C / l0) (J^T P dv + (0, (Sw_a Sp_a)^T n, 0, -(Sw_b Sp_b)^T n))
//   (5) C = -df/dv = (C / l0) g g^T                   (dl'/dv = g)
//   (6) potential energy V = EA (l - l0)^2 / (2 l0)
//   Units: EA [N] (axial stiffness times the reference length per unit strain), C [N s],
//   l0 [m] > 0.
// Deformable hinge [N m]:
//   (7) relative rotation theta = log(Rj_a^T Rj_b) (frame a), Rj = R Rh;
//       relative angular velocity w_r = Rj_a^T (w_b - w_a)
//   (8) couple m = F(theta, w_r), a 3-D constitutive law (linear: K theta + C w_r; K, C below
//       stand for dF/dtheta, dF/dw_r otherwise) in frame a; M_b = -Rj_a m, M_a = Rj_a m
//   (9) d theta = Jl^-1(theta) Rj_a^T (dtheta_b - dtheta_a),
//       Jl^-1 = I - 1/2 S theta + beta S theta^2, beta = 1/t^2 - (1 + cos t) / (2 t sin t),
//       t = |theta| (Taylor 1/12 + t^2/720 below 1e-3): the inverse left Jacobian of SO(3)
//  (10) -dM_b: dtheta_a -> S(Rj_a m) + Rj_a K Jl^-1 Rj_a^T - Rj_a C Rj_a^T S(w_b - w_a),
//       dtheta_b -> -Rj_a K Jl^-1 Rj_a^T;  dw_b -> -Rj_a C Rj_a^T, dw_a -> Rj_a C Rj_a^T
//       (these are df/dq of M_b; K = -df/dq, and M_a = -M_b)
//  (11) potential energy V = 1/2 theta^T K theta; (8) is its gradient for an isotropic K
//       (K theta is then parallel to theta and Jl^-T theta = theta); for an anisotropic K the
//       couple is MBDyn's K theta, which is not exactly conservative for large rotations.
//   Units: K [N m/rad], C [N m s/rad]; relative rotations below pi.
//
// Deck syntax [MBDyn input manual, sections "Rod", "Deformable hinge" and "Constitutive
// laws", manual/input/joints.tex, manual/input/constltype.tex]:
//   joint: <label>, rod, <node a> [, position, <f_a>], <node b> [, position, <f_b>],
//          { <l0> | from nodes }, <1D law> ;
//   joint: <label>, deformable hinge, <node a> [, position, <f_a>]
//          [, { orientation | hinge }, <Rh_a>], <node b> [, position, <f_b>]
//          [, { orientation | hinge }, <Rh_b>], <3D law>
//          [, orientation description, <d> ] ;
// Output (.jnt, F and M the force and couple on node a):
//   rod [MBDyn mbdyn/struct/rodj.cc, Rod::Output / OutputPrepare]: label, (T, 0, 0) (a frame
//     with axis 1 along the rod), 0, F, 0, then the length l, the unit direction d / l and
//     the lengthening rate l' = (d / l) . d': 18 columns (MBDyn appends its constitutive
//     law's own output, nothing for the linear laws). NetCDF: f, m, F, M, then Rod::OutputPrepare's
//     scalars l ("length of the element", length) and lP ("lengthening velocity of the
//     element", velocity: MBDyn's "m/2" is a slip for it), and v ("direction unit vector",
//     units "m" in MBDyn; mbstep's unit attribute is the length's).
//   deformable hinge [MBDyn mbdyn/struct/vehj.cc, DeformableHingeJoint::Output]: label, 0,
//     Rj_a^T M, 0, M, then Rj_a^T Rj_b in the orientation description d (Euler angles in
//     degrees, rotation vector, or the matrix row by row) and, for a viscous or viscoelastic
//     law, Rj_a^T (w_b - w_a): 16 columns (19 viscous; 6 more for the matrix). NetCDF: f, m,
//     F, M (MBDyn declares no variable of its own for it).
//   <1D law>, <3D law>: any registered constitutive law of that dimension, or `reference,
//   <label>` to a `constitutive law:` definition (elements/laws/linear_laws.hpp lists the
//   linear ones). Linear laws are applied through their constant K and C.
#pragma once

#include <memory>

#include "mbstep/model/constitutive_law.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::springs {

struct SpringSide {
    int node{-1};
    Vec3 offset{Vec3::Zero()};
    Mat3 R{Mat3::Identity()};
};

class Rod final : public Element, public ElementOutput {
  public:
    Rod(int label, const SpringSide& a, const SpringSide& b, double l0, ConstitutiveLawPtr law);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    double PotentialEnergy(const ElementContext& ctx) const override;
    const ElementOutput* output() const override { return this; }
    bool HasReactionOutput() const override { return true; }
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override;
    NetcdfGroup NetcdfDescription(const Element& element) const override;
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override;
    /// rod: <label> <node 1> f_1 <node 2> f_2 [ReadJoint, mbdyn/struct/joint.cc].
    std::string MbdynLogLine(const LogLineContext& ctx) const override;
    double l0() const { return l0_; }

  private:
    std::vector<double> Columns(const ElementContext& ctx) const;
    // T and its derivatives dT/de (EA) and dT/de' (C) at strain (l - l0)/l0 and rate rate.
    void Tension(double l, double rate, double& T, double& EA, double& C) const;
    SpringSide a_, b_;
    double l0_;
    ConstitutiveLawPtr law_;
    bool linear_;
    double EA_, C_;  // the linear law's K and C
};

class DeformableHinge final : public Element, public ElementOutput {
  public:
    DeformableHinge(int label, const SpringSide& a, const SpringSide& b, ConstitutiveLawPtr law,
                    OrientationOutput od = OrientationOutput::kEuler123);
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    double PotentialEnergy(const ElementContext& ctx) const override;
    const ElementOutput* output() const override { return this; }
    bool HasReactionOutput() const override { return true; }
    void WriteReaction(std::ostream& os, const ElementContext& ctx) const override;
    /// f, m, F, M only (MBDyn's DeformableHingeJoint declares no NetCDF variables of its own).
    bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const override;
    /// deformablehinge: <label> <node 1> f_1 R_1 <node 2> f_2 R_2 [ReadJoint, joint.cc].
    std::string MbdynLogLine(const LogLineContext& ctx) const override;

  private:
    std::vector<double> Columns(const ElementContext& ctx) const;
    // m and its derivatives dm/dtheta (K) and dm/dw_r (C).
    void Couple(const Vec3& theta, const Vec3& w_r, Vec3& m, Mat3& K, Mat3& C) const;
    SpringSide a_, b_;
    ConstitutiveLawPtr law_;
    bool linear_;
    Mat3 K_, C_;  // the linear law's K and C
    OrientationOutput od_;
};

/// eq. (9): inverse left Jacobian of SO(3) at theta.
Mat3 InverseLeftJacobian(const Vec3& theta);

std::unique_ptr<Element> ReadRod(ElementReadArgs& args);
std::unique_ptr<Element> ReadDeformableHinge(ElementReadArgs& args);

}  // namespace mbstep::springs
