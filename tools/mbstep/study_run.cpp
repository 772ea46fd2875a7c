// mbstep — `mbstep study`: one job, one run (study_parts.hpp). Every run has its own Deck read
// from the file, no output files and serial assembly, so that thread CPU time
// (CLOCK_THREAD_CPUTIME_ID) is the run's own. A run that fails (Newton, step-size control, a
// formulation that refuses the model) is an outcome with its message, never a crash.
#include <time.h>

#include <algorithm>
#include <memory>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"
#include "study_parts.hpp"

namespace mbstep::study {

namespace {

double ThreadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

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

namespace {

/// One run: its own deck, no output files, serial assembly; the node states after the last
/// step. Any exception becomes a failed outcome with its message.
Outcome RunOnce(const RunSetup& setup, const Job& job, const Registry& reg) {
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
                    o.nodes[i].w[k] = states[i].w[k];
                    for (int j = 0; j < 3; ++j) o.nodes[i].R[3 * k + j] = states[i].R(k, j);
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

}  // namespace

Outcome RunJob(const RunSetup& setup, const Job& job, const Registry& reg) {
    Outcome o = RunOnce(setup, job, reg);
    for (int k = 1; k < setup.repeat && o.ok; ++k)
        o.cpu_seconds = std::min(o.cpu_seconds, RunOnce(setup, job, reg).cpu_seconds);
    return o;
}

}  // namespace mbstep::study
