// mbstep — the Python plotting scripts (plot_script.hpp).
#include "plot_script.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>

namespace mbstep {

std::string FindPlotScript(const std::string& file, const char* env_var) {
    if (const char* env = std::getenv(env_var)) return env;
    std::error_code ec;
    const auto exe = std::filesystem::canonical("/proc/self/exe", ec);
    if (!ec) {
        const auto p = exe.parent_path().parent_path() / "share" / "mbstep" / file;
        if (std::filesystem::exists(p)) return p.string();
    }
#ifdef MBSTEP_PLOT_SOURCE_DIR
    const auto p = std::filesystem::path(MBSTEP_PLOT_SOURCE_DIR) / file;
    if (std::filesystem::exists(p)) return p.string();
#endif
    return "";
}

std::string ShellQuote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string FindPython() {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("MBSTEP_PYTHON")) candidates.push_back(env);
    candidates.push_back("/usr/bin/python3");
    candidates.push_back("python3");
    for (const auto& py : candidates) {
        const std::string cmd = ShellQuote(py) + " -c 'import matplotlib' >/dev/null 2>&1";
        if (std::system(cmd.c_str()) == 0) return ShellQuote(py);
    }
    return "";
}

bool RunPlotScript(const std::string& file, const char* env_var, const std::string& args,
                   const std::string& who) {
    const std::string script = FindPlotScript(file, env_var);
    if (script.empty()) {
        std::cout << "plots skipped: tools/plot/" << file << " not found (set " << env_var << ")\n";
        return false;
    }
    const std::string python = FindPython();
    if (python.empty()) {
        std::cout << "plots skipped: python3 with matplotlib is not available; plot later with "
                     "python3 "
                  << script << " " << args << "\n";
        return false;
    }
    const std::string cmd = python + " " + ShellQuote(script) + " " + args;
    std::cout.flush();
    if (std::system(cmd.c_str()) != 0) {
        std::cerr << who << ": warning: the plotting script failed: " << cmd << "\n";
        return false;
    }
    return true;
}

}  // namespace mbstep
