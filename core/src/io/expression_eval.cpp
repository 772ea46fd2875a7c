// mbstep — math expressions: tree evaluation and forward-mode differentiation (grammar and
// typing rules in io/expression.hpp; the tree in expression_tree.hpp).
#include <cmath>
#include <limits>
#include <type_traits>

#include "expression_tree.hpp"
#include "mbstep/io/expression.hpp"

namespace mbstep {

namespace {

using detail::ConvertNumber;
using detail::FormatNumber;
using detail::IsIntegral;

/// The comparison n.op of a three-way result c (-1, 0, 1; 2: unordered, NaN), as 1/0.
double Compare(detail::Op op, int c) {
    switch (op) {
        case detail::Op::kLt:
            return c == -1;
        case detail::Op::kLe:
            return c == -1 || c == 0;
        case detail::Op::kGt:
            return c == 1;
        case detail::Op::kGe:
            return c == 1 || c == 0;
        case detail::Op::kEq:
            return c == 0;
        default:
            return c != 0;
    }
}

using detail::ExprNode;
using detail::Fn;
using detail::Op;
using NodePtr = std::unique_ptr<ExprNode>;

struct Dual {
    double v;
    double d;
};

double Sign(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }

double Apply1(Fn fn, double x) {
    switch (fn) {
        case Fn::kSin:
            return std::sin(x);
        case Fn::kCos:
            return std::cos(x);
        case Fn::kTan:
            return std::tan(x);
        case Fn::kAsin:
            return std::asin(x);
        case Fn::kAcos:
            return std::acos(x);
        case Fn::kAtan:
            return std::atan(x);
        case Fn::kSinh:
            return std::sinh(x);
        case Fn::kCosh:
            return std::cosh(x);
        case Fn::kTanh:
            return std::tanh(x);
        case Fn::kAsinh:
            return std::asinh(x);
        case Fn::kAcosh:
            return std::acosh(x);
        case Fn::kAtanh:
            return std::atanh(x);
        case Fn::kCtan:
            return 1.0 / std::tan(x);
        case Fn::kActan:
            return std::atan2(1.0, x);
        case Fn::kSqrt:
            return std::sqrt(x);
        case Fn::kExp:
            return std::exp(x);
        case Fn::kLog:
            return std::log(x);
        case Fn::kLog10:
            return std::log10(x);
        case Fn::kAbs:
            return std::abs(x);
        case Fn::kSign:
            return Sign(x);
        case Fn::kCeil:
            return std::ceil(x);
        case Fn::kFloor:
            return std::floor(x);
        case Fn::kRound:
            return std::round(x);
        case Fn::kToBool:
            return x != 0.0 ? 1.0 : 0.0;
        case Fn::kToInteger:
            return std::trunc(x);
        default:
            return x;  // real()
    }
}

double Apply2(Fn fn, double a, double b) {
    switch (fn) {
        case Fn::kAtan2:
            return std::atan2(a, b);
        case Fn::kActan2:
            return std::atan2(b, a);
        case Fn::kMin:
            return std::min(a, b);
        case Fn::kMax:
            return std::max(a, b);
        case Fn::kPow:
            return std::pow(a, b);
        default:
            return std::copysign(a, b);
    }
}

double Apply3(Fn fn, double a, double x, double b) {
    switch (fn) {
        case Fn::kInEE:
            return a <= x && x <= b;
        case Fn::kInEL:
            return a <= x && x < b;
        case Fn::kInLE:
            return a < x && x <= b;
        default:
            return a < x && x < b;
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation: one tree walk, a template over the scalar type S of numeric nodes:
//   double  the value;
//   Dual    the value and its derivative with respect to Time (Derivative());
//   Jet     the value, gradient and Hessian with respect to bound variables (SecondOrder()),
//           and, given a direction u (ThirdOrder()), their derivatives along u: each of the
//           jet's numbers becomes a first-order dual number in u, so that d/du H holds the
//           third derivatives contracted with u (Griewank & Walther, ch. 13, univariate
//           Taylor propagation on top of the second-order jet).
// The walk, the chain handling and the typing rules are shared; each scalar type supplies the
// arithmetic of its operators and functions (chain rule per node, Griewank & Walther,
// "Evaluating Derivatives", 2nd ed., SIAM 2008, ch. 3 and 13). String nodes are evaluated
// as std::string.

/// Variables whose values are given by the caller (the independent variables of SecondOrder).
struct Bound {
    const Variable* const* vars{nullptr};
    const double* values{nullptr};
    std::size_t size{0};
    /// The direction u of ThirdOrder() (size values), or nullptr.
    const double* direction{nullptr};
};

struct Ctx {
    double t;
    Bound bound;
};

int BoundIndex(const Ctx& c, const Variable* v) {
    for (std::size_t i = 0; i < c.bound.size; ++i)
        if (c.bound.vars[i] == v) return static_cast<int>(i);
    return -1;
}

/// Value, gradient and Hessian with respect to the bound variables. `active` says whether the
/// node depends on a bound variable (by the structure of the tree, not by the values); g and H
/// are sized only then.
struct Jet {
    double v{0.0};
    bool active{false};
    Eigen::VectorXd g;
    Eigen::MatrixXd H;
    /// With a direction u (ThirdOrder(); only on active jets): the derivatives of v, g and H
    /// along u, dv = g.u, dg = H u, dH(i, j) = sum_k d3/dx_i dx_j dx_k u_k.
    bool dir{false};
    double dv{0.0};
    Eigen::VectorXd dg;
    Eigen::MatrixXd dH;
};

template <class S>
S Lift(double v) {
    if constexpr (std::is_same_v<S, double>) {
        return v;
    } else if constexpr (std::is_same_v<S, Dual>) {
        return Dual{v, 0.0};
    } else {
        Jet j;
        j.v = v;
        return j;
    }
}

// Jet arithmetic: f(a) and f(a, b) given the partial derivatives of f at the values.

// f3 (and faaa ... fbbb) are the third derivatives, read only for directional jets.

/// x y^T + y x^T.
Eigen::MatrixXd SymOuter(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
    Eigen::MatrixXd m = x * y.transpose();
    m += y * x.transpose();
    return m;
}

Jet Compose1(const Jet& a, double f, double f1, double f2, double f3 = 0.0) {
    if (!a.active) return Lift<Jet>(f);
    Jet r;
    r.v = f;
    r.active = true;
    r.g = f1 * a.g;
    r.H = f1 * a.H;
    if (f2 != 0.0) r.H.noalias() += f2 * a.g * a.g.transpose();
    if (a.dir) {  // d/du of the three lines above: d(f1) = f2 a.dv, d(f2) = f3 a.dv
        r.dir = true;
        r.dv = f1 * a.dv;
        r.dg = f2 * a.dv * a.g + f1 * a.dg;
        r.dH = f1 * a.dH + f2 * a.dv * a.H;
        if (f3 != 0.0) r.dH.noalias() += f3 * a.dv * a.g * a.g.transpose();
        if (f2 != 0.0) r.dH += f2 * SymOuter(a.dg, a.g);
    }
    return r;
}

Jet Compose2(const Jet& a, const Jet& b, double f, double fa, double fb, double faa, double fab,
             double fbb, double faaa = 0.0, double faab = 0.0, double fabb = 0.0,
             double fbbb = 0.0) {
    if (!b.active) return Compose1(a, f, fa, faa, faaa);
    if (!a.active) return Compose1(b, f, fb, fbb, fbbb);
    Jet r;
    r.v = f;
    r.active = true;
    r.g = fa * a.g + fb * b.g;
    r.H = fa * a.H + fb * b.H;
    if (faa != 0.0) r.H.noalias() += faa * a.g * a.g.transpose();
    if (fbb != 0.0) r.H.noalias() += fbb * b.g * b.g.transpose();
    if (fab != 0.0) {
        r.H.noalias() += fab * a.g * b.g.transpose();
        r.H.noalias() += fab * b.g * a.g.transpose();
    }
    if (a.dir) {  // d/du of the lines above, each partial derivative moving along (a.dv, b.dv)
        const double d_fa = faa * a.dv + fab * b.dv, d_fb = fab * a.dv + fbb * b.dv;
        const double d_faa = faaa * a.dv + faab * b.dv, d_fab = faab * a.dv + fabb * b.dv;
        const double d_fbb = fabb * a.dv + fbbb * b.dv;
        r.dir = true;
        r.dv = fa * a.dv + fb * b.dv;
        r.dg = d_fa * a.g + fa * a.dg + d_fb * b.g + fb * b.dg;
        r.dH = d_fa * a.H + fa * a.dH + d_fb * b.H + fb * b.dH;
        if (d_faa != 0.0) r.dH.noalias() += d_faa * a.g * a.g.transpose();
        if (d_fbb != 0.0) r.dH.noalias() += d_fbb * b.g * b.g.transpose();
        if (d_fab != 0.0) r.dH += d_fab * SymOuter(a.g, b.g);
        if (faa != 0.0) r.dH += faa * SymOuter(a.dg, a.g);
        if (fbb != 0.0) r.dH += fbb * SymOuter(b.dg, b.g);
        if (fab != 0.0) r.dH += fab * (SymOuter(a.dg, b.g) + SymOuter(a.g, b.dg));
    }
    return r;
}

Jet Add(const Jet& a, const Jet& b, double sign) {
    if (!a.active && !b.active) return Lift<Jet>(a.v + sign * b.v);
    if (!b.active) {
        Jet r = a;
        r.v = a.v + sign * b.v;
        return r;
    }
    Jet r;
    r.v = a.v + sign * b.v;
    r.active = true;
    r.dir = b.dir;
    if (a.active) {
        r.g = a.g + sign * b.g;
        r.H = a.H + sign * b.H;
        if (r.dir) {
            r.dv = a.dv + sign * b.dv;
            r.dg = a.dg + sign * b.dg;
            r.dH = a.dH + sign * b.dH;
        }
    } else {
        r.g = sign * b.g;
        r.H = sign * b.H;
        if (r.dir) {
            r.dv = sign * b.dv;
            r.dg = sign * b.dg;
            r.dH = sign * b.dH;
        }
    }
    return r;
}

/// a^b. With a constant exponent the base may be any real; with an exponent that depends on
/// a bound variable, a^b = exp(b log a) needs a > 0.
Jet Pow(const Jet& a, const Jet& b, std::size_t offset) {
    const double p = std::pow(a.v, b.v);
    if (!b.active) {
        const double e = b.v;
        const double f1 = e == 0.0 ? 0.0 : e * std::pow(a.v, e - 1.0);
        const double f2 = (e == 0.0 || e == 1.0) ? 0.0 : e * (e - 1.0) * std::pow(a.v, e - 2.0);
        const double f3 = (e == 0.0 || e == 1.0 || e == 2.0)
                              ? 0.0
                              : e * (e - 1.0) * (e - 2.0) * std::pow(a.v, e - 3.0);
        return Compose1(a, p, f1, f2, f3);
    }
    if (!(a.v > 0.0))
        throw ExpressionError(offset,
                              "power with an exponent that depends on a differentiation variable "
                              "has no derivative at a base <= 0 (base " +
                                  FormatNumber(ValueType::kReal, a.v) + ")");
    const double la = std::log(a.v);
    const double e = b.v;
    const double pa = std::pow(a.v, e - 1.0);   // a^(b-1)
    const double pa2 = std::pow(a.v, e - 2.0);  // a^(b-2)
    return Compose2(a, b, p, e * pa, p * la, e * (e - 1.0) * pa2, pa * (1.0 + e * la), p * la * la,
                    e * (e - 1.0) * (e - 2.0) * std::pow(a.v, e - 3.0),
                    pa2 * ((2.0 * e - 1.0) + e * (e - 1.0) * la), pa * la * (2.0 + e * la),
                    p * la * la * la);
}

std::string EvalString(const ExprNode& n, const Ctx& c);

template <class S>
S Eval(const ExprNode& n, const Ctx& c);

bool IsBinary(Op op) {
    switch (op) {
        case Op::kAdd:
        case Op::kSub:
        case Op::kMul:
        case Op::kDiv:
        case Op::kPow:
        case Op::kLt:
        case Op::kLe:
        case Op::kGt:
        case Op::kGe:
        case Op::kEq:
        case Op::kNe:
        case Op::kAnd:
        case Op::kOr:
        case Op::kXor:
            return true;
        default:
            return false;
    }
}

bool IsArithmetic(Op op) {
    return op == Op::kAdd || op == Op::kSub || op == Op::kMul || op == Op::kDiv || op == Op::kPow;
}

/// A node the walk of S evaluates as ApplyBinary<S>(n, value of the left operand): a chain of
/// them is evaluated bottom-up without recursion. Numbers: every numeric binary node with a
/// numeric left operand; derivative types: real arithmetic nodes (with Dual, only those that
/// depend on Time: the others have a zero derivative).
template <class S>
bool IsLink(const ExprNode& n) {
    if constexpr (std::is_same_v<S, double>) {
        return IsBinary(n.op) && n.type != ValueType::kString &&
               n.args[0]->type != ValueType::kString;
    } else {
        if (!IsArithmetic(n.op)) return false;
        if constexpr (std::is_same_v<S, Dual>) {
            if (!n.time_dependent) return false;
        }
        return !IsIntegral(n.type) && n.type != ValueType::kString &&
               n.args[0]->type != ValueType::kString;
    }
}

/// The value of binary node n given the value a of its left operand (the right operand is
/// evaluated here; && and || do not evaluate it when a decides).
template <class S>
S ApplyBinary(const ExprNode& n, const S& a, const Ctx& c) {
    const ExprNode& right = *n.args[1];
    if constexpr (std::is_same_v<S, double>) {
        switch (n.op) {
            case Op::kAdd:
                return a + Eval<double>(right, c);
            case Op::kSub:
                return a - Eval<double>(right, c);
            case Op::kMul:
                return a * Eval<double>(right, c);
            case Op::kDiv: {
                const double b = Eval<double>(right, c);
                if (IsIntegral(n.type)) {
                    if (b == 0.0) throw ExpressionError(n.offset, "integer division by zero");
                    return std::trunc(a / b);
                }
                return a / b;
            }
            case Op::kPow: {
                const double p = std::pow(a, Eval<double>(right, c));
                return IsIntegral(n.type) ? std::trunc(p) : p;
            }
            case Op::kAnd:
                return (a != 0.0 && Eval<double>(right, c) != 0.0) ? 1.0 : 0.0;
            case Op::kOr:
                return (a != 0.0 || Eval<double>(right, c) != 0.0) ? 1.0 : 0.0;
            case Op::kXor:
                return ((a != 0.0) != (Eval<double>(right, c) != 0.0)) ? 1.0 : 0.0;
            default: {  // comparisons of numbers
                const double b = Eval<double>(right, c);
                const int cmp = a < b ? -1 : (a > b ? 1 : (a == b ? 0 : 2));  // 2: unordered
                return Compare(n.op, cmp);
            }
        }
    } else if constexpr (std::is_same_v<S, Dual>) {
        const Dual b = Eval<Dual>(right, c);
        switch (n.op) {
            case Op::kAdd:
                return {a.v + b.v, a.d + b.d};
            case Op::kSub:
                return {a.v - b.v, a.d - b.d};
            case Op::kMul:
                return {a.v * b.v, a.d * b.v + a.v * b.d};
            case Op::kDiv:
                return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)};
            default: {  // kPow
                const double p = std::pow(a.v, b.v);
                double d = 0.0;
                if (a.d != 0.0) d += b.v * std::pow(a.v, b.v - 1.0) * a.d;
                if (b.d != 0.0) d += p * std::log(a.v) * b.d;
                return {p, d};
            }
        }
    } else {
        const Jet b = Eval<Jet>(right, c);
        switch (n.op) {
            case Op::kAdd:
                return Add(a, b, 1.0);
            case Op::kSub:
                return Add(a, b, -1.0);
            case Op::kMul:
                return Compose2(a, b, a.v * b.v, b.v, a.v, 0.0, 1.0, 0.0);
            case Op::kDiv: {
                const double ib = 1.0 / b.v, ib3 = ib * ib * ib;
                return Compose2(a, b, a.v / b.v, ib, -a.v * ib * ib, 0.0, -ib * ib, 2.0 * a.v * ib3,
                                0.0, 0.0, 2.0 * ib3, -6.0 * a.v * ib3 * ib);
            }
            default:  // kPow
                return Pow(a, b, n.offset);
        }
    }
}

/// d/dx of the one-argument function fn at x, where v = fn(x).
double FirstDerivative(Fn fn, double x, double v) {
    switch (fn) {
        case Fn::kSin:
            return std::cos(x);
        case Fn::kCos:
            return -std::sin(x);
        case Fn::kTan:
            return 1.0 + v * v;
        case Fn::kAsin:
            return 1.0 / std::sqrt(1.0 - x * x);
        case Fn::kAcos:
            return -1.0 / std::sqrt(1.0 - x * x);
        case Fn::kAtan:
            return 1.0 / (1.0 + x * x);
        case Fn::kSinh:
            return std::cosh(x);
        case Fn::kCosh:
            return std::sinh(x);
        case Fn::kTanh:
            return 1.0 - v * v;
        case Fn::kAsinh:
            return 1.0 / std::sqrt(x * x + 1.0);
        case Fn::kAcosh:
            return 1.0 / std::sqrt(x * x - 1.0);
        case Fn::kAtanh:
            return 1.0 / (1.0 - x * x);
        case Fn::kCtan:
            return -1.0 / (std::sin(x) * std::sin(x));
        case Fn::kActan:
            return -1.0 / (1.0 + x * x);
        case Fn::kSqrt:
            return 0.5 / v;
        case Fn::kExp:
            return v;
        case Fn::kLog:
            return 1.0 / x;
        case Fn::kLog10:
            return 1.0 / (x * std::log(10.0));
        case Fn::kAbs:
            return Sign(x);
        default:
            return 0.0;  // sign, casts: piecewise constant
    }
}

/// d2/dx2 of the one-argument function fn at x, where v = fn(x) and f1 = fn'(x).
double SecondDerivative(Fn fn, double x, double v, double f1) {
    switch (fn) {
        case Fn::kSin:
        case Fn::kCos:
            return -v;
        case Fn::kTan:
            return 2.0 * v * f1;
        case Fn::kAsin:
        case Fn::kAcos:
            return x * f1 * f1 * f1;
        case Fn::kAtan:
            return -2.0 * x * f1 * f1;
        case Fn::kSinh:
        case Fn::kCosh:
        case Fn::kExp:
            return v;
        case Fn::kTanh:
            return -2.0 * v * f1;
        case Fn::kAsinh:
        case Fn::kAcosh:
            return -x * f1 * f1 * f1;
        case Fn::kAtanh:
            return 2.0 * x * f1 * f1;
        case Fn::kCtan:
            return -2.0 * f1 * std::cos(x) / std::sin(x);
        case Fn::kActan:
            return 2.0 * x * f1 * f1;
        case Fn::kSqrt:
            return -0.5 * f1 / x;
        case Fn::kLog:
        case Fn::kLog10:
            return -f1 / x;
        default:
            return 0.0;  // abs away from 0
    }
}

/// d3/dx3 of the one-argument function fn at x, where v = fn(x), f1 = fn'(x), f2 = fn''(x)
/// (the derivative of SecondDerivative's expressions).
double ThirdDerivative(Fn fn, double x, double v, double f1, double f2) {
    switch (fn) {
        case Fn::kSin:
        case Fn::kCos:
            return -f1;
        case Fn::kTan:
            return 2.0 * (f1 * f1 + v * f2);
        case Fn::kAsin:
        case Fn::kAcos:
            return f1 * f1 * f1 + 3.0 * x * f1 * f1 * f2;
        case Fn::kAtan:
            return -2.0 * f1 * f1 - 4.0 * x * f1 * f2;
        case Fn::kSinh:
        case Fn::kCosh:
            return f1;
        case Fn::kExp:
            return v;
        case Fn::kTanh:
            return -2.0 * (f1 * f1 + v * f2);
        case Fn::kAsinh:
        case Fn::kAcosh:
            return -f1 * f1 * f1 - 3.0 * x * f1 * f1 * f2;
        case Fn::kAtanh:
        case Fn::kActan:
            return 2.0 * f1 * f1 + 4.0 * x * f1 * f2;
        case Fn::kCtan:
            return -2.0 * f2 * std::cos(x) / std::sin(x) - 2.0 * f1 * f1;
        case Fn::kSqrt:
            return -0.5 * (f2 - f1 / x) / x;
        case Fn::kLog:
        case Fn::kLog10:
            return -2.0 * f2 / x;
        default:
            return 0.0;  // abs away from 0
    }
}

const char* FunctionName(Fn fn) {
    for (const auto& f : detail::kFunctions)
        if (f.fn == fn) return f.name;
    return "?";
}

[[noreturn]] void NotDifferentiable(const ExprNode& n, const std::string& why) {
    throw ExpressionError(n.offset, why);
}

/// A one-argument function of a (not a cast to an integral type: those are passive).
template <class S>
S Call1(const ExprNode& n, const S& a) {
    if constexpr (std::is_same_v<S, double>) {
        return Apply1(n.fn, a);
    } else {
        if (n.fn == Fn::kToReal) return a;
        const double x = a.v;
        const double v = Apply1(n.fn, x);
        const double f1 = FirstDerivative(n.fn, x, v);
        if constexpr (std::is_same_v<S, Dual>) {
            return {v, f1 * a.d};
        } else {
            if (!a.active) return Lift<Jet>(v);
            if (n.fn == Fn::kSign)
                NotDifferentiable(n,
                                  "'sign' of a differentiation variable has no derivative "
                                  "rule (piecewise constant)");
            if (n.fn == Fn::kAbs && x == 0.0)
                NotDifferentiable(n, "'abs' is not differentiable at 0 (its kink)");
            const double f2 = SecondDerivative(n.fn, x, v, f1);
            return Compose1(a, v, f1, f2, a.dir ? ThirdDerivative(n.fn, x, v, f1, f2) : 0.0);
        }
    }
}

/// A two-argument function of (a, b).
template <class S>
S Call2(const ExprNode& n, const S& a, const S& b) {
    if constexpr (std::is_same_v<S, double>) {
        return Apply2(n.fn, a, b);
    } else if constexpr (std::is_same_v<S, Dual>) {
        switch (n.fn) {
            case Fn::kAtan2:  // atan2(y, x)
                return {std::atan2(a.v, b.v), (b.v * a.d - a.v * b.d) / (a.v * a.v + b.v * b.v)};
            case Fn::kActan2:  // atan2(x, y) with a = y, b = x swapped
                return {std::atan2(b.v, a.v), (a.v * b.d - b.v * a.d) / (a.v * a.v + b.v * b.v)};
            case Fn::kMin:
                return a.v <= b.v ? a : b;
            case Fn::kMax:
                return a.v >= b.v ? a : b;
            case Fn::kPow: {
                const double p = std::pow(a.v, b.v);
                double d = 0.0;
                if (a.d != 0.0) d += b.v * std::pow(a.v, b.v - 1.0) * a.d;
                if (b.d != 0.0) d += p * std::log(a.v) * b.d;
                return {p, d};
            }
            case Fn::kCopysign: {
                const double v = std::copysign(a.v, b.v);
                return {v, (Sign(v) * Sign(a.v) >= 0.0 ? 1.0 : -1.0) * a.d};
            }
            default:
                return {Apply2(n.fn, a.v, b.v), 0.0};
        }
    } else {
        if (!a.active && !b.active) return Lift<Jet>(Apply2(n.fn, a.v, b.v));
        switch (n.fn) {
            case Fn::kAtan2:
            case Fn::kActan2: {
                // atan2(y, x): d/dy = x/r2, d/dx = -y/r2, d2/dy2 = -2xy/r2^2 = -d2/dx2,
                // d2/dxdy = (y^2 - x^2)/r2^2.
                const bool swap = n.fn == Fn::kActan2;
                const Jet& y = swap ? b : a;
                const Jet& x = swap ? a : b;
                const double r2 = x.v * x.v + y.v * y.v;
                const double q = 1.0 / (r2 * r2), q3 = q / r2;
                // Third: d3/dy3 = 2x(3y^2 - x^2)/r2^3 = -d3/dydx2, d3/dy2dx = 2y(3x^2 - y^2)/r2^3
                // = -d3/dx3.
                const double fyyy = 2.0 * x.v * (3.0 * y.v * y.v - x.v * x.v) * q3;
                const double fyyx = 2.0 * y.v * (3.0 * x.v * x.v - y.v * y.v) * q3;
                return Compose2(y, x, std::atan2(y.v, x.v), x.v / r2, -y.v / r2,
                                -2.0 * x.v * y.v * q, (y.v * y.v - x.v * x.v) * q,
                                2.0 * x.v * y.v * q, fyyy, fyyx, -fyyy, -fyyx);
            }
            case Fn::kMin:
            case Fn::kMax:
                if (a.v == b.v)
                    NotDifferentiable(n, std::string("'") + FunctionName(n.fn) +
                                             "' is not differentiable where its arguments are "
                                             "equal (its kink)");
                return (n.fn == Fn::kMin) == (a.v < b.v) ? a : b;
            case Fn::kPow:
                return Pow(a, b, n.offset);
            default: {  // copysign(a, b) = |a| sign(b)
                if (b.active)
                    NotDifferentiable(n,
                                      "'copysign' of a differentiation variable in its second "
                                      "argument has no derivative rule (piecewise constant)");
                if (a.v == 0.0)
                    NotDifferentiable(n, "'copysign' is not differentiable at 0 (its kink)");
                const double v = std::copysign(a.v, b.v);
                const double s = Sign(v) * Sign(a.v);
                return Compose1(a, v, s, 0.0);
            }
        }
    }
}

/// True if the subtree of n contains a bound variable (walked with an explicit stack).
bool DependsOnBound(const ExprNode& n, const Ctx& c) {
    if (c.bound.size == 0) return false;
    std::vector<const ExprNode*> pending{&n};
    while (!pending.empty()) {
        const ExprNode* p = pending.back();
        pending.pop_back();
        if (p->op == Op::kVar && BoundIndex(c, p->var.get()) >= 0) return true;
        for (const auto& a : p->args) pending.push_back(a.get());
    }
    return false;
}

std::string Describe(const ExprNode& n) {
    switch (n.op) {
        case Op::kCall:
            return std::string("'") + FunctionName(n.fn) + "'";
        case Op::kDiv:
            return "integer division";
        case Op::kPow:
            return "integer power";
        case Op::kNot:
        case Op::kAnd:
        case Op::kOr:
        case Op::kXor:
            return "a logical operator";
        case Op::kLt:
        case Op::kLe:
        case Op::kGt:
        case Op::kGe:
        case Op::kEq:
        case Op::kNe:
            return "a comparison";
        default:
            return std::string("an ") + ToString(n.type) + " expression";
    }
}

/// For a derivative type S: nodes whose derivative is zero and whose value is the number
/// evaluation. Dual: the nodes that do not depend on Time, and integral ones (piecewise
/// constant: d/dTime = 0 between their jumps). Jet: integral nodes; they must not depend on a
/// bound variable, whose derivatives would be wrong at the jumps.
template <class S>
bool IsPassive(const ExprNode& n, const Ctx& c) {
    if constexpr (std::is_same_v<S, Dual>) {
        return !n.time_dependent || IsIntegral(n.type);
    } else {
        if (!IsIntegral(n.type)) return false;
        if (DependsOnBound(n, c)) {
            // Report the innermost integral node that reads a variable (e.g. integer(y) in
            // 3*integer(y), not the integer product).
            const ExprNode* at = &n;
            for (bool deeper = true; deeper;) {
                deeper = false;
                for (const auto& a : at->args)
                    if (IsIntegral(a->type) && DependsOnBound(*a, c)) {
                        at = a.get();
                        deeper = true;
                        break;
                    }
            }
            NotDifferentiable(*at, Describe(*at) +
                                       " of a differentiation variable has no "
                                       "derivative rule (piecewise constant)");
        }
        return true;
    }
}

/// Evaluation with an explicit walk of left-deep chains: down the left operands to the first
/// node that is not a link, then up through `parent`, applying each operator to the value so
/// far. Recursion happens only into right operands and other children, whose depth the parser
/// bounds (Parser::kMaxDepth), never along a chain's length.
template <class S>
S EvalNode(const ExprNode& n, const Ctx& c);

template <class S>
S Eval(const ExprNode& n, const Ctx& c) {
    if (!IsLink<S>(n)) return EvalNode<S>(n, c);
    const ExprNode* bottom = &n;
    while (IsLink<S>(*bottom)) bottom = bottom->args[0].get();
    S v = EvalNode<S>(*bottom, c);
    for (const ExprNode* p = bottom->parent;; p = p->parent) {
        v = ApplyBinary<S>(*p, v, c);
        if (p == &n) return v;
    }
}

template <class S>
S EvalNode(const ExprNode& n, const Ctx& c) {
    constexpr bool kNumber = std::is_same_v<S, double>;
    if constexpr (!kNumber) {
        if (IsPassive<S>(n, c)) return Lift<S>(Eval<double>(n, c));
    }
    auto arg = [&](int i) { return Eval<S>(*n.args[i], c); };
    switch (n.op) {
        case Op::kConst:
            return Lift<S>(n.constant.number);
        case Op::kVar: {
            const int i = BoundIndex(c, n.var.get());
            if (i >= 0) {
                const double x = c.bound.values[i];
                if constexpr (std::is_same_v<S, Jet>) {
                    Jet j;
                    j.v = x;
                    j.active = true;
                    j.g = Eigen::VectorXd::Unit(static_cast<Eigen::Index>(c.bound.size), i);
                    j.H = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(c.bound.size),
                                                static_cast<Eigen::Index>(c.bound.size));
                    if (c.bound.direction) {
                        j.dir = true;
                        j.dv = c.bound.direction[i];
                        j.dg = Eigen::VectorXd::Zero(j.g.size());
                        j.dH = j.H;
                    }
                    return j;
                } else {
                    return Lift<S>(x);
                }
            }
            if (!n.var->initialized)
                throw ExpressionError(n.offset, "variable '" + n.var->name + "' has no value");
            return Lift<S>(n.var->value.number);
        }
        case Op::kTime:
            if constexpr (std::is_same_v<S, Dual>) {
                return Dual{c.t, 1.0};
            } else {
                return Lift<S>(c.t);
            }
        case Op::kNeg: {
            const S a = arg(0);
            if constexpr (kNumber) {
                return -a;
            } else if constexpr (std::is_same_v<S, Dual>) {
                return {-a.v, -a.d};
            } else {
                return Compose1(a, -a.v, -1.0, 0.0);
            }
        }
        case Op::kAdd:
        case Op::kSub:
        case Op::kMul:
        case Op::kDiv:
        case Op::kPow:
            return ApplyBinary<S>(n, arg(0), c);
        case Op::kCall:
            if constexpr (!kNumber) {
                if (n.fn == Fn::kToReal) return arg(0);
            }
            switch (n.args.size()) {
                case 1:
                    return Call1<S>(n, arg(0));
                case 2: {
                    const S a = arg(0);
                    return Call2<S>(n, a, arg(1));
                }
                default:
                    if constexpr (kNumber) {
                        return Apply3(n.fn, arg(0), arg(1), arg(2));
                    } else {
                        return Lift<S>(Eval<double>(n, c));  // in_*: bool, passive
                    }
            }
        case Op::kAssign: {
            if constexpr (kNumber) {
                Variable& v = *n.var;
                if (!n.args.empty()) {
                    v.value.number = ConvertNumber(v.type, arg(0));
                    v.initialized = true;
                }
                return v.initialized ? v.value.number : 0.0;
            } else {
                S a = n.args.empty() ? Lift<S>(0.0) : arg(0);
                Eval<double>(n, c);
                a.v = n.var->value.number;
                return a;
            }
        }
        case Op::kSeq: {
            for (std::size_t i = 0; i + 1 < n.args.size(); ++i) {
                if (n.args[i]->type == ValueType::kString) {
                    EvalString(*n.args[i], c);
                } else {
                    Eval<double>(*n.args[i], c);
                }
            }
            return Eval<S>(*n.args.back(), c);
        }
        default:
            break;
    }
    if constexpr (kNumber) {
        switch (n.op) {
            case Op::kNot:
                return arg(0) == 0.0 ? 1.0 : 0.0;
            case Op::kAnd:
            case Op::kOr:
            case Op::kXor:
                return ApplyBinary<double>(n, arg(0), c);
            case Op::kLt:
            case Op::kLe:
            case Op::kGt:
            case Op::kGe:
            case Op::kEq:
            case Op::kNe: {
                if (n.args[0]->type != ValueType::kString) return ApplyBinary<double>(n, arg(0), c);
                const int s = EvalString(*n.args[0], c).compare(EvalString(*n.args[1], c));
                const int cmp = s < 0 ? -1 : (s > 0 ? 1 : 0);
                return Compare(n.op, cmp);
            }
            default:
                break;
        }
        throw ExpressionError(n.offset, "internal error: non-numeric node evaluated as a number");
    } else {
        return Lift<S>(Eval<double>(n, c));  // comparisons, logical: piecewise constant
    }
}

std::string EvalString(const ExprNode& n, const Ctx& c) {
    if (n.type != ValueType::kString) return FormatNumber(n.type, Eval<double>(n, c));
    switch (n.op) {
        case Op::kConst:
            return n.constant.text;
        case Op::kVar:
            if (!n.var->initialized)
                throw ExpressionError(n.offset, "variable '" + n.var->name + "' has no value");
            return n.var->value.text;
        case Op::kAdd: {
            // A chain "a" + b + ... is a left-deep tree: walk down its left operands, then
            // append the right operands on the way up (no recursion along the chain).
            const ExprNode* bottom = &n;
            while (bottom->op == Op::kAdd && bottom->type == ValueType::kString &&
                   bottom->args[0]->type == ValueType::kString && bottom->args[0]->op == Op::kAdd)
                bottom = bottom->args[0].get();
            std::string out = EvalString(*bottom->args[0], c);
            for (const ExprNode* p = bottom;; p = p->parent) {
                out += EvalString(*p->args[1], c);
                if (p == &n) return out;
            }
        }
        case Op::kCall:
            return EvalString(*n.args[0], c);  // string(x)
        case Op::kAssign: {
            Variable& v = *n.var;
            if (!n.args.empty()) {
                v.value.text = EvalString(*n.args[0], c);
                v.initialized = true;
            }
            return v.value.text;
        }
        case Op::kSeq: {
            std::string last;
            for (const auto& a : n.args) last = EvalString(*a, c);
            return last;
        }
        default:
            break;
    }
    throw ExpressionError(n.offset, "internal error: invalid string node");
}

}  // namespace

