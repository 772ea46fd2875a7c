// mbstep tests — reading valid decks: settings, references and relative input, orientation
// forms, includes, comments, counts (MBDyn's own test decks as read: tests/compat/
// compat_deck_reader_test.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "io_support.hpp"
#include "mbstep/math/rotation.hpp"

using namespace mbstep;
using test::kPrelude;
using test::Read;

namespace {

/// A node-less deck whose initial-value block holds `statement` (solver settings tests).
Deck ReadInitialValue(const std::string& statement) {
    return Read("begin: initial value;\n    final time: 1.;\n    " + statement +
                "\n    method: test-method;\nend: initial value;\n"
                "begin: control data;\n    structural nodes: 0;\n"
                "end: control data;\n");
}

/// The initial state of the single node of a deck whose node block is `node`.
FrameState NodeState(const std::string& references, const std::string& node) {
    const Deck d = Read(std::string(kPrelude) + "structural nodes: 1;\nend: control data;\n" +
                        references + "begin: nodes;\n" + node + "\nend: nodes;\n");
    REQUIRE(d.model.nodes().size() == 1);
    return d.model.nodes()[0].initial;
}

Mat3 Orientation(const std::string& text) {
    return NodeState("", "structural: 1, dynamic, null, " + text + ", null, null;").R;
}

void CheckRotation(const Mat3& R) {
    CHECK((R.transpose() * R - Mat3::Identity()).norm() < 1e-12);
    CHECK(R.determinant() == doctest::Approx(1.0));
}

}  // namespace

TEST_CASE("deck: settings of initial value and control data") {
    const Deck d = Read(R"(
begin: data;
    problem: initial value;
end: data;
set: real T = 2.;
drive caller: 7, const, 0.25;
Begin : Initial   Value;   # keywords: case and spaces do not matter
    initial time: 0.5;
    final time: T + 0.5;
    time step: 1.e-2*T;
    method: test-method, .6, reference, 7;
    tolerance: 1e-9, test, minmax, 1e-12;
    max iterations: 25, at most;
    derivatives tolerance: 1e-4;
    derivatives max iterations: 10;
    derivatives coefficient: 1e-3, auto, max iterations, 3;
    nonlinear solver: newton raphson, modified, 5;
    linear solver: naive, colamd, mt, 2;
    output: iterations, residual;
    abort after: derivatives;
    strategy: factor, 0.5, 3, 1.25, 5, 6;
    min time step: 1e-6;
    max time step: unlimited;
    modify residual test;
end: initial value;
begin: controldata;
    structural nodes: 0;
    default orientation: orientation vector;
    output meter: meter, 0., forever, steps, 10;
    output precision: 9;
    skip initial joint assembly;
    print: dof stats;
    title: "a " + "title";
    default output: none, structural nodes;
end: control data;
)");
    const RunSettings& s = d.settings;
    CHECK(s.initial_time == 0.5);
    CHECK(s.final_time == 2.5);
    CHECK(s.time_step == doctest::Approx(0.02));
    CHECK(d.method_name == "test-method");
    CHECK(s.method_text == "test-method, .6, reference, 7");
    auto* fake = dynamic_cast<test::FakeIntegrator*>(d.integrator.get());
    REQUIRE(fake);
    REQUIRE(fake->parameters.size() == 2);
    CHECK(fake->parameters[0] == 0.6);
    CHECK(fake->parameters[1] == 0.25);  // `reference, 7`: the drive caller above
    CHECK(s.solver.residual_tolerance == 1e-9);
    CHECK(s.solver.residual_test == ResidualTest::kMinMax);
    CHECK(s.solver.solution_tolerance == 1e-12);
    CHECK(s.solver.solution_test == ResidualTest::kNorm);
    CHECK(s.solver.max_iterations == 25);
    CHECK(s.solver.max_iterations_at_most);
    CHECK(s.solver.derivatives_tolerance == 1e-4);
    CHECK(s.solver.derivatives_max_iterations == 10);
    CHECK(s.solver.derivatives_coefficient == 1e-3);
    CHECK(s.solver.derivatives_coefficient_auto);
    CHECK(s.solver.modified_newton);
    CHECK(s.solver.modified_newton_iterations == 5);
    CHECK(s.solver.linear_solver == "auto");  // MBDyn's naive is a sparse LU: auto
    CHECK(s.solver.linear_solver_requested == "naive");
    CHECK(s.solver.output_iterations);
    CHECK(s.solver.output_residual);
    CHECK(s.abort_after == "derivatives");
    CHECK(s.solver.strategy_factor);
    CHECK(s.solver.strategy_reduction == 0.5);
    CHECK(s.solver.strategy_steps_before_reduction == 3);
    CHECK(s.solver.strategy_raise == 1.25);
    CHECK(s.solver.min_time_step == 1e-6);
    CHECK(s.solver.modify_residual_test);
    CHECK(s.default_orientation == OrientationOutput::kOrientationVector);
    CHECK(s.output_every == 10);
    CHECK(s.output_precision == 9);
    CHECK(s.skip_initial_joint_assembly);
    CHECK(s.title == "a title");
    CHECK(s.default_output);
    CHECK(s.solver.linear_solver_ordering == "colamd");  // MBDyn's `colamd` option, which
    bool ordering_warned = false;                        // naive (read as auto) honours
    for (const std::string& w : d.warnings)
        ordering_warned |= w.find("the ordering applies to klu only") != std::string::npos;
    CHECK_FALSE(ordering_warned);
}

