// mbstep — command-line front end.
//   mbstep run DECK [--method NAME [--rho R]] [--output|-o PREFIX] [--threads N] [--quiet]
//   mbstep plugins [--markdown]
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

namespace po = boost::program_options;
using namespace mbstep;

namespace {

const char* kUsage =
    "usage: mbstep run DECK [--method NAME [--rho R]] [--output|-o PREFIX] [--threads N] [--quiet]\n"
    "       mbstep plugins [--markdown]\n";

int Plugins(const std::vector<std::string>& args) {
    bool markdown = false;
    for (const auto& a : args) {
        if (a == "--markdown") markdown = true;
        else {
            std::cerr << "mbstep plugins: unknown option '" << a << "'\n" << kUsage;
            return 2;
        }
    }
    const Registry& r = GlobalRegistry();
    if (markdown) {
        std::cout << "| keyword | family | order | parameters | description | reference |\n"
                  << "|---|---|---|---|---|---|\n";
        for (const auto& d : r.integrators()) {
            std::string params;
            for (const auto& p : d.parameters)
                params += (params.empty() ? "" : "; ") + p.name + " " + p.range + " (default " + p.default_value + ")";
            std::cout << "| `" << d.name << "` | " << d.family << " | " << d.order << " | " << params
                      << " | " << d.description << " | " << d.reference << " |\n";
        }
        return 0;
    }
    for (const auto& d : r.formulations())
        std::cout << "formulation  " << d.name << " — " << d.description << "  [" << d.library << "]\n";
    for (const auto& d : r.integrators())
        std::cout << "integrator   " << d.name << " — " << d.description << "  [" << d.library << "]\n";
    for (const auto& d : r.elements())
        std::cout << "element      " << d.statement << (d.name.empty() ? "" : ": " + d.name) << " — "
                  << d.description << "  [" << d.library << "]\n";
    for (const auto& d : r.drives())
        std::cout << "drive        " << d.name << " — " << d.description << "  [" << d.library << "]\n";
    return 0;
}

int RunCommand(const std::vector<std::string>& args) {
    po::options_description opts("mbstep run options");
    opts.add_options()("method", po::value<std::string>(), "integrator keyword (overrides the deck's method:)")(
        "rho", po::value<std::string>(), "rho_inf for --method")(
        "output,o", po::value<std::string>(), "output prefix (default: the deck path without .mbd)")(
        "threads", po::value<int>()->default_value(1), "assembly threads")(
        "quiet,q", "no progress bar")("deck", po::value<std::string>(), "input deck");
    po::positional_options_description pos;
    pos.add("deck", 1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
    if (!vm.count("deck")) {
        std::cerr << "mbstep run: missing DECK\n" << kUsage;
        return 2;
    }
    if (vm.count("rho") && !vm.count("method")) {
        std::cerr << "mbstep run: --rho needs --method\n";
        return 2;
    }
    const Registry& registry = GlobalRegistry();
    const std::string path = vm["deck"].as<std::string>();
    Deck deck = ReadDeck(path, registry);
    for (const auto& w : deck.warnings) std::cerr << w << "\n";
    if (vm.count("method")) {
        std::string text = vm["method"].as<std::string>();
        if (vm.count("rho")) text += ", " + vm["rho"].as<std::string>();
        std::string name;
        deck.integrator = MakeIntegrator(text, registry, &name);
        deck.method_name = name;
        deck.settings.method_text = text;
    }
    RunOptions options;
    if (vm.count("output")) options.output_prefix = vm["output"].as<std::string>();
    options.threads = vm["threads"].as<int>();
    if (options.threads < 1) {
        std::cerr << "mbstep run: --threads must be at least 1\n";
        return 2;
    }
    options.progress = !vm.count("quiet");
    const RunSummary s = Run(deck, options, registry);
    std::cout << Describe(s) << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << kUsage;
        return 2;
    }
    const std::string cmd = argv[1];
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
        if (cmd == "run") return RunCommand(args);
        if (cmd == "plugins") return Plugins(args);
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << kUsage;
            return 0;
        }
        std::cerr << "mbstep: unknown command '" << cmd << "'\n" << kUsage;
        return 2;
    } catch (const DeckError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    } catch (const RunError& e) {
        std::cerr << "mbstep: error: " << e.what() << "\n";
        return 1;
    } catch (const po::error& e) {
        std::cerr << "mbstep: " << e.what() << "\n" << kUsage;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "mbstep: error: " << e.what() << "\n";
        return 1;
    }
}
