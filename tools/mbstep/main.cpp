// mbstep — command-line front end.
//   mbstep run DECK [--method NAME [--rho R]] [--formulation NAME] [--time-step H]
//              [--final-time T] [--tolerance TOL] [--output|-o PREFIX] [--no-output] [--vtk]
//              [--netcdf] [--flush-interval SECONDS] [--threads N] [--quiet]
//   mbstep plot RUN_PREFIX... (--node L [--what W] | --csv COL | --joint L [--what W])
//              [-o PNG] [--data-out CSV]   (plot.hpp)
//   mbstep plugins [--markdown | --write-index FOLDER]
//   mbstep analyze METHOD... [--rho R]... [--points N] [--min X] [--max X] [--output PREFIX]
//                  [--no-plot]
//   mbstep study convergence|work-precision DECK --methods METHOD... --steps H... [...]
//              (study.hpp)
#include <atomic>
#include <boost/program_options.hpp>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "heap_setup.hpp"
#include "manual.hpp"
#include "mbstep/analysis/linear_analysis.hpp"
#include "mbstep/integrator/butcher_tableau.hpp"
#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/io/netcdf.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"
#include "plot.hpp"
#include "plot_script.hpp"
#include "plugins_doc.hpp"
#include "study.hpp"
#include "study_parts.hpp"

namespace po = boost::program_options;
using namespace mbstep;

namespace {

const char* kUsage =
    "usage: mbstep run DECK [--method NAME [--rho R]] [--formulation NAME] [--time-step H]\n"
    "                  [--final-time T] [--tolerance TOL] [--output|-o PREFIX] [--no-output]\n"
    "                  [--vtk] [--netcdf] [--flush-interval SECONDS] [--threads N] [--quiet]\n"
    "       mbstep plot RUN_PREFIX... (--node L [--what position|rotation|velocity|omega] |\n"
    "                  --csv COLUMN | --joint L [--what W]) [-o PNG] [--data-out CSV]\n"
    "       mbstep plugins [--markdown | --write-index FOLDER]\n"
    "       mbstep manual            (the input manual, docs/input.md, in Markdown)\n"
    "       mbstep analyze METHOD... [--rho R]... [--points N] [--min X] [--max X] "
    "[--output PREFIX] [--no-plot]\n"
    "       mbstep study convergence|work-precision DECK --methods METHOD... "
    "(--steps H... | --steps-range H0 FACTOR N)\n"
    "                  [--formulation NAME] [--final-time T] [--tolerance TOL] "
    "[--reference METHOD:H | --reference-file FILE]\n"
    "                  [--error QUANTITY[,QUANTITY...]] [--repeat N] "
    "[--work cpu|iterations|factorizations]\n"
    "                  [--output|-o PREFIX] [--threads N] [--no-plot]\n";

// `mbstep --help`: every command, the environment and the method/formulation syntax; each
// command's own options with their defaults are in `mbstep COMMAND --help`.
const char* kHelp =
    "mbstep: a multibody-dynamics kernel with run-time loaded integrators, formulations and\n"
    "elements; it reads MBDyn input decks.\n"
    "\n"
    "commands:\n"
    "  run DECK [options]   integrate DECK (MBDyn's input language) and write the MBDyn output\n"
    "                       files PREFIX.out/.mov/.log/.jnt/.act and mbstep's PREFIX.csv\n"
    "  -f DECK [-o PREFIX] [options]\n"
    "                       as `mbdyn -f DECK -o PREFIX`: the same as `run`\n"
    "  plot RUN_PREFIX... (--node L [--what W] | --csv COLUMN | --joint L [--what W])\n"
    "                       time histories of runs as a PNG (matplotlib), several overlaid\n"
    "  plugins [--markdown] the loaded formulations, integrators, elements, drives and laws\n"
    "  plugins --write-index FOLDER   the plugin index of FOLDER (a run then opens only the\n"
    "                       plugins its deck names)\n"
    "  manual               the input manual (docs/input.md) in Markdown\n"
    "  analyze METHOD...    linear analysis on x'' + w^2 x = 0 of first-order, explicit RK and\n"
    "                       second-order methods: spectral radius, damping and period errors\n"
    "                       against h/(nT), as CSV and plots\n"
    "  study convergence|work-precision DECK --methods METHOD... (--steps H... |\n"
    "                       --steps-range H0 FACTOR N): errors against a reference run, fitted\n"
    "                       orders, CSV and plots (under mpirun the runs are shared)\n"
    "  --help, -h           this text; `mbstep COMMAND --help`: a command's options and defaults\n"
    "  --version            the version\n"
    "\n"
    "methods: a deck's `method:` text, e.g. \"ms, 0.6\", \"bdf\", \"Bathe\", \"generalized alpha, "
    "0.9\"\n"
    "(`mbstep plugins` lists them); `--method NAME --rho R` is `--method \"NAME, R\"`. In "
    "`study`,\n"
    "METHOD@FORMULATION runs a method on a formulation, e.g. \"generalized alpha, 0.9@lie "
    "group\";\n"
    "without `@` a method runs on --formulation, else on its default (the first-order methods:\n"
    "`cgr velocity unscaled`).\n"
    "\n"
    "environment: MBSTEP_PLUGIN_PATH, a colon-separated list of plugin folders (or .so files)\n"
    "searched before the installed plugin folder; a lib*.so that is not an mbstep plugin is\n"
    "skipped with a warning, the same plugin found twice is loaded once. MBSTEP_HUGE_PAGES=0:\n"
    "`run` of a deck of 64 KiB or more does not restart itself with glibc's huge-page tunable\n"
    "(glibc.malloc.hugetlb=1, transparent huge pages for the heap of a large model).\n";

// ---------------------------------------------------------------------------------------------
// `analyze`: the linear analysis of [Zhang, Masarati et al., section 4]
// (mbstep/analysis/linear_analysis.hpp), one curve per method and rho_inf.

double ParseRho(const std::string& text) {
    size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || text.empty())
        throw RunError("analyze: --rho '" + text + "' is not a number");
    if (!(v >= 0.0 && v <= 1.0))
        throw RunError("analyze: --rho " + text + " is outside the accepted range [0, 1]");
    return v;
}

