// mbstep — the state of a model of abstract nodes for methods that form their equations from
// the elements' Lagrangian contract themselves (model/lagrangian_contract.hpp): the
// coordinates q and rates v of the abstract nodes, the elements' multipliers and the time,
// which the output and on_step read. The formulation keyword is `lagrangian`
// (plugins/formulation_lagrangian); `eml` (plugins/eml/eml_abstract.hpp) and `rk`
// (plugins/rk/explicit_rk.hpp) run on it.
//
// It is also a SecondOrderProblem (formulation/second_order.hpp) for the Newmark family (`hht`,
// `generalized alpha`), from the Lagrange equations d/dt(T_v) - T_q + V_q + G^T lambda = 0:
//   M = T_vv,   f = T_vq v - T_q + V_q + G^T lambda,   phi = g,   (vector space, q (+) dq = q + dq)
//   Kq_inertia = d(T_vv a)/dq = [D_(0, a) H_T]_vq,
//   C = T_vq - T_qv + [D_(v, 0) H_T]_vv,
//   K = [D_(v, 0) H_T]_vq - T_qq + V_qq + sum_k lambda_k g_k,qq,   L = G^T,   B = G,
// where T_vq(i, j) = d2T/dv_i dq_j and D_u H_T is the derivative of T's Hessian in x = (q, v)
// along u (third derivatives of T, exact: LagrangianContract::KineticHessianDerivative, the
// expression's ThirdOrder()). M may be singular; nothing inverts it.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/model/lagrangian_contract.hpp"

namespace mbstep {

/// A Lagrangian element of a model of abstract nodes: its index in Model::elements(), its
/// Lagrangian contract (Element::lagrangian(), asked once here), the abstract nodes it reads,
/// and its multipliers.
struct AbstractElement {
    int element{0};
    const LagrangianContract* lagrangian{nullptr};
    std::vector<int> coordinates;  ///< abstract node indices
    int mult_offset{0};
    int m{0};
};

/// The elements of a model made of abstract nodes only, their multipliers numbered from
/// `first_multiplier` on (*num_multipliers: their total). Throws RunError, its message starting
/// with `why`, for structural nodes in the model, an element without abstract nodes or without
/// the Lagrangian contract, and an abstract node no element reads (its equations would be
/// empty). Used by the formulations that
/// hold such models (`lagrangian`, and the cgr family's form for abstract nodes).
std::vector<AbstractElement> AbstractElementTable(const Model& model, const std::string& why,
                                                  int first_multiplier, int* num_multipliers);

/// The formulation `lagrangian`: the state (q, v) of a model of abstract nodes and the
/// multipliers of its elements, for methods that form their equations from the elements'
/// Lagrangian contract themselves (`eml`, `rk`), and the SecondOrderProblem of the Lagrange
/// equations for the Newmark family (`hht`, `generalized alpha`); first_order() is nullptr.
/// Registered by the plugin `formulation_lagrangian`.
class AbstractFormulation final : public Formulation, public SecondOrderProblem {
  public:
    using ElementData = AbstractElement;
    /// Throws RunError for a model it cannot hold (structural nodes, `model: static;`, elements
    /// without abstract nodes, abstract nodes no element reads).
    explicit AbstractFormulation(const Model& model);

    std::string name() const override { return "lagrangian"; }
    ProblemInterface interface() const override { return ProblemInterface::kSecondOrderDae; }
    const Model& model() const override { return model_; }
    const std::vector<FrameState>& node_states() const override { return no_nodes_; }
    const std::vector<AbstractState>& abstract_states() const override { return abs_; }
    const double* multipliers(int element) const override;
    double time() const override { return t_; }
    /// kinetic = sum T(q, v), potential = sum V(q): their sum is the total energy (80).
    Invariants ComputeInvariants() const override;
    void set_threads(int) override {}
    SecondOrderProblem* second_order() override { return this; }

    // SecondOrderProblem (the equations in the header comment).
    int num_velocities() const override { return num_coordinates(); }
    int num_constraints() const override { return num_multipliers(); }
    bool vector_space() const override { return true; }
    const Eigen::VectorXd& q() const override { return q_; }
    void set_q(const Eigen::VectorXd& q) override;
    void Retract(const Eigen::VectorXd& q0, const Eigen::VectorXd& dq,
                 Eigen::VectorXd& q1) const override {
        q1 = q0 + dq;
    }
    void TangentOperator(const Eigen::VectorXd& dq, Eigen::SparseMatrix<double>& T) const override;
    void SetTime(double t) override { t_ = t; }
    void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda,
                  Eigen::VectorXd& Ma, Eigen::VectorXd& f, Eigen::VectorXd& phi) override;
    void Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda,
                  Jacobians& J) override;
    /// v from the abstract nodes' initial derivatives; a and lambda from
    /// [M, G^T; G, 0] [a; lambda] = [-f(q, v, 0); -(d(G v)/dq) v] (phi'' = 0). Throws RunError
    /// when that matrix is singular (a singular M needs its null space covered by G).
    void InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                           Eigen::VectorXd& lambda) override;
    void AfterConvergence(const Eigen::VectorXd& v, const Eigen::VectorXd& lambda) override;
    std::string DescribeEquation(int row) const override;

    void SetState(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                  const Eigen::VectorXd& lambda);
    const std::vector<ElementData>& elements() const { return elements_; }
    const Eigen::VectorXd& v() const { return v_; }
    int num_coordinates() const { return static_cast<int>(abs_.size()); }
    int num_multipliers() const { return static_cast<int>(lambda_.size()); }
    /// Element k of elements() at global coordinates q and rates v.
    void Evaluate(int k, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                  LagrangianBlock& out) const;

  private:
    const Model& model_;
    double t_{0.0};
    std::vector<ElementData> elements_;
    std::vector<AbstractState> abs_;
    Eigen::VectorXd q_, v_, lambda_;
    mutable std::vector<double> ql_, vl_;
    std::vector<FrameState> no_nodes_;
};

}  // namespace mbstep
