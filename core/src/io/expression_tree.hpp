// mbstep — math expressions: the expression tree (operators, built-in functions, nodes) and the
// helpers on values that the symbol table, the evaluators and the parser share. Internal to
// core/src/io (expression_symbols.cpp, expression_eval.cpp, expression_lexer.cpp,
// expression_parser.cpp); the interface is io/expression.hpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mbstep/io/expression.hpp"

namespace mbstep {

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

std::string FormatNumber(ValueType type, double v);

/// Converts a numeric value to a variable's type (MBDyn casts: integer truncates toward zero,
/// bool is 0 or 1).
double ConvertNumber(ValueType to, double v);

inline bool IsIntegral(ValueType t) { return t == ValueType::kInteger || t == ValueType::kBool; }

}  // namespace detail

}  // namespace mbstep
