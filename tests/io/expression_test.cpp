// mbstep tests — math expressions (io/expression.hpp): precedence, types, functions,
// variables, derivatives, and error offsets.
#include "mbstep/io/expression.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace mbstep;

namespace {

Value Eval(const std::string& text, SymbolTable& symbols, double time = 0.0) {
    ExpressionOptions options;
    options.allow_side_effects = true;
    return Expression::Compile(text, symbols, options).Evaluate(time);
}

double Num(const std::string& text, double time = 0.0) {
    SymbolTable symbols;
    return Eval(text, symbols, time).number;
}

/// The offset of the error thrown while compiling and evaluating text (npos if none).
std::size_t ErrorOffset(const std::string& text, std::string* message = nullptr) {
    SymbolTable symbols;
    try {
        Eval(text, symbols);
    } catch (const ExpressionError& e) {
        if (message) *message = e.message();
        return e.offset();
    }
    return std::string::npos;
}

}  // namespace

TEST_CASE("expression: numbers and precedence") {
    CHECK(Num("1e-3") == doctest::Approx(1e-3));
    CHECK(Num(".6") == doctest::Approx(0.6));
    CHECK(Num("1.") == 1.0);
    CHECK(Num("1.e2") == 100.0);
    CHECK(Num("1 + 2 * 3") == 7.0);
    CHECK(Num("(1 + 2) * 3") == 9.0);
    CHECK(Num("2^3^2") == 512.0);  // right associative
    CHECK(Num("-2^2") == -4.0);    // ^ binds tighter than unary minus
    CHECK(Num("2^-1.") == 0.5);
    CHECK(Num("2*-3") == -6.0);
    CHECK(Num("10 - 4 - 3") == 3.0);  // left associative
    CHECK(Num("1 < 2 && 3 >= 3") == 1.0);
    CHECK(Num("1 > 2 || 2 != 2") == 0.0);
    CHECK(Num("!1 == 0") == 1.0);  // MBDyn: ! binds looser than comparisons
    CHECK(Num("1 ~| 1") == 0.0);
    CHECK(Num("  +3  ") == 3.0);
}

TEST_CASE("expression: integer and real types (MBDyn typing)") {
    SymbolTable s;
    CHECK(Eval("1/3", s).type == ValueType::kInteger);
    CHECK(Eval("1/3", s).number == 0.0);
    CHECK(Eval("7/2*2", s).number == 6.0);
    CHECK(Eval("-7/2", s).number == -3.0);  // truncation toward zero
    CHECK(Eval("1/3.", s).number == doctest::Approx(1.0 / 3.0));
    CHECK(Eval("1/3.", s).type == ValueType::kReal);
    CHECK(Eval("2 < 3", s).type == ValueType::kBool);
    CHECK(Eval("floor(2.7)", s).type == ValueType::kInteger);
    CHECK(Eval("\"a\" + 1 + \"b\"", s).text == "a1b");
    CHECK(Eval("\"x = \" + 2.5", s).text == "x = 2.5");
}

TEST_CASE("expression: functions and constants") {
    CHECK(Num("sin(pi/2)") == doctest::Approx(1.0));
    CHECK(Num("cos(0)") == 1.0);
    CHECK(Num("tan(pi/4)") == doctest::Approx(1.0));
    CHECK(Num("asin(1)") == doctest::Approx(M_PI / 2));
    CHECK(Num("acos(1)") == 0.0);
    CHECK(Num("atan(1)") == doctest::Approx(M_PI / 4));
    CHECK(Num("atan2(1, 1)") == doctest::Approx(M_PI / 4));
    CHECK(Num("sinh(0) + cosh(0) + tanh(0)") == 1.0);
    CHECK(Num("sqrt(16)") == 4.0);
    CHECK(Num("exp(log(2))") == doctest::Approx(2.0));
    CHECK(Num("log10(1000)") == doctest::Approx(3.0));
    CHECK(Num("abs(-3)") == 3.0);
    CHECK(Num("min(2, -1) + max(2, -1)") == 1.0);
    CHECK(Num("floor(-2.5)") == -3.0);
    CHECK(Num("ceil(2.1)") == 3.0);
    CHECK(Num("sign(-0.1)") == -1.0);
    CHECK(Num("pow(2, 10)") == 1024.0);
    CHECK(Num("in_el(0, 0, 1) + in_ll(0, 0, 1)") == 1.0);
    CHECK(Num("default::sqrt(4)") == 2.0);
    CHECK(Num("180*deg2rad") == doctest::Approx(M_PI));
    CHECK(Num("pi*rad2deg") == doctest::Approx(180.0));
    CHECK(Num("e") == doctest::Approx(std::exp(1.0)));
    CHECK(Num("integer(2.9) + real(1)/2") == 2.5);
    CHECK(Num("TRUE + FALSE") == 1.0);
}

