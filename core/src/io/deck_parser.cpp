// mbstep — the concrete DeckInput (equations (1)-(4) of deck_parser.hpp).
#include "deck_parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>

#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

namespace mbstep::detail {

namespace {

// An argument's name for messages, `what` + suffix + one or two 1-based indices
// ("position, component 2", "orientation, element 13"): built once per vector or matrix and
// its index digits replaced in place, instead of a new string per component.
class IndexedName {
  public:
    IndexedName(std::string_view what, std::string_view suffix, int indices) : s_(what) {
        s_ += suffix;
        s_.append(static_cast<std::size_t>(indices), '1');
    }
    const std::string& operator()(int i) {
        s_.back() = static_cast<char>('1' + i);
        return s_;
    }
    const std::string& operator()(int i, int j) {
        s_[s_.size() - 2] = static_cast<char>('1' + i);
        s_.back() = static_cast<char>('1' + j);
        return s_;
    }

  private:
    std::string s_;
};

constexpr int kMaxIncludeDepth = 32;
/// Deepest nesting of drive callers inside drive callers (`drive, g, h`; `array`).
constexpr int kMaxDriveDepth = 100;
/// Largest deck or include file read (MBDyn has none; decks are kilobytes to a few megabytes).
constexpr std::uintmax_t kMaxDeckFileBytes = std::uintmax_t{256} << 20;
/// Orthogonality tolerance of `matr` orientations: max |R^T R - I|.
constexpr double kOrthogonalityTolerance = 1e-6;

std::string Join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::string Format(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

/// An integral value with all its digits (4294967297, not 4.29497e+09).
std::string FormatIntegral(double v) {
    if (std::abs(v) >= 1e18) return Format(v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

}  // namespace

DeckParser::DeckParser(const Registry& registry, SymbolTable& symbols, Model& model,
                       std::vector<std::string>& warnings)
    : registry_(registry), symbols_(symbols), model_(model), warnings_(warnings) {}

// ---------------------------------------------------------------------------------------------
// Sources

void DeckParser::PushFile(const std::string& path, const SourceLocation* from) {
    if (static_cast<int>(stack_.size()) >= kMaxIncludeDepth)
        Fail(*from, "include files nested too deeply (recursive include?)");
    // An include must name a regular file: a device (/dev/zero) would be read without end,
    // a directory reads as nothing. The size cap bounds the memory of one file.
    auto fail = [&](const std::string& message) {
        if (from) Fail(*from, "include file '" + path + "': " + message);
        throw DeckError(SourceLocation{path, 0, 0}, "deck file: " + message);
    };
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        if (from) Fail(*from, "cannot open include file '" + path + "'");
        throw DeckError(SourceLocation{path, 0, 0}, "cannot open deck file");
    }
    if (!fs::is_regular_file(st)) {
        const char* kind = fs::is_directory(st)        ? "a directory"
                           : fs::is_character_file(st) ? "a character device"
                           : fs::is_block_file(st)     ? "a block device"
                           : fs::is_fifo(st)           ? "a pipe"
                           : fs::is_socket(st)         ? "a socket"
                                                       : "not a regular file";
        fail(std::string("not a regular file (") + kind + ")");
    }
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > kMaxDeckFileBytes)
        fail("larger than the " + std::to_string(kMaxDeckFileBytes >> 20) + " MiB limit (" +
             std::to_string(size) + " bytes)");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (from) Fail(*from, "cannot open include file '" + path + "'");
        throw DeckError(SourceLocation{path, 0, 0}, "cannot open deck file");
    }
    // Read in chunks, stopping past the cap (the file may grow after its size was taken).
    std::string text;
    text.reserve(static_cast<std::size_t>(ec ? 0 : std::min(size, kMaxDeckFileBytes)));
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxDeckFileBytes)
            fail("larger than the " + std::to_string(kMaxDeckFileBytes >> 20) + " MiB limit");
    }
    PushText(std::move(text), path);
}

void DeckParser::PushText(std::string text, std::string name) {
    sources_.push_back(MakeSource(std::move(name), std::move(text)));
    stack_.push_back(Cursor{sources_.back().get(), 0});
}

bool DeckParser::AtEnd() {
    for (;;) {
        SkipSpace();
        if (pos() < text().size()) return false;
        if (stack_.size() == 1) return true;
        stack_.pop_back();
    }
}

SourceLocation DeckParser::EndLocation() const {
    const DeckSource& root = *stack_.front().source;
    return root.Location(root.text.size());
}

std::string DeckParser::CurrentDirectory() const {
    return std::filesystem::path(cursor().source->path).parent_path().string();
}

