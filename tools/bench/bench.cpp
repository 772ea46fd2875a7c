// mbstep-bench — cost of decks against the sparse-LU floor, measured in one process run.
//
//   mbstep-bench [--method TEXT]... [--formulation NAME]... [--step H] [--final-time T]
//                [--threads N[,N...]] [--reference TEXT [--reference-divisor K]] DECK...
//   mbstep-bench --orderings DECK...
//   mbstep-bench --conditioning H[,H...] [--method TEXT] DECK...
//   mbstep-bench --assembly [--formulation NAME]... [--threads N[,N...]] [--repetitions R]
//                DECK...
//   mbstep-bench --set NAME            (foundation | orderings | conditioning | threads | all)
//
// DECK is a path or `chain:N[:TOL]` (examples/n-link-chain/generate.py N --method "ms, 0.6"
// [--tolerance TOL]; at N = 10000 the default 1e-8 is below the round-off floor of the scaled
// constraint rows in some steps, met there once the residual stalls (docs/DESIGN.md), at the
// cost of extra iterations, so the named sets use 1e-6 there).
//
// Default mode, for each deck x method x thread count: runs the deck (no output files) and
// reports wall time per step (stepping only: the run's set-up — pattern, symbolic analysis,
// initial derivatives — is excluded, RunSummary::setup_seconds), Newton iterations per step,
// the share of the stepping time spent in the sparse solver (KLU factor + solve, timed inside
// the run), and the speedup over the first
// thread count; then builds the Newton matrix of the same model at its initial state and times
// one KLU refactorization + solve (the floor), and prints the ratios (per step / floor, per
// iteration / floor). Several --method options run each deck with each method; several
// --formulation options (default: the deck's) run each deck under each formulation, each with
// the floor of its own Newton matrix. With
// --reference, each deck is also run once with that method at h / K (default 64) and the
// largest final-position error over the nodes is printed per method (column err).
//
// --orderings: per KLU ordering (amd, colamd, natural, rcm) on the initial Newton matrix:
// nnz(A), fill nnz(L) + nnz(U) (+ off-diagonal BTF blocks), analysis, first factorization,
// refactorization + solve and solve times (medians of 5 trials), and the largest difference of
// the solution from AMD's.
//
// --conditioning: runs each deck 3 steps with step H and reports KLU's normwise relative
// residual ||A x - b|| / (||A|| ||x|| + ||b||) (infinity norms, b uniform in [-1, 1]) and
// klu_condest of the iteration matrix as handed to the solver, and the same for that matrix
// with its constraint rows multiplied by H (the rows unscaled, for comparison).
//
// --assembly: a micro-benchmark (Google-Benchmark style) of the assembly phase of a Newton
// iteration alone, near the initial state: each call moves the state (Update() with a fixed
// increment of alternating sign, ~1e-9, as Newton's correction would; formulations may cache
// what depends only on the state) and then evaluates Residual() (res), Jacobian() (jac) or
// both (r+J). R repetitions (default 11) of a batch sized to take >= 50 ms; the thread counts
// take turns within every repetition (so that a change of machine load hits all of them);
// median and min per call; speedup of the r+J median over the first thread count; whether r
// and J at the initial state are bit-identical to the first thread count's.
//
// The heap is set up as `mbstep run` sets up a large deck's (heap_setup.hpp: transparent huge
// pages, freed blocks kept), so that the figures of large models are those of a run;
// MBSTEP_HUGE_PAGES=0 measures with 4 KiB pages.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "heap_setup.hpp"
#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/simulation.hpp"
#include "mbstep/solver/linear_solver.hpp"
#include "mbstep/solver/newton.hpp"

using namespace mbstep;
using Clock = std::chrono::steady_clock;