TEST_CASE("expression: set: variables, declarations and integer truncation") {
    SymbolTable s;
    Eval("real L = 2.5", s);
    Eval("integer N = 2.7", s);  // MBDyn truncates
    Eval("integer M = -2.7", s);
    Eval("bool B = 5", s);
    Eval("const real C = L^2", s);
    Eval("string S = \"n\" + N", s);
    CHECK(s.Find("L")->value.number == 2.5);
    CHECK(s.Find("N")->value.number == 2.0);
    CHECK(s.Find("M")->value.number == -2.0);
    CHECK(s.Find("B")->value.number == 1.0);
    CHECK(s.Find("C")->value.number == 6.25);
    CHECK(s.Find("S")->value.text == "n2");
    CHECK(Eval("N/4", s).number == 0.0);  // integer variable: integer division
    Eval("N = 7.9", s);
    CHECK(s.Find("N")->value.number == 7.0);
    Eval("ifndef real L = 100", s);  // no-op: L exists
    CHECK(s.Find("L")->value.number == 2.5);
    // Sequences in parentheses (MBDyn manual example).
    CHECK(Eval("(real r = 2.*pi; integer i = 3; sin(i*r*0.25 + .87))", s).number ==
          doctest::Approx(std::sin(6 * M_PI * 0.25 + 0.87)));
    CHECK_THROWS_AS(Eval("C = 1", s), ExpressionError);            // const
    CHECK_THROWS_AS(Eval("real L = 1", s), ExpressionError);       // redeclared
    CHECK_THROWS_AS(Eval("const real Z", s), ExpressionError);     // const without value
    CHECK_THROWS_AS(Eval("real L2 = \"a\"", s), ExpressionError);  // string to real
    CHECK_THROWS_AS(Eval("undeclared = 1", s), ExpressionError);
    CHECK_THROWS_AS(Eval("real Time = 1", s), ExpressionError);  // reserved
}

TEST_CASE("expression: Time and forward-mode derivative") {
    SymbolTable s;
    const Expression e = Expression::Compile(
        "sin(2*Time)*exp(-Time) + Time^3/(1 + Time^2) + atan2(Time, 2) + sqrt(1 + Time) - "
        "log(2 + Time) + abs(Time - 5) + max(Time, 1.5) + cosh(Time/4) + pow(Time + 1, 1.5)",
        s);
    CHECK(e.depends_on_time());
    for (double t : {0.3, 1.1, 2.7, 4.2}) {
        const double h = 1e-6;
        const double fd = (e.EvaluateReal(t + h) - e.EvaluateReal(t - h)) / (2 * h);
        INFO("t = " << t);
        CHECK(e.Derivative(t) == doctest::Approx(fd).epsilon(1e-7));
    }
    CHECK(Expression::Compile("2*Time", s).EvaluateReal(3.0) == 6.0);
    CHECK(Expression::Compile("Time > 1", s).Derivative(2.0) == 0.0);
    CHECK_FALSE(Expression::Compile("2*pi", s).depends_on_time());
    // Drives are pure: no assignments or declarations.
    CHECK_THROWS_AS(Expression::Compile("real x = Time", s), ExpressionError);
}

