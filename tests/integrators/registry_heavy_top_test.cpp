// Registry-driven convergence orders of every first-order method on the heavy-top deck
// (examples/heavy-top/heavy-top.mbd, an index-3 DAE: one rigid body, a spherical pin):
// errors at t = 0.5 of the centre-of-mass position x, its velocity v and the pin's three
// multipliers lambda, against a reference from DIRK54 at h_min / 64 (the same method at
// h_min / 64 while DIRK54 is not registered). Observed order p = log2(e(h) / e(h/2)).
//
// Checked: the position order of the finest halving is at least 2 - 0.2 for every method
// (the "at least 2"; 0.2 is the tolerance of STYLE.md §8 for the pre-asymptotic
// remainder over h = 2e-3 .. 2.5e-4, i.e. 0.3 .. 0.04 rad of spin per step). Velocity and
// multiplier orders are reported, not checked: order reduction of higher-order methods on
// index-3 DAEs is expected and goes into docs/methods.md. The table rows are printed and
// written to <build>/heavy-top-orders.md.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

#include "mbstep/integrator/first_order.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {

struct Sample {
    Vec3 x{Vec3::Zero()};
    Vec3 v{Vec3::Zero()};
    Eigen::VectorXd lambda;
};

// Runs the heavy top to t = 0.5 with a tight Newton tolerance (the finest errors of the
// fourth/fifth-order methods are ~1e-10) and samples the final state.
Sample RunHeavyTop(const std::string& method, double h) {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeck(SourcePath("examples/heavy-top/heavy-top.mbd"), reg);
    std::string name;
    deck.integrator = MakeIntegrator(method, reg, &name);
    deck.method_name = name;
    deck.settings.method_text = method;
    deck.settings.time_step = h;
    deck.settings.final_time = 0.5;
    deck.settings.solver.residual_tolerance = 1e-11;
    // The constraint rows are scaled by 1/(b0 h): at h ~ 4e-6 their round-off floor is
    // ~1e-10, so convergence is also accepted on a solution increment at round-off level.
    deck.settings.solver.solution_tolerance = 1e-13;
    deck.settings.solver.solution_test = ResidualTest::kNorm;
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    Sample s;
    opt.on_step = [&](double, const Formulation& f) {
        s.x = f.node_states()[0].x;
        s.v = f.node_states()[0].v;
        const auto& elements = f.model().elements();
        for (size_t e = 0; e < elements.size(); ++e) {
            const int m = elements[e]->num_multipliers();
            const double* l = f.multipliers(static_cast<int>(e));
            if (m > 0 && l) s.lambda = Eigen::Map<const Eigen::VectorXd>(l, m);
        }
    };
    const RunSummary r = Run(deck, opt, reg);
    if (!r.completed) throw RunError(method + ": heavy top did not complete: " + r.failure);
    return s;
}

bool HasRho(const IntegratorDescriptor& d) {
    return !d.parameters.empty() && d.parameters[0].name == "rho_inf";
}

std::string Fixed(double v, int digits) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(digits) << v;
    return os.str();
}

std::string Sci(double v) {
    std::ostringstream os;
    os << std::scientific << std::setprecision(1) << v;
    return os.str();
}

}  // namespace

TEST_CASE("every first-order method: order on the heavy top (positions >= 2), table") {
    const Registry& reg = GlobalRegistry();
    const std::vector<double> hs = {2e-3, 1e-3, 5e-4, 2.5e-4};
    const bool dirk54 = reg.FindIntegrator("DIRK54") != nullptr;
    std::optional<Sample> shared_ref;
    if (dirk54) shared_ref = RunHeavyTop("DIRK54", hs.back() / 64);

    std::ostringstream table;
    table << "| method | p(x) | p(v) | p(lambda) | error x at h = 2.5e-4 | reference |\n"
          << "|---|---|---|---|---|---|\n";
    int tested = 0;
    for (const auto& d : reg.integrators()) {
        auto probe = MakeIntegrator(d.name, reg);
        if (!dynamic_cast<FirstOrderIntegrator*>(probe.get())) continue;
        if (d.description.rfind("alias of", 0) == 0) continue;  // same method as its target
        std::vector<std::string> texts;
        if (HasRho(d))
            for (const char* rho : {"0", "0.6"}) texts.push_back(d.name + ", " + rho);
        else
            texts.push_back(d.name);
        for (const std::string& text : texts) {
            INFO(text);
            const Sample ref = dirk54 ? *shared_ref : RunHeavyTop(text, hs.back() / 64);
            std::vector<double> ex, ev, el;
            for (double h : hs) {
                const Sample s = RunHeavyTop(text, h);
                ex.push_back((s.x - ref.x).norm());
                ev.push_back((s.v - ref.v).norm());
                el.push_back(s.lambda.size() ? (s.lambda - ref.lambda).norm() : 0.0);
            }
            const auto px = Orders(ex), pv = Orders(ev), pl = Orders(el);
            INFO("x errors ", Join(ex), " orders ", Join(px));
            INFO("v errors ", Join(ev), " orders ", Join(pv));
            INFO("lambda errors ", Join(el), " orders ", Join(pl));
            std::ostringstream row;
            row << "| `" << text << "` | " << Fixed(px.back(), 2) << " | " << Fixed(pv.back(), 2)
                << " | " << Fixed(pl.back(), 2) << " | " << Sci(ex.back()) << " | "
                << (dirk54 ? "DIRK54" : "same method") << " at h/64 |";
            MESSAGE(row.str());
            table << row.str() << "\n";
            CHECK(px.back() >= 1.8);
            ++tested;
        }
    }
    std::ofstream(std::string(MBSTEP_BINARY_DIR) + "/heavy-top-orders.md") << table.str();
    CHECK(tested >= 7);
}
