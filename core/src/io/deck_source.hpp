// mbstep — deck source files for the reader: comments blanked out, offsets mapped to
// `file:line:column`, and the low-level scanning helpers shared by the deck parser.
//
// MBDyn manual (input/general.tex, input/intro): `#` starts a comment to the end of the line,
// `/* ... */` is a block comment, `#beginescape ... #endescape` is skipped. Comments are
// replaced by spaces (newlines kept), so every offset of the blanked text is the offset of
// the same character in the file and columns stay exact.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mbstep/common.hpp"

namespace mbstep::detail {

struct DeckSource {
    std::string path;  ///< as given (root) or resolved relative to the including file
    std::string text;  ///< the file with comments blanked
    std::vector<std::size_t> line_starts;

    /// 1-based line and column of an offset (offsets past the end map to the end).
    SourceLocation Location(std::size_t offset) const;

  private:
    // The line of the last lookup: the reader asks for locations moving forward, mostly on the
    // same or the next line, so a lookup starts there before a binary search of line_starts.
    mutable std::size_t last_line_{1};
};

/// Builds a source from raw text; throws DeckError for an unterminated string, block comment
/// or #beginescape.
std::unique_ptr<DeckSource> MakeSource(std::string path, std::string text);

/// If text at pos starts with keyword kw (ASCII case-insensitive; a space in kw matches any
/// amount of white space, including none) and the keyword ends at a word boundary, returns
/// the offset just past it; otherwise std::string_view::npos.
std::size_t MatchKeyword(std::string_view text, std::size_t pos, std::string_view kw);

/// Lower case, white space removed: the form in which statement keywords are compared
/// ("control data" == "Control  Data" == "controldata").
std::string KeywordKey(std::string_view s);
/// key == KeywordKey(keyword), without building the latter.
bool IsKeywordKey(std::string_view key, std::string_view keyword);

/// Lower case, runs of white space collapsed to one space, trimmed.
std::string CollapseSpaces(std::string_view s);

bool IsWordChar(char c);
/// The C locale's character classes, inline (the reader tests every character of a deck; the
/// libc calls were a few per cent of reading a large one).
inline bool IsSpaceChar(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
inline bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlphaChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// Decodes the double-quoted string whose opening quote is at text[open]; map[i] is the
/// offset in text of decoded character i (plus one entry for the closing quote). Escapes
/// (MBDyn manual, "Strings"): \\ \" \<newline> (removed) \<hex pair>. Returns npos in *end
/// if unterminated.
std::string DecodeString(std::string_view text, std::size_t open, std::size_t* end,
                         std::vector<std::size_t>* map);

/// A short, printable description of the token at pos for messages: 'word', 'x' or
/// "end of file".
std::string DescribeToken(std::string_view text, std::size_t pos);

}  // namespace mbstep::detail
