// Registry-driven convergence orders of every first-order method on the heavy-top deck
// (examples/heavy-top/heavy-top.mbd, an index-3 DAE: one rigid body, a spherical pin), at
// t = 0.5, h = 2e-3 / 2^k, k = 0..4 (0.3 .. 0.02 rad of spin per step):
//   x, v    centre-of-mass position and velocity, against a reference from DIRK54 at
//           h = 2.5e-4 / 64 (the same method there while DIRK54 is not registered);
//           p = log2(e(h) / e(h/2)) of the finest halving;
//   lambda  the pin's three multipliers, by self-convergence (no reference):
//           p = log2(|l(h) - l(h/2)| / |l(h/2) - l(h/4)|) over the three finest steps.
//           The multipliers of the ESDIRKs converge at order ~1, so a DIRK54 reference would
//           put a floor of ~1e-2 under the second-order multistep multipliers.
//
// Checked: the position order is at least min(2, declared) - 0.2 for every method (the issue's
// "at least 2"; implicit Euler is first order; 0.2 is STYLE.md §8's tolerance for the
// pre-asymptotic remainder). Velocity and multiplier orders are reported, not checked: order
// reduction of higher-order methods on index-3 DAEs is expected and goes into
// docs/methods.md. The table rows are printed and written to <build>/heavy-top-orders.md.
//
// Second test case: every Newmark-type method (a SecondOrderStep, with the variants its
// descriptor declares, support/run_helpers.hpp MethodVariants, rho_inf 0 and 0.6 as above) on
// its default formulation,
// h = 4e-4 / 2^k, k = 0..3, same reference. Checked: the position order within +-0.2 of the
// declared order, except for the weighted-force form with alpha_f != 0 (the paper form of `hht`,
// and `modified`), which is first order on a formulation whose mass matrix depends on q
// (plugins/newmark/hht.hpp, [Sherif et al. 2019] eq. (28) and Fig. 2): there order 1 +-0.2.
// Rows are appended to the table.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/second_order_step.hpp"
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
    // The constraint rows are scaled by 1/(b0 h), so their round-off floor grows like 1/h
    // (~1e-10 at h = 4e-6): the tolerance follows it. A constraint residual r is a position
    // error b0 h r, a force residual an acceleration error r / m: both far below the errors.
    deck.settings.solver.residual_tolerance = std::max(1e-11, 2e-13 / h);
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

// The shared reference (DIRK54 at h = 2.5e-4 / 64), computed once.
const std::optional<Sample>& SharedReference() {
    static const std::optional<Sample> ref =
        GlobalRegistry().FindIntegrator("DIRK54") != nullptr
            ? std::optional<Sample>(RunHeavyTop("DIRK54", 2.5e-4 / 64))
            : std::nullopt;
    return ref;
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
    const std::vector<double> hs = {2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4};
    const double h_ref = 2.5e-4 / 64;
    const std::optional<Sample>& shared_ref = SharedReference();
    const bool dirk54 = shared_ref.has_value();

    std::ostringstream table;
    table << "| method | p(x) | p(v) | p(lambda) | error x at h = 1.25e-4 |\n"
          << "|---|---|---|---|---|\n";
    int tested = 0;
    for (const auto& d : reg.integrators()) {
        auto probe = MakeIntegrator(d.name, reg);
        if (!dynamic_cast<FirstOrderIntegrator*>(probe.get())) continue;
        if (d.description.rfind("alias of", 0) == 0) continue;  // same method as its target
        std::vector<std::string> texts;
        if (d.tunable)
            for (const char* rho : {"0", "0.6"}) texts.push_back(d.name + ", " + rho);
        else
            texts.push_back(d.name);
        for (const std::string& text : texts) {
            INFO(text);
            const Sample ref = dirk54 ? *shared_ref : RunHeavyTop(text, h_ref);
            std::vector<Sample> runs;
            for (double h : hs) runs.push_back(RunHeavyTop(text, h));
            std::vector<double> ex, ev, dl;
            for (size_t i = 0; i < runs.size(); ++i) {
                ex.push_back((runs[i].x - ref.x).norm());
                ev.push_back((runs[i].v - ref.v).norm());
                if (i + 1 < runs.size()) dl.push_back((runs[i].lambda - runs[i + 1].lambda).norm());
            }
            const auto px = Orders(ex), pv = Orders(ev), pl = Orders(dl);
            INFO("x errors ", Join(ex), " orders ", Join(px));
            INFO("v errors ", Join(ev), " orders ", Join(pv));
            INFO("lambda differences ", Join(dl), " orders ", Join(pl));
            std::ostringstream row;
            row << "| `" << text << "` | " << Fixed(px.back(), 2) << " | " << Fixed(pv.back(), 2)
                << " | " << Fixed(pl.back(), 2) << " | " << Sci(ex.back()) << " |";
            MESSAGE(row.str());
            table << row.str() << "\n";
            CHECK(px.back() >= std::min(2, probe->order()) - 0.2);
            ++tested;
        }
    }
    table << "\nReference for x, v: " << (dirk54 ? "DIRK54" : "each method itself")
          << " at h = 2.5e-4 / 64; lambda by self-convergence.\n";
    std::ofstream(std::string(MBSTEP_BINARY_DIR) + "/heavy-top-orders.md") << table.str();
    CHECK(tested >= 7);
}

