// Checks shared by the benchmark-deck regression tests: run a deck
// with a given method and record, after every converged step, the time, the total energy and
// the position-level constraint residual (Invariants::constraint_violation, the .csv column
// `constraint_violation`); then check that the residual stays at the level of the Newton
// tolerance at every step and does not grow over the run.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "support/run_helpers.hpp"

namespace mbstep::test {

/// The methods every benchmark deck runs with: three first-order ones
/// on `cgr` and the second-order `generalized alpha` on its default `lie group` (the one
/// second-order formulation that takes every deck: `euler parameters` refuses centre-of-mass
/// offsets and static nodes, `euler angles` stops at the Cardan singularity).
inline const std::vector<std::string>& DeckMethods() {
    static const std::vector<std::string> methods = {"ms, 0.6", "ms3, 0.6", "Bathe, 0",
                                                     "generalized alpha, 0.9"};
    return methods;
}

struct DeckTrace {
    RunResult run;
    std::vector<double> time;
    std::vector<double> energy;  ///< kinetic + potential
    std::vector<double> drift;   ///< max |phi| over the position-level constraints
};

/// Runs `deck_path` as RunDeck does and records the invariants after every step; `on_step`
/// (optional) sees each converged step too.
inline DeckTrace TraceDeck(const std::string& deck_path, const std::string& method, double h,
                           double tf,
                           std::function<void(double, const Formulation&)> on_step = nullptr) {
    DeckTrace tr;
    tr.run = RunDeck(deck_path, method, h, tf, [&](double t, const Formulation& f) {
        const Invariants inv = f.ComputeInvariants();
        tr.time.push_back(t);
        tr.energy.push_back(inv.kinetic + inv.potential);
        tr.drift.push_back(inv.constraint_violation);
        if (on_step) on_step(t, f);
    });
    return tr;
}

/// Largest entry of the k-th of n equal consecutive parts of v (k = 0 .. n-1).
inline double PartMax(const std::vector<double>& v, int k, int n) {
    const size_t b = v.size() * k / n, e = v.size() * (k + 1) / n;
    return b < e ? *std::max_element(v.begin() + b, v.begin() + e) : 0.0;
}

/// Constraint drift at the Newton tolerance level with no growth: every converged step has a
/// residual below `bound`, and the largest residual over the last quarter of the run is at
/// most 10 times that over the first quarter, unless both are below `floor` (round-off of
/// the positions, where the residual is noise).
inline void CheckDrift(const DeckTrace& tr, double bound, double floor) {
    REQUIRE(!tr.drift.empty());
    const double all = *std::max_element(tr.drift.begin(), tr.drift.end());
    const double first = PartMax(tr.drift, 0, 4), last = PartMax(tr.drift, 3, 4);
    INFO("constraint residual: max ", all, ", first quarter ", first, ", last quarter ", last);
    CHECK(all <= bound);
    CHECK((last <= 10.0 * first || last <= floor));
}

}  // namespace mbstep::test
