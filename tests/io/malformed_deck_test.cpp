// mbstep tests — malformed decks: each case must throw DeckError whose text starts with
// `<file>:<line>:<column>:` at the expected line and names what was expected. Then every
// truncation and a set of byte mutations of a valid deck must either read or throw DeckError
// (nothing else, no crash).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io_support.hpp"

using namespace mbstep;
using test::kPrelude;

namespace {

struct Case {
    const char* name;
    std::string deck;
    int line;
    const char* message;  ///< a substring of the message
};

/// kPrelude + text: text starts at line 11.
std::string P(const std::string& text) { return std::string(kPrelude) + text; }

/// Two nodes (1 dynamic, 2 static); `counts` is one line (line 12, after `structural nodes`);
/// the first line of `elements` is line 19.
std::string Model(const std::string& counts, const std::string& elements) {
    return P("structural nodes: 2;\n" + counts +
             "\nend: control data;\n"
             "begin: nodes;\n"
             "    structural: 1, dynamic, null, eye, null, null;\n"
             "    structural: 2, static, null, eye, null, null;\n"
             "end: nodes;\n"
             "begin: elements;\n" +
             elements + "\nend: elements;\n");
}

/// Three nodes on the x axis (x = 0, 0.5, 1); `counts` is line 12, the first line of `elements`
/// line 20.
std::string Beams(const std::string& counts, const std::string& elements) {
    return P("structural nodes: 3;\n" + counts +
             "\nend: control data;\n"
             "begin: nodes;\n"
             "    structural: 1, dynamic, null, eye, null, null;\n"
             "    structural: 2, dynamic, 0.5, 0., 0., eye, null, null;\n"
             "    structural: 3, dynamic, 1., 0., 0., eye, null, null;\n"
             "end: nodes;\n"
             "begin: elements;\n" +
             elements + "\nend: elements;\n");
}
/// Two abstract nodes (x = 0.5 and y = 0) and a `lagrangian` genel whose first line (line 18)
/// names them x, y with rates u, w; `rest` is line 19, `node2` line 15, `counts` line 11.
std::string Lagrangian(const std::string& rest,
                       const std::string& node2 = "    abstract: 2, differential;",
                       const std::string& counts = "abstract nodes: 2; genels: 1;") {
    return P(counts +
             "\nend: control data;\n"
             "begin: nodes;\n"
             "    abstract: 1, differential, value, 0.5, derivative, 0.;\n" +
             node2 +
             "\nend: nodes;\n"
             "begin: elements;\n"
             "    genel: 1, lagrangian, coordinates, 2, 1, \"x\", \"u\", 2, \"y\", \"w\",\n" +
             rest + "\nend: elements;\n");
}
/// Structural node 1 (line 14) and abstract node 1 (line 15); a `lagrangian` genel whose first
/// line (line 18) names the coordinate q and rate u; `rest` is line 19, `counts` line 11.
std::string Positions(
    const std::string& rest,
    const std::string& counts = "structural nodes: 1; abstract nodes: 1; genels: 1;") {
    return P(counts +
             "\nend: control data;\n"
             "begin: nodes;\n"
             "    structural: 1, dynamic, 1., 0., 0., eye, null, null;\n"
             "    abstract: 1, differential, value, 0.5;\n"
             "end: nodes;\n"
             "begin: elements;\n"
             "    genel: 1, lagrangian, coordinates, 1, 1, \"q\", \"u\",\n" +
             rest + "\nend: elements;\n");
}
const std::string kLaw = "linear elastic generic, diag, 1.e3, 1.e3, 1.e3, 1., 1., 1.";

/// One node whose orientation (line 15) is `orientation`.
std::string Orient(const std::string& orientation) {
    return P(
        "structural nodes: 1;\nend: control data;\nbegin: nodes;\n"
        "structural: 1, dynamic, null,\n    " +
        orientation + ", null, null;\nend: nodes;\n");
}

/// initial value block whose line 3 is `statement`.
std::string Initial(const std::string& statement) {
    return "begin: initial value;\n    final time: 1.;\n    " + statement +
           "\n    method: test-method;\nend: initial value;\nbegin: control data;\nend: control "
           "data;\n";
}

const std::string kOneNode = "structural nodes: 1;\nend: control data;\nbegin: nodes;\n";

std::vector<Case> Cases() {
    return {
        {"expression syntax", P("structural nodes: 1 +;\n"), 11, "expected an expression"},
        {"unknown control data keyword", P("foo bar: 1;\n"), 11,
         "unknown keyword 'foo bar' in control data block; accepted: structural nodes"},
        {"unknown initial value keyword", Initial("tolerancee: 1e-6;"), 3,
         "unknown keyword 'tolerancee' in initial value block; accepted:"},
        {"unknown top-level keyword", "foo: 1;\n", 1, "unknown keyword 'foo' outside blocks"},
        {"node count mismatch",
         P("structural nodes: 2;\nend: control data;\nbegin: nodes;\n"
           "structural: 1, dynamic, null, eye, null, null;\nend: nodes;\n"),
         11, "control data declares 2 structural nodes but the deck defines 1"},
        {"joint count expression mismatch", Model("joints: 1 + 1;", "joint: 1, test-joint, 1, 2;"),
         12, "control data declares 2 joints but the deck defines 1"},
        {"bodies not declared", Model("", "body: 1, 1, 1., null, eye;"), 19,
         "control data does not declare them ('rigid bodies: 1;' is missing)"},
        {"undefined node label", Model("joints: 1;", "joint: 1, test-joint, 1, 7;"), 19,
         "undefined structural node 7"},
        {"duplicate node label",
         P(kOneNode + "structural: 1, dynamic, null, eye, null, null;\n"
                      "structural: 1, static, null, eye, null, null;\nend: nodes;\n"),
         15, "structural node 1 is already defined (at test.mbd:14:1)"},
        {"duplicate joint label",
         Model("joints: 2;", "joint: 1, test-joint, 1, 2;\njoint: 1, test-joint, 2, 1;"), 20,
         "duplicate joint label 1"},
        {"negative mass", Model("rigid bodies: 1;", "body: 1, 1, -2., null, eye;"), 19,
         "mass must be positive"},
        {"inertia not positive definite",
         Model("rigid bodies: 1;", "body: 1, 1, 2., null, diag, 1., -1., 1.;"), 19,
         "positive definite"},
        {"non-orthogonal matrix", Orient("matr, 1, 0, 0, 0, 2, 0, 0, 0, 1"), 15,
         "non-orthogonal orientation matrix"},
        {"null orientation", Orient("null"), 15, "'null' is not an orientation"},
        {"parallel axes", Orient("1, 1., 0., 0., 2, 2., 0., 0."), 15, "parallel to axis 1"},
        {"zero-length axis", Orient("1, 0., 0., 0., 2, 0., 1., 0."), 15, "zero-length axis 1"},
        {"axis index", Orient("4, 1., 0., 0., 2, 0., 1., 0."), 15, "axis index must be 1, 2 or 3"},
        {"unknown orientation keyword", Orient("eul, 1, 2, 3"), 15, "expected an orientation"},
        {"NaN in set:", P("set: real x = 0./0.;\n"), 11, "non-finite value"},
        {"1/0. argument", P(kOneNode + "structural: 1, dynamic, 1/0., 0., 0., eye, null, null;\n"),
         14, "non-finite value"},
        {"integer division by zero", P("joints: 1/0;\n"), 11, "integer division by zero"},
        {"unknown method",
         "begin: initial value;\n    final time: 1.;\n    time step: 0.1;\n"
         "    method: foo-method, 0.6;\n",
         4, "unknown method 'foo'; registered:"},
        {"unterminated string", P("title: \"abc;\nend: control data;\n"), 11,
         "unterminated string"},
        {"unterminated comment", P("/* never closed\n"), 11, "unterminated comment"},
        {"unterminated escape", P("#beginescape\n"), 11, "unterminated #beginescape"},
        {"missing end", P("end: control data;\nbegin: nodes;\n"), 13,
         "missing 'end: nodes;' (block opened at test.mbd:12:1)"},
        {"missing control data block",
         "begin: initial value;\n    final time: 1.;\n    method: test-method;\nend: initial "
         "value;\n",
         5, "missing 'begin: control data;' block"},
        {"unknown drive", P("end: control data;\ndrive caller: 1, foo, 2;\n"), 12,
         "unknown drive 'foo'"},
        {"undefined reference",
         P(kOneNode + "structural: 1, dynamic, reference, 99, null, eye, null, null;\n"), 14,
         "undefined reference 99"},
        {"undefined drive caller", P("end: control data;\ndrive caller: 2, reference, 3;\n"), 12,
         "undefined drive caller 3"},
        {"dummy node of an undefined node",
         P(kOneNode + "structural: 2, dummy, 7, offset, null, eye;\n"), 14,
         "undefined structural node 7"},
        {"dummy node type",
         P(kOneNode +
           "structural: 1, dynamic, null, eye, null, null;\nstructural: 2, dummy, 1, foo;\n"),
         15, "expected dummy node type"},
        {"dummy node on a dummy node",
         P("structural nodes: 3;\nend: control data;\nbegin: nodes;\n"
           "structural: 1, dynamic, null, eye, null, null;\n"
           "structural: 2, dummy, 1, offset, null, eye;\n"
           "structural: 3, dummy, 2, offset, null, eye;\n"),
         16, "is a dummy node; dummy nodes must be based on"},
        {"element on a dummy node",
         P("structural nodes: 3; joints: 1;\nend: control data;\nbegin: nodes;\n"
           "structural: 1, dynamic, null, eye, null, null;\n"
           "structural: 2, static, null, eye, null, null;\n"
           "structural: 3, dummy, 1, offset, 1., 0., 0., eye;\nend: nodes;\n"
           "begin: elements;\njoint: 1, spherical hinge, 2, null, 3, null;\n"),
         19, "structural node 3 is a dummy node: elements cannot be connected to dummy nodes"},
        // Joints and springs: same node twice, degenerate axes, missing drives,
        // wrong argument counts, unknown laws.
        {"cardano hinge on one node",
         Model("joints: 1;", "joint: 1, cardano hinge, 1, null, 1, null;"), 19,
         "a cardano hinge needs two different nodes"},
        {"gimbal rotation without second node",
         Model("joints: 1;", "joint: 1, gimbal rotation, 1;"), 19, "node label"},
        {"in plane zero normal", Model("joints: 1;", "joint: 1, in plane, 1, null, 0., 0., 0., 2;"),
         19, "the plane normal must be a non-zero vector"},
        {"in line non-orthogonal frame",
         Model("joints: 1;",
               "joint: 1, in line, 1, null, matr, 1., 0., 0., 0., 2., 0., 0., 0., 1., 2;"),
         19, "ortho"},
        {"angular velocity zero axis",
         Model("joints: 1;", "joint: 1, angular velocity, 1, 0., 0., 0., 1.;"), 19,
         "the direction must be non-zero"},
        {"axial rotation without drive",
         Model("joints: 1;", "joint: 1, axial rotation, 1, null, 2, null;"), 19,
         "missing the angular velocity drive"},
        {"drive hinge without drive", Model("joints: 1;", "joint: 1, drive hinge, 1, 2;"), 19,
         "missing the imposed rotation drive"},
        {"distance without drive", Model("joints: 1;", "joint: 1, distance, 1, 2;"), 19,
         "missing the distance drive"},
        {"distance from coincident nodes",
         Model("joints: 1;", "joint: 1, distance, 1, 2, from nodes;"), 19,
         "the two points coincide"},
        {"total joint with two flags",
         Model("joints: 1;", "joint: 1, total joint, 1, 2, position constraint, 1, 1;"), 19,
         "position constraint flag"},
        {"total joint velocity flag",
         Model("joints: 1;",
               "joint: 1, total joint, 1, 2, position constraint, velocity, 1, 1, null;"),
         19, "velocity-level position constraints in total joints are not supported"},
        {"total pin joint without vector drive",
         Model("joints: 1;",
               "joint: 1, total pin joint, 1, position constraint, 1, 1, 1, const, 1.;"),
         19, "(in imposed relative position direction, component 1)"},
        {"rod of coincident points",
         Model("joints: 1;", "joint: 1, rod, 1, 2, from nodes, linear elastic, 1.;"), 19,
         "the rod reference length must be positive"},
        {"rod with coincident ends",
         Model("joints: 1;", "joint: 1, rod, 1, 2, 1., linear elastic, 1.;"), 19,
         "the rod's end points coincide"},
        {"rod negative stiffness",
         Model("joints: 1;", "joint: 1, rod, 1, position, 1., 0., 0., 2, 1., linear elastic, -5.;"),
         19, "stiffness must be non-negative"},
        {"rod without law", Model("joints: 1;", "joint: 1, rod, 1, position, 1., 0., 0., 2, 1.;"),
         19, "expected constitutive law"},
        {"deformable hinge unknown law",
         Model("joints: 1;", "joint: 1, deformable hinge, 1, 2, linear plastic, 1.;"), 19,
         "expected constitutive law"},
        // Joint friction (elements/joints/friction.hpp).
        {"revolute friction model modlugre",
         Model("joints: 1;",
               "joint: 1, revolute hinge, 1, null, 2, null, friction, 0.1, modlugre, 1e3, 1., "
               "0., 0.5, const, 0.3, simple;"),
         19, "revolute hinge: this friction model is not supported; accepted: coulomb"},
        {"revolute friction model discrete coulomb",
         Model("joints: 1;",
               "joint: 1, revolute pin, 1, null, null, friction, 0.1, discrete coulomb, "
               "const, 0.3, simple;"),
         19, "revolute pin: this friction model is not supported"},
        {"revolute friction unknown model",
         Model("joints: 1;", "joint: 1, revolute hinge, 1, null, 2, null, friction, 0.1, dry;"), 19,
         "expected friction model (one of: coulomb)"},
        {"revolute friction without radius",
         Model("joints: 1;", "joint: 1, revolute hinge, 1, null, 2, null, friction, coulomb, 0.3;"),
         19, "friction average radius"},
        {"revolute friction negative radius",
         Model("joints: 1;",
               "joint: 1, revolute hinge, 1, null, 2, null, friction, -0.1, coulomb, 0.3;"),
         19, "the friction average radius must be positive"},
        {"revolute friction negative coefficient",
         Model("joints: 1;", "joint: 1, revolute pin, 1, null, null, friction, 0.1, coulomb, -1.;"),
         19, "revolute pin: the friction coefficient must be non-negative"},
        {"revolute friction zero regularization",
         Model("joints: 1;",
               "joint: 1, revolute hinge, 1, null, 2, null, friction, 0.1, coulomb, 0.3, "
               "regularization, 0.;"),
         19, "the regularization velocity must be positive"},
        {"revolute friction negative preload",
         Model("joints: 1;",
               "joint: 1, revolute hinge, 1, null, 2, null, friction, 0.1, preload, -2., coulomb, "
               "0.3;"),
         19, "the friction preload must be non-negative"},
        {"revolute friction shape simple plane hinge",
         Model("joints: 1;",
               "joint: 1, revolute hinge, 1, null, 2, null, friction, 0.1, coulomb, 0.3, simple "
               "plane hinge, 0.1;"),
         19, "the friction shape function 'simple plane hinge' is not supported"},
        {"in line friction without coefficient",
         Model("joints: 1;", "joint: 1, in line, 1, null, eye, 2, friction, coulomb;"), 19,
         "friction coefficient"},
        {"in line friction trailing argument",
         Model("joints: 1;", "joint: 1, in line, 1, null, eye, 2, friction, coulomb, 0.2, 7.;"), 19,
         "unexpected argument '7.' in 'joint'"},
        {"prismatic friction",
         Model("joints: 1;", "joint: 1, prismatic, 1, 2, friction, coulomb, 0.2;"), 19,
         "put `friction, ...` on the `in line` joint of the translational pair"},
        {"drivers block", P("end: control data;\nbegin: drivers;\n"), 12,
         "the 'drivers' block is not supported"},
        {"wrong end", P("end: control data;\nbegin: nodes;\nend: elements;\n"), 13,
         "expected 'end: nodes;'"},
        {"end without begin", P("end: control data;\nend: nodes;\n"), 12,
         "'end: nodes;' without 'begin: nodes;'"},
        {"unknown block", P("end: control data;\nbegin: foo;\n"), 12,
         "expected block name (one of:"},
        {"block twice", P("end: control data;\nbegin: control data;\n"), 12, "appears twice"},
        {"begin inside block", P("begin: nodes;\n"), 11, "inside block 'control data'"},
        {"extra element argument", Model("joints: 1;", "joint: 1, test-joint, 1, 2, 3;"), 19,
         "unexpected argument '3' in 'joint'"},
        {"unknown joint type", Model("joints: 1;", "joint: 1, foo bar, 1, 2;"), 19,
         "unknown joint type 'foo bar'; accepted:"},
        {"unsupported element statement", Model("", "plate: 1, 1, 2, 1, 2;"), 19,
         "not supported in the elements block"},
        {"beam count mismatch",
         Beams("beams: 2;", "beam3: 1, 1, null, 2, null, 3, null, eye, " + kLaw + ", same, same;"),
         12, "control data declares 2 beams but the deck defines 1"},
        {"beam law referenced before its definition",
         Beams("beams: 1;", "beam3: 1, 1, null, 2, null, 3, null, eye, reference, 7, same, same;"),
         20, "undefined constitutive law 7"},
        {"beam law of the wrong dimension",
         Beams("beams: 1;",
               "constitutive law: 7, 3, linear elastic, 1.;\n"
               "beam3: 1, 1, null, 2, null, 3, null, eye, reference, 7, same, same;"),
         21, "constitutive law 7 has dimension 3"},
        {"beam section stiffness not positive definite",
         Beams("beams: 1;",
               "beam3: 1, 1, null, 2, null, 3, null, eye, linear elastic generic, "
               "diag, 1., 1., 1., 1., 0., 1., same, same;"),
         20, "the beam section stiffness is not positive definite"},
        {"negative stiffness in a law",
         Beams("beams: 1;",
               "beam3: 1, 1, null, 2, null, 3, null, eye, linear elastic generic, "
               "diag, 1., 1., 1., 1., -2., 1., same, same;"),
         20, "stiffness matrix is not positive semi-definite"},
        {"beam with coincident nodes",
         Beams("beams: 1;", "beam3: 1, 1, null, 1, null, 3, null, eye, " + kLaw + ", same, same;"),
         20, "coincide: the beam has zero length there"},
        {"'same' at the first beam point",
         Beams("beams: 1;", "beam3: 1, 1, null, 2, null, 3, null, same, " + kLaw + ", same, same;"),
         20, "'same' is not valid for the first evaluation point"},
        {"unknown constitutive law",
         Beams("beams: 1;",
               "beam3: 1, 1, null, 2, null, 3, null, eye, nonlinear foo, 1., same, same;"),
         20,
         "expected constitutive law (beam section law of point I, dimension 6), got 'nonlinear "
         "foo'"},
        {"constitutive law dimension",
         P("end: control data;\nconstitutive law: 1, 2, linear elastic, 1.;\n"), 12,
         "constitutive law dimension must be 1, 3 or 6, got 2"},
        {"driven joint with multipliers",
         Model("joints: 1;", "driven: 1, const, 1., joint: 1, spherical hinge, 1, null, 2, null;"),
         19, "elements with Lagrange multipliers cannot be driven"},
        {"driven label differs",
         Model("joints: 1;", "driven: 2, const, 1., joint: 1, rod, 1, 2, 1., linear elastic, 1.;"),
         19, "the driven element's label 2 differs from its joint label 1"},
        {"missing ';'", P("structural nodes: 1\nrigid bodies: 0;\n"), 12,
         "expected ',' or ';' after structural nodes, got 'rigid bodies'"},
        {"truncated statement", P("structural nodes: 1"), 11,
         "expected ';' at the end of 'structural nodes', got end of file"},
        {"trailing comma", Initial("tolerance: 1e-6, ;"), 3, "expected an argument after ','"},
        {"zero time step", Initial("time step: 0.;"), 3, "time step must be positive"},
        {"string for a number", Initial("time step: \"abc\";"), 3,
         "expected a real number (time step), got a string"},
        {"final before initial",
         "begin: initial value;\n    initial time: 2.;\n    final time: 1.;\n"
         "    method: test-method;\nend: initial value;\nbegin: control data;\nend: control "
         "data;\n",
         3, "final time (1) must be greater than initial time (2)"},
        {"unknown linear solver", Initial("linear solver: foo;"), 3,
         "expected linear solver (one of:"},
        {"unknown linear solver ordering", Initial("linear solver: klu, ordering, metis;"), 3,
         "expected linear solver ordering (one of:"},
        {"linear solver ordering without value", Initial("linear solver: klu, ordering;"), 3,
         "linear solver ordering"},
        {"linear solver mt without count", Initial("linear solver: klu, mt, two;"), 3,
         "expected an integer"},
        {"undefined variable", P("structural nodes: N;\n"), 11,
         "expected an integer (structural nodes), got 'N' (undefined variable 'N')"},
        {"assignment to const", P("set: const real a = 1.;\nset: a = 2.;\n"), 12,
         "cannot assign to const variable 'a'"},
        {"non-integer count", P("joints: 1.5;\n"), 11, "expected an integer (joints), got 1.5"},
        {"unsupported count", P("thermal nodes: 2;\n"), 11, "'thermal nodes' are not supported"},
        {"unknown model type", P("model: nonsense;\n"), 11,
         "expected model type (one of: static, dynamic), got 'nonsense'"},
        {"negative node label", P(kOneNode + "structural: -1, dynamic, null, eye, null, null;\n"),
         14, "a label must be non-negative"},
        {"missing include", P("include: \"no-such-file.ref\";\n"), 11, "cannot open include file"},
        {"statement keyword", P("123: 4;\n"), 11, "expected a statement keyword, got '123'"},
        {"gravity flag without element", P("gravity;\nend: control data;\n"), 11,
         "control data declares gravity but no gravity element is defined"},
        {"gravity element without flag", Model("", "gravity: uniform, 0., 0., -1., const, 9.81;"),
         19, "control data lacks 'gravity;'"},
        {"gravity twice",
         Model("gravity;", "gravity: 0., 0., -1., 9.81;\ngravity: 0., 0., -1., 9.81;"), 20,
         "gravity is already defined"},
        // Expressions nested deeper than the parser's limit (flat chains have none).
        {"expression nested too deeply",
         P("set: real x = " + std::string(50, '(') + "1" + std::string(50, ')') + ";\n"), 11,
         "expression nested too deeply (depth limit 200: a parenthesis counts 4, a unary "
         "operator 1)"},
        {"drive callers nested too deeply",
         [] {
             std::string d = "end: control data;\ndrive caller: 1, ";
             for (int i = 0; i < 101; ++i) d += "drive, ";
             return P(d + "const, 1.;\n");
         }(),
         12, "drive callers nested too deeply (at most 100 levels)"},
        // Integers out of range are errors naming the range, never wrapped around.
        {"max iterations 2^31", Initial("max iterations: 2147483648;"), 3,
         "max iterations must be in 1..2147483647, got 2147483648"},
        {"max iterations 2^32 + 1", Initial("max iterations: 4294967297;"), 3,
         "max iterations must be in 1..2147483647, got 4294967297"},
        {"max iterations 0", Initial("max iterations: 0;"), 3,
         "max iterations must be in 1..2147483647, got 0"},
        {"max iterations 1e300", Initial("max iterations: 1e300;"), 3,
         "max iterations must be in 1..2147483647, got 1e+300"},
        {"derivatives max iterations 2^32", Initial("derivatives max iterations: 4294967296;"), 3,
         "derivatives max iterations must be in 1..2147483647, got 4294967296"},
        {"modified newton iterations 0", Initial("nonlinear solver: newton raphson, modified, 0;"),
         3, "modified newton iterations must be in 1..2147483647, got 0"},
        {"strategy steps 2^31", Initial("strategy: factor, 0.5, 2147483648, 1.2, 1, 1;"), 3,
         "steps before reduction must be in 0..2147483647, got 2147483648"},
        {"linear solver mt 2^31", Initial("linear solver: klu, mt, 2147483648;"), 3,
         "linear solver option value must be in 0..2147483647, got 2147483648"},
        {"joint count 2^32 + 1", P("joints: 4294967297;\n"), 11,
         "joints must be in 0..2147483647, got 4294967297"},
        {"negative joint count", P("joints: -1;\n"), 11, "joints must be in 0..2147483647, got -1"},
        {"output frequency 0", P("output frequency: 0;\n"), 11,
         "output frequency must be in 1..2147483647, got 0"},
        {"output precision 18", P("output precision: 18;\n"), 11,
         "output precision must be in 1..17, got 18"},
        {"assembly max iterations 2^31", P("max iterations: 2147483648;\n"), 11,
         "initial assembly max iterations must be in 0..2147483647, got 2147483648"},
        {"node label 2^31",
         P(kOneNode + "structural: 2147483648, dynamic, null, eye, null, null;\n"), 14,
         "structural node label must be in 0..2147483647, got 2147483648"},
        {"constitutive law dimension 2^32",
         P("end: control data;\nconstitutive law: 1, 4294967296, linear elastic, 1.;\n"), 12,
         "constitutive law dimension must be in -2147483648..2147483647, got 4294967296"},
        {"condensed masses 3e9",
         Model("rigid bodies: 1;", "body: 1, 1, condense, 3000000000, 1., null, eye;"), 19,
         "number of masses must be in 1..2147483647, got 3000000000"},
        {"bdf order 2^32 + 2",
         "begin: initial value;\n    final time: 1.;\n    method: bdf, order, 4294967298;\n", 3,
         "bdf order must be in -2147483648..2147483647, got 4294967298"},
        // include: only regular files (a device would be read without end, a directory reads
        // Abstract nodes and the lagrangian genel.
        {"lagrangian: malformed expression",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2) +* x\";"), 19,
         "expected an expression"},
        {"lagrangian: unknown name", Lagrangian("        kinetic energy, \"0.5*(u^2 + z^2)\";"), 19,
         "undefined variable 'z'"},
        {"lagrangian: undefined abstract node",
         P("abstract nodes: 1; genels: 1;\nend: control data;\nbegin: nodes;\n"
           "    abstract: 1, differential;\nend: nodes;\nbegin: elements;\n"
           "    genel: 1, lagrangian, coordinates, 1, 7, \"x\", \"u\", kinetic energy, \"u^2\";\n"
           "end: elements;\n"),
         17, "undefined abstract node 7"},
        {"lagrangian: T not differentiable at the initial state (abs at its kink)",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2) + abs(x - 0.5)\";"), 19,
         "'abs' is not differentiable at 0"},
        {"lagrangian: a function without a derivative rule",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2)\", potential energy, \"sign(y)\";"),
         19, "'sign' of a differentiation variable has no derivative rule"},
        {"lagrangian: fewer constraints than declared",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2)\", constraints, 2, \"x - y\";"), 19,
         "constraint 2"},
        {"lagrangian: a rate in the potential",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2)\", potential energy, \"x*u\";"), 19,
         "depends on the rate 'u'"},
        {"lagrangian: Time in T", Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2)*Time\";"),
         19, "depends on Time"},
        {"abstract: algebraic node",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2)\";", "    abstract: 2, algebraic;"),
         15, "'algebraic' abstract nodes are not supported"},
        {"abstract: count differs from control data",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2)\";",
                    "    abstract: 2, differential;", "abstract nodes: 3; genels: 1;"),
         11, "control data declares 3 abstract nodes but the deck defines 2"},
        {"lagrangian: a coordinate named as a set: variable",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2)\";",
                    "    abstract: 2, differential;",
                    "abstract nodes: 2; genels: 1; set: real x = 1.;"),
         19, "'x' (in kinetic energy) is the name of a deck variable"},
        // The lagrangian genel's positions of structural nodes.
        {"lagrangian positions: undefined structural node",
         Positions("        positions, 1, 7, \"x\", \"y\", \"z\", kinetic energy, \"u^2\";"), 19,
         "undefined structural node 7"},
        {"lagrangian positions: two names for a node",
         Positions("        positions, 1, 1, \"x\", \"y\", kinetic energy, \"u^2\";"), 19,
         "position z name"},
        {"lagrangian positions: no node",
         Positions("        positions, 0, kinetic energy, \"u^2\";"), 19,
         "number of structural nodes"},
        {"lagrangian positions: a node listed twice",
         Positions("        positions, 2, 1, \"x\", \"y\", \"z\", 1, \"a\", \"b\", \"c\",\n"
                   "        kinetic energy, \"u^2\";"),
         19, "structural node 1 is listed twice"},
        {"lagrangian positions: a name used twice",
         Positions("        positions, 1, 1, \"x\", \"q\", \"z\", kinetic energy, \"u^2\";"), 19,
         "'q' is used twice"},
        {"lagrangian positions: a position in the kinetic energy",
         Positions("        positions, 1, 1, \"x\", \"y\", \"z\", kinetic energy, \"u^2 + x^2\";"),
         19, "depends on the position 'x' of structural node 1"},
        {"lagrangian positions: a position named as a set: variable",
         Positions("        positions, 1, 1, \"x\", \"y\", \"z\", kinetic energy, \"u^2\";",
                   "structural nodes: 1; abstract nodes: 1; genels: 1; set: real y = 1.;"),
         19, "'y' (in kinetic energy) is the name of a deck variable"},
        {"abstract: duplicate label",
         Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2)\";",
                    "    abstract: 1, differential;"),
         15, "abstract node 1 is already defined"},
        // as nothing); the error is at the include statement.
        {"include of a character device", P("include: \"/dev/zero\";\n"), 11,
         "include file '/dev/zero': not a regular file (a character device)"},
        {"include of a directory", P("include: \"/tmp\";\n"), 11,
         "include file '/tmp': not a regular file (a directory)"},
    };
}

}  // namespace

