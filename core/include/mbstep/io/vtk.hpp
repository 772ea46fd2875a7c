// mbstep — a run as a VTK XML time series for ParaView (docs/DESIGN.md, "Input and output";
// the formats: Kitware, "VTK File Formats", VTK User's Guide, XML formats: Collection and
// UnstructuredGrid).
//   <prefix>.pvd          Collection: one DataSet per output step, timestep = its time
//   <prefix>-vtk/step-NNNNNN.vtu   UnstructuredGrid of output step N (the step number), ASCII:
//     points     the structural nodes (Model::nodes() order), then the dummy nodes
//     point data label, velocity, angular_velocity, axis_1, axis_2, axis_3 (the columns of R)
//     cells      one VTK_VERTEX per point (kind 0), then the elements on structural nodes
//                (kind by Element::statement(): 1 body, 2 joint, 3 beam, 4 force or couple,
//                5 other): a vertex (one node), a line (two) or a polyline through their
//                nodes, or one line per segment between consecutive nodes when the element
//                gives one force/moment pair per segment (beams; ElementOutput::OutputVectors)
//     cell data  label (node or element), kind, force, moment (ElementOutput::OutputVectors,
//                global frame; zero for nodes and elements without them)
// Each step's file is formatted into a buffer when the step is output and written at Flush;
// its DataSet entry is then added to the .pvd in place of the closing tags, which are written
// again after it, so the .pvd is a complete document after every Flush.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mbstep/model/model.hpp"

namespace mbstep {

class VtkSeriesWriter {
  public:
    /// Creates `prefix`.pvd and the folder `prefix`-vtk (its old step-*.vtu files removed).
    /// `precision`: significant digits of the numbers (the .mov's). Throws RunError.
    VtkSeriesWriter(const std::string& prefix, const Model& model, int precision);
    ~VtkSeriesWriter();
    VtkSeriesWriter(const VtkSeriesWriter&) = delete;
    VtkSeriesWriter& operator=(const VtkSeriesWriter&) = delete;

    /// Formats output step `step` at time t: the node states (Model::nodes() order), element
    /// e's multipliers lambda(e), and the gravity acceleration at t.
    void AddStep(int step, double t, const std::vector<FrameState>& states,
                 const std::function<const double*(int)>& lambda, const Vec3& gravity);
    /// Writes the formatted steps' files and their .pvd entries. Throws RunError.
    void Flush();
    /// Bytes formatted and not written yet.
    size_t buffered() const { return buffered_; }
    const std::string& pvd_path() const { return pvd_path_; }
    const std::string& folder() const { return folder_; }

  private:
    struct Pending {
        std::string name;  // the file name in the folder
        double t;
        std::string text;
    };
    const Model& model_;
    int precision_;
    std::string pvd_path_, folder_;
    std::string folder_name_;  // the folder's name as the .pvd's entries give it (XML-escaped)
    int pvd_fd_{-1};
    long pvd_end_{0};  // the .pvd's length without its closing tags
    std::vector<Pending> pending_;
    size_t buffered_{0};
    // Each element's output interface (Element::output(), asked once by the constructor).
    std::vector<const ElementOutput*> element_output_;
    // Per step, reused.
    std::vector<FrameState> points_;
    std::vector<const FrameState*> node_ptrs_;
    std::vector<Vec3> force_, moment_;
};

}  // namespace mbstep
