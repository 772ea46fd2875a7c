// Helpers for tests that run decks: read a deck from examples/, override method, step and
// final time, run it without output files, and collect node states.
#pragma once

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

namespace mbstep::test {

/// The message of the RunError that running `deck` without output throws ("no error" if it
/// completes).
inline std::string RunErrorMessage(Deck& deck) {
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    try {
        Run(deck, opt, GlobalRegistry());
    } catch (const RunError& e) {
        return e.what();
    }
    return "no error";
}

/// RunErrorMessage of the deck text run with `method` (a deck's method text).
inline std::string RunErrorMessage(const std::string& text, const std::string& method) {
    Deck deck = ReadDeckText(text, "deck.mbd", GlobalRegistry());
    std::string name;
    deck.integrator = MakeIntegrator(method, GlobalRegistry(), &name);
    deck.method_name = name;
    return RunErrorMessage(deck);
}

inline std::string SourcePath(const std::string& rel) {
    return std::string(MBSTEP_SOURCE_DIR) + "/" + rel;
}

/// The n-link chain of examples/n-link-chain/generate.py (`ms, 0.6`, h = 1e-3, tolerance 1e-8)
/// with deterministic spins 10 sin(1 + i), ending at final_time; `formulation` ("" none) is
/// written into the deck; y0 shifts every position along y. For tests that need a chain of a
/// size (or a place) no example has.
inline std::string ChainDeckText(int n, const std::string& formulation = "",
                                 double final_time = 0.02, double y0 = 0.0) {
    std::ostringstream y;
    y.precision(17);
    y << y0 << (y0 == std::floor(y0) && std::abs(y0) < 1e15 ? "." : "");
    const std::string ys = y.str();
    std::ostringstream os;
    os << "begin: data;\n    problem: initial value;\nend: data;\n"
       << "set: const real M = 39.;\nset: const real JX = 0.01625;\n"
       << "set: const real JY = 13.008125;\n"
       << "begin: initial value;\n    initial time: 0.;\n    final time: " << final_time
       << ";\n    time step: 0.001;\n    method: ms, 0.6;\n    tolerance: 1e-08;\n"
       << "    max iterations: 20;\n";
    if (!formulation.empty()) os << "    formulation: " << formulation << ";\n";
    os << "end: initial value;\n"
       << "begin: control data;\n    structural nodes: " << n << ";\n    rigid bodies: " << n
       << ";\n    joints: " << n << ";\n    gravity;\nend: control data;\nbegin: nodes;\n";
    for (int i = 0; i < n; ++i)
        os << "    structural: " << i + 1 << ", dynamic, 0., " << ys << ", " << -(2 * i + 1)
           << "., matr, 0., 0., 1., 0., 1., 0., -1., 0., 0., null, 0., 0., "
           << 10.0 * std::sin(1.0 + i) << ";\n";
    os << "end: nodes;\nbegin: elements;\n";
    for (int i = 0; i < n; ++i)
        os << "    body: " << i + 1 << ", " << i + 1 << ", M, null, diag, JX, JY, JY;\n";
    os << "    joint: 1, spherical pin, 1, position, -1., 0., 0., position, "
       << (y0 == 0.0 ? std::string("null") : "0., " + ys + ", 0.") << ";\n";
    for (int i = 1; i < n; ++i)
        os << "    joint: " << i + 1 << ", spherical hinge, " << i << ", position, 1., 0., 0., "
           << i + 1 << ", position, -1., 0., 0.;\n";
    os << "    gravity: uniform, 0.07169162, 0.68473815, 0.72525442, const, 9.81;\n"
       << "end: elements;\n";
    return os.str();
}

struct RunResult {
    std::vector<FrameState> final_states;
    RunSummary summary;
};

/// Settings a test overrides besides method, step and final time.
struct RunOverrides {
    std::string formulation;  ///< "" keeps the deck's (or the method's default)
    double tolerance{0.0};    ///< <= 0 keeps the deck's
    int threads{1};
};

/// Runs `deck` (path) with method text `method` ("" keeps the deck's), step h and final time tf
/// (<= 0 keeps the deck's); on_step is called after every step.
inline RunResult RunDeck(const std::string& deck_path, const std::string& method, double h,
                         double tf, std::function<void(double, const Formulation&)> on_step,
                         const RunOverrides& over);

inline RunResult RunDeck(const std::string& deck_path, const std::string& method, double h,
                         double tf,
                         std::function<void(double, const Formulation&)> on_step = nullptr,
                         int threads = 1) {
    RunOverrides over;
    over.threads = threads;
    return RunDeck(deck_path, method, h, tf, std::move(on_step), over);
}

inline RunResult RunDeck(const std::string& deck_path, const std::string& method, double h,
                         double tf, std::function<void(double, const Formulation&)> on_step,
                         const RunOverrides& over) {
    const int threads = over.threads;
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeck(deck_path, reg);
    if (!over.formulation.empty()) deck.settings.formulation = over.formulation;
    if (over.tolerance > 0) deck.settings.solver.residual_tolerance = over.tolerance;
    if (!method.empty()) {
        std::string name;
        deck.integrator = MakeIntegrator(method, reg, &name);
        deck.method_name = name;
        deck.settings.method_text = method;
    }
    if (h > 0) deck.settings.time_step = h;
    if (tf > 0) deck.settings.final_time = tf;
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    opt.threads = threads;
    RunResult res;
    opt.on_step = [&](double t, const Formulation& f) {
        res.final_states = f.node_states();
        if (on_step) on_step(t, f);
    };
    res.summary = Run(deck, opt, reg);
    return res;
}

/// The order an integrator declares, for method text such as "ms, 0.6" (keyword before the
/// first comma), from the registry.
inline double DeclaredOrder(const std::string& method) {
    const IntegratorDescriptor* d =
        GlobalRegistry().FindIntegrator(method.substr(0, method.find(',')));
    if (d == nullptr) throw std::runtime_error("no integrator '" + method + "'");
    return std::stod(d->order);
}

/// Observed orders log2(e_i / e_{i+1}) of a sequence of errors at halved steps.
inline std::vector<double> Orders(const std::vector<double>& e) {
    std::vector<double> p;
    for (size_t i = 0; i + 1 < e.size(); ++i) p.push_back(std::log2(e[i] / e[i + 1]));
    return p;
}

/// The method statements a registry-driven test runs for one descriptor: its name alone, with
/// each of `rhos` when tunable, and each alternative of its first keyword parameter (range
/// "keyword", name "a | b"), after the defaults of the parameters before it (e.g.
/// `hht, -0.1, modified`, `hht, -0.1, arnold bruls`).
inline std::vector<std::string> MethodVariants(const IntegratorDescriptor& d,
                                               const std::vector<std::string>& rhos) {
    std::vector<std::string> texts{d.name};
    if (d.tunable)
        for (const std::string& rho : rhos) texts.push_back(d.name + ", " + rho);
    std::string prefix = d.name;
    for (const ParameterInfo& p : d.parameters) {
        if (p.range == "keyword") {
            const std::string alternatives = p.name + " | ";
            for (size_t at = 0, bar; (bar = alternatives.find(" | ", at)) != std::string::npos;
                 at = bar + 3)
                texts.push_back(prefix + ", " + alternatives.substr(at, bar - at));
            break;
        }
        prefix += ", " + p.default_value;
    }
    return texts;
}

inline std::string Join(const std::vector<double>& v) {
    std::ostringstream os;
    for (double x : v) os << x << " ";
    return os.str();
}

}  // namespace mbstep::test