std::string Slug(const analysis::OscillatorCurve& c) {
    std::string s;
    for (char ch : c.method)
        s += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ? ch : '-';
    if (!c.rho_text.empty()) s += "-rho" + c.rho_text;
    return s;
}

/// One curve to compute: the method (as built from `text`), its name in the CSV (the text
/// without rho_inf) and its rho_inf as given.
struct AnalysisCase {
    std::string text;
    std::string label;
    std::string rho_text;  ///< empty: the method has no rho_inf parameter
};

/// The curve of one method: its own amplification matrix (first-order methods), the stability
/// function of its tableau (explicit Runge-Kutta), or the matrix identified by stepping it on
/// the linear oscillator (second-order methods); linear_analysis.hpp (1)-(9).
analysis::OscillatorCurve AnalyzeCase(const AnalysisCase& k, const std::vector<double>& x,
                                      int& order) {
    const Registry& reg = GlobalRegistry();
    std::string name;
    const std::unique_ptr<Integrator> integ = MakeIntegrator(k.text, reg, &name);
    const IntegratorDescriptor* d = reg.FindIntegrator(name);
    order = integ->order();
    analysis::OscillatorCurve c;
    c.method = k.label;
    c.rho_text = k.rho_text;
    c.tunable = !k.rho_text.empty();
    if (const auto* fo = dynamic_cast<const FirstOrderIntegrator*>(integ.get());
        fo && fo->AmplificationMatrix(-1.0, 0.0).size() > 0) {
        // AmplificationMatrix takes rho_inf as an argument: the parsed text, else the declared
        // rho_inf of a method without the parameter.
        const double rho =
            c.tunable ? ParseRho(k.rho_text) : (fo->tunable() ? d->fixed_rho_inf : 0.0);
        analysis::OscillatorCurve out = analysis::AnalyzeOscillator(*fo, rho, x);
        out.method = c.method;
        out.rho_text = c.rho_text;
        out.tunable = c.tunable;
        return out;
    }
    if (const ButcherTableau* t = ButcherTableauOf(*integ)) {
        return analysis::AnalyzeOscillator(
            [t](std::complex<double> z) {
                return Eigen::MatrixXcd::Constant(1, 1, analysis::StabilityFunction(*t, z));
            },
            c, x);
    }
    if (integ->requires_interface() == ProblemInterface::kSecondOrderDae) {
        Integrator& m = *integ;
        std::string oscillator_refused;
        try {
            analysis::SecondOrderAmplification(m, 1.0);  // refusals named once, here
        } catch (const std::exception& e) {
            oscillator_refused = e.what();
        }
        if (oscillator_refused.empty())
            return analysis::AnalyzeOscillator(
                [&m](std::complex<double> z) {
                    return Eigen::MatrixXcd(analysis::SecondOrderAmplification(m, std::abs(z))
                                                .cast<std::complex<double>>());
                },
                c, x);
        // A method that needs structural nodes: the oscillator as two bodies on a rod, on
        // the method's default formulation.
        const std::string f = d->default_formulation;
        try {
            analysis::SecondOrderAmplificationOnNodes(k.text, f, reg, 1.0);
        } catch (const std::exception& e) {
            throw RunError("analyze: method '" + k.text + "' cannot step the linear oscillator (" +
                           oscillator_refused + ") nor two bodies on a rod on '" + f +
                           "': " + e.what());
        }
        return analysis::AnalyzeOscillator(
            [&](std::complex<double> z) {
                return Eigen::MatrixXcd(
                    analysis::SecondOrderAmplificationOnNodes(k.text, f, reg, std::abs(z))
                        .cast<std::complex<double>>());
            },
            c, x);
    }
    throw RunError("analyze: method '" + name + "' provides no amplification matrix");
}