TEST_CASE("expression: parse errors report the offending column") {
    std::string m;
    CHECK(ErrorOffset("1 + * 2", &m) == 4);
    CHECK(m.find("expected an expression") != std::string::npos);
    CHECK(ErrorOffset("foo + 1", &m) == 0);
    CHECK(m == "undefined variable 'foo'");
    CHECK(ErrorOffset("1 + bar(2)", &m) == 4);
    CHECK(m == "unknown function 'bar'");
    CHECK(ErrorOffset("sqrt(1, 2)", &m) == 0);
    CHECK(m.find("takes 1 argument") != std::string::npos);
    CHECK(ErrorOffset("sin(1", &m) == 5);
    CHECK(ErrorOffset("(1 + 2", &m) == 6);
    CHECK(ErrorOffset("2 3") == 2);
    CHECK(ErrorOffset("1 + \"abc", &m) == 4);
    CHECK(m == "unterminated string");
    CHECK(ErrorOffset("1 - \"a\"", &m) == 2);
    CHECK(ErrorOffset("model::distance(1, 2)", &m) == 0);
    CHECK(ErrorOffset("1/0", &m) == 1);
    CHECK(m == "integer division by zero");
    CHECK(ErrorOffset("1/0.") == std::string::npos);  // real: inf, checked by the deck reader
    CHECK(LineColumn("ab\ncd", 4) == std::pair<int, int>(2, 2));
    // Deep nesting is an error, not a stack overflow.
    CHECK(ErrorOffset(std::string(100000, '(')) != std::string::npos);
    CHECK(ErrorOffset(std::string(100000, '-') + "1") != std::string::npos);
}

namespace {
/// first op term op term ... (n terms in all).
std::string Chain(const std::string& first, const std::string& op, const std::string& term, int n) {
    std::string s = first;
    s.reserve(s.size() + static_cast<std::size_t>(n) * (op.size() + term.size()));
    for (int i = 1; i < n; ++i) s += op + term;
    return s;
}
}  // namespace

TEST_CASE("expression: flat operator chains of 200000 terms evaluate without recursion") {
    // A chain is a left-deep tree as deep as it is long: evaluation, differentiation and
    // destruction walk it with loops (a recursive walk overflowed the stack at ~100000 terms).
    constexpr int kN = 200000;
    CHECK(Num(Chain("1", "+", "1", kN)) == 200000.0);
    CHECK(Num(Chain("0", "-", "1", kN)) == -199999.0);
    CHECK(Num(Chain("3", "*", "1", kN)) == 3.0);
    CHECK(Num(Chain("1.", "*", "1.0001", kN)) == doctest::Approx(std::pow(1.0001, kN - 1)));
    CHECK(Num(Chain("1e300", "/", "1.001", kN)) ==
          doctest::Approx(1e300 / std::pow(1.001, kN - 1)));
    CHECK(Num(Chain("1", "<", "2", kN)) == 1.0);  // ((1 < 2) < 2) ... : 1 < 2 each time
    CHECK(Num(Chain("5", "<", "1", kN)) == 0.0);  // 5<1 = 0, 0<1 = 1, 1<1 = 0: link k gives k even
    CHECK(Num(Chain("1", "==", "1", kN)) == 1.0);
    CHECK(Num(Chain("1", "&&", "1", kN)) == 1.0);
    CHECK(Num(Chain("0", "||", "0", kN)) == 0.0);
    CHECK(Num(Chain("1", "~|", "1", kN)) == 0.0);  // kN ones: even parity
    CHECK(Num(Chain("1", "+", "2*3", kN)) == 1.0 + 6.0 * (kN - 1));
    SymbolTable s;
    CHECK(Eval(Chain("\"a\"", "+", "\"b\"", kN), s).text == "a" + std::string(kN - 1, 'b'));
    CHECK(Eval(Chain("1", "+", "\"b\"", 4), s).text == "1bbb");
    const Expression e = Expression::Compile(Chain("Time", "+", "Time", kN), s);
    CHECK(e.EvaluateReal(0.5) == 100000.0);
    CHECK(e.Derivative(0.5) == 200000.0);
    const Expression p = Expression::Compile(Chain("Time", "*", "1.00001", kN), s);
    CHECK(p.Derivative(2.0) == doctest::Approx(std::pow(1.00001, kN - 1)));
    // Integer chains keep MBDyn's truncating division at every link.
    CHECK(Num(Chain("1000000", "/", "2", 21)) == 0.0);
    CHECK(Num(Chain("1000", "/", "3", 3)) == 111.0);
}

TEST_CASE("expression: nesting deeper than the parser's limit is an error at its offset") {
    std::string m;
    // Each parenthesis costs 4 levels of the limit of 200: 49 parse, 50 do not.
    CHECK(Num(std::string(49, '(') + "7" + std::string(49, ')')) == 7.0);
    const std::size_t at = ErrorOffset(std::string(50, '(') + "7" + std::string(50, ')'), &m);
    CHECK(at == 50);  // the '7' inside the 50th parenthesis
    CHECK(m ==
          "expression nested too deeply (depth limit 200: a parenthesis counts 4, a unary "
          "operator 1)");
}