TEST_CASE("every Newmark-type method: position order on the heavy top, table") {
    const Registry& reg = GlobalRegistry();
    // Finer than above: `hht, -0.1, modified` fails at h = 1e-3 on this top (t ~ 0.12 s).
    const std::vector<double> hs = {4e-4, 2e-4, 1e-4, 5e-5};
    const std::optional<Sample>& ref = SharedReference();
    REQUIRE(ref.has_value());
    std::ostringstream table;
    int tested = 0;
    for (const auto& d : reg.integrators()) {
        auto probe = MakeIntegrator(d.name, reg);
        if (!dynamic_cast<SecondOrderStep*>(probe.get())) continue;
        // rho_inf = 1 leaves the index-3 multiplier mode undamped (docs/DESIGN.md): 0 and 0.6,
        // as above.
        for (const std::string& text : MethodVariants(d, {"0", "0.6"})) {
            INFO(text, " on ", d.default_formulation);
            auto m = MakeIntegrator(text, reg);
            const auto* step = dynamic_cast<const SecondOrderStep*>(m.get());
            REQUIRE(step != nullptr);
            // The first-order case of hht.hpp: alpha-weighted forces meet M(q_{n+1}).
            const bool first_order = step->form() == NewmarkForm::kWeightedForces &&
                                     step->coefficients(0.0).alpha_f != 0.0;
            std::vector<Sample> runs;
            for (double h : hs) runs.push_back(RunHeavyTop(text, h));
            std::vector<double> ex, ev, dl;
            for (size_t i = 0; i < runs.size(); ++i) {
                ex.push_back((runs[i].x - ref->x).norm());
                ev.push_back((runs[i].v - ref->v).norm());
                if (i + 1 < runs.size()) dl.push_back((runs[i].lambda - runs[i + 1].lambda).norm());
            }
            const auto px = Orders(ex), pv = Orders(ev), pl = Orders(dl);
            INFO("x errors ", Join(ex), " orders ", Join(px));
            INFO("v errors ", Join(ev), " orders ", Join(pv));
            INFO("lambda differences ", Join(dl), " orders ", Join(pl));
            std::ostringstream row;
            row << "| `" << text << "` (" << d.default_formulation << ") | " << Fixed(px.back(), 2)
                << " | " << Fixed(pv.back(), 2) << " | " << Fixed(pl.back(), 2) << " | "
                << Sci(ex.back()) << " |";
            MESSAGE(row.str());
            table << row.str() << "\n";
            CHECK(std::abs(px.back() - (first_order ? 1 : m->order())) <= 0.2);
            ++tested;
        }
    }
    std::ofstream(std::string(MBSTEP_BINARY_DIR) + "/heavy-top-orders.md", std::ios::app)
        << "\nNewmark-type methods on their default formulations, h = 4e-4 .. 5e-5:\n\n"
        << "| method (formulation) | p(x) | p(v) | p(lambda) | error x at h = 5e-5 |\n"
        << "|---|---|---|---|---|\n"
        << table.str();
    CHECK(tested >= 5);
}
