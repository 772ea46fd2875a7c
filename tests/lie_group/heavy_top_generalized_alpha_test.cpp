// Lie group generalized-alpha on the heavy-top deck (examples/heavy-top/heavy-top.mbd, index-3:
// one rigid body on a spherical pin), method `generalized alpha, 0.9`, formulation `lie group`:
// order 2 in the CoM position at t = 0.5, orthonormal orientations after every step, agreement
// with `cgr` (ms, 0.6) at h = 1e-4, t = 1; Newton iterations per step are printed.
#include <doctest/doctest.h>

#include <iostream>

#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

struct TopRun {
    Vec3 x{Vec3::Zero()};
    double worst_orthonormality{0.0};
    RunSummary summary;
};

TopRun RunHeavyTop(const std::string& method, const std::string& formulation, double h, double tf,
                   bool modified_newton = false) {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeck(test::SourcePath("examples/heavy-top/heavy-top.mbd"), reg);
    std::string name;
    deck.integrator = MakeIntegrator(method, reg, &name);
    deck.method_name = name;
    deck.settings.method_text = method;
    deck.settings.formulation = formulation;
    deck.settings.time_step = h;
    deck.settings.final_time = tf;
    deck.settings.solver.modified_newton = modified_newton;
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    TopRun out;
    opt.on_step = [&](double, const Formulation& f) {
        const FrameState& s = f.node_states()[0];
        out.x = s.x;
        out.worst_orthonormality =
            std::max(out.worst_orthonormality,
                     (s.R.transpose() * s.R - Mat3::Identity()).cwiseAbs().maxCoeff());
    };
    out.summary = mbstep::Run(deck, opt, reg);
    return out;
}

}  // namespace

TEST_CASE("heavy top, lie group generalized-alpha 0.9: order 2 in the CoM position at t = 0.5") {
    // Self-convergence: d_i = |x(h_i) - x(h_i / 2)|, p = log2(d_i / d_{i+1}). h from 2e-3 (0.3
    // rad per step at 150 rad/s) down to 1.25e-4, where the error (~1e-7) is still far above the
    // Newton tolerance of the deck (1e-8 on forces of ~100 N: position error ~1e-12).
    std::vector<Vec3> x;
    for (double h : {2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4}) {
        const TopRun r = RunHeavyTop("generalized alpha, 0.9", "lie group", h, 0.5);
        REQUIRE(r.summary.completed);
        CHECK(r.summary.formulation == "lie group");
        CHECK(r.worst_orthonormality <= 1e-13);
        x.push_back(r.x);
    }
    std::vector<double> d;
    for (size_t i = 0; i + 1 < x.size(); ++i) d.push_back((x[i] - x[i + 1]).norm());
    const std::vector<double> p = test::Orders(d);
    MESSAGE("differences: ", test::Join(d), " orders: ", test::Join(p));
    for (double pi : p) CHECK(std::abs(pi - 2.0) <= 0.2);
}

TEST_CASE("heavy top: `tangent operator, no` converges to the same solution") {
    const TopRun a = RunHeavyTop("generalized alpha, 0.9", "lie group", 1e-3, 0.2);
    const TopRun b =
        RunHeavyTop("generalized alpha, 0.9, tangent operator, no", "lie group", 1e-3, 0.2);
    REQUIRE(b.summary.completed);
    CHECK((a.x - b.x).norm() <= 1e-9);
    MESSAGE("h = 1e-3: iterations/step with T_exp ", double(a.summary.iterations) / a.summary.steps,
            ", without ", double(b.summary.iterations) / b.summary.steps);
}