TEST_CASE("deck: plain numbers read as the expression parser reads them") {
    // A literal that is a whole argument skips the expression parser: its value must be the
    // parser's (strtod's correctly rounded one) bit for bit, and anything else must still be
    // parsed, or refused, as an expression.
    auto initial_time = [](const std::string& value) {
        return Read("begin: initial value;\n    initial time: " + value +
                    ";\n    final time: 1e300;\n    method: test-method;\nend: initial value;\n"
                    "begin: control data;\n    structural nodes: 0;\nend: control data;\n")
            .settings.initial_time;
    };
    for (const char* literal :
         {"0.1", "-0.25", ".5", "1.", "2e+3", "1.5E-3", "-7", "0.30000000000000004",
          "123456789012345678901234567890", "4.9406564584124654e-324", "-0.0", "1e-3  "}) {
        CAPTURE(literal);
        const double read = initial_time(literal);
        const double expected = std::strtod(literal, nullptr);
        CHECK(std::memcmp(&read, &expected, sizeof expected) == 0);
    }
    CHECK(initial_time("1e-3*2") == 2e-3);
    CHECK(initial_time("-1 - 2") == -3.0);
    CHECK(initial_time("2 ^ 3") == 8.0);
    for (const char* bad : {"1e999", "1.2.3", "1e", "1 2", "--1e"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(initial_time(bad), DeckError);
    }
}

TEST_CASE("deck: MBDyn's linear solvers map to auto, those we do not have with a warning") {
    const auto read = ReadInitialValue;
    const Deck d = read("linear solver: umfpack;");
    CHECK(d.settings.solver.linear_solver == "auto");
    CHECK(d.settings.solver.linear_solver_requested == "umfpack");
    REQUIRE_FALSE(d.warnings.empty());
    CHECK(d.warnings[0].find("linear solver 'umfpack' is not available; using auto (klu)") !=
          std::string::npos);
    CHECK(read("tolerance: 1e-6;").settings.solver.linear_solver == "auto");
    CHECK(read("linear solver: naive;").settings.solver.linear_solver == "auto");
    const Deck klu = read("linear solver: klu;");  // MBDyn's klu: the fastest KLU path, silently
    CHECK(klu.settings.solver.linear_solver == "auto");
    CHECK(klu.settings.solver.linear_solver_requested == "klu");
    CHECK(klu.warnings.empty());
    const Deck schur = read("linear solver: schur;");  // ours (block elimination), no warning
    CHECK(schur.settings.solver.linear_solver == "schur");
    CHECK(schur.warnings.empty());
}

TEST_CASE("deck: linear solver ordering (ours) and MBDyn's options") {
    auto ordering = [](const std::string& statement) {
        return ReadInitialValue(statement).settings.solver.linear_solver_ordering;
    };
    CHECK(ordering("tolerance: 1e-6;") == "auto");
    CHECK(ordering("linear solver: klu;") == "auto");
    CHECK(ordering("linear solver: klu, ordering, natural;") == "natural");
    CHECK(ordering("linear solver: klu, ordering, rcm;") == "rcm");
    CHECK(ordering("linear solver: klu, ordering, amd, pivot factor, 0.1;") == "amd");
    CHECK(ordering("linear solver: klu, cc, colamd, mt, 2, workspace size, 100;") == "colamd");
    CHECK(ordering("linear solver: umfpack, mmdata, scale, always, row max;") == "amd");
}

TEST_CASE("deck: modified Newton and its adaptive reuse (ours)") {
    const auto solver = [](const std::string& statement) {
        return ReadInitialValue(statement).settings.solver;
    };
    CHECK_FALSE(solver("tolerance: 1e-6;").modified_newton);
    CHECK_FALSE(solver("nonlinear solver: newton raphson, true;").modified_newton);
    const SolverSettings plain = solver("nonlinear solver: newton raphson, modified, 10;");
    CHECK(plain.modified_newton);
    CHECK(plain.modified_newton_iterations == 10);
    CHECK_FALSE(plain.modified_newton_adaptive);
    const SolverSettings adaptive =
        solver("nonlinear solver: newton raphson, modified, 10, adaptive;");
    CHECK(adaptive.modified_newton);
    CHECK(adaptive.modified_newton_iterations == 10);
    CHECK(adaptive.modified_newton_adaptive);
    CHECK(solver("nonlinear solver: newton raphson, modified, 3, keep jacobian matrix, adaptive;")
              .modified_newton_adaptive);
}

TEST_CASE("deck: KLU row scaling from MBDyn's `scale` option (off by default)") {
    auto scale = [](const std::string& statement) {
        return ReadInitialValue(statement).settings.solver.linear_solver_scale;
    };
    CHECK(scale("tolerance: 1e-6;") == -1);
    CHECK(scale("linear solver: klu;") == -1);
    CHECK(scale("linear solver: klu, scale, always;") == 2);
    CHECK(scale("linear solver: klu, scale, once, row max;") == 2);
    CHECK(scale("linear solver: klu, scale, always, row sum;") == 1);
    CHECK(scale("linear solver: klu, scale, no;") == -1);
    CHECK(scale("linear solver: klu, scale, iterative, column max, tolerance, 1e-3;") == 2);
}

TEST_CASE("deck: method text, MakeIntegrator and the default method") {
    std::string name;
    auto integrator = MakeIntegrator("test-method, 0.5, 2*0.25", test::TestRegistry(), &name);
    CHECK(name == "test-method");
    auto* fake = dynamic_cast<test::FakeIntegrator*>(integrator.get());
    REQUIRE(fake);
    CHECK(fake->parameters == std::vector<double>{0.5, 0.5});
    CHECK_THROWS_AS(MakeIntegrator("no-such-method", test::TestRegistry()), DeckError);
    // Without `method:`, MBDyn's default `ms, 0` when the registry has it.
    const std::string no_method = R"(begin: initial value;
    final time: 1.;
    time step: 0.1;
end: initial value;
begin: control data;
end: control data;
)";
    if (test::TestRegistry().FindIntegrator("ms")) {
        const Deck d = Read(no_method);
        CHECK(d.method_name == "ms");
        CHECK(d.settings.method_text == "ms, 0");
    } else {
        CHECK_THROWS_AS(Read(no_method), DeckError);
    }
}

