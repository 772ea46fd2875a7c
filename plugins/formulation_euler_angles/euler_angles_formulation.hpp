// mbstep — formulation `euler angles`: the classical second-order index-3 DAE in Cardan /
// Tait–Bryan xyz angles ("Rxyz", classical formulation 2 of [Holzinger, Arnold, Gerstmayr],
// Multibody Syst Dyn (2024), doi:10.1007/s11044-024-09970-8, eqs. (12)-(14)), q = (x, theta) per
// structural node (6 coordinates), v = q', a = q''.
//
// Rotation (123 / intrinsic x-y-z sequence, as Exudyn's Rxyz nodes and MBDyn's euler123):
//
//   (1) R(theta) = Rx(theta1) Ry(theta2) Rz(theta3)
//
// Angular velocities: body W = Gb(theta) theta', spatial w = R W = Gs(theta) theta', with
//
//   (2) Gb = [ c2 c3   s3  0 ]        Gs = R Gb = [ 1   0    s2    ]
//            [-c2 s3   c3  0 ]                    [ 0   c1  -s1 c2 ]
//            [ s2      0   1 ]                    [ 0   s1   c1 c2 ]
//
// (ci = cos theta_i, si = sin theta_i); det Gb = det Gs = c2: singular at theta2 = +-pi/2 (mod
// pi), where R e_z = +-e_x. The rotation increment of the element contract (spatial, left) is
// dtheta_W = Gs(theta) dtheta, since dR/dtheta_k = skew(Gs e_k) R. The paper's Ĝ is Gb.
//
// Equations of motion per node (node-frame inertia of the attached bodies: mass m, first moment
// s = m c, J about the node; F, M_W the elements' force and moment about the node, global,
// reactions included): the Lie group formulation's equations (lie_group_formulation.hpp (1),
// (2)) with W' = Gb theta'' + c, c = Gb' theta' = sum_k theta'_k (dGb/dtheta_k) theta', and the
// moment rows multiplied by Gb^T (the paper's H^T):
//
//   (3) m x'' - R s~ Gb theta''            + R (-s~ c + W~ W~ s)         - F        = 0
//   (4) Gb^T s~ R^T x'' + Gb^T J Gb theta'' + Gb^T (J c + W~ J W)         - Gs^T M_W = 0
//   (5) phi(q, t)                                                                    = 0
//
// (s~ = skew(s)). For s = 0, (4) is eq. (14) of the paper: M = Gb^T J Gb, gyroscopic terms
// (J Gb' + W~ J Gb) theta'. The mass matrix is symmetric; for s != 0 (centre of mass off the
// node) the coupling blocks are those of the Lie group formulation mapped by Gb.
//
// Jacobians (all exact, finite-difference tested over the registry): the element blocks are
// mapped with P = diag(I, Gs) and the velocity map dw/dtheta = -skew(w) Gs + R dGb(theta'),
//
//   df/dq = P^T (K_el P + C_el diag(0, dw/dtheta)) - d(Gs^T M_W)/dtheta,  df/dv = P^T C_el P,
//   df/dlambda = -P^T L_el,  dphi/dq = phi_q P,
//   d(Gs^T M)/dtheta = dGb^T(R^T M) + Gb^T R^T skew(M) Gs,
//
// with dGb(z) = [dGb/dtheta_k z]_k and dGb^T(y) = [dGb/dtheta_k^T y]_k; the inertia terms are
// differentiated through d(R y)/dtheta = -skew(R y) Gs, d(R^T y)/dtheta = R^T skew(y) Gs and
// the second derivatives of Gb (see the .cpp).
//
// Singularity: Cardan angles cannot represent a node whose body z axis is along +-global x.
// At the start and after every converged step, a node with theta2 within 1e-3 rad of +-pi/2
// (mod pi, i.e. |cos theta2| < sin 1e-3) stops the run with a RunError naming the node and
// suggesting `euler parameters` or `lie group`; the step that gets there is the last one
// written.
//
// Initial conditions: theta from the deck's rotation matrix (inverse of (1), theta2 in
// [-pi/2, pi/2]), theta' = Gs^-1 w0; a and the multipliers from one linear solve
// [M, L; B, 0] (a; lambda) = (-f(lambda = 0); -phi_dd), phi_dd the second time derivative of phi
// along q + tau v, t + tau (central differences, Richardson), as `euler parameters`.
//
// Limits (refused with a message): static nodes (no inertia: the initial acceleration solve is
// singular) and velocity-level constraint rows (the second-order interface has no dphi/dv).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/formulation/second_order_base.hpp"
#include "xyz_angles.hpp"

namespace mbstep::euler_angles {

class EulerAnglesFormulation final : public VectorSpaceFormulationBase {
  public:
    explicit EulerAnglesFormulation(const Model& model);

    std::string name() const override { return "euler angles"; }
    void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda,
                  Eigen::VectorXd& Ma, Eigen::VectorXd& f, Eigen::VectorXd& phi) override;
    void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda,
                  Jacobians& J) override;
    void InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                           Eigen::VectorXd& lambda) override;
    void AfterConvergence(const Eigen::VectorXd& v, const Eigen::VectorXd& lambda) override;

  protected:
    const std::vector<std::string>& NodeRowNames() const override;

  private:
    void ComputeStates(const Eigen::VectorXd& v) override;
    void CheckSingularity() const;
    std::string FailureContext() const override;
};

}  // namespace mbstep::euler_angles
