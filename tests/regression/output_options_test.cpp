// `default output:` switches node and element kinds: `none` silences everything, then the listed
// kinds write again (MBDyn input manual, control data "Default Output").
#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"
#include "support/output_model.hpp"

using namespace mbstep;
namespace fs = std::filesystem;

namespace {
std::string Deck2(const std::string& default_output, double final_time = 0.002) {
    test::OutputModel m;
    m.final_time = final_time;
    m.gravity = false;
    m.beam_label = 1;
    return test::OutputModelDeck(default_output, m);
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
    // Global force (columns 8-10): MBDyn's multiplier, the load on the ground (PinJoint): the
    // node is held up by +9.81 along z, the ground pulled down by -9.81.
    CHECK(v[8] == doctest::Approx(-9.81).epsilon(1e-6));
}

namespace {
std::string Slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
int CountLines(const std::string& text) {
    int n = 0;
    for (char c : text) n += c == '\n';
    return n;
}
// Deck2 run for 20 steps of 1e-3.
std::string Deck20() { return Deck2("", 0.02); }
}  // namespace

TEST_CASE("output files are written together at step boundaries, as the flush interval says") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_output_options";
    fs::create_directories(dir);
    const std::string prefix = (dir / "flush").string();
    // Interval 0: after every step, each file on disk ends on that step (2 nodes in .mov, the
    // rod and the clamp in .jnt, the beam in .act).
    {
        Deck deck = ReadDeckText(Deck20(), "flush.mbd", GlobalRegistry());
        RunOptions opt;
        opt.output_prefix = prefix;
        opt.progress = false;
        opt.flush_interval = 0.0;
        int step = 0, checked = 0;
        opt.on_step = [&](double, const Formulation&) {
            const std::string out = Slurp(prefix + ".out");
            CHECK(CountLines(out) == step + 2);  // header, steps 0..step
            const std::string last = out.substr(out.rfind('\n', out.size() - 2) + 1);
            CHECK(last.rfind("Step " + std::to_string(step) + " ", 0) == 0);
            CHECK(CountLines(Slurp(prefix + ".mov")) == 2 * (step + 1));
            CHECK(CountLines(Slurp(prefix + ".jnt")) == 2 * (step + 1));
            CHECK(CountLines(Slurp(prefix + ".act")) == step + 1);
            CHECK(CountLines(Slurp(prefix + ".csv")) == step + 2);
            ++step;
            ++checked;
        };
        REQUIRE(Run(deck, opt, GlobalRegistry()).completed);
        CHECK(checked == 21);
    }
    const std::string every = Slurp(prefix + ".mov") + Slurp(prefix + ".out") +
                              Slurp(prefix + ".jnt") + Slurp(prefix + ".act") +
                              Slurp(prefix + ".csv") + Slurp(prefix + ".log");
    // An interval longer than the run: during the run the files hold what was written before
    // the first step (the headers, the model summary), at the end everything, byte for byte as
    // with interval 0.
    {
        Deck deck = ReadDeckText(Deck20(), "flush.mbd", GlobalRegistry());
        RunOptions opt;
        opt.output_prefix = prefix;
        opt.progress = false;
        opt.flush_interval = 1e9;
        int checked = 0;
        opt.on_step = [&](double, const Formulation&) {
            CHECK(Slurp(prefix + ".out") == "# Step Time TStep NIter ResErr SolErr SolConv Out\n");
            CHECK(Slurp(prefix + ".mov").empty());
            CHECK(Slurp(prefix + ".jnt").empty());
            CHECK(CountLines(Slurp(prefix + ".csv")) == 1);
            ++checked;
        };
        REQUIRE(Run(deck, opt, GlobalRegistry()).completed);
        CHECK(checked == 21);
    }
    CHECK(Slurp(prefix + ".mov") + Slurp(prefix + ".out") + Slurp(prefix + ".jnt") +
              Slurp(prefix + ".act") + Slurp(prefix + ".csv") + Slurp(prefix + ".log") ==
          every);
}

TEST_CASE("a stop request ends the run at the next step boundary with the stop mark") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_output_options";
    fs::create_directories(dir);
    const std::string prefix = (dir / "request").string();
    Deck deck = ReadDeckText(Deck20(), "request.mbd", GlobalRegistry());
    std::atomic<int> stop{0};
    RunOptions opt;
    opt.output_prefix = prefix;
    opt.progress = false;
    opt.stop_request = &stop;
    int calls = 0;
    opt.on_step = [&](double, const Formulation&) {
        if (++calls == 6) stop = SIGINT;  // after step 5 (the first call is step 0)
    };
    const RunSummary s = Run(deck, opt, GlobalRegistry());
    CHECK_FALSE(s.completed);
    CHECK(s.stop_signal == SIGINT);
    CHECK(s.steps == 5);
    CHECK(s.failure == "interrupted by SIGINT at t = 0.005, step 5");
    CHECK(Describe(s).find("(interrupted by SIGINT at t = 0.005, step 5)") != std::string::npos);
    const std::string out = Slurp(prefix + ".out");
    CHECK(CountLines(out) == 8);  // header, steps 0..5, the mark
    CHECK(out.find("\nStep 5 0.005 ") != std::string::npos);
    CHECK(out.substr(out.rfind('\n', out.size() - 2) + 1) ==
          "# mbstep: stopped: interrupted by SIGINT at t = 0.005, step 5\n");
    const std::string log = Slurp(prefix + ".log");
    CHECK(log.substr(log.rfind('\n', log.size() - 2) + 1) ==
          "mbstep: stopped: interrupted by SIGINT at t = 0.005, step 5\n");
    CHECK(CountLines(Slurp(prefix + ".mov")) == 2 * 6);
    CHECK(CountLines(Slurp(prefix + ".csv")) == 1 + 6);
    CHECK(SignalName(SIGTERM) == "SIGTERM");
    CHECK(SignalName(SIGUSR1) == "signal " + std::to_string(SIGUSR1));
}

TEST_CASE("a run stopped by step-size control ends its files with where and why") {
    // examples/free-rigid-body with dopri5 at 1e-10: its first proposal is below the
    // `min time step` of 5e-3 (AdaptiveStep, simulation.cpp).
    const fs::path dir = fs::temp_directory_path() / "mbstep_output_options";
    fs::create_directories(dir);
    const std::string prefix = (dir / "adaptive").string();
    const Registry& reg = GlobalRegistry();
    Deck deck =
        ReadDeck(std::string(MBSTEP_SOURCE_DIR) + "/examples/free-rigid-body/deck.mbd", reg);
    std::string name;
    deck.integrator = MakeIntegrator("dopri5, 1e-10, 1e-10", reg, &name);
    deck.method_name = name;
    deck.settings.method_text = "dopri5, 1e-10, 1e-10";
    deck.settings.formulation = "lie group";
    deck.settings.time_step = 1e-2;
    deck.settings.final_time = 0.5;
    deck.settings.solver.min_time_step = 5e-3;
    RunOptions opt;
    opt.output_prefix = prefix;
    opt.progress = false;
    std::string message;
    try {
        Run(deck, opt, reg);
    } catch (const RunError& e) {
        message = e.what();
    }
    REQUIRE(message.find("below the deck's `min time step`") != std::string::npos);
    const std::string out = Slurp(prefix + ".out");
    CHECK(out.substr(out.rfind('\n', out.size() - 2) + 1) ==
          "# mbstep: stopped: " + message + "\n");
    const std::string log = Slurp(prefix + ".log");
    CHECK(log.find("mbstep: stopped: " + message + "\n") != std::string::npos);
}