TEST_CASE("malformed decks: file:line:column and message") {
    const std::vector<Case> cases = Cases();
    CHECK(cases.size() >= 30);
    for (const Case& c : cases) {
        INFO("case '" << std::string(c.name) << "'\n" << c.deck);
        try {
            test::Read(c.deck, "test.mbd");
            FAIL("no error");
        } catch (const DeckError& e) {
            const std::string what = e.what();
            INFO("error: " << what);
            CHECK(e.where().file == "test.mbd");
            CHECK(e.where().line == c.line);
            CHECK(e.where().column >= 1);
            CHECK(what.rfind("test.mbd:" + std::to_string(c.line) + ":" +
                                 std::to_string(e.where().column) + ": ",
                             0) == 0);
            CHECK(e.message().find(c.message) != std::string::npos);
        }
    }
}

TEST_CASE("malformed decks: truncations and mutations never crash") {
    const std::string valid = P(R"DECK(
    structural nodes: 2; joints: 1;
end: control data;
set: real L = 1.5;
reference: 1, reference, global, 0., L, 0., reference, global, 1, 1., 0., 0., 2, 0., 1., 0.,
    reference, global, null, reference, global, 0., 0., 2.*pi;
drive caller: 3, string, "sin(2*pi*Time)*(Time > 0.5)";
begin: nodes;
    structural: 1, dynamic, reference, 1, null, reference, 1, euler123, 0.1, 0.2, 0.3,
        reference, 1, null, reference, 1, null, output, yes;
    structural: 2, static, 0., 0., L/2, eye, null, null; # comment
end: nodes;
begin: elements;
    joint: 1, test-joint, 1, 2;
end: elements;
)DECK");
    CHECK_NOTHROW(test::Read(valid));
    auto attempt = [](const std::string& text) {
        try {
            test::Read(text);
        } catch (const DeckError&) {
        } catch (const std::exception& e) {
            FAIL("non-DeckError exception: " << e.what() << "\n" << text);
        }
    };
    for (std::size_t n = 0; n < valid.size(); ++n) attempt(valid.substr(0, n));
    std::mt19937 rng(12345);
    const std::string alphabet = ",;:()\"#/*-+eE.0123456789 \nabcxyz[]{}\\";
    for (int k = 0; k < 3000; ++k) {
        std::string text = valid;
        const int edits = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits; ++e) {
            const std::size_t at = rng() % text.size();
            switch (rng() % 3) {
                case 0:
                    text[at] = alphabet[rng() % alphabet.size()];
                    break;
                case 1:
                    text.erase(at, 1 + rng() % 8);
                    break;
                default:
                    text.insert(at, 1, alphabet[rng() % alphabet.size()]);
                    break;
            }
            if (text.empty()) text = ";";
        }
        attempt(text);
    }
}

