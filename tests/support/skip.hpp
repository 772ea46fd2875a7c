// Tests that need what a checkout may lack (the optional MBDyn test decks, support/mbdyn_tests.hpp;
// a tool such as python3) report a skip that CTest counts as skipped, never as passed: every test
// registered with mbstep_add_test has SKIP_REGULAR_EXPRESSION "MBSTEP-SKIP:"
// (tests/CMakeLists.txt). The marker marks the whole executable skipped, whatever its other test
// cases did: give such a test case an executable of its own.
#pragma once

#include <iostream>
#include <string>

namespace mbstep::test {

/// Prints the skip marker with its reason; the caller then returns from the test case.
inline void ReportSkip(const std::string& reason) {
    std::cout << "MBSTEP-SKIP: " << reason << std::endl;
}

}  // namespace mbstep::test
