// mbstep — the `lagrangian` genel: a system in any coordinates stated by its energies.
//
//   genel: LABEL, lagrangian,
//       coordinates, N, NODE_1, "q_1", "v_1", ..., NODE_N, "q_N", "v_N",
//       kinetic energy, "T(q, v)"
//       [, potential energy, "V(q)"]
//       [, constraints, M, "g_1(q)", ..., "g_M(q)"];
//
// NODE_i are abstract nodes; "q_i" and "v_i" name their coordinate and rate inside the
// expressions (the deck's `set:` variables are visible too). The element writes the Lagrangian
// contract (model/element.hpp, LagrangianBlock): T, V, g and their first and second derivatives,
// exact, from the expressions' second-order forward-mode evaluation (Expression::SecondOrder);
// the formulation forms d/dt(T_v) - T_q + V_q + G^T lambda = 0, g = 0. M = T_vv may be singular.
// T, V and g must not depend on Time; V and g must not depend on the rates (holonomic).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/model/element.hpp"
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

class LagrangianElement final : public Element {
  public:
    using Locate = std::function<SourceLocation(std::size_t)>;
    struct Function {
        std::string what;  // "kinetic energy", "constraint 2", ...
        std::shared_ptr<const Expression> expression;
        Locate locate;
    };

    LagrangianElement(int label, std::vector<int> abstract_nodes,
                      std::vector<std::shared_ptr<Variable>> q,
                      std::vector<std::shared_ptr<Variable>> v, Function T,
                      std::optional<Function> V, std::vector<Function> g);

    int num_multipliers() const override { return static_cast<int>(g_.size()); }
    ConstraintLevel constraint_level() const override {
        return g_.empty() ? ConstraintLevel::kNone : ConstraintLevel::kPosition;
    }
    bool HasContribution() const override { return false; }
    void Evaluate(const ElementContext&, ElementBlock&) const override {}
    void EvaluateLagrangian(double t, const double* q, const double* v,
                            LagrangianBlock& out) const override;
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

    std::vector<std::shared_ptr<Variable>> q_, v_;  // owned by the expressions too
    std::vector<const Variable*> qv_vars_, q_vars_;
    std::vector<std::string> names_;
    Function T_;
    std::optional<Function> V_;
    std::vector<Function> g_;
    std::string description_;
};

std::unique_ptr<Element> Read(ElementReadArgs& args);

}  // namespace mbstep::lagrangian
