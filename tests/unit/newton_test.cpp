// NewtonSolver's Jacobian reuse (modified Newton) on a scalar linear system whose slope the test
// sets per point: a fresh factorization solves a point in one iteration, a reused one contracts
// by |1 - a / a_factored| per iteration.
#include "mbstep/solver/newton.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <memory>
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

// A Newton solver with the dense LU on the 1 x 1 pattern of the scalar systems here.
std::unique_ptr<NewtonSolver> ScalarNewton(SolverSettings s) {
    s.linear_solver = "naive";
    auto newton = std::make_unique<NewtonSolver>(s);
    Eigen::SparseMatrix<double> pattern(1, 1);
    pattern.insert(0, 0) = 1.0;
    newton->Setup(pattern);
    return newton;
}

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
    const std::unique_ptr<NewtonSolver> owner = ScalarNewton(s);
    NewtonSolver& newton = *owner;
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

namespace {
// Two unknowns, r_i = atan(x_i - t_i) + noise * (-1)^k at the k-th evaluation: Newton from far
// (|x - t| > 1.39) diverges; from near it converges to within `noise`, where it stalls.
// UnknownScales reports `scale` for every unknown, so the round-off estimate of equation i is
// eps |J_ii| scale.
struct Atan : NewtonSystem {
    Eigen::Vector2d x{0.0, 0.0}, t{0.0, 0.0};
    double noise{0.0}, scale{1.0};
    int k{0};
    void Residual(Eigen::VectorXd& r) override {
        const double n = (k++ % 2 ? -noise : noise);
        for (int i = 0; i < 2; ++i) r[i] = std::atan(x[i] - t[i]) + n;
    }
    void Jacobian(Eigen::SparseMatrix<double>& J) override {
        for (int i = 0; i < 2; ++i) J.coeffRef(i, i) = 1.0 / (1.0 + (x[i] - t[i]) * (x[i] - t[i]));
    }
    void Update(const Eigen::VectorXd& dx) override { x += dx; }
    std::string DescribeEquation(int i) const override { return i ? "second" : "first"; }
    void UnknownScales(Eigen::VectorXd& s) const override { s.setConstant(2, scale); }
};

// One point of a system of n unknowns with a diagonal iteration matrix, dense LU.
NewtonResult SolveDiagonal(NewtonSystem& sys, int n, SolverSettings s) {
    s.linear_solver = "naive";
    NewtonSolver newton(s);
    Eigen::SparseMatrix<double> pattern(n, n);
    for (int i = 0; i < n; ++i) pattern.insert(i, i) = 1.0;
    newton.Setup(pattern);
    return newton.Solve(sys);
}

NewtonResult SolveAtan(Atan& sys, int max_iterations) {
    SolverSettings s;
    s.residual_tolerance = 1e-12;
    s.max_iterations = max_iterations;
    return SolveDiagonal(sys, 2, s);
}
}  // namespace

TEST_CASE("Newton failure hint: a stall at the round-off estimate asks to loosen the tolerance") {
    Atan sys;
    sys.t = {0.5, -0.25};
    sys.noise = 1e-9;  // the residual cannot go below ~1e-9 ...
    sys.scale = 1e-9 / std::numeric_limits<double>::epsilon();  // ... which is its estimate
    const NewtonResult r = SolveAtan(sys, 12);
    INFO(r.message);
    REQUIRE_FALSE(r.converged);
    CHECK(r.message.find("no convergence after 12 iterations: residual ") == 0);
    CHECK(r.message.find("near its round-off level (~1.41421e-09): a tolerance below the round-off "
                         "level of these equations cannot be met: loosen it") != std::string::npos);
    CHECK(r.message.find("time step") == std::string::npos);
}

TEST_CASE("Newton failure hint: divergence far above round-off asks for a smaller time step") {
    Atan sys;
    sys.t = {0.0, -3.0};  // the second unknown starts 3 away: Newton on atan diverges there
    sys.scale = 1.0;
    const NewtonResult r = SolveAtan(sys, 6);  // |x - t| = 3, 9.5, 143, 3e4, 2e9, 4e18
    INFO(r.message);
    REQUIRE_FALSE(r.converged);
    CHECK(r.message.find("worst equation second") != std::string::npos);
    CHECK(r.message.find("far above its round-off level") != std::string::npos);
    CHECK(r.message.find(": the time step may be too large for this motion: try a smaller time "
                         "step (the fastest-changing equation: second)") != std::string::npos);
    CHECK(r.message.find("loosen") == std::string::npos);
    // Without an estimate, a stall names both causes.
    struct NoScales : Atan {
        void UnknownScales(Eigen::VectorXd& s) const override { s.resize(0); }
    } plain;
    plain.t = {0.5, -0.25};
    plain.noise = 1e-9;
    const NewtonResult q = SolveAtan(plain, 12);
    INFO(q.message);
    CHECK(q.message.find(": if that is the round-off level of these equations, loosen the "
                         "tolerance; otherwise the time step may be too large") !=
          std::string::npos);
}

namespace {
// r(x) = x^3 - 8 + c: at a residual tolerance below round-off Newton stalls at the root,
// which the residual test cannot accept; an increment test of the system's own can.
struct NoisyCube : NewtonSystem {
    double x{3.0}, noise{0.0}, increment_bound{-1.0};
    void Residual(Eigen::VectorXd& r) override { r[0] = x * x * x - 8.0 + noise; }
    void Jacobian(Eigen::SparseMatrix<double>& J) override { J.coeffRef(0, 0) = 3.0 * x * x; }
    void Update(const Eigen::VectorXd& dx) override { x += dx[0]; }
    std::string DescribeEquation(int) const override { return "x"; }
    bool IncrementConverged(const Eigen::VectorXd& dx) const override {
        return std::abs(dx[0]) <= increment_bound;
    }
};

NewtonResult SolveCube(NoisyCube& c, ResidualTest solution_test) {
    SolverSettings s;
    s.residual_tolerance = 1e-30;
    s.residual_test = ResidualTest::kMinMax;
    s.solution_test = solution_test;
    s.max_iterations = 50;
    return SolveDiagonal(c, 1, s);
}
}  // namespace

