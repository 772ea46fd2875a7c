// mbstep — `mbstep study`: convergence and work–precision studies (study.hpp; docs/DESIGN.md,
// "Studies").
//
// Every run is a job: (method text, formulation, h). This unit reads the plan from the command
// line and runs the jobs on a TBB arena of --threads workers (study_run.cpp runs one); under
// mpirun (built with MPI) the ranks share them (study_mpi.cpp) and rank 0 computes the errors
// against the reference and writes the files (study_report.cpp).
#include "study.hpp"

#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "study_parts.hpp"

namespace po = boost::program_options;

namespace mbstep {
namespace study {
namespace {

const char* kStudyUsage =
    "usage: mbstep study convergence|work-precision DECK --methods METHOD... "
    "(--steps H... | --steps-range H0 FACTOR N)\n"
    "                    [--formulation NAME] [--final-time T] [--tolerance TOL]\n"
    "                    [--reference METHOD:H | --reference-file FILE] "
    "[--error QUANTITY[,QUANTITY...]]\n"
    "                    [--repeat N] [--work cpu|iterations|factorizations] [--output|-o "
    "PREFIX]\n"
    "                    [--threads N] [--no-plot]\n";

/// Default reference: this method at the smallest step / kReferenceDivisor (an L-stable,
/// stiffly accurate order-4 ESDIRK: accurate on index-3 positions), on `cgr`, whose rows keep
/// round-off eps |p| at the reference's small steps (the default `cgr velocity unscaled`'s
/// momentum rows carry eps |p| / c: docs/DESIGN.md, "Formulation `cgr velocity`").
const char* kDefaultReferenceMethod = "DIRK54@cgr";
constexpr double kReferenceDivisor = 4.0;

StudyPlan Plan(const std::vector<std::string>& args, const Registry& reg) {
    po::options_description opts("mbstep study options");
    opts.add_options()("methods", po::value<std::vector<std::string>>()->multitoken(),
                       "methods, e.g. \"ms, 0.6\" \"generalized alpha, 0.9@lie group\"")(
        "steps", po::value<std::vector<std::string>>()->multitoken(), "step sizes")(
        "steps-range", po::value<std::vector<std::string>>()->multitoken(),
        "H0 FACTOR N: h_k = H0 / FACTOR^k, k = 0..N-1 (FACTOR > 1)")(
        "formulation", po::value<std::string>(), "formulation of the methods without @NAME")(
        "final-time", po::value<std::string>(), "final time (default: the deck's)")(
        "tolerance", po::value<std::string>(), "Newton residual tolerance (default: the deck's)")(
        "reference", po::value<std::string>(),
        "reference run METHOD[@FORMULATION]:H (default: DIRK54@cgr at the smallest step / 4)")(
        "reference-file", po::value<std::string>(),
        "reference node states: an MBDyn .mov (last line of each node) or label,x,y,z[,vx,vy,vz] "
        "CSV")("error", po::value<std::string>()->default_value("position"),
               "position | velocity | orientation | angular-velocity, or several separated by "
               "commas; both = position,velocity; all = the four: the max over the nodes (and "
               "the quantities) of the 2-norm of the difference (orientation: the geodesic "
               "angle of R^T R_ref, rad)")(
        "repeat", po::value<int>()->default_value(1),
        "run every job N times; cpu_seconds is the minimum (work-precision)")(
        "work", po::value<std::string>()->default_value("cpu"),
        "x axis of the work plot: cpu (seconds) | iterations (Newton) | factorizations")(
        "output,o", po::value<std::string>(),
        "output prefix (default: the deck path without .mbd, plus -KIND)")(
        "threads", po::value<int>()->default_value(1), "runs in parallel (TBB)")(
        "no-plot", "write no PNG")("kind", po::value<std::string>(), "convergence|work-precision")(
        "deck", po::value<std::string>(), "input deck");
    po::positional_options_description pos;
    pos.add("kind", 1).add("deck", 1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);

    StudyPlan p;
    if (!vm.count("kind")) throw StudyError("missing KIND (convergence or work-precision)");
    p.kind = vm["kind"].as<std::string>();
    if (p.kind != "convergence" && p.kind != "work-precision")
        throw StudyError("unknown study '" + p.kind + "'; use convergence or work-precision");
    if (!vm.count("deck")) throw StudyError("missing DECK");
    p.setup.deck_path = vm["deck"].as<std::string>();

    // Deck (read once here to report its errors and warnings before anything runs).
    Deck deck = ReadDeck(p.setup.deck_path, reg);
    p.warnings = deck.warnings;
    const double t0 = deck.settings.initial_time;
    if (vm.count("final-time"))
        p.setup.final_time = ParsePositive(vm["final-time"].as<std::string>(), "--final-time");
    else if (deck.settings.forever)
        throw StudyError("the deck runs forever: give --final-time");
    else
        p.setup.final_time = deck.settings.final_time;
    if (!(p.setup.final_time > t0))
        throw StudyError("the final time " + Num(p.setup.final_time, 6) +
                         " does not follow the initial time " + Num(t0, 6));
    if (vm.count("tolerance"))
        p.setup.tolerance = ParsePositive(vm["tolerance"].as<std::string>(), "--tolerance");

    // Methods.
    if (!vm.count("methods")) throw StudyError("no methods: give --methods METHOD...");
    const std::string form = vm.count("formulation") ? vm["formulation"].as<std::string>() : "";
    for (const auto& m : vm["methods"].as<std::vector<std::string>>())
        p.series.push_back(ResolveMethod(m, form, reg));
    for (size_t i = 0; i < p.series.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (p.series[i].method == p.series[j].method &&
                p.series[i].formulation == p.series[j].formulation)
                throw StudyError("method '" + p.series[i].method + "' on '" +
                                 p.series[i].formulation + "' is listed twice");

    // Steps.
    if (vm.count("steps") && vm.count("steps-range"))
        throw StudyError("give either --steps or --steps-range, not both");
    if (vm.count("steps")) {
        for (const auto& s : vm["steps"].as<std::vector<std::string>>())
            p.steps.push_back(ParsePositive(s, "--steps"));
    } else if (vm.count("steps-range")) {
        const auto& r = vm["steps-range"].as<std::vector<std::string>>();
        if (r.size() != 3) throw StudyError("--steps-range needs H0 FACTOR N");
        const double h0 = ParsePositive(r[0], "--steps-range H0");
        const double factor = ParsePositive(r[1], "--steps-range FACTOR");
        const double n = ParsePositive(r[2], "--steps-range N");
        if (!(factor > 1.0)) throw StudyError("--steps-range FACTOR must be greater than 1");
        if (n != std::floor(n) || n > 64) throw StudyError("--steps-range N must be 1..64");
        for (int k = 0; k < static_cast<int>(n); ++k) p.steps.push_back(h0 / std::pow(factor, k));
    } else {
        throw StudyError("no step sizes: give --steps H... or --steps-range H0 FACTOR N");
    }
    std::sort(p.steps.begin(), p.steps.end(), std::greater<double>());
    p.steps.erase(std::unique(p.steps.begin(), p.steps.end()), p.steps.end());
    const double span = p.setup.final_time - t0;
    auto check_multiple = [&](double h, const std::string& what) {
        const double n = span / h;
        if (std::abs(n - std::round(n)) > 1e-6 * std::max(1.0, n) || std::round(n) < 1)
            throw StudyError(what + " " + Num(h, 6) + " does not divide the time span " +
                             Num(span, 6) + " into whole steps");
    };
    for (double h : p.steps) check_multiple(h, "step");

    // Error quantities.
    p.quantities = 0;
    {
        std::stringstream ss(vm["error"].as<std::string>());
        std::string q;
        while (std::getline(ss, q, ',')) {
            q = Trim(q);
            unsigned bits = 0;
            if (q == "both") bits = kPosition | kVelocity;
            if (q == "all") bits = kPosition | kVelocity | kOrientation | kAngularVelocity;
            for (const auto& k : kQuantities)
                if (q == k.name) bits = k.q;
            if (!bits)
                throw StudyError("--error '" + q +
                                 "': use position, velocity, orientation, angular-velocity, "
                                 "both or all (or a comma-separated list)");
            p.quantities |= bits;
        }
        if (!p.quantities) throw StudyError("--error: no quantity");
    }
    p.setup.repeat = vm["repeat"].as<int>();
    if (p.setup.repeat < 1) throw StudyError("--repeat must be at least 1");
    {
        const std::string w = vm["work"].as<std::string>();
        if (w == "cpu")
            p.work = "cpu_seconds";
        else if (w == "iterations")
            p.work = "newton_iterations";
        else if (w == "factorizations")
            p.work = "factorizations";
        else
            throw StudyError("--work '" + w + "': use cpu, iterations or factorizations");
    }

    // Reference.
    if (vm.count("reference") && vm.count("reference-file"))
        throw StudyError("give either --reference or --reference-file, not both");
    if (vm.count("reference-file")) {
        p.reference_from_file = true;
        p.reference_text = vm["reference-file"].as<std::string>();
        std::map<int, OrientationOutput> orientation;
        for (const auto& n : deck.model.nodes()) orientation[n.label] = n.orientation_output;
        p.reference_nodes = ReadReferenceFile(p.reference_text, p.quantities, orientation);
    } else {
        Job ref;
        if (vm.count("reference")) {
            const std::string spec = vm["reference"].as<std::string>();
            const auto colon = spec.rfind(':');
            if (colon == std::string::npos)
                throw StudyError("--reference '" + spec + "': expected METHOD:H");
            ref.h = ParsePositive(spec.substr(colon + 1), "--reference step");
            const Series s = ResolveMethod(spec.substr(0, colon), "", reg);
            ref.method = s.method;
            ref.formulation = s.formulation;
        } else {
            const Series s = ResolveMethod(kDefaultReferenceMethod, "", reg);
            ref.method = s.method;
            ref.formulation = s.formulation;
            ref.h = p.steps.back() / kReferenceDivisor;
        }
        check_multiple(ref.h, "the reference step");
        p.jobs.push_back(ref);
        p.reference_text = ref.method + "@" + ref.formulation + ", h = " + Num(ref.h, 6);
    }
    for (size_t s = 0; s < p.series.size(); ++s)
        for (double h : p.steps)
            p.jobs.push_back({p.series[s].method, p.series[s].formulation, h, static_cast<int>(s)});

    // Output and execution.
    if (vm.count("output")) {
        p.prefix = vm["output"].as<std::string>();
    } else {
        std::string base = p.setup.deck_path;
        if (base.size() > 4 && base.compare(base.size() - 4, 4, ".mbd") == 0)
            base.resize(base.size() - 4);
        p.prefix = base + "-" + p.kind;
    }
    if (p.prefix.empty()) throw StudyError("--output: empty prefix");
    p.threads = vm["threads"].as<int>();
    if (p.threads < 1) throw StudyError("--threads must be at least 1");
    p.plot = !vm.count("no-plot");
    return p;
}

}  // namespace
}  // namespace study

int StudyCommand(const std::vector<std::string>& args) {
    using namespace study;
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::cout << kStudyUsage
                      << "Runs DECK for every method and step size (in parallel), compares the "
                         "final node states with a reference, writes PREFIX.csv, "
                         "PREFIX-slopes.csv, PREFIX-error.png and PREFIX-work.png.\n";
            return 0;
        }
    Ranks ranks;
#ifndef MBSTEP_WITH_MPI
    if (const char* sz = std::getenv("OMPI_COMM_WORLD_SIZE"); sz && std::atoi(sz) > 1) {
        std::cerr << "mbstep study: error: started by mpirun, but this mbstep was built without "
                     "MPI (configure with MPI installed); run it without mpirun\n";
        return 2;
    }
#endif
    const Registry& reg = GlobalRegistry();  // loaded before any thread starts (call_once)
    const bool talk = ranks.rank == 0;
    StudyPlan plan;
    int code = 0;
    try {
        plan = Plan(args, reg);
    } catch (const StudyError& e) {
        if (talk) std::cerr << "mbstep study: error: " << e.what() << "\n" << kStudyUsage;
        code = 2;
    } catch (const DeckError& e) {
        if (talk) std::cerr << e.what() << "\n";
        code = 1;
    } catch (const po::error& e) {
        if (talk) std::cerr << "mbstep study: " << e.what() << "\n" << kStudyUsage;
        code = 2;
    } catch (const std::exception& e) {
        if (talk) std::cerr << "mbstep study: error: " << e.what() << "\n";
        code = 1;
    }
    if (!ranks.AllOk(code == 0)) return code ? code : 1;
    if (talk)
        for (const auto& w : plan.warnings) std::cerr << w << "\n";

