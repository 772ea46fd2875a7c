// The Newmark family (`hht`, `hht, ..., arnold bruls`, `generalized alpha`) on abstract nodes:
// the formulation `lagrangian` as a SecondOrderProblem (formulation/abstract_formulation.hpp)
// on the two examples of P.L. Kinon, P. Betsch, "Conserving integration of multibody systems
// with singular and non-constant mass matrix including quaternion-based rigid body dynamics",
// Multibody Syst Dyn (2024), doi:10.1007/s11044-024-10001-9, sect. 5.1 (mass-spring with a
// singular mass matrix and one constraint) and 5.2 (spring pendulum, q-dependent mass matrix).
// Checks: the expressions' third derivatives along a direction (Expression::ThirdOrder) and
// every Jacobian piece against central differences, the orders against the independent RK4
// references (support/livens_references.hpp), and the refusals.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "mbstep/formulation/abstract_formulation.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/io/expression.hpp"
#include "support/livens_references.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

const std::string kPendulum = test::SourcePath("examples/spring-pendulum/deck.mbd");
const std::string kMassSpring = test::SourcePath("examples/mass-spring-singular/deck.mbd");

std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// max |a - b| / max(max |b|, 1).
double RelativeError(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    return (a - b).cwiseAbs().maxCoeff() / std::max(b.cwiseAbs().maxCoeff(), 1.0);
}

/// Max error of the final state against the RK4 reference: the spring pendulum's (l, theta,
/// phi, l', theta', phi') at t = 1, the mass-spring's (q1, q3, q1', q3') at t = 10. The
/// largest constraint violation |g| over the steps goes to *violation.
double ErrorAgainstReference(const std::string& deck, const std::string& method, double h,
                             double* violation = nullptr, std::string* formulation = nullptr) {
    const bool pendulum = deck == kPendulum;
    std::vector<double> got;
    double worst = 0.0;
    const test::RunResult run =
        test::RunDeck(deck, method, h, 0.0, [&](double, const Formulation& f) {
            const auto& s = f.abstract_states();
            got = pendulum ? std::vector<double>{s[0].x, s[1].x, s[2].x, s[0].xp, s[1].xp, s[2].xp}
                           : std::vector<double>{s[0].x, s[2].x, s[0].xp, s[2].xp};
            worst = std::max(worst, f.ComputeInvariants().constraint_violation);
        });
    REQUIRE_MESSAGE(run.summary.completed, run.summary.failure);
    if (violation) *violation = worst;
    if (formulation) *formulation = run.summary.formulation;
    double e = 0.0;
    if (pendulum) {
        static const std::array<double, 6> ref = test::SpringPendulumReference();
        for (int j = 0; j < 6; ++j) e = std::max(e, std::abs(got[j] - ref[j]));
    } else {
        static const std::array<double, 4> ref = test::MassSpringSingularReference();
        for (int j = 0; j < 4; ++j) e = std::max(e, std::abs(got[j] - ref[j]));
    }
    return e;
}

}  // namespace

