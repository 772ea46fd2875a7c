// mbstep tests — reaction forces of every joint family in static equilibrium: a body
// held by the joint under gravity (or a constant couple), run a few steps with `ms`, whose
// reactions are known in closed form. The .jnt line (WriteReaction: the load MBDyn's
// multipliers stand for, per joint: on node 1, on node 2, or on the ground for the pins; the
// joints' headers) and, where the closed form names it, the multiplier are checked.
//
// Data: m = 2 kg, g = 9.81 m/s^2 along -z, centre-of-mass offset a = 0.3 m along node x,
// couple C = 1.7 N m. Tolerance 1e-8 relative to m g: the decks start at equilibrium, so the
// states stay put to the Newton tolerance (1e-12) and the reactions are exact up to it.
#include <doctest/doctest.h>

#include <regex>
#include <sstream>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

using namespace mbstep;

namespace {

constexpr double kM = 2.0, kG = 9.81, kA = 0.3, kC = 1.7;
constexpr double kTol = 1e-8 * kM * kG;

struct Reaction {
    Vec3 F_local, M_local, F, M;
};

struct Result {
    std::map<int, Reaction> jnt;                // by joint label, last step
    std::map<int, std::vector<double>> lambda;  // by joint label, last step
    std::vector<FrameState> states;
};

int Count(const std::string& text, const char* statement) {
    const std::regex re(std::string("(^|[;\\s])") + statement + "\\s*:");
    return static_cast<int>(
        std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// Runs 5 steps of `ms, 0.6` (h = 1e-3) on the given nodes and elements.
Result RunStatic(const std::string& nodes, const std::string& elements) {
    std::ostringstream deck;
    deck << "begin: data; problem: initial value; end: data;\n"
         << "begin: initial value; initial time: 0.; final time: 5.e-3; time step: 1.e-3;\n"
         << "method: ms, 0.6; tolerance: 1.e-12; max iterations: 20; end: initial value;\n"
         << "begin: control data; structural nodes: " << Count(nodes, "structural")
         << "; rigid bodies: " << Count(elements, "body")
         << "; joints: " << Count(elements, "joint")
         << "; forces: " << Count(elements, "force") + Count(elements, "couple") << ";"
         << (Count(elements, "gravity") ? " gravity;" : "")
         // The decks start in static equilibrium with the weight; the initial joint assembly
         // (which uses the joints' and springs' forces but not the weight) would relax the
         // springs.
         << "\nskip initial joint assembly;\nend: control data;\n"
         << "set: real M = " << kM << "; set: real A = " << kA << "; set: real C = " << kC << ";\n"
         << "begin: nodes;\n"
         << nodes << "\nend: nodes;\nbegin: elements;\n"
         << elements << "\nend: elements;\n";
    const Registry& reg = GlobalRegistry();
    Deck d = ReadDeckText(deck.str(), "reaction.mbd", reg);
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    Result res;
    opt.on_step = [&](double t, const Formulation& f) {
        res.states = f.node_states();
        const auto& elems = d.model.elements();
        for (size_t e = 0; e < elems.size(); ++e) {
            const ElementOutput* out = elems[e]->output();
            if (!out || !out->HasReactionOutput() || std::string(out->output_extension()) != "jnt")
                continue;  // the couples' .frc lines
            std::vector<const FrameState*> ptr;
            for (int k : elems[e]->nodes()) ptr.push_back(&res.states[k]);
            ElementContext ctx{t, ptr.data(), f.multipliers(static_cast<int>(e)), Vec3::Zero()};
            std::ostringstream os;
            os.precision(17);
            out->WriteReaction(os, ctx);
            std::istringstream is(os.str());
            int label = 0;
            Reaction r;
            is >> label;
            for (Vec3* v : {&r.F_local, &r.M_local, &r.F, &r.M})
                is >> (*v)[0] >> (*v)[1] >> (*v)[2];
            res.jnt[label] = r;
            const int m = elems[e]->num_multipliers();
            res.lambda[label].assign(ctx.lambda, ctx.lambda + m);
        }
    };
    const RunSummary s = Run(d, opt, reg);
    REQUIRE(s.completed);
    return res;
}

// A ground node (static, clamped) and the body node 2 at x2 with the body's CM at node x + a.
const char* kGround = "structural: 1, static, null, eye, null, null;\n";
std::string BodyNode(const std::string& x) {
    return "structural: 2, dynamic, " + x + ", eye, null, null;\n";
}
const char* kBody = "body: 2, 2, M, A, 0., 0., diag, 0.1, 0.2, 0.3;\n";
const char* kBodyCentred = "body: 2, 2, M, null, diag, 0.1, 0.2, 0.3;\n";
const char* kClamp = "joint: 99, clamp, 1, node, node;\n";
const char* kGravity = "gravity: uniform, 0., 0., -1., 9.81;\n";

void CheckVec(const Vec3& got, const Vec3& want) {
    INFO("got ", got.transpose(), ", want ", want.transpose());
    CHECK((got - want).norm() < kTol);
}

}  // namespace

TEST_CASE("total pin joint: all six components hold a body, F = -m g, M = a x m g") {
    // MBDyn's TotalPinJoint writes minus the load on its node: the load on the ground.
    const Result r = RunStatic(BodyNode("null"),
                               std::string(kBody) + kGravity +
                                   "joint: 1, total pin joint, 2, position, null, position, null, "
                                   "position constraint, 1, 1, 1, null, "
                                   "orientation constraint, 1, 1, 1, null;");
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, -kM * kG));
    CheckVec(r.jnt.at(1).M, Vec3(0, kA * kM * kG, 0));
    CheckVec(r.states[0].x, Vec3::Zero());
}

