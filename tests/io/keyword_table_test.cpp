// mbstep tests — no silent reads: every statement keyword of the deck reader's keyword tables
// (mbstep/io/deck_keywords.hpp, the tables the reader dispatches through) has a row here, and
// each row's statement either acts (a field the run uses changes from its default), or warns at
// its line, or is refused with `file:line:column:` at its line. A keyword added to a table
// without a row here fails the completeness check; a keyword of a block with a manual table
// must have a manual line naming it.
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io_support.hpp"
#include "mbstep/io/deck_keywords.hpp"
#include "mbstep/io/netcdf.hpp"
#include "mbstep/solver/linear_solver.hpp"

using namespace mbstep;

namespace {

enum class Block { kTop, kInitialValue, kControlData, kNodes, kElements };
const char* const kCounts = "structural nodes: 1; rigid bodies: 1;";
enum class Outcome { kActs, kWarns, kRefused };

struct Row {
    const char* keyword;  ///< as dispatched on by the reader
    Block block;
    std::string statement;
    Outcome outcome;
    /// kActs: true with the statement, false without it (so the statement changed something).
    std::function<bool(const Deck&)> acts;
    std::string counts = kCounts;
};

constexpr int kLineTop = 1, kLineInitialValue = 7, kLineControlData = 11, kLineNodes = 15,
              kLineElements = 19;

/// The statement on its block's line (one statement per line; the others blank).
std::string DeckWith(const Row& row, bool with) {
    auto at = [&](Block b) { return with && row.block == b ? row.statement : std::string(); };
    return at(Block::kTop) + "\n" +                               // 1
           "begin: data;\nproblem: initial value;\nend: data;\n"  // 2-4
           "begin: initial value;\nfinal time: 0.01;\n" +         // 5-6
           at(Block::kInitialValue) +
           "\n" +                                           // 7
           "end: initial value;\nbegin: control data;\n" +  // 8-9
           std::string(with ? row.counts : "structural nodes: 1; rigid bodies: 1;") + "\n" +
           at(Block::kControlData) + "\n" +                      // 11
           "end: control data;\nbegin: nodes;\n"                 // 12-13
           "structural: 1, dynamic, null, eye, null, null;\n" +  // 14
           at(Block::kNodes) +
           "\n" +                                                           // 15
           "end: nodes;\nbegin: elements;\nbody: 1, 1, 1., null, eye;\n" +  // 16-18
           at(Block::kElements) + "\nend: elements;\n";                     // 19-20
}

int LineOf(Block b) {
    switch (b) {
        case Block::kTop:
            return kLineTop;
        case Block::kInitialValue:
            return kLineInitialValue;
        case Block::kControlData:
            return kLineControlData;
        case Block::kNodes:
            return kLineNodes;
        case Block::kElements:
            return kLineElements;
    }
    return 0;
}

const SolverSettings& S(const Deck& d) { return d.settings.solver; }

std::vector<Row> Table() {
    using B = Block;
    using O = Outcome;
    const auto none = std::function<bool(const Deck&)>();
    std::vector<Row> rows = {
        // Anywhere (MBDyn input manual, "General"): definitions act when used; remark prints.
        {"set", B::kTop, "set: real X = 2.5; remark: \"x\", X;", O::kActs,
         [](const Deck& d) {
             return !d.remarks.empty() && d.remarks[0].find("2.5") != std::string::npos;
         }},
        {"reference", B::kTop, "reference: 7, 1., 0., 0., eye, null, null;", O::kActs, nullptr},
        {"drive caller", B::kTop, "drive caller: 3, const, 2.;", O::kActs, nullptr},
        {"constitutive law", B::kTop, "constitutive law: 3, 1, linear elastic, 2.;", O::kActs,
         nullptr},
        {"include", B::kTop, "include: \"no-such-file.mbd\";", O::kRefused, none},
        {"remark", B::kTop, "remark: \"hello\";", O::kActs,
         [](const Deck& d) { return d.remarks.size() == 1; }},
        {"print symbol table", B::kTop, "print symbol table;", O::kWarns, none},
        {"module load", B::kTop, "module load: \"libmodule-x\";", O::kRefused, none},
        {"setenv", B::kTop, "setenv: \"A=1\";", O::kRefused, none},
        {"scalar function", B::kTop, "scalar function: \"f\", const, 1.;", O::kRefused, none},
        {"template drive caller", B::kTop, "template drive caller: 1, 1, const, 1.;", O::kRefused,
         none},
        {"hydraulic fluid", B::kTop, "hydraulic fluid: 1, incompressible;", O::kRefused, none},
        {"c81 data", B::kTop, "c81 data: 1, \"naca.c81\";", O::kRefused, none},
        // Initial value (MBDyn input manual, "Initial-Value Problem").
        {"initial time", B::kInitialValue, "initial time: -0.5;", O::kActs,
         [](const Deck& d) { return d.settings.initial_time == -0.5; }},
        {"final time", B::kInitialValue, "final time: forever;", O::kActs,
         [](const Deck& d) { return d.settings.forever; }},
        {"time step", B::kInitialValue, "time step: 2e-3;", O::kActs,
         [](const Deck& d) { return d.settings.time_step == 2e-3; }},
        {"min time step", B::kInitialValue, "min time step: 1e-5;", O::kActs,
         [](const Deck& d) { return S(d).min_time_step == 1e-5; }},
        {"max time step", B::kInitialValue, "max time step: 1e-2;", O::kActs,
         [](const Deck& d) { return S(d).max_time_step == 1e-2; }},
        {"method", B::kInitialValue, "method: bdf;", O::kActs,
         [](const Deck& d) { return d.method_name == "bdf"; }},
        {"formulation", B::kInitialValue, "formulation: lie group;", O::kActs,
         [](const Deck& d) { return d.settings.formulation == "lie group"; }},
        {"tolerance", B::kInitialValue, "tolerance: 1e-8;", O::kActs,
         [](const Deck& d) { return S(d).residual_tolerance == 1e-8; }},
        {"max iterations", B::kInitialValue, "max iterations: 7;", O::kActs,
         [](const Deck& d) { return S(d).max_iterations == 7; }},
        {"modify residual test", B::kInitialValue, "modify residual test;", O::kWarns, none},
        {"derivatives tolerance", B::kInitialValue, "derivatives tolerance: 1e-3;", O::kWarns,
         none},
        {"derivatives max iterations", B::kInitialValue, "derivatives max iterations: 3;",
         O::kWarns, none},
        {"derivatives coefficient", B::kInitialValue, "derivatives coefficient: 1e-2;", O::kWarns,
         none},
        {"nonlinear solver", B::kInitialValue, "nonlinear solver: newton raphson, modified, 4;",
         O::kActs, [](const Deck& d) { return S(d).modified_newton; }},
        {"linear solver", B::kInitialValue, "linear solver: klu, ordering, amd;", O::kActs,
         [](const Deck& d) { return S(d).linear_solver_ordering == "amd"; }},
        {"solver", B::kInitialValue, "solver: sparselu;", O::kActs,
         [](const Deck& d) { return S(d).linear_solver == "sparselu"; }},
        {"output", B::kInitialValue, "output: iterations;", O::kActs,
         [](const Deck& d) { return S(d).output_iterations; }},
        {"abort after", B::kInitialValue, "abort after: input;", O::kActs,
         [](const Deck& d) { return d.settings.abort_after == "input"; }},
        {"strategy", B::kInitialValue, "strategy: factor, 0.5, 2, 1.5, 3, 2, 8;", O::kActs,
         [](const Deck& d) {
             return S(d).strategy_factor && S(d).strategy_steps_before_reduction == 2 &&
                    S(d).strategy_raise == 1.5 && S(d).strategy_steps_before_raise == 3 &&
                    S(d).strategy_min_iterations == 2 && S(d).strategy_max_iterations == 8;
         }},
        {"threads", B::kInitialValue, "threads: 2;", O::kWarns, none},
        {"output meter", B::kInitialValue, "output meter: meter, 0., forever, steps, 2;", O::kWarns,
         none},
        {"dummy steps tolerance", B::kInitialValue, "dummy steps tolerance: 1e-6;", O::kWarns,
         none},
        {"dummy steps max iterations", B::kInitialValue, "dummy steps max iterations: 3;",
         O::kWarns, none},
        {"dummy steps number", B::kInitialValue, "dummy steps number: 3;", O::kWarns, none},
        {"dummy steps ratio", B::kInitialValue, "dummy steps ratio: 1e-3;", O::kWarns, none},
        {"dummy steps method", B::kInitialValue, "dummy steps method: ms, 0.6;", O::kWarns, none},
        {"eigenanalysis", B::kInitialValue, "eigenanalysis: 0.;", O::kRefused, none},
        {"real time", B::kInitialValue, "real time: posix;", O::kRefused, none},
        {"rtai", B::kInitialValue, "rtai;", O::kRefused, none},
        {"solver diagnostics", B::kInitialValue, "solver diagnostics: cpu time;", O::kRefused,
         none},
        // Control data (MBDyn input manual, "Control Data").
        {"structural nodes", B::kControlData, "", O::kRefused, none,
         "structural nodes: 2; rigid bodies: 1;"},
        {"rigid bodies", B::kControlData, "", O::kRefused, none,
         "structural nodes: 1; rigid bodies: 2;"},
        {"joints", B::kControlData, "joints: 1;", O::kRefused, none},
        {"forces", B::kControlData, "forces: 1;", O::kRefused, none},
        {"beams", B::kControlData, "beams: 1;", O::kRefused, none},
        {"abstract nodes", B::kControlData, "abstract nodes: 1;", O::kRefused, none},
        {"genels", B::kControlData, "genels: 2;", O::kRefused, none},
        {"gravity", B::kControlData, "gravity;", O::kRefused, none},
        {"air properties", B::kControlData, "air properties;", O::kRefused, none},
        {"rigid body kinematics", B::kControlData, "rigid body kinematics: const;", O::kRefused,
         none},
        {"default orientation", B::kControlData, "default orientation: orientation vector;",
         O::kActs,
         [](const Deck& d) {
             return d.model.nodes()[0].orientation_output == OrientationOutput::kOrientationVector;
         }},
        {"default output", B::kControlData, "default output: none;", O::kActs,
         [](const Deck& d) { return !d.model.nodes()[0].output; }},
        {"default output", B::kControlData, "default output: reference frames;", O::kWarns, none},
        {"output frequency", B::kControlData, "output frequency: 5;", O::kActs,
         [](const Deck& d) { return d.settings.output_every == 5; }},
        {"output meter", B::kControlData, "output meter: meter, 0.1, 0.5, steps, 3;", O::kActs,
         [](const Deck& d) {
             return d.settings.output_from == 0.1 && d.settings.output_until == 0.5 &&
                    d.settings.output_every == 3;
         }},
        {"output precision", B::kControlData, "output precision: 12;", O::kActs,
         [](const Deck& d) { return d.settings.output_precision == 12; }},
        {"skip initial joint assembly", B::kControlData, "skip initial joint assembly;", O::kActs,
         [](const Deck& d) { return d.settings.skip_initial_joint_assembly; }},
        {"title", B::kControlData, "title: \"a run\";", O::kActs,
         [](const Deck& d) { return d.settings.title == "a run"; }},
        {"tolerance", B::kControlData, "tolerance: 1e-9;", O::kActs,
         [](const Deck& d) { return d.settings.assembly_tolerance == 1e-9; }},
        {"initial tolerance", B::kControlData, "initial tolerance: 1e-9;", O::kActs,
         [](const Deck& d) { return d.settings.assembly_tolerance == 1e-9; }},
        {"max iterations", B::kControlData, "max iterations: 10;", O::kActs,
         [](const Deck& d) { return d.settings.assembly_max_iterations == 10; }},
        {"max initial iterations", B::kControlData, "max initial iterations: 10;", O::kActs,
         [](const Deck& d) { return d.settings.assembly_max_iterations == 10; }},
        {"initial stiffness", B::kControlData, "initial stiffness: 2., 3.;", O::kActs,
         [](const Deck& d) {
             return d.settings.assembly_position_stiffness == 2. &&
                    d.settings.assembly_velocity_stiffness == 3.;
         }},
        {"omega rotates", B::kControlData, "omega rotates: yes;", O::kActs,
         [](const Deck& d) { return d.settings.assembly_omega_rotates; }},
        {"use", B::kControlData, "use: rigid bodies, in assembly;", O::kActs,
         [](const Deck& d) { return d.settings.assembly_use_bodies; }},
        {"use", B::kControlData, "use: loadable elements, in assembly;", O::kWarns, none},
        {"print", B::kControlData, "print: dof stats;", O::kWarns, none},
        {"output units", B::kControlData, "output units: MKS;", O::kActs,
         [](const Deck& d) { return d.settings.output_units.system == "MKS"; }},
        {"output units", B::kControlData,
         "output units: custom, length, \"ft\", mass, \"lb\", time, \"s\", current, \"A\", "
         "temperature, \"K\";",
         O::kActs, [](const Deck& d) { return d.settings.output_units.length == "ft"; }},
        {"output units", B::kControlData, "output units: SI;", O::kRefused, none},
        {"output units", B::kControlData, "output units: custom, length, \"ft\";", O::kRefused,
         none},
        {"make restart file", B::kControlData, "make restart file;", O::kWarns, none},
        {"select timeout", B::kControlData, "select timeout: 5;", O::kWarns, none},
        {"default scale", B::kControlData, "default scale: all, 1.;", O::kWarns, none},
        {"model", B::kControlData, "model: static;", O::kActs,
         [](const Deck& d) { return d.model.static_model(); }},
        // netcdf: read when built with NetCDF (netcdf_writer_test), else refused.
        {"output results", B::kControlData, "output results: netcdf;",
         NetcdfOutputAvailable() ? O::kActs : O::kRefused,
         [](const Deck& d) { return d.settings.output_netcdf; }},
        {"output results", B::kControlData, "output results: vtk;", O::kActs,
         [](const Deck& d) { return d.settings.output_vtk; }},
        {"output results", B::kControlData, "output results: adams;", O::kRefused, none},
        {"loadable path", B::kControlData, "loadable path: \"no-such-folder\";", O::kRefused, none},
        {"loadable path", B::kTop, "loadable path: set, \".\"; module load: \"no-such-module\";",
         O::kRefused, none},
        // Nodes (MBDyn input manual, "Nodes").
        {"structural", B::kNodes, "structural: 2, dynamic, null, eye, null, null;", O::kActs,
         [](const Deck& d) { return d.model.nodes().size() == 2; },
         "structural nodes: 2; rigid bodies: 1;"},
        {"abstract", B::kNodes, "abstract: 2, differential, value, 0.5, derivative, 1.;", O::kActs,
         [](const Deck& d) {
             return d.model.abstract_nodes().size() == 1 && d.model.abstract_nodes()[0].x0 == 0.5 &&
                    d.model.abstract_nodes()[0].v0 == 1.0;
         },
         "structural nodes: 1; rigid bodies: 1; abstract nodes: 1;"},
        {"electric", B::kNodes, "electric: 2;", O::kRefused, none},
        {"hydraulic", B::kNodes, "hydraulic: 2;", O::kRefused, none},
        {"parameter", B::kNodes, "parameter: 2, element;", O::kRefused, none},
        {"thermal", B::kNodes, "thermal: 2;", O::kRefused, none},
    };
    rows.push_back({"user defined elements", Block::kControlData, "user defined elements: 1;",
                    Outcome::kRefused, nullptr});
    // Counts of what mbstep does not model: refused unless 0.
    for (const char* k : {"electric nodes",
                          "hydraulic nodes",
                          "parameter nodes",
                          "thermal nodes",
                          "plates",
                          "aerodynamic elements",
                          "aeromodals",
                          "rotors",
                          "induced velocity elements",
                          "loadable elements",
                          "electric elements",
                          "electric bulk elements",
                          "bulk elements",
                          "hydraulic elements",
                          "thermal elements",
                          "output elements",
                          "external elements",
                          "file drivers",
                          "drivers",
                          "membranes",
                          "shells",
                          "inertia"})
        rows.push_back(
            {k, Block::kControlData, std::string(k) + ": 1;", Outcome::kRefused, nullptr, kCounts});
    // Elements (MBDyn input manual, "Elements"): the registered statements (body, joint, force,
    // couple, gravity, beam2, beam3, driven) act through their plugins (the registry's snippet
    // and finite-difference suites); MBDyn's others are refused while no plugin provides them.
    for (const char* k : {"beam",
                          "aerodynamic body",
                          "aerodynamic beam",
                          "aerodynamic beam2",
                          "aerodynamic beam3",
                          "genel",
                          "output",
                          "bind",
                          "electric",
                          "hydraulic",
                          "thermal",
                          "plate",
                          "membrane4",
                          "shell4",
                          "loadable",
                          "automatic structural",
                          "air properties",
                          "induced velocity",
                          "rotor",
                          "aircraft instruments",
                          "aerodynamic element",
                          "rigid body kinematics",
                          "joint regularization",
                          "modal",
                          "external",
                          "stream output",
                          "output element",
                          "bulk"})
        rows.push_back(
            {k, Block::kElements, std::string(k) + ": 1;", Outcome::kRefused, nullptr, kCounts});
    rows.push_back(
        {"inertia", Block::kElements, "inertia: 1, body, all;", Outcome::kWarns, nullptr, kCounts});
    // Every registered element type is a user defined element (MBDyn's module elements).
    rows.push_back({"user defined", Block::kElements, "user defined: 2, clamp, 1, node, node;",
                    Outcome::kActs,
                    [](const Deck& d) {
                        return d.model.elements().size() == 2 &&
                               d.model.elements()[1]->statement() == "joint" &&
                               d.model.elements()[1]->type() == "clamp";
                    },
                    "structural nodes: 1; rigid bodies: 1; user defined elements: 1;"});
    return rows;
}

DeckBlock TableBlock(Block b) {
    switch (b) {
        case Block::kTop:
            return DeckBlock::kAnywhere;
        case Block::kInitialValue:
            return DeckBlock::kInitialValue;
        case Block::kControlData:
            return DeckBlock::kControlData;
        case Block::kNodes:
            return DeckBlock::kNodes;
        case Block::kElements:
            return DeckBlock::kElements;
    }
    return DeckBlock::kAnywhere;
}

constexpr DeckBlock kTableBlocks[] = {DeckBlock::kAnywhere, DeckBlock::kInitialValue,
                                      DeckBlock::kControlData, DeckBlock::kNodes,
                                      DeckBlock::kElements};

/// The statement keywords of a block's table (every name, aliases included).
std::set<std::string> TableKeywords(DeckBlock block) {
    std::set<std::string> keys;
    for (const KeywordEntry& e : DeckKeywords(block))
        for (const std::string& n : e.names) keys.insert(n);
    return keys;
}

}  // namespace