ValueType Expression::type() const { return root_ ? root_->type : ValueType::kReal; }

bool Expression::depends_on_time() const { return root_ && root_->time_dependent; }

Value Expression::Evaluate(double time) const {
    if (!root_) return Value::Real(0.0);
    const Ctx c{time, {}};
    if (root_->type == ValueType::kString) return Value::String(EvalString(*root_, c));
    return Value{root_->type, Eval<double>(*root_, c), {}};
}

double Expression::EvaluateReal(double time) const {
    if (!root_) return 0.0;
    if (root_->type == ValueType::kString)
        throw ExpressionError(root_->offset, "expected a number, got a string");
    return Eval<double>(*root_, Ctx{time, {}});
}

double Expression::Derivative(double time) const {
    if (!root_) return 0.0;
    if (root_->type == ValueType::kString)
        throw ExpressionError(root_->offset, "expected a number, got a string");
    return Eval<Dual>(*root_, Ctx{time, {}}).d;
}

namespace {
Ctx BoundContext(double time, const std::vector<const Variable*>& variables,
                 const Eigen::VectorXd& values) {
    if (static_cast<Eigen::Index>(variables.size()) != values.size())
        throw std::invalid_argument("expression: " + std::to_string(variables.size()) +
                                    " variables, " + std::to_string(values.size()) + " values");
    return Ctx{time, Bound{variables.data(), values.data(), variables.size()}};
}
}  // namespace

