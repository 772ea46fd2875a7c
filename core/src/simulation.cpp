// mbstep — the run loop (MBDyn Solver::Run): initial derivatives, then steps of constant size
// h; a failed step is retried with h reduced by `strategy: factor` when the deck asks for it,
// otherwise the run stops naming the time, the step and the worst equation. Adaptive methods
// (Integrator::adaptive()) choose every step after the first themselves: a step that fails
// their error test is retried with the proposed size and counted as rejected.
#include "mbstep/simulation.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/model/initial_assembly.hpp"
#include "mbstep/solver/linear_solver.hpp"
#include "mbstep/solver/newton.hpp"

namespace mbstep {
namespace {

std::string DefaultPrefix(const std::string& deck) {
    const std::string ext = ".mbd";
    if (deck.size() > ext.size() && deck.compare(deck.size() - ext.size(), ext.size(), ext) == 0)
        return deck.substr(0, deck.size() - ext.size());
    return deck;
}

class Progress {
  public:
    Progress(bool on, double t0, double tf) : on_(on), t0_(t0), tf_(tf), tty_(isatty(2)) {}
    void Update(double t) {
        if (!on_ || tf_ <= t0_) return;
        const int pct = static_cast<int>(std::floor(100.0 * (t - t0_) / (tf_ - t0_) + 1e-9));
        if (tty_) {
            if (pct == last_) return;
            last_ = pct;
            const int w = 40, fill = std::min(w, pct * w / 100);
            std::cerr << "\r[" << std::string(fill, '#') << std::string(w - fill, ' ') << "] "
                      << std::setw(3) << std::min(pct, 100) << "%  t = " << t << std::flush;
        } else if (pct / 10 > last_ / 10 || last_ < 0) {
            last_ = pct;
            std::cerr << "[" << std::string(std::min(pct, 100) / 5, '#')
                      << std::string(20 - std::min(pct, 100) / 5, '.') << "] " << std::min(pct, 100)
                      << "%  t = " << t << "\n";
        }
    }
    void Done() {
        if (on_ && tty_) std::cerr << "\n";
    }

