// The optional folder of MBDyn's own test decks, for the compatibility tests (label `compat`).
//
// MBDyn's decks (from MBDyn's test tree, under MBDyn's licence) are not part of mbstep and are
// never copied into it. A checkout may have them in a folder beside the source tree; this is the
// one place that names it. Layout: <dir>/<name>/<name> for the rigid-body decks (with their
// include files beside them) and <dir>/flexible/<name>/<name> for the flexible benchmarks.
// Without the folder, the tests that need it print test::ReportSkip (support/skip.hpp) and
// return: CTest counts them as skipped, never as passed. Keep such tests in executables of
// their own (tests/compat/), since the skip marker makes CTest count the whole executable as
// skipped.
#pragma once

#include <filesystem>

namespace mbstep::test {

/// Where the optional MBDyn test decks are looked for (they may be absent: check before use).
inline std::filesystem::path MbdynTestsDir() {
    return std::filesystem::path(MBSTEP_SOURCE_DIR "/../shared/mbdyn-tests").lexically_normal();
}

}  // namespace mbstep::test