TEST_CASE("total joint to a clamped node: the reaction on node 1 is minus that on the body") {
    const Result r = RunStatic(std::string(kGround) + BodyNode("null"),
                               std::string(kBody) + kGravity + kClamp +
                                   "joint: 1, total joint, 1, 2, position constraint, 1, 1, 1, "
                                   "null, orientation constraint, active, active, active, null;");
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, -kM * kG));
    CheckVec(r.jnt.at(1).M, Vec3(0, kA * kM * kG, 0));
    CheckVec(r.jnt.at(99).F, Vec3(0, 0, kM * kG));
}

TEST_CASE("total joint with apart points: the couple is taken about node 2's point") {
    // Node 2's point P_b = x_2 = (1, 0, 0), node 1's P_a = (0.5, 0, 0), x free: MBDyn's
    // TotalJoint writes the load on node 1 with its couple about P_b (the force balances the
    // weight at P_b: no couple), not about P_a ((P_b - P_a) x F = 0.5 m g about y).
    const Result r = RunStatic(std::string(kGround) + BodyNode("1., 0., 0."),
                               std::string(kBodyCentred) + kGravity + kClamp +
                                   "joint: 1, total joint, 1, position, 0.5, 0., 0., 2, "
                                   "position constraint, inactive, active, active, null, "
                                   "orientation constraint, active, active, active, null;");
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, -kM * kG));
    CheckVec(r.jnt.at(1).M, Vec3::Zero());
    CheckVec(r.states[1].x, Vec3(1, 0, 0));
}

TEST_CASE("cardano pin: a body hanging below the joint, F = m g, no couple") {
    const Result r = RunStatic(BodyNode("0., 0., -1."),
                               std::string(kBodyCentred) + kGravity +
                                   "joint: 1, cardano pin, 2, position, 0., 0., 1., null;");
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, kM * kG));
    CheckVec(r.jnt.at(1).M, Vec3::Zero());
    CHECK(std::abs(r.lambda.at(1)[3]) < kTol);
}

TEST_CASE("prismatic + in plane: a block on a horizontal plane, normal force m g, couple a m g") {
    // The in-plane point is the node; the prismatic joint carries the gravity couple of the
    // offset centre of mass: -a m g about y on node 2, which MBDyn's PrismaticJoint writes.
    const Result r = RunStatic(std::string(kGround) + BodyNode("null"),
                               std::string(kBody) + kGravity + kClamp +
                                   "joint: 1, prismatic, 1, 2;\n"
                                   "joint: 2, in plane, 1, null, 0., 0., 1., 2;");
    CheckVec(r.jnt.at(2).F, Vec3(0, 0, -kM * kG));
    CheckVec(r.jnt.at(1).M, Vec3(0, -kA * kM * kG, 0));
    CheckVec(r.jnt.at(1).F, Vec3::Zero());
    CHECK(std::abs(std::abs(r.lambda.at(2)[0]) - kM * kG) < kTol);
}

TEST_CASE("in line: a body on a horizontal line of node 1, F = m g across the line") {
    // Line along global x (axis 3 of the line frame), orientation held by a prismatic joint.
    const Result r = RunStatic(std::string(kGround) + BodyNode("0.5, 0., 0."),
                               std::string(kBodyCentred) + kGravity + kClamp +
                                   "joint: 1, prismatic, 1, 2;\n"
                                   "joint: 2, in line, 1, null, 3, 1., 0., 0., 1, 0., 0., 1., 2;");
    CheckVec(r.jnt.at(2).F, Vec3(0, 0, -kM * kG));
    CheckVec(r.states[1].x, Vec3(0.5, 0, 0));
}

