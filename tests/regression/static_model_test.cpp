// mbstep tests — MBDyn's static solution (control data `model: static;`, cgr_formulation.hpp
// eq. (6)): every structural node static, bodies only their weight, zero velocities, time the
// load parameter. Each case has a closed-form equilibrium, and every deck carries damping or
// initial velocities that would move the answer if velocity terms were not off:
//
//   pendulum   node 2 on a spherical hinge at the origin (node 1, clamped), a body of mass m
//              whose centre of mass is at l along node x, a linear viscoelastic deformable
//              hinge (k, c) to node 1, gravity g(t) = g1 t along -y: the rotation theta about
//              z solves k theta = -m g(t) l cos(theta), i.e. phi = -theta from
//              k phi = m g(t) l cos(phi)                                            (1)
//              and the clamp carries the whole weight: lambda_x = (0, -m g(t), 0),
//              lambda_r = (R s) x (m g) = (0, 0, -m g(t) l cos(theta))              (2)
//   rod        node 2 at l0 on the z axis of the clamped node 1, a linear viscoelastic rod
//              (EA, C) between them, an in line + prismatic pair keeping node 2 on the axis,
//              an absolute force F(t) = s t along z: elongation l - l0 = F(t) l0 / EA     (3)
//   clamp      a static node clamped, an absolute force F at arm a and an absolute couple C:
//              lambda_x = F, lambda_r = a x F + C (the clamp holds R = R0, G = I)      (4)
//              and the .jnt line is the reaction on the node, -lambda, in global and node axes.
//
// Numbers: m = 2 kg, l = 0.5 m, g1 = 9.81 m/s^2 per s, k = 10 N m/rad, c = 5 N m s/rad;
// EA = 1000 N, C = 50 N s, l0 = 2 m, s = 500 N/s. The damping terms would shift (1) by
// c theta' ~ 3 N m and (3) by C e' ~ 25 N if the load rate entered as a velocity.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

using namespace mbstep;

