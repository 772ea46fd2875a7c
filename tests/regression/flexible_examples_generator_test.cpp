// The flexible benchmarks of Bauchau et al. (2016) (examples/four-bar-flexible,
// lateral-buckling, rotating-shaft): the checked-in deck.mbd files are the output of
// examples/flexible/generate.py. Needs python3: reported as skipped (support/skip.hpp) where
// python3 cannot be run, in an executable of its own so that the skip hides no other test.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/run_helpers.hpp"
#include "support/skip.hpp"

using namespace mbstep::test;

namespace {
std::string ReadFile(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
}  // namespace

TEST_CASE("flexible examples: deck.mbd files are the generator's output") {
    if (std::system("python3 -c \"\" >/dev/null 2>&1") != 0) {
        ReportSkip("python3 not available: generator comparison not run");
        return;
    }
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("mbstep-flexible-" + std::to_string(getpid()));
    const std::string cmd = "python3 " + SourcePath("examples/flexible/generate.py") +
                            " --outdir " + dir.string() + " 2>/dev/null";
    const int status = std::system(cmd.c_str());
    CHECK(status == 0);
    for (const char* name : {"four-bar-flexible", "lateral-buckling", "rotating-shaft"}) {
        INFO(name);
        CHECK(ReadFile(SourcePath(std::string("examples/") + name + "/deck.mbd")) ==
              ReadFile((dir / name / "deck.mbd").string()));
    }
    std::filesystem::remove_all(dir);
}
