// Cross-formulation agreement: the same decks under `cgr` (ms, 0.6), `euler
// parameters` (hht, -0.1), `lie group` (generalized alpha, 0.9) and `euler angles` (generalized
// alpha, 0.9) at h = 1e-4, CoM positions at t = 1 within 1e-5 of each other.
//
// - Spherical pendulum (examples/pendulum/pendulum.mbd): the deck runs unchanged under all four.
// - Double pendulum (examples/double-pendulum/): the deck's node frames put the local z axis on
//   the hinge axis, global x, i.e. exactly at the Cardan xyz singularity (theta2 = pi/2): under
//   `euler angles` it stops at t = 0 with the singularity message (tested). `euler angles` runs
//   double-pendulum-global-frames.mbd, the same model with identity node frames (bit-identical
//   under cgr, tested).
// - Heavy top (examples/heavy-top/heavy-top.mbd): the 1e-5 agreement at h = 1e-4 is NOT met
//   and cannot be by these methods: on the second-order form (euler parameters, lie group,
//   euler angles) every Newmark-type method has an error constant ~5e-5 at h = 1e-4 on this
//   fast spin (lie group, t = 0.5: generalized alpha rho_inf 1 5.3e-5, 0.9 5.4e-5, 0.6 6.2e-5;
//   hht arnold bruls 5.9e-5), while cgr integrates the spatial angular momentum, which gravity
//   changes slowly (ms 0.6 2.3e-7, crank nicolson 1.9e-7). What is tested instead: every
//   formulation converges to the same solution (Richardson-extrapolated runs within 1e-6).
#include <doctest/doctest.h>

#include <map>

#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {
struct Pair {
    const char* formulation;
    const char* method;
};
constexpr Pair kPairs[] = {{"cgr", "ms, 0.6"},
                           {"euler parameters", "hht, -0.1"},
                           {"lie group", "generalized alpha, 0.9"},
                           {"euler angles", "generalized alpha, 0.9"}};

// CoM positions (= node positions: every deck puts its nodes at the centres of mass) at tf.
std::vector<Vec3> RunCoM(const std::string& deck_rel, const std::string& formulation,
                         const std::string& method, double h, double tf) {
    test::RunOverrides over;
    over.formulation = formulation;
    const test::RunResult r =
        test::RunDeck(test::SourcePath(deck_rel), method, h, tf, nullptr, over);
    REQUIRE(r.summary.completed);
    REQUIRE(r.summary.formulation == formulation);
    std::vector<Vec3> x;
    for (const FrameState& s : r.final_states) x.push_back(s.x);
    return x;
}

double Distance(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
    REQUIRE(a.size() == b.size());
    double d = 0.0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).norm());
    return d;
}

// Largest pairwise distance of the four runs.
void CheckAgreement(const std::map<std::string, std::vector<Vec3>>& x, double tol) {
    for (const auto& [na, xa] : x)
        for (const auto& [nb, xb] : x) {
            if (na >= nb) continue;
            const double d = Distance(xa, xb);
            MESSAGE(na, " vs ", nb, ": ", d);
            CHECK(d <= tol);
        }
}
}  // namespace

TEST_CASE("cross-formulation: spherical pendulum, four formulations agree at t = 1") {
    // Measured (h = 1e-4): largest pairwise distance 4.4e-9 (euler parameters/hht vs the rest).
    std::map<std::string, std::vector<Vec3>> x;
    for (const Pair& p : kPairs)
        x[p.formulation] =
            RunCoM("examples/pendulum/pendulum.mbd", p.formulation, p.method, 1e-4, 1.0);
    CheckAgreement(x, 1e-5);
}

TEST_CASE("cross-formulation: double pendulum, four formulations agree at t = 1") {
    const std::string deck = "examples/double-pendulum/double-pendulum.mbd";
    const std::string global = "examples/double-pendulum/double-pendulum-global-frames.mbd";
    // The original deck starts at the Cardan singularity.
    std::string message;
    try {
        RunCoM(deck, "euler angles", "generalized alpha, 0.9", 1e-4, 1.0);
    } catch (const RunError& e) {
        message = e.what();
    }
    CHECK(message.find("structural node 1") != std::string::npos);
    CHECK(message.find("singularity") != std::string::npos);
    // The global-frame variant is the same model.
    CHECK(Distance(RunCoM(deck, "cgr", "ms, 0.6", 1e-4, 1.0),
                   RunCoM(global, "cgr", "ms, 0.6", 1e-4, 1.0)) <= 1e-12);
    // Measured (h = 1e-4): cgr, lie group and euler angles within 1.6e-8; euler parameters (hht)
    // 1.5e-6 ... 3.6e-6 from the others (hht was being changed while this was written).
    std::map<std::string, std::vector<Vec3>> x;
    for (const Pair& p : kPairs)
        x[p.formulation] = RunCoM(std::string(p.formulation) == "euler angles" ? global : deck,
                                  p.formulation, p.method, 1e-4, 1.0);
    CheckAgreement(x, 1e-5);
}

namespace {
// Reference for the heavy top: cgr `ms, 0.6` Richardson-extrapolated from h = 5e-5 and 2.5e-5
// (agrees with lie group extrapolated from 1e-5 and 5e-6 to ~1e-8).
Vec3 HeavyTopReference() {
    const Vec3 a = RunCoM("examples/heavy-top/heavy-top.mbd", "cgr", "ms, 0.6", 5e-5, 1.0)[0];
    const Vec3 b = RunCoM("examples/heavy-top/heavy-top.mbd", "cgr", "ms, 0.6", 2.5e-5, 1.0)[0];
    return (4.0 * b - a) / 3.0;
}
}  // namespace

