// mbstep — integrator base: advances a formulation by one step.
#pragma once

#include <string>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/io/settings.hpp"

namespace mbstep {

/// What one step cost and how it ended.
struct StepStats {
    int iterations{0};      ///< Newton iterations (summed over stages)
    int factorizations{0};  ///< Jacobian factorizations
    double residual{0.0};   ///< final residual test value
    double solution{0.0};   ///< final solution-increment test value
    bool converged{false};
    std::string failure;  ///< why it failed (worst equation, time, step)
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
};

}  // namespace mbstep
