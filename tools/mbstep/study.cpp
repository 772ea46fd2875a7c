// mbstep — `mbstep study`: convergence and work–precision studies (study.hpp; docs/DESIGN.md,
// "Studies").
//
// Every run is a job: (method text, formulation, h). Jobs run on a TBB arena of --threads
// workers, each with its own Deck read from the file, without output files and with serial
// assembly, so that thread CPU time (CLOCK_THREAD_CPUTIME_ID) is the run's own. Under mpirun
// (built with MPI) rank r takes the jobs i with i % size == r and sends its results, serialized
// as text with hexadecimal doubles (bit-exact), to rank 0, which computes the errors against the
// reference and writes the files. A run that fails (Newton, step-size control, a formulation
// that refuses the model) is a row with its message, never a crash.
#include "study.hpp"

#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <time.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

#ifdef MBSTEP_WITH_MPI
#include <mpi.h>
#endif

namespace po = boost::program_options;

namespace mbstep {
namespace {

const char* kStudyUsage =
    "usage: mbstep study convergence|work-precision DECK --methods METHOD... "
    "(--steps H... | --steps-range H0 FACTOR N)\n"
    "                    [--formulation NAME] [--final-time T] [--tolerance TOL]\n"
    "                    [--reference METHOD:H | --reference-file FILE] "
    "[--error position|velocity|both]\n"
    "                    [--output|-o PREFIX] [--threads N] [--no-plot]\n";

/// Default reference: this method at the smallest step / kReferenceDivisor (an L-stable,
/// stiffly accurate order-4 ESDIRK: accurate on index-3 positions), on `cgr`, whose rows keep
/// round-off eps |p| at the reference's small steps (the default `cgr velocity unscaled`'s
/// momentum rows carry eps |p| / c: docs/DESIGN.md, "Formulation `cgr velocity`").
const char* kDefaultReferenceMethod = "DIRK54@cgr";
constexpr double kReferenceDivisor = 4.0;

class StudyError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct NodeFinal {
    int label{0};
    double x[3]{0, 0, 0};
    double v[3]{0, 0, 0};
};

struct Job {
    std::string method;       ///< method text as given, e.g. "ms, 0.6"
    std::string formulation;  ///< resolved formulation name
    double h{0.0};
    int series{-1};  ///< index into the method list; -1 for the reference run
};

struct Outcome {
    bool ok{false};
    int steps{0};         ///< converged steps (also of a failed run)
    long iterations{-1};  ///< -1: unknown (a failed run: Run() throws its summary away)
    long factorizations{-1};
    double cpu_seconds{0.0};
    std::vector<NodeFinal> nodes;
    std::string message;
};

struct Series {
    std::string method;
    std::string formulation;
    int declared_order{0};
};

enum class ErrorMeasure { kPosition, kVelocity, kBoth };

std::string Trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

double ParsePositive(const std::string& text, const std::string& what) {
    size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || Trim(text.substr(used)) != "")
        throw StudyError(what + " '" + text + "' is not a number");
    if (!(v > 0.0) || !std::isfinite(v)) throw StudyError(what + " " + text + " must be positive");
    return v;
}

double ThreadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// ---------------------------------------------------------------------------------------------
// Settings shared by every run.

struct RunSetup {
    std::string deck_path;
    double final_time{0.0};
    double tolerance{0.0};  ///< 0: the deck's
};

/// Validates "METHOD[@FORMULATION]" and resolves the formulation (explicit, --formulation, or
/// the method's default); returns the series with its declared order.
Series ResolveMethod(const std::string& spec, const std::string& default_formulation,
                     const Registry& reg) {
    std::string text = Trim(spec), form = default_formulation;
    const auto at = text.rfind('@');
    if (at != std::string::npos) {
        form = Trim(text.substr(at + 1));
        text = Trim(text.substr(0, at));
        if (form.empty()) throw StudyError("method '" + spec + "': empty formulation after '@'");
    }
    if (text.empty()) throw StudyError("empty method in --methods");
    std::string name;
    std::unique_ptr<Integrator> integ;
    try {
        integ = MakeIntegrator(text, reg, &name);
    } catch (const std::exception& e) {
        throw StudyError("method '" + text + "': " + e.what());
    }
    const IntegratorDescriptor* d = reg.FindIntegrator(name);
    if (form.empty()) form = d ? d->default_formulation : "cgr velocity unscaled";
    const FormulationDescriptor* f = reg.FindFormulation(form);
    if (!f) {
        std::string list;
        for (const auto& fd : reg.formulations()) list += (list.empty() ? "" : ", ") + fd.name;
        throw StudyError("method '" + text + "': unknown formulation '" + form +
                         "'; available: " + list);
    }
    if (f->provides != integ->requires_interface())
        throw StudyError("method '" + text + "' cannot run on formulation '" + f->name +
                         "' (it needs another equation form)");
    return {text, f->name, integ->order()};
}

/// One run: its own deck, no output files, serial assembly; the node states after the last
/// step. Any exception becomes a failed outcome with its message.
Outcome RunJob(const RunSetup& setup, const Job& job, const Registry& reg) {
    Outcome o;
    try {
        Deck deck = ReadDeck(setup.deck_path, reg);
        std::string name;
        deck.integrator = MakeIntegrator(job.method, reg, &name);
        deck.method_name = name;
        deck.settings.method_text = job.method;
        deck.settings.formulation = job.formulation;
        deck.settings.time_step = job.h;
        deck.settings.final_time = setup.final_time;
        deck.settings.forever = false;
        deck.settings.abort_after_steps = -1;
        if (setup.tolerance > 0.0) deck.settings.solver.residual_tolerance = setup.tolerance;
        std::vector<int> labels;
        for (const auto& n : deck.model.nodes()) labels.push_back(n.label);
        RunOptions opt;
        opt.write_output = false;
        opt.progress = false;
        opt.threads = 1;
        const double t_last = setup.final_time - 0.5 * job.h;
        int calls = 0;  // converged steps + 1 (the initial state): a failed run's steps
        opt.on_step = [&](double t, const Formulation& f) {
            o.steps = calls++;
            if (t < t_last) return;
            const auto& states = f.node_states();
            o.nodes.resize(states.size());
            for (size_t i = 0; i < states.size(); ++i) {
                o.nodes[i].label = labels[i];
                for (int k = 0; k < 3; ++k) {
                    o.nodes[i].x[k] = states[i].x[k];
                    o.nodes[i].v[k] = states[i].v[k];
                }
            }
        };
        const double cpu0 = ThreadCpuSeconds();
        RunSummary s;
        try {
            s = Run(deck, opt, reg);
        } catch (...) {
            o.cpu_seconds = ThreadCpuSeconds() - cpu0;
            throw;
        }
        o.cpu_seconds = ThreadCpuSeconds() - cpu0;
        o.steps = s.steps;
        o.iterations = s.iterations;
        o.factorizations = s.factorizations;
        o.ok = s.completed && !o.nodes.empty();
        if (!o.ok) o.message = "the run stopped at t = " + std::to_string(s.final_time);
    } catch (const std::exception& e) {
        o.ok = false;
        o.nodes.clear();
        o.message = e.what();
    }
    for (char& c : o.message)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    return o;
}

// ---------------------------------------------------------------------------------------------
// Serialization (MPI gather): one line per job, hexadecimal doubles.

std::string Hex(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
}

std::string Serialize(int index, const Outcome& o) {
    std::ostringstream os;
    os << index << '\t' << o.ok << '\t' << o.steps << '\t' << o.iterations << '\t'
       << o.factorizations << '\t' << Hex(o.cpu_seconds) << '\t' << o.nodes.size() << '\t';
    for (const auto& n : o.nodes) {
        os << n.label;
        for (double c : n.x) os << ' ' << Hex(c);
        for (double c : n.v) os << ' ' << Hex(c);
        os << ' ';
    }
    os << '\t' << o.message << '\n';
    return os.str();
}

void Deserialize(const std::string& text, std::vector<Outcome>& out) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::vector<std::string> f;
        size_t p = 0;
        for (int k = 0; k < 8; ++k) {
            const size_t q = line.find('\t', p);
            if (q == std::string::npos) throw StudyError("corrupt result line from a rank");
            f.push_back(line.substr(p, q - p));
            p = q + 1;
        }
        const size_t index = std::stoul(f[0]);
        if (index >= out.size()) throw StudyError("result for an unknown run from a rank");
        Outcome& o = out[index];
        o.ok = f[1] == "1";
        o.steps = std::stoi(f[2]);
        o.iterations = std::stol(f[3]);
        o.factorizations = std::stol(f[4]);
        o.cpu_seconds = std::strtod(f[5].c_str(), nullptr);
        o.nodes.resize(std::stoul(f[6]));
        std::istringstream ns(f[7]);
        for (auto& n : o.nodes) {
            std::string tok;
            ns >> n.label;
            for (double& c : n.x) {
                ns >> tok;
                c = std::strtod(tok.c_str(), nullptr);
            }
            for (double& c : n.v) {
                ns >> tok;
                c = std::strtod(tok.c_str(), nullptr);
            }
        }
        o.message = line.substr(p);
    }
}