void DeckParser::SkipSpace() {
    std::string_view t = text();
    std::size_t& p = pos();
    while (p < t.size() && IsSpaceChar(t[p])) ++p;
}

char DeckParser::Peek() {
    SkipSpace();
    return pos() < text().size() ? text()[pos()] : '\0';
}

std::size_t DeckParser::Mark() const {
    std::string_view t = text();
    std::size_t p = cursor().pos;
    while (p < t.size() && IsSpaceChar(t[p])) ++p;
    return p;
}

SourceLocation DeckParser::Where() const { return LocationAt(Mark()); }

std::string DeckParser::NextToken() { return DescribeToken(text(), pos()); }

void DeckParser::Fail(const SourceLocation& where, const std::string& message) const {
    throw DeckError(where, message);
}

void DeckParser::Warn(const SourceLocation& where, const std::string& message) const {
    warnings_.push_back(where.ToString() + ": warning: " + message);
}

// ---------------------------------------------------------------------------------------------
// Statements and delimiters

std::string DeckParser::ReadStatementKeyword(SourceLocation* where, bool* has_args) {
    SkipSpace();
    *where = Where();
    std::string_view t = text();
    std::size_t p = pos();
    const std::size_t start = p;
    while (p < t.size() &&
           (IsWordChar(t[p]) || t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || t[p] == '\n'))
        ++p;
    const std::string keyword = CollapseSpaces(t.substr(start, p - start));
    if (keyword.empty() || !IsAlphaChar(keyword[0]))
        Fail(*where, "expected a statement keyword, got " + DescribeToken(t, start));
    if (p < t.size() && t[p] == ':') {
        *has_args = true;
        pos() = p + 1;
    } else if (p < t.size() && t[p] == ';') {
        *has_args = false;
        pos() = p;
    } else {
        Fail(LocationAt(p),
             "expected ':' or ';' after '" + keyword + "', got " + DescribeToken(t, p));
    }
    return keyword;
}

void DeckParser::EndStatement(const std::string& statement) {
    const char c = Peek();
    if (c == ';') {
        ++pos();
        return;
    }
    if (c == '\0') Fail(Where(), "expected ';' at the end of '" + statement + "', got end of file");
    Fail(Where(), "unexpected argument " + NextToken() + " in '" + statement + "'; expected ';'");
}

void DeckParser::SkipArguments() {
    std::string_view t = text();
    std::size_t& p = pos();
    while (p < t.size() && t[p] != ';') {
        if (t[p] == '"') {
            std::size_t end = 0;
            DecodeString(t, p, &end, nullptr);
            p = end == std::string::npos ? t.size() : end + 1;
        } else {
            ++p;
        }
    }
}

std::string DeckParser::RestOfStatement() {
    const std::size_t start = pos();
    SkipArguments();
    const std::size_t end = pos();
    pos() = start;
    return CollapseSpaces(text().substr(start, end - start));
}

bool DeckParser::DelimiterAfter(std::size_t p) const {
    std::string_view t = text();
    while (p < t.size() && IsSpaceChar(t[p])) ++p;
    return p >= t.size() || t[p] == ',' || t[p] == ';';
}

void DeckParser::FinishArg(std::string_view what) {
    const char c = Peek();
    if (c == ';' || c == '\0') return;
    if (c != ',')
        Fail(Where(), "expected ',' or ';' after " + std::string(what) + ", got " + NextToken());
    ++pos();
    if (Peek() == ';') Fail(Where(), "expected an argument after ',', got ';'");
}

bool DeckParser::HasArg() {
    const char c = Peek();
    return c != ';' && c != '\0';
}

bool DeckParser::LooksLikeKeyword(std::string_view kw) const {
    std::string_view t = text();
    std::size_t p = cursor().pos;
    while (p < t.size() && IsSpaceChar(t[p])) ++p;
    const std::size_t end = MatchKeyword(t, p, kw);
    return end != std::string_view::npos && DelimiterAfter(end);
}

bool DeckParser::LooksLikeKeywordPair(std::string_view kw, std::string_view after) const {
    std::string_view t = text();
    std::size_t p = cursor().pos;
    while (p < t.size() && IsSpaceChar(t[p])) ++p;
    std::size_t end = MatchKeyword(t, p, kw);
    if (end == std::string_view::npos) return false;
    while (end < t.size() && IsSpaceChar(t[end])) ++end;
    if (end >= t.size() || t[end] != ',') return false;
    ++end;
    while (end < t.size() && IsSpaceChar(t[end])) ++end;
    const std::size_t e2 = MatchKeyword(t, end, after);
    return e2 != std::string_view::npos && DelimiterAfter(e2);
}