TEST_CASE("deck: orientation forms") {
    // eye, matr
    CHECK(Orientation("eye").isApprox(Mat3::Identity()));
    CHECK(Orientation("matr, 0, -1, 0, 1, 0, 0, 0, 0, 1").isApprox(RotZ(M_PI / 2)));
    // Euler angles in radians, or degrees with the keyword.
    CHECK(Orientation("euler123, 0.1, 0.2, 0.3").isApprox(RotX(0.1) * RotY(0.2) * RotZ(0.3)));
    CHECK(Orientation("euler, 0.1, 0.2, 0.3").isApprox(RotX(0.1) * RotY(0.2) * RotZ(0.3)));
    CHECK(Orientation("euler123, degrees, 30, 0, 0").isApprox(RotX(M_PI / 6)));
    CHECK(Orientation("euler313, 0.1, 0.2, 0.3").isApprox(RotZ(0.1) * RotX(0.2) * RotZ(0.3)));
    // Round trip with the .mov conventions of math/rotation.hpp.
    const Mat3 R = RotZ(0.4) * RotY(-0.3) * RotX(0.7);
    const Vec3 a123 = Euler123FromRotation(R), a313 = Euler313FromRotation(R),
               a321 = Euler321FromRotation(R);
    auto list = [](const Vec3& a) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "%.17g, %.17g, %.17g", a[0], a[1], a[2]);
        return std::string(buf);
    };
    CHECK(Orientation("euler123, " + list(a123)).isApprox(R, 1e-12));
    CHECK(Orientation("euler313, " + list(a313)).isApprox(R, 1e-12));
    CHECK(Orientation("euler321, " + list(a321)).isApprox(R, 1e-12));
    // Orientation vector: exp(skew(v)).
    CHECK(Orientation("vector, 0, 0, pi/2").isApprox(RotZ(M_PI / 2)));
    // Two-vector form: the first axis exact, the second orthogonalised.
    const Mat3 A = Orientation("1, 1., 1., 0., 2, 0., 1., 0.");
    CheckRotation(A);
    CHECK(A.col(0).isApprox(Vec3(1, 1, 0).normalized()));
    CHECK(A.col(2).isApprox(Vec3(0, 0, 1)));
    const Mat3 B = Orientation("3, 0., 0., 2., 1, 1., 1., 0.3");  // (3, 1, 2) is cyclic
    CheckRotation(B);
    CHECK(B.col(2).isApprox(Vec3(0, 0, 1)));
    CHECK(B.col(0).isApprox(Vec3(1, 1, 0).normalized()));
    const Mat3 C = Orientation("2, 0., 0., 1., 1, 1., 0., 0.");  // (2, 1, 3) is anti-cyclic
    CheckRotation(C);
    CHECK(C.col(1).isApprox(Vec3(0, 0, 1)));
    CHECK(C.col(0).isApprox(Vec3(1, 0, 0)));
    CHECK(C.col(2).isApprox(Vec3(0, -1, 0)));
    const Mat3 G = Orientation("1, 1., 2., 3., 2, guess");
    CheckRotation(G);
    CHECK(G.col(0).isApprox(Vec3(1, 2, 3).normalized()));
    // A nearly orthogonal matrix within 1e-6 is accepted.
    CheckRotation(Orientation("matr, 1, 0, 0, 0, 1, 1e-8, 0, -1e-8, 1") * Mat3::Identity().eval());
}

