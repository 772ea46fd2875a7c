// mbstep — the state of a model of abstract nodes for methods that form their equations from
// the elements' Lagrangian contract themselves (model/element.hpp, LagrangianBlock): the
// coordinates q and rates v of the abstract nodes, the elements' multipliers and the time,
// which the output and on_step read. The formulation keyword is `lagrangian`
// (plugins/formulation_lagrangian); `eml` (plugins/eml/eml_abstract.hpp) and `rk`
// (plugins/rk/explicit_rk.hpp) run on it.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"

namespace mbstep {

/// The formulation `lagrangian`: the state (q, v) of a model of abstract nodes and the
/// multipliers of its elements, for methods that form their equations from the elements'
/// Lagrangian contract themselves (`eml`, `rk`). It has no equations of its own (second_order()
/// and first_order() are nullptr), so every other method refuses it in Attach. Registered by
/// the plugin `formulation_lagrangian`.
class AbstractFormulation final : public Formulation {
  public:
    struct ElementData {
        int element{0};
        std::vector<int> coordinates;  ///< abstract node indices
        int mult_offset{0};
        int m{0};
    };
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

    void SetState(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                  const Eigen::VectorXd& lambda);
    const std::vector<ElementData>& elements() const { return elements_; }
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
