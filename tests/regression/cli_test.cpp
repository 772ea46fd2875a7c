// The command-line tool: run, -o, --method/--rho, plugins, MBSTEP_PLUGIN_PATH, exit codes,
// and that a deck that fails to read writes no output file.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run_helpers.hpp"

namespace fs = std::filesystem;
using mbstep::test::SourcePath;

namespace {
const std::string kExe = std::string(MBSTEP_BINARY_DIR) + "/bin/mbstep";
const std::string kBench = std::string(MBSTEP_BINARY_DIR) + "/bin/mbstep-bench";

int Shell(const std::string& cmd) {
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}
std::string Slurp(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
}  // namespace

TEST_CASE("mbstep run writes MBDyn-layout files under -o and honours --method/--rho") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_cli_test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string deck = SourcePath("examples/heavy-top/heavy-top.mbd");
    const std::string prefix = (dir / "top").string();
    REQUIRE(Shell(kExe + " run " + deck + " -o " + prefix + " --method ms3 --rho 0.6 --quiet > " +
                  (dir / "stdout.txt").string() + " 2>&1") == 0);
    for (const char* ext : {".mov", ".out", ".log", ".csv", ".jnt"})
        CHECK(fs::exists(prefix + ext));
    const std::string out = Slurp(dir / "stdout.txt");
    CHECK(out.find("2000 steps") != std::string::npos);
    CHECK(out.find("ms3") != std::string::npos);
    // .mov: one line per node and step (2001 lines), 13 columns each.
    std::ifstream mov(prefix + ".mov");
    std::string line;
    int lines = 0;
    while (std::getline(mov, line)) {
        std::istringstream ls(line);
        int cols = 0;
        std::string tok;
        while (ls >> tok) ++cols;
        CHECK(cols == 13);
        ++lines;
    }
    CHECK(lines == 2001);
    CHECK(Slurp(prefix + ".log").find("method: ms3") != std::string::npos);
    // The start is exact, not MBDyn's regularized one, and the .log says so in its own line.
    CHECK(Slurp(prefix + ".log").find("\ninitial derivatives: solved exactly at t0 (") !=
          std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("mbstep run: --formulation, --time-step, --final-time, --tolerance override the deck") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_cli_overrides";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string deck = SourcePath("examples/heavy-top/heavy-top.mbd");
    const std::string prefix = (dir / "top").string(), log = (dir / "stdout.txt").string();
    REQUIRE(Shell(kExe + " run " + deck + " -o " + prefix +
                  " --method 'generalized alpha, 0.9' --formulation 'lie group' --time-step 2e-4"
                  " --final-time 0.01 --tolerance 1e-9 --quiet > " +
                  log + " 2>&1") == 0);
    const std::string out = Slurp(log);
    INFO(out);
    CHECK(out.find("after 50 steps") != std::string::npos);
    CHECK(out.find("lie group formulation") != std::string::npos);
    // The .out file: 50 steps of 2e-4, the last at t = 0.01.
    const std::string steps = Slurp(prefix + ".out");
    CHECK(steps.find("Step 50 0.01") != std::string::npos);
    CHECK(steps.find("Step 51") == std::string::npos);
    // generalized alpha sets its Newton solver up in Start: the .log names `auto`'s choice
    // after the summary (one node: the dense `naive` LU).
    CHECK(Slurp(prefix + ".log").find("linear solver chosen by auto: naive\n") !=
          std::string::npos);
    // A 40-link chain: `auto` takes `schur`, whose Schur complement (120 multipliers in blocks
    // of 3) goes to the block LU; the .log says so.
    const std::string chain = (dir / "chain40.mbd").string();
    std::ofstream(chain) << mbstep::test::ChainDeckText(40, "", 0.005);
    REQUIRE(Shell(kExe + " run " + chain + " -o " + (dir / "chain").string() + " --quiet > " + log +
                  " 2>&1") == 0);
    const std::string chain_log = Slurp((dir / "chain").string() + ".log");
    INFO(chain_log);
    CHECK(chain_log.find("linear solver: auto (schur)") != std::string::npos);
    CHECK(chain_log.find("schur: Schur complement solved by block lu\n") != std::string::npos);
    // Bad values are refused before anything runs.
    for (const char* bad : {" --time-step -1", " --tolerance 0", " --formulation 'no such'"}) {
        INFO(bad);
        CHECK(Shell(kExe + " run " + deck + " -o " + (dir / "bad").string() + bad + " --quiet > " +
                    log + " 2>&1") != 0);
        CHECK_FALSE(fs::exists((dir / "bad.mov").string()));
    }
}

TEST_CASE("a deck that fails to read exits non-zero, says where, and writes nothing") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_cli_bad";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "bad.mbd")
        << "begin: data;\n  problem: initial value;\nend: data;\n"
           "begin: initial value;\n  final time: 1.;\n  time step: abc;\n"
           "end: initial value;\n";
    const std::string err = (dir / "err.txt").string();
    CHECK(Shell(kExe + " run " + (dir / "bad.mbd").string() + " 2> " + err) == 1);
    const std::string msg = Slurp(err);
    INFO(msg);
    CHECK(msg.find("bad.mbd:6:") != std::string::npos);
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir))
        files += e.path().extension() != ".mbd" && e.path().extension() != ".txt";
    CHECK(files == 0);
    CHECK(Shell(kExe + " run " + SourcePath("examples/heavy-top/heavy-top.mbd") +
                " --method 'no such method' -o " + (dir / "x").string() + " 2> " + err) == 1);
    CHECK(Slurp(err).find("unknown method") != std::string::npos);
    CHECK(!fs::exists((dir / "x.mov")));
    CHECK(Shell(kExe + " frobnicate 2> /dev/null") == 2);
    fs::remove_all(dir);
}