  private:
    bool on_;
    double t0_, tf_;
    bool tty_;
    int last_{-1};
};

std::string ModelSummary(const Deck& deck, Formulation& f) {
    std::ostringstream os;
    const Model& m = deck.model;
    std::map<std::string, int> counts;
    for (const auto& e : m.elements()) counts[e->statement() + " " + e->type()]++;
    int declared_dynamic = 0;
    for (const auto& n : m.nodes()) declared_dynamic += n.kind == NodeKind::kDynamic;
    const int dynamic = m.static_model() ? 0 : declared_dynamic;
    const int unknowns = f.first_order()    ? static_cast<int>(f.first_order()->pattern().rows())
                         : f.second_order() ? f.second_order()->num_velocities() +
                                                  f.second_order()->num_constraints()
                                            : 0;
    // MBDyn's control data `title:` names the run; it heads the model summary.
    if (!deck.settings.title.empty()) os << "title: " << deck.settings.title << "\n";
    os << "mbstep model summary\n"
       << "deck: " << deck.path << "\n"
       << "structural nodes: " << m.nodes().size() << " (" << dynamic << " dynamic)\n";
    if (!m.abstract_nodes().empty())
        os << "abstract nodes: " << m.abstract_nodes().size() << " (output: .abs)\n";
    if (m.static_model())
        os << "model: static (every structural node static, " << declared_dynamic
           << " declared dynamic; zero velocities; time is the load parameter)\n";
    for (const auto& [k, v] : counts) os << "element " << k << ": " << v << "\n";
    for (const auto& e : m.elements()) {
        const ElementOutput* eo = e->output();
        const std::string d = eo ? eo->LogDescription() : std::string();
        if (!d.empty()) os << d << "\n";
    }
    os << "gravity: " << (m.gravity() ? "yes" : "no") << "\n"
       << "formulation: " << f.name() << "\n"
       << "method: " << deck.method_name << " (" << deck.settings.method_text << ")\n"
       << "unknowns: " << unknowns << "\n"
       << "linear solver: " << deck.settings.solver.linear_solver;
    // What `auto` chose (and whether `schur` fell back), from the integrator's solver when it
    // has one, else by the size rule.
    const NewtonSolver* newton = deck.integrator ? deck.integrator->newton_solver() : nullptr;
    const std::string used = newton                          ? newton->linear_solver().name()
                             : unknowns <= kDenseMaxUnknowns ? "naive"
                                                             : "klu";
    if (used != deck.settings.solver.linear_solver) os << " (" << used << ")";
    if (!deck.settings.solver.linear_solver_requested.empty() &&
        deck.settings.solver.linear_solver_requested != deck.settings.solver.linear_solver)
        os << " (deck asked for " << deck.settings.solver.linear_solver_requested << ")";
    os << "\nnonlinear solver: newton raphson"
       << (deck.settings.solver.modified_newton            ? ", modified"
           : deck.settings.solver.jacobian_every_iteration ? ", true"
                                                           : "")
       << (deck.settings.solver.modified_newton && deck.settings.solver.modified_newton_adaptive
               ? ", adaptive"
               : "")
       << "\ninitial time: " << deck.settings.initial_time
       << "\nfinal time: " << deck.settings.final_time << "\ntime step: " << deck.settings.time_step
       << "\n";
    return os.str();
}

/// The elements whose AfterConvergence does anything (Element::NeedsConvergedState), listed
/// once instead of asking every element object after every step.
std::vector<int> ElementsNeedingConvergedState(const Model& model) {
    std::vector<int> list;
    const auto& elems = model.elements();
    for (size_t e = 0; e < elems.size(); ++e)
        if (elems[e]->NeedsConvergedState()) list.push_back(static_cast<int>(e));
    return list;
}

/// Element::AfterConvergence for the elements in `notify`, with the formulation's current
/// (converged) node states and multipliers. Returns the multipliers it passed, concatenated
/// (empty if no element asks).
std::vector<double> NotifyConverged(Model& model, const std::vector<int>& notify,
                                    const Formulation& f, double t) {
    if (notify.empty()) return {};
    const auto& states = f.node_states();
    const auto& elems = model.elements();
    std::vector<const FrameState*> ptr;
    std::vector<double> passed;
    for (int e : notify) {
        ptr.clear();
        for (int k : elems[e]->nodes()) ptr.push_back(&states[k]);
        const double* lambda = f.multipliers(e);
        const ElementContext ctx{t, ptr.data(), lambda,
                                 model.gravity() ? model.gravity()->At(t) : Vec3::Zero()};
        elems[e]->AfterConvergence(ctx);
        if (lambda) passed.insert(passed.end(), lambda, lambda + elems[e]->num_multipliers());
        if (passed.empty()) passed.push_back(0.0);  // non-empty: an element asked
    }
    return passed;
}

/// Initial state of elements that use converged reactions (joint friction: the normal force,
/// which the friction itself changes): `solve` (the initial derivatives, or the second-order
/// method's Start) and Element::AfterConvergence alternate until the multipliers they pass
/// agree to 1e-12 (relative), at most 100 times; a fixed point of N = N(friction(N)).
void ConsistentElementState(Model& model, const Formulation& f, double t0,
                            const std::function<void()>& solve) {
    const std::vector<int> notify = ElementsNeedingConvergedState(model);
    std::vector<double> prev = NotifyConverged(model, notify, f, t0);
    for (int i = 0; i < 100 && !prev.empty(); ++i) {
        solve();
        const std::vector<double> next = NotifyConverged(model, notify, f, t0);
        double d = 0.0, m = 0.0;
        for (size_t k = 0; k < next.size() && k < prev.size(); ++k) {
            d = std::max(d, std::abs(next[k] - prev[k]));
            m = std::max(m, std::abs(next[k]));
        }
        prev = next;
        if (d <= 1e-12 * (1.0 + m)) break;
    }
}

/// The next step size proposed by an adaptive integrator, limited by `max time step`; a
/// proposal below `min time step` (or below 16 ulp of t) stops the run.
double AdaptiveStep(const Integrator& integrator, const SolverSettings& s, double t, int step,
                    double error) {
    double h = integrator.next_step();
    if (s.max_time_step > 0.0) h = std::min(h, s.max_time_step);
    const double floor = std::max(s.min_time_step, 16.0 * 2.2e-16 * std::max(1.0, std::abs(t)));
    if (!(h >= floor)) {
        std::ostringstream os;
        os << "step-size control of '" << integrator.name() << "': the step after step " << step
           << " at t = " << t << " would be h = " << h << " (error norm " << error
           << " of the tolerance), below "
           << (s.min_time_step > 0.0 ? "the deck's `min time step` = " : "the round-off floor ")
           << floor << "; loosen the tolerances or lower `min time step`";
        throw RunError(os.str());
    }
    return h;
}

}  // namespace

RunSummary Run(Deck& deck, const RunOptions& options, const Registry& registry) {
    const auto start = std::chrono::steady_clock::now();
    RunSettings& rs = deck.settings;
    if (!deck.integrator) throw RunError("deck has no integrator");
    Integrator& integrator = *deck.integrator;
    const IntegratorDescriptor* idesc = registry.FindIntegrator(deck.method_name);

    // Formulation: the deck's, or the method's default.
    std::string fname = rs.formulation;
    if (fname.empty()) fname = idesc ? idesc->default_formulation : "cgr velocity unscaled";
    const FormulationDescriptor* fdesc = registry.FindFormulation(fname);
    if (!fdesc) {
        std::string list;
        for (const auto& d : registry.formulations()) list += (list.empty() ? "" : ", ") + d.name;
        throw RunError("unknown formulation '" + fname + "'; available: " + list);
    }
    // A deck that names no formulation, with abstract nodes that the method's default
    // formulation has no equations for: the registered formulation for the method's interface
    // that has them (`eml` runs them on `lagrangian`).
    const FormulationDescriptor* default_fdesc = nullptr;
    if (rs.formulation.empty() && !deck.model.abstract_nodes().empty() &&
        !fdesc->supports_abstract_nodes)
        for (const auto& d : registry.formulations())
            if (d.supports_abstract_nodes && d.provides == integrator.requires_interface()) {
                default_fdesc = fdesc;
                fdesc = &d;
                fname = d.name;
                break;
            }
    if (fdesc->provides != integrator.requires_interface()) {
        std::string accepted;
        for (const auto& d : registry.formulations())
            if (d.provides == integrator.requires_interface())
                accepted += (accepted.empty() ? "" : ", ") + d.name;
        throw RunError("method '" + deck.method_name + "' cannot run on formulation '" + fname +
                       "' (it needs another equation form); accepted formulations: " +
                       (accepted.empty() ? std::string("none loaded") : accepted));
    }
    if (deck.model.static_model() && !fdesc->solves_static_model) {
        std::string accepted;
        for (const auto& d : registry.formulations())
            if (d.solves_static_model) accepted += (accepted.empty() ? "" : ", ") + d.name;
        throw RunError("method '" + deck.method_name + "' on formulation '" + fname +
                       "' cannot solve a static model (control data `model: static;`): the "
                       "static solution needs the `cgr` formulation and a first-order method "
                       "(e.g. ms, implicit euler, Bathe); formulations that solve it: " +
                       (accepted.empty() ? std::string("none loaded") : accepted));
    }
    if (!deck.model.abstract_nodes().empty() && !fdesc->supports_abstract_nodes) {
        std::string accepted;
        for (const auto& d : registry.formulations())
            if (d.supports_abstract_nodes) accepted += (accepted.empty() ? "" : ", ") + d.name;
        throw RunError("method '" + deck.method_name + "' on formulation '" + fname +
                       "' cannot run a model with abstract nodes: the formulation has no "
                       "equations for scalar coordinates (the Lagrangian contract); "
                       "formulations that run them: " +
                       (accepted.empty() ? std::string("none loaded") : accepted));
    }
    RunSummary summary;
    summary.method = deck.method_name;
    const std::string prefix =
        options.output_prefix.empty() ? DefaultPrefix(deck.path) : options.output_prefix;
    if (options.write_output) {  // `-o newdir/x` creates newdir
        const std::filesystem::path dir = std::filesystem::path(prefix).parent_path();
        std::error_code ec;
        if (!dir.empty()) std::filesystem::create_directories(dir, ec);
        if (ec)
            throw RunError("cannot create the output folder " + dir.string() + ": " + ec.message());
    }
    // MBDyn's model lines of the .log (io/mbdyn_log.hpp), from the state as read from the deck:
    // MBDyn writes them while it reads the input, before the initial joint assembly.
    const std::string mbdyn_log =
        options.write_output ? MbdynModelLog(deck.model, rs.output_every, rs.output_precision)
                             : std::string();
    // `abort after: input`: the model lines only (MBDyn stops after reading the input).
    if (rs.abort_after == "input") {
        if (options.write_output) {
            std::ofstream log(prefix + ".log");
            if (!log) throw RunError("cannot open output file " + prefix + ".log");
            log << mbdyn_log << "mbstep: stopped after the input (abort after: input)\n";
            summary.files.push_back(prefix + ".log");
        }
        summary.failure = "stopped after the input (abort after: input)";
        return summary;
    }
    // Initial joint assembly (model/initial_assembly.hpp), before the formulation reads the
    // nodes' initial states.
    if (!rs.skip_initial_joint_assembly) {
        InitialAssemblyOptions ao;
        ao.tolerance = rs.assembly_tolerance;
        ao.max_iterations = rs.assembly_max_iterations;
        ao.position_stiffness = rs.assembly_position_stiffness;
        ao.velocity_stiffness = rs.assembly_velocity_stiffness;
        ao.omega_rotates = rs.assembly_omega_rotates;
        ao.use_bodies = rs.assembly_use_bodies;
        ao.use_forces = rs.assembly_use_forces;
        const InitialAssemblyReport rep = AssembleInitialState(deck.model, rs.initial_time, ao);
        summary.assembly = rep.Describe();
        summary.assembly_moved = rep.max_position_change > 0.0 || rep.max_rotation_change > 0.0 ||
                                 rep.max_velocity_change > 0.0;
    } else {
        summary.assembly = "initial joint assembly: skipped (skip initial joint assembly)";
    }
    std::unique_ptr<Formulation> formulation = fdesc->make(deck.model);
    formulation->set_threads(options.threads);
    rs.solver.threads = options.threads;
    try {
        integrator.Attach(*formulation, rs.solver);
    } catch (const RunError& e) {
        if (!default_fdesc) throw;
        throw RunError("method '" + deck.method_name +
                       "' cannot run a model with abstract nodes: " + "its default formulation '" +
                       default_fdesc->name + "' has no equations for scalar coordinates, and on '" +
                       fname + "', the abstract-node formulation for its interface: " + e.what());
    }

    const double t0 = rs.initial_time;
    double h = rs.time_step;
    if (!(h > 0.0)) throw RunError("time step must be positive");
    FirstOrderProblem* fo = formulation->first_order();
    if (fo) {
        fo->SetTime(t0);
        fo->SolveInitialDerivatives(rs.solver, h);
        ConsistentElementState(deck.model, *formulation, t0,
                               [&] { fo->SolveInitialDerivatives(rs.solver, h); });
    }
    // The steps' linear solver analyses its pattern now that the initial derivatives' solver
    // is gone (one analysis in memory at a time), before the log names its choice.
    if (NewtonSolver* ns = integrator.newton_solver()) ns->Analyze();

    // Output files are created only now, after everything was validated.
    summary.formulation = formulation->name();
    std::unique_ptr<OutputWriter> out;
    const bool auto_chosen_in_start =
        integrator.newton_solver() && integrator.newton_solver()->linear_solver().name() == "auto";
    if (options.write_output) {
        out = std::make_unique<OutputWriter>(prefix, rs, deck.model, &integrator,
                                             options.flush_interval);
        // MBDyn regularizes its start (`derivatives coefficient`, `derivatives tolerance`,
        // `derivatives max iterations`: a residual up to that tolerance is accepted); mbstep
        // solves the initial derivatives exactly and says so.
        out->WriteLog(
            mbdyn_log + ModelSummary(deck, *formulation) + summary.assembly + "\n" +
            (deck.model.static_model()
                 ? std::string()
                 : std::string("initial derivatives: solved exactly at t0 (consistent "
                               "accelerations and multipliers; MBDyn's `derivatives coefficient`, "
                               "`derivatives tolerance` and `derivatives max iterations` have no "
                               "effect)\n")));
    }
    // From here on the files exist: whatever stops the run ends them with where and why (they
    // hold every converged step before it).
    try {
        // The state at t0 (the .mov/.jnt/.csv line of step 0, and on_step).
        auto write_t0 = [&] {
            if (out) {
                StepStats s0;
                s0.converged = true;
                out->WriteStep(0, t0, 0.0, s0, rs.OutputAt(0, t0), *formulation);
            }
            if (options.on_step) options.on_step(t0, *formulation);
        };
        // `abort after: assembly | derivatives`: the state at t0 is written (the assembled one; the
        // derivatives are solved above for the first-order formulations), then the run stops.
        if (rs.abort_after == "assembly" || rs.abort_after == "derivatives" ||
            rs.abort_after == "dummy steps") {
            write_t0();
            summary.failure = "stopped after the " +
                              std::string(rs.abort_after == "assembly" ? "initial assembly"
                                                                       : "initial derivatives") +
                              " (abort after: " + rs.abort_after + ")";
            summary.final_time = t0;
            if (out) {
                out->WriteLog("mbstep: " + summary.failure + "\n");
                summary.files = out->files();
            }
            return summary;
        }

        integrator.Start(t0, h);
        // Second-order methods solve the initial accelerations and multipliers in Start.
        if (!fo)
            ConsistentElementState(deck.model, *formulation, t0, [&] { integrator.Start(t0, h); });
        if (NewtonSolver* ns = integrator.newton_solver()) ns->Analyze();
        // Step 0 is written now, so that its reactions (.jnt) are the initial multipliers of every
        // method (the second-order ones know them only after Start).
        write_t0();
        // Integrators that set their Newton solver up in Start (the Newmark family): what `auto`
        // chose is known only now (their solver analyses its pattern here).
        if (out && auto_chosen_in_start)
            out->WriteLog("linear solver chosen by auto: " +
                          integrator.newton_solver()->linear_solver().name() + "\n");
        // `schur`: what solved the multipliers' Schur complement in the end (the block LU, or KLU
        // after it refused a factorization).
        auto log_remainder = [&] {
            const NewtonSolver* ns = integrator.newton_solver();
            if (!out || !ns) return;
            const std::string r = ns->linear_solver().remainder_solver();
            if (!r.empty()) out->WriteLog("schur: Schur complement solved by " + r + "\n");
        };
        const double tf = rs.forever ? std::numeric_limits<double>::infinity() : rs.final_time;
        Progress progress(options.progress && !rs.forever, t0, tf);
        double t = t0;
        int step = 0;
        double t_anchor = t0;  // times are t_anchor + k h, exact multiples between step changes
        int k_anchor = 0;
        const bool adaptive = integrator.adaptive();
        double last_error = 0.0;
        summary.setup_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::vector<int> notify = ElementsNeedingConvergedState(deck.model);
        const SolverSettings& sf = rs.solver;
        const double h_min = sf.min_time_step;
        const double h_max = sf.max_time_step > 0.0 ? sf.max_time_step : rs.time_step;
        int steps_after_reduction = 0, steps_after_raise = 0;
        // MBDyn's Solver::NewTimeStep after a converged step (settings.hpp, `strategy`).
        auto NextStep = [&](double h_now, int iterations) {
            ++steps_after_reduction;
            ++steps_after_raise;
            if (sf.strategy_max_iterations > 0 && iterations > sf.strategy_max_iterations) {
                steps_after_reduction = 0;
                return std::max(h_now * sf.strategy_reduction, h_min);
            }
            if (iterations <= sf.strategy_min_iterations &&
                steps_after_reduction > sf.strategy_steps_before_reduction &&
                steps_after_raise > sf.strategy_steps_before_raise && h_now < h_max) {
                steps_after_raise = 0;
                return std::min(h_now * sf.strategy_raise, h_max);
            }
            return h_now;
        };
        while (t < tf - 1e-9 * h) {
            if (rs.abort_after_steps >= 0 && step >= rs.abort_after_steps) break;
            if (options.stop_request) {  // a signal: stop at this step boundary
                summary.stop_signal = options.stop_request->load(std::memory_order_relaxed);
                if (summary.stop_signal) break;
            }
            if (adaptive) {  // the proposal after the last accepted step, clipped to tf
                if (step > 0) h = AdaptiveStep(integrator, rs.solver, t, step, last_error);
                h = std::min(h, tf - t);
            }
            StepStats st = integrator.Advance(t, h);
            while (adaptive && st.converged && !st.accepted) {  // error test failed: retry
                ++summary.rejected_steps;
                h = AdaptiveStep(integrator, rs.solver, t, step, st.error);
                h = std::min(h, tf - t);
                st = integrator.Advance(t, h);
            }
            // `strategy: factor` (settings.hpp): retry a failed step with smaller ones while
            // they stay at or above `min time step` (at most kMaxRetries: a zero `min time
            // step` must not loop for ever).
            constexpr int kMaxRetries = 60;
            const double h_tried = h;
            int retries = 0;
            while (!st.converged && sf.strategy_factor && retries < kMaxRetries &&
                   h * sf.strategy_reduction >= h_min) {
                ++summary.failed_steps;
                h *= sf.strategy_reduction;
                ++retries;
                steps_after_reduction = 0;
                st = integrator.Advance(t, h);
            }
            summary.iterations += st.iterations;
            summary.factorizations += st.factorizations;
            if (!st.converged) {  // the catch below ends the files with the message
                log_remainder();
                const std::string context = formulation->FailureContext();
                if (!context.empty()) st.failure += "; " + context;
                progress.Done();
                std::ostringstream hs;
                hs << h;
                throw RunError("Newton failed at step " + std::to_string(step + 1) +
                               " (time step " + hs.str() + "), " + st.failure);
            }
            ++step;
            if (adaptive) {
                t = h >= tf - t ? tf : t + h;  // the last step lands on tf exactly
                last_error = st.error;
            } else {
                t = h != h_tried ? t + h : t_anchor + (step - k_anchor) * h;
                const double h_next = sf.strategy_factor ? NextStep(h, st.iterations) : h;
                if (h != h_tried || h_next != h) {  // a new step size: times count from here
                    t_anchor = t;
                    k_anchor = step;
                }
                h = h_next;
            }
            const bool output = rs.OutputAt(step, t);
            if (out) out->WriteStep(step, t, h, st, output, *formulation);
            if (options.on_step) options.on_step(t, *formulation);
            NotifyConverged(deck.model, notify, *formulation, t);
            progress.Update(t);
        }
        progress.Done();
        log_remainder();
        summary.steps = step;
        summary.final_time = t;
        if (summary.stop_signal) {
            std::ostringstream os;
            os << "interrupted by " << SignalName(summary.stop_signal) << " at t = " << t
               << ", step " << step;
            summary.failure = os.str();
            if (out) out->WriteStop("mbstep: stopped: " + summary.failure);
        } else {
            summary.completed = true;
            if (out) out->Flush();
        }
        summary.wall_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (out) summary.files = out->files();
        return summary;
    } catch (const std::exception& e) {
        if (out) {
            try {
                out->WriteStop("mbstep: stopped: " + std::string(e.what()));
            } catch (const std::exception&) {  // the files cannot be written: e says more
            }
        }
        throw;
    }
}

std::string SignalName(int signal) {
    switch (signal) {
        case SIGINT:
            return "SIGINT";
        case SIGTERM:
            return "SIGTERM";
        case SIGHUP:
            return "SIGHUP";
        default:
            return "signal " + std::to_string(signal);
    }
}

std::string Describe(const RunSummary& s) {
    std::ostringstream os;
    os << "mbstep: " << (s.completed ? "completed" : "stopped") << " at t = " << s.final_time
       << " after " << s.steps << " steps with " << s.method << " on the " << s.formulation
       << " formulation; " << s.iterations << " Newton iterations (" << std::setprecision(3)
       << (s.steps ? double(s.iterations) / s.steps : 0.0) << " per step), " << s.factorizations
       << " factorizations";
    if (!s.completed && !s.failure.empty()) os << " (" << s.failure << ")";
    if (s.failed_steps) os << ", " << s.failed_steps << " failed steps retried";
    if (s.rejected_steps) os << ", " << s.rejected_steps << " steps rejected by the error test";
    if (s.assembly_moved) os << "; " << s.assembly;
    os << "; wall time " << std::setprecision(3) << s.wall_seconds << " s";
    if (!s.files.empty()) {
        os << "; output:";
        for (const auto& f : s.files) os << " " << f;
    }
    os << ".";
    return os.str();
}

}  // namespace mbstep