// ---------------------------------------------------------------------------------------------
// Reference file: an MBDyn .mov (label x y z <orientation> vx vy vz wx wy wz per node and
// output step; the last line of each label is taken) or a CSV `label,x,y,z[,vx,vy,vz]` (header
// and `#` lines skipped; the last row of each label is taken).

std::vector<NodeFinal> ReadReferenceFile(const std::string& path, bool need_velocity) {
    std::ifstream in(path);
    if (!in) throw StudyError("cannot read reference file '" + path + "'");
    const bool csv = std::filesystem::path(path).extension() == ".csv";
    std::map<int, NodeFinal> last;
    std::vector<int> order;
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        const std::string t = Trim(line);
        if (t.empty() || t[0] == '#') continue;
        std::vector<std::string> tok;
        if (csv) {
            std::stringstream ss(t);
            std::string item;
            while (std::getline(ss, item, ',')) tok.push_back(Trim(item));
        } else {
            std::istringstream ss(t);
            std::string item;
            while (ss >> item) tok.push_back(item);
        }
        std::vector<double> v;
        bool numeric = true;
        for (const auto& s : tok) {
            char* end = nullptr;
            const double d = std::strtod(s.c_str(), &end);
            if (s.empty() || *end != '\0') {
                numeric = false;
                break;
            }
            v.push_back(d);
        }
        const std::string where = path + ":" + std::to_string(line_no) + ": ";
        if (!numeric) {
            if (csv && last.empty()) continue;  // a header
            throw StudyError(where + "not a row of numbers");
        }
        NodeFinal n;
        n.label = static_cast<int>(v[0]);
        if (csv) {
            if (v.size() != 4 && v.size() != 7)
                throw StudyError(where + "expected label,x,y,z[,vx,vy,vz]");
            if (need_velocity && v.size() != 7)
                throw StudyError(where + "--error velocity needs columns vx,vy,vz");
            for (int k = 0; k < 3; ++k) n.x[k] = v[1 + k];
            if (v.size() == 7)
                for (int k = 0; k < 3; ++k) n.v[k] = v[4 + k];
        } else {
            if (v.size() < 13) throw StudyError(where + "expected an MBDyn .mov line");
            for (int k = 0; k < 3; ++k) {
                n.x[k] = v[1 + k];
                n.v[k] = v[v.size() - 6 + k];
            }
        }
        if (!last.count(n.label)) order.push_back(n.label);
        last[n.label] = n;
    }
    if (last.empty()) throw StudyError("reference file '" + path + "' holds no node");
    std::vector<NodeFinal> out;
    for (int l : order) out.push_back(last[l]);
    return out;
}