namespace {

constexpr double kM = 2.0, kL = 0.5, kG1 = 9.81, kK = 10.0, kC = 5.0;
constexpr double kEA = 1000.0, kCrod = 50.0, kL0 = 2.0, kSlope = 500.0;

// Deck text: `counts` are the control data counts after `model: <model>;`.
std::string DeckText(const std::string& model, const std::string& method, double h, double tf,
                     const std::string& counts, const std::string& nodes,
                     const std::string& elements, const std::string& formulation = "") {
    std::ostringstream os;
    os.precision(17);
    os << "begin: data; problem: initial value; end: data;\n"
       << "begin: initial value; initial time: 0.; final time: " << tf << "; time step: " << h
       << ";\n  method: " << method << "; tolerance: 1e-12; max iterations: 30;\n"
       << (formulation.empty() ? "" : "  formulation: " + formulation + ";\n")
       << "end: initial value;\n"
       << "begin: control data;\n  model: " << model << ";\n  " << counts
       << "\nend: control data;\n"
       << "begin: nodes;\n"
       << nodes << "end: nodes;\nbegin: elements;\n"
       << elements << "end: elements;\n";
    return os.str();
}

// (1), (2): node 2 declared dynamic with an initial angular velocity (ignored: static model).
std::string PendulumDeck(const std::string& method, double h, double tf,
                         const std::string& formulation = "", const std::string& model = "static") {
    std::ostringstream e;
    e.precision(17);
    e << "  joint: 1, clamp, 1, node, node;\n"
      << "  joint: 2, spherical hinge, 1, null, 2, null;\n"
      << "  joint: 3, deformable hinge, 1, 2, linear viscoelastic, " << kK << ", " << kC << ";\n"
      << "  body: 1, 2, " << kM << ", " << kL << ", 0., 0., diag, 0.01, 0.02, 0.03;\n"
      << "  gravity: uniform, 0., -1., 0., linear, 0., " << kG1 << ";\n";
    return DeckText(model, method, h, tf,
                    "structural nodes: 2; joints: 3; rigid bodies: 1; gravity;",
                    "  structural: 1, static, null, eye, null, null;\n"
                    "  structural: 2, dynamic, null, eye, 0.1, 0., 0., 0., 0., 3.;\n",
                    e.str(), formulation);
}

// (3): the rod along z, node 2 declared dynamic with a body (its weight off: no gravity).
std::string RodDeck(const std::string& method, double h, double tf) {
    std::ostringstream e;
    e.precision(17);
    e << "  joint: 1, clamp, 1, node, node;\n"
      << "  joint: 2, rod, 1, 2, " << kL0 << ", linear viscoelastic, " << kEA << ", " << kCrod
      << ";\n"
      << "  joint: 3, in line, 1, null, eye, 2;\n"
      << "  joint: 4, prismatic, 1, 2;\n"
      << "  body: 1, 2, 3., null, diag, 0.1, 0.1, 0.1;\n"
      << "  force: 1, absolute, 2, position, null, single, 0., 0., 1., ramp, " << kSlope
      << ", 0., forever, 0.;\n";
    std::ostringstream n;
    n.precision(17);
    n << "  structural: 1, static, null, eye, null, null;\n"
      << "  structural: 2, dynamic, 0., 0., " << kL0 << ", eye, 0., 0., 0.7, null;\n";
    return DeckText("static", method, h, tf,
                    "structural nodes: 2; joints: 4; rigid bodies: 1; forces: 1;", n.str(),
                    e.str());
}

struct Sample {
    double t;
    std::vector<FrameState> states;
    std::vector<std::vector<double>> lambda;  // by element index
};

std::vector<Sample> RunText(const std::string& text, RunOptions opt = {}) {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeckText(text, "static.mbd", reg);
    if (opt.output_prefix.empty()) opt.write_output = false;
    opt.progress = false;
    std::vector<Sample> out;
    opt.on_step = [&](double t, const Formulation& f) {
        Sample s{t, f.node_states(), {}};
        const auto& elems = f.model().elements();
        for (size_t e = 0; e < elems.size(); ++e) {
            const double* l = f.multipliers(static_cast<int>(e));
            s.lambda.emplace_back(l ? l : nullptr, l ? l + elems[e]->num_multipliers() : nullptr);
        }
        out.push_back(std::move(s));
    };
    const RunSummary r = Run(deck, opt, reg);
    REQUIRE(r.completed);
    return out;
}

// phi of (1) by scalar Newton from phi = 0 (phi - a cos(phi) is increasing: one root).
double PendulumAngle(double t) {
    const double a = kM * kG1 * t * kL / kK;
    double phi = 0.0;
    for (int i = 0; i < 50; ++i) {
        const double r = phi - a * std::cos(phi);
        phi -= r / (1.0 + a * std::sin(phi));
        if (std::abs(r) < 1e-16) break;
    }
    return phi;
}

// The rotation angle about z of an orientation that is a rotation about z.
double AngleZ(const Mat3& R) { return std::atan2(R(1, 0), R(0, 0)); }

}  // namespace

TEST_CASE("static pendulum on a deformable hinge: k phi = m g(t) l cos(phi), eqs. (1), (2)") {
    const auto run = RunText(PendulumDeck("ms, 0.6", 0.05, 1.0));
    REQUIRE(run.size() == 21);  // t0 and 20 steps
    int checked = 0;
    for (const Sample& s : run) {
        const int k = static_cast<int>(std::lround(s.t / 0.05));
        if (k % 5 != 0 || k == 0) continue;  // t = 0.25, 0.5, 0.75, 1
        INFO("t = ", s.t);
        const double phi = PendulumAngle(s.t);
        const FrameState& n2 = s.states[1];
        CHECK(std::abs(AngleZ(n2.R) + phi) < 1e-8);
        // Still a rotation about z, the node held at the hinge.
        CHECK(std::abs(n2.R(2, 2) - 1.0) < 1e-12);
        CHECK(n2.x.norm() < 1e-12);
        // Zero velocities in the node states (the .mov), whatever the deck's initial ones.
        CHECK(n2.v.norm() == 0.0);
        CHECK(n2.w.norm() == 0.0);
        // (2): the clamp (element 0) carries the weight and its moment about the origin.
        const double W = kM * kG1 * s.t;
        const std::vector<double>& lc = s.lambda[0];
        CHECK(std::abs(lc[0]) < 1e-9);
        CHECK(std::abs(lc[1] + W) < 1e-9);
        CHECK(std::abs(lc[2]) < 1e-9);
        CHECK(std::abs(lc[5] + W * kL * std::cos(phi)) < 1e-9);
        ++checked;
    }
    CHECK(checked == 4);
    // The angle at t = 1 is far from the small-angle answer (the test sees the nonlinearity).
    CHECK(PendulumAngle(1.0) == doctest::Approx(0.7306).epsilon(1e-4));
}

