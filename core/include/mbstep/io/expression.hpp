// mbstep — the math expressions of MBDyn's input language (docs/input.md, "Deck structure").
//
// Every numeric argument of a deck is an expression; `string, "..."` drives are expressions
// of the variable Time. An expression is parsed once into a tree and evaluated as often as
// needed, without allocation for numeric types.
//
// Grammar (MBDyn manual, input/general.tex, "Variables", operator table from the highest to
// the lowest precedence):
//   item     := declare | assign                      (side effects: deck arguments, set:)
//   declare  := [ifndef] [const] (bool|integer|real|string) NAME [= assign]
//   assign   := NAME '=' assign | or
//   or       := and (('||' | '~|') and)*              ~| is exclusive or
//   and      := not ('&&' not)*
//   not      := '!' not | compare
//   compare  := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)*
//   sum      := product (('+' | '-') product)*
//   product  := unary (('*' | '/') unary)*
//   unary    := ('+' | '-') unary | power
//   power    := primary ['^' unary]                   right associative: 2^3^2 = 2^9
//   primary  := number | "string" | NAME | NAME '(' args ')' | '(' item (';' item)* ')'
//
// Types (MBDyn's strong typing): a number without '.' or exponent is an integer; integer
// operands give integer results, so 1/3 == 0 (truncating division) while 1/3. == 0.333...;
// comparisons and logical operators give bool (0 or 1); '+' with a string operand
// concatenates. Assigning a real to an integer variable truncates toward zero.
//
// Predefined constants (MBDyn `mbdyn -H`): pi, e, TRUE, FALSE, INT_MAX, INT_MIN, RAND_MAX,
// REAL_MAX, REAL_MIN, deg2rad, rad2deg, in2m, m2in, in2mm, mm2in, ft2m, m2ft, lb2kg, kg2lb,
// slug2kg, kg2slug; the real variable Time (the evaluation time).
// Functions: sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh ctan actan sqrt exp
// log log10 abs sign (real -> real); ceil floor round (-> integer); atan2 actan2 min max pow
// copysign (2 arguments); in_ee in_el in_le in_ll (3 arguments -> bool, e.g. in_el(a, x, b)
// is a <= x < b); the casts bool() integer() real() string().
//
// Derivative() returns d/dTime by forward-mode differentiation of the tree (exact, chain
// rule per node); piecewise-constant nodes (integers, comparisons, ceil, sign, ...) have a
// zero derivative. SecondOrder() returns the value, gradient and Hessian with respect to a
// list of variables (second-order forward mode, exact): there, a piecewise-constant node of
// those variables, and abs/min/max/copysign at their kinks, are errors at the node's offset.
// ThirdOrder() adds the derivatives of the value, gradient and Hessian along a direction (the
// third derivatives contracted with it, same rules).
// The number evaluation allocates nothing; SecondOrder() allocates its vectors.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mbstep {

enum class ValueType { kBool, kInteger, kReal, kString };

/// "bool", "integer", "real", "string".
const char* ToString(ValueType type);

/// A typed value. Numeric types keep their value in `number` (integers are exact up to 2^53).
struct Value {
    ValueType type{ValueType::kReal};
    double number{0.0};
    std::string text;

    static Value Real(double v) { return {ValueType::kReal, v, {}}; }
    static Value Integer(double v) { return {ValueType::kInteger, v, {}}; }
    static Value Bool(bool v) { return {ValueType::kBool, v ? 1.0 : 0.0, {}}; }
    static Value String(std::string s) { return {ValueType::kString, 0.0, std::move(s)}; }
    bool is_numeric() const { return type != ValueType::kString; }
    /// The value as MBDyn prints it (integers without decimals, reals as %g).
    std::string ToString() const;
};

/// A named variable of the symbol table. Expression trees share it, so a drive keeps seeing
/// the variables of its deck after the deck reader is gone.
struct Variable {
    std::string name;
    ValueType type{ValueType::kReal};
    bool is_const{false};
    bool initialized{false};
    Value value;
};

/// Variables declared with `set:` plus the predefined constants.
class SymbolTable {
  public:
    SymbolTable();
    /// The variable, or nullptr.
    std::shared_ptr<Variable> Find(const std::string& name) const;
    /// Declares a new variable; returns nullptr if the name is taken (or reserved: Time).
    std::shared_ptr<Variable> Declare(const std::string& name, ValueType type, bool is_const);
    /// Adds an existing variable under its name; false if the name is taken (or Time).
    bool Add(std::shared_ptr<Variable> variable);
    /// Sets (declaring if needed) a variable, converting the value to its type; for tests
    /// and command-line definitions.
    void Set(const std::string& name, const Value& value);
    std::vector<std::string> names() const;