/// Max over the nodes of the reference of |x - x_ref| (and/or |v - v_ref|); nodes of the
/// reference missing from the run make it an error.
double Error(const std::vector<NodeFinal>& run, const std::vector<NodeFinal>& ref,
             ErrorMeasure measure, bool from_file, std::string& problem) {
    std::map<int, const NodeFinal*> by_label;
    for (const auto& n : run) by_label[n.label] = &n;
    double err = 0.0;
    int matched = 0;
    for (const auto& r : ref) {
        const auto it = by_label.find(r.label);
        if (it == by_label.end()) {
            if (from_file) continue;  // e.g. a dummy node of the .mov
            problem = "node " + std::to_string(r.label) + " missing";
            return NAN;
        }
        ++matched;
        double dx = 0.0, dv = 0.0;
        for (int k = 0; k < 3; ++k) {
            dx += (it->second->x[k] - r.x[k]) * (it->second->x[k] - r.x[k]);
            dv += (it->second->v[k] - r.v[k]) * (it->second->v[k] - r.v[k]);
        }
        if (measure != ErrorMeasure::kVelocity) err = std::max(err, std::sqrt(dx));
        if (measure != ErrorMeasure::kPosition) err = std::max(err, std::sqrt(dv));
    }
    if (matched == 0) {
        problem = "no node label of the reference is a node of the model";
        return NAN;
    }
    return err;
}