bool DeckParser::IsKeyword(std::string_view kw) {
    SkipSpace();
    const std::size_t end = MatchKeyword(text(), pos(), kw);
    if (end == std::string_view::npos || !DelimiterAfter(end)) return false;
    pos() = end;
    FinishArg("'" + std::string(kw) + "'");
    return true;
}

int DeckParser::MatchOneOf(const std::vector<std::string>& names) {
    int best = -1;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!LooksLikeKeyword(names[i])) continue;
        if (best < 0 || names[i].size() > names[best].size()) best = static_cast<int>(i);
    }
    if (best >= 0) IsKeyword(names[best]);
    return best;
}

std::string DeckParser::GetKeyword(std::string_view what,
                                   const std::vector<std::string>& accepted) {
    const SourceLocation at = Where();
    const int i = MatchOneOf(accepted);
    if (i < 0)
        Fail(at, "expected " + std::string(what) + " (one of: " + Join(accepted) + "), got " +
                     NextToken());
    return accepted[i];
}

// ---------------------------------------------------------------------------------------------
// Scalars

namespace {

// A plain decimal literal ([-]digits[.digits][e[+-]digits]) that is the whole argument: its
// value as the expression parser would compute it (std::from_chars rounds correctly, as strtod
// does), without building an expression. False for anything else, left to the parser.
bool PlainNumber(std::string_view t, std::size_t start, double* value, std::size_t* end) {
    std::size_t p = start;
    if (p < t.size() && t[p] == '-') ++p;
    if (p >= t.size() || !(IsDigitChar(t[p]) || t[p] == '.')) return false;
    while (p < t.size() && (IsDigitChar(t[p]) || t[p] == '.' || t[p] == 'e' || t[p] == 'E' ||
                            ((t[p] == '+' || t[p] == '-') && (t[p - 1] == 'e' || t[p - 1] == 'E'))))
        ++p;
    const auto r = std::from_chars(t.data() + start, t.data() + p, *value);
    if (r.ec != std::errc() || r.ptr != t.data() + p || !std::isfinite(*value)) return false;
    *end = p;
    return true;
}

}  // namespace

Value DeckParser::GetValue(std::string_view what, const char* expected) {
    SkipSpace();
    const std::size_t start = pos();
    auto head = [&] {
        return "expected " + std::string(expected) + " (" + std::string(what) + ")";
    };
    const char c = Peek();
    if (c == ';' || c == ',' || c == '\0') Fail(Where(), head() + ", got " + NextToken());
    std::size_t p = start;
    Value v;
    if (PlainNumber(text(), start, &v.number, &p) && DelimiterAfter(p)) {
        pos() = p;
        return v;
    }
    // A whole argument that is one variable's name (the generated chain's M, JX, JY): the
    // variable's value, as the expression `name` evaluates to it (Op::kVar), without building
    // the expression. Names the expression parser reads otherwise (Time, declaration words),
    // undefined, uninitialized and string variables take the general path.
    if (IsAlphaChar(c) || c == '_') {
        std::string_view t = text();
        std::size_t e = start + 1;
        while (e < t.size() && (IsAlphaChar(t[e]) || (t[e] >= '0' && t[e] <= '9') || t[e] == '_'))
            ++e;
        const std::string_view name = t.substr(start, e - start);
        if (DelimiterAfter(e) && name != "Time" && name != "const" && name != "ifndef" &&
            name != "bool" && name != "integer" && name != "real" && name != "string") {
            const std::shared_ptr<Variable> var = symbols_.Find(std::string(name));
            if (var && var->initialized && var->type != ValueType::kString &&
                std::isfinite(var->value.number)) {
                v.type = var->type;
                v.number = var->value.number;
                pos() = e;
                return v;
            }
        }
    }
    p = start;
    try {
        ExpressionOptions options;
        options.allow_side_effects = true;
        const Expression e = Expression::Parse(text(), p, symbols_, options);
        v = e.Evaluate(evaluation_time_);
    } catch (const ExpressionError& err) {
        if (err.offset() == start)
            Fail(LocationAt(start),
                 head() + ", got " + DescribeToken(text(), start) + " (" + err.message() + ")");
        Fail(LocationAt(err.offset()), err.message() + " (in " + std::string(what) + ")");
    }
    if (v.is_numeric() && !std::isfinite(v.number))
        Fail(LocationAt(start),
             "non-finite value (" + Format(v.number) + ") for " + std::string(what));
    pos() = p;
    return v;
}

