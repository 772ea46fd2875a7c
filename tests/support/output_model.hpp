// The output tests' model (vtk_writer_test, netcdf_writer_test, output_options_test): a static
// node 1 at the origin and a dynamic node 2 1 m along x, a body on 2, a clamp on 1, a rod
// (statement joint) and a beam2 from 1 to 2, `ms, 0.6` at h = 1e-3; with `loads`, a follower
// force 4 at an arm of node 2 and an absolute couple 5 on it.
#pragma once

#include <string>

namespace mbstep::test {

struct OutputModel {
    double final_time{0.004};
    bool gravity{true};  ///< control data `gravity;` and a uniform 9.81 m/s^2 along -z
    int beam_label{3};
    /// Node 2 after its position: orientation, [orientation description,] velocity, angular
    /// velocity.
    std::string node2{"eye, null, null"};
    bool loads{false};
};

/// The deck text, with `control` inserted into the control data.
inline std::string OutputModelDeck(const std::string& control, const OutputModel& m = {}) {
    return "begin: data; problem: initial value; end: data;\n"
           "begin: initial value; initial time: 0.; final time: " +
           std::to_string(m.final_time) +
           "; time step: 1e-3;\n"
           "method: ms, 0.6; tolerance: 1e-9; end: initial value;\n"
           "begin: control data; structural nodes: 2; rigid bodies: 1; joints: 2; beams: 1;\n" +
           std::string(m.loads ? "forces: 2;\n" : "") + std::string(m.gravity ? "gravity;\n" : "") +
           control +
           "end: control data;\nbegin: nodes;\n"
           "structural: 1, static, null, eye, null, null;\n"
           "structural: 2, dynamic, 1., 0., 0., " +
           m.node2 +
           ";\nend: nodes;\n"
           "begin: elements;\nbody: 1, 2, 1., null, diag, 0.1, 0.1, 0.1;\n"
           "joint: 1, clamp, 1, node, node;\n"
           "joint: 2, rod, 1, 2, from nodes, linear elastic, 10.;\n"
           "beam2: " +
           std::to_string(m.beam_label) +
           ", 1, null, 2, null, eye, linear elastic generic, diag, 1e3, 1e3, 1e3, 1., 1., 1.;\n" +
           std::string(m.loads ? "force: 4, follower, 2, position, 0., 0.2, 0., 0., 0., 1., "
                                 "sine, 0., 300., 0.5, forever, 0.;\n"
                                 "couple: 5, absolute, 2, 1., 0., 0., ramp, 100., 0., 1., 0.;\n"
                               : "") +
           std::string(m.gravity ? "gravity: uniform, 0., 0., -1., const, 9.81;\n" : "") +
           "end: elements;\n";
}

}  // namespace mbstep::test
