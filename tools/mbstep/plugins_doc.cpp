// mbstep — `mbstep plugins --markdown` (plugins_doc.hpp). Blank optional descriptor fields
// (registry.hpp) are derived from the integrator itself; the formulations a method runs on are
// found by running it: one step of a free rigid body under gravity on each formulation that
// provides the equation form the method needs (a method that refuses a formulation says so in
// Attach, e.g. `eml` needs Euler parameters), and, where that fails on a formulation that runs
// abstract nodes, one step of an abstract-node oscillator.
#include "plugins_doc.hpp"

#include <cmath>
#include <complex>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "mbstep/analysis/linear_analysis.hpp"
#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/simulation.hpp"

namespace mbstep {

namespace {

std::string Cell(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out.empty() ? "-" : out;
}

std::string Number(double v) {
    if (std::abs(v) < 1e-9) return "0";
    if (std::abs(v - 1.0) < 1e-9) return "1";
    std::ostringstream os;
    os << std::setprecision(4) << v;
    return os.str();
}

std::unique_ptr<Integrator> TryMake(const std::string& text, const Registry& r) {
    try {
        return MakeIntegrator(text, r);
    } catch (const std::exception&) {
        return nullptr;
    }
}

// A-stability sampled on the closed left half-plane (the imaginary axis, rays in the left
// half-plane, and h lambda -> -inf): spectral radius <= 1 (state modes, 1e-9 slack).
bool SampledAStable(const FirstOrderIntegrator& m, double rho) {
    using analysis::SpectralRadius;
    for (double r = 1e-3; r <= 1e6; r *= 1.5)
        for (double theta : {0.5, 0.6, 0.75, 0.9, 1.0}) {
            const std::complex<double> z = std::polar(r, theta * 3.14159265358979323846);
            if (SpectralRadius(m, z, rho) > 1.0 + 1e-9) return false;
        }
    return analysis::SpectralRadiusAtInfinity(m, rho) <= 1.0 + 1e-9;
}

std::string Stability(const FirstOrderIntegrator& m, bool tunable) {
    if (!tunable) {
        if (!SampledAStable(m, 0.0)) return "not A-stable";
        return analysis::SpectralRadiusAtInfinity(m, 0.0) < 1e-8 ? "L-stable" : "A-stable";
    }
    // Methods with tabulated parameters accept only some rho_inf: the others are skipped.
    for (double rho : {0.0, 0.3, 0.6, 0.9, 1.0}) {
        bool stable = true;
        try {
            stable = SampledAStable(m, rho);
        } catch (const std::exception&) {
            continue;
        }
        if (!stable) return "not A-stable at rho_inf = " + Number(rho);
    }
    return "A-stable; L-stable at rho_inf = 0";
}

// One step of a free rigid body under gravity (principal central frame, diagonal inertia: what
// every method accepts) on formulation `f`: the method runs on it when Attach and the step
// succeed.
const char* kProbeDeck = R"(
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.e-3; time step: 1.e-3;
    tolerance: 1.e-8; max iterations: 20; end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1; gravity; end: control data;
begin: nodes;
    structural: 1, dynamic, 0., 0., 1., eye, 0.1, 0., 0., 0.3, -0.2, 0.5;
end: nodes;
begin: elements;
    body: 1, 1, 2., null, diag, 0.1, 0.2, 0.3;
    gravity: uniform, 0., 0., -1., const, 9.81;
end: elements;
)";

// One step of a one-coordinate oscillator of an abstract node (T = u^2/2, V = x^2/2): the probe
// of the formulations that run abstract nodes, when the rigid body's fails (`lagrangian`).
const char* kAbstractProbeDeck = R"(
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.e-3; time step: 1.e-3;
    tolerance: 1.e-8; max iterations: 20; end: initial value;
begin: control data; abstract nodes: 1; genels: 1; end: control data;
begin: nodes; abstract: 1, differential, value, 0.1, derivative, 0.3; end: nodes;
begin: elements;
    genel: 1, lagrangian, coordinates, 1, 1, "x", "u", kinetic energy, "u^2/2",
        potential energy, "x^2/2";
end: elements;
)";

bool RunsOn(const std::string& method, const std::string& formulation, const Registry& r,
            const char* probe = kProbeDeck) {
    try {
        Deck deck = ReadDeckText(probe, "<formulation probe>", r);
        deck.integrator = MakeIntegrator(method, r);
        deck.method_name = method;
        deck.settings.formulation = formulation;
        RunOptions options;
        options.write_output = false;
        options.progress = false;
        if (Run(deck, options, r).completed) return true;
    } catch (const std::exception&) {
    }
    const FormulationDescriptor* f = r.FindFormulation(formulation);
    if (probe == kProbeDeck && f && f->supports_abstract_nodes)
        return RunsOn(method, formulation, r, kAbstractProbeDeck);
    return false;
}