TEST_CASE("every unsupported statement of a deck is reported in one run") {
    const std::string deck =
        P("structural nodes: 2;\njoints: 1;\nend: control data;\n"
          "begin: nodes;\n"
          "    structural: 1, dynamic, null, eye, null, null;\n"
          "    structural: 2, static, null, eye, null, null;\n"
          "end: nodes;\n"
          "begin: elements;\n"
          "    plate: 1, 1, 2, 1, 2;\n"                       // line 19
          "    joint: 1, test-joint, 1, 2;\n"                 // line 20
          "    aerodynamic body: 2, 1, null, eye, 1., 1.;\n"  // line 21
          "end: elements;\n");
    try {
        test::Read(deck, "test.mbd");
        FAIL("no error");
    } catch (const DeckError& e) {
        INFO(e.what());
        CHECK(e.where().line == 19);  // the first one locates the error
        CHECK(e.message().find("'plate' statements are not supported") != std::string::npos);
        CHECK(e.message().find("and 1 more error") != std::string::npos);
        CHECK(e.message().find("test.mbd:21:5: 'aerodynamic body' statements are not supported") !=
              std::string::npos);
    }
}

TEST_CASE("include: files over the size cap, and a root deck that is not a regular file") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "mbstep_include_cap";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path big = dir / "big.mbd";
    { std::ofstream(big) << "# sparse\n"; }
    fs::resize_file(big, (std::uintmax_t{256} << 20) + 1);  // sparse: no disk, no memory
    try {
        test::Read(P("include: \"" + big.string() + "\";\n"), "test.mbd");
        FAIL("no error");
    } catch (const DeckError& e) {
        CHECK(std::string(e.what()) == "test.mbd:11:10: include file '" + big.string() +
                                           "': larger than the 256 MiB limit (268435457 bytes)");
    }
    try {
        ReadDeck("/dev/zero", test::TestRegistry());
        FAIL("no error");
    } catch (const DeckError& e) {
        CHECK(std::string(e.what()).find("deck file: not a regular file (a character device)") !=
              std::string::npos);
        CHECK(e.where().file == "/dev/zero");
    }
    fs::remove_all(dir);
}