namespace {

double Seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

std::string TempDir() {
    static std::string dir;
    if (dir.empty()) {
        char tmpl[] = "/tmp/mbstep-bench-XXXXXX";
        const char* d = mkdtemp(tmpl);
        if (!d) throw RunError("cannot create a temporary directory");
        dir = d;
        std::atexit([] { std::filesystem::remove_all(dir); });
    }
    return dir;
}

/// A deck path, generating `chain:N[:TOL]` decks on the fly (TOL: the Newton tolerance,
/// default the generator's 1e-8).
std::string DeckPath(const std::string& spec) {
    if (spec.rfind("chain:", 0) != 0) return spec;
    std::string n = spec.substr(6), tol;
    if (const size_t colon = n.find(':'); colon != std::string::npos) {
        tol = n.substr(colon + 1);
        n = n.substr(0, colon);
    }
    const std::string path = TempDir() + "/chain" + n + (tol.empty() ? "" : "-" + tol) + ".mbd";
    if (!std::filesystem::exists(path)) {
        const std::string cmd = "python3 \"" MBSTEP_SOURCE_DIR
                                "/examples/n-link-chain/generate.py\" " +
                                n + " --method \"ms, 0.6\"" +
                                (tol.empty() ? "" : " --tolerance " + tol) + " > \"" + path + "\"";
        if (std::system(cmd.c_str()) != 0) throw RunError("cannot generate " + spec);
    }
    return path;
}

std::string ShortName(const std::string& spec) {
    if (spec.rfind("chain:", 0) == 0) return "chain N=" + spec.substr(6, spec.find(':', 6) - 6);
    std::filesystem::path p(spec);
    const std::string stem = p.stem().string();
    return stem == "deck" ? p.parent_path().filename().string() : stem;
}

std::vector<double> ParseList(const std::string& s) {
    std::vector<double> v;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) v.push_back(std::stod(item));
    return v;
}

/// The deck's formulation at its initial state (initial derivatives solved), with its
/// Newton matrix assembled at coefficient c. Second-order formulations (`lie group`, `euler
/// parameters`, `euler angles`) have no iteration matrix of their own: J is the Newton matrix
/// of `method` (the deck's when empty) after one step of size h.
struct InitialSystem {
    std::unique_ptr<Formulation> f;
    FirstOrderProblem* p{nullptr};
    Eigen::SparseMatrix<double> J;
};

InitialSystem MakeInitialSystem(Deck& deck, const Registry& reg, double h,
                                const std::string& method = "") {
    InitialSystem s;
    s.f = reg.FindFormulation(deck.settings.formulation.empty() ? "cgr" : deck.settings.formulation)
              ->make(deck.model);
    s.p = s.f->first_order();
    if (!s.p) {
        if (!method.empty()) {
            std::string name;
            deck.integrator = MakeIntegrator(method, reg, &name);
            deck.method_name = name;
        }
        deck.settings.time_step = h;
        deck.settings.final_time = deck.settings.initial_time + h;
        RunOptions opt;
        opt.write_output = false;
        opt.progress = false;
        const RunSummary r = Run(deck, opt, reg);
        const NewtonSolver* newton = deck.integrator ? deck.integrator->newton_solver() : nullptr;
        if (!r.completed || !newton)
            throw RunError("no Newton matrix for the floor: one step of '" + deck.method_name +
                           "' on '" + s.f->name() + "' " +
                           (r.completed ? "has no Newton solver" : "failed: " + r.failure));
        s.J = newton->matrix();
        return s;
    }
    s.p->SetTime(deck.settings.initial_time);
    s.p->SolveInitialDerivatives(deck.settings.solver, h);
    s.J = s.p->pattern();
    s.p->Jacobian(0.5 * h, s.J);  // c = a typical b0 h
    return s;
}

struct Floor {
    double refactor_solve{0.0};
    double solve{0.0};
    int unknowns{0};
};

