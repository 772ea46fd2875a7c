// mbstep — the Python plotting scripts of `mbstep study` and `mbstep analyze` (tools/plot/):
// where they are, which Python runs them (docs/DESIGN.md, "Studies").
#pragma once

#include <string>

namespace mbstep {

/// The script `file` (e.g. "study_plot.py"): $`env_var` when set, <exe>/../share/mbstep/FILE
/// (installed), then the source tree's tools/plot/FILE; "" if none exists.
std::string FindPlotScript(const std::string& file, const char* env_var);

/// A Python with matplotlib: $MBSTEP_PYTHON, Debian's /usr/bin/python3 (python3-matplotlib,
/// tools/ci/install-deps.sh), then python3 on PATH; "" if none imports matplotlib. Shell-quoted.
std::string FindPython();

/// `s` in single quotes for /bin/sh.
std::string ShellQuote(const std::string& s);

/// Runs `python script args` (args already quoted) when both are found and prints why not
/// otherwise ("plots skipped: ..."); `who` prefixes the warning of a failed script. Returns
/// true when the script ran and succeeded.
bool RunPlotScript(const std::string& file, const char* env_var, const std::string& args,
                   const std::string& who);

}  // namespace mbstep