double DeckParser::GetReal(std::string_view what) {
    const std::size_t at = Mark();
    const Value v = GetValue(what, "a real number");
    if (!v.is_numeric())
        Fail(LocationAt(at), "expected a real number (" + std::string(what) + "), got a string");
    FinishArg(what);
    return v.number;
}

double DeckParser::ReadIntegral(std::string_view what, std::size_t at) {
    const Value v = GetValue(what, "an integer");
    if (!v.is_numeric())
        Fail(LocationAt(at), "expected an integer (" + std::string(what) + "), got a string");
    if (v.number != std::trunc(v.number))
        Fail(LocationAt(at),
             "expected an integer (" + std::string(what) + "), got " + Format(v.number));
    return v.number;
}

long DeckParser::GetInt(std::string_view what) {
    return GetInt(what, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
}

long DeckParser::GetInt(std::string_view what, int min, int max) {
    const std::size_t at = Mark();
    const double v = ReadIntegral(what, at);
    // Compared as doubles: every int is exact, and no out-of-range value is ever converted.
    if (v < min || v > max)
        Fail(LocationAt(at), std::string(what) + " must be in " + std::to_string(min) + ".." +
                                 std::to_string(max) + ", got " + FormatIntegral(v));
    FinishArg(what);
    return static_cast<long>(v);
}

long DeckParser::GetLabel(std::string_view what) {
    const std::size_t at = Mark();
    const double v = ReadIntegral(what, at);
    if (v < 0)
        Fail(LocationAt(at),
             "a label must be non-negative (" + std::string(what) + " " + FormatIntegral(v) + ")");
    if (v > std::numeric_limits<int>::max())
        Fail(LocationAt(at), std::string(what) + " must be in 0.." +
                                 std::to_string(std::numeric_limits<int>::max()) + ", got " +
                                 FormatIntegral(v));
    FinishArg(what);
    return static_cast<long>(v);
}

bool DeckParser::GetBool(std::string_view what) {
    if (IsKeyword("yes") || IsKeyword("true")) return true;
    if (IsKeyword("no") || IsKeyword("false")) return false;
    const SourceLocation at = Where();
    const Value v = GetValue(what, "yes, no or a number");
    if (!v.is_numeric()) Fail(at, "expected yes or no (" + std::string(what) + "), got a string");
    FinishArg(what);
    return v.number != 0.0;
}

std::string DeckParser::GetString(std::string_view what) {
    const SourceLocation at = Where();
    const Value v = GetValue(what, "a string in double quotes");
    if (v.is_numeric())
        Fail(at, "expected a string in double quotes (" + std::string(what) + "), got a number");
    FinishArg(what);
    return v.text;
}

std::shared_ptr<const Expression> DeckParser::GetExpression(std::string_view what) {
    return GetExpression(what, {}, nullptr);
}

std::shared_ptr<const Expression> DeckParser::GetExpression(
    std::string_view what, const std::vector<std::shared_ptr<Variable>>& locals,
    std::function<SourceLocation(std::size_t)>* locate) {
    SkipSpace();
    const std::size_t open = pos();
    if (Peek() != '"')
        Fail(Where(),
             "expected " + std::string(what) + " as a string in double quotes, got " + NextToken());
    std::size_t end = 0;
    std::vector<std::size_t> map;
    const std::string body = DecodeString(text(), open, &end, &map);
    if (end == std::string::npos) Fail(Where(), "unterminated string");
    SymbolTable scope = symbols_;  // shares the deck's variables
    for (const auto& v : locals)
        if (!scope.Add(v))
            Fail(LocationAt(open), "'" + v->name + "' (in " + std::string(what) +
                                       ") is the name of a deck variable; choose another name");
    if (locate) {  // the locations themselves: the deck's sources are gone when it runs
        auto where = std::make_shared<std::vector<SourceLocation>>();
        for (std::size_t m : map) where->push_back(LocationAt(m));
        where->push_back(LocationAt(end));
        *locate = [where](std::size_t offset) {
            return (*where)[std::min(offset, where->size() - 1)];
        };
    }
    std::shared_ptr<const Expression> e;
    try {
        e = std::make_shared<const Expression>(Expression::Compile(body, scope));
    } catch (const ExpressionError& err) {
        const std::size_t at = err.offset() < map.size() ? map[err.offset()] : end;
        Fail(LocationAt(at), err.message() + " (in " + std::string(what) + ")");
    }
    if (e->type() == ValueType::kString)
        Fail(LocationAt(open),
             "expected a numeric expression (" + std::string(what) + "), got a string");
    pos() = end + 1;
    FinishArg(what);
    return e;
}

void DeckParser::ReadSet() {
    SkipSpace();
    const std::size_t start = pos();
    if (Peek() == '[')
        Fail(Where(), "plugin variables (set: [dof|node|element, ...]) are not supported");
    std::size_t p = start;
    try {
        ExpressionOptions options;
        options.allow_side_effects = true;
        const Expression e = Expression::Parse(text(), p, symbols_, options);
        const Value v = e.Evaluate(evaluation_time_);
        if (v.is_numeric() && !std::isfinite(v.number))
            Fail(LocationAt(start), "non-finite value (" + Format(v.number) + ") in set:");
    } catch (const ExpressionError& err) {
        Fail(LocationAt(err.offset()), err.message());
    }
    pos() = p;
}

// ---------------------------------------------------------------------------------------------
// Vectors and matrices (MBDyn manual, "Higher-Order Math Structures")

Vec3 DeckParser::GetVec3(std::string_view what) {
    if (IsKeyword("null") || IsKeyword("default")) return Vec3::Zero();
    const std::string w(what);
    Vec3 v;
    IndexedName component(w, ", component ", 1);
    for (int i = 0; i < 3; ++i) v[i] = GetReal(component(i));
    // `scale, s` multiplies a non-null vector; `scale, default` is a node option instead.
    if (LooksLikeKeyword("scale") && !LooksLikeKeywordPair("scale", "default")) {
        IsKeyword("scale");
        v *= GetReal(w + ", scale factor");
    }
    return v;
}

Mat3 DeckParser::GetMat3(std::string_view what) {
    const std::string w(what);
    Mat3 m = Mat3::Zero();
    if (IsKeyword("null")) return m;
    if (IsKeyword("eye")) {
        m.setIdentity();
    } else if (IsKeyword("diag")) {
        IndexedName diagonal(w, ", diagonal ", 1);
        for (int i = 0; i < 3; ++i) m(i, i) = GetReal(diagonal(i));
    } else if (IsKeyword("sym")) {
        IndexedName element(w, ", element ", 2);
        for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j) m(i, j) = m(j, i) = GetReal(element(i, j));
    } else if (IsKeyword("skew")) {
        Vec3 v;
        IndexedName component(w, ", component ", 1);
        for (int i = 0; i < 3; ++i) v[i] = GetReal(component(i));
        m = Skew(v);
    } else {
        IsKeyword("matr");
        IndexedName element(w, ", element ", 2);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m(i, j) = GetReal(element(i, j));
    }
    if (IsKeyword("scale")) m *= GetReal(w + ", scale factor");
    return m;
}