TEST_CASE("Newton: a system's own increment test ends the iteration; the increment's norm") {
    NoisyCube c;
    c.noise = 1e-9;  // root (8 - 1e-9)^(1/3); the residual tolerance 1e-30 is unreachable
    c.increment_bound = 1e-12;
    const NewtonResult r = SolveCube(c, ResidualTest::kMinMax);
    CHECK(r.converged);
    CHECK(r.iterations < 50);
    CHECK(r.solution <= 1e-12);
    CHECK(c.x == doctest::Approx(std::cbrt(8.0 - 1e-9)).epsilon(1e-15));
    // Without the hook the same point fails (the default: no increment test of its own).
    NoisyCube d;
    d.noise = 1e-9;
    CHECK_FALSE(SolveCube(d, ResidualTest::kNone).converged);
}

namespace {
// r = A x - b with A diagonal: one Newton step, increment dx = b / diag(A) from x = 0.
struct Diagonal : NewtonSystem {
    Eigen::VectorXd a, b, x;
    void Residual(Eigen::VectorXd& r) override { r = a.cwiseProduct(x) - b; }
    void Jacobian(Eigen::SparseMatrix<double>& J) override {
        for (int i = 0; i < a.size(); ++i) J.coeffRef(i, i) = a[i];
    }
    void Update(const Eigen::VectorXd& dx) override { x += dx; }
    std::string DescribeEquation(int) const override { return "x"; }
};
}  // namespace

TEST_CASE("Newton: the solution test `minmax` reports the increment's max-norm") {
    for (ResidualTest t : {ResidualTest::kNone, ResidualTest::kNorm, ResidualTest::kMinMax}) {
        SolverSettings s;
        s.solution_test = t;
        Diagonal sys;
        sys.a = Eigen::Vector2d(1.0, 2.0);
        sys.b = Eigen::Vector2d(3.0, 8.0);  // dx = (3, 4)
        sys.x = Eigen::Vector2d::Zero();
        const NewtonResult r = SolveDiagonal(sys, 2, s);
        REQUIRE(r.converged);
        CHECK(r.solution == (t == ResidualTest::kMinMax ? 4.0 : 5.0));
    }
}

namespace {
// r(x) = e + q e^3 with e = x - t, J exact: Newton's range of quadratic convergence, where a
// chord iteration (the first iteration's matrix, 1 + 3 q at e = -1) contracts by about 3 q.
struct Cubic : NewtonSystem {
    double q{0.01}, t{0.0}, x{0.0};
    void Residual(Eigen::VectorXd& r) override {
        const double e = x - t;
        r[0] = e + q * e * e * e;
    }
    void Jacobian(Eigen::SparseMatrix<double>& J) override {
        const double e = x - t;
        J.coeffRef(0, 0) = 1.0 + 3.0 * q * e * e;
    }
    void Update(const Eigen::VectorXd& dx) override { x += dx[0]; }
    std::string DescribeEquation(int) const override { return "x"; }
};

// Points 0..n-1 with t = point number + 1 (each starts at e = -1); the points that took a chord
// iteration (fewer factorizations than iterations).
std::vector<int> ChordPoints(double q, int n, bool every, std::vector<NewtonResult>* results) {
    SolverSettings s;
    s.residual_tolerance = 1e-4;
    s.jacobian_every_iteration = every;
    const std::unique_ptr<NewtonSolver> newton = ScalarNewton(s);
    Cubic c;
    c.q = q;
    std::vector<int> chord;
    for (int p = 0; p < n; ++p) {
        c.t = p + 1.0;
        const NewtonResult r = newton->Solve(c);
        REQUIRE(r.converged);
        CHECK(std::abs(c.x - c.t) <= 1e-4);
        if (r.factorizations < r.iterations) chord.push_back(p);
        results->push_back(r);
    }
    return chord;
}
}  // namespace

TEST_CASE(
    "Newton's default: chord iterations in Newton's range; `true`: a matrix every iteration") {
    // q = 1e-3: e1 = 2e-3 after the fresh iteration, a chord iteration contracts by 3e-3 to
    // 6e-6 and ends the point: every point takes one factorization and two iterations.
    std::vector<NewtonResult> chord_runs, full_runs;
    const std::vector<int> chord = ChordPoints(1e-3, 10, false, &chord_runs);
    CHECK(chord.size() == 10);
    for (const NewtonResult& r : chord_runs) {
        CHECK(r.factorizations == 1);
        CHECK(r.iterations == 2);
    }
    CHECK(ChordPoints(1e-3, 10, true, &full_runs).empty());
    for (const NewtonResult& r : full_runs) CHECK(r.factorizations == r.iterations);
}

TEST_CASE(
    "Newton's default: after a point whose chord iteration did not end it, none for 1, 2, "
    "4, ... points") {
    // q = 1e-2: e1 = 1.9e-2, the chord iteration (rate 0.03) leaves 5.7e-4 > 1e-4, a second
    // ends the point: chord iterations at points 0, 2, 5, 10, 19 of 25 only.
    std::vector<NewtonResult> runs;
    CHECK(ChordPoints(1e-2, 25, false, &runs) == std::vector<int>{0, 2, 5, 10, 19});
    CHECK(runs[0].iterations == 3);
    CHECK(runs[0].factorizations == 1);
    CHECK(runs[1].factorizations == runs[1].iterations);  // full Newton
}
