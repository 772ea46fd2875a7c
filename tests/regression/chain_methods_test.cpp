// Acceptance: the 100-link spherical chain (examples/n-link-chain, h = 1e-3, 1 s) runs
// with every single-step and multistage method without a failed step. (The heavy top with every
// method is covered by the registry and family tests; per-method costs and errors are in
// docs/PERFORMANCE.md, from tools/bench/run-methods.sh.)
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

TEST_CASE("100-link chain, 1 s at h = 1e-3: every SingleStep and StageN method, no failed step") {
    const auto dir = std::filesystem::temp_directory_path() / "mbstep_chain_methods";
    std::filesystem::create_directories(dir);
    const std::string deck = (dir / "chain100.mbd").string();
    const std::string cmd =
        "python3 " + SourcePath("examples/n-link-chain/generate.py") + " 100 > " + deck;
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::vector<std::string> methods;
    for (std::string m :
         {"ss2", "ss3", "ss4", "Bathe", "msstc3", "msstc4", "msstc5", "mssth3", "mssth4", "mssth5"})
        for (std::string rho : {"0", "0.6"}) methods.push_back(m + ", " + rho);
    for (std::string m : {"DIRK33", "DIRK43", "DIRK54"}) methods.push_back(m);
    const Registry& reg = GlobalRegistry();
    for (const std::string& m : methods) {
        if (!reg.FindIntegrator(m.substr(0, m.find(',')))) continue;
        INFO(m);
        RunResult r;
        CHECK_NOTHROW(r = RunDeck(deck, m, 1e-3, 1.0));
        CHECK(r.summary.completed);
        CHECK(r.summary.steps == 1000);
        CHECK(r.summary.failed_steps == 0);
    }
    std::filesystem::remove_all(dir);
}
