// mbstep — the model: nodes, elements, gravity; immutable once read (STYLE.md §6).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mbstep/model/drive.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/node.hpp"

namespace mbstep {

/// Uniform gravity g(t) = direction * magnitude(t).
struct GravityField {
    Vec3 direction{Vec3::Zero()};
    DrivePtr magnitude;
    Vec3 At(double t) const {
        return magnitude ? Vec3(direction * magnitude->Value(t)) : Vec3::Zero();
    }
};

class Model {
  public:
    const std::vector<StructuralNode>& nodes() const { return nodes_; }
    const std::vector<std::unique_ptr<Element>>& elements() const { return elements_; }
    const std::optional<GravityField>& gravity() const { return gravity_; }
    /// Abstract (scalar) nodes, in deck order.
    const std::vector<AbstractNode>& abstract_nodes() const { return abstract_nodes_; }
    /// Index (into abstract_nodes()) of the abstract node with this label, or -1.
    int FindAbstractNode(int label) const {
        for (size_t i = 0; i < abstract_nodes_.size(); ++i)
            if (abstract_nodes_[i].label == label) return static_cast<int>(i);
        return -1;
    }
    /// Dummy nodes (output only; no unknowns, not in nodes()).
    const std::vector<DummyNode>& dummy_nodes() const { return dummy_nodes_; }
    /// True for MBDyn's static solution (`model: static;` in control data, MBDyn input manual,
    /// "Model"): every structural node is static (bodies contribute only their weight), the
    /// elements see zero node velocities, and time is only the load parameter: each step
    /// solves f(q, t_n) = 0 with the position-level constraints. Only formulations whose
    /// descriptor sets FormulationDescriptor::solves_static_model accept it (docs/DESIGN.md,
    /// "Static solution").
    bool static_model() const { return static_model_; }

    /// Index of the node with this label, or -1.
    int FindNode(int label) const {
        auto it = node_index_.find(label);
        return it == node_index_.end() ? -1 : it->second;
    }

    /// Index (into dummy_nodes()) of the dummy node with this label, or -1.
    int FindDummyNode(int label) const {
        for (size_t i = 0; i < dummy_nodes_.size(); ++i)
            if (dummy_nodes_[i].label == label) return static_cast<int>(i);
        return -1;
    }

    // Building (deck reader, tests).
    int AddNode(StructuralNode n) {
        node_index_[n.label] = static_cast<int>(nodes_.size());
        nodes_.push_back(std::move(n));
        return static_cast<int>(nodes_.size()) - 1;
    }
    void AddDummyNode(DummyNode n) { dummy_nodes_.push_back(std::move(n)); }
    void AddAbstractNode(AbstractNode n) { abstract_nodes_.push_back(std::move(n)); }
    void AddElement(std::unique_ptr<Element> e) { elements_.push_back(std::move(e)); }
    void SetGravity(GravityField g) { gravity_ = std::move(g); }
    void set_static_model(bool on) { static_model_ = on; }
    /// Replaces node i's initial state (the initial joint assembly).
    void set_initial_state(int i, const FrameState& s) { nodes_.at(i).initial = s; }

  private:
    std::vector<StructuralNode> nodes_;
    std::map<int, int> node_index_;
    std::vector<DummyNode> dummy_nodes_;
    std::vector<AbstractNode> abstract_nodes_;
    std::vector<std::unique_ptr<Element>> elements_;
    std::optional<GravityField> gravity_;
    bool static_model_{false};
};

}  // namespace mbstep