int Analyze(const std::vector<std::string>& args) {
    po::options_description opts("mbstep analyze options");
    opts.add_options()("rho", po::value<std::vector<std::string>>()->composing(),
                       "rho_inf of the methods with a rho_inf parameter given without one; "
                       "repeat or separate by commas (default: the method's default)")(
        "points", po::value<int>()->default_value(121), "grid points")(
        "min", po::value<double>()->default_value(1e-3), "smallest h / (n T)")(
        "max", po::value<double>()->default_value(1e3), "largest h / (n T)")(
        "output,o", po::value<std::string>(),
        "write PREFIX-<method>[-rho<R>].csv per curve, PREFIX-index.csv and the plots "
        "PREFIX-AD.png, PREFIX-PE.png, PREFIX-spectral_radius.png (default: CSV on stdout)")(
        "no-plot", "with --output: write no PNG")("help,h", "this help")(
        "method", po::value<std::vector<std::string>>(),
        "method keywords, with parameters if any (e.g. \"hht, -0.2\")");
    po::positional_options_description pos;
    pos.add("method", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << "usage: mbstep analyze METHOD... [options]\n"
                  << "Linear analysis on x'' + w^2 x = 0 [Zhang, Masarati et al., section 4]: "
                     "spectral radius, AD(%) (100 x the numerical damping ratio), PE(%) (the "
                     "relative period error) against h/(nT), for the first-order methods (their "
                     "amplification matrices), the explicit Runge-Kutta tableaus (their "
                     "stability functions) and the second-order methods (stepped on the "
                     "oscillator, or on two bodies joined by a rod for methods that need "
                     "structural nodes; NaN where it cannot be identified). CSV columns: "
                  << analysis::CsvHeader() << opts;
        return 0;
    }
    if (!vm.count("method")) {
        std::cerr << "mbstep analyze: missing METHOD\n" << kUsage << opts;
        return 2;
    }
    std::vector<std::string> rhos;
    if (vm.count("rho"))
        for (const std::string& item : vm["rho"].as<std::vector<std::string>>()) {
            std::stringstream ss(item);
            std::string tok;
            while (std::getline(ss, tok, ','))
                if (!(tok = study::Trim(tok)).empty()) {
                    ParseRho(tok);  // validates
                    rhos.push_back(tok);
                }
        }
    analysis::Grid grid;
    grid.points = vm["points"].as<int>();
    grid.min = vm["min"].as<double>();
    grid.max = vm["max"].as<double>();
    const std::vector<double> x = analysis::LogGrid(grid);

    // One curve per method and rho_inf: a method text with parameters is analysed as given;
    // a method with a rho_inf parameter given without it once per --rho (default: its
    // default); the others once (--rho ignored).
    const Registry& reg = GlobalRegistry();
    std::vector<AnalysisCase> cases;
    for (const std::string& arg : vm["method"].as<std::vector<std::string>>()) {
        const std::string text = study::Trim(arg);
        const auto comma = text.find(',');
        const std::string key = study::Trim(text.substr(0, comma));
        const IntegratorDescriptor* d = reg.FindIntegrator(key);
        if (!d) {
            std::string known;
            for (const auto& e : reg.integrators()) known += (known.empty() ? "" : ", ") + e.name;
            throw RunError("analyze: unknown method '" + key + "'; registered: " + known);
        }
        if (comma != std::string::npos) {
            // "NAME, RHO[, MORE]": labelled "NAME[, MORE]"; other parameters stay in the label.
            const std::string rest = text.substr(comma + 1);
            if (!d->tunable) {
                cases.push_back({text, d->name + "," + rest, ""});
                continue;
            }
            const auto next = rest.find(',');
            cases.push_back({text, d->name + (next == std::string::npos ? "" : rest.substr(next)),
                             study::Trim(rest.substr(0, next))});
            continue;
        }
        if (!d->tunable) {
            if (!rhos.empty())
                std::cerr << "mbstep analyze: " << d->name << " has no rho_inf; --rho ignored\n";
            cases.push_back({d->name, d->name, ""});
            continue;
        }
        std::vector<std::string> rs = rhos;
        if (rs.empty()) rs.push_back(d->parameters[0].default_value);
        for (const std::string& rho : rs) cases.push_back({d->name + ", " + rho, d->name, rho});
    }
    std::vector<analysis::OscillatorCurve> curves;
    std::vector<int> orders(cases.size());
    for (size_t i = 0; i < cases.size(); ++i) curves.push_back(AnalyzeCase(cases[i], x, orders[i]));

    // Output: files with an index and the plots, or CSV on stdout; the same columns always.
    if (!vm.count("output")) {
        std::cout << analysis::CsvHeader();
        for (const auto& c : curves) analysis::WriteCsvRows(std::cout, c);
        return 0;
    }
    const std::string prefix = vm["output"].as<std::string>();
    const std::string index_path = prefix + "-index.csv";
    std::ofstream index(index_path);
    if (!index) throw RunError("analyze: cannot write " + index_path);
    index << "method,rho_inf,tunable,stages,order,file\n";
    for (size_t i = 0; i < curves.size(); ++i) {
        const auto& c = curves[i];
        const std::string path = prefix + "-" + Slug(c) + ".csv";
        std::ofstream out(path);
        if (!out) throw RunError("analyze: cannot write " + path);
        analysis::WriteCsv(out, c);
        index << '"' << c.method << "\"," << c.rho_text << ',' << (c.tunable ? 1 : 0) << ','
              << c.stages << ',' << orders[i] << ','
              << std::filesystem::path(path).filename().string() << '\n';
        std::cout << path << "\n";
    }
    index.close();
    std::cout << index_path << "\n";
    if (!vm.count("no-plot"))
        RunPlotScript("analysis_plot.py", "MBSTEP_ANALYSIS_PLOT", ShellQuote(index_path),
                      "mbstep analyze");
    return 0;
}