TEST_CASE("malformed decks: lagrangian expression errors point inside the string") {
    // Line 19 is `        kinetic energy, "0.5*(u^2 + z^2)";`: the string opens at column
    // 25, z is its 12th character: column 37.
    try {
        test::Read(Lagrangian("        kinetic energy, \"0.5*(u^2 + z^2)\";"), "test.mbd");
        FAIL("no error");
    } catch (const DeckError& e) {
        CHECK(e.where().line == 19);
        CHECK(e.where().column == 37);
    }
    // abs( starts at column 44 of `        kinetic energy, "0.5*(u^2 + w^2) + abs(x - 0.5)";`.
    try {
        test::Read(Lagrangian("        kinetic energy, \"0.5*(u^2 + w^2) + abs(x - 0.5)\";"),
                   "test.mbd");
        FAIL("no error");
    } catch (const DeckError& e) {
        CHECK(e.where().line == 19);
        CHECK(e.where().column == 44);
    }
    // A valid element reads, with its nodes' initial values.
    const Deck deck = test::Read(Lagrangian(
        "        kinetic energy, \"0.5*(u^2 + w^2)\", potential energy, \"0.5*(x^2 + y^2)\",\n"
        "        constraints, 1, \"x - y\";"));
    REQUIRE(deck.model.abstract_nodes().size() == 2);
    CHECK(deck.model.abstract_nodes()[0].x0 == 0.5);
    CHECK(deck.model.abstract_nodes()[1].x0 == 0.0);
    CHECK(deck.model.elements()[0]->num_multipliers() == 1);
    CHECK(deck.model.elements()[0]->abstract_nodes() == std::vector<int>{0, 1});
}
