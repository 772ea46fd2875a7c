// mbstep tests — a registry for the deck reader tests: every plugin of the build plus
//   - "test-method": an integrator that reads any number of drive parameters (so decks can be
//     read without depending on the integrator plugins), and
//   - "joint: test-joint, node_1, node_2": a joint that only reads two node labels.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::test {

class FakeIntegrator final : public Integrator {
  public:
    explicit FakeIntegrator(std::vector<double> p) : parameters(std::move(p)) {}
    std::string name() const override { return "test-method"; }
    ProblemInterface requires_interface() const override {
        return ProblemInterface::kFirstOrderDae;
    }
    void Attach(Formulation&, const SolverSettings&) override {}
    void Start(double, double) override {}
    StepStats Advance(double, double) override { return {}; }
    int order() const override { return 1; }
    std::vector<double> parameters;
};

class FakeJoint final : public Element {
  public:
    FakeJoint(int label, int a, int b) : Element(label, "test-joint") { nodes_ = {a, b}; }
    void Evaluate(const ElementContext&, ElementBlock&) const override {}
};

inline const Registry& TestRegistry() {
    static const Registry registry = [] {
        Registry r;
        LoadPlugins(r);
        r.set_current_library("io_test");
        IntegratorDescriptor m;
        m.name = "test-method";
        m.family = "test";
        m.description = "reads drive parameters, integrates nothing";
        m.order = "1";
        m.make = [](DeckInput& in) -> std::unique_ptr<Integrator> {
            std::vector<double> p;
            while (in.HasArg()) p.push_back(in.GetDrive("test parameter")->Value(0.0));
            return std::make_unique<FakeIntegrator>(std::move(p));
        };
        r.Add(std::move(m));
        ElementDescriptor j;
        j.statement = "joint";
        j.name = "test-joint";
        j.description = "two node labels";
        j.read = [](ElementReadArgs& a) -> std::unique_ptr<Element> {
            const int n1 = a.in.GetNode("first node");
            const int n2 = a.in.GetNode("second node");
            return std::make_unique<FakeJoint>(a.label, n1, n2);
        };
        r.Add(std::move(j));
        return r;
    }();
    return registry;
}

/// data and initial value blocks plus `begin: control data;`: exactly 10 lines, so the
/// text appended to it starts at line 11.
inline const char* kPrelude =
    "begin: data;\n"
    "    problem: initial value;\n"
    "end: data;\n"
    "begin: initial value;\n"
    "    initial time: 0.;\n"
    "    final time: 1.;\n"
    "    time step: 1e-3;\n"
    "    method: test-method;\n"
    "end: initial value;\n"
    "begin: control data;\n";

inline Deck Read(const std::string& text, const std::string& name = "test.mbd") {
    return ReadDeckText(text, name, TestRegistry());
}

}  // namespace mbstep::test
