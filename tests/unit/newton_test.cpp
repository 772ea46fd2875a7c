// NewtonSolver's Jacobian reuse (modified Newton) on a scalar linear system whose slope the test
// sets per point: a fresh factorization solves a point in one iteration, a reused one contracts
// by |1 - a / a_factored| per iteration.
#include "mbstep/solver/newton.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace mbstep;

namespace {
// r(x) = a (x - t), J = a.
struct Line : NewtonSystem {
    double a{1.0}, t{0.0}, x{0.0};
    void Residual(Eigen::VectorXd& r) override { r[0] = a * (x - t); }
    void Jacobian(Eigen::SparseMatrix<double>& J) override { J.coeffRef(0, 0) = a; }
    void Update(const Eigen::VectorXd& dx) override { x += dx[0]; }
    std::string DescribeEquation(int) const override { return "x"; }
};

struct Point {
    bool fresh;  // refactored at its first iteration
    int iterations;
};

// Points 0..slopes.size()-1 with target t = point number + 1, from the last solution (x = 0).
std::vector<Point> Solve(bool adaptive, const std::vector<double>& slopes) {
    SolverSettings s;
    s.residual_tolerance = 1e-6;
    s.modified_newton = true;
    s.modified_newton_iterations = 100000;  // no refactorization by count
    s.modified_newton_adaptive = adaptive;
    s.linear_solver = "naive";
    NewtonSolver newton(s);
    Eigen::SparseMatrix<double> pattern(1, 1);
    pattern.insert(0, 0) = 1.0;
    newton.Setup(pattern);
    Line line;
    std::vector<Point> out;
    for (size_t p = 0; p < slopes.size(); ++p) {
        line.a = slopes[p];
        line.t = static_cast<double>(p + 1);
        const NewtonResult r = newton.Solve(line);
        REQUIRE(r.converged);
        CHECK(line.x == doctest::Approx(line.t).epsilon(1e-5));
        out.push_back({r.factorizations > 0, r.iterations});
    }
    return out;
}
}  // namespace

TEST_CASE(
    "modified Newton, adaptive: after a point that reuse served badly, fresh starts "
    "for 1, 2, 4, ... points; back to 1 after a point that reuse served") {
    // Slopes alternating 1, 0.8 (a reused factorization contracts by 0.2 or 0.25 per iteration:
    // 9-10 iterations to 1e-6), then constant (reuse solves in one iteration), then alternating.
    std::vector<double> slopes;
    for (int p = 0; p <= 20; ++p) slopes.push_back(p % 2 ? 0.8 : 1.0);
    for (int p = 21; p <= 45; ++p) slopes.push_back(1.0);
    for (int p = 46; p <= 52; ++p) slopes.push_back(p % 2 ? 1.0 : 0.8);

    const std::vector<Point> plain = Solve(false, slopes);
    CHECK(plain[0].fresh);
    for (size_t p = 1; p < plain.size(); ++p) {
        INFO("point ", p);
        CHECK_FALSE(plain[p].fresh);  // contraction <= 0.25: never a refactorization
    }
    CHECK(plain[1].iterations > 2);

    const std::vector<Point> ad = Solve(true, slopes);
    // Reuse fails at 1 -> 1 fresh point, at 3 -> 2, at 6 -> 4, at 11 -> 8, at 20 -> 16 (21-36).
    std::vector<int> reused;
    for (int p = 0; p <= 36; ++p)
        if (!ad[p].fresh) reused.push_back(p);
    CHECK(reused == std::vector<int>{1, 3, 6, 11, 20});
    for (int p : reused) CHECK(ad[p].iterations > 2);
    for (int p = 0; p <= 36; ++p)
        if (ad[p].fresh) CHECK(ad[p].iterations == 1);
    // Constant slope: reuse from 37 on, one iteration each.
    for (int p = 37; p <= 45; ++p) {
        INFO("point ", p);
        CHECK_FALSE(ad[p].fresh);
        CHECK(ad[p].iterations == 1);
    }
    // Reuse served 37-45, so the next failure (46) costs one fresh point (47), then two.
    CHECK_FALSE(ad[46].fresh);
    CHECK(ad[46].iterations > 2);
    CHECK(ad[47].fresh);
    CHECK_FALSE(ad[48].fresh);
    CHECK(ad[49].fresh);
    CHECK(ad[50].fresh);
    CHECK_FALSE(ad[51].fresh);
}