TEST_CASE("every keyword of the reader's tables has a row here, and every row a table keyword") {
    std::set<std::string> rows;
    for (const Row& r : Table()) rows.insert(r.keyword);
    std::set<std::string> keys;
    for (DeckBlock b : kTableBlocks)
        for (const std::string& k : TableKeywords(b)) keys.insert(k);
    CHECK(keys.size() > 100);
    // `driven:` wraps an element statement (driven_element_test); the elements block's table
    // refuses MBDyn's element statements when no plugin provides them, and the registered ones
    // act through their plugins (the registry's snippet and finite-difference suites).
    for (const char* registered :
         {"driven", "body", "joint", "force", "couple", "gravity", "beam2", "beam3"})
        rows.insert(registered);
    for (const std::string& k : keys) {
        INFO("keyword '" << k << "' is in a keyword table of the reader but has no row");
        CHECK(rows.count(k) == 1);
    }
    // A row's keyword is read in its block: by the block's table, or as a statement valid
    // anywhere.
    for (const Row& r : Table()) {
        INFO("row '" << r.keyword << "' is in no table of its block");
        CHECK((TableKeywords(TableBlock(r.block)).count(r.keyword) == 1 ||
               TableKeywords(DeckBlock::kAnywhere).count(r.keyword) == 1));
    }
}

