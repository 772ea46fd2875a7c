// mbstep — settings read from the `initial value` and `control data` blocks.
#pragma once

#include <limits>
#include <map>
#include <string>

#include "mbstep/model/drive.hpp"
#include "mbstep/model/node.hpp"

namespace mbstep {

enum class ResidualTest { kNorm, kMinMax, kNone };

struct SolverSettings {
    double residual_tolerance{1e-6};
    ResidualTest residual_test{ResidualTest::kNorm};
    double solution_tolerance{0.0};  ///< 0: no solution test
    ResidualTest solution_test{ResidualTest::kNone};
    int max_iterations{20};
    bool max_iterations_at_most{false};
    bool modified_newton{false};
    int modified_newton_iterations{0};  ///< refactor every N iterations (MBDyn `modified, N`)
    /// mbstep's `modified, N, adaptive`: fall back to fresh Jacobians when reuse does not pay
    /// (the policy: NewtonSolver, solver/newton.hpp).
    bool modified_newton_adaptive{false};
    /// Without `modified`: true (`newton raphson, true`) assembles and factors the Jacobian at
    /// every iteration; false (the default) at the first iteration of every point, then reuses
    /// that factorization in chord iterations where they pay (the rules: NewtonSolver,
    /// solver/newton.hpp).
    bool jacobian_every_iteration{false};
    std::string linear_solver{"auto"};    ///< "auto" | "klu" | "naive" | "schur" | "sparselu"
    std::string linear_solver_requested;  ///< what the deck asked for (reported)
    std::string linear_solver_ordering{"auto"};  ///< KLU: auto | amd | colamd | natural | rcm
    /// KLU row scaling (klu_common.scale): -1 none (default), 1 row sum, 2 row max; MBDyn's
    /// `linear solver: ..., scale, {always | once | ...}, {row max | row sum | ...}`.
    int linear_solver_scale{-1};
    bool time_linear_solver{false};  ///< diagnostic: accumulate factor/solve wall time
    /// `output: iterations | residual | solution` (MBDyn): each Newton iteration prints
    /// "\tIteration(k) <residual norm>[ J]" to stdout (J: the matrix is refactored), and the
    /// residual / the solution increment entry by entry with their equation names.
    bool output_iterations{false};
    bool output_residual{false};
    bool output_solution{false};
    int threads{1};  ///< the run's thread count (set by Run from --threads; `schur` uses it)
    // Initial derivatives phase (MBDyn `derivatives ...`).
    double derivatives_tolerance{1e-6};
    int derivatives_max_iterations{1};
    double derivatives_coefficient{1e-6};
    bool derivatives_coefficient_auto{false};
    // `strategy: factor, reduction, steps before reduction, raise, steps before raise,
    // min iterations [, max iterations]` (MBDyn input manual, "Strategy"; MBDyn's
    // Solver::NewTimeStep): a failed step is retried with h *= reduction while h stays at or
    // above `min time step`; after a converged step, h *= reduction when it took more than `max
    // iterations`, and h *= raise (up to `max time step`, else the nominal time step) when it
    // took at most `min iterations` and more than `steps before reduction` steps have passed
    // since the last reduction and more than `steps before raise` since the last raise.
    bool strategy_factor{false};
    double strategy_reduction{0.5};
    int strategy_steps_before_reduction{1};
    double min_time_step{0.0};
    bool modify_residual_test{false};
    // Remaining `strategy: factor, reduction, steps_before_reduction, raise, steps_before_raise,
    // min_iterations [, max_iterations]` values (MBDyn manual, problems.tex) and `max time step`.
    double strategy_raise{1.0};
    int strategy_steps_before_raise{0};
    int strategy_min_iterations{0};
    int strategy_max_iterations{0};  ///< 0: the global max_iterations
    double max_time_step{0.0};       ///< 0: unlimited
};

struct RunSettings {
    double initial_time{0.0};
    double final_time{1.0};
    bool forever{false};
    double time_step{1e-3};
    std::string method_text;      ///< the `method:` arguments as written (for the log)
    std::string formulation{""};  ///< empty: the method's default
    SolverSettings solver;
    // control data
    OrientationOutput default_orientation{OrientationOutput::kEuler123};
    int output_every{1};  ///< output frequency / meter steps
    /// `output meter: meter, t0, tf, ...`: output only for t0 <= t <= tf (MBDyn's meter drive).
    double output_from{-std::numeric_limits<double>::infinity()};
    double output_until{std::numeric_limits<double>::infinity()};
    bool OutputAt(int step, double t) const {
        return step % (output_every > 0 ? output_every : 1) == 0 && t >= output_from &&
               t <= output_until;
    }
    int output_precision{6};
    /// `output results: vtk` (or `mbstep run --vtk`): the VTK series (io/vtk.hpp) besides the
    /// text files.
    bool output_vtk{false};
    /// `output results: netcdf` (or `mbstep run --netcdf`): PREFIX.nc in MBDyn's NetCDF layout
    /// (io/netcdf.hpp) besides the text files; only when built with NetCDF.
    bool output_netcdf{false};
    /// False after `output results: netcdf, no text;` (MBDyn's `no text`): the per-entity text
    /// files (.mov, .abs, .jnt, .act, .frc) are not written; the .out, .log and .csv are.
    bool output_text{true};
    /// `output units: MKS | CGS | MMTMS | MMKGMS | custom, length, "..", mass, "..", time, "..",
    /// current, "..", temperature, "..";` (MBDyn's control data "Output units"): the units
    /// the NetCDF attributes name (io/netcdf.hpp). No value is converted.
    struct OutputUnits {
        std::string system;  ///< as read ("MKS", ..., "custom"); empty: none given
        std::string length, mass, time, current, temperature;  ///< custom's
    } output_units;
    bool default_output{true};   ///< `default output:` for structural nodes
    bool abstract_output{true};  ///< `default output:` for abstract nodes (.abs)
    /// `default output:` of element kinds by statement ("joint", "beam3", ...; absent: on).
    std::map<std::string, bool> element_output;
    bool ElementOutput(const std::string& statement) const {
        const auto it = element_output.find(statement);
        return it == element_output.end() || it->second;
    }
    bool skip_initial_joint_assembly{false};  ///< initial joint assembly runs unless skipped
    int abort_after_steps{-1};
    std::string title;
    // Additions of the deck reader.
    std::string abort_after;  ///< `abort after:` input|assembly|derivatives|dummy steps
    // Initial joint assembly (model/initial_assembly.hpp), control data.
    double assembly_tolerance{1e-6};          ///< `tolerance:` (MBDyn's default)
    int assembly_max_iterations{1};           ///< `max iterations:` (MBDyn's default: one)
    double assembly_position_stiffness{1.0};  ///< `initial stiffness:` position, orientation
    double assembly_velocity_stiffness{1.0};  ///< ... and velocity penalty
    bool assembly_omega_rotates{false};       ///< `omega rotates:`
    bool assembly_use_bodies{false};          ///< `use: rigid bodies | gravity, in assembly;`
    bool assembly_use_forces{false};          ///< `use: forces, in assembly;`
};

}  // namespace mbstep