TEST_CASE("expression: third derivatives along a direction against differences of Hessians") {
    SymbolTable s;
    s.Set("m", Value::Real(3.0));
    std::vector<const Variable*> vars;
    for (const char* name : {"x", "y"})
        vars.push_back(s.Declare(name, ValueType::kReal, false).get());
    const Eigen::Vector2d at(0.7, 1.3), u(0.4, -0.9);
    // Each built-in function with a derivative rule, and the operators, in compositions of
    // both variables (arguments inside each function's domain at `at`).
    const char* texts[] = {
        "sin(x*y) + cos(x - y)",
        "tan(0.5*x*y)",
        "asin(0.3*x*y) + acos(0.2*x + 0.1*y)",
        "atan(x*y) + actan(x - y)",
        "sinh(x*y) + cosh(x - y) + tanh(x*y)",
        "asinh(x*y) + acosh(1.5 + x*y) + atanh(0.3*x*y)",
        "ctan(0.5*x + 0.3*y)",
        "sqrt(x*y) + exp(x*y) + log(x + y) + log10(x*y)",
        "abs(x - y) + min(x*y, 2) + max(x, y)^3",
        "atan2(y, x) + actan2(x*y, x + y)",
        "pow(x, y) + x^y + y^3.5 + (x*y)^2 + copysign(x*y, -1)",
        "m*x^3*y/(1 + y^2) - x/y + 0.5*m*(x - y)^2*y",
        "0.5*(x^2 + y^2*sin(x)^2)*x*y",  // the spring pendulum's kind of T
    };
    for (const char* text : texts) {
        INFO(text);
        const Expression e = Expression::Compile(text, s);
        const ThirdOrderValue d = e.ThirdOrder(0.0, vars, at, u);
        const SecondOrderValue plain = e.SecondOrder(0.0, vars, at);
        // The second-order part is SecondOrder()'s, to the last bit.
        CHECK(d.value == plain.value);
        CHECK((d.gradient - plain.gradient).cwiseAbs().maxCoeff() == 0.0);
        CHECK((d.hessian - plain.hessian).cwiseAbs().maxCoeff() == 0.0);
        // d/du of value and gradient: g.u and H u (exact identities of the dual part).
        CHECK(d.d_value == doctest::Approx(plain.gradient.dot(u)).epsilon(1e-13));
        CHECK(RelativeError(d.d_gradient, plain.hessian * u) <= 1e-13);
        // d/du H against central differences of SecondOrder()'s Hessian.
        const double eps = 1e-5;
        const Eigen::MatrixXd fd = (e.SecondOrder(0.0, vars, at + eps * u).hessian -
                                    e.SecondOrder(0.0, vars, at - eps * u).hessian) /
                                   (2.0 * eps);
        INFO("d_hessian\n" << d.d_hessian << "\ndifferences\n" << fd);
        CHECK(RelativeError(d.d_hessian, fd) <= 1e-7);
        CHECK((d.d_hessian - d.d_hessian.transpose()).cwiseAbs().maxCoeff() <= 1e-12);
    }
    // The same refusals as SecondOrder().
    CHECK_THROWS_AS(Expression::Compile("sign(x)*y", s).ThirdOrder(0.0, vars, at, u),
                    ExpressionError);
}

