// mbstep — second-order formulations (euler parameters, euler angles, lie group) as seen by the
// Newmark-family integrators (HHT, modified HHT, generalized-alpha, Lie group generalized-alpha).
//
//   (1) r(q, v, a, lambda, t) = M(q) a + f(q, v, lambda, t) = 0     nv equations
//   (2) phi(q, t) = 0                                               nc equations
//
// q is the configuration (the formulation's own coordinates, n_q >= nv values), v the velocity
// coordinates, a = dv/dt. Vector-space formulations (euler parameters, euler angles) have
// v = q', a = q'' and q (+) dq = q + dq. The Lie group formulation has q = (x, R) per node,
// v = (x', w_body) and q (+) dq = (x + dx, R exp(skew(dtheta))). f holds everything but M a:
// velocity-dependent inertia terms, element forces (with a minus sign) and constraint
// reactions (B^T lambda, scaled as the formulation documents). phi includes the formulation's
// own algebraic equations (the unit length of Euler parameters).
//
// All Jacobians are exact (finite-difference tested over the registry) and have fixed
// sparsity patterns; derivatives with respect to q are taken along the retraction:
// d/ds r(q (+) s dq)|_{s=0}. An integrator combines them into its iteration matrix, e.g. HHT:
//   J = M + Kq_inertia beta h^2 + (1 + alpha) (C gamma h + K beta h^2),  [L; B] blocks.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <string>
#include <vector>

namespace mbstep {

class FixedPatternMatrix;

/// The modified HHT for Euler parameters (Sherif, Nachbagauer, Steiner, Lauss, "A modified HHT
/// method for the numerical simulation of rigid body rotations with Euler parameters" (2019),
/// eqs. (33)-(34), (69)-(70)) computes the Euler parameters' rates e' from an angular velocity w
/// held fixed during the step, so that e' stays tangent to |e| = 1. The formulation whose
/// coordinates hold the quaternions provides that algebra (the integrator knows no rotation
/// parameters): for each quaternion e at its place in q, v and a,
class UnitQuaternionRates {
  public:
    virtual ~UnitQuaternionRates() = default;
    /// w = L(e) (e' + c e'') for each quaternion, at q, v, a (c = h (1 - gamma): eq. (34)'s w,
    /// fixed during the step).
    virtual void AngularVelocities(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                   const Eigen::VectorXd& a, double c,
                                   std::vector<Eigen::Vector3d>& w) const = 0;
    /// The quaternions' rows of v: e' = L(e)^T w + hg (e'' - e (e . e'')) (eq. (33)).
    virtual void Velocities(const Eigen::VectorXd& q, const Eigen::VectorXd& a,
                            const std::vector<Eigen::Vector3d>& w, double hg,
                            Eigen::VectorXd& v) const = 0;
    /// D = dv/da into D's fixed pattern (Begin called by the caller, Finish too): (69) on the
    /// quaternions' 4x4 blocks, bh2 W^(w) + hg (I - e e^T) - hg bh2 (e e''^T + (e . e'') I),
    /// and hg on the other diagonal entries.
    virtual void VelocityDerivative(const Eigen::VectorXd& q, const Eigen::VectorXd& a,
                                    const std::vector<Eigen::Vector3d>& w, double hg, double bh2,
                                    FixedPatternMatrix& D) const = 0;
    /// Largest | |e| - 1 | over the quaternions in q (tests, diagnostics).
    virtual double UnitNormDefect(const Eigen::VectorXd& q) const = 0;
};

class SecondOrderProblem {
  public:
    struct Jacobians {
        Eigen::SparseMatrix<double> M;           ///< d(M a)/da            (nv x nv)
        Eigen::SparseMatrix<double> Kq_inertia;  ///< d(M(q) a)/dq         (nv x nv)
        Eigen::SparseMatrix<double> C;           ///< df/dv                (nv x nv)
        Eigen::SparseMatrix<double> K;           ///< df/dq                (nv x nv)
        Eigen::SparseMatrix<double> L;           ///< df/dlambda           (nv x nc)
        Eigen::SparseMatrix<double> B;           ///< dphi/dq              (nc x nv)
    };

    virtual ~SecondOrderProblem() = default;
    virtual int num_velocities() const = 0;
    virtual int num_constraints() const = 0;
    /// True when v = q' and q (+) dq = q + dq.
    virtual bool vector_space() const = 0;

    /// The formulation's current configuration (set_q also updates its node states).
    virtual const Eigen::VectorXd& q() const = 0;
    virtual void set_q(const Eigen::VectorXd& q) = 0;
    /// q1 = q0 (+) dq.
    virtual void Retract(const Eigen::VectorXd& q0, const Eigen::VectorXd& dq,
                         Eigen::VectorXd& q1) const = 0;
    /// Tangent operator T(dq) of the retraction (identity for vector spaces; T_exp blocks for
    /// the Lie group): the right-trivialised derivative of q0 (+) dq with respect to dq.
    virtual void TangentOperator(const Eigen::VectorXd& dq,
                                 Eigen::SparseMatrix<double>& T) const = 0;

    virtual void SetTime(double t) = 0;
    /// (1) and (2) at the current q and t, split into M a, f and phi.
    virtual void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                          const Eigen::VectorXd& lambda, Eigen::VectorXd& Ma, Eigen::VectorXd& f,
                          Eigen::VectorXd& phi) = 0;
    /// Jacobian pieces at the current q and t.
    virtual void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                          const Eigen::VectorXd& lambda, Jacobians& J) = 0;
    /// Consistent initial velocities, accelerations and multipliers at the current q and t
    /// (velocities from the model's initial twists).
    virtual void InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                                   Eigen::VectorXd& lambda) = 0;
    /// Called after each converged step (node states, history of solved points).
    virtual void AfterConvergence(const Eigen::VectorXd& v, const Eigen::VectorXd& lambda) = 0;
    /// Name of equation row i of [(1); (2)].
    virtual std::string DescribeEquation(int row) const = 0;
    /// The velocities of unit-quaternion coordinates as the modified HHT defines them, for
    /// formulations whose rotation coordinates are Euler parameters; nullptr otherwise.
    virtual const UnitQuaternionRates* unit_quaternion_rates() const { return nullptr; }
};

}  // namespace mbstep