// Best of 5 trials of `reps` refactorizations + solves (and solves alone) of J with `solver`.
Floor TimeRefactorSolve(LinearSolver& solver, const Eigen::SparseMatrix<double>& J) {
    solver.Analyze(J);
    solver.Factor(J);
    Eigen::VectorXd b = Eigen::VectorXd::Ones(J.rows()), x;
    Floor fl;
    fl.unknowns = static_cast<int>(J.rows());
    const int reps = std::max(20, 200000 / std::max(1, fl.unknowns));
    double best = 1e300, best_solve = 1e300;
    for (int trial = 0; trial < 5; ++trial) {
        auto t0 = Clock::now();
        for (int k = 0; k < reps; ++k) {
            solver.Factor(J);
            x = b;
            solver.Solve(x);
        }
        auto t1 = Clock::now();
        for (int k = 0; k < reps; ++k) {
            x = b;
            solver.Solve(x);
        }
        auto t2 = Clock::now();
        best = std::min(best, Seconds(t0, t1) / reps);
        best_solve = std::min(best_solve, Seconds(t1, t2) / reps);
    }
    fl.refactor_solve = best;
    fl.solve = best_solve;
    return fl;
}

// The floor: one KLU refactorization + solve of the deck's initial Newton matrix
// (with the deck's ordering); `linear` gets the same for the deck's own linear solver (auto:
// naive, schur or klu), one thread.
Floor MeasureFloor(Deck& deck, const Registry& reg, double h, Floor* linear = nullptr,
                   std::string* linear_name = nullptr, const std::string& method = "") {
    InitialSystem sys = MakeInitialSystem(deck, reg, h, method);
    const Ordering ord = OrderingFromName(deck.settings.solver.linear_solver_ordering);
    auto klu = MakeLinearSolver("klu", ord);
    const Floor fl = TimeRefactorSolve(*klu, sys.J);
    if (linear && deck.settings.solver.linear_solver == "klu" &&
        deck.settings.solver.linear_solver_scale < 0) {
        *linear = fl;  // the same solver: not measured twice
        if (linear_name) *linear_name = "klu";
    } else if (linear) {
        auto own = MakeLinearSolver(deck.settings.solver.linear_solver, ord,
                                    deck.settings.solver.linear_solver_scale);
        *linear = TimeRefactorSolve(*own, sys.J);
        if (linear_name) *linear_name = own->name();
    }
    return fl;
}

struct Options {
    std::string mode{"steps"};
    std::vector<std::string> methods;
    std::vector<std::string> formulations;  // empty: the deck's
    std::string reference;
    int divisor{64};
    double h{0.0}, tf{0.0};
    std::vector<int> threads{1};
    std::vector<double> steps;  // --conditioning
    int repetitions{11};
    std::vector<std::string> decks;
};

