// mbstep — running a deck: formulation + integrator + writers (MBDyn's Solver::Run).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "mbstep/io/deck_reader.hpp"

namespace mbstep {

struct RunOptions {
    std::string output_prefix;  ///< empty: the deck path without a `.mbd` extension
    int threads{1};
    bool progress{true};  ///< progress bar on stderr
    bool write_output{true};
    /// Called after every converged step (tests, studies): time and the formulation.
    std::function<void(double, const class Formulation&)> on_step;
};

struct RunSummary {
    bool completed{false};
    int steps{0};
    long iterations{0};
    long factorizations{0};
    int failed_steps{0};
    int rejected_steps{0};  ///< adaptive methods: steps that failed the error test
    double final_time{0.0};
    double wall_seconds{0.0};
    /// Part of wall_seconds before the first step (formulation, pattern, symbolic analysis,
    /// initial derivatives, output files): wall_seconds - setup_seconds is the stepping time.
    double setup_seconds{0.0};
    std::string method;
    std::string formulation;
    std::string failure;
    std::vector<std::string> files;
    /// What the initial joint assembly did (InitialAssemblyReport::Describe), and whether it
    /// moved anything.
    std::string assembly;
    bool assembly_moved{false};
};

/// Runs the deck to its final time. Throws RunError when a step cannot be completed (the
/// message names the time, the step and the worst equation); output files written so far
/// stay valid (flushed per step).
RunSummary Run(Deck& deck, const RunOptions& options, const Registry& registry);

/// One paragraph describing a finished run.
std::string Describe(const RunSummary& s);

}  // namespace mbstep
