// mbstep — the concrete DeckInput: argument-level reading of MBDyn statements (numbers and
// expressions, keywords, vectors, matrices, orientations, reference frames, drives) over a
// stack of source files (`include:`).
//
// Reference frames (MBDyn manual, input/general.tex, "Use of Reference Frames"): an entity
// may be prefixed by `reference, <global | node | local | label>,`; with frame F = (x_F, R_F,
// v_F, w_F) and input p (position), R (orientation), v (velocity), w (angular velocity):
//   (1) x   = x_F + R_F p
//   (2) R   = R_F R_in
//   (3) v   = v_F + w_F x (x - x_F) + R_F v_in         (x: the point's absolute position)
//   (4) w   = w_F + R_F w_in
// and without a prefix F is the caller's default frame rf (global for nodes and references,
// the node for element offsets). Positions, directions and orientations are then returned
// relative to rf: p_rf = R_rf^T (x - x_rf), R_rf^T R.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deck_source.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/io/expression.hpp"
#include "mbstep/model/model.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::detail {

class DeckParser final : public DeckInput {
  public:
    DeckParser(const Registry& registry, SymbolTable& symbols, Model& model,
               std::vector<std::string>& warnings);

    // --- sources
    /// Opens a file (an `include:` relative to the including file, or the root deck).
    void PushFile(const std::string& path, const SourceLocation* from);
    void PushText(std::string text, std::string name);
    /// Skips white space, leaving finished included files; true when all input is read.
    bool AtEnd();
    /// The location just past the last character of the root file.
    SourceLocation EndLocation() const;
    /// The directory of the current file (for `include:`).
    std::string CurrentDirectory() const;

    // --- statements
    /// Reads a statement keyword up to ':' (consumed; *has_args = true) or ';' (left for
    /// EndStatement; *has_args = false). Returns it lower case with single spaces.
    std::string ReadStatementKeyword(SourceLocation* where, bool* has_args);
    /// Requires the ';' ending a statement; an extra argument is an error.
    void EndStatement(const std::string& statement);
    /// Skips the remaining arguments of the statement, up to (not including) ';'.
    void SkipArguments();
    /// The remaining arguments as written (white space collapsed), without consuming them.
    std::string RestOfStatement();
    /// If the next argument is one of the names (longest first; as IsKeyword), consumes it
    /// and returns its index, else -1.
    int MatchOneOf(const std::vector<std::string>& names);
    /// Description of the next token for messages ('abc', ';', end of file).
    std::string NextToken();
    /// True when the next argument starts with a double quote.
    bool LooksLikeString() { return Peek() == '"'; }

    // --- definitions shared with the block reader
    void DefineReference(long label, const FrameState& frame, const SourceLocation& where);
    void DefineDrive(long label, DrivePtr drive, const SourceLocation& where);
    void DefineConstitutiveLaw(long label, ConstitutiveLawPtr law, const SourceLocation& where);
    /// The frame of a `reference:` statement, or nullptr.
    const FrameState* FindReference(long label) const;
    const SourceLocation* gravity_location() const {
        return gravity_set_ ? &gravity_where_ : nullptr;
    }
    /// Value of Time while evaluating deck arguments (the initial time once known).
    void set_evaluation_time(double t) { evaluation_time_ = t; }
    /// Executes the body of a `set:` statement.
    void ReadSet();
    /// A label (an integer in 0..INT_MAX).
    long GetLabel(std::string_view what);

    // --- DeckInput
    SourceLocation Where() const override;
    bool HasArg() override;
    bool IsKeyword(std::string_view kw) override;
    std::string GetKeyword(std::string_view what,
                           const std::vector<std::string>& accepted) override;
    double GetReal(std::string_view what) override;
    long GetInt(std::string_view what) override;
    long GetInt(std::string_view what, int min, int max) override;
    bool GetBool(std::string_view what) override;
    std::string GetString(std::string_view what) override;
    Vec3 GetVec3(std::string_view what) override;
    Mat3 GetMat3(std::string_view what) override;
    Vec3 GetPosition(const FrameState& rf, std::string_view what) override;
    Vec3 GetDirection(const FrameState& rf, std::string_view what) override;
    Mat3 GetOrientation(const FrameState& rf, std::string_view what) override;
    Vec3 GetVelocity(const FrameState& rf, const Vec3& x_global, std::string_view what) override;
    Vec3 GetAngularVelocity(const FrameState& rf, std::string_view what) override;
    DrivePtr GetDrive(std::string_view what) override;
    ConstitutiveLawPtr GetConstitutiveLaw(int dimension, std::string_view what) override;
    int GetNode(std::string_view what) override;
    const StructuralNode& node(int index) const override;
    std::shared_ptr<const Expression> GetExpression(std::string_view what) override;
    std::shared_ptr<const Expression> GetExpression(
        std::string_view what, const std::vector<std::shared_ptr<Variable>>& locals,
        std::function<SourceLocation(std::size_t)>* locate) override;
    int GetAbstractNode(std::string_view what) override;
    const AbstractNode& abstract_node(int index) const override;
    void SetGravity(GravityField g) override;
    [[noreturn]] void Fail(const SourceLocation& where, const std::string& message) const override;
    void Warn(const SourceLocation& where, const std::string& message) const override;

  private:
    struct Cursor {
        const DeckSource* source;
        std::size_t pos;
    };
    struct Reference {
        FrameState frame;
        SourceLocation where;
    };
    struct NamedDrive {
        DrivePtr drive;
        SourceLocation where;
    };
    struct NamedLaw {
        ConstitutiveLawPtr law;
        SourceLocation where;
    };

    std::string_view text() const { return cursor().source->text; }
    const Cursor& cursor() const { return stack_.back(); }
    Cursor& cursor() { return stack_.back(); }
    std::size_t& pos() { return stack_.back().pos; }
    /// The offset of the next non-blank character (Where() without building the location).
    std::size_t Mark() const;
    SourceLocation LocationAt(std::size_t offset) const {
        return cursor().source->Location(offset);
    }
    void SkipSpace();
    char Peek();
    /// True if the next non-blank character after offset p is ',' or ';' or the end.
    bool DelimiterAfter(std::size_t p) const;
    /// After an argument: consumes ',' (an argument must follow) or leaves ';'.
    void FinishArg(std::string_view what);
    /// Non-consuming: does the next argument consist of keyword kw?
    bool LooksLikeKeyword(std::string_view kw) const;
    /// Non-consuming: keyword kw followed by the keyword after (e.g. "scale" + "default").
    bool LooksLikeKeywordPair(std::string_view kw, std::string_view after) const;
    Value GetValue(std::string_view what, const char* expected);
    /// The next argument as an integral number (not yet range-checked; not consumed past it).
    double ReadIntegral(std::string_view what, std::size_t at);
    FrameState ReadFramePrefix(const FrameState& rf);
    Mat3 ReadOrientationBody(std::string_view what);
    double GetAngle(std::string_view what, bool degrees);

    const Registry& registry_;
    SymbolTable& symbols_;
    Model& model_;
    std::vector<std::string>& warnings_;
    std::vector<std::unique_ptr<DeckSource>> sources_;
    std::vector<Cursor> stack_;
    std::map<long, Reference> references_;
    std::map<long, NamedDrive> drives_;
    std::map<long, NamedLaw> laws_;
    bool gravity_set_{false};
    SourceLocation gravity_where_;
    double evaluation_time_{0.0};
    int drive_depth_{0};  ///< GetDrive's recursion (nested drive callers)
};

}  // namespace mbstep::detail
