// Andrews' squeezing mechanism (examples/andrews-squeezer): energy balance with the drive
// torque's work, the crank angle beta and its rate at t = 0.03 against the Test Set for IVP
// Solvers' reference solution (order 2), and the acceptance loop over methods with the
// constraint drift.
#include <doctest/doctest.h>

#include <cmath>

#include "support/deck_checks.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {
const std::string kDeck = SourcePath("examples/andrews-squeezer/deck.mbd");

// Test Set for IVP Solvers (Mazzia, Iavernaro, Magherini, Univ. Bari), problem `andrews',
// andrews.f rev. 1.2 (2006), subroutine andsoln (PSIDE, rtol = atol = 1e-14): y(1) = beta and
// y(8) = beta' at t = 0.03.
constexpr double kBetaRef = 15.81077119629904;
constexpr double kBetaRateRef = 1139.920302151208;
constexpr double kBeta0 = -0.0617138900142764496358948458001;
constexpr double kTorque = 33e-3;  // N m

// Crank angle beta, continued through full turns from the node's rotation about z.
struct CrankAngle {
    double beta{kBeta0};
    void Update(const FrameState& s) {
        const double a = std::atan2(s.R(1, 0), s.R(0, 0));
        beta += std::remainder(a - beta, 2.0 * M_PI);
    }
};

struct Result {
    double beta, beta_rate;
    DeckTrace trace;
};

Result RunSqueezer(const std::string& method, double h, double tf,
                   std::function<void(double, const Formulation&, double)> on_step = nullptr) {
    CrankAngle crank;
    Result r{};
    r.trace = TraceDeck(kDeck, method, h, tf, [&](double t, const Formulation& f) {
        crank.Update(f.node_states()[0]);
        if (on_step) on_step(t, f, crank.beta);
    });
    r.beta = crank.beta;
    r.beta_rate = r.trace.run.final_states[0].w.z();
    return r;
}
}  // namespace

TEST_CASE("andrews squeezer: energy balance E - E0 - T (beta - beta0) over 0.05 s") {
    // ms3, rho_inf 0.6, h = 1e-5 (the setting; 0.7 s). The spring and the inertia
    // exchange energy, the drive torque T adds T (beta - beta0); nothing dissipates but the
    // method's numerical damping. dE is measured relative to the largest kinetic energy
    // reached so far (the kinetic energy starts at 0). Measured: 4.5e-5 (at t = 0.0443),
    // 1.8e-4 at h = 2e-5, i.e. O(h^2); the bound 1e-4 leaves a factor 2.
    double e0 = 0.0, worst = 0.0, worst_t = 0.0, t_max = 0.0;
    bool first = true;
    const Result r =
        RunSqueezer("ms3, 0.6", 1e-5, 0.05, [&](double t, const Formulation& f, double beta) {
            const Invariants inv = f.ComputeInvariants();
            const double e = inv.kinetic + inv.potential;
            if (first) e0 = e - kTorque * (beta - kBeta0);
            first = false;
            t_max = std::max(t_max, inv.kinetic);
            const double de = e - e0 - kTorque * (beta - kBeta0);
            if (t_max > 0.0 && std::abs(de) / t_max > worst) {
                worst = std::abs(de) / t_max;
                worst_t = t;
            }
        });
    REQUIRE(r.trace.run.summary.completed);
    MESSAGE("largest |dE| / max kinetic energy so far: ", worst, " at t = ", worst_t);
    CHECK(worst < 1e-4);
}

TEST_CASE("andrews squeezer: beta and beta' at t = 0.03 converge with order 2 to the Test Set") {
    std::vector<double> eb, ew;
    for (double h : {4e-5, 2e-5, 1e-5}) {
        const Result r = RunSqueezer("ms3, 0.6", h, 0.03);
        REQUIRE(r.trace.run.summary.completed);
        eb.push_back(std::abs(r.beta - kBetaRef));
        ew.push_back(std::abs(r.beta_rate - kBetaRateRef));
    }
    // Measured: beta errors 8.5e-4, 2.1e-4, 5.4e-5 rad and beta' errors 0.32, 0.081, 0.020
    // rad/s (orders 1.99-2.00); the reference is good to ~1e-12, so the errors are the
    // method's. Order 2 +-0.2 on the finest pair (STYLE.md section 8), plus the error at
    // h = 1e-5 below 1e-4 rad and 0.04 rad/s (a factor 2 over the measured values).
    CHECK(eb.back() < 1e-4);
    CHECK(ew.back() < 0.04);
    const auto pb = Orders(eb), pw = Orders(ew);
    MESSAGE("beta errors ", Join(eb), "orders ", Join(pb));
    MESSAGE("beta' errors ", Join(ew), "orders ", Join(pw));
    CHECK(std::abs(pb.back() - 2.0) <= 0.2);
    CHECK(std::abs(pw.back() - 2.0) <= 0.2);
}

TEST_CASE("andrews squeezer runs with every deck method; constraint drift at Newton level") {
    for (const std::string& m : DeckMethods()) {
        INFO(m);
        const Result r = RunSqueezer(m, 1e-5, 0.03);
        CHECK(r.trace.run.summary.completed);
        MESSAGE(m, ": beta error ", r.beta - kBetaRef, ", beta' error ", r.beta_rate - kBetaRateRef,
                ", max drift ", PartMax(r.trace.drift, 0, 1));
        // Measured beta errors at h = 1e-5: ms 6.1e-5, ms3 5.4e-5, Bathe 4.6e-5 rad (all
        // second order); 1e-4 rad leaves a factor 1.6 for ms.
        CHECK(std::abs(r.beta - kBetaRef) < 1e-4);
        // The constraint rows of the Newton residual are phi / (b0 h) with b0 < 1, so the
        // deck's tolerance 1e-10 means |phi| < 1e-10 h = 1e-15 m at convergence; measured
        // 1.4e-17 m (round-off of 0.1 m coordinates) for all three methods. Floor of the
        // growth check: 1e-16 m.
        CheckDrift(r.trace, 1e-10 * 1e-5, 1e-16);
    }
}
