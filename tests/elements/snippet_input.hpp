// mbstep tests — a minimal DeckInput over one element statement, used by the element tests
// while (or where) the deck reader is not available. It understands only what the element
// snippets use: comma-separated plain numbers (no expressions), keywords, `null`, `eye`,
// `diag`, `sym`, `matr`, `euler123` (radians), `reference, {global | node}, ...`, plain
// numbers and `const, v` as drives, and the node labels 1, 2, 3 of the test model.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep::test {

/// The test model: dynamic nodes 1 and 2, static node 3, with non-trivial initial poses.
std::vector<StructuralNode> TestNodes();

class SnippetInput final : public DeckInput {
  public:
    /// Splits "statement: a, b, c;" into the statement keyword and its arguments.
    SnippetInput(const std::string& text, std::vector<StructuralNode> nodes);

    const std::string& statement() const { return statement_; }
    const std::optional<GravityField>& gravity() const { return gravity_; }

    SourceLocation Where() const override;
    bool HasArg() override { return pos_ < args_.size(); }
    bool IsKeyword(std::string_view kw) override;
    std::string GetKeyword(std::string_view what,
                           const std::vector<std::string>& accepted) override;
    double GetReal(std::string_view what) override;
    using DeckInput::GetInt;
    long GetInt(std::string_view what) override;
    bool GetBool(std::string_view what) override;
    std::string GetString(std::string_view what) override;
    Vec3 GetVec3(std::string_view what) override;
    Mat3 GetMat3(std::string_view what) override;
    Vec3 GetPosition(const FrameState& rf, std::string_view what) override;
    Vec3 GetDirection(const FrameState& rf, std::string_view what) override;
    Mat3 GetOrientation(const FrameState& rf, std::string_view what) override;
    Vec3 GetVelocity(const FrameState& rf, const Vec3& x, std::string_view what) override;
    Vec3 GetAngularVelocity(const FrameState& rf, std::string_view what) override;
    DrivePtr GetDrive(std::string_view what) override;
    int GetNode(std::string_view what) override;
    const StructuralNode& node(int index) const override { return nodes_.at(index); }
    void SetGravity(GravityField g) override { gravity_ = std::move(g); }
    [[noreturn]] void Fail(const SourceLocation& where, const std::string& message) const override;
    void Warn(const SourceLocation&, const std::string&) const override {}

  private:
    struct Arg {
        std::string text;  // trimmed, lower case
        int column{0};
    };
    const Arg& Next(std::string_view what);
    // `reference, {global | node}` prefix: the frame the numbers are given in, or nullopt.
    std::optional<FrameState> ReadReference(const FrameState& rf);

    std::string statement_;
    std::vector<Arg> args_;
    size_t pos_{0};
    int end_column_{0};
    std::vector<StructuralNode> nodes_;
    std::optional<GravityField> gravity_;
};

}  // namespace mbstep::test