TEST_CASE("deck: references and relative input (positions, velocities, chains)") {
    // Reference 1 at (1, 2, 3), rotated 90 deg about z, moving with v = (1, 0, 0), w = (0, 0, 2).
    const std::string refs = R"(
reference: 1,
    reference, global, 1., 2., 3.,
    reference, global, euler123, 0., 0., pi/2,
    reference, global, 1., 0., 0.,
    reference, global, 0., 0., 2.;
reference: 2,
    reference, 1, 1., 0., 0.,
    reference, 1, eye,
    reference, 1, null,
    reference, 1, null;
)";
    FrameState s = NodeState(refs,
                             "structural: 1, dynamic, reference, 1, 1., 0., 0., reference, 1, eye, "
                             "reference, 1, null, reference, 1, 0., 0., 1.;");
    CHECK(s.x.isApprox(Vec3(1, 3, 3)));  // x_F + R_F p
    CHECK(s.R.isApprox(RotZ(M_PI / 2)));
    CHECK(s.v.isApprox(Vec3(1, 0, 0) + Vec3(0, 0, 2).cross(Vec3(0, 1, 0))));  // v_F + w_F x d
    CHECK(s.w.isApprox(Vec3(0, 0, 3)));
    // Reference 2 is defined relative to reference 1: it inherits the rigid motion.
    s = NodeState(refs, "structural: 1, dynamic, at reference, 2;");
    CHECK(s.x.isApprox(Vec3(1, 3, 3)));
    CHECK(s.v.isApprox(Vec3(-1, 0, 0)));
    CHECK(s.w.isApprox(Vec3(0, 0, 2)));
    // Mixed frames: global position, velocity of the point in reference 1.
    s = NodeState(refs,
                  "structural: 1, static, position, reference, global, 1., 2., 4., "
                  "orientation, reference, 2, 1, 0., 1., 0., 2, -1., 0., 0., velocity, "
                  "reference, 1, null, angular velocity, null, output, no;");
    CHECK(s.x.isApprox(Vec3(1, 2, 4)));
    CHECK(s.R.isApprox(RotZ(M_PI / 2) * RotZ(M_PI / 2)));
    CHECK(s.v.isApprox(Vec3(1, 0, 0)));  // on the rotation axis of reference 1
    CHECK(s.w.isZero());
}