// ---------------------------------------------------------------------------------------------
// Frames: equations (1)-(4) of the header

FrameState DeckParser::ReadFramePrefix(const FrameState& rf) {
    if (!IsKeyword("reference")) return rf;
    if (IsKeyword("global")) return FrameState{};
    if (IsKeyword("node") || IsKeyword("local")) return rf;
    const SourceLocation at = Where();
    if (IsKeyword("other node") || IsKeyword("other position") || IsKeyword("other orientation"))
        Fail(at, "'reference, other ...' is only valid for the second node of a joint");
    const long label = GetInt("reference label (global, node, local or a reference label)");
    auto it = references_.find(label);
    if (it == references_.end()) Fail(at, "undefined reference " + std::to_string(label));
    return it->second.frame;
}

Vec3 DeckParser::GetPosition(const FrameState& rf, std::string_view what) {
    const FrameState f = ReadFramePrefix(rf);
    const Vec3 x = f.x + f.R * GetVec3(what);  // (1)
    return rf.R.transpose() * (x - rf.x);
}

Vec3 DeckParser::GetDirection(const FrameState& rf, std::string_view what) {
    const FrameState f = ReadFramePrefix(rf);
    return rf.R.transpose() * (f.R * GetVec3(what));
}

Mat3 DeckParser::GetOrientation(const FrameState& rf, std::string_view what) {
    const FrameState f = ReadFramePrefix(rf);
    return rf.R.transpose() * (f.R * ReadOrientationBody(what));  // (2)
}

Vec3 DeckParser::GetVelocity(const FrameState& rf, const Vec3& x_global, std::string_view what) {
    const FrameState f = ReadFramePrefix(rf);
    return f.v + f.w.cross(x_global - f.x) + f.R * GetVec3(what);  // (3)
}

Vec3 DeckParser::GetAngularVelocity(const FrameState& rf, std::string_view what) {
    const FrameState f = ReadFramePrefix(rf);
    return f.w + f.R * GetVec3(what);  // (4)
}

double DeckParser::GetAngle(std::string_view what, bool degrees) {
    const double a = GetReal(what);
    return degrees ? a * M_PI / 180.0 : a;
}