// ---- default mode: per-step cost, floor, solver share, thread speedup ----
void RunSteps(const Options& o, const Registry& reg) {
    // floor_us: KLU refactorization + solve (the floor); lin_us: the same with the
    // run's own linear solver (`linsolver`: what `auto` chose), both one thread.
    std::printf("%-14s %-12s %-12s %3s %8s %6s %5s %7s %10s %9s %8s %8s %7s %7s %10s %9s %s\n",
                "deck", "formulation", "method", "thr", "unknowns", "steps", "fail", "it/step",
                "us/step", "floor_us", "step/flr", "it/flr", "solver%", "speedup", "err", "lin_us",
                "linsolver");
    std::vector<std::string> methods = o.methods;
    if (methods.empty()) methods.push_back("");
    std::vector<std::string> forms = o.formulations;
    if (forms.empty()) forms.push_back("");
    for (const std::string& spec : o.decks) {
        for (const std::string& form : forms) {
            const std::string path = DeckPath(spec);
            Deck floor_deck = ReadDeck(path, reg);
            if (!form.empty()) floor_deck.settings.formulation = form;
            const std::string form_name =
                floor_deck.settings.formulation.empty() ? "cgr" : floor_deck.settings.formulation;
            const double hh = o.h > 0 ? o.h : floor_deck.settings.time_step;
            Floor lin;
            std::string lin_name;
            const Floor fl = MeasureFloor(floor_deck, reg, hh, &lin, &lin_name, methods.front());
            auto run = [&](const std::string& method, double step, int threads,
                           std::vector<FrameState>* final_states, RunSummary* summary,
                           LinearSolverTiming* timing) {
                Deck deck = ReadDeck(path, reg);
                if (!form.empty()) deck.settings.formulation = form;
                if (!method.empty()) {
                    std::string name;
                    deck.integrator = MakeIntegrator(method, reg, &name);
                    deck.method_name = name;
                }
                deck.settings.time_step = step;
                if (o.tf > 0) deck.settings.final_time = o.tf;
                deck.settings.solver.time_linear_solver = true;
                RunOptions opt;
                opt.write_output = false;
                opt.progress = false;
                opt.threads = threads;
                // The final states only: copying every step's would be timed with the steps.
                const double t_end = deck.settings.final_time - 1e-9 * step;
                opt.on_step = [&, t_end](double t, const Formulation& f) {
                    if (t >= t_end) *final_states = f.node_states();
                };
                *summary = Run(deck, opt, reg);
                const NewtonSolver* n = deck.integrator->newton_solver();
                *timing = n ? n->linear_solver().timing() : LinearSolverTiming{};
            };
            std::vector<FrameState> ref;
            if (!o.reference.empty()) {
                RunSummary rs;
                LinearSolverTiming t;
                run(o.reference, hh / o.divisor, 1, &ref, &rs, &t);
            }
            for (const std::string& method : methods) {
                double first = 0.0;
                for (int threads : o.threads) {
                    std::vector<FrameState> fin;
                    RunSummary s;
                    LinearSolverTiming t;
                    try {
                        run(method, hh, threads, &fin, &s, &t);
                    } catch (const RunError& e) {
                        std::printf("%-14s %-12s %-12s FAILED: %s\n", ShortName(spec).c_str(),
                                    form_name.c_str(), method.c_str(), e.what());
                        continue;
                    }
                    // Stepping time only: the set-up (pattern, symbolic analysis, initial
                    // derivatives) is reported apart, not spread over the steps.
                    const double stepping = s.wall_seconds - s.setup_seconds;
                    const double per_step = stepping / std::max(1, s.steps);
                    if (first == 0.0) first = per_step;
                    const double its = double(s.iterations) / std::max(1, s.steps);
                    double err = 0.0;
                    for (size_t i = 0; i < ref.size() && i < fin.size(); ++i)
                        err = std::max(err, (fin[i].x - ref[i].x).norm());
                    std::printf(
                        "%-14s %-12s %-12s %3d %8d %6d %5d %7.2f %10.2f %9.2f %8.2f %8.2f %6.1f%% "
                        "%7.2f %10.3e %9.2f %s\n",
                        ShortName(spec).c_str(), form_name.c_str(),
                        method.empty() ? s.method.c_str() : method.c_str(), threads, fl.unknowns,
                        s.steps, s.failed_steps, its, per_step * 1e6, fl.refactor_solve * 1e6,
                        per_step / fl.refactor_solve,
                        per_step / std::max(its, 1.0) / fl.refactor_solve,
                        100.0 * (t.factor_seconds + t.solve_seconds) / stepping, first / per_step,
                        ref.empty() ? 0.0 : err, lin.refactor_solve * 1e6, lin_name.c_str());
                    std::fflush(stdout);
                }
            }
        }
    }
}