namespace {
/// The variables named in names, declared real in s (values set by the caller).
std::vector<const Variable*> Declare(SymbolTable& s, std::initializer_list<const char*> names) {
    std::vector<const Variable*> out;
    for (const char* name : names) out.push_back(s.Declare(name, ValueType::kReal, false).get());
    return out;
}

/// The message of the error SecondOrder() throws for text at values (empty if none); the
/// offset goes to *offset.
std::string SecondOrderError(const std::string& text, std::vector<double> list,
                             std::size_t* offset = nullptr) {
    SymbolTable s;
    const auto vars = Declare(s, {"x", "y"});
    const Expression e = Expression::Compile(text, s);
    try {
        e.SecondOrder(0.0, vars, Eigen::Map<Eigen::VectorXd>(list.data(), 2));
    } catch (const ExpressionError& err) {
        if (offset) *offset = err.offset();
        return err.message();
    }
    return {};
}
}  // namespace

TEST_CASE("expression: second-order derivatives of a polynomial are exact") {
    SymbolTable s;
    const auto vars = Declare(s, {"x", "y"});
    const Expression e = Expression::Compile("x^3*y + 2*x*y^2 - 5*y + 7", s);
    const Eigen::Vector2d at(1.5, -2.0);
    const SecondOrderValue d = e.SecondOrder(0.0, vars, at);
    // f = 22.25; f_x = 3x^2 y + 2y^2; f_y = x^3 + 4xy - 5; f_xx = 6xy; f_xy = 3x^2 + 4y; f_yy = 4x
    CHECK(d.value == 22.25);
    CHECK(d.gradient(0) == -5.5);
    CHECK(d.gradient(1) == -13.625);
    CHECK(d.hessian(0, 0) == -18.0);
    CHECK(d.hessian(0, 1) == -1.25);
    CHECK(d.hessian(1, 0) == -1.25);
    CHECK(d.hessian(1, 1) == 6.0);
    // The bound values do not enter the symbol table; the number evaluation agrees.
    CHECK_FALSE(s.Find("x")->initialized);
    CHECK(e.EvaluateReal(0.0, vars, at) == 22.25);
    CHECK(e.References(*vars[0]));
    CHECK_FALSE(Expression::Compile("2*y", s).References(*vars[0]));
}

