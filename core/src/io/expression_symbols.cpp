// mbstep — math expressions: value types and values, the symbol table, and text positions
// (grammar and typing rules in io/expression.hpp).
#include <cmath>
#include <cstdio>

#include "expression_tree.hpp"
#include "mbstep/io/expression.hpp"

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

namespace detail {

std::string FormatNumber(ValueType type, double v) {
    char buf[64];
    if (type == ValueType::kReal) {
        std::snprintf(buf, sizeof buf, "%g", v);
    } else {
        std::snprintf(buf, sizeof buf, "%.0f", v);
    }
    return buf;
}

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

}  // namespace detail

namespace {
using detail::ConvertNumber;
using detail::FormatNumber;
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

}  // namespace mbstep