// ---- --orderings ----
void RunOrderings(const Options& o, const Registry& reg) {
    std::printf("%-14s %-8s %8s %9s %10s %8s %10s %10s %10s %10s %9s\n", "deck", "ordering",
                "unknowns", "nnz(A)", "nnz(L+U)", "fill", "analyze_us", "factor_us", "refact+s_us",
                "solve_us", "dx_vs_amd");
    for (const std::string& spec : o.decks) {
        Deck deck = ReadDeck(DeckPath(spec), reg);
        const double h = o.h > 0 ? o.h : deck.settings.time_step;
        InitialSystem sys = MakeInitialSystem(deck, reg, h);
        const Eigen::SparseMatrix<double>& J = sys.J;
        const int n = static_cast<int>(J.rows());
        std::mt19937 gen(1);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        Eigen::VectorXd b(n), x, x_amd;
        for (int i = 0; i < n; ++i) b[i] = u(gen);
        const int reps = std::max(5, 100000 / std::max(1, n));
        for (Ordering ord :
             {Ordering::kAmd, Ordering::kColamd, Ordering::kNatural, Ordering::kRcm}) {
            if (ord == Ordering::kNatural && n > 2000) {
                // The cgr numbering puts every multiplier after the nodes: the fill of the
                // natural order grows like n^2 (15.8x nnz(A) at n = 1500), too large to run.
                std::printf("%-14s %-8s %8d  skipped (fill ~ n^2)\n", ShortName(spec).c_str(),
                            OrderingName(ord), n);
                continue;
            }
            std::vector<double> ta, tf, trs, ts;
            long fill = -1;
            auto solver = MakeLinearSolver("klu", ord);
            for (int trial = 0; trial < 5; ++trial) {
                auto t0 = Clock::now();
                solver->Analyze(J);
                auto t1 = Clock::now();
                if (!solver->Factor(J)) throw RunError("factorization failed");
                auto t2 = Clock::now();
                fill = solver->FactorNonzeros();
                for (int k = 0; k < reps; ++k) {
                    solver->Factor(J);
                    x = b;
                    solver->Solve(x);
                }
                auto t3 = Clock::now();
                for (int k = 0; k < reps; ++k) {
                    x = b;
                    solver->Solve(x);
                }
                auto t4 = Clock::now();
                ta.push_back(Seconds(t0, t1));
                tf.push_back(Seconds(t1, t2));
                trs.push_back(Seconds(t2, t3) / reps);
                ts.push_back(Seconds(t3, t4) / reps);
            }
            if (ord == Ordering::kAmd) x_amd = x;
            const double dx = (x - x_amd).lpNorm<Eigen::Infinity>() /
                              std::max(1e-300, x_amd.lpNorm<Eigen::Infinity>());
            std::printf("%-14s %-8s %8d %9ld %10ld %8.2f %10.1f %10.1f %10.1f %10.1f %9.1e\n",
                        ShortName(spec).c_str(), OrderingName(ord), n, long(J.nonZeros()), fill,
                        double(fill) / double(J.nonZeros()), Median(ta) * 1e6, Median(tf) * 1e6,
                        Median(trs) * 1e6, Median(ts) * 1e6, dx);
            std::fflush(stdout);
        }
    }
}

// ---- --conditioning ----
struct Backward {
    double relative_residual{0.0};
    double condest{0.0};
};

Backward SolveRandom(const Eigen::SparseMatrix<double>& A) {
    auto klu = MakeLinearSolver("klu");
    klu->Analyze(A);
    if (!klu->Factor(A)) return {std::numeric_limits<double>::infinity(), 0.0};
    Backward r;
    r.relative_residual = RandomRhsBackwardError(*klu, A);
    r.condest = klu->ConditionEstimate();
    return r;
}

