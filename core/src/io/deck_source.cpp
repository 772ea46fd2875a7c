// mbstep — deck sources: comment blanking, line tables and scanning helpers.
#include "deck_source.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace mbstep::detail {

namespace {

// The C locale's isspace and tolower, inline (keywords are compared for every statement).
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void Blank(std::string& text, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && i < text.size(); ++i)
        if (text[i] != '\n') text[i] = ' ';
}

}  // namespace

bool IsWordChar(char c) { return IsAlphaChar(c) || IsDigitChar(c) || c == '_'; }

SourceLocation DeckSource::Location(std::size_t offset) const {
    offset = std::min(offset, text.size());
    // line: the number of line starts <= offset (>= 1), as std::upper_bound gives it.
    const std::size_t n = line_starts.size();
    auto on_line = [&](std::size_t l) {
        return l >= 1 && l <= n && line_starts[l - 1] <= offset &&
               (l == n || offset < line_starts[l]);
    };
    std::size_t line = last_line_;
    if (!on_line(line)) {
        if (on_line(line + 1)) {
            ++line;
        } else {
            auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
            line = static_cast<std::size_t>(it - line_starts.begin());
        }
    }
    last_line_ = line;
    const std::size_t column = offset - line_starts[line - 1] + 1;
    return SourceLocation{path, static_cast<int>(line), static_cast<int>(column)};
}

std::unique_ptr<DeckSource> MakeSource(std::string path, std::string text) {
    auto src = std::make_unique<DeckSource>();
    src->path = std::move(path);
    src->text = std::move(text);
    src->line_starts.push_back(0);
    for (std::size_t i = 0; i < src->text.size(); ++i)
        if (src->text[i] == '\n') src->line_starts.push_back(i + 1);

    // Blank comments left to right, skipping strings (a '#' inside a string is text).
    std::string& s = src->text;
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '"') {
            std::size_t end = 0;
            DecodeString(s, i, &end, nullptr);
            if (end == std::string::npos)
                throw DeckError(src->Location(i), "unterminated string (missing closing '\"')");
            i = end + 1;
        } else if (c == '#') {
            static constexpr std::string_view kBegin = "#beginescape", kEnd = "#endescape";
            std::size_t stop;
            if (std::string_view(s).substr(i, kBegin.size()) == kBegin) {
                const std::size_t close = s.find(kEnd, i + kBegin.size());
                if (close == std::string::npos)
                    throw DeckError(src->Location(i),
                                    "unterminated #beginescape (missing #endescape)");
                stop = s.find('\n', close);
            } else {
                stop = s.find('\n', i);
            }
            if (stop == std::string::npos) stop = s.size();
            Blank(s, i, stop);
            i = stop;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            const std::size_t close = s.find("*/", i + 2);
            if (close == std::string::npos)
                throw DeckError(src->Location(i), "unterminated comment (missing '*/')");
            Blank(s, i, close + 2);
            i = close + 2;
        } else {
            ++i;
        }
    }
    return src;
}

std::size_t MatchKeyword(std::string_view text, std::size_t pos, std::string_view kw) {
    std::size_t p = pos;
    bool any = false;
    for (std::size_t k = 0; k < kw.size(); ++k) {
        if (IsSpace(kw[k])) {
            while (p < text.size() && IsSpace(text[p])) ++p;
            continue;
        }
        if (p >= text.size() || Lower(text[p]) != Lower(kw[k])) return std::string_view::npos;
        ++p;
        any = true;
    }
    if (!any) return std::string_view::npos;
    // Word boundary: "ms" must not match "ms3", "euler" must not match "euler123".
    if (IsWordChar(text[p - 1]) && p < text.size() && IsWordChar(text[p]))
        return std::string_view::npos;
    return p;
}

std::string KeywordKey(std::string_view s) {
    std::string out;
    for (char c : s)
        if (!IsSpace(c)) out.push_back(Lower(c));
    return out;
}

bool IsKeywordKey(std::string_view key, std::string_view keyword) {
    std::size_t k = 0;
    for (char c : keyword) {
        if (IsSpace(c)) continue;
        if (k >= key.size() || key[k] != Lower(c)) return false;
        ++k;
    }
    return k == key.size();
}

std::string CollapseSpaces(std::string_view s) {
    std::string out;
    bool space = false;
    for (char c : s) {
        if (IsSpace(c)) {
            space = !out.empty();
            continue;
        }
        if (space) out.push_back(' ');
        space = false;
        out.push_back(Lower(c));
    }
    return out;
}

std::string DecodeString(std::string_view text, std::size_t open, std::size_t* end,
                         std::vector<std::size_t>* map) {
    std::string out;
    std::size_t p = open + 1;
    for (;;) {
        if (p >= text.size()) {
            *end = std::string::npos;
            return out;
        }
        const char c = text[p];
        if (c == '"') break;
        if (c == '\\' && p + 1 < text.size()) {
            const char d = text[p + 1];
            if (d == '\n') {
                p += 2;
                continue;
            }
            if (map) map->push_back(p);
            if (p + 2 < text.size() && HexValue(d) >= 0 && HexValue(text[p + 2]) >= 0) {
                out.push_back(static_cast<char>(HexValue(d) * 16 + HexValue(text[p + 2])));
                p += 3;
            } else {
                out.push_back(d);
                p += 2;
            }
            continue;
        }
        if (map) map->push_back(p);
        out.push_back(c);
        ++p;
    }
    if (map) map->push_back(p);
    *end = p;
    return out;
}

std::string DescribeToken(std::string_view text, std::size_t pos) {
    while (pos < text.size() && IsSpace(text[pos])) ++pos;
    if (pos >= text.size()) return "end of file";
    const char c = text[pos];
    std::string tok;
    if (IsWordChar(c) || c == '.') {
        // A word, or a phrase of words separated by blanks (a multi-word keyword such as
        // `revolute rotation` is quoted whole).
        std::size_t p = pos, end = pos;
        while (p < text.size() && p - pos < 60) {
            if (IsWordChar(text[p]) || text[p] == '.') {
                ++p;
                end = p;
            } else if (text[p] == ' ' || text[p] == '\t') {
                std::size_t q = p;
                while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
                if (q < text.size() && IsAlphaChar(text[q]) && IsAlphaChar(text[pos]))
                    p = q;
                else
                    break;
            } else {
                break;
            }
        }
        tok = std::string(text.substr(pos, end - pos));
    } else if (c == '"') {
        std::size_t p = pos + 1;
        while (p < text.size() && text[p] != '"' && text[p] != '\n' && p - pos < 40) ++p;
        tok = std::string(text.substr(pos, p - pos + 1));
    } else if (std::isprint(static_cast<unsigned char>(c))) {
        tok = std::string(1, c);
    } else {
        char buf[16];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
        tok = buf;
    }
    return "'" + tok + "'";
}

}  // namespace mbstep::detail