TEST_CASE("lagrangian formulation: SecondOrderProblem Jacobians against central differences") {
    for (const std::string& path : {kPendulum, kMassSpring}) {
        INFO(path);
        Deck deck = ReadDeckText(Read(path), "abstract.mbd", GlobalRegistry());
        AbstractFormulation f(deck.model);
        SecondOrderProblem& p = *f.second_order();
        const int nv = p.num_velocities(), nc = p.num_constraints();
        CHECK(nv == 3);
        CHECK(nc == (path == kMassSpring ? 1 : 0));
        CHECK(p.vector_space());
        // A general state: q off the initial one, v, a and lambda all nonzero.
        Eigen::VectorXd q0 = p.q(), v(nv), a(nv), lambda(nc);
        q0 += Eigen::Vector3d(0.13, -0.21, 0.37);
        v << 0.7, -1.1, 0.9;
        a << -0.4, 1.3, 0.6;
        for (int j = 0; j < nc; ++j) lambda[j] = 0.8 + j;
        p.set_q(q0);
        p.SetTime(0.3);
        SecondOrderProblem::Jacobians J;
        p.Evaluate(v, a, lambda, J);
        Eigen::VectorXd Ma, f0, phi;
        p.Evaluate(v, a, lambda, Ma, f0, phi);
        CHECK(phi.size() == nc);
        const double eps = 1e-6;
        // Column j of d(Ma, f, phi)/dx by central differences, x moved by `move`.
        auto column = [&](auto move, int j) {
            Eigen::VectorXd qq = q0, vv = v, aa = a, ll = lambda;
            Eigen::VectorXd Mp, fp, pp, Mm, fm, pm;
            move(qq, vv, aa, ll, j, eps);
            p.set_q(qq);
            p.Evaluate(vv, aa, ll, Mp, fp, pp);
            qq = q0, vv = v, aa = a, ll = lambda;
            move(qq, vv, aa, ll, j, -eps);
            p.set_q(qq);
            p.Evaluate(vv, aa, ll, Mm, fm, pm);
            p.set_q(q0);
            return std::array<Eigen::VectorXd, 3>{(Mp - Mm) / (2 * eps), (fp - fm) / (2 * eps),
                                                  (pp - pm) / (2 * eps)};
        };
        Eigen::MatrixXd M(nv, nv), Kq(nv, nv), K(nv, nv), C(nv, nv), L(nv, nc), B(nc, nv);
        for (int j = 0; j < nv; ++j) {
            const auto dq =
                column([](auto& qq, auto&, auto&, auto&, int k, double e) { qq[k] += e; }, j);
            Kq.col(j) = dq[0];
            K.col(j) = dq[1];
            B.col(j) = dq[2];
            C.col(j) =
                column([](auto&, auto& vv, auto&, auto&, int k, double e) { vv[k] += e; }, j)[1];
            M.col(j) =
                column([](auto&, auto&, auto& aa, auto&, int k, double e) { aa[k] += e; }, j)[0];
        }
        for (int j = 0; j < nc; ++j)
            L.col(j) =
                column([](auto&, auto&, auto&, auto& ll, int k, double e) { ll[k] += e; }, j)[1];
        CHECK(RelativeError(Eigen::MatrixXd(J.M), M) <= 1e-6);
        CHECK(RelativeError(Eigen::MatrixXd(J.Kq_inertia), Kq) <= 1e-6);
        CHECK(RelativeError(Eigen::MatrixXd(J.K), K) <= 1e-6);
        CHECK(RelativeError(Eigen::MatrixXd(J.C), C) <= 1e-6);
        if (nc > 0) {
            CHECK(RelativeError(Eigen::MatrixXd(J.L), L) <= 1e-6);
            CHECK(RelativeError(Eigen::MatrixXd(J.B), B) <= 1e-6);
        }
        // The pieces that depend on third derivatives are not trivially zero where they exist:
        // the pendulum's M(q) and its velocity terms.
        if (path == kPendulum) {
            CHECK(Eigen::MatrixXd(J.Kq_inertia).cwiseAbs().maxCoeff() > 0.1);
            CHECK(Eigen::MatrixXd(J.C).cwiseAbs().maxCoeff() > 0.1);
        }
        // Fixed patterns: the nonzero count does not depend on the values (a = 0, v = 0).
        SecondOrderProblem::Jacobians J0;
        p.Evaluate(Eigen::VectorXd::Zero(nv), Eigen::VectorXd::Zero(nv), lambda, J0);
        CHECK(J0.Kq_inertia.nonZeros() == J.Kq_inertia.nonZeros());
        CHECK(J0.C.nonZeros() == J.C.nonZeros());
        CHECK(J0.K.nonZeros() == J.K.nonZeros());
    }
}

TEST_CASE("lagrangian formulation: consistent initial accelerations of the singular example") {
    // [M, G^T; G, 0] is regular for the mass-spring with its constraint although M is not:
    // the initial accelerations satisfy M a + f = 0 and g'' = 0.
    Deck deck = ReadDeckText(Read(kMassSpring), "abstract.mbd", GlobalRegistry());
    AbstractFormulation f(deck.model);
    SecondOrderProblem& p = *f.second_order();
    p.SetTime(0.0);
    Eigen::VectorXd v, a, lambda, Ma, f0, phi;
    p.InitialConditions(v, a, lambda);
    p.Evaluate(v, a, lambda, Ma, f0, phi);
    CHECK((Ma + f0).cwiseAbs().maxCoeff() <= 1e-13);
    CHECK(std::abs(phi[0]) <= 1e-15);
    // g = ((q2 - q1)^2 - l^2)/2: g'' = (q2 - q1)(a2 - a1) + (v2 - v1)^2 = 0.
    const double q21 = p.q()[1] - p.q()[0];
    CHECK(std::abs(q21 * (a[1] - a[0]) + (v[1] - v[0]) * (v[1] - v[0])) <= 1e-13);
}