/// Least-squares slope of log e against log h.
double FitSlope(const std::vector<double>& h, const std::vector<double>& e) {
    const size_t n = h.size();
    if (n < 2) return NAN;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; ++i) {
        const double x = std::log(h[i]), y = std::log(e[i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double den = n * sxx - sx * sx;
    return den > 0 ? (n * sxy - sx * sy) / den : NAN;
}

std::string CsvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string Num(double v, int precision = 17) {
    if (!std::isfinite(v)) return "";
    std::ostringstream os;
    os << std::setprecision(precision) << v;
    return os.str();
}

/// The plotting script: $MBSTEP_STUDY_PLOT, <exe>/../share/mbstep/study_plot.py (installed),
/// then the source tree's tools/plot/study_plot.py.
std::string FindPlotScript(const std::string& argv0) {
    if (const char* env = std::getenv("MBSTEP_STUDY_PLOT")) return env;
    std::error_code ec;
    const auto exe = std::filesystem::canonical("/proc/self/exe", ec);
    if (!ec) {
        const auto p = exe.parent_path().parent_path() / "share" / "mbstep" / "study_plot.py";
        if (std::filesystem::exists(p)) return p.string();
    }
    (void)argv0;
#ifdef MBSTEP_STUDY_PLOT_SOURCE
    if (std::filesystem::exists(MBSTEP_STUDY_PLOT_SOURCE)) return MBSTEP_STUDY_PLOT_SOURCE;
#endif
    return "";
}

// ---------------------------------------------------------------------------------------------
// MPI (optional): initialised only when started by a launcher (mpirun / srun set these).

#ifdef MBSTEP_WITH_MPI
bool UnderMpiLauncher() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(v)) return true;
    return false;
}
#endif

struct Ranks {
    int rank{0};
    int size{1};
    bool mpi{false};
    Ranks() {
#ifdef MBSTEP_WITH_MPI
        if (UnderMpiLauncher()) {
            MPI_Init(nullptr, nullptr);
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            mpi = true;
        }
#endif
    }
    ~Ranks() {
#ifdef MBSTEP_WITH_MPI
        if (mpi) MPI_Finalize();
#endif
    }
    Ranks(const Ranks&) = delete;
    Ranks& operator=(const Ranks&) = delete;

