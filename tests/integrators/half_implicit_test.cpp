// `half implicit` (plugins/half_implicit/): the half-implicit symplectic Euler of Fang, Kissel,
// Zhang and Negrut (2023) on the paper's decks (../shared/reference/half-implicit.md):
// first-order convergence on the slider-crank and four-link against their exact kinematic
// solutions and on the double pendulum against the independent planar reference; bounded
// energy error over 8 s (implicit euler drains it); the constraints hold at the Newton
// tolerance after every step; refusal of bodies that are not in central principal frames.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {
const std::string kMethod = "half implicit";

struct Errors {
    double velocity{0.0}, drift{0.0};
    bool completed{false};
};

// Slider-crank: crank pin B(t), slider (x, 0, 0) with |C - B| = 0.3 (slider_crank_test.cpp).
void SliderCrankExact(double t, Vec3& rod_v, Vec3& slider_v) {
    const double w = 2.0 * M_PI;
    const Vec3 b(0.0, 0.1 + 0.08 * std::sin(w * t), 0.12 + 0.08 * std::cos(w * t));
    const Vec3 bd(0.0, 0.08 * w * std::cos(w * t), -0.08 * w * std::sin(w * t));
    const double x = std::sqrt(0.09 - b.y() * b.y() - b.z() * b.z());
    const double xd = -(b.y() * bd.y() + b.z() * bd.z()) / x;
    slider_v = Vec3(xd, 0.0, 0.0);
    rod_v = 0.5 * (bd + slider_v);
}

// Four-link: crank pin B(t) = (0, -2 sin pi t, 2 cos pi t), rocker tip C = D + 7.4 (-cos b, 0,
// sin b) with |C - B| = 12.2 (four_link_test.cpp); velocities of the coupler and the rocker.
void FourLinkExact(double t, double& b, Vec3& coupler_v, Vec3& rocker_v) {
    const double w = M_PI;
    const Vec3 d(-4.0, -8.5, 0.0);
    const Vec3 pb(0.0, -2.0 * std::sin(w * t), 2.0 * std::cos(w * t));
    const Vec3 pbd(0.0, -2.0 * w * std::cos(w * t), -2.0 * w * std::sin(w * t));
    auto tip = [&](double a) { return Vec3(d + 7.4 * Vec3(-std::cos(a), 0.0, std::sin(a))); };
    auto dtip = [&](double a) { return Vec3(7.4 * Vec3(std::sin(a), 0.0, std::cos(a))); };
    for (int k = 0; k < 50; ++k) {
        const Vec3 r = tip(b) - pb;
        b -= (r.squaredNorm() - 12.2 * 12.2) / (2.0 * r.dot(dtip(b)));
    }
    const Vec3 r = tip(b) - pb;
    const Vec3 cd = dtip(b) * (r.dot(pbd) / r.dot(dtip(b)));
    coupler_v = 0.5 * (pbd + cd);
    rocker_v = 0.5 * cd;
}

// Largest velocity error over the run (nodes 2 and 3 of the deck) and largest constraint
// residual after any step.
Errors RunClosedLoop(const std::string& deck, double h, double tf, bool four_link) {
    Errors e;
    double b = 1.0795;
    const RunResult r = RunDeck(deck, kMethod, h, tf, [&](double t, const Formulation& f) {
        const auto& s = f.node_states();
        Vec3 v1, v2;
        if (four_link)
            FourLinkExact(t, b, v1, v2);
        else
            SliderCrankExact(t, v1, v2);
        e.velocity = std::max({e.velocity, (s[1].v - v1).norm(), (s[2].v - v2).norm()});
        e.drift = std::max(e.drift, f.ComputeInvariants().constraint_violation);
    });
    e.completed = r.summary.completed;
    return e;
}
}  // namespace

TEST_CASE("half implicit: first order on the slider-crank and four-link exact kinematics" *
          doctest::description("order")) {
    struct Case {
        std::string deck;
        double tf;
        bool four_link;
    };
    for (const Case& c : {Case{"examples/slider-crank/deck.mbd", 1.0, false},
                          Case{"examples/four-link/deck.mbd", 2.0, true}}) {
        INFO(c.deck);
        std::vector<double> ev;
        for (double h : {4e-3, 2e-3, 1e-3}) {
            const Errors e = RunClosedLoop(SourcePath(c.deck), h, c.tf, c.four_link);
            REQUIRE(e.completed);
            MESSAGE(c.deck, " h = ", h, ": velocity error ", e.velocity, ", constraint residual ",
                    e.drift);
            // The decks' Newton tolerance is 1e-10 on max |phi| (unscaled, m): every step ends
            // below it.
            CHECK(e.drift <= 1e-10);
            ev.push_back(e.velocity);
        }
        const auto p = Orders(ev);
        MESSAGE(c.deck, ": velocity errors ", Join(ev), " orders ", Join(p));
        for (double o : p) CHECK(std::abs(o - 1.0) <= 0.2);
    }
}

