// Helpers for tests that run decks: read a deck from examples/, override method, step and
// final time, run it without output files, and collect node states.
#pragma once

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

namespace mbstep::test {

inline std::string SourcePath(const std::string& rel) {
    return std::string(MBSTEP_SOURCE_DIR) + "/" + rel;
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

/// Observed orders log2(e_i / e_{i+1}) of a sequence of errors at halved steps.
inline std::vector<double> Orders(const std::vector<double>& e) {
    std::vector<double> p;
    for (size_t i = 0; i + 1 < e.size(); ++i) p.push_back(std::log2(e[i] / e[i + 1]));
    return p;
}

inline std::string Join(const std::vector<double>& v) {
    std::ostringstream os;
    for (double x : v) os << x << " ";
    return os.str();
}

}  // namespace mbstep::test
