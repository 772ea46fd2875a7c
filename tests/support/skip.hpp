// Tests that need files outside the repository (the sibling ../shared folder) report a skip
// that CTest counts as skipped, never as passed: every test registered with mbstep_add_test has
// SKIP_REGULAR_EXPRESSION "MBSTEP-SKIP:" (tests/CMakeLists.txt).
#pragma once

#include <iostream>
#include <string>

namespace mbstep::test {

/// Prints the skip marker with its reason; the caller then returns from the test case.
inline void ReportSkip(const std::string& reason) {
    std::cout << "MBSTEP-SKIP: " << reason << std::endl;
}

}  // namespace mbstep::test
