// mbstep — the `lagrangian` genel: a system in any coordinates stated by its energies.
//
//   genel: LABEL, lagrangian,
//       coordinates, N, NODE_1, "q_1", "v_1", ..., NODE_N, "q_N", "v_N",
//       [positions, K, STRUCT_1, "x_1", "y_1", "z_1", ..., STRUCT_K, "x_K", "y_K", "z_K",]
//       kinetic energy, "T(q, v)"
//       [, potential energy, "V(q, x)"]
//       [, constraints, M, "g_1(q, x)", ..., "g_M(q, x)"];
//
// NODE_i are abstract nodes; "q_i" and "v_i" name their coordinate and rate inside the
// expressions (the deck's `set:` variables are visible too). The element writes the Lagrangian
// contract (model/lagrangian_contract.hpp, LagrangianBlock): T, V, g and their first and second
// derivatives, exact, from the expressions' second-order forward-mode evaluation
// (Expression::SecondOrder); the formulation forms d/dt(T_v) - T_q + V_q + G^T lambda = 0,
// g = 0. M = T_vv may be singular.
// T, V and g must not depend on Time; V and g must not depend on the rates (holonomic).
//
// STRUCT_j are structural nodes; "x_j", "y_j", "z_j" name the global components of their
// positions (the node's reference point), which V and g may read (T may not: the kinetic
// energy of the nodes is their bodies'). On those nodes the element is a force element with
// constraints in the twist-space contract (model/element.hpp): at the reference point of node j
//   F_j = -dV/dx_j - sum_k lambda_k dg_k/dx_j,   M_j = 0,
//   K (force x translation quadrants only) = d2V/dx dx + sum_k lambda_k d2g_k/dx dx,
//   L = -G_x^T (force rows),   phi = g(q, x),   phi_q = G_x (translation columns),
// with q the element's abstract coordinates (ElementContext::abstract_q); the mixed blocks
// V_qx, G_x, g_qx go to the Lagrangian contract (EvaluateLagrangian with x). All from one
// SecondOrder() of V and of each g in (q, x).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/model/lagrangian_contract.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::lagrangian {

/// A derivative error of one of the element's expressions, at its deck location.
class ExpressionRunError : public RunError {
  public:
    ExpressionRunError(SourceLocation where, const std::string& message)
        : RunError(where.ToString() + ": " + message),
          where_(std::move(where)),
          message_(message) {}
    const SourceLocation& where() const { return where_; }
    const std::string& message() const { return message_; }

  private:
    SourceLocation where_;
    std::string message_;
};

class LagrangianElement final : public Element, public LagrangianContract, public ElementOutput {
  public:
    using Locate = std::function<SourceLocation(std::size_t)>;
    struct Function {
        std::string what;  // "kinetic energy", "constraint 2", ...
        std::shared_ptr<const Expression> expression;
        Locate locate;
    };

    /// structural_nodes and x (3 names per node): the positions V and g read (may be
    /// empty); q0 and x0: the abstract nodes' and structural nodes' initial values, used when
    /// the caller gives none (ElementContext::abstract_q, EvaluateLagrangian's x null).
    LagrangianElement(int label, std::vector<int> abstract_nodes,
                      std::vector<std::shared_ptr<Variable>> q,
                      std::vector<std::shared_ptr<Variable>> v, Function T,
                      std::optional<Function> V, std::vector<Function> g,
                      std::vector<int> structural_nodes = {},
                      std::vector<std::shared_ptr<Variable>> x = {}, std::vector<double> q0 = {},
                      std::vector<double> x0 = {});

    int num_multipliers() const override { return static_cast<int>(g_.size()); }
    ConstraintLevel constraint_level() const override {
        return g_.empty() ? ConstraintLevel::kNone : ConstraintLevel::kPosition;
    }
    /// Only with positions: the force on the structural nodes (header comment).
    bool HasContribution() const override { return !nodes_.empty(); }
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override;
    const LagrangianContract* lagrangian() const override { return this; }
    const ElementOutput* output() const override { return this; }
    void EvaluateLagrangian(double t, const double* q, const double* v, LagrangianBlock& out,
                            const double* x = nullptr) const override;
    /// From the kinetic energy's ThirdOrder() along (dq, dv).
    bool KineticHessianDerivative(double t, const double* q, const double* v, const double* dq,
                                  const double* dv, Eigen::MatrixXd& dH) const override;
    std::string LogDescription() const override { return description_; }
    void set_description(std::string d) { description_ = std::move(d); }
    const std::vector<std::string>& coordinate_names() const { return names_; }

  private:
    /// f.expression's SecondOrder, an ExpressionError becoming a RunError at its deck location.
    SecondOrderValue Derivatives(const Function& f, double t,
                                 const std::vector<const Variable*>& vars,
                                 const Eigen::VectorXd& at) const;

    /// The values (q, x) of V's and g's variables: x from `x` or the initial positions.
    void PotentialPoint(const double* q, const double* x, Eigen::VectorXd& at) const;

    std::vector<std::shared_ptr<Variable>> q_, v_, x_;  // owned by the expressions too
    std::vector<const Variable*> qv_vars_, qx_vars_;    // (q, v) for T; (q, x) for V and g
    std::vector<double> q0_, x0_;
    std::vector<std::string> names_;
    Function T_;
    std::optional<Function> V_;
    std::vector<Function> g_;
    std::string description_;
};

std::unique_ptr<Element> Read(ElementReadArgs& args);

}  // namespace mbstep::lagrangian
