// mbstep — integrator base: advances a formulation by one step.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/io/settings.hpp"

namespace mbstep {

class NewtonSolver;

/// What one step cost and how it ended.
struct StepStats {
    int iterations{0};      ///< Newton iterations (summed over stages)
    int factorizations{0};  ///< Jacobian factorizations
    double residual{0.0};   ///< final residual test value
    double solution{0.0};   ///< final solution-increment test value
    bool converged{false};
    std::string failure;  ///< why it failed (worst equation, time, step)
    /// Adaptive methods only: false when the step converged but failed the error test; the
    /// integrator's state is then unchanged and the run loop retries with next_step().
    bool accepted{true};
    double error{0.0};  ///< adaptive methods: error-estimate norm (1 = the tolerance)
};

class Integrator {
  public:
    virtual ~Integrator() = default;
    /// Registry key.
    virtual std::string name() const = 0;
    virtual ProblemInterface requires_interface() const = 0;
    /// Binds to a formulation; throws RunError naming the unmet requirement.
    virtual void Attach(Formulation& f, const SolverSettings& s) = 0;
    /// Called once after the initial state is set (t0, first step size).
    virtual void Start(double t0, double h) = 0;
    /// Advances from t to t + h (h may differ from the last step after a failure).
    virtual StepStats Advance(double t, double h) = 0;
    /// Declared order of accuracy.
    virtual int order() const = 0;
    /// The Newton solver of implicit methods (its last iteration matrix, as handed to the
    /// linear solver, for diagnostics and tests); nullptr for explicit methods.
    virtual const NewtonSolver* newton_solver() const { return nullptr; }
    /// The same solver, to act on it (NewtonSolver::Analyze); integrators own theirs, never
    /// const objects.
    NewtonSolver* newton_solver() {
        return const_cast<NewtonSolver*>(std::as_const(*this).newton_solver());
    }
    /// Extra `.csv` columns of quantities the method itself carries (e.g. the discrete
    /// generalized energy and momentum map of a scheme with momenta as unknowns), with one line
    /// each saying what they are (written to the `.log`); none by default.
    virtual std::vector<std::pair<std::string, std::string>> ExtraCsvColumns() const { return {}; }
    /// Their values at the last converged point, in the order of ExtraCsvColumns().
    virtual void ExtraCsvValues(std::vector<double>& /*values*/) const {}
    /// True for methods with step-size control: the run loop takes the first step from the
    /// deck's `time step`, every later one (and every retry after a rejected step) from
    /// next_step(), clipped to `max time step` and to the final time; a proposal below
    /// `min time step` stops the run. Output rows are written at the accepted steps.
    virtual bool adaptive() const { return false; }
    /// Adaptive methods: the step size proposed after the last Advance (accepted or not).
    virtual double next_step() const { return 0.0; }
};

}  // namespace mbstep