TEST_CASE("heavy top: lie group generalized-alpha agrees with cgr ms 0.6 at h = 1e-4, t = 1") {
    const TopRun lg = RunHeavyTop("generalized alpha, 0.9", "lie group", 1e-4, 1.0);
    const TopRun lg2 = RunHeavyTop("generalized alpha, 0.9", "lie group", 5e-5, 1.0);
    const TopRun cgr = RunHeavyTop("ms, 0.6", "cgr", 1e-4, 1.0);
    const TopRun cgr2 = RunHeavyTop("ms, 0.6", "cgr", 5e-5, 1.0);
    REQUIRE(lg.summary.completed);
    REQUIRE(cgr.summary.completed);
    CHECK(lg.worst_orthonormality <= 1e-13);
    CHECK(lg2.worst_orthonormality <= 1e-13);
    // Both methods are second order; their errors at h = 1e-4 (estimated from h/2 by
    // Richardson, e(h) ~ 4/3 |x(h) - x(h/2)|) are compared with the difference.
    const double diff = (lg.x - cgr.x).norm();
    const double e_lg = 4.0 / 3.0 * (lg.x - lg2.x).norm();
    const double e_cgr = 4.0 / 3.0 * (cgr.x - cgr2.x).norm();
    const Vec3 xr_lg = (4.0 * lg2.x - lg.x) / 3.0, xr_cgr = (4.0 * cgr2.x - cgr.x) / 3.0;
    const double diff_extrapolated = (xr_lg - xr_cgr).norm();
    MESSAGE("|x_lie - x_cgr| at t = 1, h = 1e-4: ", diff, "; estimated errors: lie group ", e_lg,
            ", cgr ", e_cgr, "; Richardson-extrapolated solutions differ by ", diff_extrapolated,
            "; Newton iterations per step at h = 1e-4: lie group ",
            double(lg.summary.iterations) / lg.summary.steps, ", cgr ",
            double(cgr.summary.iterations) / cgr.summary.steps, "; factorizations ",
            lg.summary.factorizations);
    CHECK(diff <= 1.5 * (e_lg + e_cgr));
    const TopRun lgm = RunHeavyTop("generalized alpha, 0.9", "lie group", 1e-4, 1.0, true);
    REQUIRE(lgm.summary.completed);
    MESSAGE("modified Newton, h = 1e-4: iterations per step ",
            double(lgm.summary.iterations) / lgm.summary.steps, ", factorizations ",
            lgm.summary.factorizations, ", |x - x_full| ", (lgm.x - lg.x).norm());
    CHECK(lgm.summary.factorizations < lg.summary.factorizations);
    CHECK(diff_extrapolated <= 1e-5);
    if (GlobalRegistry().FindFormulation("euler parameters")) {
        try {
            const TopRun ep = RunHeavyTop("generalized alpha, 0.9", "euler parameters", 1e-4, 1.0);
            MESSAGE("euler parameters: iterations per step ",
                    double(ep.summary.iterations) / ep.summary.steps, ", |x_ep - x_lie| ",
                    (ep.x - lg.x).norm());
        } catch (const std::exception& e) {
            MESSAGE("euler parameters run failed: ", e.what());
        }
    }
}

TEST_CASE("heavy top: small steps (constraint scaling) h = 1e-6") {
    // Unscaled, the iteration matrix [M beta', B^T; B, 0] has a condition number ~h^-4
    // (1e24 here); with the scaling of generalized_alpha.hpp the run converges in ~1-2
    // iterations per step.
    const TopRun r = RunHeavyTop("generalized alpha, 0.9", "lie group", 1e-6, 2e-4);
    REQUIRE(r.summary.completed);
    const double its = double(r.summary.iterations) / r.summary.steps;
    MESSAGE("h = 1e-6: Newton iterations per step ", its);
    CHECK(its <= 3.0);
    CHECK(r.worst_orthonormality <= 1e-13);
}

TEST_CASE("generalized alpha: rho_inf outside [0, 1] is rejected") {
    const Registry& reg = GlobalRegistry();
    for (const char* bad : {"generalized alpha, 1.1", "generalized alpha, -0.1"}) {
        INFO(bad);
        CHECK_THROWS(MakeIntegrator(bad, reg));
    }
    CHECK_NOTHROW(MakeIntegrator("generalized alpha, 0", reg));
    CHECK_NOTHROW(MakeIntegrator("generalized alpha, 1, tangent operator, no", reg));
}
