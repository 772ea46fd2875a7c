// mbstep — a run in MBDyn's NetCDF layout (docs/DESIGN.md, "Input and output"; MBDyn input
// manual, control data, "Output results: netcdf", and MBDyn's sources: mbdyn/base/output.cc
// OutputHandler::NetCDFOpen, CreateVar, CreateRotationVar; mbdyn/base/dataman2.cc
// DataManager::OutputPrepare; mbdyn/struct/strnode.cc StructNode::OutputPrepare;
// mbdyn/struct/joint.cc Joint::OutputPrepare_int).
//   <prefix>.nc   netCDF classic format (Unidata's netCDF C library, netcdf.h), written when
//                 mbstep is built with NetCDF (CMake MBSTEP_WITH_NETCDF) and the deck says
//                 `output results: netcdf;` (or `mbstep run --netcdf`).
// Dimensions: time (unlimited: one record per output step, the .mov's steps), Vec1 = 1,
// Vec3 = 3. Variables, in MBDyn's order, each with the attributes units, type, description:
//   run.step       int    [time]             "integer"     time step index
//   time           double [time]             "doublereal"  simulation time
//   run.timestep   double [time]             "doublereal"  integration time step
//   node.struct.<label>          char [Vec1], attribute type = dynamic | static | dummy
//   node.struct.<label>.X        double [time, Vec3]  global position vector (X, Y, Z)
//   node.struct.<label>.R        double [time, Vec3, Vec3]  orientation matrix, stored as
//                                MBDyn stores it: (R11, R21, R31, R12, ...), column by column
//   or node.struct.<label>.Phi   double [time, Vec3]  orientation vector (radian)
//   or node.struct.<label>.E     double [time, Vec3]  Euler angles 123 | 313 | 321 (deg)
//                                (the node's `orientation description`, else the control
//                                data's `default orientation`, as in the .mov)
//   node.struct.<label>.XP       double [time, Vec3]  global velocity vector
//   node.struct.<label>.Omega    double [time, Vec3]  global angular velocity vector
//   elem.joint.<label>           char [Vec1], attribute type = MBDyn's name of the joint
//   elem.joint.<label>.f, .m     double [time, Vec3]  local reaction force, moment
//   elem.joint.<label>.F, .M     double [time, Vec3]  global reaction force, moment
//   then the joint's own (Element::NetcdfDescription): double [time, Vec3], [time] (type
//   "doublereal") or [time, Vec3, Vec3] (type "Mat3x3", column by column)
// Nodes and dummy nodes with output, in the .mov's order; the joints are the elements of
// statement `joint` whose .jnt line has MBDyn's layout (label, f, m, F, M, ...): their values
// are that line's numbers at 17 significant digits (Element::NetcdfValues). The units attributes
// are MBDyn's: without `output units` the names of the physical dimensions ("Length", "Velocity",
// "Angular velocity", "Time", "Force", "Moment", "Dimensionless"); with `output units` (MKS, CGS,
// MMTMS, MMKGMS, custom) the system's units, composed as MBDyn composes them ("m", "m s^-1",
// "rad s^-1", "s", "N", "N m" for MKS); the orientation's are MBDyn's fixed "-", "radian",
// "deg". No value is converted.
// Each output step is kept in memory and written at Flush (one nc_put_vara per variable for
// all the steps since the last Flush, then nc_sync), so the .nc ends on the same step as the
// text files.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mbstep/io/settings.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep {

/// True when mbstep was built with NetCDF (CMake option MBSTEP_WITH_NETCDF).
bool NetcdfOutputAvailable();

class NetcdfWriter {
  public:
    /// Creates `prefix`.nc (replacing it) and defines its dimensions and variables. Throws
    /// RunError when the file cannot be created or mbstep was built without NetCDF.
    NetcdfWriter(const std::string& prefix, const Model& model, const RunSettings& settings);
    ~NetcdfWriter();
    NetcdfWriter(const NetcdfWriter&) = delete;
    NetcdfWriter& operator=(const NetcdfWriter&) = delete;

    /// Keeps output step `step` at time t (step size dt): the node states (Model::nodes()
    /// order), element e's multipliers lambda(e), and the gravity acceleration at t.
    void AddStep(int step, double t, double dt, const std::vector<FrameState>& states,
                 const std::function<const double*(int)>& lambda, const Vec3& gravity);
    /// Writes the kept steps and syncs the file. Throws RunError.
    void Flush();
    /// Bytes kept and not written yet.
    size_t buffered() const;
    const std::string& path() const { return path_; }
    /// The variables' names in the order they are defined (after run.step, time, run.timestep).
    const std::vector<std::string>& variable_names() const { return names_; }

  private:
    struct Impl;
    std::string path_;
    std::vector<std::string> names_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mbstep