TEST_CASE("deck: include, comments, escapes, set: and labels from variables") {
    const auto dir = std::filesystem::temp_directory_path() / "mbstep_io_test_include";
    std::filesystem::create_directories(dir / "sub");
    {
        std::ofstream(dir / "sub" / "refs.ref")
            << "set: integer K = 3;\n"
               "reference: K, null, eye, null, null;\n"
               "include: \"more.ref\"; # relative to refs.ref\n";
        std::ofstream(dir / "sub" / "more.ref") << "set: real L = 2.5;\n";
        std::ofstream(dir / "main.mbd") << kPrelude << R"(
    structural nodes: 1 /* one node */ + 1;
    rigid bodies:
        +1  # a comment in an expression
    ;
end: control data;
include: "sub/refs.ref";
#beginescape
this is not read at all: ; ; begin: nonsense;
#endescape
set: integer N = 2.9;   # truncated to 2
begin: nodes;
    structural: N - 1, dynamic, reference, K, L, 0., 0., eye, null, null;
    structural: N, static, null, eye, null, null;
end: nodes;
begin: elements;
    body: 1, 1, 1., null, eye;
end: elements;
this text after the elements block is never read, as in MBDyn
)";
    }
    if (!test::TestRegistry().FindElement("body", "")) return;  // needs the body plugin
    const Deck d = ReadDeck((dir / "main.mbd").string(), test::TestRegistry());
    REQUIRE(d.model.nodes().size() == 2);
    CHECK(d.model.nodes()[0].label == 1);
    CHECK(d.model.nodes()[1].label == 2);
    CHECK(d.model.nodes()[0].initial.x.isApprox(Vec3(2.5, 0, 0)));
    CHECK(d.model.nodes()[1].kind == NodeKind::kStatic);
    CHECK(d.model.elements().size() == 1);
    CHECK(d.model.elements()[0]->statement() == "body");
    CHECK(d.model.elements()[0]->where().line == 27);
    std::filesystem::remove_all(dir);
}

