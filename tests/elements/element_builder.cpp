// mbstep tests — element construction from snippets (element_builder.hpp).
#include "element_builder.hpp"

#include <iomanip>
#include <sstream>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "snippet_input.hpp"

namespace mbstep::test {

namespace {
// Control-data count keyword of a statement (MBDyn), empty when unknown.
std::string CountKeyword(const std::string& statement) {
    if (statement == "body") return "rigid bodies: 1;";
    if (statement == "joint") return "joints: 1;";
    if (statement == "force" || statement == "couple") return "forces: 1;";
    if (statement == "gravity") return "gravity;";
    if (statement == "beam3" || statement == "beam2") return "beams: 1;";
    if (statement == "genel") return "genels: 1;";
    return {};
}
}  // namespace

BuiltElement BuildFromSnippet(const ElementDescriptor& d, const std::string& snippet,
                              const Registry& registry) {
    std::ostringstream deck;
    deck << std::setprecision(17);
    // Genels act on abstract nodes: their models have no structural node unless the snippet
    // names `positions` of structural nodes (then they have both kinds); the other statements
    // get the three structural test nodes.
    const bool abstract = Registry::Normalize(d.statement) == "genel";
    const bool structural = !abstract || snippet.find("positions") != std::string::npos;
    deck << "begin: data; problem: initial value; end: data;\n"
         << "begin: initial value; initial time: 0.; final time: 1.; time step: 1.e-3;\n"
         << "end: initial value;\n"
         << "begin: control data; " << (abstract ? "abstract nodes: 3; " : "")
         << (structural ? "structural nodes: 3; " : "")
         << CountKeyword(Registry::Normalize(d.statement))
         << "\nend: control data;\nbegin: nodes;\n";
    for (const StructuralNode& n : TestNodes()) {
        if (!structural) break;
        deck << "structural: " << n.label << ", "
             << (n.kind == NodeKind::kStatic ? "static" : "dynamic") << ", " << n.initial.x[0]
             << ", " << n.initial.x[1] << ", " << n.initial.x[2] << ", matr";
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) deck << ", " << n.initial.R(i, j);
        deck << ", null, null;\n";
    }
    if (abstract)
        deck << "abstract: 1, differential, value, 0.7, derivative, 0.2;\n"
             << "abstract: 2, differential, value, 0.4, derivative, -0.5;\n"
             << "abstract: 3, differential, value, -0.3, derivative, 0.9;\n";
    deck << "end: nodes;\nbegin: elements;\n" << snippet << "\nend: elements;\n";
    auto owner = std::make_shared<Deck>(ReadDeckText(deck.str(), "snippet.mbd", registry));
    BuiltElement b;
    b.nodes = owner->model.nodes();
    b.gravity = owner->model.gravity();
    b.model = &owner->model;
    if (!owner->model.elements().empty()) b.element = owner->model.elements().back().get();
    b.owner = owner;
    return b;
}

}  // namespace mbstep::test
