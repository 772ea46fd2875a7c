// mbstep — formulation `euler parameters`: the second-order index-3 DAE of
// [Sherif, Nachbagauer, Steiner, Lauss 2019] in q = (x, e) per structural node (7 coordinates,
// e = (e0, e1, e2, e3) Euler parameters), v = q', a = q''.
//
// Notation: E(e) = [-e_v, e0 I + skew(e_v)], L(e) = [-e_v, e0 I - skew(e_v)] (3 x 4, linear in e,
// [paper] eq. (4)); |e|^2 = e^T e; the node orientation is the rotation of the normalised
// parameters, R = R(e/|e|) = E(e) L(e)^T / |e|^2, so that every Jacobian is exact also for the
// non-unit e of Newton iterates. Its exact maps to the element (twist) space are
//
//   (1) dtheta = G(e) de,  w = G(e) e',  G(e) = (2/|e|^2) E(e)    spatial increments, spatial w
//       (= 2 E(e) de on |e| = 1; body frame: 2 L(e) de, [paper] eq. (3))
//
// Equations of motion per node (J the body-frame inertia about the node, m the mass; for s = 0):
//
//   (2) m x'' - F                                                          = 0   (3 rows)
//   (3) 4 L^T J L e'' + 8 L^T L L(e')^T J L e' - G^T M_W + e lambda_e      = 0   (4 rows)
//   (4) phi_e = (e^T e - 1) / 2                                             = 0   (per node)
//   (5) phi(q, t)                                                           = 0   (element rows)
//
// (3) is [paper] eq. (9) with the torque term 2 L^T m_body written as G^T m_spatial
// (= 2 E^T m_W = 2 L^T m_B on |e| = 1) and the constraint force (1/2) C_e^T lambda = e lambda.
// F, M_W are the elements' forces and moments in twist space (reactions included,
// -W^T lambda), so the f of second_order.hpp is f = -P^T f_element + inertia velocity terms
// + e lambda_e with P = diag(I, G). Element K, C, L, phi_q are mapped with P and with
// dw/de = d(G(e) e')/de = -(2/|e|^2) E(e') - (4/|e|^4) E(e) e' e^T.
//
// A centre of mass off the node (first moment s = m c != 0 in the body frame, J then the inertia
// about the node) adds the Newton-Euler coupling about a moving reference point, with
// S = R s, w = G e', alpha = d(G e')/dt = G e'' + beta, beta = dG/dt e' = -(2/|e|^2)(e.e') w
// (E(e') e' = 0):
//
//   (6) translational rows (2) += alpha x S + w x (w x S)      (acceleration of the CoM)
//   (7) rotational rows (3)    += G^T (S x x'')                 (moment of the node's acceleration)
//
// so that M(q) = [m I, -skew(S) G; G^T skew(S), 4 L^T J L] stays symmetric.
//
// Limits (refused with a message): velocity-level constraint rows (phi depends on q only in the
// second-order interface).
//
// Initial conditions: v from the initial twists (e' = E(e)^T w / 2, so e^T e' = 0); a and the
// multipliers from one linear solve [M, L; B, 0] (a; lambda) = (-f(lambda = 0); -phi_dd), phi_dd
// the second time derivative of phi along q + tau v, t + tau (central differences, Richardson).
//
// Reference: K. Sherif, K. Nachbagauer, W. Steiner, P. Lauss, "A modified HHT method for the
// numerical simulation of rigid body rotations with Euler parameters", Multibody Syst Dyn 46
// (2019) 181-202, eqs. (3), (4), (5), (9).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/formulation/second_order_base.hpp"
#include "mbstep/math/quaternion.hpp"

namespace mbstep::ep {

using quaternion::Mat34;
using quaternion::Mat4;
using quaternion::Vec4;

class EulerParametersFormulation final : public VectorSpaceFormulationBase {
  public:
    explicit EulerParametersFormulation(const Model& model);

    std::string name() const override { return "euler parameters"; }
    void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda,
                  Eigen::VectorXd& Ma, Eigen::VectorXd& f, Eigen::VectorXd& phi) override;
    void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda,
                  Jacobians& J) override;
    void InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                           Eigen::VectorXd& lambda) override;
    const UnitQuaternionRates* unit_quaternion_rates() const override { return &rates_; }

  protected:
    const std::vector<std::string>& NodeRowNames() const override;
    std::string DescribeExtraConstraint(int k) const override;

  private:
    struct NodeData {
        int offset{0};            // in q and v (7 per node)
        bool offset_mass{false};  // s != 0: the coupling terms (6), (7)
    };
    void ComputeStates(const Eigen::VectorXd& v) override;
    int unit_offset(int node) const { return num_element_multipliers_ + node; }

    std::vector<NodeData> nodes_;

    /// The modified HHT's quaternion rates (second_order.hpp) at node i's e = q[7 i + 3 ..].
    class Rates final : public UnitQuaternionRates {
      public:
        explicit Rates(const EulerParametersFormulation& f) : f_(f) {}
        void AngularVelocities(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                               const Eigen::VectorXd& a, double c,
                               std::vector<Eigen::Vector3d>& w) const override;
        void Velocities(const Eigen::VectorXd& q, const Eigen::VectorXd& a,
                        const std::vector<Eigen::Vector3d>& w, double hg,
                        Eigen::VectorXd& v) const override;
        void VelocityDerivative(const Eigen::VectorXd& q, const Eigen::VectorXd& a,
                                const std::vector<Eigen::Vector3d>& w, double hg, double bh2,
                                FixedPatternMatrix& D) const override;
        double UnitNormDefect(const Eigen::VectorXd& q) const override;

      private:
        const EulerParametersFormulation& f_;
    } rates_{*this};
};

}  // namespace mbstep::ep
