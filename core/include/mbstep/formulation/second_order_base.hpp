// mbstep — what the second-order formulations (`euler parameters`, `euler angles`, `lie group`)
// share: the model's node inertia and element table, the state the Formulation and
// SecondOrderProblem interfaces expose, the invariants, failure descriptions, and the linear
// solve of the initial accelerations and multipliers. Each formulation adds its coordinates,
// its Evaluate (residual pieces and Jacobians), its retraction and its initial velocities.
#pragma once

#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "mbstep/assembly/fixed_pattern.hpp"
#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"

namespace mbstep {

/// The Jacobian pieces of SecondOrderProblem::Jacobians, each assembled in its fixed pattern
/// (the same entry sequence every evaluation: values written in place, no sort, no allocation).
struct JacobianPieces {
    FixedPatternMatrix M, Kq, C, K, L, B;
    void Begin(int nv, int nc) {
        for (FixedPatternMatrix* m : {&M, &Kq, &C, &K}) m->Begin(nv, nv);
        L.Begin(nv, nc);
        B.Begin(nc, nv);
    }
    void Finish(SecondOrderProblem::Jacobians& J) {
        M.Finish(J.M);
        Kq.Finish(J.Kq_inertia);
        C.Finish(J.C);
        K.Finish(J.K);
        L.Finish(J.L);
        B.Finish(J.B);
    }
};

class SecondOrderFormulationBase : public Formulation, public SecondOrderProblem {
  public:
    // Formulation
    ProblemInterface interface() const override { return ProblemInterface::kSecondOrderDae; }
    SecondOrderProblem* second_order() override { return this; }
    const Model& model() const override { return model_; }
    const std::vector<FrameState>& node_states() const override { return states_; }
    const double* multipliers(int element) const override;
    double time() const override { return t_; }
    /// Node kinetic energy and momenta (centre-of-mass offsets included), element potentials
    /// and the largest constraint violation, at the current states.
    Invariants ComputeInvariants() const override;
    void set_threads(int /*n*/) override {}  // serial assembly

    // SecondOrderProblem
    int num_velocities() const override { return nv_; }
    int num_constraints() const override { return nc_; }
    const Eigen::VectorXd& q() const override { return q_; }
    void SetTime(double t) override { t_ = t; }
    /// "structural node <label>, <row>" for velocity rows (NodeRowNames), the element's
    /// constraint row for its multipliers, DescribeExtraConstraint for rows after them.
    std::string DescribeEquation(int row) const override;

  protected:
    /// Sums the bodies' inertia per node (node frame), refuses dynamic nodes without mass, and
    /// builds the element table (multipliers first, in element order: num_element_multipliers_).
    /// `formulation` names the formulation in messages.
    SecondOrderFormulationBase(const Model& model, const std::string& formulation);

    /// Names of one node's velocity rows (their count is the velocities per node).
    virtual const std::vector<std::string>& NodeRowNames() const = 0;
    /// Rows past the element multipliers (e.g. unit-length constraints); index from 0.
    virtual std::string DescribeExtraConstraint(int k) const;

    Vec3 Gravity() const;
    /// The element context at the current states with multipliers `lambda` (the formulation's
    /// whole multiplier vector, or nullptr for none).
    ElementContext Context(int element, const double* lambda) const;

    /// d^2/dtau^2 phi(q + tau v, t + tau) at tau = 0 by central differences with Richardson
    /// extrapolation (error O(d^4), d keeping the coordinate change ~1e-3); for formulations
    /// whose coordinates form a vector space (q + tau v is a configuration). Restores q_, t_.
    Eigen::VectorXd VectorSpacePhiSecondDerivative(const Eigen::VectorXd& v,
                                                   const Eigen::VectorXd& a,
                                                   const Eigen::VectorXd& lambda);
    /// The contributing elements through a node chart (node_chart.hpp, which defines these):
    /// their forces subtracted from f and their constraint rows into phi, or their Jacobian
    /// blocks added to pieces_ (K, C, L, B), with the multipliers lambda.
    template <class Chart>
    void AddElementResiduals(const Chart& chart, const Eigen::VectorXd& lambda, Eigen::VectorXd& f,
                             Eigen::VectorXd& phi) const;
    template <class Chart>
    void AddElementJacobians(const Chart& chart, const Eigen::VectorXd& lambda);

    /// Solves [M, L; B, 0] (a; lambda) = (-f0; rhs_phi) (sparse LU); RunError naming the
    /// formulation when singular or not finite.
    void SolveInitialSystem(const Jacobians& J, const Eigen::VectorXd& f0,
                            const Eigen::VectorXd& rhs_phi, Eigen::VectorXd& a,
                            Eigen::VectorXd& lambda) const;

    const Model& model_;
    std::string formulation_;
    int nn_{0}, nv_{0}, nc_{0};
    int num_element_multipliers_{0};
    double t_{0.0};
    Eigen::VectorXd q_, lambda_;
    std::vector<NodeInertia> inertia_;  // per node, node frame
    std::vector<ElementSlot> elements_;
    std::vector<int> active_elements_;
    /// The element pass's block, kept so that its dynamic arrays are allocated once (serial
    /// passes: AddElementResiduals, AddElementJacobians).
    mutable ElementBlock block_;
    std::vector<FrameState> states_;
    std::vector<const FrameState*> ptrs_;  // per element, flattened (ptr_offset_)
    std::vector<int> ptr_offset_;
    JacobianPieces pieces_;  // Evaluate(..., Jacobians&)
};

/// Formulations whose coordinates form a vector space (`euler parameters`, `euler angles`):
/// additive retraction, identity tangent operator, and the velocities of the last converged
/// point kept for the node states.
class VectorSpaceFormulationBase : public SecondOrderFormulationBase {
  public:
    bool vector_space() const override { return true; }
    void set_q(const Eigen::VectorXd& q) override {
        q_ = q;
        ComputeStates(v_);
    }
    void Retract(const Eigen::VectorXd& q0, const Eigen::VectorXd& dq,
                 Eigen::VectorXd& q1) const override {
        q1 = q0 + dq;
    }
    void TangentOperator(const Eigen::VectorXd& /*dq*/,
                         Eigen::SparseMatrix<double>& T) const override {
        T.resize(nv_, nv_);
        T.setIdentity();
    }
    void AfterConvergence(const Eigen::VectorXd& v, const Eigen::VectorXd& lambda) override {
        v_ = v;
        lambda_ = lambda;
        ComputeStates(v_);
    }

  protected:
    using SecondOrderFormulationBase::SecondOrderFormulationBase;
    /// The node states (FrameState) from q_ and the velocities v.
    virtual void ComputeStates(const Eigen::VectorXd& v) = 0;

    Eigen::VectorXd v_;
};

}  // namespace mbstep