TEST_CASE(
    "mbstep plugins lists every kind; MBSTEP_PLUGIN_PATH: foreign files warn, requests fail") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_cli_plugins";
    fs::remove_all(dir);
    fs::create_directories(dir);
    REQUIRE(Shell(kExe + " plugins > " + (dir / "p.txt").string()) == 0);
    const std::string p = Slurp(dir / "p.txt");
    for (const char* s :
         {"formulation  cgr", "integrator   ms3", "element      joint: spherical hinge",
          "element      body", "drive        "})
        CHECK(p.find(s) != std::string::npos);
    fs::create_directories(dir / "extra");
    const std::string broken = (dir / "extra" / "libbroken.so").string();
    std::ofstream(broken) << "garbage";
    const std::string err = (dir / "err.txt").string();
    // A folder holding a file that is not an mbstep plugin: every command still works, with a
    // warning naming the file and the loader's error.
    CHECK(Shell("MBSTEP_PLUGIN_PATH=" + (dir / "extra").string() + " " + kExe + " plugins > " +
                (dir / "p2.txt").string() + " 2> " + err) == 0);
    CHECK(Slurp(dir / "p2.txt") == p);
    const std::string warning = Slurp(err);
    CHECK(warning.rfind("mbstep: warning: plugin " + broken +
                            " skipped: not an mbstep plugin: cannot load plugin " + broken + ": ",
                        0) == 0);
    CHECK(std::count(warning.begin(), warning.end(), '\n') == 1);
    // The same file named as a plugin is a request: its failure is an error.
    CHECK(Shell("MBSTEP_PLUGIN_PATH=" + broken + " " + kExe + " plugins > /dev/null 2> " + err) ==
          1);
    CHECK(Slurp(err).rfind("mbstep: error: cannot load plugin " + broken + ": ", 0) == 0);
    fs::remove_all(dir);
}

