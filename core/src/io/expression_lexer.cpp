// mbstep — math expressions: the lexer (grammar in io/expression.hpp).
#include "expression_lexer.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

#include "mbstep/io/expression.hpp"

namespace mbstep::detail {

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

Token Lexer::Next() {
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

void Lexer::LexNumber(Token& t) {
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

void Lexer::LexString(Token& t) {
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

}  // namespace mbstep::detail