    /// Rank 0 receives every rank's text (concatenated); the others get "".
    std::string Gather(const std::string& mine) const {
        if (!mpi) return mine;
#ifdef MBSTEP_WITH_MPI
        int len = static_cast<int>(mine.size());
        std::vector<int> lens(rank == 0 ? size : 0), displs(rank == 0 ? size : 0);
        MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        std::string all;
        if (rank == 0) {
            int total = 0;
            for (int r = 0; r < size; ++r) {
                displs[r] = total;
                total += lens[r];
            }
            all.resize(total);
        }
        MPI_Gatherv(mine.data(), len, MPI_CHAR, rank == 0 ? all.data() : nullptr, lens.data(),
                    displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
        return all;
#else
        return mine;
#endif
    }
    /// True on every rank iff `ok` on every rank.
    bool AllOk(bool ok) const {
#ifdef MBSTEP_WITH_MPI
        if (mpi) {
            int mine = ok ? 1 : 0, all = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            return all == 1;
        }
#endif
        return ok;
    }
};

// ---------------------------------------------------------------------------------------------

struct StudyPlan {
    std::string kind;
    RunSetup setup;
    std::vector<Series> series;
    std::vector<double> steps;  ///< decreasing
    std::vector<Job> jobs;      ///< jobs[0] is the reference run unless from_file
    bool reference_from_file{false};
    std::string reference_text;
    std::vector<NodeFinal> reference_nodes;  ///< from the file
    ErrorMeasure measure{ErrorMeasure::kPosition};
    std::string prefix;
    int threads{1};
    bool plot{true};
    std::vector<std::string> warnings;
};

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
               "position | velocity | both: max over nodes of the norm of the difference")(
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

    // Error measure.
    const std::string em = vm["error"].as<std::string>();
    if (em == "position")
        p.measure = ErrorMeasure::kPosition;
    else if (em == "velocity")
        p.measure = ErrorMeasure::kVelocity;
    else if (em == "both")
        p.measure = ErrorMeasure::kBoth;
    else
        throw StudyError("--error '" + em + "': use position, velocity or both");

    // Reference.
    if (vm.count("reference") && vm.count("reference-file"))
        throw StudyError("give either --reference or --reference-file, not both");
    if (vm.count("reference-file")) {
        p.reference_from_file = true;
        p.reference_text = vm["reference-file"].as<std::string>();
        p.reference_nodes =
            ReadReferenceFile(p.reference_text, p.measure != ErrorMeasure::kPosition);
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

/// Rank 0: errors, orders, slopes, files, summary. Returns the exit code.
int Report(const StudyPlan& p, const std::vector<Outcome>& outcomes, const std::string& argv0) {
    std::vector<NodeFinal> ref_nodes = p.reference_nodes;
    const size_t first = p.reference_from_file ? 0 : 1;
    bool ref_ok = true;
    if (!p.reference_from_file) {
        ref_ok = outcomes[0].ok;
        ref_nodes = outcomes[0].nodes;
        if (!ref_ok)
            std::cerr << "mbstep study: error: the reference run (" << p.reference_text
                      << ") failed: " << outcomes[0].message << "\n";
    }

    const size_t n = p.jobs.size();
    std::vector<double> error(n, NAN), order(n, NAN);
    std::vector<std::string> status(n);
    for (size_t i = first; i < n; ++i) {
        const Outcome& o = outcomes[i];
        if (!o.ok) {
            status[i] = "failed: " + o.message;
            continue;
        }
        if (!ref_ok) {
            status[i] = "ok (no reference)";
            continue;
        }
        std::string problem;
        error[i] = Error(o.nodes, ref_nodes, p.measure, p.reference_from_file, problem);
        status[i] = std::isnan(error[i]) ? "failed: " + problem : "ok";
    }
    // Local orders against the previous (larger) step of the same series, and fitted slopes.
    std::vector<double> slope(p.series.size(), NAN);
    std::vector<int> points(p.series.size(), 0);
    for (size_t s = 0; s < p.series.size(); ++s) {
        std::vector<double> hs, es;
        long prev = -1;
        for (size_t i = first; i < n; ++i) {
            if (p.jobs[i].series != static_cast<int>(s)) continue;
            const bool usable = std::isfinite(error[i]) && error[i] > 0.0;
            if (usable && prev >= 0)
                order[i] =
                    std::log(error[prev] / error[i]) / std::log(p.jobs[prev].h / p.jobs[i].h);
            if (usable) {
                prev = static_cast<long>(i);
                hs.push_back(p.jobs[i].h);
                es.push_back(error[i]);
            } else {
                prev = -1;
            }
        }
        slope[s] = FitSlope(hs, es);
        points[s] = static_cast<int>(hs.size());
    }

    const std::string csv_path = p.prefix + ".csv";
    const auto dir = std::filesystem::path(csv_path).parent_path();
    if (!dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);  // a failure shows when opening below
    }
    std::ofstream csv(csv_path);
    if (!csv) throw StudyError("cannot write " + csv_path);
    csv << "method,formulation,h,steps,error,order,newton_iterations,factorizations,cpu_seconds,"
           "status\n";
    for (size_t i = first; i < n; ++i) {
        const Job& j = p.jobs[i];
        const Outcome& o = outcomes[i];
        csv << CsvField(j.method) << ',' << CsvField(j.formulation) << ',' << Num(j.h) << ','
            << o.steps << ',' << Num(error[i]) << ',' << Num(order[i], 6) << ','
            << (o.iterations >= 0 ? std::to_string(o.iterations) : "") << ','
            << (o.factorizations >= 0 ? std::to_string(o.factorizations) : "") << ','
            << Num(o.cpu_seconds, 6) << ',' << CsvField(status[i]) << '\n';
    }
    csv.close();
    const std::string slopes_path = p.prefix + "-slopes.csv";
    std::ofstream sl(slopes_path);
    if (!sl) throw StudyError("cannot write " + slopes_path);
    sl << "method,formulation,declared_order,fitted_slope,points,reference\n";
    for (size_t s = 0; s < p.series.size(); ++s)
        sl << CsvField(p.series[s].method) << ',' << CsvField(p.series[s].formulation) << ','
           << p.series[s].declared_order << ',' << Num(slope[s], 6) << ',' << points[s] << ','
           << CsvField((p.reference_from_file ? "file " : "") + p.reference_text) << '\n';
    sl.close();

    // Summary on stdout.
    std::cout << "mbstep study " << p.kind << ": " << (n - first) << " runs of "
              << p.setup.deck_path << " to t = " << p.setup.final_time << "; reference "
              << (p.reference_from_file ? "file " : "") << p.reference_text << "\n";
    for (size_t s = 0; s < p.series.size(); ++s) {
        double cpu = 0.0;
        int failed = 0;
        for (size_t i = first; i < n; ++i)
            if (p.jobs[i].series == static_cast<int>(s)) {
                cpu += outcomes[i].cpu_seconds;
                failed += status[i] != "ok";
            }
        std::cout << "  " << p.series[s].method << " @ " << p.series[s].formulation
                  << ": fitted slope " << (std::isfinite(slope[s]) ? Num(slope[s], 3) : "-")
                  << " over " << points[s] << " steps (declared order "
                  << p.series[s].declared_order << "), CPU " << Num(cpu, 3) << " s"
                  << (failed ? ", " + std::to_string(failed) + " runs without an error" : "")
                  << "\n";
    }
    std::cout << csv_path << "\n" << slopes_path << "\n";

    if (p.plot) {
        const std::string script = FindPlotScript(argv0);
        if (script.empty()) {
            std::cout << "plots skipped: tools/plot/study_plot.py not found (set "
                         "MBSTEP_STUDY_PLOT)\n";
        } else if (const std::string python = FindPython(); python.empty()) {
            std::cout << "plots skipped: python3 with matplotlib is not available; plot later "
                         "with python3 "
                      << script << " " << csv_path << "\n";
        } else {
            const std::string cmd = python + " " + ShellQuote(script) + " " + ShellQuote(csv_path) +
                                    " --kind " + p.kind;
            std::cout.flush();
            if (std::system(cmd.c_str()) != 0)
                std::cerr << "mbstep study: warning: the plotting script failed: " << cmd << "\n";
        }
    }
    return ref_ok ? 0 : 1;
}

}  // namespace

std::string ShellQuote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

/// A Python with matplotlib: $MBSTEP_PYTHON, Debian's /usr/bin/python3 (python3-matplotlib,
/// tools/ci/install-deps.sh), then python3 on PATH; "" if none imports matplotlib.
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

int StudyCommand(const std::vector<std::string>& args, const std::string& argv0) {
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
        return Report(plan, outcomes, argv0);
    } catch (const std::exception& e) {
        std::cerr << "mbstep study: error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace mbstep