// MBDyn manual, "Orientation Matrix": eye | matr, 9 values | euler[123|313|321], [degrees,]
// a1, a2, a3 | vector, v | i, v_i, j, v_j | guess. Euler angles are in radians unless
// `degrees` is given; euler123: R = Rx(a1) Ry(a2) Rz(a3); euler313: R = Rz(a1) Rx(a2) Rz(a3);
// euler321: (a1, a2, a3) are the x, y, z angles of R = Rz(a3) Ry(a2) Rx(a1), as written by
// Euler321FromRotation (math/rotation.hpp) in the .mov file.
Mat3 DeckParser::ReadOrientationBody(std::string_view what) {
    const std::string w(what);
    const SourceLocation at = Where();
    if (IsKeyword("eye")) return Mat3::Identity();
    if (LooksLikeKeyword("null"))
        Fail(at, "'null' is not an orientation (a zero matrix is not orthogonal); use 'eye'");
    if (IsKeyword("matr")) {
        Mat3 R;
        IndexedName element(w, ", element ", 2);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) R(i, j) = GetReal(element(i, j));
        const double err = (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff();
        if (err > kOrthogonalityTolerance)
            Fail(at, "non-orthogonal orientation matrix (max |R^T R - I| = " + Format(err) +
                         ", tolerance " + Format(kOrthogonalityTolerance) + ")");
        if (R.determinant() < 0.0) Fail(at, "orientation matrix is a reflection (det R < 0)");
        return R;
    }
    const int euler = MatchOneOf({"euler", "euler123", "euler313", "euler321"});
    if (euler >= 0) {
        const bool degrees = IsKeyword("degrees");
        const double a1 = GetAngle(w + ", angle 1", degrees);
        const double a2 = GetAngle(w + ", angle 2", degrees);
        const double a3 = GetAngle(w + ", angle 3", degrees);
        if (euler == 2) return RotationFromEuler313(Vec3(a1, a2, a3));
        if (euler == 3) return RotationFromEuler321(Vec3(a1, a2, a3));
        return RotationFromEuler123(Vec3(a1, a2, a3));
    }
    if (IsKeyword("vector") || IsKeyword("orientation vector")) return so3::Exp(GetVec3(w));

    // Two-vector form: vector i exact, vector j orthogonalised, the third by cross product.
    std::string_view t = text();
    if (pos() < t.size() && IsWordChar(t[pos()]) && !IsDigitChar(t[pos()])) {
        std::size_t p = pos();
        while (p < t.size() && IsWordChar(t[p])) ++p;
        const std::string word(t.substr(pos(), p - pos()));
        if (!symbols_.Find(word) && word != "Time")
            Fail(at, "expected an orientation (" + w +
                         "): eye, matr, euler, euler123, euler313, "
                         "euler321, vector, or i, v_i, j, v_j with axis indices 1, 2, 3; got '" +
                         word + "'");
    }
    const SourceLocation at_i = Where();
    const long i = GetInt(w + ", index of the first axis (1, 2 or 3)");
    if (i < 1 || i > 3) Fail(at_i, "axis index must be 1, 2 or 3, got " + std::to_string(i));
    const SourceLocation at_vi = Where();
    Vec3 vi = GetVec3(w + ", axis " + std::to_string(i));
    const SourceLocation at_j = Where();
    const long j = GetInt(w + ", index of the second axis (1, 2 or 3)");
    if (j < 1 || j > 3 || j == i)
        Fail(at_j, "second axis index must be 1, 2 or 3 and differ from " + std::to_string(i) +
                       ", got " + std::to_string(j));
    if (vi.norm() == 0.0) Fail(at_vi, "zero-length axis " + std::to_string(i) + " in orientation");
    const SourceLocation at_vj = Where();
    Vec3 vj;
    if (IsKeyword("guess")) {
        // MBDyn: 1 at the smallest component of v_i, -v_min/v_max at the largest, 0 elsewhere.
        int kmin = 0, kmax = 0;
        vi.cwiseAbs().minCoeff(&kmin);
        vi.cwiseAbs().maxCoeff(&kmax);
        if (kmin == kmax) kmin = (kmax + 1) % 3;
        vj.setZero();
        vj[kmin] = 1.0;
        vj[kmax] = -vi[kmin] / vi[kmax];
    } else {
        vj = GetVec3(w + ", axis " + std::to_string(j));
    }
    const int k = 6 - static_cast<int>(i) - static_cast<int>(j);
    const Vec3 ei = vi.normalized();
    // (i, j, k) cyclic: e_k = e_i x e_j; anti-cyclic: e_k = e_j x e_i.
    const bool cyclic = (j - i + 3) % 3 == 1;
    Vec3 ek = cyclic ? ei.cross(vj) : vj.cross(ei);
    if (ek.norm() <= 1e-12 * std::max(1.0, vj.norm()))
        Fail(at_vj, "axis " + std::to_string(j) + " is zero or parallel to axis " +
                        std::to_string(i) + " in orientation");
    ek.normalize();
    const Vec3 ej = cyclic ? ek.cross(ei) : ei.cross(ek);
    Mat3 R;
    R.col(i - 1) = ei;
    R.col(j - 1) = ej;
    R.col(k - 1) = ek;
    return R;
}