TEST_CASE("the same pendulum run as a dynamic model swings off the static answer") {
    // Guards the test above: `model: dynamic` (the default) is not the static solution.
    const auto run = RunText(PendulumDeck("ms, 0.6", 0.05, 1.0, "", "dynamic"));
    const FrameState& n2 = run.back().states[1];
    CHECK(std::abs(AngleZ(n2.R) + PendulumAngle(1.0)) > 1e-2);
}

TEST_CASE("static rod with damping under a ramped force: l - l0 = F(t) l0 / EA, eq. (3)") {
    const double h = 0.1;
    const auto run = RunText(RodDeck("ms, 0.6", h, 1.0));
    REQUIRE(run.size() == 11);
    for (const Sample& s : run) {
        INFO("t = ", s.t);
        const double F = kSlope * s.t;
        const FrameState& n2 = s.states[1];
        CHECK(std::abs(n2.x.z() - kL0 - F * kL0 / kEA) < 1e-10);
        CHECK(std::abs(n2.x.x()) < 1e-12);
        CHECK(std::abs(n2.x.y()) < 1e-12);
        CHECK(n2.v.norm() == 0.0);
    }
    CHECK(run.back().states[1].x.z() == doctest::Approx(3.0).epsilon(1e-12));
}

TEST_CASE("static clamp under a force and a couple: multipliers and .jnt are the load, eq. (4)") {
    const Vec3 a(0.3, -0.2, 0.5), F(3.0, -6.0, 1.5), C(0.4, 0.7, -1.1);
    std::ostringstream e;
    e.precision(17);
    e << "  joint: 1, clamp, 1, node, node;\n"
      << "  force: 2, absolute, 1, position, " << a.x() << ", " << a.y() << ", " << a.z()
      << ", single, " << F.x() << ", " << F.y() << ", " << F.z() << ", const, 1.;\n"
      << "  couple: 3, absolute, 1, single, " << C.x() << ", " << C.y() << ", " << C.z()
      << ", const, 1.;\n";
    // Node 1 declared dynamic, with a body (no gravity: it adds nothing) and an initial velocity.
    const std::string text = DeckText(
        "static", "implicit euler", 0.1, 0.3,
        "structural nodes: 1; joints: 1; rigid bodies: 1; forces: 2;",
        "  structural: 1, dynamic, 1., 2., 3., euler123, 0.2, -0.3, 0.4, 1., 0., 0., null;\n",
        "  body: 1, 1, 2., null, eye;\n" + e.str());
    const auto dir = std::filesystem::temp_directory_path() / "mbstep_static_model_test";
    std::filesystem::create_directories(dir);
    RunOptions opt;
    opt.output_prefix = (dir / "clamp").string();
    const auto run = RunText(text, opt);
    REQUIRE(run.size() == 4);
    // The arm is in the node frame; the clamp holds the initial orientation R (not identity).
    const Mat3 R = run.back().states[0].R;
    const Vec3 Ra = R * a;
    CHECK((Ra - a).norm() > 0.1);
    const std::vector<double>& l = run.back().lambda[1];  // element 1: the clamp
    const Vec3 lx(l[0], l[1], l[2]), lr(l[3], l[4], l[5]);
    INFO("lambda_x ", lx.transpose(), ", lambda_r ", lr.transpose());
    CHECK((lx - F).norm() < 1e-10);
    CHECK((lr - (Ra.cross(F) + C)).norm() < 1e-10);

    // .jnt, last line: label, F and M on the node in node axes, then in global axes.
    std::ifstream jnt(opt.output_prefix + ".jnt");
    std::string line, last;
    while (std::getline(jnt, line))
        if (!line.empty()) last = line;
    std::istringstream is(last);
    int label = 0;
    Vec3 Fl, Ml, Fg, Mg;
    is >> label;
    for (Vec3* v : {&Fl, &Ml, &Fg, &Mg}) is >> (*v)[0] >> (*v)[1] >> (*v)[2];
    INFO(".jnt: ", last);
    CHECK(label == 1);
    const double tol = 1e-5;  // `output precision` 6 digits
    CHECK((Fg + F).norm() < tol * F.norm());
    CHECK((Mg + Ra.cross(F) + C).norm() < tol * (Ra.cross(F) + C).norm());
    CHECK((Fl + R.transpose() * F).norm() < tol * F.norm());

    // .mov: velocities written as zero; .log: the model summary says static.
    std::ifstream mov(opt.output_prefix + ".mov");
    int rows = 0;
    while (std::getline(mov, line)) {
        std::istringstream ms(line);
        std::vector<double> v;
        double x;
        while (ms >> x) v.push_back(x);
        REQUIRE(v.size() == 13);  // label, x, angles, v, w
        for (int k = 7; k < 13; ++k) CHECK(v[k] == 0.0);
        ++rows;
    }
    CHECK(rows == 4);
    std::ifstream log(opt.output_prefix + ".log");
    std::stringstream ls;
    ls << log.rdbuf();
    CHECK(ls.str().find("structural nodes: 1 (0 dynamic)") != std::string::npos);
    CHECK(ls.str().find("model: static") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("the static solution does not depend on the first-order method or the cgr variant") {
    // Registry-driven: every first-order method (multistep, single-step, ESDIRK) on `cgr`, and
    // ms, implicit euler and Bathe on every formulation that solves static models. Newton
    // tolerance 1e-12 on residuals of O(1) N m with k = 10 N m/rad: angles agree to ~1e-13.
    const Registry& reg = GlobalRegistry();
    std::vector<std::pair<std::string, std::string>> runs;
    for (const IntegratorDescriptor& d : reg.integrators())
        if (d.requires_interface == ProblemInterface::kFirstOrderDae) runs.push_back({d.name, ""});
    CHECK(runs.size() >= 15);
    for (const FormulationDescriptor& f : reg.formulations())
        if (f.solves_static_model)
            for (const char* method : {"ms, 0.6", "implicit euler", "Bathe"})
                runs.push_back({method, f.name});
    std::vector<FrameState> ref;
    for (const auto& [method, formulation] : runs) {
        INFO(method, " on ", formulation.empty() ? "its default formulation" : formulation);
        const auto run = RunText(PendulumDeck(method, 0.1, 1.0, formulation));
        REQUIRE(run.size() == 11);
        const FrameState& n2 = run.back().states[1];
        CHECK(std::abs(AngleZ(n2.R) + PendulumAngle(1.0)) < 1e-10);
        if (ref.empty()) {
            ref = run.back().states;
            continue;
        }
        CHECK((n2.x - ref[1].x).norm() < 1e-11);
        CHECK((n2.R - ref[1].R).norm() < 1e-11);
    }
    for (const char* method : {"ms, 0.6", "implicit euler", "Bathe"}) {
        INFO(method);
        const auto rod = RunText(RodDeck(method, 0.25, 1.0));
        CHECK(std::abs(rod.back().states[1].x.z() - 3.0) < 1e-11);
    }
}

TEST_CASE("static model: velocity-level constraints are refused, naming the element") {
    const Registry& reg = GlobalRegistry();
    const std::string nodes =
        "  structural: 1, static, null, eye, null, null;\n"
        "  structural: 2, dynamic, null, eye, null, null;\n";
    const std::string body = "  body: 1, 2, 1., null, eye;\n  joint: 1, clamp, 1, node, node;\n";
    const struct {
        const char* joint;
        const char* name;
    } cases[] = {
        {"  joint: 7, angular velocity, 2, 0., 0., 1., const, 2.;\n",
         "joint 7 (angular velocity), constraint equation 1"},
        {"  joint: 8, axial rotation, 1, null, 2, null, const, 10.;\n",
         "joint 8 (axial rotation), constraint equation 6"},
    };
    for (const auto& c : cases) {
        INFO(c.joint);
        Deck deck = ReadDeckText(
            DeckText("static", "ms, 0.6", 0.1, 0.2,
                     "structural nodes: 2; joints: 2; rigid bodies: 1;", nodes, body + c.joint),
            "static.mbd", reg);
        RunOptions opt;
        opt.write_output = false;
        opt.progress = false;
        try {
            Run(deck, opt, reg);
            FAIL("no error");
        } catch (const RunError& e) {
            const std::string what = e.what();
            INFO(what);
            CHECK(what.find(c.name) != std::string::npos);
            CHECK(what.find("static.mbd:") != std::string::npos);  // where it was read
            CHECK(what.find("velocity-level") != std::string::npos);
            CHECK(what.find("model: static") != std::string::npos);
        }
    }
}

TEST_CASE("static model: every second-order method and formulation refuses it") {
    // Registry-driven: every integrator that needs a second-order formulation (hht, generalized
    // alpha, eml, half implicit, the Runge-Kutta family), on its default formulation, and every
    // formulation that does not declare the static solution, built directly.
    const Registry& reg = GlobalRegistry();
    const std::string text = PendulumDeck("ms, 0.6", 0.1, 0.2);
    int methods = 0;
    for (const IntegratorDescriptor& d : reg.integrators()) {
        if (d.requires_interface == ProblemInterface::kFirstOrderDae) continue;
        INFO("method ", d.name, " on ", d.default_formulation);
        Deck deck = ReadDeckText(text, "static.mbd", reg);
        std::string name;
        deck.integrator = MakeIntegrator(d.name, reg, &name);
        deck.method_name = name;
        RunOptions opt;
        opt.write_output = false;
        opt.progress = false;
        try {
            Run(deck, opt, reg);
            FAIL("no error");
        } catch (const RunError& e) {
            const std::string what = e.what();
            INFO(what);
            CHECK(what.find("'" + d.default_formulation + "'") != std::string::npos);
            CHECK(what.find("cannot solve a static model") != std::string::npos);
            CHECK(what.find("`cgr`") != std::string::npos);
        }
        ++methods;
    }
    CHECK(methods >= 8);
    Deck deck = ReadDeckText(text, "static.mbd", reg);
    REQUIRE(deck.model.static_model());
    int refused = 0;
    for (const FormulationDescriptor& f : reg.formulations()) {
        INFO("formulation ", f.name);
        if (f.solves_static_model) {
            CHECK(f.make(deck.model) != nullptr);
            continue;
        }
        CHECK_THROWS_WITH_AS(f.make(deck.model), doctest::Contains("cannot solve a static model"),
                             RunError);
        ++refused;
    }
    CHECK(refused == 4);  // euler parameters, lie group, euler angles, lagrangian
}

TEST_CASE("model: static and model: dynamic set the flag; the default is dynamic") {
    const Registry& reg = GlobalRegistry();
    CHECK(ReadDeckText(PendulumDeck("ms", 0.1, 0.2), "a.mbd", reg).model.static_model());
    CHECK_FALSE(ReadDeckText(PendulumDeck("ms", 0.1, 0.2, "", "dynamic"), "b.mbd", reg)
                    .model.static_model());
    std::string none = PendulumDeck("ms", 0.1, 0.2);
    none.erase(none.find("  model: static;\n"), 17);
    CHECK_FALSE(ReadDeckText(none, "c.mbd", reg).model.static_model());
}