TEST_CASE("deck: user defined elements, module load and loadable path") {
    // Every registered element type is a user defined element: `user defined: 7, rod, ...`
    // reads what `joint: 7, rod, ...` reads, keeps the joint statement (its output file) and
    // counts as a user defined element. `module load:` of a plugin of the search path finds it
    // loaded already. (Loading a plugin from elsewhere: tests/install/install_test.py.)
    auto deck = [](const std::string& top, const std::string& counts, const std::string& element) {
        return top + kPrelude + "structural nodes: 2; " + counts +
               "\nend: control data;\nbegin: nodes;\n"
               "    structural: 1, dynamic, null, eye, null, null;\n"
               "    structural: 2, dynamic, 1., 0., 0., eye, null, null;\n"
               "end: nodes;\nbegin: elements;\n    " +
               element + "\nend: elements;\n";
    };
    const std::string rod = "7, rod, 1, 2, from nodes, linear elastic, 50.;";
    const Deck d = Read(deck("module load: \"springs\";\nloadable path: add, \".\";\n",
                             "user defined elements: 1;", "user defined: " + rod));
    REQUIRE(d.model.elements().size() == 1);
    const Element& e = *d.model.elements()[0];
    CHECK(e.statement() == "joint");
    CHECK(e.type() == "rod");
    CHECK(e.label() == 7);
    CHECK(e.nodes() == std::vector<int>{0, 1});
    const Deck j = Read(deck("", "joints: 1;", "joint: " + rod));
    ElementBlock a, b;
    const FrameState s1 = d.model.nodes()[0].initial;
    FrameState s2 = d.model.nodes()[1].initial;
    s2.x = Vec3(1.1, 0.2, 0.0);  // stretched: a non-zero force
    const FrameState* ptrs[] = {&s1, &s2};
    a.Reset(2, 0, true);
    b.Reset(2, 0, true);
    e.Evaluate(ElementContext{0.0, ptrs}, a);
    j.model.elements()[0]->Evaluate(ElementContext{0.0, ptrs}, b);
    CHECK(a.f.norm() > 1.0);
    CHECK(a.f == b.f);
    CHECK(a.K == b.K);

    auto message = [&](const std::string& top, const std::string& counts,
                       const std::string& element) {
        try {
            Read(deck(top, counts, element));
        } catch (const DeckError& err) {
            return std::string(err.what());
        }
        return std::string("no error");
    };
    // The count is checked like the others; an unknown type names what the plugins provide.
    CHECK(message("", "", "user defined: " + rod)
              .find("the deck defines 1 user defined "
                    "elements but control data does not "
                    "declare them") != std::string::npos);
    const std::string unknown =
        message("", "user defined elements: 1;", "user defined: 7, no such type, 1, 2;");
    INFO(unknown);
    CHECK(unknown.rfind("test.mbd:18:22: unknown user defined element type 'no such type'; the "
                        "element plugins provide: absolute, angular velocity,",
                        0) == 0);
    CHECK(unknown.find("spherical hinge") != std::string::npos);
    // `absolute` is a force and a couple type: the statement must say which.
    CHECK(message("", "user defined elements: 1;", "user defined: 7, absolute, 1, 1., 0., 0.;")
              .find("is registered under both") != std::string::npos);
    // Modules that are not found, and MBDyn's own.
    CHECK(message("module load: \"no-such\";\n", "", "")
              .rfind("test.mbd:1:14: module "
                     "'no-such' not found",
                     0) == 0);
    CHECK(message("module load: \"libmodule-fabricate\";\n", "", "")
              .find("MBDyn's own modules are not mbstep plugins") != std::string::npos);
    CHECK(message("module load: \"springs\", 1.;\n", "", "")
              .find("module arguments are not supported") != std::string::npos);
    CHECK(message("loadable path: \"no-such-folder\";\n", "", "").find("is not a folder") !=
          std::string::npos);
}

TEST_CASE("deck: elements, named drives and gravity") {
    const Registry& r = test::TestRegistry();
    if (!r.FindElement("gravity", "uniform") || !r.FindElement("body", "")) return;
    for (const char* gravity :
         {"gravity: uniform, 0., 0., -1., reference, 5;", "gravity: 0., 0., -1., reference, 5;"}) {
        INFO(gravity);
        const Deck d = Read(std::string(kPrelude) + R"(
    structural nodes: 2; rigid bodies: 1; joints: 1; gravity;
end: control data;
drive caller: 5, ramp, 9.81, 0., 1., 0.;
begin: nodes;
    structural: 1, dynamic, null, eye, null, null;
    structural: 2, static, null, eye, null, null;
end: nodes;
begin: elements;
    body: 1, 1, 2., null, diag, 1., 1., 1.;
    joint: 1, test-joint, 1, 2;
    )" + gravity + "\nend: elements;\n");
        REQUIRE(d.model.gravity().has_value());
        CHECK(d.model.gravity()->At(0.5).isApprox(Vec3(0, 0, -9.81 * 0.5)));
        CHECK(d.model.elements().size() == 3);
        CHECK(d.model.elements()[1]->statement() == "joint");
        CHECK(d.model.elements()[1]->nodes() == std::vector<int>{0, 1});
    }
}

TEST_CASE(
    "deck: remark prints its strings and values with the location; control data's "
    "assembly settings act") {
    const Deck d = Read(std::string(kPrelude) +
                        "remark: \"stiffness\", 2*3, \"ok\";\n"
                        "initial stiffness: 10., 20.;\nomega rotates: yes;\n"
                        "use: rigid bodies, forces, in assembly;\nend: control data;\n");
    REQUIRE(d.remarks.size() == 1);
    CHECK(d.remarks[0] == "test.mbd:11: remark: stiffness, 6, ok");
    CHECK(d.settings.assembly_position_stiffness == 10.0);
    CHECK(d.settings.assembly_velocity_stiffness == 20.0);
    CHECK(d.settings.assembly_omega_rotates);
    CHECK(d.settings.assembly_use_bodies);
    CHECK(d.settings.assembly_use_forces);
    CHECK_FALSE(d.settings.skip_initial_joint_assembly);
}
