// mbstep — writers in MBDyn's text layouts (docs/input.md, "Output files").
//   <prefix>.mov  label x y z  o1 o2 o3  vx vy vz  wx wy wz   (one line per node and output step;
//                 orientation as `default orientation` says: Euler angles in degrees, rotation
//                 vector in radians, or the 9 entries of R row-wise)
//   <prefix>.out  Step n time dt NIter ResErr SolErr SolConv Out
//   <prefix>.abs  label value derivative   (one line per abstract node and output step; only
//                 for models with abstract nodes, MBDyn's layout)
//   <prefix>.jnt  joint reactions (elements that write them)
//   <prefix>.act  beam section forces (and any other extension an element's output names)
//   <prefix>.frc  forces and couples: label, node, value and point of application (global)
//   <prefix>.log  the model summary
//   <prefix>.csv  time, kinetic, potential, total energy, momentum, angular momentum,
//                 constraint violation, iterations
//   <prefix>.pvd and <prefix>-vtk/  the VTK series (RunSettings::output_vtk; io/vtk.hpp)
//   <prefix>.nc   MBDyn's NetCDF layout (RunSettings::output_netcdf; io/netcdf.hpp)
// With RunSettings::output_text false (MBDyn's `no text`) only the .out, .log and .csv of the
// text files are written.
// Lines are formatted into one buffer per file (mbstep/io/number_format.hpp) and the buffers are
// written together, one write(2) per file, at a step boundary: when `flush interval` seconds of
// wall time have passed since the last write (0: after every step), when the buffers hold
// kMaxBuffered bytes, at WriteLog and WriteStop, and when the writer is destroyed. Every file
// then ends on the same complete step.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/netcdf.hpp"
#include "mbstep/io/settings.hpp"
#include "mbstep/io/vtk.hpp"

namespace mbstep {

class OutputWriter {
  public:
    /// `integrator` (may be null) adds its ExtraCsvColumns to the .csv. `flush_interval`:
    /// seconds of wall time between writes of the buffers (<= 0: after every step).
    OutputWriter(const std::string& prefix, const RunSettings& settings, const Model& model,
                 const Integrator* integrator = nullptr, double flush_interval = 1.0);
    /// Writes what is buffered (errors are ignored here: call Flush to see them).
    ~OutputWriter();
    OutputWriter(const OutputWriter&) = delete;
    OutputWriter& operator=(const OutputWriter&) = delete;
    /// Appends to the .log and writes every buffer.
    void WriteLog(const std::string& text);
    /// Appends the .out line of a step and, if `output` is set, the .mov/.jnt/.csv lines; writes
    /// the buffers when the flush interval has passed.
    void WriteStep(int step, double t, double dt, const StepStats& stats, bool output,
                   const Formulation& f);
    /// Ends the .out (as a `#` comment line) and the .log with `message` (where and why the run
    /// stopped early) and writes every buffer.
    void WriteStop(const std::string& message);
    /// Writes every buffer, one write(2) per file. Throws RunError when a write fails.
    void Flush();
    const std::vector<std::string>& files() const { return files_; }

    /// Buffered bytes above which WriteStep writes whatever the interval (large models).
    static constexpr size_t kMaxBuffered = size_t{1} << 20;

  private:
    /// An output file: its descriptor and what is not written yet.
    struct File {
        std::string path;
        int fd{-1};
        std::string buffer;
    };
    /// std::ostream's buffer for the elements' WriteReaction: appends to a File's buffer.
    class AppendBuf : public std::streambuf {
      public:
        explicit AppendBuf(std::string& s) : s_(s) {}

      protected:
        std::streamsize xsputn(const char* p, std::streamsize n) override;
        int_type overflow(int_type c) override;

      private:
        std::string& s_;
    };
    File& Open(const std::string& path);
    const RunSettings& settings_;
    const Model& model_;
    std::vector<std::unique_ptr<File>> open_;  // .mov, .out, .log, .csv, then the elements'
    File *mov_{nullptr}, *out_{nullptr}, *log_{nullptr}, *csv_{nullptr};
    File* abs_{nullptr};                    // models with abstract nodes
    std::unique_ptr<VtkSeriesWriter> vtk_;  // output results: vtk
    std::unique_ptr<NetcdfWriter> netcdf_;  // output results: netcdf
    // Element output files (.jnt, .act, ...): their extensions, streams, and each element's
    // file index (-1: it writes none) and output interface (Element::output(), asked here once).
    std::vector<std::string> element_ext_;
    std::vector<std::unique_ptr<AppendBuf>> element_buf_;
    std::vector<std::unique_ptr<std::ostream>> element_out_;
    std::vector<int> element_file_;
    std::vector<const ElementOutput*> element_output_;
    const Integrator* integrator_{nullptr};
    std::vector<double> extra_;  // the integrator's extra .csv values of a step
    std::string pending_log_;    // what the .csv's extra columns are, for the .log
    std::vector<std::string> files_;
    std::vector<const FrameState*> node_ptrs_;  // an element's node states (.jnt)
    std::int64_t interval_ns_{0};               // the flush interval; 0: after every step
    std::int64_t deadline_ns_{0};               // MonotonicNanoseconds() of the next timed write
};

/// Orientation columns of R as the output description says.
std::string FormatOrientation(const Mat3& R, OrientationOutput o, int precision);
/// The same, appended to `out`.
void AppendOrientation(std::string& out, const Mat3& R, OrientationOutput o, int precision);
/// The numbers of those columns (3, or 9 for the matrix row by row), appended to `out`: what an
/// element's `.jnt` line and NetCDF variables hold for a relative orientation.
void AppendOrientationValues(std::vector<double>& out, const Mat3& R, OrientationOutput o);

}  // namespace mbstep
