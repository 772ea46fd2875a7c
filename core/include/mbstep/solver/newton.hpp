// mbstep — Newton–Raphson, full or modified (docs/DESIGN.md, "Solver services").
//
//   repeat: r = R(x); test ||r||; solve J dx = -r; x += dx; test ||dx||
//
// Newton (the default) assembles and factors J at the first iteration of a point (a call of
// Solve); a later iteration reuses it (a chord iteration) while the point's residuals fall,
// the last fell by kChordContraction and the residual is within kChordReach of the tolerance,
// except for the points a failed chord iteration backs off (PointBackoff). Full
// Newton (`newton raphson, true`) assembles and factors J every iteration. Modified Newton keeps
// the last factorization (also across steps) and refactors when (a) `modified, N` iterations were
// done with it, (b) the contraction rate ||r_k|| / ||r_k-1|| exceeds 0.5, or (c) the caller says
// the iteration matrix changed (new coefficient c). With `modified, N, adaptive` a point (a call of
// Solve) that started with a reused factorization and needed more than kAdaptiveIterations
// iterations makes the next points start with a fresh Jacobian: 1 point, then 2, 4, ... up to
// kAdaptiveMaxFresh while reuse keeps failing, back to 1 after a point that reuse served
// (iteration counts only, so runs are reproducible; DESIGN.md, "Solver services").
// Residual test: 2-norm ("norm") or max-norm ("minmax") of r, MBDyn's `tolerance` statement;
// once the residual stalls, each equation counts with what exceeds its round-off bound
// (eps sum_j |J_ij| s_j, NewtonSystem::UnknownScales, plus NewtonSystem::ResidualNoise;
// docs/DESIGN.md, "Solver services"); optional solution-increment test: the increment's norm
// (2-norm, or max-norm for the solution test `minmax`) against `solution tolerance`, and a
// system's own increment test (NewtonSystem::IncrementConverged).
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <memory>
#include <string>

#include "mbstep/io/settings.hpp"
#include "mbstep/solver/linear_solver.hpp"

namespace mbstep {

class NewtonSystem {
  public:
    virtual ~NewtonSystem() = default;
    virtual void Residual(Eigen::VectorXd& r) = 0;
    virtual void Jacobian(Eigen::SparseMatrix<double>& J) = 0;
    /// Both at the same point, the same values as Residual() then Jacobian() (a system may
    /// share their work).
    virtual void ResidualAndJacobian(Eigen::VectorXd& r, Eigen::SparseMatrix<double>& J) {
        Residual(r);
        Jacobian(J);
    }
    virtual void Update(const Eigen::VectorXd& dx) = 0;
    /// Row scaling of the linear solve: the solver solves J dx = rhs with rhs = -r passed
    /// through this hook, so a system whose Jacobian() returns D J (D diagonal, e.g. the
    /// step-size scaling of constraint rows) scales rhs by D here. Default: no scaling.
    virtual void ScaleForSolve(Eigen::VectorXd& /*rhs*/) const {}
    /// Name of equation row i for failure messages.
    virtual std::string DescribeEquation(int row) const = 0;
    /// For the failure messages: s_j, the magnitude of the quantity Newton unknown j stands
    /// for in the residual's terms at the current point, so that eps sum_j |J_ij| s_j
    /// estimates the round-off of equation i (the bound gamma_{n-1} sum |x_k| of a computed
    /// sum, Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 4.2).
    /// Left empty: unknown.
    virtual void UnknownScales(Eigen::VectorXd& s) const { s.resize(0); }
    /// A bound on the round-off that the way the system forms its rows puts into them, per
    /// row, when it is far above the round-off of the equations themselves (`cgr velocity
    /// unscaled`: a momentum derivative formed as a difference of two momenta divided by c).
    /// A residual that has stalled passes the test when what its rows hold beyond their bounds
    /// meets the tolerance: below the bound no iterate can be told from the solution. Left
    /// empty (the default): none.
    virtual void ResidualNoise(Eigen::VectorXd& noise) const { noise.resize(0); }
    /// A convergence test of the system's own on the Newton increment dx, asked from the
    /// second iteration of a point on (after Update(dx)): true ends the iteration as converged,
    /// as the deck's solution test does (e.g. an increment at the round-off level of the
    /// system's unknowns, relative to them). Default: none.
    virtual bool IncrementConverged(const Eigen::VectorXd& /*dx*/) const { return false; }
};

struct NewtonResult {
    bool converged{false};
    int iterations{0};
    int factorizations{0};
    double residual{0.0};
    /// Norm of the last increment: max-norm for the solution test `minmax`, else the 2-norm.
    double solution{0.0};
    int worst_row{-1};
    std::string message;
};

/// Points to take without a reuse that failed: after a failure the next 1, 2, 4, ... up to
/// `max` points (doubling while failures repeat), back to 1 after a success; counts, not
/// timings, so runs are reproducible.
class PointBackoff {
  public:
    explicit PointBackoff(int max) : max_(max) {}
    /// At the start of a point: true while points are still to be taken without.
    bool Take() {
        if (left_ == 0) return false;
        --left_;
        return true;
    }
    void Failed() {
        left_ = next_;
        next_ = next_ * 2 < max_ ? next_ * 2 : max_;
    }
    void Succeeded() { next_ = 1; }

