// mbstep — math expressions: the lexer (expression_lexer.cpp) and its tokens. Internal to
// core/src/io: the parser's (expression_parser.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mbstep::detail {

enum class Tok { kEnd, kNumber, kIdent, kString, kPunct };

struct Token {
    Tok kind{Tok::kEnd};
    std::string text;  // identifier / punctuation / decoded string
    double number{0.0};
    bool integer{false};
    std::size_t offset{0};  // first character
    std::size_t end{0};     // one past the last character
};

class Lexer {
  public:
    Lexer(std::string_view s, std::size_t pos) : s_(s), pos_(pos) {}

    Token Next();
    std::size_t pos() const { return pos_; }

  private:
    void LexNumber(Token& t);

    // MBDyn strings: backslash escapes \\, \", \<newline> (eaten) and \<hex pair>.
    void LexString(Token& t);

    std::string_view s_;
    std::size_t pos_;
};

}  // namespace mbstep::detail
