// Initial joint assembly (model/initial_assembly.hpp), MBDyn's default before the first step:
// a consistent deck is left exactly as read; an inconsistent position is corrected to the
// Newton tolerance with the least (penalty-weighted) change; inconsistent velocities are
// projected onto the velocity constraints; `skip initial joint assembly` keeps the deck's
// state; a deck that cannot be assembled in the allowed iterations stops naming the worst
// constraint; `abort after: input | assembly` stop there.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

using namespace mbstep;

namespace {

// The heavy top (examples/heavy-top) with its node moved by `dx` along x, control data lines
// `control`, and `tf` final time.
std::string HeavyTop(double dx, const std::string& control, double tf = 0.01,
                     const std::string& initial = "") {
    std::ostringstream os;
    os.precision(17);
    os << "begin: data; problem: initial value; end: data;\n"
       << "begin: initial value; initial time: 0.; final time: " << tf
       << "; time step: 1e-3; method: ms, 0.6; tolerance: 1e-8; max iterations: 20;\n"
       << initial << "end: initial value;\n"
       << "begin: control data; structural nodes: 1; rigid bodies: 1; joints: 1; gravity;\n"
       << control << "end: control data;\n"
       << "begin: nodes;\nstructural: 1, dynamic, " << dx
       << ", 1., 0., eye, 4.61538, 0., 0., 0., 150., -4.61538;\nend: nodes;\n"
       << "begin: elements;\nbody: 1, 1, 15., null, diag, 0.234375, 0.46875, 0.234375;\n"
       << "joint: 1, spherical pin, 1, position, 0., -1., 0., position, null;\n"
       << "gravity: uniform, 0., 0., -1., const, 9.81;\nend: elements;\n";
    return os.str();
}

RunSummary RunDeckText(Deck& deck, const std::string& prefix = "") {
    RunOptions opt;
    opt.write_output = !prefix.empty();
    opt.output_prefix = prefix;
    opt.progress = false;
    return Run(deck, opt, GlobalRegistry());
}

// The spherical pin's position error |x + R (0, -1, 0)|.
double PinError(const FrameState& s) { return (s.x + s.R * Vec3(0.0, -1.0, 0.0)).norm(); }

}  // namespace

TEST_CASE("initial assembly leaves a consistent deck exactly as read") {
    Deck deck = ReadDeckText(HeavyTop(0.0, ""), "top.mbd", GlobalRegistry());
    const FrameState before = deck.model.nodes()[0].initial;
    const RunSummary s = RunDeckText(deck);
    const FrameState& after = deck.model.nodes()[0].initial;
    CHECK(after.x == before.x);
    CHECK(after.R == before.R);
    CHECK(after.v == before.v);
    CHECK(after.w == before.w);
    CHECK_FALSE(s.assembly_moved);
    CHECK(s.assembly.find("consistent (nothing moved)") != std::string::npos);
}

TEST_CASE("initial assembly corrects a node moved off its joint") {
    // 0.05 m off the pin: Newton needs a few iterations (the arm rotates), beyond MBDyn's
    // default of one, so the deck raises `max iterations` as an MBDyn deck would.
    Deck deck = ReadDeckText(HeavyTop(0.05, "max iterations: 10;\n"), "top.mbd", GlobalRegistry());
    REQUIRE(PinError(deck.model.nodes()[0].initial) == doctest::Approx(0.05));
    const RunSummary s = RunDeckText(deck);
    const FrameState& a = deck.model.nodes()[0].initial;
    INFO(s.assembly);
    CHECK(s.assembly_moved);
    CHECK(PinError(a) <= 1e-6);
    // Least change with equal penalties on position and orientation: the 0.05 m are shared by
    // the translation back and a rotation of the arm (|arm| = 1 m), both nearly 0.025.
    const double back = 0.05 - a.x.x();
    const double turn = LogSO3(a.R).norm();
    CHECK(back == doctest::Approx(0.025).epsilon(0.02));
    CHECK(turn == doctest::Approx(0.025).epsilon(0.02));
    // The velocities satisfy the pin's velocity constraint at the new pose: v + w x (R a) = 0.
    CHECK((a.v + a.w.cross(a.R * Vec3(0.0, -1.0, 0.0))).norm() <= 1e-9);
    CHECK(s.completed);
}

TEST_CASE("initial assembly stops naming the worst constraint when it cannot converge") {
    Deck deck = ReadDeckText(HeavyTop(0.05, ""), "top.mbd", GlobalRegistry());  // max: one
    CHECK_THROWS_WITH_AS(RunDeckText(deck),
                         doctest::Contains("worst constraint: joint 1 (spherical pin)"), RunError);
}

