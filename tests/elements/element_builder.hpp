// mbstep tests — builds one element from a descriptor's test snippet through the deck reader
// (mbstep::ReadDeckText), in a deck with the test nodes (snippet_input.hpp, TestNodes).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mbstep/model/model.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::test {

struct BuiltElement {
    std::shared_ptr<const void> owner;  ///< keeps the element (and its deck) alive
    const Element* element{nullptr};    ///< nullptr for statements that add no element
    std::vector<StructuralNode> nodes;  ///< the model's nodes (element node indices refer here)
    std::optional<GravityField> gravity;
    /// The model read: its abstract nodes 1, 2, 3 for elements on abstract nodes (the
    /// `lagrangian` genel).
    const Model* model{nullptr};
};

/// Reads `snippet` (label 1) in a model with dynamic nodes 1, 2 and static node 3 (`genel`
/// snippets, with the deck reader: abstract nodes 1, 2, 3 at values 0.7, 0.4, -0.3, rates 0.2,
/// -0.5, 0.9, and the structural nodes only if the snippet names `positions`). Throws
/// DeckError on malformed input.
BuiltElement BuildFromSnippet(const ElementDescriptor& d, const std::string& snippet,
                              const Registry& registry);

}  // namespace mbstep::test
