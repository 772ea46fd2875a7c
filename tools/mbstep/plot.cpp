// mbstep — `mbstep plot` (plot.hpp).
#include "plot.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "plot_script.hpp"

namespace po = boost::program_options;

namespace mbstep {

namespace {

const char* kPlotUsage =
    "usage: mbstep plot RUN_PREFIX... (--node L [--what position|rotation|velocity|omega] |\n"
    "                   --csv COLUMN | --joint L [--what force|moment|global-force|"
    "global-moment])\n"
    "                   [--output|-o PNG] [--data-out CSV]\n";

}  // namespace

int PlotCommand(const std::vector<std::string>& args) {
    po::options_description opts("mbstep plot options");
    opts.add_options()("node", po::value<std::string>(), "a structural node's label (.mov)")(
        "csv", po::value<std::string>(), "a column of the .csv (e.g. energy)")(
        "joint", po::value<std::string>(), "a joint's label (.jnt)")(
        "what", po::value<std::string>(),
        "node: position (default), rotation (the .mov's orientation columns), velocity, omega; "
        "joint: force (default), moment (joint frame), global-force, global-moment")(
        "output,o", po::value<std::string>(),
        "the PNG (default: FIRST_PREFIX-<what was plotted>.png)")(
        "data-out", po::value<std::string>(), "also write the plotted series as CSV")(
        "help,h", "this help")("prefix", po::value<std::vector<std::string>>(), "run prefixes");
    po::positional_options_description pos;
    pos.add("prefix", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << kPlotUsage
                  << "Plots time histories of runs of `mbstep run` (RUN_PREFIX: the files' "
                     "prefix, e.g. examples/heavy-top/heavy-top), several runs overlaid; the "
                     "times of the output steps come from each run's .out.\n"
                  << opts;
        return 0;
    }
    if (!vm.count("prefix")) {
        std::cerr << "mbstep plot: missing RUN_PREFIX\n" << kPlotUsage;
        return 2;
    }
    const int selected = static_cast<int>(vm.count("node") + vm.count("csv") + vm.count("joint"));
    if (selected != 1) {
        std::cerr << "mbstep plot: give exactly one of --node, --csv, --joint\n" << kPlotUsage;
        return 2;
    }
    if (vm.count("what") && vm.count("csv")) {
        std::cerr << "mbstep plot: --what applies to --node and --joint\n";
        return 2;
    }
    if (vm.count("what")) {
        const std::string what = vm["what"].as<std::string>();
        const std::vector<std::string> accepted =
            vm.count("node")
                ? std::vector<std::string>{"position", "rotation", "velocity", "omega"}
                : std::vector<std::string>{"force", "moment", "global-force", "global-moment"};
        if (std::find(accepted.begin(), accepted.end(), what) == accepted.end()) {
            std::string list;
            for (const auto& a : accepted) list += (list.empty() ? "" : ", ") + a;
            std::cerr << "mbstep plot: --what " << what << ": accepted with --"
                      << (vm.count("node") ? "node" : "joint") << ": " << list << "\n";
            return 2;
        }
    }
    const auto prefixes = vm["prefix"].as<std::vector<std::string>>();
    for (const std::string& p : prefixes) {
        const std::string needed = p + (vm.count("csv") ? ".csv" : ".out");
        if (!std::filesystem::exists(needed)) {
            std::cerr << "mbstep plot: " << needed << " not found (RUN_PREFIX is the prefix of "
                      << "a run's output files, e.g. examples/heavy-top/heavy-top)\n";
            return 1;
        }
    }
    const std::string script = FindPlotScript("run_plot.py", "MBSTEP_RUN_PLOT");
    if (script.empty()) {
        std::cerr << "mbstep plot: tools/plot/run_plot.py not found (set MBSTEP_RUN_PLOT)\n";
        return 1;
    }
    const std::string python = FindPython();
    if (python.empty()) {
        std::cerr << "mbstep plot: python3 with matplotlib is not available (Debian: "
                     "python3-matplotlib; or set MBSTEP_PYTHON)\n";
        return 1;
    }
    std::string cmd = python + " " + ShellQuote(script);
    for (const std::string& p : prefixes) cmd += " " + ShellQuote(p);
    for (const char* o : {"node", "csv", "joint", "what", "output", "data-out"})
        if (vm.count(o)) cmd += std::string(" --") + o + "=" + ShellQuote(vm[o].as<std::string>());
    std::cout.flush();
    const int rc = std::system(cmd.c_str());
    return rc == 0 ? 0 : 1;
}

}  // namespace mbstep
