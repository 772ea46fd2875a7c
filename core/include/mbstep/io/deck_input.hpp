// mbstep — the argument reader handed to plugins (elements, drives, integrators) to read the
// rest of their statement, MBDyn's HighParser/MBDynParser in spirit.
//
// A statement is `keyword: arg, arg, ...;`. Every numeric argument may be an expression
// using `set:` variables. Every Get* reads one argument (or a fixed group of them, for
// vectors and matrices) and consumes the comma after it; failures throw DeckError with the
// location of the offending argument and a message naming what was expected.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mbstep/common.hpp"
#include "mbstep/io/expression.hpp"
#include "mbstep/model/constitutive_law.hpp"
#include "mbstep/model/drive.hpp"
#include "mbstep/model/model.hpp"
#include "mbstep/model/node.hpp"

namespace mbstep {

class DeckInput {
  public:
    virtual ~DeckInput() = default;

    /// Location of the next argument (or of the terminating ';').
    virtual SourceLocation Where() const = 0;
    /// True while another argument remains before the statement's ';'.
    virtual bool HasArg() = 0;
    /// If the next argument starts with keyword kw (multi-word, case-insensitive, any amount
    /// of white space between words), consumes it and returns true. The keyword must make up
    /// the whole argument (followed by ',' or ';'), so "position" does not match
    /// "position orientation" and "euler" does not match "euler123".
    virtual bool IsKeyword(std::string_view kw) = 0;
    /// Reads one of the given keywords (longest match first); fails listing them.
    virtual std::string GetKeyword(std::string_view what,
                                   const std::vector<std::string>& accepted) = 0;

    virtual double GetReal(std::string_view what) = 0;
    /// An integer in the range of int (every integer of a deck ends in an int); a value out of
    /// it fails naming the range instead of wrapping around.
    virtual long GetInt(std::string_view what) = 0;
    /// An integer in [min, max]; out of range fails with `<what> must be in <min>..<max>, got
    /// <value>` at the argument.
    virtual long GetInt(std::string_view what, int min, int max) {
        const SourceLocation at = Where();
        const long v = GetInt(what);
        if (v < min || v > max)
            Fail(at, std::string(what) + " must be in " + std::to_string(min) + ".." +
                         std::to_string(max) + ", got " + std::to_string(v));
        return v;
    }
    virtual bool GetBool(std::string_view what) = 0;
    /// The value of an `orientation description` (`euler123` | `euler313` | `euler321` |
    /// `orientation vector` | `orientation matrix`), MBDyn's ReadOrientationDescription
    /// (mbdyn/base/dataman4.cc): for the control data's `default orientation`, a node's
    /// `orientation description` and a joint's.
    OrientationOutput GetOrientationDescription() {
        const std::string o = GetKeyword(
            "orientation description",
            {"euler123", "euler313", "euler321", "orientation vector", "orientation matrix"});
        if (o == "euler313") return OrientationOutput::kEuler313;
        if (o == "euler321") return OrientationOutput::kEuler321;
        if (o == "orientation vector") return OrientationOutput::kOrientationVector;
        if (o == "orientation matrix") return OrientationOutput::kOrientationMatrix;
        return OrientationOutput::kEuler123;
    }
    /// MBDyn's ReadOptionalOrientationDescription (mbdyn/base/dataman4.cc), which joints with a
    /// relative orientation output take: `orientation description, <d>` if it comes next, else
    /// `default_d` (the control data's `default orientation`, as MBDyn takes the data
    /// manager's).
    OrientationOutput GetOptionalOrientationDescription(OrientationOutput default_d) {
        return IsKeyword("orientation description") ? GetOrientationDescription() : default_d;
    }

    /// A double-quoted string.
    virtual std::string GetString(std::string_view what) = 0;

    /// `x, y, z` | `null` (three expressions), no frame transformation.
    virtual Vec3 GetVec3(std::string_view what) = 0;
    /// `eye` | `null` | `diag, a, b, c` | `sym, 6 values` | `matr, 9 values (row-wise)`.
    virtual Mat3 GetMat3(std::string_view what) = 0;

