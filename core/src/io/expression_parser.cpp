// mbstep — math expressions: the recursive-descent parser and Expression::Parse, Compile
// (grammar and typing rules in io/expression.hpp).
#include <memory>
#include <string>
#include <vector>

#include "expression_lexer.hpp"
#include "expression_tree.hpp"
#include "mbstep/io/expression.hpp"

namespace mbstep {

namespace {

using detail::ExprNode;
using detail::Fn;
using detail::IsIntegral;
using detail::Lexer;
using detail::Op;
using detail::Tok;
using detail::Token;
using NodePtr = std::unique_ptr<ExprNode>;

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

}  // namespace mbstep