  private:
    int max_, left_{0}, next_{1};
};

class NewtonSolver {
  public:
    explicit NewtonSolver(const SolverSettings& s);
    /// Takes the pattern (once per topology; the linear solver analyses it at the first
    /// factorization) and assembles into a copy of it.
    void Setup(const Eigen::SparseMatrix<double>& pattern);
    /// As Setup, but assembles into `pattern` itself (its values become the iteration
    /// matrix's), shared with the problem that keeps it only for this
    /// (FirstOrderProblem::shared_pattern): a large model holds one copy, not two.
    void SetupShared(std::shared_ptr<Eigen::SparseMatrix<double>> pattern);
    /// Analyses the pattern now (otherwise at the first factorization): where the linear
    /// solver's choice must be known, or its failure reported, before the first step.
    void Analyze();
    NewtonSolver(const NewtonSolver&) = delete;
    NewtonSolver& operator=(const NewtonSolver&) = delete;
    /// The iteration matrix changed (new coefficient): modified Newton must refactor.
    void InvalidateJacobian() { jacobian_valid_ = false; }
    NewtonResult Solve(NewtonSystem& system);
    const SolverSettings& settings() const { return settings_; }
    LinearSolver& linear_solver() { return *linear_; }
    const LinearSolver& linear_solver() const { return *linear_; }
    Eigen::SparseMatrix<double>& matrix() { return *J_; }
    const Eigen::SparseMatrix<double>& matrix() const { return *J_; }

  private:
    double Norm(const Eigen::VectorXd& v, ResidualTest test, int* worst) const;
    /// Round-off level of the residual at the system's current point (NewtonSystem::
    /// UnknownScales with the last iteration matrix), or -1 if the system gives no scales.
    double RoundoffEstimate(const NewtonSystem& system, ResidualTest test);
    /// bound_ = eps sum_j |J_ij| s_j per equation at the system's current point; false when
    /// the system gives no scales (or a bound is not finite).
    bool RoundoffBound(const NewtonSystem& system);
    /// The norm (of the residual test) of max(|r_i| - bound_i, 0).
    double ResidualAboveRoundoff(const Eigen::VectorXd& bound, ResidualTest test);
    /// The hint closing a message of non-convergence (newton.cpp).
    std::string NonConvergenceHint(const NewtonSystem& system, double roundoff, double best,
                                   int stalled) const;
    SolverSettings settings_;
    std::unique_ptr<LinearSolver> linear_;
    void SetupVectors(const Eigen::SparseMatrix<double>& pattern);
    Eigen::SparseMatrix<double> own_J_;
    std::shared_ptr<Eigen::SparseMatrix<double>> shared_J_;
    Eigen::SparseMatrix<double>* J_ = &own_J_;  ///< the iteration matrix: own_J_ or shared_J_
    bool set_up_ = false;                       ///< Setup or SetupShared gave a pattern
    bool analyzed_ = false;  ///< linear_ has analysed J_'s pattern (at the first factorization)
    Eigen::VectorXd r_, noise_, dx_;
    Eigen::VectorXd dx_sum_;          ///< the point's Newton corrections summed (failure messages)
    Eigen::VectorXd scales_, bound_;  ///< RoundoffEstimate's work vectors
    Eigen::VectorXd excess_;          ///< ResidualAboveRoundoff's work vector
    void AdaptReuse(bool started_with_reuse, int iterations);
    static constexpr int kAdaptiveIterations = 2;
    /// The default policy reuses a point's factorization after an iteration that reduced the
    /// residual at least this much: a chord iteration (residual + solve) costs about a third of
    /// a fresh one (Jacobian + factorization + solve) on the chain, so it pays while it gains a
    /// decade per iteration (docs/DESIGN.md, "Solver services").
    static constexpr double kChordContraction = 0.1;
    /// ... and only from a residual within this factor of the tolerance: one chord iteration,
    /// at the rates measured on the chains (1e-3 from residuals of 1e-6), then meets it.
    static constexpr double kChordReach = 1000.0;
    static constexpr int kChordMaxOff = 64;
    PointBackoff chord_off_{kChordMaxOff};  ///< points without chord iterations
    static constexpr int kAdaptiveMaxFresh = 64;
    bool jacobian_valid_{false};
    /// `newton raphson, true`: the iterations the last point took (at most 255). Iterations before
    /// that count ask for the Jacobian with the residual (one pass over the elements), as a point
    /// is likely to need as many iterations as the last.
    std::uint8_t last_iterations_{0};
    int uses_of_factorization_{0};
    PointBackoff fresh_points_{kAdaptiveMaxFresh};  ///< adaptive: points to start fresh
};

}  // namespace mbstep
