// mbstep — formulation `lie group`: R^3 x SO(3) per node, rotation-vector local coordinates,
// body-frame angular velocities; a SecondOrderProblem for the Newmark family (Lie group
// generalized-alpha) [Brüls, Cardona, Arnold 2012; Holzinger, Arnold, Gerstmayr, Multibody Syst
// Dyn (2024), doi:10.1007/s11044-024-09970-8].
//
// Per structural node i: configuration q_i = (x, R) (12 stored values: x, then R column-major),
// velocity v_i = (u, W) with u = x' (global) and W the body angular velocity (spatial w = R W),
// acceleration a_i = (u', W'). Node-frame inertia of the attached bodies: mass m, s = m c
// (c the centre-of-mass offset), J about the node point. With F, M_W the force and the moment
// about the node (global) that the elements apply (reactions included) and P = diag(I, R):
//
//   (1) M(q) a = [ m u' - R (s x W')       ]        (symmetric: [m I, -R s~; s~ R^T, J])
//                [ s x (R^T u') + J W'     ]
//   (2) f      = [ R (W x (W x s)) - F     ]        force rows global, moment rows body frame
//                [ W x (J W) - R^T M_W     ]
//   (3) phi    = the elements' position-level constraints phi(x, R, t)
//   (4) q (+) dq = (x + dx, R exp(skew(dtheta)))    the local-global transition ("UAC"): the
//                                                   position coordinates update additively
//   (5) T(dq)  = diag(I, T_exp(dtheta))             math/so3.hpp, eq. (2)
//
// (1)-(2) follow from the kinetic energy 1/2 m u.u + u.R(W x s) + 1/2 W.J W; for s = 0 they
// reduce to m u' = F, J W' + W x J W = R^T M_W. Element blocks are given in twist space with
// spatial left increments: dtheta_W = R dtheta, and w = R W, so for element nodes i, j
//
//   (6) df/dq  = P_i^T (K_ij diag(I, R_j) + C_ij diag(0, -R_j skew(W_j)))
//                - delta_ij diag(0, skew(R_i^T M_W,i))
//   (7) df/dv  = P_i^T C_ij diag(I, R_j),   df/dlambda = -P_i^T L_i,   dphi/dq = phi_q,j diag(I,
//   R_j)
//
// plus the inertia derivatives (d/dtheta along (4), s the offset):
//   d(Ma)/dq: force rows -R skew(W' x s), moment rows skew(s) skew(R^T u');
//   df/dv: force rows R (-skew(W x s) - skew(W) skew(s)), moment rows skew(W) J - skew(J W);
//   df/dq: force rows -R skew(W x (W x s)).
// Orientations are re-orthonormalised after every retraction (so3::Orthonormalize), so they
// stay orthonormal to round-off (tested to 1e-13).
//
// Initial conditions: v from the nodes' initial twists (W = R^T w), then a and lambda from
// [M, L; B, 0] (a; lambda) = -(f(lambda = 0); d/dtau (phi_q v + phi_t)) along the constant-twist
// motion (central differences, Richardson extrapolated, as in the cgr formulation).
//
// Not yet supported (refused with a message naming the element): velocity-level constraints
// (the SecondOrderProblem has no dphi/dv block).
#pragma once

#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/formulation/second_order_base.hpp"

namespace mbstep::lie_group {

class LieGroupFormulation final : public SecondOrderFormulationBase {
  public:
    explicit LieGroupFormulation(const Model& model);

    std::string name() const override { return "lie group"; }
    bool vector_space() const override { return false; }
    void set_q(const Eigen::VectorXd& q) override;
    void Retract(const Eigen::VectorXd& q0, const Eigen::VectorXd& dq,
                 Eigen::VectorXd& q1) const override;
    void TangentOperator(const Eigen::VectorXd& dq, Eigen::SparseMatrix<double>& T) const override;
    void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda,
                  Eigen::VectorXd& Ma, Eigen::VectorXd& f, Eigen::VectorXd& phi) override;
    void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda,
                  Jacobians& J) override;
    void InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                           Eigen::VectorXd& lambda) override;
    void AfterConvergence(const Eigen::VectorXd& v, const Eigen::VectorXd& lambda) override;

    /// Orientation of node i stored in q.
    static Mat3 Rotation(const Eigen::VectorXd& q, int i) {
        return Eigen::Map<const Mat3>(q.data() + 12 * i + 3);
    }

  protected:
    const std::vector<std::string>& NodeRowNames() const override;

  private:
    void UpdateStates(const Eigen::VectorXd& v);
    void EvaluateElement(int e, ElementBlock& block, bool jacobian) const;

    mutable ElementBlock block_;
    mutable FixedPatternMatrix fT_;  // T, in place in its fixed pattern
};

}  // namespace mbstep::lie_group