  private:
    std::map<std::string, std::shared_ptr<Variable>> variables_;
};

/// A parse or evaluation error at a byte offset of the parsed text.
class ExpressionError : public std::runtime_error {
  public:
    ExpressionError(std::size_t offset, const std::string& message)
        : std::runtime_error(message), offset_(offset), message_(message) {}
    std::size_t offset() const { return offset_; }
    const std::string& message() const { return message_; }

  private:
    std::size_t offset_;
    std::string message_;
};

/// 1-based (line, column) of a byte offset in text.
std::pair<int, int> LineColumn(std::string_view text, std::size_t offset);

namespace detail {
struct ExprNode;
}

struct ExpressionOptions {
    /// Allow declarations and assignments (deck arguments and `set:`); drives are pure.
    bool allow_side_effects{false};
};

/// An expression's value, gradient and Hessian with respect to n variables.
struct SecondOrderValue {
    double value{0.0};
    Eigen::VectorXd gradient;  ///< n
    Eigen::MatrixXd hessian;   ///< n x n, symmetric
};

/// SecondOrderValue and its derivative along a direction u of the n variables: d_value =
/// gradient.u, d_gradient = hessian u, d_hessian(i, j) = sum_k d3/dx_i dx_j dx_k u_k.
struct ThirdOrderValue : SecondOrderValue {
    double d_value{0.0};
    Eigen::VectorXd d_gradient;  ///< n
    Eigen::MatrixXd d_hessian;   ///< n x n, symmetric
};

class Expression {
  public:
    Expression() = default;

    /// Parses one expression (an `item` of the grammar) of text starting at pos; pos is left
    /// at the first character that cannot continue it (e.g. a top-level ',' or ';').
    /// Declarations enter the symbol table while parsing; their value is assigned when the
    /// expression is evaluated.
    static Expression Parse(std::string_view text, std::size_t& pos, SymbolTable& symbols,
                            const ExpressionOptions& options = {});
    /// Parses the whole text (items separated by ';'); trailing characters are an error.
    static Expression Compile(std::string_view text, SymbolTable& symbols,
                              const ExpressionOptions& options = {});

    bool empty() const { return root_ == nullptr; }
    ValueType type() const;
    /// True if the value depends on Time.
    bool depends_on_time() const;

    /// Evaluates with Time = time (performs the side effects of declarations/assignments).
    /// Throws ExpressionError (integer division by zero, uninitialized variable).
    Value Evaluate(double time = 0.0) const;
    /// Numeric expressions only: the value as a double, without allocation.
    double EvaluateReal(double time) const;
    /// d/dTime of a numeric expression.
    double Derivative(double time) const;

    /// The value with each of `variables` taking the corresponding entry of `values` instead
    /// of its symbol-table value (the symbol table is not changed).
    double EvaluateReal(double time, const std::vector<const Variable*>& variables,
                        const Eigen::VectorXd& values) const;
    /// Value, gradient and Hessian with respect to `variables` at `values` (forward mode,
    /// exact). Throws ExpressionError at the offset of a node without a derivative there:
    /// a piecewise-constant function or operator of the variables (sign, ceil, integer(),
    /// comparisons, ...), abs/min/max/copysign at their kinks, a power with a variable
    /// exponent at a base <= 0.
    SecondOrderValue SecondOrder(double time, const std::vector<const Variable*>& variables,
                                 const Eigen::VectorXd& values) const;
    /// SecondOrder() and the derivatives of its value, gradient and Hessian along `direction`
    /// (the third derivatives contracted with it), exact: the jet's numbers carried as dual
    /// numbers in the direction. Same errors as SecondOrder().
    ThirdOrderValue ThirdOrder(double time, const std::vector<const Variable*>& variables,
                               const Eigen::VectorXd& values,
                               const Eigen::VectorXd& direction) const;
    /// True if the expression reads `variable`.
    bool References(const Variable& variable) const;

  private:
    explicit Expression(std::shared_ptr<const detail::ExprNode> root) : root_(std::move(root)) {}
    std::shared_ptr<const detail::ExprNode> root_;
};

}  // namespace mbstep