TEST_CASE("mbstep run: --flush-interval changes when files are written, not what; --no-output") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_cli_flush";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string deck = SourcePath("examples/heavy-top/heavy-top.mbd");
    const std::string every = (dir / "every").string(), timed = (dir / "timed").string();
    REQUIRE(Shell(kExe + " run " + deck + " -o " + every +
                  " --flush-interval 0 --final-time 0.5 --quiet > /dev/null") == 0);
    REQUIRE(Shell(kExe + " run " + deck + " -o " + timed +
                  " --final-time 0.5 --quiet > /dev/null") == 0);
    for (const char* ext : {".mov", ".out", ".log", ".csv", ".jnt"}) {
        INFO(ext);
        CHECK(!Slurp(every + ext).empty());
        CHECK(Slurp(every + ext) == Slurp(timed + ext));
    }
    CHECK(Shell(kExe + " run " + deck + " -o " + (dir / "none").string() +
                " --no-output --final-time 0.01 --quiet > /dev/null") == 0);
    CHECK(!fs::exists(dir / "none.out"));
    CHECK(!fs::exists(dir / "none.mov"));
    CHECK(!fs::exists(dir / "none.log"));
    CHECK(Shell(kExe + " run " + deck + " -o " + (dir / "bad").string() +
                " --flush-interval -1 2> /dev/null") == 2);
    fs::remove_all(dir);
}

TEST_CASE("conventions: --help of every command, --version, mbdyn's -f, analyze of bdf") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_cli_conventions";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string out = (dir / "out.txt").string();
    // Each command's --help prints its usage on stdout and exits 0.
    for (const std::string cmd :
         {"--help", "run --help", "plugins --help", "study --help", "analyze --help"}) {
        INFO(cmd);
        CHECK(Shell(kExe + " " + cmd + " > " + out + " 2>&1") == 0);
        CHECK(Slurp(out).find("usage: mbstep") != std::string::npos);
    }
    // The top-level help names every command, the plugin path and the METHOD@FORMULATION form.
    Shell(kExe + " --help > " + out);
    const std::string help = Slurp(out);
    for (const char* word : {"run DECK", "-f DECK", "plugins", "manual", "analyze", "study",
                             "MBSTEP_PLUGIN_PATH", "METHOD@FORMULATION", "--version"})
        CHECK(help.find(word) != std::string::npos);
    CHECK(Shell(kExe + " run --help > " + out) == 0);
    CHECK(Slurp(out).find("--flush-interval") != std::string::npos);
    CHECK(Shell(kExe + " --version > " + out) == 0);
    CHECK(Slurp(out).rfind("mbstep ", 0) == 0);
    // `mbstep -f DECK -o PREFIX` is `mbstep run DECK -o PREFIX`, as `mbdyn -f`.
    const std::string deck = SourcePath("examples/pendulum/pendulum.mbd");
    const std::string prefix = (dir / "pendulum").string();
    CHECK(Shell(kExe + " -f " + deck + " -o " + prefix + " --final-time 0.01 --quiet > " + out) ==
          0);
    CHECK(fs::exists(prefix + ".mov"));
    CHECK(Shell(kExe + " -f > " + out + " 2>&1") == 2);
    // `bdf` (ms2 with rho_inf fixed at 0, no rho_inf parameter) is analysed like `ms2, 0`: the
    // same rows but for the columns method and rho_inf (as given: none for bdf).
    const std::string a = (dir / "bdf.csv").string(), b = (dir / "ms2.csv").string();
    REQUIRE(Shell(kExe + " analyze bdf > " + a) == 0);
    REQUIRE(Shell(kExe + " analyze ms2 --rho 0 > " + b) == 0);
    CHECK(Slurp(a).size() > 1000);
    auto rows_after = [](const std::string& text, const std::string& lead) {
        std::istringstream in(text);
        std::string line, rest;
        std::getline(in, line);  // the header
        for (int n = 0; std::getline(in, line); ++n) {
            if (line.rfind(lead, 0) != 0) return "row " + std::to_string(n) + ": " + line;
            rest += line.substr(lead.size()) + "\n";
        }
        return rest;
    };
    CHECK(rows_after(Slurp(a), "bdf,,") == rows_after(Slurp(b), "ms2,0,"));
    fs::remove_all(dir);
}

