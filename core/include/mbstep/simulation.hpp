// mbstep — running a deck: formulation + integrator + writers (MBDyn's Solver::Run).
#pragma once

#include <atomic>
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
    /// Seconds of wall time between writes of the output buffers (OutputWriter); <= 0: after
    /// every step. A run killed without a chance to stop (SIGKILL, power loss) loses at most
    /// the steps of the last interval; every file ends on the same complete step.
    double flush_interval{1.0};
    /// When set and nonzero (a signal number, stored by a signal handler or another thread),
    /// the run stops at the next step boundary: its files end with the stop mark and Run
    /// returns with stop_signal set.
    const std::atomic<int>* stop_request{nullptr};
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
    /// The signal number of RunOptions::stop_request that stopped the run (0: none).
    int stop_signal{0};
    std::vector<std::string> files;
    /// What the initial joint assembly did (InitialAssemblyReport::Describe), and whether it
    /// moved anything.
    std::string assembly;
    bool assembly_moved{false};
};

/// Runs the deck to its final time. Throws RunError when a step cannot be completed (the
/// message names the time, the step and the worst equation); the output files then hold every
/// converged step and end with `# mbstep: stopped: <message>` (.out) and the message (.log).
RunSummary Run(Deck& deck, const RunOptions& options, const Registry& registry);

/// One paragraph describing a finished run.
std::string Describe(const RunSummary& s);

/// "SIGINT", "SIGTERM", ... or "signal N".
std::string SignalName(int signal);

}  // namespace mbstep