TEST_CASE("skip initial joint assembly keeps the deck's state") {
    Deck deck =
        ReadDeckText(HeavyTop(0.05, "skip initial joint assembly;\n"), "top.mbd", GlobalRegistry());
    const FrameState before = deck.model.nodes()[0].initial;
    const RunSummary s = RunDeckText(deck);
    CHECK(deck.model.nodes()[0].initial.x == before.x);
    CHECK(s.assembly.find("skipped") != std::string::npos);
}

TEST_CASE("initial assembly projects inconsistent velocities onto the constraints") {
    // Two links in a chain (pin at the origin, hinge between them), the first spinning about z
    // at 2 rad/s, the second given no velocity: the hinge point must move with both.
    const char* deck_text = R"(
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3; method: ms, 0.6;
    tolerance: 1e-9; end: initial value;
begin: control data; structural nodes: 2; rigid bodies: 2; joints: 2; end: control data;
begin: nodes;
structural: 1, dynamic, 1., 0., 0., eye, 0., 2., 0., 0., 0., 2.;
structural: 2, dynamic, 3., 0., 0., eye, null, null;
end: nodes;
begin: elements;
body: 1, 1, 1., null, diag, 0.1, 0.1, 0.1;
body: 2, 2, 1., null, diag, 0.1, 0.1, 0.1;
joint: 1, revolute pin, 1, position, -1., 0., 0., orientation, eye, position, null, orientation, eye;
joint: 2, revolute hinge, 1, position, 1., 0., 0., orientation, eye,
    2, position, -1., 0., 0., orientation, eye;
end: elements;
)";
    Deck deck = ReadDeckText(deck_text, "links.mbd", GlobalRegistry());
    const RunSummary s = RunDeckText(deck);
    INFO(s.assembly);
    const FrameState& n1 = deck.model.nodes()[0].initial;
    const FrameState& n2 = deck.model.nodes()[1].initial;
    // Hinge point velocity from both sides.
    const Vec3 p1 = n1.v + n1.w.cross(n1.R * Vec3(1.0, 0.0, 0.0));
    const Vec3 p2 = n2.v + n2.w.cross(n2.R * Vec3(-1.0, 0.0, 0.0));
    CHECK((p1 - p2).norm() <= 1e-9);
    // Pin point of link 1 at rest; the relative rotation axis stays z.
    CHECK((n1.v + n1.w.cross(n1.R * Vec3(-1.0, 0.0, 0.0))).norm() <= 1e-9);
    CHECK(std::abs(n1.w.x()) + std::abs(n1.w.y()) <= 1e-9);
    CHECK(std::abs(n2.w.x()) + std::abs(n2.w.y()) <= 1e-9);
    CHECK(s.assembly_moved);
    // Positions were consistent: unchanged.
    CHECK(n1.x == Vec3(1., 0., 0.));
    CHECK(n2.x == Vec3(3., 0., 0.));
}

TEST_CASE("abort after: input | assembly stop there; -o creates the output folder") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "mbstep_abort_after" / "new";
    fs::remove_all(dir.parent_path());
    {
        Deck deck = ReadDeckText(HeavyTop(0.0, "", 1.0, "abort after: input;\n"), "top.mbd",
                                 GlobalRegistry());
        const RunSummary s = RunDeckText(deck, (dir / "input").string());
        CHECK_FALSE(s.completed);
        CHECK(s.steps == 0);
        CHECK(fs::exists(dir / "input.log"));
        CHECK_FALSE(fs::exists(dir / "input.mov"));
    }
    {
        Deck deck =
            ReadDeckText(HeavyTop(0.05, "max iterations: 10;\n", 1.0, "abort after: assembly;\n"),
                         "top.mbd", GlobalRegistry());
        const RunSummary s = RunDeckText(deck, (dir / "assembly").string());
        CHECK_FALSE(s.completed);
        CHECK(s.steps == 0);
        // The .mov holds the assembled state at t0: x = 0.05 - 0.025 (see above).
        std::ifstream mov(dir / "assembly.mov");
        int label = 0;
        double x = 0.0;
        mov >> label >> x;
        CHECK(label == 1);
        CHECK(x == doctest::Approx(0.025).epsilon(0.02));
        std::ifstream log(dir / "assembly.log");
        const std::string text((std::istreambuf_iterator<char>(log)), {});
        CHECK(text.find("initial joint assembly:") != std::string::npos);
        CHECK(text.find("abort after: assembly") != std::string::npos);
    }
}