// ---------------------------------------------------------------------------------------------
// Drives, nodes, gravity

DrivePtr DeckParser::GetDrive(std::string_view what) {
    SkipSpace();
    const SourceLocation at = Where();
    // Drives nest (`drive, g, h`, `array, n, ...`): each level is a recursion of the reader.
    struct DepthGuard {
        int& depth;
        ~DepthGuard() { --depth; }
    } guard{++drive_depth_};
    if (drive_depth_ > kMaxDriveDepth)
        Fail(at, "drive callers nested too deeply (at most " + std::to_string(kMaxDriveDepth) +
                     " levels)");
    if (IsKeyword("reference")) {
        const SourceLocation at_label = Where();
        const long label = GetInt("drive caller label");
        auto it = drives_.find(label);
        if (it == drives_.end()) Fail(at_label, "undefined drive caller " + std::to_string(label));
        return it->second.drive;
    }
    // A registered drive keyword (longest match).
    const DriveDescriptor* best = nullptr;
    {
        const std::string* longest = nullptr;
        const std::vector<RegisteredName> names = registry_.Names(PluginKind::kDrive);
        for (const RegisteredName& d : names)
            if (LooksLikeKeyword(d.name) && (!longest || d.name.size() > longest->size()))
                longest = &d.name;
        if (longest) best = registry_.FindDrive(*longest);
    }
    if (best) {
        IsKeyword(best->name);
        DrivePtr drive;
        try {
            drive = best->read(*this);
        } catch (const DeckError&) {
            throw;
        } catch (const std::exception& e) {
            Fail(at, "in drive '" + best->name + "': " + e.what());
        }
        if (!drive) Fail(at, "drive '" + best->name + "' could not be created");
        return drive;
    }
    // Otherwise a constant expression; an unknown word is an unknown drive keyword.
    std::string_view t = text();
    if (pos() < t.size() && IsAlphaChar(t[pos()])) {
        std::size_t p = pos();
        while (p < t.size() && IsWordChar(t[p])) ++p;
        const std::string word(t.substr(pos(), p - pos()));
        std::size_t q = p;
        while (q < t.size() && IsSpaceChar(t[q])) ++q;
        const bool call = q < t.size() && (t[q] == '(' || t[q] == ':');
        if (!call && !symbols_.Find(word) && word != "Time") {
            std::vector<std::string> names;
            for (const RegisteredName& d : registry_.Names(PluginKind::kDrive))
                names.push_back(d.name);
            std::sort(names.begin(), names.end());
            Fail(at,
                 "unknown drive '" + word + "' (" + std::string(what) + "); accepted: " +
                     (names.empty() ? std::string("no drive plugins are loaded") : Join(names)) +
                     ", reference, or a constant expression");
        }
    }
    return std::make_shared<ConstDrive>(GetReal(what));
}