TEST_CASE("distance: a body hanging at distance 1 from node 1, tension m g") {
    const Result r = RunStatic(
        std::string(kGround) + BodyNode("0., 0., -1."),
        std::string(kBodyCentred) + kGravity + kClamp + "joint: 1, distance, 1, 2, from nodes;");
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, -kM * kG));
    CHECK(r.lambda.at(1)[0] == doctest::Approx(kM * kG).epsilon(1e-8));  // tension
}

TEST_CASE("gimbal rotation + spherical pin: hanging body, the gimbal row carries no load") {
    const Result r = RunStatic(std::string(kGround) + BodyNode("0., 0., -1."),
                               std::string(kBodyCentred) + kGravity + kClamp +
                                   "joint: 1, spherical hinge, 1, null, 2, 0., 0., 1.;\n"
                                   "joint: 2, gimbal rotation, 1, 2;");
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, kM * kG));  // the spherical hinge's load on node 2
    CHECK(std::abs(r.lambda.at(2)[0]) < kTol);
}

TEST_CASE("drive hinge + spherical hinge: the imposed rotation carries the gravity couple") {
    // Rotation imposed about z (does not move the centre of mass off the x axis vertically).
    const Result r = RunStatic(std::string(kGround) + BodyNode("null"),
                               std::string(kBody) + kGravity + kClamp +
                                   "joint: 1, spherical hinge, 1, null, 2, null;\n"
                                   "joint: 2, drive hinge, 1, 2, single, 0., 0., 1., const, 0.;");
    CheckVec(r.jnt.at(2).M, Vec3(0, kA * kM * kG, 0));  // on node 1, as MBDyn's drive hinge
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, kM * kG));       // on node 2
}

TEST_CASE("axial rotation: a spinning rotor driven against a couple, torque multiplier = C") {
    // Rotor about global z at Omega = 10 rad/s, centred: the velocity row carries the couple.
    const Result r =
        RunStatic(std::string(kGround) + "structural: 2, dynamic, null, eye, null, 0., 0., 10.;\n",
                  std::string(kBodyCentred) + kGravity + kClamp +
                      "joint: 1, axial rotation, 1, null, 2, null, const, 10.;\n"
                      "couple: 3, absolute, 2, 0., 0., 1., const, C;");
    CHECK(r.lambda.at(1)[5] == doctest::Approx(kC).epsilon(1e-8));
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, kM * kG));  // the load on node 2, as MBDyn writes it
    CheckVec(r.jnt.at(1).M, Vec3(0, 0, -kC));
    CHECK(r.states[1].w.z() == doctest::Approx(10.0).epsilon(1e-10));
}

TEST_CASE("angular velocity: a free rotor held at constant spin against a couple") {
    const Result r =
        RunStatic("structural: 2, dynamic, null, eye, null, 0., 0., 5.;\n",
                  std::string(kBodyCentred) + "joint: 1, angular velocity, 2, 0., 0., 1., 5.;\n" +
                      "couple: 3, absolute, 2, 0., 0., 1., const, C;");
    CHECK(r.lambda.at(1)[0] == doctest::Approx(kC).epsilon(1e-8));
    CheckVec(r.jnt.at(1).M, Vec3(0, 0, kC));  // minus the couple on the node (MBDyn's dM R n)
}

TEST_CASE("rod: a body hanging on an elastic rod at its static elongation, tension m g") {
    // EA = 1000 N, l0 = 1: static length 1 + m g / EA.
    const double l = 1.0 + kM * kG / 1000.0;
    std::ostringstream x;
    x.precision(17);
    x << "0., 0., " << -l;
    const Result r = RunStatic(std::string(kGround) + BodyNode(x.str()),
                               std::string(kBodyCentred) + kGravity + kClamp +
                                   "joint: 1, rod, 1, 2, 1., linear viscoelastic, 1000., 10.;");
    CheckVec(r.jnt.at(1).F, Vec3(0, 0, -kM * kG));
    CHECK(std::abs(r.states[1].x.z() + l) < 1e-10);
}

TEST_CASE("deformable hinge: a couple C balanced by the spring at theta = C / k") {
    // k = 50 N m/rad; node 2 starts rotated by C / k about z, held by a spherical hinge.
    std::ostringstream nodes;
    nodes.precision(17);
    nodes << kGround << "structural: 2, dynamic, null, euler123, 0., 0., " << kC / 50.0
          << ", null, null;\n";
    const Result r = RunStatic(nodes.str(), std::string(kBodyCentred) + kClamp +
                                                "joint: 1, spherical hinge, 1, null, 2, null;\n"
                                                "joint: 2, deformable hinge, 1, 2, linear "
                                                "viscoelastic, 50., 1.;\n"
                                                "couple: 3, absolute, 2, 0., 0., 1., const, C;");
    CheckVec(r.jnt.at(2).M, Vec3(0, 0, kC));
}