TEST_CASE("expression: second-order derivatives of sin/cos/exp/sqrt/pow compositions") {
    SymbolTable s;
    s.Set("m", Value::Real(3.0));  // a set: variable that is not differentiated
    const auto vars = Declare(s, {"x", "y"});
    const double x = 0.7, y = 1.3;
    const Eigen::Vector2d at(x, y);
    {
        const SecondOrderValue d = Expression::Compile("sin(x)*exp(y) + sqrt(x*y) + pow(x, y)", s)
                                       .SecondOrder(0, vars, at);
        const double r = std::sqrt(x * y), ey = std::exp(y), lx = std::log(x);
        CHECK(d.value == doctest::Approx(std::sin(x) * ey + r + std::pow(x, y)).epsilon(1e-15));
        CHECK(d.gradient(0) ==
              doctest::Approx(std::cos(x) * ey + 0.5 * y / r + y * std::pow(x, y - 1))
                  .epsilon(1e-14));
        CHECK(d.gradient(1) ==
              doctest::Approx(std::sin(x) * ey + 0.5 * x / r + std::pow(x, y) * lx).epsilon(1e-14));
        CHECK(d.hessian(0, 0) == doctest::Approx(-std::sin(x) * ey - 0.25 * y * y / (r * r * r) +
                                                 y * (y - 1) * std::pow(x, y - 2))
                                     .epsilon(1e-14));
        CHECK(d.hessian(0, 1) ==
              doctest::Approx(std::cos(x) * ey + 0.25 / r + std::pow(x, y - 1) * (1 + y * lx))
                  .epsilon(1e-14));
        CHECK(d.hessian(1, 0) == d.hessian(0, 1));
        CHECK(d.hessian(1, 1) == doctest::Approx(std::sin(x) * ey - 0.25 * x * x / (r * r * r) +
                                                 std::pow(x, y) * lx * lx)
                                     .epsilon(1e-14));
    }
    {
        // m*cos(x)/y + atan2(y, x) - log(x^2 + y^2)/2 = m cos(x)/y + theta - log(r)
        const SecondOrderValue d =
            Expression::Compile("m*cos(x)/y + atan2(y, x) - log(x^2 + y^2)/2", s)
                .SecondOrder(0, vars, at);
        const double r2 = x * x + y * y;
        CHECK(d.gradient(0) ==
              doctest::Approx(-3 * std::sin(x) / y - y / r2 - x / r2).epsilon(1e-14));
        CHECK(d.gradient(1) ==
              doctest::Approx(-3 * std::cos(x) / (y * y) + x / r2 - y / r2).epsilon(1e-14));
        // d2/dx2 (theta - log r) = 2xy/r2^2 - (y^2 - x^2)/r2^2
        CHECK(d.hessian(0, 0) ==
              doctest::Approx(-3 * std::cos(x) / y + (2 * x * y - (y * y - x * x)) / (r2 * r2))
                  .epsilon(1e-14));
        CHECK(d.hessian(0, 1) ==
              doctest::Approx(3 * std::sin(x) / (y * y) + (y * y - x * x + 2 * x * y) / (r2 * r2))
                  .epsilon(1e-14));
        CHECK(d.hessian(1, 1) == doctest::Approx(6 * std::cos(x) / (y * y * y) +
                                                 (-2 * x * y - (x * x - y * y)) / (r2 * r2))
                                     .epsilon(1e-14));
    }
    {
        // A quadratic form (the kinetic energy of the mass-spring example): Hessian constant.
        const SecondOrderValue d =
            Expression::Compile("0.5*m*(x - y)^2 + 0.5*(x + y)^2", s).SecondOrder(0, vars, at);
        CHECK(d.hessian(0, 0) == 4.0);
        CHECK(d.hessian(0, 1) == -2.0);
        CHECK(d.hessian(1, 1) == 4.0);
    }
    // Long chains are walked without recursion in this mode too.
    std::string chain = "x";
    for (int i = 1; i < 100000; ++i) chain += "+x*y";
    const SecondOrderValue d = Expression::Compile(chain, s).SecondOrder(0, vars, at);
    CHECK(d.gradient(0) == doctest::Approx(1 + 99999 * y));
    CHECK(d.hessian(0, 1) == 99999.0);
}

TEST_CASE("expression: no derivative of piecewise functions and at kinks (error at the node)") {
    std::size_t at = 0;
    CHECK(SecondOrderError("2*abs(x)", {0.0, 1.0}, &at) ==
          "'abs' is not differentiable at 0 (its kink)");
    CHECK(at == 2);
    CHECK(SecondOrderError("2*abs(x)", {-0.5, 1.0}).empty());  // away from the kink: fine
    CHECK(SecondOrderError("y + sign(x)", {1.0, 1.0}, &at).find("'sign'") != std::string::npos);
    CHECK(at == 4);
    CHECK(SecondOrderError("x*(x > 1)", {2.0, 1.0}, &at).find("comparison") != std::string::npos);
    CHECK(at == 5);
    CHECK(SecondOrderError("ceil(x)", {2.5, 1.0}, &at).find("'ceil'") != std::string::npos);
    CHECK(SecondOrderError("ceil(2.5)*x", {2.5, 1.0}).empty());  // constant: fine
    CHECK(SecondOrderError("min(x, y)", {1.0, 1.0}, &at).find("kink") != std::string::npos);
    CHECK(SecondOrderError("max(x, y)", {1.0, 2.0}).empty());
    CHECK(SecondOrderError("(-2)^x", {0.5, 1.0}).find("base <= 0") != std::string::npos);
    CHECK(SecondOrderError("copysign(1, y)*x", {0.5, 1.0}).find("'copysign'") != std::string::npos);
    // The offset maps to line and column in multi-line text.
    CHECK(SecondOrderError("x^2 +\n  3*integer(y)", {0.5, 1.0}, &at).find("'integer'") !=
          std::string::npos);
    CHECK(LineColumn("x^2 +\n  3*integer(y)", at) == std::pair<int, int>(2, 5));
}