void RunConditioning(const Options& o, const Registry& reg) {
    std::printf("%-14s %-10s %8s %8s %12s %10s %14s %12s %14s\n", "deck", "method", "h", "unknowns",
                "rel_resid", "condest", "rel_resid(xh)", "condest(xh)", "condest(bal)");
    for (const std::string& spec : o.decks) {
        for (double h : o.steps) {
            Deck deck = ReadDeck(DeckPath(spec), reg);
            if (!o.methods.empty()) {
                std::string name;
                deck.integrator = MakeIntegrator(o.methods[0], reg, &name);
                deck.method_name = name;
            }
            deck.settings.time_step = h;
            deck.settings.final_time = deck.settings.initial_time + 3 * h;
            RunOptions opt;
            opt.write_output = false;
            opt.progress = false;
            const RunSummary s = Run(deck, opt, reg);
            const NewtonSolver* n = deck.integrator->newton_solver();
            if (!n) throw RunError("the method has no Newton solver");
            const Eigen::SparseMatrix<double>& A = n->matrix();
            const Backward scaled = SolveRandom(A);
            // The constraint rows multiplied by h: their scale before the 1/(b0 h) scaling.
            const auto f = reg.FindFormulation(s.formulation)->make(deck.model);
            const std::vector<DofKind>& kinds = f->first_order()->dof_kinds();
            Eigen::VectorXd d = Eigen::VectorXd::Ones(A.rows());
            for (Eigen::Index i = 0; i < d.size(); ++i)
                if (kinds[i] == DofKind::kAlgebraic) d[i] = h;
            const Eigen::SparseMatrix<double> Ah = d.asDiagonal() * A;
            const Backward unscaled = SolveRandom(Ah);
            // A candidate balancing for cgr (all nodes dynamic, 12 unknowns each): force and
            // moment rows times h, momentum-rate and multiplier columns times 1/h.
            Backward balanced;
            const long nd = std::count(kinds.begin(), kinds.end(), DofKind::kDifferential);
            if (s.formulation == "cgr" && nd == 12 * long(deck.model.nodes().size())) {
                Eigen::VectorXd dr = Eigen::VectorXd::Ones(A.rows()), dc = dr;
                for (Eigen::Index i = 0; i < dr.size(); ++i) {
                    if (kinds[i] == DofKind::kAlgebraic) {
                        dc[i] = 1.0 / h;
                    } else if (i % 12 < 6) {
                        dr[i] = h;
                    } else {
                        dc[i] = 1.0 / h;
                    }
                }
                const Eigen::SparseMatrix<double> Ab = dr.asDiagonal() * A * dc.asDiagonal();
                balanced = SolveRandom(Ab);
            }
            std::printf("%-14s %-10s %8.0e %8ld %12.2e %10.2e %14.2e %12.2e %14.2e\n",
                        ShortName(spec).c_str(), s.method.c_str(), h, long(A.rows()),
                        scaled.relative_residual, scaled.condest, unscaled.relative_residual,
                        unscaled.condest, balanced.condest);
            std::fflush(stdout);
        }
    }
}

// ---- --assembly ----
struct Sample {
    double median{0.0}, min{0.0};
};

/// Calls of f per batch so that a batch takes >= 50 ms (after one warm-up call).
int BatchSize(const std::function<void()>& f) {
    f();  // warm-up
    for (int batch = 1;; batch *= 2) {
        auto t0 = Clock::now();
        for (int k = 0; k < batch; ++k) f();
        if (Seconds(t0, Clock::now()) >= 0.05) return batch;
    }
}

double TimeBatch(const std::function<void()>& f, int batch) {
    auto t0 = Clock::now();
    for (int k = 0; k < batch; ++k) f();
    return Seconds(t0, Clock::now()) / batch;
}

Sample Summarize(const std::vector<double>& t) {
    return {Median(t), *std::min_element(t.begin(), t.end())};
}

