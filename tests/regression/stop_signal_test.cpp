// `mbstep run` stopped by SIGINT or SIGTERM (tools/mbstep/main.cpp): the run ends at a step
// boundary, every output file ends with complete lines on the same step, .out and .log end
// with the stop mark, and the exit status is 128 + the signal number (130, 143) as a shell
// reports it. The child runs a long deck and is signalled once its .out holds some steps.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_helpers.hpp"

namespace fs = std::filesystem;
using mbstep::test::SourcePath;

namespace {
const std::string kExe = std::string(MBSTEP_BINARY_DIR) + "/bin/mbstep";

std::string Slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);) lines.push_back(line);
    return lines;
}

// Starts `mbstep run` with SIGINT and SIGTERM at their defaults (a test runner started in the
// background may ignore SIGINT, and an ignored signal stays ignored across exec).
pid_t Spawn(const std::vector<std::string>& args, const std::string& log) {
    const pid_t pid = fork();
    if (pid == 0) {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        std::vector<char*> argv;
        argv.reserve(args.size() + 1);
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    return pid;
}

int Count(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

void CheckStopped(int signal, const std::string& name, int status) {
    const fs::path dir = fs::temp_directory_path() / ("mbstep_stop_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string prefix = (dir / "top").string();
    // 10^8 steps: the run ends only by the signal; files written every 0.05 s.
    const pid_t pid = Spawn({kExe, "run", SourcePath("examples/heavy-top/heavy-top.mbd"), "-o",
                             prefix, "--final-time", "1e5", "--flush-interval", "0.05", "--quiet"},
                            (dir / "stdout.txt").string());
    REQUIRE(pid > 0);
    // Wait until the .out holds 100 steps (at most 60 s).
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (Count(Slurp(prefix + ".out"), "\nStep ") < 100 &&
           std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    REQUIRE(kill(pid, signal) == 0);
    int raw = 0;
    REQUIRE(waitpid(pid, &raw, 0) == pid);
    INFO(Slurp(dir / "stdout.txt"));
    REQUIRE(WIFEXITED(raw));
    CHECK(WEXITSTATUS(raw) == status);
    CHECK(Slurp(dir / "stdout.txt").find("interrupted by " + name) != std::string::npos);

    // .out: the steps, then the stop mark naming the last of them.
    const std::string out = Slurp(prefix + ".out");
    REQUIRE(!out.empty());
    CHECK(out.back() == '\n');
    const std::vector<std::string> out_lines = Lines(out);
    REQUIRE(out_lines.size() >= 3);
    const std::string& mark = out_lines.back();
    const std::string head = "# mbstep: stopped: interrupted by " + name + " at t = ";
    REQUIRE(mark.rfind(head, 0) == 0);
    const size_t comma = mark.find(", step ");
    REQUIRE(comma != std::string::npos);
    const double t = std::stod(mark.substr(head.size(), comma - head.size()));
    const int steps = std::stoi(mark.substr(comma + 7));
    CHECK(steps >= 100);
    CHECK(out_lines[out_lines.size() - 2].rfind("Step " + std::to_string(steps) + " ", 0) == 0);
    CHECK(static_cast<int>(out_lines.size()) == steps + 3);  // header, steps 0..N, mark
    // .log: ends with the same message.
    const std::string log = Slurp(prefix + ".log");
    CHECK(log.size() > mark.size());
    CHECK(log.substr(log.size() - (mark.size() - 1)) == mark.substr(2) + "\n");
    // .mov, .jnt: one complete line per step 0..N (13 columns each; the spherical pin's .jnt
    // line has 3 more, the node's Euler angles, and an empty line after it, as MBDyn's
    // PinJoint::Output); .csv: header + N + 1 lines, the last at time t.
    for (const char* ext : {".mov", ".jnt"}) {
        INFO(ext);
        const bool jnt = std::string(ext) == ".jnt";
        const std::string text = Slurp(prefix + ext);
        REQUIRE(!text.empty());
        CHECK(text.back() == '\n');
        const std::vector<std::string> lines = Lines(text);
        CHECK(static_cast<int>(lines.size()) == (jnt ? 2 : 1) * (steps + 1));
        if (jnt) CHECK(lines.back().empty());
        std::istringstream last(lines[lines.size() - (jnt ? 2 : 1)]);
        int columns = 0;
        for (std::string tok; last >> tok;) ++columns;
        CHECK(columns == (std::string(ext) == ".jnt" ? 16 : 13));
    }
    const std::string csv = Slurp(prefix + ".csv");
    CHECK(csv.back() == '\n');
    const std::vector<std::string> csv_lines = Lines(csv);
    CHECK(static_cast<int>(csv_lines.size()) == steps + 2);
    CHECK(std::stod(csv_lines.back().substr(0, csv_lines.back().find(','))) ==
          doctest::Approx(t).epsilon(1e-5));
    fs::remove_all(dir);
}
}  // namespace

TEST_CASE("SIGINT stops mbstep run at a step boundary: files end on the same step, exit 130") {
    CheckStopped(SIGINT, "SIGINT", 130);
}

TEST_CASE("SIGTERM stops mbstep run at a step boundary: files end on the same step, exit 143") {
    CheckStopped(SIGTERM, "SIGTERM", 143);
}