int Plugins(const std::vector<std::string>& args) {
    bool markdown = false;
    for (std::size_t k = 0; k < args.size(); ++k) {
        const std::string& a = args[k];
        if (a == "--markdown") {
            markdown = true;
        } else if (a == "--write-index") {
            if (k + 2 != args.size() || markdown) {
                std::cerr << "mbstep plugins: --write-index takes one folder and no other "
                             "option\n";
                return 2;
            }
            std::vector<std::string> skipped;
            WritePluginIndex(args[k + 1], &skipped);
            for (const std::string& s : skipped)
                std::cerr << "mbstep: warning: not indexed: " << s << "\n";
            return 0;
        } else if (a == "--help" || a == "-h") {
            std::cout << "usage: mbstep plugins [--markdown | --write-index FOLDER]\n"
                         "Lists the loaded formulations, integrators, elements, drives and "
                         "constitutive laws with their libraries (MBSTEP_PLUGIN_PATH, then the "
                         "installed plugin folder).\n"
                         "  --markdown   docs/plugins.md: every method (with the formulations it "
                         "runs on), "
                         "formulation, element, drive and law as Markdown tables\n"
                         "  --write-index FOLDER   opens every plugin of FOLDER and writes its "
                         "index (mbstep-plugins.index: each file's size, time and names), so "
                         "that a run opens only the plugins its deck names (the build and "
                         "`cmake --install` write it)\n";
            return 0;
        } else {
            std::cerr << "mbstep plugins: unknown option '" << a << "'\n" << kUsage;
            return 2;
        }
    }
    const Registry& r = GlobalRegistry();
    if (markdown) {
        PrintPluginsMarkdown(r, std::cout);
        return 0;
    }
    for (const auto& d : r.formulations())
        std::cout << "formulation  " << d.name << " — " << d.description
                  << (d.solves_static_model ? "; solves `model: static`" : "") << "  [" << d.library
                  << "]\n";
    for (const auto& d : r.integrators())
        std::cout << "integrator   " << d.name << " — " << d.description << "  [" << d.library
                  << "]\n";
    for (const auto& d : r.elements())
        std::cout << "element      " << d.statement << (d.name.empty() ? "" : ": " + d.name)
                  << " — " << d.description << "  [" << d.library << "]\n";
    for (const auto& d : r.drives())
        std::cout << "drive        " << d.name << " — " << d.description << "  [" << d.library
                  << "]\n";
    for (const auto& d : r.constitutive_laws())
        std::cout << "law          " << d.name << " — " << d.description << "  [" << d.library
                  << "]\n";
    return 0;
}

