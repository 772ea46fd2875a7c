// mbstep — writers in MBDyn's text layouts (docs/input.md, "Output files"), flushed per step.
//   <prefix>.mov  label x y z  o1 o2 o3  vx vy vz  wx wy wz   (one line per node and output step;
//                 orientation as `default orientation` says: Euler angles in degrees, rotation
//                 vector in radians, or the 9 entries of R row-wise)
//   <prefix>.out  Step n time dt NIter ResErr SolErr SolConv Out
//   <prefix>.jnt  joint reactions (elements that write them)
//   <prefix>.act  beam section forces (and any other extension an element's output names)
//   <prefix>.log  the model summary
//   <prefix>.csv  time, kinetic, potential, total energy, momentum, angular momentum,
//                 constraint violation, iterations
#pragma once

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/settings.hpp"

namespace mbstep {

class OutputWriter {
  public:
    /// `integrator` (may be null) adds its ExtraCsvColumns to the .csv.
    OutputWriter(const std::string& prefix, const RunSettings& settings, const Model& model,
                 const Integrator* integrator = nullptr);
    void WriteLog(const std::string& text);
    /// Writes the .out line of a step and, if `output` is set, the .mov/.jnt/.csv lines.
    void WriteStep(int step, double t, double dt, const StepStats& stats, bool output,
                   const Formulation& f);
    /// Ends the .out (as a `#` comment line) and the .log with `message`: where and why the run
    /// stopped early.
    void WriteStop(const std::string& message);
    const std::vector<std::string>& files() const { return files_; }

  private:
    std::ofstream Open(const std::string& path);
    const RunSettings& settings_;
    const Model& model_;
    std::ofstream mov_, out_, log_, csv_;
    // Element output files (.jnt, .act, ...): their extensions, streams, and each element's
    // file index (-1: it writes none).
    std::vector<std::string> element_ext_;
    std::vector<std::unique_ptr<std::ofstream>> element_out_;
    std::vector<int> element_file_;
    const Integrator* integrator_{nullptr};
    std::vector<double> extra_;  // the integrator's extra .csv values of a step
    std::string pending_log_;    // what the .csv's extra columns are, for the .log
    std::vector<std::string> files_;
    std::string line_;                          // the .mov lines of a step, written at once
    std::vector<const FrameState*> node_ptrs_;  // an element's node states (.jnt)
};

/// Orientation columns of R as the output description says.
std::string FormatOrientation(const Mat3& R, OrientationOutput o, int precision);
/// The same, appended to `out`.
void AppendOrientation(std::string& out, const Mat3& R, OrientationOutput o, int precision);

}  // namespace mbstep