    /// A position `[reference, <global|node|other node|label>,] x, y, z | null` returned in
    /// the frame rf (MBDyn GetPosRel): without `reference` the numbers are taken in rf.
    virtual Vec3 GetPosition(const FrameState& rf, std::string_view what) = 0;
    /// A direction / vector quantity (rotated, not translated) returned in rf.
    virtual Vec3 GetDirection(const FrameState& rf, std::string_view what) = 0;
    /// An orientation `[reference, ...,] eye | matr ... | 1, v1, 2, v2 | euler123, a, b, c |
    /// ...` returned relative to rf: R_rf^T R.
    virtual Mat3 GetOrientation(const FrameState& rf, std::string_view what) = 0;
    /// A velocity (MBDyn GetVelRel) of a point of frame rf at position x (global), in global.
    virtual Vec3 GetVelocity(const FrameState& rf, const Vec3& x_global, std::string_view what) = 0;
    /// An angular velocity relative to rf, returned in global.
    virtual Vec3 GetAngularVelocity(const FrameState& rf, std::string_view what) = 0;

    /// A drive caller: a plain expression is a constant drive; otherwise a registered drive
    /// keyword with its arguments, or `reference, <label>` to a `drive caller:` definition.
    virtual DrivePtr GetDrive(std::string_view what) = 0;

    /// A constitutive law of the given dimension (1, 3 or 6): a registered law keyword with its
    /// arguments, or `reference, <label>` to a `constitutive law:` definition of that dimension.
    virtual ConstitutiveLawPtr GetConstitutiveLaw(int dimension, std::string_view what) {
        Fail(Where(), "expected " + std::string(what) + " (dimension " + std::to_string(dimension) +
                          "): constitutive laws are not supported here");
        return nullptr;
    }

    /// Reads a label and returns the index (into the model's node list) of that structural
    /// node, failing if it is not defined.
    virtual int GetNode(std::string_view what) = 0;
    /// The node with the given index (its initial pose is the default frame of relative input).
    virtual const StructuralNode& node(int index) const = 0;

    /// A double-quoted string compiled as an expression of Time that may use the deck's
    /// variables (`string` drives). Errors point inside the string; assignments are refused.
    virtual std::shared_ptr<const Expression> GetExpression(std::string_view what) {
        Fail(Where(), "expected " + std::string(what) + ": expressions are not supported here");
        return nullptr;
    }
    /// The same with `locals` (e.g. the coordinates of a `lagrangian` element) visible besides
    /// the deck's variables; a local whose name a deck variable has is an error at the string.
    /// `locate`, if not null, receives the deck location of each offset of the expression's text
    /// (for errors found when the expression is evaluated).
    virtual std::shared_ptr<const Expression> GetExpression(
        std::string_view what, const std::vector<std::shared_ptr<Variable>>& /*locals*/,
        std::function<SourceLocation(std::size_t)>* /*locate*/) {
        Fail(Where(), "expected " + std::string(what) + ": expressions are not supported here");
        return nullptr;
    }
    /// Reads a label and returns the index (into Model::abstract_nodes) of that abstract
    /// node, failing if it is not defined.
    virtual int GetAbstractNode(std::string_view what) {
        Fail(Where(), "expected " + std::string(what) + ": abstract nodes are not supported here");
        return -1;
    }
    /// The abstract node with the given index.
    virtual const AbstractNode& abstract_node(int /*index*/) const {
        Fail(Where(), "abstract nodes are not supported here");
        static const AbstractNode kNone;
        return kNone;
    }
    /// Sets the model's uniform gravity (called by the gravity element's reader); fails if
    /// the deck already defined one.
    virtual void SetGravity(GravityField /*g*/) {
        Fail(Where(), "gravity cannot be set from here");
    }

    [[noreturn]] virtual void Fail(const SourceLocation& where,
                                   const std::string& message) const = 0;
    virtual void Warn(const SourceLocation& where, const std::string& message) const = 0;
};

}  // namespace mbstep