TEST_CASE("the manual's keyword tables name every keyword the reader accepts") {
    for (DeckBlock b : kTableBlocks) {
        const std::vector<KeywordEntry>& entries = DeckKeywords(b);
        REQUIRE(!entries.empty());
        for (const KeywordEntry& e : entries) {
            REQUIRE(!e.names.empty());
            INFO("keyword '" << e.names.front() << "'");
            REQUIRE(!e.manual.empty());
            std::string syntax;
            for (const KeywordManualLine& l : e.manual) syntax += l.syntax + " ";
            for (const std::string& n : e.names) {
                INFO("name '" << n << "' is not in its manual line: " << syntax);
                CHECK(syntax.find("`" + n) != std::string::npos);
            }
        }
        // The last line closes the last row of the manual's table.
        CHECK(!entries.back().manual.back().text.empty());
    }
    // The unknown-keyword lists: every keyword that is not refused.
    for (DeckBlock b : kTableBlocks) {
        std::vector<std::string> expected;
        for (const KeywordEntry& e : DeckKeywords(b))
            if (e.outcome != KeywordOutcome::kRefused) expected.push_back(e.names.front());
        CHECK(AcceptedDeckKeywords(b) == expected);
    }
}

TEST_CASE("the input manual's sections show their blocks' keyword tables") {
    // docs/input.md is `mbstep manual`'s output (the input_manual_current test): each block's
    // section holds its table, one row per manual line with a text, the syntax of the lines
    // without one joined before it.
    std::ifstream in(std::string(MBSTEP_SOURCE_DIR) + "/docs/input.md");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    const std::string manual = text.str();
    const std::pair<DeckBlock, const char*> sections[] = {
        {DeckBlock::kAnywhere, "\n## Deck structure\n"},
        {DeckBlock::kInitialValue, "\n## initial value\n"},
        {DeckBlock::kControlData, "\n## control data\n"},
        {DeckBlock::kNodes, "\n## nodes\n"},
        {DeckBlock::kElements, "\n## elements\n"}};
    for (const auto& [block, heading] : sections) {
        const size_t begin = manual.find(heading);
        INFO("section " << heading);
        REQUIRE(begin != std::string::npos);
        const size_t end = manual.find("\n## ", begin + 1);
        const std::string section = manual.substr(begin, end - begin);
        std::string pending;
        for (const KeywordEntry& e : DeckKeywords(block))
            for (const KeywordManualLine& l : e.manual) {
                pending += (pending.empty() ? "" : ", ") + l.syntax;
                if (l.text.empty()) continue;
                const std::string row = "| " + pending + " | " + l.text + " |\n";
                INFO("row " << row);
                CHECK(section.find(row) != std::string::npos);
                pending.clear();
            }
    }
}

