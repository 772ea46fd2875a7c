// mbstep-bench — per-step cost of a deck against the sparse-LU floor, measured in one run.
//
//   mbstep-bench [--method TEXT]... [--step H] [--final-time T] [--threads N]
//                [--reference TEXT [--reference-divisor K]] DECK...
//
// Several --method options run each deck with each method. With --reference, each deck is
// also run once with that method at h / K (default 64) and the largest final-position error
// over the nodes is printed per method (column err).
//
// For each deck: runs it (no output files) and reports wall time per step, Newton iterations
// and factorizations per step; then builds the Newton matrix of the same model at its initial
// state and times one KLU refactorization + solve (the floor) and one solve with a reused
// factorization, and prints the ratios (per step / floor, per iteration / floor).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/simulation.hpp"
#include "mbstep/solver/linear_solver.hpp"

using namespace mbstep;
using Clock = std::chrono::steady_clock;

namespace {

struct Floor {
    double refactor_solve{0.0};
    double solve{0.0};
    int unknowns{0};
};

Floor MeasureFloor(Deck& deck, const Registry& reg, double h) {
    auto f =
        reg.FindFormulation(deck.settings.formulation.empty() ? "cgr" : deck.settings.formulation)
            ->make(deck.model);
    FirstOrderProblem& p = *f->first_order();
    p.SetTime(deck.settings.initial_time);
    p.SolveInitialDerivatives(deck.settings.solver, h);
    Eigen::SparseMatrix<double> J = p.pattern();
    const double c = 0.5 * h;  // a typical b0 h
    p.Jacobian(c, J);
    auto solver = MakeLinearSolver(deck.settings.solver.linear_solver);
    solver->Analyze(J);
    solver->Factor(J);
    Eigen::VectorXd b = Eigen::VectorXd::Ones(J.rows()), x;
    Floor fl;
    fl.unknowns = static_cast<int>(J.rows());
    const int reps = std::max(20, 200000 / std::max(1, fl.unknowns));
    double best = 1e300, best_solve = 1e300;
    for (int trial = 0; trial < 5; ++trial) {
        auto t0 = Clock::now();
        for (int k = 0; k < reps; ++k) {
            solver->Factor(J);
            x = b;
            solver->Solve(x);
        }
        auto t1 = Clock::now();
        for (int k = 0; k < reps; ++k) {
            x = b;
            solver->Solve(x);
        }
        auto t2 = Clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count() / reps);
        best_solve = std::min(best_solve, std::chrono::duration<double>(t2 - t1).count() / reps);
    }
    fl.refactor_solve = best;
    fl.solve = best_solve;
    return fl;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> methods;
    std::string reference;
    int divisor = 64;
    double h = 0, tf = 0;
    int threads = 1;
    std::vector<std::string> decks;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "mbstep-bench: " << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--method")
            methods.push_back(next());
        else if (a == "--reference")
            reference = next();
        else if (a == "--reference-divisor")
            divisor = std::stoi(next());
        else if (a == "--step")
            h = std::stod(next());
        else if (a == "--final-time")
            tf = std::stod(next());
        else if (a == "--threads")
            threads = std::stoi(next());
        else if (!a.empty() && a[0] == '-') {
            std::cerr << "usage: mbstep-bench [--method TEXT]... [--step H] [--final-time T] "
                         "[--threads N] "
                         "[--reference TEXT [--reference-divisor K]] DECK...\n";
            return 2;
        } else
            decks.push_back(a);
    }
    try {
        const Registry& reg = GlobalRegistry();
        if (methods.empty()) methods.push_back("");
        std::printf("%-22s %-14s %6s %8s %7s %8s %8s %10s %10s %9s %9s %10s\n", "deck", "method",
                    "nodes", "unknowns", "steps", "failed", "it/step", "us/step", "floor_us",
                    "step/flr", "it/flr", "err");
        auto run = [&](const std::string& path, const std::string& method, double step,
                       std::vector<FrameState>* final_states, RunSummary* summary) {
            Deck deck = ReadDeck(path, reg);
            if (!method.empty()) {
                std::string name;
                deck.integrator = MakeIntegrator(method, reg, &name);
                deck.method_name = name;
            }
            if (step > 0) deck.settings.time_step = step;
            if (tf > 0) deck.settings.final_time = tf;
            RunOptions opt;
            opt.write_output = false;
            opt.progress = false;
            opt.threads = threads;
            opt.on_step = [&](double, const Formulation& f) { *final_states = f.node_states(); };
            *summary = Run(deck, opt, reg);
            return deck.settings.time_step;
        };
        for (const std::string& path : decks) {
            Deck floor_deck = ReadDeck(path, reg);
            const double hh = h > 0 ? h : floor_deck.settings.time_step;
            const Floor fl = MeasureFloor(floor_deck, reg, hh);
            std::vector<FrameState> ref;
            if (!reference.empty()) {
                RunSummary rs;
                run(path, reference, hh / divisor, &ref, &rs);
            }
            for (const std::string& method : methods) {
                std::vector<FrameState> fin;
                RunSummary s;
                try {
                    run(path, method, hh, &fin, &s);
                } catch (const RunError& e) {
                    std::printf("%-22s %-14s FAILED: %s\n",
                                path.substr(path.find_last_of('/') + 1).c_str(), method.c_str(),
                                e.what());
                    continue;
                }
                const double per_step = s.wall_seconds / std::max(1, s.steps);
                const double its = double(s.iterations) / std::max(1, s.steps);
                double err = 0.0;
                for (size_t i = 0; i < ref.size() && i < fin.size(); ++i)
                    err = std::max(err, (fin[i].x - ref[i].x).norm());
                const std::string name = path.substr(path.find_last_of('/') + 1);
                std::printf(
                    "%-22s %-14s %6zu %8d %7d %8d %8.2f %10.2f %10.2f %9.2f %9.2f %10.3e\n",
                    name.c_str(), method.empty() ? s.method.c_str() : method.c_str(),
                    floor_deck.model.nodes().size(), fl.unknowns, s.steps, s.failed_steps, its,
                    per_step * 1e6, fl.refactor_solve * 1e6, per_step / fl.refactor_solve,
                    per_step / std::max(its, 1.0) / fl.refactor_solve, ref.empty() ? 0.0 : err);
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "mbstep-bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