TEST_CASE("half implicit: first order on the double pendulum (planar reference)" *
          doctest::description("order")) {
    const std::string deck = SourcePath("examples/double-pendulum/double-pendulum.mbd");
    // ../shared/reference/half-implicit.md, table (a) (DOP853, 1e-10): CoM (y, z) at t = 1.
    const Vec3 c1(0.0, 0.16807258586696044, -1.992925388939584);
    const Vec3 c2(0.0, 1.3129965652368978, -4.19976981632898);
    std::vector<double> err;
    for (double h : {2e-3, 1e-3, 5e-4}) {
        double drift = 0.0;
        const RunResult r = RunDeck(deck, kMethod, h, 1.0, [&](double, const Formulation& f) {
            drift = std::max(drift, f.ComputeInvariants().constraint_violation);
        });
        REQUIRE(r.summary.completed);
        const auto& s = r.final_states;
        err.push_back(std::max((s[0].x - c1).norm(), (s[1].x - c2).norm()));
        MESSAGE("double pendulum h = ", h, ": CoM error at t = 1 ", err.back(),
                ", constraint residual ", drift);
        CHECK(drift <= 1e-8);  // the deck's tolerance
    }
    const auto p = Orders(err);
    MESSAGE("double pendulum: orders ", Join(p));
    for (double o : p) CHECK(std::abs(o - 1.0) <= 0.2);
}

TEST_CASE(
    "half implicit: bounded energy error over 8 s on the double pendulum; implicit euler "
    "drains it") {
    const std::string deck = SourcePath("examples/double-pendulum/double-pendulum.mbd");
    struct Energy {
        double e0{0.0}, max_dev{0.0}, first_mean{0.0}, last_mean{0.0}, final_dev{0.0};
        double prev{0.0}, max_rise{0.0};
        int n_first{0}, n_last{0};
        bool started{false};
    };
    auto run = [&](const std::string& method) {
        Energy en;
        const RunResult r = RunDeck(deck, method, 1e-3, 8.0, [&](double t, const Formulation& f) {
            const Invariants inv = f.ComputeInvariants();
            const double e = inv.kinetic + inv.potential;
            if (!en.started) {  // the callback at t0: the deck's state, bars at rest
                en.started = true;
                en.e0 = en.prev = e;
                return;
            }
            const double dev = e - en.e0;
            en.max_dev = std::max(en.max_dev, std::abs(dev));
            en.max_rise = std::max(en.max_rise, e - en.prev);
            en.prev = e;
            if (t <= 1.0) {
                en.first_mean += dev;
                ++en.n_first;
            } else if (t > 7.0) {
                en.last_mean += dev;
                ++en.n_last;
            }
            en.final_dev = dev;
        });
        REQUIRE(r.summary.completed);
        en.first_mean /= en.n_first;
        en.last_mean /= en.n_last;
        return en;
    };
    const Energy hi = run(kMethod);
    const Energy ie = run("implicit euler");
    MESSAGE("E0 = ", hi.e0, " J; half implicit: max |E - E0| ", hi.max_dev,
            ", mean E - E0 over the first second ", hi.first_mean, ", over the last second ",
            hi.last_mean);
    MESSAGE("implicit euler (cgr): max |E - E0| ", ie.max_dev, ", mean E - E0 first second ",
            ie.first_mean, ", last second ", ie.last_mean, ", at 8 s ", ie.final_dev,
            ", largest rise in one step ", ie.max_rise);
    CHECK(hi.e0 == doctest::Approx(ie.e0).epsilon(1e-12));
    // Measured (h = 1e-3): half implicit max |E - E0| = 2.45 J (0.64 % of |E0| = 382.6 J), mean
    // deviation -1.37 J over the first second and -1.29 J over the last: an O(h) oscillation,
    // no secular trend. implicit euler: -7.3 J, -211.8 J, -227.5 J at 8 s, never rising.
    CHECK(hi.max_dev < 3.0);
    CHECK(std::abs(hi.last_mean - hi.first_mean) < 0.1 * hi.max_dev);
    CHECK(ie.final_dev < -50.0 * hi.max_dev);
    CHECK(ie.last_mean < 20.0 * ie.first_mean);    // both negative: 29x more drained
    CHECK(ie.max_rise <= 1e-9 * std::abs(ie.e0));  // monotone decay
}

TEST_CASE("half implicit: refuses bodies off their node or with a non-diagonal inertia") {
    std::ifstream in(SourcePath("examples/pendulum/pendulum.mbd"));
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::string body = "body: 1, 1, M, null, diag, JB, JB, JB;";
    REQUIRE(text.find(body) != std::string::npos);
    auto attempt = [&](const std::string& replacement) {
        std::string t = text;
        t.replace(t.find(body), body.size(), replacement);
        Deck deck = ReadDeckText(t, "pendulum-variant.mbd", GlobalRegistry());
        deck.integrator = MakeIntegrator(kMethod, GlobalRegistry(), &deck.method_name);
        deck.settings.final_time = 0.01;
        RunOptions opt;
        opt.write_output = false;
        opt.progress = false;
        std::string message;
        try {
            const RunSummary sum = Run(deck, opt, GlobalRegistry());
            message = sum.completed ? "" : sum.failure;
        } catch (const std::exception& e) {
            message = e.what();
        }
        return message;
    };
    // The deck as it is (sphere at its node) runs.
    CHECK(attempt(body) == "");
    const std::string off = attempt("body: 7, 1, M, 0., 0., 0.1, diag, JB, JB, JB;");
    MESSAGE(off);
    CHECK(off.find("body 7") != std::string::npos);
    CHECK(off.find("centre of mass") != std::string::npos);
    const std::string sym = attempt("body: 8, 1, M, null, sym, JB, 1e-4, 0., JB, 0., JB;");
    MESSAGE(sym);
    CHECK(sym.find("body 8") != std::string::npos);
    CHECK(sym.find("not diagonal") != std::string::npos);
}