/// The formulations `d` runs on, its default first (marked).
std::string RunsOn(const IntegratorDescriptor& d, const Registry& r) {
    std::string out;
    auto add = [&](const FormulationDescriptor& f) {
        if (f.provides != d.requires_interface || !RunsOn(d.name, f.name, r)) return;
        out += (out.empty() ? "" : ", ") + ("`" + f.name + "`") +
               (f.name == d.default_formulation ? " (default)" : "");
    };
    if (const FormulationDescriptor* f = r.FindFormulation(d.default_formulation)) add(*f);
    for (const auto& f : r.formulations())
        if (f.name != d.default_formulation) add(f);
    return out;
}

const char* InterfaceName(ProblemInterface i) {
    switch (i) {
        case ProblemInterface::kFirstOrderDae:
            return "first-order DAE";
        case ProblemInterface::kSecondOrderDae:
            return "second-order DAE";
        case ProblemInterface::kOde:
            return "ODE";
    }
    return "-";
}

void PrintFormulations(const Registry& r, std::ostream& os) {
    os << "| keyword | equations | `model: static` | abstract nodes | description | library |\n"
       << "|---|---|---|---|---|---|\n";
    for (const auto& f : r.formulations())
        os << "| `" << f.name << "` | " << InterfaceName(f.provides) << " | "
           << (f.solves_static_model ? "yes" : "no") << " | "
           << (f.supports_abstract_nodes ? "yes" : "no") << " | " << Cell(f.description) << " | "
           << Cell(f.library) << " |\n";
}

void PrintElements(const Registry& r, std::ostream& os) {
    os << "| statement | type | description | library |\n|---|---|---|---|\n";
    for (const auto& e : r.elements())
        os << "| `" << e.statement << ":` | " << (e.name.empty() ? "-" : "`" + e.name + "`")
           << " | " << Cell(e.description) << " | " << Cell(e.library) << " |\n";
}

void PrintDrives(const Registry& r, std::ostream& os) {
    os << "| drive | description | library |\n|---|---|---|\n";
    for (const auto& d : r.drives())
        os << "| `" << d.name << "` | " << Cell(d.description) << " | " << Cell(d.library)
           << " |\n";
}

void PrintLaws(const Registry& r, std::ostream& os) {
    os << "| law | dimensions | description | library |\n|---|---|---|---|\n";
    for (const auto& l : r.constitutive_laws()) {
        std::string dims;
        for (int k : l.dimensions) dims += (dims.empty() ? "" : ", ") + std::to_string(k);
        os << "| `" << l.name << "` | " << Cell(dims) << " | " << Cell(l.description) << " | "
           << Cell(l.library) << " |\n";
    }
}

void PrintMethods(const Registry& r, std::ostream& os) {
    os << "| keyword | family | steps/stages | order | rho_inf | stability | formulations "
          "| description | reference | equations |\n"
       << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& d : r.integrators()) {
        const auto integ = TryMake(d.name, r);
        const auto* fo = dynamic_cast<const FirstOrderIntegrator*>(integ.get());
        const bool analysable = fo && fo->AmplificationMatrix(-1.0, 0.0).size() > 0;
        // Steps/stages.
        std::string steps = d.steps;
        if (steps.empty() && fo) {
            std::vector<double> a, b;
            if (fo->MultistepCoefficients(1.0, 0.5, a, b))
                steps = std::to_string(a.size()) + (a.size() == 1 ? " step" : " steps");
            else if (fo->implicit_stages() > 1)
                steps = std::to_string(fo->implicit_stages()) + " implicit stages";
            else
                steps = "1 step";
        }
        // rho_inf: the parameter's range, or the declared value of a fixed method (tested).
        std::string rho;
        if (d.tunable)
            rho = d.parameters[0].range;
        else if (analysable)
            rho = Number(d.fixed_rho_inf);
        // Stability.
        std::string stability = d.stability;
        if (stability.empty() && analysable) stability = Stability(*fo, d.tunable);
        os << "| `" << d.name << "` | " << Cell(d.family) << " | " << Cell(steps) << " | "
           << Cell(d.order) << " | " << Cell(rho) << " | " << Cell(stability) << " | "
           << Cell(RunsOn(d, r)) << " | " << Cell(d.description) << " | " << Cell(d.reference)
           << " | " << Cell(d.equations) << " |\n";
    }
}

}  // namespace

void PrintPluginsMarkdown(const Registry& r, std::ostream& os) {
    os << "# Plugins\n\n"
          "Generated by `mbstep plugins --markdown` from the plugins this build loads (regenerate "
          "after adding or changing a plugin: `build/bin/mbstep plugins --markdown > "
          "docs/plugins.md`; the test `plugins_doc_current` fails when this file is stale). "
          "docs/methods.md explains the methods' columns; docs/input.md the statements.\n\n"
          "## Methods\n\n";
    PrintMethods(r, os);
    os << "\n## Formulations\n\n";
    PrintFormulations(r, os);
    os << "\n## Elements\n\n";
    PrintElements(r, os);
    os << "\n## Drives\n\n";
    PrintDrives(r, os);
    os << "\n## Constitutive laws\n\n";
    PrintLaws(r, os);
}

}  // namespace mbstep
