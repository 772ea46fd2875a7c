// `default output:` switches node and element kinds: `none` silences everything, then the listed
// kinds write again (MBDyn input manual, control data "Default Output").
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

using namespace mbstep;
namespace fs = std::filesystem;

namespace {
std::string Deck2(const std::string& default_output) {
    return "begin: data; problem: initial value; end: data;\n"
           "begin: initial value; initial time: 0.; final time: 0.002; time step: 1e-3;\n"
           "method: ms, 0.6; tolerance: 1e-9; end: initial value;\n"
           "begin: control data; structural nodes: 2; rigid bodies: 1; joints: 2; beams: 1;\n" +
           default_output +
           "end: control data;\nbegin: nodes;\n"
           "structural: 1, static, null, eye, null, null;\n"
           "structural: 2, dynamic, 1., 0., 0., eye, null, null;\nend: nodes;\n"
           "begin: elements;\nbody: 1, 2, 1., null, diag, 0.1, 0.1, 0.1;\n"
           "joint: 1, clamp, 1, node, node;\n"
           "joint: 2, rod, 1, 2, from nodes, linear elastic, 10.;\n"
           "beam2: 1, 1, null, 2, null, eye, linear elastic generic, diag, 1e3, 1e3, 1e3, 1., "
           "1., 1.;\nend: elements;\n";
}

std::string RunTo(const std::string& text, const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / "mbstep_output_options";
    fs::create_directories(dir);
    for (const char* ext : {".mov", ".jnt", ".act"}) fs::remove(dir / (name + ext));
    Deck deck = ReadDeckText(text, name + ".mbd", GlobalRegistry());
    RunOptions opt;
    opt.output_prefix = (dir / name).string();
    opt.progress = false;
    Run(deck, opt, GlobalRegistry());
    return (dir / name).string();
}
}  // namespace

TEST_CASE("default output: none silences element output; listed kinds write again") {
    const std::string all = RunTo(Deck2(""), "all");
    CHECK(fs::exists(all + ".jnt"));
    CHECK(fs::exists(all + ".act"));
    const std::string none = RunTo(Deck2("default output: none, structural nodes;\n"), "none");
    CHECK(fs::exists(none + ".mov"));
    CHECK_FALSE(fs::exists(none + ".jnt"));
    CHECK_FALSE(fs::exists(none + ".act"));
    const std::string beams = RunTo(Deck2("default output: none, beams;\n"), "beams");
    CHECK(fs::exists(beams + ".act"));
    CHECK_FALSE(fs::exists(beams + ".jnt"));
    CHECK(fs::file_size(beams + ".mov") == 0);
}

TEST_CASE("a run that stops early ends its .out and .log with where and why") {
    std::string text = Deck2("");
    const std::string from = "tolerance: 1e-9;", to = "tolerance: 1e-30; max iterations: 2;";
    text.replace(text.find(from), from.size(), to);
    // Moving, so that the residual is never exactly zero.
    const std::string at_rest = "1., 0., 0., eye, null, null",
                      moving = "1., 0., 0., eye, 0., 1., 0., null";
    text.replace(text.find(at_rest), at_rest.size(), moving);
    const fs::path dir = fs::temp_directory_path() / "mbstep_output_options";
    fs::create_directories(dir);
    Deck deck = ReadDeckText(text, "stop.mbd", GlobalRegistry());
    RunOptions opt;
    opt.output_prefix = (dir / "stop").string();
    opt.progress = false;
    CHECK_THROWS_AS(Run(deck, opt, GlobalRegistry()), RunError);
    std::ifstream out(dir / "stop.out");
    std::string line, last;
    while (std::getline(out, line)) last = line;
    CHECK(last.rfind("# mbstep: stopped: Newton failed at step 1", 0) == 0);
    std::ifstream log(dir / "stop.log");
    const std::string text_log((std::istreambuf_iterator<char>(log)), {});
    CHECK(text_log.find("mbstep: stopped: Newton failed at step 1") != std::string::npos);
}

TEST_CASE("the first .jnt line has the initial reactions with second-order methods too") {
    // A body hanging at rest from a spherical pin under gravity: the pin carries m g = 9.81 N
    // from t0 on, whatever the method.
    const std::string text =
        "begin: data; problem: initial value; end: data;\n"
        "begin: initial value; initial time: 0.; final time: 0.002; time step: 1e-3;\n"
        "method: generalized alpha, 0.9; formulation: lie group; tolerance: 1e-10;\n"
        "end: initial value;\n"
        "begin: control data; structural nodes: 1; rigid bodies: 1; joints: 1; gravity;\n"
        "end: control data;\nbegin: nodes;\n"
        "structural: 1, dynamic, 0., 0., -1., eye, null, null;\nend: nodes;\n"
        "begin: elements;\nbody: 1, 1, 1., null, diag, 0.1, 0.1, 0.1;\n"
        "joint: 1, spherical pin, 1, position, 0., 0., 1., position, null;\n"
        "gravity: uniform, 0., 0., -1., const, 9.81;\nend: elements;\n";
    const fs::path dir = fs::temp_directory_path() / "mbstep_output_options";
    fs::create_directories(dir);
    Deck deck = ReadDeckText(text, "hang.mbd", GlobalRegistry());
    RunOptions opt;
    opt.output_prefix = (dir / "hang").string();
    opt.progress = false;
    REQUIRE(Run(deck, opt, GlobalRegistry()).completed);
    std::ifstream jnt(dir / "hang.jnt");
    int label = 0;
    double v[12];
    jnt >> label;
    for (double& x : v) jnt >> x;
    CHECK(label == 1);
    // Global force on the node (columns 8-10): +9.81 along z holds the weight.
    CHECK(v[8] == doctest::Approx(9.81).epsilon(1e-6));
}
