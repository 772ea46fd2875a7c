// mbstep — `mbstep study convergence|work-precision DECK --methods ... --steps ...`
// (docs/DESIGN.md, "Studies"): one deck run for a list of methods and step sizes, in parallel
// with TBB and, when built with MPI and started by mpirun, across ranks; each run's final node
// states are compared with a reference run (or a reference file), and the error, iterations and
// CPU time per run go to PREFIX.csv, the fitted slopes to PREFIX-slopes.csv, and the plots to
// PREFIX-error.png / PREFIX-work.png (tools/plot/study_plot.py).
#pragma once

#include <string>
#include <vector>

namespace mbstep {

/// `args` are the arguments after `study`; `argv0` locates the installed plotting script.
/// Returns the process exit code (0 ok, 1 a run-time error, 2 bad usage).
int StudyCommand(const std::vector<std::string>& args, const std::string& argv0);

/// s quoted for /bin/sh.
std::string ShellQuote(const std::string& s);
/// A Python with matplotlib: $MBSTEP_PYTHON, Debian's /usr/bin/python3 (python3-matplotlib,
/// tools/ci/install-deps.sh), then python3 on PATH; "" if none imports matplotlib. Quoted for
/// /bin/sh.
std::string FindPython();

}  // namespace mbstep
