// Mass-spring system with redundant coordinates and a constant singular mass matrix
// (examples/mass-spring-singular; P.L. Kinon, P. Betsch, Multibody Syst Dyn (2024),
// doi:10.1007/s11044-024-10001-9, sect. 5.1): abstract nodes and the `lagrangian` genel on the
// `cgr` family's momentum form with first-order methods. Checks: the constraint at the Newton
// tolerance at every step, the energy (exactly 1 for the exact solution) and each method's
// declared order against an independent reference.
//
// Reference: the reduced ODE in (q1, q3) (q2 = q1 + l10 + w eliminated, regular 2x2 mass
// matrix [m1 + m2, m2; m2, m2]), integrated here by the classical Runge-Kutta method with
// 200000 steps over [0, 10] — no mbstep code involved. It agrees with a DOP853 solution
// (rtol 1e-13) of the same ODE to 1e-13 at t = 10 (q1 = 0.8877973989143377,
// q3 = 0.2659615048854821).
#include <doctest/doctest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/livens_references.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

const std::string kDeck = test::SourcePath("examples/mass-spring-singular/deck.mbd");

/// (q1, q3, q1', q3') at t = 10 of the reduced ODE (support/livens_references.hpp).
std::array<double, 4> Reference() { return test::MassSpringSingularReference(); }

struct Result {
    double error{0.0};         ///< max over q1, q3, q1', q3' at t = 10
    double max_drift{0.0};     ///< max |g| over the steps
    double max_link{0.0};      ///< max |q2 - q1 - 1.1| over the steps
    double energy_end{0.0};    ///< T + V at t = 10
    double energy_error{0.0};  ///< max |T + V - 1| over the steps (1: the exact energy)
    int steps{0};
};

Result RunMethod(const std::string& method, double h) {
    static const std::array<double, 4> ref = Reference();
    Result r;
    std::array<double, 4> last{};
    const test::RunResult run =
        test::RunDeck(kDeck, method, h, 0.0, [&](double, const Formulation& f) {
            const Invariants inv = f.ComputeInvariants();
            const auto& s = f.abstract_states();
            r.max_drift = std::max(r.max_drift, inv.constraint_violation);
            r.max_link = std::max(r.max_link, std::abs(s[1].x - s[0].x - 1.1));
            r.energy_end = inv.kinetic + inv.potential;
            r.energy_error = std::max(r.energy_error, std::abs(r.energy_end - 1.0));
            last = {s[0].x, s[2].x, s[0].xp, s[2].xp};
            ++r.steps;
        });
    REQUIRE(run.summary.completed);
    for (int j = 0; j < 4; ++j) r.error = std::max(r.error, std::abs(last[j] - ref[j]));
    return r;
}

}  // namespace

TEST_CASE("mass-spring-singular: the reference agrees with the published DOP853 values") {
    const std::array<double, 4> ref = Reference();
    CHECK(ref[0] == doctest::Approx(0.8877973989143377).epsilon(1e-12));
    CHECK(ref[1] == doctest::Approx(0.2659615048854821).epsilon(1e-12));
    CHECK(ref[2] == doctest::Approx(0.1471628022708964).epsilon(1e-11));
    CHECK(ref[3] == doctest::Approx(-0.7128928811864546).epsilon(1e-12));
}

TEST_CASE("mass-spring-singular: constraint, energy and declared order of first-order methods") {
    struct Case {
        const char* method;
        double h;             // coarse step; the order is measured between h and h/2
        double energy_bound;  // of max |E - 1| at h/2 (measured, rounded up)
    };
    for (const Case& c :
         {Case{"implicit euler", 0.01, 0.12}, Case{"ms, 0.6", 0.02, 1e-4}, Case{"bdf", 0.02, 3e-4},
          Case{"crank nicolson", 0.02, 1e-4}, Case{"ms3, 0.6", 0.02, 1e-4},
          Case{"Bathe", 0.02, 5e-5}, Case{"DIRK33", 0.04, 1e-4}, Case{"mssth3, 0.6", 0.04, 5e-5},
          Case{"DIRK54", 0.1, 5e-7}}) {
        const double declared = test::DeclaredOrder(c.method);
        const Result coarse = RunMethod(c.method, c.h);
        const Result fine = RunMethod(c.method, c.h / 2);
        const double order = std::log2(coarse.error / fine.error);
        INFO(std::string(c.method)
             << ": errors " << coarse.error << ", " << fine.error << "; order " << order
             << " (declared " << declared << "); drift " << fine.max_drift << "; energy error "
             << coarse.energy_error << ", " << fine.energy_error);
        // The initial point and one point per step.
        CHECK(fine.steps == 1 + static_cast<int>(std::lround(10.0 / (c.h / 2))));
        CHECK(std::abs(order - declared) <= 0.2);
        // The constraint at the Newton tolerance (1e-10 on rows g/c) at every step.
        CHECK(fine.max_drift <= 1e-11);
        CHECK(fine.max_link <= 1e-10);
        // Energy: exactly 1 along the exact solution; the error converges with the step.
        CHECK(fine.energy_error < coarse.energy_error);
        CHECK(fine.energy_error <= c.energy_bound);
    }
}

TEST_CASE("mass-spring-singular: the .abs file in MBDyn's layout") {
    Deck deck = ReadDeck(kDeck, GlobalRegistry());
    deck.settings.final_time = 0.2;  // two steps of 0.1
    RunOptions opt;
    opt.progress = false;
    const std::string prefix = (std::filesystem::temp_directory_path() /
                                ("mbstep_mass_spring_singular_" + std::to_string(::getpid())))
                                   .string();
    opt.output_prefix = prefix;
    REQUIRE(Run(deck, opt, GlobalRegistry()).completed);
    std::ifstream in(prefix + ".abs");
    std::vector<std::array<double, 3>> rows;
    for (std::array<double, 3> r; in >> r[0] >> r[1] >> r[2];) rows.push_back(r);
    // One line per node (label, value, derivative) at t = 0 and after each step.
    REQUIRE(rows.size() == 9);
    CHECK(rows[0] == std::array<double, 3>{1, 0, 1});
    CHECK(rows[1] == std::array<double, 3>{2, 1.1, 1});
    CHECK(rows[2] == std::array<double, 3>{3, 0, -1});
    for (int k = 0; k < 9; ++k) CHECK(rows[k][0] == k % 3 + 1);
    // q2 - q1 = 1.1 and q2' = q1' at every output step (6 significant digits).
    for (int k = 3; k < 9; k += 3) {
        CHECK(rows[k + 1][1] - rows[k][1] == doctest::Approx(1.1).epsilon(1e-5));
        CHECK(rows[k + 1][2] == doctest::Approx(rows[k][2]).epsilon(1e-5));
    }
    for (const char* ext : {".abs", ".mov", ".out", ".log", ".csv"})
        std::filesystem::remove(prefix + ext);
}
