// N-link spherical chain (examples/n-link-chain): the checked-in deck.mbd is the output of
// generate.py for N = 10. Needs python3: reported as skipped (support/skip.hpp) where python3
// cannot be run, in an executable of its own so that the skip hides no other test.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support/run_helpers.hpp"
#include "support/skip.hpp"

using namespace mbstep::test;

TEST_CASE("n-link chain: deck.mbd is the generator's output for N = 10") {
    if (std::system("python3 -c \"\" >/dev/null 2>&1") != 0) {
        ReportSkip("python3 not available: generator comparison not run");
        return;
    }
    const std::string generator = SourcePath("examples/n-link-chain/generate.py");
    std::FILE* pipe = popen(("python3 " + generator + " 10 2>/dev/null").c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string generated;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) generated.append(buf, n);
    const int status = pclose(pipe);
    REQUIRE(status == 0);
    REQUIRE_FALSE(generated.empty());
    std::ifstream f(SourcePath("examples/n-link-chain/deck.mbd"));
    std::stringstream ss;
    ss << f.rdbuf();
    CHECK(ss.str() == generated);
}
