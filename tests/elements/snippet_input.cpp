// mbstep tests — minimal DeckInput over one element statement (snippet_input.hpp).
#include "snippet_input.hpp"

#include <cctype>
#include <cstdlib>

#include "mbstep/math/rotation.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::test {

std::vector<StructuralNode> TestNodes() {
    std::vector<StructuralNode> nodes(3);
    nodes[0].label = 1;
    nodes[0].initial.x = Vec3(0.1, 0.2, 0.3);
    nodes[0].initial.R = RotX(0.3) * RotY(-0.2) * RotZ(0.5);
    nodes[1].label = 2;
    nodes[1].initial.x = Vec3(1.0, -0.5, 0.2);
    nodes[1].initial.R = RotX(-0.4) * RotY(0.1) * RotZ(0.2);
    nodes[2].label = 3;
    nodes[2].kind = NodeKind::kStatic;
    nodes[2].initial.x = Vec3(-0.3, 0.7, 1.1);
    nodes[2].initial.R = RotZ(0.8) * RotX(0.3);
    return nodes;
}

SnippetInput::SnippetInput(const std::string& text, std::vector<StructuralNode> nodes)
    : nodes_(std::move(nodes)) {
    const size_t colon = text.find(':');
    statement_ = Registry::Normalize(text.substr(0, colon));
    size_t start = colon + 1;
    const size_t end = text.find(';', start);
    end_column_ = static_cast<int>(end) + 1;
    while (start <= end) {
        size_t comma = text.find(',', start);
        if (comma == std::string::npos || comma > end) comma = end;
        size_t b = start;
        while (b < comma && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
        Arg a{Registry::Normalize(text.substr(start, comma - start)), static_cast<int>(b) + 1};
        if (!a.text.empty()) args_.push_back(a);
        start = comma + 1;
    }
}

SourceLocation SnippetInput::Where() const {
    return {"snippet", 1, pos_ < args_.size() ? args_[pos_].column : end_column_};
}

void SnippetInput::Fail(const SourceLocation& where, const std::string& message) const {
    throw DeckError(where, message);
}

const SnippetInput::Arg& SnippetInput::Next(std::string_view what) {
    if (pos_ >= args_.size()) Fail(Where(), "expected " + std::string(what));
    return args_[pos_++];
}

bool SnippetInput::IsKeyword(std::string_view kw) {
    if (pos_ < args_.size() && args_[pos_].text == Registry::Normalize(std::string(kw))) {
        ++pos_;
        return true;
    }
    return false;
}

std::string SnippetInput::GetKeyword(std::string_view what,
                                     const std::vector<std::string>& accepted) {
    for (const std::string& k : accepted)
        if (IsKeyword(k)) return k;
    Fail(Where(), "expected " + std::string(what));
}

double SnippetInput::GetReal(std::string_view what) {
    const SourceLocation at = Where();
    const Arg& a = Next(what);
    char* end = nullptr;
    const double v = std::strtod(a.text.c_str(), &end);
    if (end == a.text.c_str() || *end != '\0') Fail(at, "expected " + std::string(what));
    return v;
}

long SnippetInput::GetInt(std::string_view what) {
    const SourceLocation at = Where();
    const double v = GetReal(what);
    if (v != static_cast<double>(static_cast<long>(v))) Fail(at, "expected an integer");
    return static_cast<long>(v);
}

bool SnippetInput::GetBool(std::string_view what) {
    if (IsKeyword("yes") || IsKeyword("true")) return true;
    if (IsKeyword("no") || IsKeyword("false")) return false;
    return GetInt(what) != 0;
}

std::string SnippetInput::GetString(std::string_view what) { return Next(what).text; }

Vec3 SnippetInput::GetVec3(std::string_view what) {
    if (IsKeyword("null")) return Vec3::Zero();
    Vec3 v;
    for (int i = 0; i < 3; ++i) v[i] = GetReal(what);
    return v;
}

Mat3 SnippetInput::GetMat3(std::string_view what) {
    Mat3 m = Mat3::Zero();
    if (IsKeyword("null")) return m;
    if (IsKeyword("eye")) return Mat3::Identity();
    if (IsKeyword("diag")) {
        for (int i = 0; i < 3; ++i) m(i, i) = GetReal(what);
        return m;
    }
    if (IsKeyword("sym")) {
        for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j) m(i, j) = m(j, i) = GetReal(what);
        return m;
    }
    if (IsKeyword("matr")) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m(i, j) = GetReal(what);
        return m;
    }
    Fail(Where(), "expected " + std::string(what) + " (eye, null, diag, sym, matr)");
}

std::optional<FrameState> SnippetInput::ReadReference(const FrameState& rf) {
    if (!IsKeyword("reference")) return std::nullopt;
    if (IsKeyword("global")) return FrameState{};
    if (IsKeyword("node")) return rf;
    Fail(Where(), "the test input only knows 'reference, global' and 'reference, node'");
}

Vec3 SnippetInput::GetPosition(const FrameState& rf, std::string_view what) {
    const std::optional<FrameState> ref = ReadReference(rf);
    const Vec3 v = GetVec3(what);
    if (!ref) return v;
    return rf.R.transpose() * (ref->x + ref->R * v - rf.x);
}

Vec3 SnippetInput::GetDirection(const FrameState& rf, std::string_view what) {
    const std::optional<FrameState> ref = ReadReference(rf);
    const Vec3 v = GetVec3(what);
    if (!ref) return v;
    return rf.R.transpose() * ref->R * v;
}

Mat3 SnippetInput::GetOrientation(const FrameState& rf, std::string_view what) {
    const std::optional<FrameState> ref = ReadReference(rf);
    Mat3 R;
    if (IsKeyword("eye")) {
        R = Mat3::Identity();
    } else if (IsKeyword("euler123")) {
        const Vec3 a = GetVec3(what);
        R = RotX(a[0]) * RotY(a[1]) * RotZ(a[2]);
    } else if (IsKeyword("matr")) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) R(i, j) = GetReal(what);
    } else {
        Fail(Where(), "expected " + std::string(what) + " (eye, euler123, matr)");
    }
    if (!ref) return R;
    return rf.R.transpose() * ref->R * R;
}

Vec3 SnippetInput::GetVelocity(const FrameState&, const Vec3&, std::string_view what) {
    Fail(Where(), "the test input reads no velocity (" + std::string(what) + ")");
}

Vec3 SnippetInput::GetAngularVelocity(const FrameState&, std::string_view what) {
    Fail(Where(), "the test input reads no angular velocity (" + std::string(what) + ")");
}

DrivePtr SnippetInput::GetDrive(std::string_view what) {
    IsKeyword("const");
    return std::make_shared<ConstDrive>(GetReal(what));
}

int SnippetInput::GetNode(std::string_view what) {
    const SourceLocation at = Where();
    const long label = GetInt(what);
    for (size_t i = 0; i < nodes_.size(); ++i)
        if (nodes_[i].label == label) return static_cast<int>(i);
    Fail(at, "undefined structural node " + std::to_string(label));
}

}  // namespace mbstep::test
