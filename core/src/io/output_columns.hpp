// mbstep — columns the output writers share (.mov and VTK in output.cpp and vtk.cpp, the NetCDF
// writer, ElementOutput::OutputVectors); internal to the core library.
#pragma once

#include <vector>

#include "mbstep/common.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/model/node.hpp"

namespace mbstep::output_columns {

/// The three orientation columns of a description other than the matrix: Euler angles (123, 313,
/// 321) in degrees, or the rotation vector in radians (MBDyn's .mov); kOrientationMatrix gives
/// zeros (its nine columns are the caller's).
Vec3 OrientationAngles(const Mat3& R, OrientationOutput kind);

/// The first 13 numbers of the element's .jnt line in MBDyn's layout (label, local force and
/// couple, global force and couple), written at 17 digits and read back; false when the element
/// writes no reaction line or not at least 13 numbers.
bool JntColumns(const ElementOutput& e, const ElementContext& ctx, double v[13]);

/// Every number of the element's WriteReaction line (the label first), written at 17 digits
/// and read back; empty when the element writes no reaction line.
std::vector<double> ReactionNumbers(const ElementOutput& e, const ElementContext& ctx);

}  // namespace mbstep::output_columns