double Expression::EvaluateReal(double time, const std::vector<const Variable*>& variables,
                                const Eigen::VectorXd& values) const {
    if (!root_) return 0.0;
    if (root_->type == ValueType::kString)
        throw ExpressionError(root_->offset, "expected a number, got a string");
    return Eval<double>(*root_, BoundContext(time, variables, values));
}

SecondOrderValue Expression::SecondOrder(double time, const std::vector<const Variable*>& variables,
                                         const Eigen::VectorXd& values) const {
    const auto n = static_cast<Eigen::Index>(variables.size());
    SecondOrderValue out{0.0, Eigen::VectorXd::Zero(n), Eigen::MatrixXd::Zero(n, n)};
    if (!root_) return out;
    if (root_->type == ValueType::kString)
        throw ExpressionError(root_->offset, "expected a number, got a string");
    const Ctx c = BoundContext(time, variables, values);
    if (IsIntegral(root_->type)) {  // piecewise constant: no derivative, unless it is constant
        IsPassive<Jet>(*root_, c);
        out.value = Eval<double>(*root_, c);
        return out;
    }
    Jet j = Eval<Jet>(*root_, c);
    out.value = j.v;
    if (j.active) {
        out.gradient = std::move(j.g);
        out.hessian = std::move(j.H);
    }
    return out;
}

