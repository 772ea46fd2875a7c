// StepN methods on the foundation's example decks: convergence orders (heavy top), energy
// behaviour (spherical pendulum), conserved spin (heavy top), robustness over rho_inf, the
// double pendulum against an independent reference, and thread-count independence.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <numeric>

#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {
const std::string kHeavyTop = SourcePath("examples/heavy-top/heavy-top.mbd");
const std::string kPendulum = SourcePath("examples/pendulum/pendulum.mbd");
const std::string kDoublePendulum = SourcePath("examples/double-pendulum/double-pendulum.mbd");
}  // namespace

TEST_CASE("heavy top: order of convergence of the CoM position at t = 0.5") {
    struct Case {
        std::string method;
        int order;
    };
    const std::vector<Case> cases = {{"crank nicolson", 2}, {"ms, 0.6", 2},       {"ms, 0", 2},
                                     {"ms3, 0.6", 2},       {"ms3, 0", 2},        {"ms4, 0.6", 2},
                                     {"ms4, 0", 2},         {"implicit euler", 1}};
    // Steps in the asymptotic range of this problem (0.3 to 0.04 rad of spin per step);
    // the reference is the same method at the smallest step / 64, as the issue asks.
    const std::vector<double> hs = {2e-3, 1e-3, 5e-4, 2.5e-4};
    for (const Case& c : cases) {
        INFO(c.method);
        const Vec3 ref = RunDeck(kHeavyTop, c.method, hs.back() / 64, 0.5).final_states[0].x;
        std::vector<double> err;
        for (double h : hs)
            err.push_back((RunDeck(kHeavyTop, c.method, h, 0.5).final_states[0].x - ref).norm());
        const auto p = Orders(err);
        INFO("errors ", Join(err), " orders ", Join(p));
        MESSAGE(c.method, ": CoM errors ", Join(err), "orders ", Join(p));
        // Declared order +-0.2 on the two finest pairs (STYLE.md §8; the tolerance).
        CHECK(std::abs(p[p.size() - 1] - c.order) <= 0.2);
        CHECK(std::abs(p[p.size() - 2] - c.order) <= 0.2);
    }
}

TEST_CASE("heavy top: the drift of the spin about the symmetry axis converges with the order") {
    // The exact solution keeps Omega_y (body frame) = 150 rad/s (symmetric top, gravity moment
    // normal to the symmetry axis). Its drift at t = 1 must vanish as h^2 for ms.
    auto drift = [](const std::string& m, double h) {
        const FrameState s = RunDeck(kHeavyTop, m, h, 1.0).final_states[0];
        return std::abs((s.R.transpose() * s.w).y() - 150.0);
    };
    for (std::string m : {"ms, 0.6", "crank nicolson"}) {
        INFO(m);
        const std::vector<double> d = {drift(m, 1e-3), drift(m, 5e-4), drift(m, 2.5e-4)};
        const auto p = Orders(d);
        INFO("drifts ", Join(d), " orders ", Join(p));
        MESSAGE(m, ": spin drifts ", Join(d), "orders ", Join(p));
        CHECK(d[2] < d[0]);
        CHECK(p.back() >= 1.8);
    }
}

TEST_CASE("heavy top runs to t = 1 at h = 1e-3 with every StepN method and rho_inf") {
    for (std::string m : {"implicit euler", "crank nicolson", "bdf", "ms", "ms2", "ms3", "ms4"}) {
        const bool tunable = m != "implicit euler" && m != "crank nicolson" && m != "bdf";
        for (double rho : {0.0, 0.6, 1.0}) {
            const std::string text = tunable ? m + ", " + std::to_string(rho) : m;
            INFO(text);
            RunResult r;
            CHECK_NOTHROW(r = RunDeck(kHeavyTop, text, 1e-3, 1.0));
            CHECK(r.summary.completed);
            CHECK(r.summary.steps == 1000);
            if (!tunable) break;
        }
    }
}