TEST_CASE("hht and generalized alpha, abstract nodes: orders against the RK4 references") {
    // Four steps, three halvings each; mass-spring over [0, 10], spring pendulum over [0, 1]
    // (the RK4 references' own errors, ~1e-13, are far below the finest errors here).
    struct Case {
        const char* method;
        double order;
    };
    const Case cases[] = {
        {"generalized alpha, 0.8", 2.0},
        {"hht, 0", 2.0},
        {"hht, -0.1, arnold bruls", 2.0},
    };
    for (const Case& c : cases) {
        for (const std::string& deck : {kMassSpring, kPendulum}) {
            const bool pendulum = deck == kPendulum;
            std::vector<double> e;
            double violation = 0.0;
            std::string formulation;
            const std::vector<double> steps =
                pendulum ? std::vector<double>{0.01, 0.005, 0.0025, 0.00125}
                         : std::vector<double>{0.05, 0.025, 0.0125, 0.00625};
            for (double h : steps) {
                double w = 0.0;
                e.push_back(ErrorAgainstReference(deck, c.method, h, &w, &formulation));
                violation = std::max(violation, w);
            }
            const std::vector<double> p = test::Orders(e);
            INFO(std::string(c.method)
                 << std::string(pendulum ? " spring pendulum" : " mass-spring") << ": errors "
                 << test::Join(e) << "orders " << test::Join(p) << "max |g| " << violation);
            CHECK(formulation == "lagrangian");  // the decks name none: the abstract-node one
            for (double order : p) CHECK(std::abs(order - c.order) <= 0.2);
            CHECK(violation <= 1e-9);  // index 3: g = 0 to the Newton tolerance (1e-10)
        }
    }
}

TEST_CASE("hht, alpha < 0, abstract nodes: first order on the q-dependent mass matrix") {
    // plugins/newmark/hht.hpp: M(q_{n+1}) a_{n+1} meets alpha-weighted forces of t_n, an
    // O(alpha h) error where M depends on q (the spring pendulum); with the constant mass
    // matrix of the mass-spring it stays second order.
    std::vector<double> e_sp, e_ms;
    // The asymptotic range of the spring pendulum starts below h = 1e-3 (slopes 1.89, 1.55,
    // 1.37 from h = 0.01 down: the O(h^2) terms still dominate there).
    for (double h : {0.000625, 0.0003125, 0.00015625, 0.000078125})
        e_sp.push_back(ErrorAgainstReference(kPendulum, "hht, -0.1", h));
    for (double h : {0.05, 0.025, 0.0125, 0.00625})
        e_ms.push_back(ErrorAgainstReference(kMassSpring, "hht, -0.1", h));
    const std::vector<double> p_sp = test::Orders(e_sp), p_ms = test::Orders(e_ms);
    INFO("spring pendulum errors " << test::Join(e_sp) << "orders " << test::Join(p_sp));
    INFO("mass-spring errors " << test::Join(e_ms) << "orders " << test::Join(p_ms));
    for (double order : p_sp) CHECK(std::abs(order - 1.0) <= 0.2);
    for (double order : p_ms) CHECK(std::abs(order - 2.0) <= 0.2);
}

TEST_CASE("hht and generalized alpha, abstract nodes: what is refused, with the reason") {
    const std::string deck = Read(kMassSpring);
    {  // `modified` computes Euler-parameter rates: there are none
        const std::string what = test::RunErrorMessage(deck, "hht, -0.1, modified");
        INFO(what);
        CHECK(what.find("integrator 'hht, ..., modified' needs a formulation with Euler "
                        "parameters") != std::string::npos);
        CHECK(what.find("'lagrangian' has none") != std::string::npos);
    }
    {  // without its constraint the mass matrix is singular and nothing covers its null space
        const std::string cut = "\",\n        constraints, 1, \"0.5*((q2 - q1)^2 - (L10 + W)^2)\";";
        std::string free = deck;
        const size_t at = free.find(cut);
        REQUIRE(at != std::string::npos);
        free.replace(at, cut.size(), "\";");
        for (const char* method : {"hht, -0.1", "generalized alpha, 0.8"}) {
            const std::string what = test::RunErrorMessage(free, method);
            INFO(what);
            CHECK(what.find("need [M, G^T; G, 0] (M = T_vv, G = dg/dq) to be regular, and it is "
                            "singular at the initial state (rank 2 of 3)") != std::string::npos);
        }
    }
}