// SIGINT/SIGTERM during `run`: the handler only stores the signal; the run stops at the next
// step boundary, ends its files with the stop mark, and the process exits with 128 + the
// signal number, as a shell reports a process killed by it. The handler is reset when it runs
// (SA_RESETHAND), so a second signal kills at once; a signal ignored at startup (a background
// job of a non-interactive shell) stays ignored.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void OnStopSignal(int signal) { g_stop_signal.store(signal, std::memory_order_relaxed); }

void InstallStopHandlers() {
    for (int signal : {SIGINT, SIGTERM}) {
        struct sigaction old {};
        if (sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        struct sigaction sa {};
        sa.sa_handler = OnStopSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(signal, &sa, nullptr);
    }
}

int RunCommand(const std::vector<std::string>& args) {
    po::options_description opts("mbstep run options");
    opts.add_options()("method", po::value<std::string>(),
                       "integrator keyword (overrides the deck's method:)")(
        "rho", po::value<std::string>(), "rho_inf for --method")(
        "formulation", po::value<std::string>(),
        "coordinate formulation (overrides the deck's; default: the method's)")(
        "time-step", po::value<double>(), "step size (overrides the deck's time step:)")(
        "final-time", po::value<double>(), "final time (overrides the deck's final time:)")(
        "tolerance", po::value<double>(),
        "Newton residual tolerance (overrides the deck's tolerance:)")(
        "output,o", po::value<std::string>(),
        "output prefix (default: the deck path without .mbd)")("no-output", "write no output file")(
        "vtk", "also write the VTK series PREFIX.pvd + PREFIX-vtk/ (as output results: vtk)")(
        "netcdf",
        "also write PREFIX.nc in MBDyn's NetCDF layout (as output results: netcdf; needs mbstep "
        "built with NetCDF)")(
        "flush-interval", po::value<double>()->default_value(1.0),
        "seconds of wall time between writes of the output files (0: after every step)")(
        "threads", po::value<int>()->default_value(1), "assembly threads")(
        "quiet,q", "no progress bar")("help,h", "this help")("deck", po::value<std::string>(),
                                                             "input deck");
    po::positional_options_description pos;
    pos.add("deck", 1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << "usage: mbstep run DECK [options]   (or: mbstep -f DECK [-o PREFIX] "
                     "[options], as mbdyn -f)\n"
                     "Integrates DECK (MBDyn's input language) and writes PREFIX.out/.mov/.log/"
                     ".jnt/.act and PREFIX.csv. Exit status: 0 done, 1 an error (the files end "
                     "with its message), 2 bad arguments, 130/143 stopped by SIGINT/SIGTERM.\n"
                  << opts;
        return 0;
    }
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
    for (const auto& r : deck.remarks) std::cout << r << "\n";
    if (vm.count("method")) {
        std::string text = vm["method"].as<std::string>();
        if (vm.count("rho")) text += ", " + vm["rho"].as<std::string>();
        std::string name;
        deck.integrator = MakeIntegrator(text, registry, &name);
        deck.method_name = name;
        deck.settings.method_text = text;
    }
    if (vm.count("formulation")) deck.settings.formulation = vm["formulation"].as<std::string>();
    if (vm.count("time-step")) {
        const double h = vm["time-step"].as<double>();
        if (!(h > 0.0)) {
            std::cerr << "mbstep run: --time-step must be positive\n";
            return 2;
        }
        deck.settings.time_step = h;
    }
    if (vm.count("final-time")) deck.settings.final_time = vm["final-time"].as<double>();
    if (vm.count("tolerance")) {
        const double tol = vm["tolerance"].as<double>();
        if (!(tol > 0.0)) {
            std::cerr << "mbstep run: --tolerance must be positive\n";
            return 2;
        }
        deck.settings.solver.residual_tolerance = tol;
    }
    RunOptions options;
    if (vm.count("output")) options.output_prefix = vm["output"].as<std::string>();
    options.threads = vm["threads"].as<int>();
    if (options.threads < 1) {
        std::cerr << "mbstep run: --threads must be at least 1\n";
        return 2;
    }
    options.progress = !vm.count("quiet");
    options.write_output = !vm.count("no-output");
    if (vm.count("vtk")) deck.settings.output_vtk = true;
    if (vm.count("netcdf")) {
        if (!NetcdfOutputAvailable()) {
            std::cerr << "mbstep run: --netcdf: this mbstep was built without NetCDF (configure "
                         "with -DMBSTEP_WITH_NETCDF=ON and Debian's libnetcdf-dev installed)\n";
            return 2;
        }
        deck.settings.output_netcdf = true;
    }
    options.flush_interval = vm["flush-interval"].as<double>();
    if (!(options.flush_interval >= 0.0)) {
        std::cerr << "mbstep run: --flush-interval must be zero or positive\n";
        return 2;
    }
    options.stop_request = &g_stop_signal;
    InstallStopHandlers();
    const RunSummary s = Run(deck, options, registry);
    std::cout << Describe(s) << "\n";
    return s.stop_signal ? 128 + s.stop_signal : 0;
}

// Transparent huge pages for the heap (heap_setup.hpp) for `run DECK` and `-f DECK` with a
// deck file of 64 KiB or more (the 1000-link chain's is 260 KiB; the second start costs about
// 1.5 ms, 5 % of the heavy top's 1 s run, whose heap is small).
void RunWithHugePages(int argc, char** argv) {
    if (argc < 3 || (std::string(argv[1]) != "run" && std::string(argv[1]) != "-f")) return;
    std::error_code ec;
    const std::uintmax_t deck_bytes = std::filesystem::file_size(argv[2], ec);
    if (ec || deck_bytes < (64u << 10)) return;
    tools::RunAgainWithHugePages(argv);
}

}  // namespace

int main(int argc, char** argv) {
    RunWithHugePages(argc, argv);
    tools::KeepFreedBlocksInHeap();
    if (argc < 2) {
        std::cerr << kUsage;
        return 2;
    }
    const std::string cmd = argv[1];
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
        if (cmd == "run") return RunCommand(args);
        if (cmd == "plugins") return Plugins(args);
        if (cmd == "manual") {
            PrintInputManual(GlobalRegistry(), std::cout);
            return 0;
        }
        if (cmd == "analyze") return Analyze(args);
        if (cmd == "study") return StudyCommand(args);
        if (cmd == "plot") return PlotCommand(args);
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            std::cout << kHelp << "\n" << kUsage;
            return 0;
        }
        if (cmd == "--version") {
            std::cout << "mbstep " << MBSTEP_VERSION << "\n";
            return 0;
        }
        if (cmd == "-f") {  // mbdyn -f DECK [-o PREFIX]: the deck is the next argument
            if (args.empty()) {
                std::cerr << "mbstep -f: missing DECK\n" << kUsage;
                return 2;
            }
            return RunCommand(args);
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