ThirdOrderValue Expression::ThirdOrder(double time, const std::vector<const Variable*>& variables,
                                       const Eigen::VectorXd& values,
                                       const Eigen::VectorXd& direction) const {
    const auto n = static_cast<Eigen::Index>(variables.size());
    if (direction.size() != n)
        throw std::invalid_argument("expression: " + std::to_string(variables.size()) +
                                    " variables, a direction of " +
                                    std::to_string(direction.size()));
    ThirdOrderValue out;
    out.value = 0.0;
    out.gradient = Eigen::VectorXd::Zero(n);
    out.hessian = Eigen::MatrixXd::Zero(n, n);
    out.d_gradient = Eigen::VectorXd::Zero(n);
    out.d_hessian = Eigen::MatrixXd::Zero(n, n);
    if (!root_) return out;
    if (root_->type == ValueType::kString)
        throw ExpressionError(root_->offset, "expected a number, got a string");
    Ctx c = BoundContext(time, variables, values);
    c.bound.direction = direction.data();
    if (IsIntegral(root_->type)) {
        IsPassive<Jet>(*root_, c);
        out.value = Eval<double>(*root_, c);
        return out;
    }
    Jet j = Eval<Jet>(*root_, c);
    out.value = j.v;
    if (j.active) {
        out.gradient = std::move(j.g);
        out.hessian = std::move(j.H);
        out.d_value = j.dv;
        out.d_gradient = std::move(j.dg);
        out.d_hessian = std::move(j.dH);
    }
    return out;
}

bool Expression::References(const Variable& variable) const {
    if (!root_) return false;
    const Variable* v = &variable;
    return DependsOnBound(*root_, Ctx{0.0, Bound{&v, nullptr, 1}});
}

}  // namespace mbstep