ConstitutiveLawPtr DeckParser::GetConstitutiveLaw(int dimension, std::string_view what) {
    SkipSpace();
    const SourceLocation at = Where();
    const std::string dim = std::to_string(dimension);
    if (IsKeyword("reference")) {
        const SourceLocation at_label = Where();
        const long label = GetInt("constitutive law label");
        auto it = laws_.find(label);
        if (it == laws_.end())
            Fail(at_label, "undefined constitutive law " + std::to_string(label) +
                               " (a 'constitutive law:' statement must define it before use)");
        if (it->second.law->dimension() != dimension)
            Fail(at_label, "constitutive law " + std::to_string(label) + " has dimension " +
                               std::to_string(it->second.law->dimension()) + " (defined at " +
                               it->second.where.ToString() + "); " + std::string(what) +
                               " needs dimension " + dim);
        return it->second.law;
    }
    // A registered law keyword (longest match) defined for this dimension.
    const ConstitutiveLawDescriptor* best = nullptr;
    {
        const std::string* longest = nullptr;
        const std::vector<RegisteredName> names = registry_.Names(PluginKind::kConstitutiveLaw);
        for (const RegisteredName& d : names)
            if (LooksLikeKeyword(d.name) && (!longest || d.name.size() > longest->size()))
                longest = &d.name;
        if (longest) best = registry_.FindConstitutiveLaw(*longest);
    }
    if (!best) {
        std::vector<std::string> names;
        for (const ConstitutiveLawDescriptor& d : registry_.constitutive_laws())
            if (std::find(d.dimensions.begin(), d.dimensions.end(), dimension) !=
                d.dimensions.end())
                names.push_back(d.name);
        std::sort(names.begin(), names.end());
        Fail(at, "expected constitutive law (" + std::string(what) + ", dimension " + dim +
                     "), got " + NextToken() + "; accepted: " +
                     (names.empty() ? std::string("none (no constitutive law plugins are loaded)")
                                    : Join(names)) +
                     ", or reference, <label>");
    }
    if (std::find(best->dimensions.begin(), best->dimensions.end(), dimension) ==
        best->dimensions.end())
        Fail(at, "constitutive law '" + best->name + "' is not defined for dimension " + dim +
                     " (" + std::string(what) + ")");
    IsKeyword(best->name);
    ConstitutiveLawPtr law;
    try {
        law = best->read(*this, dimension);
    } catch (const DeckError&) {
        throw;
    } catch (const std::exception& e) {
        Fail(at, "in constitutive law '" + best->name + "': " + e.what());
    }
    if (!law || law->dimension() != dimension)
        Fail(at, "constitutive law '" + best->name + "' could not be created");
    return law;
}

int DeckParser::GetAbstractNode(std::string_view what) {
    const SourceLocation at = Where();
    const long label = GetInt(what);
    const int index =
        label >= 0 && label <= 2147483647L ? model_.FindAbstractNode(static_cast<int>(label)) : -1;
    if (index < 0) Fail(at, "undefined abstract node " + std::to_string(label));
    return index;
}

const AbstractNode& DeckParser::abstract_node(int index) const {
    return model_.abstract_nodes().at(static_cast<std::size_t>(index));
}

int DeckParser::GetNode(std::string_view what) {
    const SourceLocation at = Where();
    const long label = GetInt(what);
    const int index = model_.FindNode(static_cast<int>(label));
    if (index < 0 && label >= 0 && label <= 2147483647L) {
        const int dummy = model_.FindDummyNode(static_cast<int>(label));
        if (dummy >= 0)
            Fail(at, "structural node " + std::to_string(label) +
                         " is a dummy node: elements cannot be connected to dummy nodes (use its "
                         "base node " +
                         std::to_string(model_.nodes()[model_.dummy_nodes()[dummy].base].label) +
                         " with an offset)");
    }
    if (index < 0 || label < 0 || label > 2147483647L)
        Fail(at, "undefined structural node " + std::to_string(label));
    return index;
}

const StructuralNode& DeckParser::node(int index) const { return model_.nodes().at(index); }

void DeckParser::SetGravity(GravityField g) {
    const SourceLocation at = Where();
    if (gravity_set_) Fail(at, "gravity is already defined (at " + gravity_where_.ToString() + ")");
    if (!g.direction.allFinite()) Fail(at, "non-finite gravity direction");
    gravity_set_ = true;
    gravity_where_ = at;
    model_.SetGravity(std::move(g));
}

void DeckParser::DefineReference(long label, const FrameState& frame, const SourceLocation& where) {
    auto it = references_.find(label);
    if (it != references_.end())
        Fail(where, "reference " + std::to_string(label) + " is already defined (at " +
                        it->second.where.ToString() + ")");
    references_[label] = Reference{frame, where};
}

const FrameState* DeckParser::FindReference(long label) const {
    auto it = references_.find(label);
    return it == references_.end() ? nullptr : &it->second.frame;
}

void DeckParser::DefineDrive(long label, DrivePtr drive, const SourceLocation& where) {
    auto it = drives_.find(label);
    if (it != drives_.end())
        Fail(where, "drive caller " + std::to_string(label) + " is already defined (at " +
                        it->second.where.ToString() + ")");
    drives_[label] = NamedDrive{std::move(drive), where};
}

void DeckParser::DefineConstitutiveLaw(long label, ConstitutiveLawPtr law,
                                       const SourceLocation& where) {
    auto it = laws_.find(label);
    if (it != laws_.end())
        Fail(where, "constitutive law " + std::to_string(label) + " is already defined (at " +
                        it->second.where.ToString() + ")");
    laws_[label] = NamedLaw{std::move(law), where};
}

}  // namespace mbstep::detail