void RunAssembly(const Options& o, const Registry& reg) {
    std::printf("%-14s %-12s %3s %8s %12s %12s %12s %12s %12s %8s %9s\n", "deck", "formulation",
                "thr", "unknowns", "res_med_us", "jac_med_us", "r+J_med_us", "r+J_min_us",
                "r+J/floor", "speedup", "identical");
    std::vector<std::string> forms = o.formulations;
    if (forms.empty()) forms.push_back("");
    for (const std::string& spec : o.decks)
        for (const std::string& form : forms) {
            Deck deck = ReadDeck(DeckPath(spec), reg);
            if (!form.empty()) deck.settings.formulation = form;
            const std::string form_name =
                deck.settings.formulation.empty() ? "cgr" : deck.settings.formulation;
            const double h = o.h > 0 ? o.h : deck.settings.time_step;
            const Floor fl = MeasureFloor(deck, reg, h);
            InitialSystem sys = MakeInitialSystem(deck, reg, h);
            FirstOrderProblem& p = *sys.p;
            const double c = 0.5 * h;
            const Eigen::VectorXd y0 = p.y(), yp0 = p.yp();
            // A fixed increment of alternating sign: the state moves by ~1e-9 at every call.
            const Eigen::Index m = p.pattern().rows();
            Eigen::VectorXd up(m), down(m);
            for (Eigen::Index k = 0; k < m; ++k) up[k] = 1e-9 * double(int(k % 7) - 3);
            down = -up;
            bool flip = false;
            auto move = [&] {
                flip = !flip;
                p.Update(flip ? up : down, c);
            };
            Eigen::VectorXd r;
            Eigen::SparseMatrix<double> J = p.pattern();
            const std::function<void()> fres = [&] {
                move();
                p.Residual(c, r);
            };
            const std::function<void()> fjac = [&] {
                move();
                p.Jacobian(c, J);
            };
            const std::function<void()> fboth = [&] {
                move();
                p.Residual(c, r);
                p.Jacobian(c, J);
            };
            const size_t nt = o.threads.size();
            sys.f->set_threads(o.threads[0]);
            const int bres = BatchSize(fres), bjac = BatchSize(fjac), bboth = BatchSize(fboth);
            std::vector<std::vector<double>> tres(nt), tjac(nt), tboth(nt);
            for (int rep = 0; rep < o.repetitions; ++rep)
                for (size_t k = 0; k < nt; ++k) {
                    sys.f->set_threads(o.threads[k]);
                    if (rep == 0) fboth();  // warm-up (thread pool)
                    tres[k].push_back(TimeBatch(fres, bres));
                    tjac[k].push_back(TimeBatch(fjac, bjac));
                    tboth[k].push_back(TimeBatch(fboth, bboth));
                }
            Eigen::VectorXd r_first;
            std::vector<double> j_first;
            double first = 0.0;
            for (size_t k = 0; k < nt; ++k) {
                sys.f->set_threads(o.threads[k]);
                p.y() = y0;
                p.yp() = yp0;
                p.Residual(c, r);
                p.Jacobian(c, J);
                bool identical = true;
                const Sample res = Summarize(tres[k]), jac = Summarize(tjac[k]),
                             both = Summarize(tboth[k]);
                if (k == 0) {
                    first = both.median;
                    r_first = r;
                    j_first.assign(J.valuePtr(), J.valuePtr() + J.nonZeros());
                } else {
                    identical =
                        r.size() == r_first.size() &&
                        std::memcmp(r.data(), r_first.data(), sizeof(double) * r.size()) == 0 &&
                        std::memcmp(J.valuePtr(), j_first.data(),
                                    sizeof(double) * j_first.size()) == 0;
                }
                std::printf("%-14s %-12s %3d %8ld %12.1f %12.1f %12.1f %12.1f %12.2f %8.2f %9s\n",
                            ShortName(spec).c_str(), form_name.c_str(), o.threads[k], long(m),
                            res.median * 1e6, jac.median * 1e6, both.median * 1e6, both.min * 1e6,
                            both.median / fl.refactor_solve, first / both.median,
                            identical ? "yes" : "NO");
                std::fflush(stdout);
            }
        }
}

const char* kUsage =
    "usage: mbstep-bench [--method TEXT]... [--formulation NAME]... [--step H] [--final-time T]\n"
    "                    [--threads N[,N...]] [--reference TEXT [--reference-divisor K]] DECK...\n"
    "       mbstep-bench --orderings DECK...\n"
    "       mbstep-bench --conditioning H[,H...] [--method TEXT] DECK...\n"
    "       mbstep-bench --assembly [--formulation NAME]... [--threads N[,N...]]\n"
    "                    [--repetitions R] DECK...\n"
    "       mbstep-bench --set foundation|orderings|conditioning|threads|all\n"
    "DECK: a path or chain:N (generated with examples/n-link-chain/generate.py)\n";