TEST_CASE("mbstep run: a deck of 64 KiB or more runs with huge pages for the heap, same results") {
    const fs::path dir = fs::temp_directory_path() / "mbstep_cli_huge_pages";
    fs::remove_all(dir);
    fs::create_directories(dir);
    // The heavy top, made a large deck by a comment block (the size decides, not the model).
    const fs::path big = dir / "big.mbd", small = dir / "small.mbd";
    {
        const std::string top = Slurp(SourcePath("examples/heavy-top/heavy-top.mbd"));
        std::ofstream(small) << top;
        std::ofstream f(big);
        f << top;
        for (int i = 0; i < 1200; ++i)
            f << "# padding line of a large deck ........................................\n";
    }
    REQUIRE(fs::file_size(big) >= (64u << 10));
    const std::string on = (dir / "on").string(), off = (dir / "off").string();
    REQUIRE(Shell(kExe + " run " + big.string() + " -o " + on +
                  " --final-time 0.05 --quiet > /dev/null") == 0);
    REQUIRE(Shell("MBSTEP_HUGE_PAGES=0 " + kExe + " run " + big.string() + " -o " + off +
                  " --final-time 0.05 --quiet > /dev/null") == 0);
    for (const char* ext : {".mov", ".out", ".csv", ".jnt"}) {
        INFO(ext);
        CHECK(!Slurp(on + ext).empty());
        CHECK(Slurp(on + ext) == Slurp(off + ext));
    }
    // The running process's environment (after its one exec) names the glibc tunable exactly
    // when the kernel has transparent huge pages and the deck is large.
    const std::string thp = Slurp("/sys/kernel/mm/transparent_hugepage/enabled");
    const bool kernel_thp = !thp.empty() && thp.find("[never]") == std::string::npos;
    auto tunable_seen = [&](const std::string& env, const fs::path& deck) {
        const std::string script =
            env + " " + kExe + " run " + deck.string() + " --no-output --final-time 1000 --quiet" +
            " > /dev/null 2>&1 & p=$!; sleep 1; tr '\\0' '\\n' < /proc/$p/environ | grep -q " +
            "'glibc.malloc.hugetlb=1'; r=$?; kill $p; wait $p; exit $r";
        return Shell(script) == 0;
    };
    CHECK(tunable_seen("", big) == kernel_thp);
    CHECK_FALSE(tunable_seen("MBSTEP_HUGE_PAGES=0", big));
    // Under valgrind (its preload library named in LD_PRELOAD; here one that does not exist, which
    // the loader ignores) the run stays in the process started.
    CHECK_FALSE(tunable_seen("LD_PRELOAD=/nonexistent/vgpreload_memcheck-amd64-linux.so", big));
    CHECK_FALSE(tunable_seen("", small));
    // mbstep-bench measures with the heap of a run (every deck: it times large models).
    auto bench_tunable_seen = [&](const std::string& env) {
        const std::string script =
            env + " " + kBench + " --method 'ms, 0.6' --step 1e-4 --final-time 1000 " +
            small.string() +
            " > /dev/null 2>&1 & p=$!; sleep 1; tr '\\0' '\\n' < /proc/$p/environ" +
            " | grep -q 'glibc.malloc.hugetlb=1'; r=$?; kill $p; wait $p; exit $r";
        return Shell(script) == 0;
    };
    CHECK(bench_tunable_seen("") == kernel_thp);
    CHECK_FALSE(bench_tunable_seen("MBSTEP_HUGE_PAGES=0"));
    fs::remove_all(dir);
}
