// mbstep — `mbstep plot RUN_PREFIX... (--node L [--what W] | --csv COLUMN | --joint L [--what W])
// [-o PNG] [--data-out CSV]` (docs/DESIGN.md, "Input and output"): time histories of runs as a
// PNG drawn by tools/plot/run_plot.py with matplotlib, several runs overlaid; the times of the
// output steps are read from each run's .out.
#pragma once

#include <string>
#include <vector>

namespace mbstep {

/// `args` are the arguments after `plot`. Returns the process exit code (0 ok, 1 a run-time
/// error, 2 bad usage).
int PlotCommand(const std::vector<std::string>& args);

}  // namespace mbstep