TEST_CASE("spherical pendulum: Crank-Nicolson keeps the energy, BDF2 dissipates it") {
    // Energy samples of a run, and their maxima over consecutive 2-s windows (about one
    // pendulum period): the discrete energy of any second-order LMS oscillates by O(h^2) within
    // a period (1e-6 relative here), more than BDF2 dissipates per step (O(h^3)), so
    // monotonicity is asserted on the envelope, where the dissipation shows.
    auto run = [](const std::string& method, std::vector<double>& energy) {
        RunDeck(kPendulum, method, 1e-3, 10.0, [&](double, const Formulation& f) {
            const Invariants inv = f.ComputeInvariants();
            energy.push_back(inv.kinetic + inv.potential);
        });
    };
    auto window_max = [](const std::vector<double>& e) {
        std::vector<double> m;
        for (size_t k = 0; k + 1 < e.size(); k += 2000)
            m.push_back(*std::max_element(e.begin() + k, e.begin() + std::min(e.size(), k + 2000)));
        return m;
    };
    std::vector<double> cn, bdf;
    run("crank nicolson", cn);
    run("ms, 0", bdf);
    REQUIRE(cn.size() == 10001);
    double max_dev = 0;
    for (double e : cn) max_dev = std::max(max_dev, std::abs(e - cn[0]) / std::abs(cn[0]));
    INFO("CN: largest relative energy deviation ", max_dev);
    CHECK(max_dev < 1e-4);
    // No secular drift: the mean energy over the last 2-s window equals that over the first
    // to 1e-7 relative (measured: 6e-9). CN's (-1)^k velocity mode makes the oscillation about
    // the mean grow slowly (2e-5 relative at 10 s, below the bound above); it averages out.
    auto mean = [](auto b, auto e) { return std::accumulate(b, e, 0.0) / std::distance(b, e); };
    const double m0 = mean(cn.begin(), cn.begin() + 2000), m1 = mean(cn.end() - 2000, cn.end());
    CHECK(std::abs(m1 - m0) < 1e-7 * std::abs(m0));

    const auto mb = window_max(bdf);
    INFO("BDF2 window maxima ", Join(mb));
    for (size_t k = 1; k < mb.size(); ++k) CHECK(mb[k] < mb[k - 1]);
    CHECK(bdf.back() < bdf.front());
}

TEST_CASE("double pendulum against the independent planar reference") {
    // Independent planar reference (examples/double-pendulum/README.md: the compound double
    // pendulum with the 3-D bar inertia, DOP853 at rtol 1e-13): CoM (y, z) of both bars.
    struct Row {
        double t, y1, z1, y2, z2;
    };
    const Row rows[] = {
        {0.5, 1.861760615334187, -0.7306486236149828, 3.9310473174387717, -2.4395267312007594},
        {1.0, 0.16807258586696044, -1.992925388939584, 1.3129965652368978, -4.19976981632898}};
    for (const Row& row : rows) {
        const auto s = RunDeck(kDoublePendulum, "ms, 0.6", 1e-4, row.t).final_states;
        INFO("t = ", row.t);
        // ms at h = 1e-4 is 1.1e-7 m off at t = 1 (measured; 4x less at h/2, 4x more at 2h);
        // 5e-7 m leaves room, the reference itself is good to 1e-10.
        CHECK(std::abs(s[0].x.y() - row.y1) < 5e-7);
        CHECK(std::abs(s[0].x.z() - row.z1) < 5e-7);
        CHECK(std::abs(s[1].x.y() - row.y2) < 5e-7);
        CHECK(std::abs(s[1].x.z() - row.z2) < 5e-7);
        CHECK(std::abs(s[0].x.x()) < 1e-12);  // planar motion
    }
    // Order 2 towards the independent reference (not a self-reference).
    std::vector<double> err;
    for (double h : {4e-4, 2e-4, 1e-4}) {
        const auto s = RunDeck(kDoublePendulum, "ms, 0.6", h, 1.0).final_states;
        err.push_back(std::hypot(s[1].x.y() - rows[1].y2, s[1].x.z() - rows[1].z2));
    }
    const auto p = Orders(err);
    INFO("errors ", Join(err), " orders ", Join(p));
    CHECK(std::abs(p.back() - 2.0) <= 0.2);
}

TEST_CASE("one and two assembly threads write identical .mov files") {
    const Registry& reg = GlobalRegistry();
    const auto dir = std::filesystem::temp_directory_path() / "mbstep_threads_test";
    std::filesystem::create_directories(dir);
    std::string movs[2];
    for (int threads : {1, 2}) {
        Deck deck = ReadDeck(kDoublePendulum, reg);
        deck.settings.final_time = 0.5;
        RunOptions opt;
        opt.threads = threads;
        opt.progress = false;
        opt.output_prefix = (dir / ("t" + std::to_string(threads))).string();
        Run(deck, opt, reg);
        std::ifstream f(opt.output_prefix + ".mov");
        std::stringstream ss;
        ss << f.rdbuf();
        movs[threads - 1] = ss.str();
    }
    CHECK(movs[0].size() > 1000);
    CHECK(movs[0] == movs[1]);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a diverging Newton loop names time, step and worst equation") {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeck(kHeavyTop, reg);
    deck.settings.solver.max_iterations = 1;
    deck.settings.solver.residual_tolerance = 1e-300;
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    try {
        Run(deck, opt, reg);
        FAIL("the run should have stopped");
    } catch (const RunError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(msg.find("step 1") != std::string::npos);
        CHECK(msg.find("t = 0.001") != std::string::npos);
        CHECK((msg.find("structural node 1") != std::string::npos ||
               msg.find("joint 1") != std::string::npos));
    }
}