    // This rank's share, in parallel on a TBB arena; each job writes its own slot.
    std::vector<size_t> mine;
    for (size_t i = 0; i < plan.jobs.size(); ++i)
        if (static_cast<int>(i % ranks.size) == ranks.rank) mine.push_back(i);
    std::vector<Outcome> outcomes(plan.jobs.size());
    // No more workers than this process may use (mpirun binds each rank to a core by default).
    const int cores = std::max(1, tbb::info::default_concurrency());
    if (plan.threads > cores) {
        if (talk)
            std::cerr << "mbstep study: --threads " << plan.threads << " reduced to " << cores
                      << ", the cores this process may use"
                      << (ranks.mpi ? " (mpirun binds ranks to cores: --bind-to none lifts it)"
                                    : "")
                      << "\n";
        plan.threads = cores;
    }
    tbb::task_arena arena(plan.threads);
    arena.execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<size_t>(0, mine.size(), 1),
            [&](const tbb::blocked_range<size_t>& r) {
                for (size_t k = r.begin(); k != r.end(); ++k)
                    outcomes[mine[k]] = RunJob(plan.setup, plan.jobs[mine[k]], reg);
            },
            tbb::simple_partitioner());
    });

    if (ranks.mpi) {
        std::string text;
        for (size_t i : mine) text += Serialize(static_cast<int>(i), outcomes[i]);
        const std::string all = ranks.Gather(text);
        if (!talk) return 0;
        outcomes.assign(plan.jobs.size(), Outcome{});
        Deserialize(all, outcomes);
    }
    try {
        return Report(plan, outcomes);
    } catch (const std::exception& e) {
        std::cerr << "mbstep study: error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace mbstep
