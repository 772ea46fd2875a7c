// mbstep — math expressions: lexer, recursive-descent parser, tree evaluation and forward-mode
// differentiation (grammar and typing rules in io/expression.hpp).
#include "mbstep/io/expression.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

namespace mbstep {

const char* ToString(ValueType type) {
    switch (type) {
        case ValueType::kBool:
            return "bool";
        case ValueType::kInteger:
            return "integer";
        case ValueType::kReal:
            return "real";
        case ValueType::kString:
            return "string";
    }
    return "?";
}

namespace {

std::string FormatNumber(ValueType type, double v) {
    char buf[64];
    if (type == ValueType::kReal) {
        std::snprintf(buf, sizeof buf, "%g", v);
    } else {
        std::snprintf(buf, sizeof buf, "%.0f", v);
    }
    return buf;
}

/// Converts a numeric value to a variable's type (MBDyn casts: integer truncates toward zero,
/// bool is 0 or 1).
double ConvertNumber(ValueType to, double v) {
    switch (to) {
        case ValueType::kInteger:
            return std::trunc(v);
        case ValueType::kBool:
            return v != 0.0 ? 1.0 : 0.0;
        default:
            return v;
    }
}

bool IsIntegral(ValueType t) { return t == ValueType::kInteger || t == ValueType::kBool; }

}  // namespace

std::string Value::ToString() const {
    return type == ValueType::kString ? text : FormatNumber(type, number);
}

// ---------------------------------------------------------------------------------------------
// Symbol table

SymbolTable::SymbolTable() {
    auto constant = [this](const char* name, ValueType type, double v) {
        auto var = Declare(name, type, true);
        var->value = Value{type, v, {}};
        var->initialized = true;
    };
    constexpr double kPi = 3.14159265358979323846;
    constant("pi", ValueType::kReal, kPi);
    constant("e", ValueType::kReal, 2.71828182845904523536);
    constant("TRUE", ValueType::kBool, 1.0);
    constant("FALSE", ValueType::kBool, 0.0);
    constant("INT_MAX", ValueType::kInteger, std::numeric_limits<int>::max());
    constant("INT_MIN", ValueType::kInteger, std::numeric_limits<int>::min());
    constant("RAND_MAX", ValueType::kInteger, RAND_MAX);
    constant("REAL_MAX", ValueType::kReal, std::numeric_limits<double>::max());
    constant("REAL_MIN", ValueType::kReal, std::numeric_limits<double>::min());
    constant("deg2rad", ValueType::kReal, kPi / 180.0);
    constant("rad2deg", ValueType::kReal, 180.0 / kPi);
    constant("in2m", ValueType::kReal, 0.0254);
    constant("m2in", ValueType::kReal, 1.0 / 0.0254);
    constant("in2mm", ValueType::kReal, 25.4);
    constant("mm2in", ValueType::kReal, 1.0 / 25.4);
    constant("ft2m", ValueType::kReal, 0.3048);
    constant("m2ft", ValueType::kReal, 1.0 / 0.3048);
    constant("lb2kg", ValueType::kReal, 0.45359237);
    constant("kg2lb", ValueType::kReal, 1.0 / 0.45359237);
    constant("slug2kg", ValueType::kReal, 14.5939);
    constant("kg2slug", ValueType::kReal, 1.0 / 14.5939);
}

std::shared_ptr<Variable> SymbolTable::Find(const std::string& name) const {
    auto it = variables_.find(name);
    return it == variables_.end() ? nullptr : it->second;
}

std::shared_ptr<Variable> SymbolTable::Declare(const std::string& name, ValueType type,
                                               bool is_const) {
    if (name == "Time" || variables_.count(name)) return nullptr;
    auto var = std::make_shared<Variable>();
    var->name = name;
    var->type = type;
    var->is_const = is_const;
    var->value.type = type;
    variables_[name] = var;
    return var;
}

bool SymbolTable::Add(std::shared_ptr<Variable> variable) {
    if (!variable || variable->name == "Time" || variables_.count(variable->name)) return false;
    variables_[variable->name] = std::move(variable);
    return true;
}

void SymbolTable::Set(const std::string& name, const Value& value) {
    auto var = Find(name);
    if (!var) var = Declare(name, value.type, false);
    if (!var) throw std::invalid_argument("cannot set reserved variable " + name);
    if (var->type == ValueType::kString) {
        var->value = Value::String(value.ToString());
    } else {
        if (!value.is_numeric())
            throw std::invalid_argument("cannot assign a string to " +
                                        std::string(mbstep::ToString(var->type)) + " variable " +
                                        name);
        var->value = Value{var->type, ConvertNumber(var->type, value.number), {}};
    }
    var->initialized = true;
}

std::vector<std::string> SymbolTable::names() const {
    std::vector<std::string> out;
    for (const auto& kv : variables_) out.push_back(kv.first);
    return out;
}

std::pair<int, int> LineColumn(std::string_view text, std::size_t offset) {
    int line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

// ---------------------------------------------------------------------------------------------
// Expression tree

namespace detail {

enum class Op {
    kConst,
    kVar,
    kTime,
    kNeg,
    kNot,
    kAdd,
    kSub,
    kMul,
    kDiv,
    kPow,
    kLt,
    kLe,
    kGt,
    kGe,
    kEq,
    kNe,
    kAnd,
    kOr,
    kXor,
    kCall,
    kAssign,
    kSeq,
};

enum class Fn {
    kSin,
    kCos,
    kTan,
    kAsin,
    kAcos,
    kAtan,
    kSinh,
    kCosh,
    kTanh,
    kAsinh,
    kAcosh,
    kAtanh,
    kCtan,
    kActan,
    kSqrt,
    kExp,
    kLog,
    kLog10,
    kAbs,
    kSign,
    kCeil,
    kFloor,
    kRound,
    kAtan2,
    kActan2,
    kMin,
    kMax,
    kPow,
    kCopysign,
    kInEE,
    kInEL,
    kInLE,
    kInLL,
    kToBool,
    kToInteger,
    kToReal,
    kToString,
};

struct FunctionInfo {
    const char* name;
    Fn fn;
    int arity;
    ValueType result;
};

// One row per built-in function (MBDyn manual, table "Built-in mathematical functions").
constexpr FunctionInfo kFunctions[] = {
    {"sin", Fn::kSin, 1, ValueType::kReal},
    {"cos", Fn::kCos, 1, ValueType::kReal},
    {"tan", Fn::kTan, 1, ValueType::kReal},
    {"asin", Fn::kAsin, 1, ValueType::kReal},
    {"acos", Fn::kAcos, 1, ValueType::kReal},
    {"atan", Fn::kAtan, 1, ValueType::kReal},
    {"sinh", Fn::kSinh, 1, ValueType::kReal},
    {"cosh", Fn::kCosh, 1, ValueType::kReal},
    {"tanh", Fn::kTanh, 1, ValueType::kReal},
    {"asinh", Fn::kAsinh, 1, ValueType::kReal},
    {"acosh", Fn::kAcosh, 1, ValueType::kReal},
    {"atanh", Fn::kAtanh, 1, ValueType::kReal},
    {"ctan", Fn::kCtan, 1, ValueType::kReal},
    {"actan", Fn::kActan, 1, ValueType::kReal},
    {"sqrt", Fn::kSqrt, 1, ValueType::kReal},
    {"exp", Fn::kExp, 1, ValueType::kReal},
    {"log", Fn::kLog, 1, ValueType::kReal},
    {"log10", Fn::kLog10, 1, ValueType::kReal},
    {"abs", Fn::kAbs, 1, ValueType::kReal},
    {"sign", Fn::kSign, 1, ValueType::kReal},
    {"ceil", Fn::kCeil, 1, ValueType::kInteger},
    {"floor", Fn::kFloor, 1, ValueType::kInteger},
    {"round", Fn::kRound, 1, ValueType::kInteger},
    {"atan2", Fn::kAtan2, 2, ValueType::kReal},
    {"actan2", Fn::kActan2, 2, ValueType::kReal},
    {"min", Fn::kMin, 2, ValueType::kReal},
    {"max", Fn::kMax, 2, ValueType::kReal},
    {"pow", Fn::kPow, 2, ValueType::kReal},
    {"copysign", Fn::kCopysign, 2, ValueType::kReal},
    {"in_ee", Fn::kInEE, 3, ValueType::kBool},
    {"in_el", Fn::kInEL, 3, ValueType::kBool},
    {"in_le", Fn::kInLE, 3, ValueType::kBool},
    {"in_ll", Fn::kInLL, 3, ValueType::kBool},
    {"bool", Fn::kToBool, 1, ValueType::kBool},
    {"integer", Fn::kToInteger, 1, ValueType::kInteger},
    {"real", Fn::kToReal, 1, ValueType::kReal},
    {"string", Fn::kToString, 1, ValueType::kString},
};

struct ExprNode {
    ExprNode() = default;
    ExprNode(const ExprNode&) = delete;
    ExprNode& operator=(const ExprNode&) = delete;
    /// Frees the subtree with an explicit stack: a chain `1+1+...` of n terms is a left-deep
    /// tree of depth n, which recursive destruction would follow down the stack.
    ~ExprNode() {
        std::vector<std::unique_ptr<ExprNode>> pending;
        for (auto& a : args)
            if (a) pending.push_back(std::move(a));
        while (!pending.empty()) {
            std::unique_ptr<ExprNode> n = std::move(pending.back());
            pending.pop_back();
            for (auto& a : n->args)
                if (a) pending.push_back(std::move(a));
        }  // n is freed here with no children left
    }

    Op op{Op::kConst};
    ValueType type{ValueType::kReal};
    std::size_t offset{0};
    Value constant;                 // kConst
    std::shared_ptr<Variable> var;  // kVar, kAssign (target)
    Fn fn{Fn::kSin};                // kCall
    std::vector<std::unique_ptr<ExprNode>> args;
    bool time_dependent{false};
    /// The binary operator node whose left operand (args[0]) this node is, else nullptr: the
    /// evaluators climb a left-deep chain through it instead of recursing down the chain.
    const ExprNode* parent{nullptr};
};

}  // namespace detail

namespace {

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
//   Jet     the value, gradient and Hessian with respect to bound variables (SecondOrder()).
// The walk, the chain handling and the typing rules are shared; each scalar type supplies the
// arithmetic of its operators and functions (chain rule per node, Griewank & Walther,
// "Evaluating Derivatives", 2nd ed., SIAM 2008, ch. 3 and 13). String nodes are evaluated
// as std::string.

/// Variables whose values are given by the caller (the independent variables of SecondOrder).
struct Bound {
    const Variable* const* vars{nullptr};
    const double* values{nullptr};
    std::size_t size{0};
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

Jet Compose1(const Jet& a, double f, double f1, double f2) {
    if (!a.active) return Lift<Jet>(f);
    Jet r;
    r.v = f;
    r.active = true;
    r.g = f1 * a.g;
    r.H = f1 * a.H;
    if (f2 != 0.0) r.H.noalias() += f2 * a.g * a.g.transpose();
    return r;
}

Jet Compose2(const Jet& a, const Jet& b, double f, double fa, double fb, double faa, double fab,
             double fbb) {
    if (!b.active) return Compose1(a, f, fa, faa);
    if (!a.active) return Compose1(b, f, fb, fbb);
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
    if (a.active) {
        r.g = a.g + sign * b.g;
        r.H = a.H + sign * b.H;
    } else {
        r.g = sign * b.g;
        r.H = sign * b.H;
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
        return Compose1(a, p, f1, f2);
    }
    if (!(a.v > 0.0))
        throw ExpressionError(offset,
                              "power with an exponent that depends on a differentiation variable "
                              "has no derivative at a base <= 0 (base " +
                                  FormatNumber(ValueType::kReal, a.v) + ")");
    const double la = std::log(a.v);
    const double e = b.v;
    const double pa = std::pow(a.v, e - 1.0);  // a^(b-1)
    return Compose2(a, b, p, e * pa, p * la, e * (e - 1.0) * std::pow(a.v, e - 2.0),
                    pa * (1.0 + e * la), p * la * la);
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
                const double ib = 1.0 / b.v;
                return Compose2(a, b, a.v / b.v, ib, -a.v * ib * ib, 0.0, -ib * ib,
                                2.0 * a.v * ib * ib * ib);
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
            return Compose1(a, v, f1, SecondDerivative(n.fn, x, v, f1));
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
                const double q = 1.0 / (r2 * r2);
                return Compose2(y, x, std::atan2(y.v, x.v), x.v / r2, -y.v / r2,
                                -2.0 * x.v * y.v * q, (y.v * y.v - x.v * x.v) * q,
                                2.0 * x.v * y.v * q);
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
// ---------------------------------------------------------------------------------------------
// Lexer

enum class Tok { kEnd, kNumber, kIdent, kString, kPunct };

struct Token {
    Tok kind{Tok::kEnd};
    std::string text;  // identifier / punctuation / decoded string
    double number{0.0};
    bool integer{false};
    std::size_t offset{0};  // first character
    std::size_t end{0};     // one past the last character
};

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

class Lexer {
  public:
    Lexer(std::string_view s, std::size_t pos) : s_(s), pos_(pos) {}

    Token Next() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
        Token t;
        t.offset = pos_;
        if (pos_ >= s_.size()) {
            t.end = pos_;
            return t;
        }
        const char c = s_[pos_];
        if (IsDigit(c) || (c == '.' && pos_ + 1 < s_.size() && IsDigit(s_[pos_ + 1]))) {
            LexNumber(t);
        } else if (IsIdentStart(c)) {
            std::size_t p = pos_;
            while (p < s_.size() && IsIdentChar(s_[p])) ++p;
            t.kind = Tok::kIdent;
            t.text = std::string(s_.substr(pos_, p - pos_));
            pos_ = p;
        } else if (c == '"') {
            LexString(t);
        } else {
            static const char* const kTwo[] = {"==", "!=", "<=", ">=", "&&", "||", "~|", "::"};
            t.kind = Tok::kPunct;
            t.text = std::string(1, c);
            for (const char* two : kTwo)
                if (s_.substr(pos_, 2) == two) t.text = two;
            pos_ += t.text.size();
        }
        t.end = pos_;
        return t;
    }
    std::size_t pos() const { return pos_; }

  private:
    void LexNumber(Token& t) {
        std::size_t p = pos_;
        bool integer = true;
        while (p < s_.size() && IsDigit(s_[p])) ++p;
        if (p < s_.size() && s_[p] == '.') {
            integer = false;
            ++p;
            while (p < s_.size() && IsDigit(s_[p])) ++p;
        }
        if (p < s_.size() && (s_[p] == 'e' || s_[p] == 'E')) {
            std::size_t q = p + 1;
            if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) ++q;
            if (q < s_.size() && IsDigit(s_[q])) {
                integer = false;
                while (q < s_.size() && IsDigit(s_[q])) ++q;
                p = q;
            }
        }
        const std::string text(s_.substr(pos_, p - pos_));
        t.kind = Tok::kNumber;
        t.text = text;
        t.number = std::strtod(text.c_str(), nullptr);
        t.integer = integer;
        pos_ = p;
    }

    // MBDyn strings: backslash escapes \\, \", \<newline> (eaten) and \<hex pair>.
    void LexString(Token& t) {
        std::size_t p = pos_ + 1;
        std::string out;
        for (;;) {
            if (p >= s_.size()) throw ExpressionError(pos_, "unterminated string");
            const char c = s_[p];
            if (c == '"') break;
            if (c == '\\' && p + 1 < s_.size()) {
                const char d = s_[p + 1];
                if (d == '\n') {
                    p += 2;
                } else if (p + 2 < s_.size() && HexDigit(d) >= 0 && HexDigit(s_[p + 2]) >= 0) {
                    out.push_back(static_cast<char>(HexDigit(d) * 16 + HexDigit(s_[p + 2])));
                    p += 3;
                } else {
                    out.push_back(d);
                    p += 2;
                }
                continue;
            }
            out.push_back(c);
            ++p;
        }
        t.kind = Tok::kString;
        t.text = std::move(out);
        pos_ = p + 1;
    }

    std::string_view s_;
    std::size_t pos_;
};

// ---------------------------------------------------------------------------------------------
// Parser

const detail::FunctionInfo* FindFunction(const std::string& name) {
    for (const auto& f : detail::kFunctions)
        if (name == f.name) return &f;
    return nullptr;
}

bool IsTypeName(const std::string& s, ValueType* type) {
    if (s == "bool")
        *type = ValueType::kBool;
    else if (s == "integer")
        *type = ValueType::kInteger;
    else if (s == "real")
        *type = ValueType::kReal;
    else if (s == "string")
        *type = ValueType::kString;
    else
        return false;
    return true;
}

std::string Describe(const Token& t) {
    switch (t.kind) {
        case Tok::kEnd:
            return "end of input";
        case Tok::kString:
            return "a string";
        default:
            return "'" + t.text + "'";
    }
}

class Parser {
  public:
    Parser(std::string_view s, std::size_t pos, SymbolTable& symbols, ExpressionOptions options)
        : lexer_(s, pos), symbols_(symbols), options_(options) {
        Advance();
    }

    NodePtr ParseItem() {
        DepthGuard guard(this);
        ValueType type;
        const bool decl_word =
            tok_.kind == Tok::kIdent &&
            (tok_.text == "ifndef" || tok_.text == "const" || IsTypeName(tok_.text, &type));
        if (decl_word && !(next_.kind == Tok::kPunct && next_.text == "("))
            return ParseDeclaration();
        if (tok_.kind == Tok::kIdent && next_.kind == Tok::kPunct && next_.text == "=")
            return ParseAssignment();
        return ParseOr();
    }

    NodePtr ParseSequence() {
        const std::size_t offset = tok_.offset;
        std::vector<NodePtr> items;
        items.push_back(ParseItem());
        while (IsPunct(";")) {
            Advance();
            items.push_back(ParseItem());
        }
        if (items.size() == 1) return std::move(items.front());
        auto n = MakeNode(Op::kSeq, items.back()->type, offset);
        for (auto& i : items) {
            n->time_dependent = n->time_dependent || i->time_dependent;
            n->args.push_back(std::move(i));
        }
        return n;
    }

    const Token& token() const { return tok_; }

  private:
    /// Bound of the parser's recursion (parentheses, unary operators, '^', calls); chains of
    /// binary operators are parsed by loops and do not count.
    static constexpr int kMaxDepth = 200;
    struct DepthGuard {
        explicit DepthGuard(Parser* p) : parser(p) {
            if (++parser->depth_ > kMaxDepth)
                throw ExpressionError(parser->tok_.offset,
                                      "expression nested too deeply (depth limit " +
                                          std::to_string(kMaxDepth) +
                                          ": a parenthesis counts 4, a unary operator 1)");
        }
        ~DepthGuard() { --parser->depth_; }
        Parser* parser;
    };

    void Advance() {
        if (!primed_) {
            next_ = lexer_.Next();
            primed_ = true;
        }
        tok_ = next_;
        next_ = tok_.kind == Tok::kEnd ? tok_ : lexer_.Next();
    }
    bool IsPunct(const char* p) const { return tok_.kind == Tok::kPunct && tok_.text == p; }

    [[noreturn]] void Fail(const Token& t, const std::string& message) const {
        throw ExpressionError(t.offset, message);
    }

    static NodePtr MakeNode(Op op, ValueType type, std::size_t offset) {
        auto n = std::make_unique<ExprNode>();
        n->op = op;
        n->type = type;
        n->offset = offset;
        return n;
    }

    NodePtr ParseDeclaration() {
        const Token start = tok_;
        if (!options_.allow_side_effects) Fail(start, "declarations are not allowed here");
        bool ifndef = false, is_const = false;
        if (tok_.text == "ifndef") {
            ifndef = true;
            Advance();
        }
        if (tok_.kind == Tok::kIdent && tok_.text == "const") {
            is_const = true;
            Advance();
        }
        ValueType type;
        if (tok_.kind != Tok::kIdent || !IsTypeName(tok_.text, &type))
            Fail(tok_, "expected a type (bool, integer, real, string), got " + Describe(tok_));
        Advance();
        if (tok_.kind != Tok::kIdent) Fail(tok_, "expected a variable name, got " + Describe(tok_));
        const Token name = tok_;
        Advance();
        NodePtr init;
        if (IsPunct("=")) {
            Advance();
            init = ParseAssignOrOr();
            CheckAssignable(type, *init, name);
        } else if (is_const) {
            Fail(name, "const variable '" + name.text + "' needs a value");
        }
        std::shared_ptr<Variable> var = symbols_.Find(name.text);
        if (var) {
            if (ifndef) {  // MBDyn: an existing variable makes the declaration a no-op
                auto n = MakeNode(Op::kVar, var->type, name.offset);
                n->var = var;
                return n;
            }
            Fail(name, "variable '" + name.text + "' is already defined");
        }
        var = symbols_.Declare(name.text, type, is_const);
        if (!var) Fail(name, "'" + name.text + "' is reserved");
        auto n = MakeNode(Op::kAssign, type, start.offset);
        n->var = var;
        if (init) {
            n->time_dependent = init->time_dependent;
            n->args.push_back(std::move(init));
        }
        return n;
    }

    NodePtr ParseAssignOrOr() {
        if (tok_.kind == Tok::kIdent && next_.kind == Tok::kPunct && next_.text == "=")
            return ParseAssignment();
        return ParseOr();
    }

    NodePtr ParseAssignment() {
        DepthGuard guard(this);
        const Token name = tok_;
        if (!options_.allow_side_effects) Fail(name, "assignments are not allowed here");
        std::shared_ptr<Variable> var = symbols_.Find(name.text);
        if (!var) Fail(name, "undefined variable '" + name.text + "'");
        if (var->is_const) Fail(name, "cannot assign to const variable '" + name.text + "'");
        Advance();  // name
        Advance();  // '='
        NodePtr value = ParseAssignOrOr();
        CheckAssignable(var->type, *value, name);
        auto n = MakeNode(Op::kAssign, var->type, name.offset);
        n->var = var;
        n->time_dependent = value->time_dependent;
        n->args.push_back(std::move(value));
        return n;
    }

    void CheckAssignable(ValueType type, const ExprNode& value, const Token& name) const {
        if (type != ValueType::kString && value.type == ValueType::kString)
            Fail(name, "cannot assign a string to " + std::string(ToString(type)) + " variable '" +
                           name.text + "'");
    }

    NodePtr Binary(Op op, NodePtr a, NodePtr b, const Token& at) {
        ValueType type;
        const bool strings = a->type == ValueType::kString || b->type == ValueType::kString;
        switch (op) {
            case Op::kAdd:
            case Op::kSub:
            case Op::kMul:
            case Op::kDiv:
            case Op::kPow:
                if (strings && op != Op::kAdd)
                    Fail(at, "operator '" + at.text + "' cannot be applied to a string");
                type = strings ? ValueType::kString
                               : (IsIntegral(a->type) && IsIntegral(b->type) ? ValueType::kInteger
                                                                             : ValueType::kReal);
                break;
            case Op::kAnd:
            case Op::kOr:
            case Op::kXor:
                if (strings) Fail(at, "operator '" + at.text + "' cannot be applied to a string");
                type = ValueType::kBool;
                break;
            default:  // comparisons
                if (strings && (a->type != ValueType::kString || b->type != ValueType::kString))
                    Fail(at, "cannot compare a string with a number");
                type = ValueType::kBool;
                break;
        }
        auto n = MakeNode(op, type, at.offset);
        n->time_dependent = a->time_dependent || b->time_dependent;
        a->parent = n.get();
        n->args.push_back(std::move(a));
        n->args.push_back(std::move(b));
        return n;
    }

    NodePtr ParseOr() {
        NodePtr left = ParseAnd();
        while (IsPunct("||") || IsPunct("~|")) {
            const Token op = tok_;
            Advance();
            left = Binary(op.text == "||" ? Op::kOr : Op::kXor, std::move(left), ParseAnd(), op);
        }
        return left;
    }

    NodePtr ParseAnd() {
        NodePtr left = ParseNot();
        while (IsPunct("&&")) {
            const Token op = tok_;
            Advance();
            left = Binary(Op::kAnd, std::move(left), ParseNot(), op);
        }
        return left;
    }

    NodePtr ParseNot() {
        DepthGuard guard(this);
        if (IsPunct("!")) {
            const Token op = tok_;
            Advance();
            NodePtr a = ParseNot();
            if (a->type == ValueType::kString)
                Fail(op, "operator '!' cannot be applied to a string");
            auto n = MakeNode(Op::kNot, ValueType::kBool, op.offset);
            n->time_dependent = a->time_dependent;
            n->args.push_back(std::move(a));
            return n;
        }
        return ParseCompare();
    }

    NodePtr ParseCompare() {
        NodePtr left = ParseSum();
        for (;;) {
            Op op;
            if (IsPunct("<"))
                op = Op::kLt;
            else if (IsPunct("<="))
                op = Op::kLe;
            else if (IsPunct(">"))
                op = Op::kGt;
            else if (IsPunct(">="))
                op = Op::kGe;
            else if (IsPunct("=="))
                op = Op::kEq;
            else if (IsPunct("!="))
                op = Op::kNe;
            else
                return left;
            const Token at = tok_;
            Advance();
            left = Binary(op, std::move(left), ParseSum(), at);
        }
    }

    NodePtr ParseSum() {
        NodePtr left = ParseProduct();
        while (IsPunct("+") || IsPunct("-")) {
            const Token at = tok_;
            Advance();
            left =
                Binary(at.text == "+" ? Op::kAdd : Op::kSub, std::move(left), ParseProduct(), at);
        }
        return left;
    }

    NodePtr ParseProduct() {
        NodePtr left = ParseUnary();
        while (IsPunct("*") || IsPunct("/")) {
            const Token at = tok_;
            Advance();
            left = Binary(at.text == "*" ? Op::kMul : Op::kDiv, std::move(left), ParseUnary(), at);
        }
        return left;
    }

    NodePtr ParseUnary() {
        DepthGuard guard(this);
        if (IsPunct("+") || IsPunct("-")) {
            const Token at = tok_;
            Advance();
            NodePtr a = ParseUnary();
            if (a->type == ValueType::kString)
                Fail(at, "operator '" + at.text + "' cannot be applied to a string");
            if (at.text == "+") return a;
            auto n = MakeNode(Op::kNeg, a->type == ValueType::kBool ? ValueType::kInteger : a->type,
                              at.offset);
            n->time_dependent = a->time_dependent;
            n->args.push_back(std::move(a));
            return n;
        }
        return ParsePower();
    }

    NodePtr ParsePower() {
        NodePtr base = ParsePrimary();
        if (IsPunct("^")) {
            const Token at = tok_;
            Advance();
            return Binary(Op::kPow, std::move(base), ParseUnary(), at);
        }
        return base;
    }

    NodePtr ParsePrimary() {
        DepthGuard guard(this);
        const Token t = tok_;
        switch (t.kind) {
            case Tok::kNumber: {
                Advance();
                auto n = MakeNode(Op::kConst, t.integer ? ValueType::kInteger : ValueType::kReal,
                                  t.offset);
                n->constant = Value{n->type, t.number, {}};
                return n;
            }
            case Tok::kString: {
                Advance();
                auto n = MakeNode(Op::kConst, ValueType::kString, t.offset);
                n->constant = Value::String(t.text);
                return n;
            }
            case Tok::kIdent:
                return ParseName();
            case Tok::kPunct:
                if (t.text == "(") {
                    Advance();
                    NodePtr inner = ParseSequence();
                    if (!IsPunct(")")) Fail(tok_, "expected ')', got " + Describe(tok_));
                    Advance();
                    return inner;
                }
                break;
            case Tok::kEnd:
                Fail(t, "expected an expression, got end of input");
        }
        Fail(t, "expected an expression, got " + Describe(t));
    }

    NodePtr ParseName() {
        Token name = tok_;
        Advance();
        // Namespaces: only MBDyn's `default::` (the built-in functions) is known.
        if (IsPunct("::")) {
            if (name.text != "default")
                Fail(name, "namespace '" + name.text + "' is not supported");
            Advance();
            if (tok_.kind != Tok::kIdent) Fail(tok_, "expected a function name after '::'");
            name = tok_;
            Advance();
            if (!IsPunct("(")) Fail(tok_, "expected '(' after 'default::" + name.text + "'");
        }
        if (IsPunct("(")) return ParseCall(name);
        if (name.text == "Time") {
            auto n = MakeNode(Op::kTime, ValueType::kReal, name.offset);
            n->time_dependent = true;
            return n;
        }
        std::shared_ptr<Variable> var = symbols_.Find(name.text);
        if (!var) Fail(name, "undefined variable '" + name.text + "'");
        auto n = MakeNode(Op::kVar, var->type, name.offset);
        n->var = var;
        return n;
    }

    NodePtr ParseCall(const Token& name) {
        const detail::FunctionInfo* f = FindFunction(name.text);
        if (!f) Fail(name, "unknown function '" + name.text + "'");
        Advance();  // '('
        std::vector<NodePtr> args;
        if (!IsPunct(")")) {
            for (;;) {
                args.push_back(ParseAssignOrOr());
                if (IsPunct(",")) {
                    Advance();
                    continue;
                }
                break;
            }
        }
        if (!IsPunct(")"))
            Fail(tok_, "expected ',' or ')' in call to '" + name.text + "', got " + Describe(tok_));
        Advance();
        if (static_cast<int>(args.size()) != f->arity)
            Fail(name, "function '" + name.text + "' takes " + std::to_string(f->arity) +
                           " argument" + (f->arity == 1 ? "" : "s") + ", got " +
                           std::to_string(args.size()));
        for (const auto& a : args)
            if (a->type == ValueType::kString && f->fn != Fn::kToString)
                Fail(name, "function '" + name.text + "' needs a numeric argument, got a string");
        auto n = MakeNode(Op::kCall, f->result, name.offset);
        n->fn = f->fn;
        for (auto& a : args) {
            n->time_dependent = n->time_dependent || a->time_dependent;
            n->args.push_back(std::move(a));
        }
        return n;
    }

    Lexer lexer_;
    SymbolTable& symbols_;
    ExpressionOptions options_;
    Token tok_;
    Token next_;
    bool primed_{false};
    int depth_{0};
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Expression

Expression Expression::Parse(std::string_view text, std::size_t& pos, SymbolTable& symbols,
                             const ExpressionOptions& options) {
    Parser parser(text, pos, symbols, options);
    NodePtr root = parser.ParseItem();
    pos = parser.token().offset;
    return Expression(std::shared_ptr<const ExprNode>(std::move(root)));
}

Expression Expression::Compile(std::string_view text, SymbolTable& symbols,
                               const ExpressionOptions& options) {
    Parser parser(text, 0, symbols, options);
    NodePtr root = parser.ParseSequence();
    const Token& t = parser.token();
    if (t.kind != Tok::kEnd) throw ExpressionError(t.offset, "unexpected " + Describe(t));
    return Expression(std::shared_ptr<const ExprNode>(std::move(root)));
}

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

bool Expression::References(const Variable& variable) const {
    if (!root_) return false;
    const Variable* v = &variable;
    return DependsOnBound(*root_, Ctx{0.0, Bound{&v, nullptr, 1}});
}

}  // namespace mbstep