TEST_CASE("the linear solver names are read, and refused with the same list") {
    std::string names;
    for (const LinearSolverKeyword& s : DeckLinearSolvers()) {
        names += (names.empty() ? "" : ", ") + s.name;
        Row r{"linear solver", Block::kInitialValue, "linear solver: " + s.name + ";",
              Outcome::kActs, nullptr};
        const Deck d = test::Read(DeckWith(r, true));
        CHECK(d.settings.solver.linear_solver_requested == s.name);
        CHECK(d.settings.solver.linear_solver == s.solver);
        CHECK_NOTHROW(MakeLinearSolver(s.solver));  // a solver the solver layer builds
        bool warned = false;
        for (const std::string& w : d.warnings)
            warned |= w.find("is not available") != std::string::npos;
        CHECK(warned == !s.available);
    }
    std::string message;
    try {
        test::Read(DeckWith({"linear solver", Block::kInitialValue, "linear solver: mumps;",
                             Outcome::kRefused, nullptr},
                            true));
    } catch (const DeckError& e) {
        message = e.what();
    }
    CHECK(message.find("(one of: " + names + "), got 'mumps'") != std::string::npos);
}

TEST_CASE("each keyword acts, warns at its line, or is refused at its line") {
    for (const Row& r : Table()) {
        const std::string line = "test.mbd:" + std::to_string(LineOf(r.block)) + ":";
        const std::string count_line = "test.mbd:10:";
        INFO("row '" << r.keyword << "': " << r.statement);
        const std::string text = DeckWith(r, true);
        switch (r.outcome) {
            case Outcome::kRefused: {
                std::string message;
                try {
                    test::Read(text);
                } catch (const DeckError& e) {
                    message = e.what();
                }
                INFO("message: " << message);
                const bool at_line = message.rfind(r.statement.empty() ? count_line : line, 0) == 0;
                CHECK(at_line);
                break;
            }
            case Outcome::kWarns: {
                const Deck d = test::Read(text);
                bool found = false;
                for (const std::string& w : d.warnings) found |= w.rfind(line, 0) == 0;
                INFO("warnings: " << d.warnings.size());
                CHECK(found);
                break;
            }
            case Outcome::kActs: {
                const Deck with = test::Read(text);
                for (const std::string& w : with.warnings) {
                    INFO("unexpected warning: " << w);
                    CHECK(w.rfind(line, 0) != 0);
                }
                if (!r.acts) break;  // definitions: used by the rows below and other tests
                const Deck without = test::Read(DeckWith(r, false));
                CHECK_FALSE(r.acts(without));
                CHECK(r.acts(with));
                break;
            }
        }
    }
}