std::vector<std::vector<std::string>> NamedSet(const std::string& name) {
    const std::string ex = MBSTEP_SOURCE_DIR "/examples/";
    const std::string top = ex + "heavy-top/heavy-top.mbd";
    const std::string squeezer = ex + "andrews-squeezer/deck.mbd";
    const std::string puma = ex + "puma560/deck.mbd";
    std::vector<std::vector<std::string>> runs;
    if (name == "foundation" || name == "all")
        runs.push_back({"--method", "ms, 0.6", "--step", "1e-3", "--final-time", "1", top,
                        "chain:10", "chain:100", "chain:1000"});
    if (name == "orderings" || name == "all")
        runs.push_back(
            {"--orderings", top, squeezer, puma, "chain:100", "chain:1000", "chain:10000"});
    if (name == "conditioning" || name == "all")
        runs.push_back({"--conditioning", "1e-3,1e-4,1e-5,1e-6", "--method", "ms, 0.6", "chain:10",
                        "chain:100", "chain:1000"});
    if (name == "threads" || name == "all") {
        runs.push_back(
            {"--assembly", "--threads", "1,2", "chain:100", "chain:1000", "chain:10000"});
        runs.push_back({"--method", "ms, 0.6", "--step", "1e-3", "--final-time", "0.05",
                        "--threads", "1,2", "chain:1000", "chain:10000:1e-6"});
    }
    if (runs.empty()) throw RunError("unknown set '" + name + "'");
    return runs;
}

Options Parse(const std::vector<std::string>& args) {
    Options o;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= args.size()) throw RunError(a + " needs a value");
            return args[++i];
        };
        if (a == "--method")
            o.methods.push_back(next());
        else if (a == "--formulation")
            o.formulations.push_back(next());
        else if (a == "--reference")
            o.reference = next();
        else if (a == "--reference-divisor")
            o.divisor = std::stoi(next());
        else if (a == "--step")
            o.h = std::stod(next());
        else if (a == "--final-time")
            o.tf = std::stod(next());
        else if (a == "--threads") {
            o.threads.clear();
            for (double t : ParseList(next())) o.threads.push_back(static_cast<int>(t));
        } else if (a == "--repetitions")
            o.repetitions = std::stoi(next());
        else if (a == "--orderings")
            o.mode = "orderings";
        else if (a == "--assembly")
            o.mode = "assembly";
        else if (a == "--conditioning") {
            o.mode = "conditioning";
            o.steps = ParseList(next());
        } else if (!a.empty() && a[0] == '-')
            throw RunError("unknown option " + a);
        else
            o.decks.push_back(a);
    }
    return o;
}

void Execute(const Options& o, const Registry& reg) {
    if (o.mode == "orderings")
        RunOrderings(o, reg);
    else if (o.mode == "conditioning")
        RunConditioning(o, reg);
    else if (o.mode == "assembly")
        RunAssembly(o, reg);
    else
        RunSteps(o, reg);
}

}  // namespace

int main(int argc, char** argv) {
    tools::RunAgainWithHugePages(argv);
    tools::KeepFreedBlocksInHeap();
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        const Registry& reg = GlobalRegistry();
        if (args.size() == 2 && args[0] == "--set") {
            for (const auto& run : NamedSet(args[1])) {
                std::printf("\n## mbstep-bench");
                for (const auto& a : run) std::printf(" '%s'", a.c_str());
                std::printf("\n");
                Execute(Parse(run), reg);
            }
            return 0;
        }
        const Options o = Parse(args);
        if (o.decks.empty()) {
            std::cerr << kUsage;
            return 2;
        }
        Execute(o, reg);
    } catch (const std::exception& e) {
        std::cerr << "mbstep-bench: " << e.what() << "\n" << kUsage;
        return 1;
    }
    return 0;
}
