// mbstep — common base of the first-order DAE integrator templates (StepN, SingleStep,
// StageN): binding to a FirstOrderProblem, the rho_inf drive, and one implicit solve at a
// time point with coefficient c = b0 h (docs/DESIGN.md, "Integrator").
#pragma once

#include <Eigen/Core>
#include <complex>
#include <memory>
#include <optional>
#include <vector>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/model/drive.hpp"
#include "mbstep/solver/newton.hpp"

namespace mbstep {

class DeckInput;

/// rho_inf read as a drive (a number is a constant drive), validated in [0, 1] whenever it is
/// evaluated: bad values are rejected with the accepted range, never clamped (STYLE.md §4).
class RhoParameter {
  public:
    RhoParameter() = default;
    explicit RhoParameter(DrivePtr d) : drive_(std::move(d)) {}
    /// Reads `[, rho [, algebraic rho]]` if present; `what` names the method in messages.
    static std::pair<RhoParameter, RhoParameter> Read(DeckInput& in, double default_rho,
                                                      const std::string& what);
    double At(double t) const;
    bool set() const { return static_cast<bool>(drive_); }

  private:
    DrivePtr drive_;
};

class FirstOrderIntegrator : public Integrator {
  public:
    ProblemInterface requires_interface() const final { return ProblemInterface::kFirstOrderDae; }
    void Attach(Formulation& f, const SolverSettings& s) final;
    /// Linear multistep form y_k = sum a_j y_{k-j} + h sum b_j y'_{k-j} at step ratio alpha
    /// and the given rho_inf (linear analysis, coefficient tests); false if not multistep.
    virtual bool MultistepCoefficients(double /*alpha*/, double /*rho*/, std::vector<double>& /*a*/,
                                       std::vector<double>& /*b*/) const {
        return false;
    }
    /// Linear analysis [Zhang, Masarati et al., section 4]: the amplification matrix of one step
    /// of size h applied to y' = lambda y, z = h lambda, at the given rho_inf (ignored by
    /// methods without it), over the method's whole recurrence state (history values for
    /// multistep methods, auxiliary variables for single-step ones, 1x1 for multistage).
    /// Its eigenvalues are the characteristic roots; the one that tends to 1 as z -> 0 is the
    /// principal root. Empty if the method does not provide it.
    virtual Eigen::MatrixXcd AmplificationMatrix(std::complex<double> /*z*/, double /*rho*/) const {
        return {};
    }
    /// Implicit stages (solves) per step: 1 for multistep and single-step methods; the linear
    /// analysis compares methods at equal cost with h / (stages T) [paper, section 4].
    virtual int implicit_stages() const { return 1; }
    /// Whether the method has a rho_inf parameter.
    virtual bool tunable() const { return false; }
    /// The Newton solver of the implicit first-order methods (its last iteration matrix).
    const NewtonSolver* newton_solver() const override { return newton_.get(); }

  protected:
    /// Newton solve of the current point with coefficient c (y, y' hold the prediction).
    NewtonResult SolvePoint(double c);
    FirstOrderProblem& problem() { return *problem_; }
    StepStats MakeStats(const NewtonResult& r, double t) const;

  private:
    FirstOrderProblem* problem_{nullptr};
    std::unique_ptr<NewtonSolver> newton_;
    double last_c_{0.0};
};

}  // namespace mbstep
