// The optional folder of MBDyn's own test decks, for the compatibility tests (label `compat`).
//
// MBDyn's decks (from MBDyn's test tree, under MBDyn's licence) are not part of mbstep and are
// never copied into it. The folder is the CMake cache variable MBSTEP_MBDYN_TESTS_DIR; left
// empty, tests/CMakeLists.txt looks for a sibling folder of the source tree at configure time
// (the one place that names it) and passes the result to the compat tests as the macro
// MBSTEP_MBDYN_TESTS_DIR (empty when there is none). Layout: <dir>/<name>/<name> for the
// rigid-body decks (with their include files beside them) and <dir>/flexible/<name>/<name> for
// the flexible benchmarks. Without the folder, the tests that need it print test::ReportSkip
// (support/skip.hpp) and return: CTest counts them as skipped, never as passed. Keep such tests
// in executables of their own (tests/compat/), since the skip marker makes CTest count the whole
// executable as skipped.
#pragma once

#include <filesystem>
#include <string>

#ifndef MBSTEP_MBDYN_TESTS_DIR
#error "MBSTEP_MBDYN_TESTS_DIR is defined for the compat tests only (tests/compat/CMakeLists.txt)"
#endif

namespace mbstep::test {

/// A folder of MBDyn's test decks: `path` when `skip_reason` is empty, otherwise why it cannot
/// be used (for test::ReportSkip).
struct MbdynTestsFolder {
    std::filesystem::path path;
    std::string skip_reason;
};

/// The folder of MBDyn's test decks, or its subfolder `sub` (e.g. "flexible").
inline MbdynTestsFolder FindMbdynTests(const std::string& sub = "") {
    const std::filesystem::path root(MBSTEP_MBDYN_TESTS_DIR);
    if (root.empty()) {
        return {{},
                "MBDyn's test decks not found (set the CMake cache variable "
                "MBSTEP_MBDYN_TESTS_DIR)"};
    }
    const std::filesystem::path dir = sub.empty() ? root : root / sub;
    if (!std::filesystem::is_directory(dir)) {
        return {dir, dir.string() + " is absent (CMake cache variable MBSTEP_MBDYN_TESTS_DIR)"};
    }
    return {dir, ""};
}

}  // namespace mbstep::test