TEST_CASE("cross-formulation: heavy top, errors at t = 1 are method errors") {
    // What holds on the heavy top (spin 150 rad/s): every formulation converges to the same
    // solution; at h = 1e-4 only cgr `ms, 0.6` is within 1e-5 of it. Measured errors at t = 1,
    // h = 1e-4, against the reference: cgr 3.9e-7, lie group 7.3e-5 (its error constant on the
    // fast spin), euler parameters with hht -0.1 4.7e-2 ... 6.4e-2 (hht is first order with a
    // configuration-dependent mass matrix, euler_angles_heavy_top_test.cpp), euler angles: Newton
    // fails at t = 0.919 (theta2 passes within 0.022 rad of pi/2 at t = 0.918; the residual's
    // round-off near the singularity exceeds the 1e-8 tolerance); at h = 5e-5, 2.5e-5, 1.25e-5
    // it runs, errors 1.4e-4, 3.7e-5, 9.4e-6 (order 2).
    const std::string deck = "examples/heavy-top/heavy-top.mbd";
    const Vec3 ref = HeavyTopReference();
    const double e_cgr = (RunCoM(deck, "cgr", "ms, 0.6", 1e-4, 1.0)[0] - ref).norm();
    MESSAGE("cgr ms 0.6, h = 1e-4: error ", e_cgr);
    CHECK(e_cgr <= 1e-5);
    // lie group: the Richardson-extrapolated solution (1e-4, 5e-5) is within 1e-6 of the
    // reference, so its 7.3e-5 is the second-order method error.
    const Vec3 lg1 = RunCoM(deck, "lie group", "generalized alpha, 0.9", 1e-4, 1.0)[0];
    const Vec3 lg2 = RunCoM(deck, "lie group", "generalized alpha, 0.9", 5e-5, 1.0)[0];
    MESSAGE("lie group, h = 1e-4: error ", (lg1 - ref).norm(), ", extrapolated ",
            ((4.0 * lg2 - lg1) / 3.0 - ref).norm());
    CHECK(((4.0 * lg2 - lg1) / 3.0 - ref).norm() <= 1e-6);
    // euler parameters: hht in the Arnold-Brüls form (second order), extrapolated.
    const Vec3 ep1 = RunCoM(deck, "euler parameters", "hht, -0.1, arnold bruls", 1e-4, 1.0)[0];
    const Vec3 ep2 = RunCoM(deck, "euler parameters", "hht, -0.1, arnold bruls", 5e-5, 1.0)[0];
    MESSAGE("euler parameters, hht -0.1 arnold bruls, h = 1e-4: error ", (ep1 - ref).norm(),
            ", extrapolated ", ((4.0 * ep2 - ep1) / 3.0 - ref).norm());
    CHECK(((4.0 * ep2 - ep1) / 3.0 - ref).norm() <= 1e-6);
    // euler angles: extrapolated from 2.5e-5 and 1.25e-5 (measured 1.3e-7).
    const Vec3 ea1 = RunCoM(deck, "euler angles", "generalized alpha, 0.9", 2.5e-5, 1.0)[0];
    const Vec3 ea2 = RunCoM(deck, "euler angles", "generalized alpha, 0.9", 1.25e-5, 1.0)[0];
    MESSAGE("euler angles, h = 2.5e-5: error ", (ea1 - ref).norm(),
            ", 1.25e-5: ", (ea2 - ref).norm(), ", extrapolated ",
            ((4.0 * ea2 - ea1) / 3.0 - ref).norm());
    CHECK(((4.0 * ea2 - ea1) / 3.0 - ref).norm() <= 1e-6);
}

TEST_CASE("euler parameters: centre of mass off the node (heavy top about its tip)") {
    // examples/heavy-top-precession/tip-node.mbd: the node at the fixed tip, the CoM offset by
    // L along the body axis: the coupling terms (6)-(7) of the euler parameters formulation.
    // CoM x + R (0, 0, L) at t = 0.1 against the exact steady precession (Kinon & Betsch,
    // Multibody Syst Dyn (2024), doi:10.1007/s11044-024-10001-9, section 5.4), with cgr (which
    // has always carried offsets) beside it.
    const double L = 0.075, th = M_PI / 3.0, t = 0.1;
    const Vec3 exact = L * Vec3(std::sin(th) * std::sin(10.0 * t),
                                -std::sin(th) * std::cos(10.0 * t), std::cos(th));
    auto com_error = [&](const char* formulation, const char* method, double h) {
        test::RunOverrides over;
        over.formulation = formulation;
        over.tolerance = 1e-10;  // the deck's 1e-12 is for eml
        Vec3 com = Vec3::Zero();
        const test::RunResult r = test::RunDeck(
            test::SourcePath("examples/heavy-top-precession/tip-node.mbd"), method, h, t,
            [&](double, const Formulation& f) {
                const FrameState& s = f.node_states()[0];
                com = s.x + s.R * Vec3(0.0, 0.0, L);
            },
            over);
        REQUIRE(r.summary.completed);
        REQUIRE(r.summary.formulation == formulation);
        return (com - exact).norm();
    };
    for (const Pair& p :
         {Pair{"euler parameters", "generalized alpha, 0.9"},
          Pair{"euler parameters", "hht, -0.1, arnold bruls"}, Pair{"cgr", "ms, 0.6"}}) {
        std::vector<double> e;
        for (double h : {4e-4, 2e-4, 1e-4}) e.push_back(com_error(p.formulation, p.method, h));
        const std::vector<double> o = test::Orders(e);
        MESSAGE(std::string(p.formulation) << " / " << std::string(p.method) << ": CoM errors "
                                           << test::Join(e) << ", orders " << test::Join(o));
        CHECK(e[2] < 1e-4);
        CHECK(o[1] == doctest::Approx(2.0).epsilon(0.1));
    }
}
