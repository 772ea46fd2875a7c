// mbstep — the output interface of an element (docs/DESIGN.md, "The element contract"): the
// lines and values an element writes to the run's files (.jnt, .act, .frc, the VTK and NetCDF
// series, the .log). Only elements that write output implement it, besides Element; the
// output writers ask Element::output() once, when they are set up, and keep the pointer.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "mbstep/common.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/model/node.hpp"

namespace mbstep {

/// What an element sees when it writes its line of MBDyn's .log (ElementOutput::MbdynLogLine):
/// the labels and the initial states, as read from the deck (before the initial joint assembly,
/// as MBDyn writes it while reading the input), of its own nodes in the order of
/// Element::nodes().
struct LogLineContext {
    const int* node_label{nullptr};
    const FrameState* const* node{nullptr};
    int precision{6};  ///< significant digits of the numbers (the run's output precision)
};

/// What an output variable measures: names its units in MBDyn's NetCDF attributes
/// (io/netcdf.hpp). No value is converted.
enum class OutputQuantity {
    kLength,
    kVelocity,
    kAngularVelocity,
    kForce,
    kMoment,
    kRadians,
    kDegrees,
    kDimensionless
};

/// The shape of an output variable, as MBDyn's OutputHandler::CreateVar<T> and
/// CreateRotationVar declare it: a Vec3 ([time, Vec3], attribute type "Vec3"), a scalar
/// ([time], "doublereal") or a 3x3 matrix ([time, Vec3, Vec3], "Mat3x3", its values stored
/// column by column: R11, R21, R31, R12, ...).
enum class NetcdfShape { kVec3, kScalar, kMat3x3 };

/// Number of doubles a variable of shape s holds per output step.
inline int NetcdfSize(NetcdfShape s) {
    return s == NetcdfShape::kScalar ? 1 : s == NetcdfShape::kMat3x3 ? 9 : 3;
}

/// One variable of an element's group in MBDyn's NetCDF layout: `<group>.<name>`.
struct NetcdfVariable {
    std::string name;
    OutputQuantity quantity;
    std::string description;
    NetcdfShape shape{NetcdfShape::kVec3};
};

/// An element's group in MBDyn's NetCDF layout (the element's OutputPrepare in MBDyn): the
/// variable `<prefix>.<label>` whose attribute `type` is `type`, then `variables`, each
/// NetcdfSize(shape) doubles per output step. An empty prefix: the element writes nothing
/// there.
struct NetcdfGroup {
    std::string prefix;  ///< "elem.joint", "elem.beam", "elem.force", "elem.couple"
    std::string type;
    std::vector<NetcdfVariable> variables;
};

/// The output of an element. An element that writes any derives from it as well as from
/// Element and returns itself from Element::output(); every function has a default, so it
/// overrides only what it writes.
class ElementOutput {
  public:
    virtual ~ElementOutput();

    /// One line of reactions for the .jnt file (MBDyn layout); joints override.
    virtual void WriteReaction(std::ostream& /*os*/, const ElementContext& /*ctx*/) const {}
    virtual bool HasReactionOutput() const { return false; }
    /// Extension of the file WriteReaction writes to: "jnt" (joints), "act" (beams), ...
    virtual const char* output_extension() const { return "jnt"; }
    /// Force and moment vectors in the global frame for the VTK output (io/vtk.hpp): appends
    /// one (force, moment) pair per cell the element is drawn as, either one pair for the whole
    /// element or one per segment between consecutive nodes (a beam's internal force and
    /// moment at each evaluation point). The default, for elements with reaction output whose
    /// output_extension() is "jnt", reads MBDyn's .jnt layout of the WriteReaction line (label,
    /// local force, local couple, global force, global couple, ...): its global columns;
    /// otherwise it appends nothing.
    virtual void OutputVectors(const ElementContext& ctx, std::vector<Vec3>& force,
                               std::vector<Vec3>& moment) const;
    /// The group in MBDyn's NetCDF layout (io/netcdf.hpp) of `element`, the element this
    /// interface belongs to (the NetCDF writer passes it; its statement and type name the
    /// default group). The default, for a `joint` statement with reaction output in the .jnt
    /// layout: `elem.joint`, the element's type, and MBDyn's `f`, `m`, `F`, `M`
    /// (Joint::OutputPrepare_int); joints whose .jnt line has more columns add their own
    /// variables after these.
    virtual NetcdfGroup NetcdfDescription(const Element& element) const;
    /// The values of NetcdfDescription()'s variables, NetcdfSize(shape) per variable in its
    /// order (a matrix column by column), at the start of out (which it resizes; more values
    /// than the variables need are ignored). The
    /// default: the numbers of the element's WriteReaction line after its label. False when
    /// there are none.
    virtual bool NetcdfValues(const ElementContext& ctx, std::vector<double>& out) const;
    /// One line describing the element in the .log (empty: the element is only counted).
    virtual std::string LogDescription() const { return {}; }
    /// The element's line of MBDyn's .log, without its newline, in the layout MBDyn's input
    /// reader writes it (e.g. `sphericalhinge: label node1 f1 R1 node2 f2 R2`; io/mbdyn_log.hpp
    /// formats the fields), which Blendyn and mboct read to rebuild the model. Empty: MBDyn
    /// writes no line for this element type (gravity, drives, couples), nor does mbstep.
    virtual std::string MbdynLogLine(const LogLineContext& /*ctx*/) const { return {}; }
};

}  // namespace mbstep
