// mbstep — the model lines of MBDyn's .log (io/mbdyn_log.hpp).
#include "mbstep/io/mbdyn_log.hpp"

#include <vector>

#include "mbstep/io/number_format.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep {

LogLine::LogLine(const char* keyword, int label, int precision) : precision_(precision) {
    s_ = keyword;
    s_ += ':';
    Node(label);
}

LogLine& LogLine::Node(int label) {
    char buf[32];
    buf[0] = ' ';
    const char* end = FormatNumber(buf + 1, static_cast<long>(label));
    s_.append(buf, static_cast<size_t>(end - buf));
    return *this;
}

LogLine& LogLine::Real(double v) {
    char buf[kMaxNumberChars + 1];
    buf[0] = ' ';
    const char* end = FormatNumber(buf + 1, v, precision_);
    s_.append(buf, static_cast<size_t>(end - buf));
    return *this;
}

LogLine& LogLine::Vec(const Vec3& v) {
    for (int i = 0; i < 3; ++i) Real(v(i));
    return *this;
}

LogLine& LogLine::Mat(const Mat3& R) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Real(R(i, j));
    return *this;
}

namespace {

/// The keyword MBDyn writes before a node's orientation (ReadStructNode).
const char* OrientationKeyword(OrientationOutput o) {
    switch (o) {
        case OrientationOutput::kEuler123:
            return "euler123";
        case OrientationOutput::kEuler313:
            return "euler313";
        case OrientationOutput::kEuler321:
            return "euler321";
        case OrientationOutput::kOrientationVector:
            return "phi";
        case OrientationOutput::kOrientationMatrix:
            return "mat";
    }
    return "mat";
}

}  // namespace

std::string MbdynModelLog(const Model& model, int output_every, int precision) {
    std::string out = "output frequency: " + std::to_string(output_every) + "\n";  // (0)
    // (1) structural nodes: position, then the orientation as the node's .mov columns.
    auto node_line = [&](const char* keyword, int label, const FrameState& s, OrientationOutput o) {
        LogLine line(keyword, label, precision);
        line.Vec(s.x);
        out += line.str();
        out += ' ';
        out += OrientationKeyword(o);
        out += ' ';
        AppendOrientation(out, s.R, o, precision);
        out += '\n';
    };
    std::vector<FrameState> initial;
    for (const auto& n : model.nodes()) {
        node_line("structural node", n.label, n.initial, n.orientation_output);
        initial.push_back(n.initial);
    }
    for (const auto& d : model.dummy_nodes())
        node_line(d.kind == DummyNode::Kind::kOffset ? "structural node"
                                                     : "relative frame structural node",
                  d.label, d.Evaluate(initial), d.orientation_output);
    // (2) elements, in deck order; those without a line in MBDyn write none.
    std::vector<int> labels;
    std::vector<const FrameState*> states;
    for (const auto& e : model.elements()) {
        const ElementOutput* eo = e->output();
        if (!eo) continue;
        labels.clear();
        states.clear();
        for (int i : e->nodes()) {
            labels.push_back(model.nodes()[i].label);
            states.push_back(&model.nodes()[i].initial);
        }
        LogLineContext ctx;
        ctx.node_label = labels.data();
        ctx.node = states.data();
        ctx.precision = precision;
        const std::string line = eo->MbdynLogLine(ctx);
        if (line.empty()) continue;
        out += line;
        out += '\n';
    }
    // (3) MBDyn's unknown and equation indices of the structural nodes.
    if (model.nodes().empty()) return out;
    std::string dofs, eqs, momentum_dofs, momentum_eqs, node_labels;
    auto add = [](std::string& list, long v) { list += ' ' + std::to_string(v); };
    long d = static_cast<long>(model.abstract_nodes().size());
    for (const auto& n : model.nodes()) {
        const bool dynamic = n.kind == NodeKind::kDynamic && !model.static_model();
        add(dofs, d);
        add(eqs, dynamic ? d + 6 : d);
        if (dynamic) {
            add(momentum_dofs, d + 6);
            add(momentum_eqs, d);
        }
        add(node_labels, n.label);
        d += dynamic ? 12 : 6;
    }
    for (const char* kind : {"struct node", "struct displacement node"}) {
        const std::string k = kind;
        out += k + " dofs:" + dofs + "\n" + k + " eqs:" + eqs + "\n";
        // Without dynamic nodes the momentum lists are empty: the line ends at its colon.
        out += k + " momentum dofs:" + momentum_dofs + "\n" + k + " momentum eqs:" + momentum_eqs +
               "\n";
    }
    out += "struct node labels:" + node_labels + "\n";
    out += "struct displacement node labels:" + node_labels + "\n";
    return out;
}

}  // namespace mbstep
