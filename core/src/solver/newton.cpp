#include "mbstep/solver/newton.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "mbstep/common.hpp"

namespace mbstep {

namespace {
constexpr const char* kDivergedHint =
    ": the iterates diverged; the time step may be too large for this motion: try a smaller "
    "time step";
}  // namespace

NewtonSolver::NewtonSolver(const SolverSettings& s)
    : settings_(s),
      linear_(MakeLinearSolver(s.linear_solver, OrderingFromName(s.linear_solver_ordering),
                               s.linear_solver_scale)) {
    linear_->set_timing(s.time_linear_solver);
    linear_->set_threads(s.threads);
}

void NewtonSolver::Setup(const Eigen::SparseMatrix<double>& pattern) {
    shared_J_.reset();
    own_J_ = pattern;
    J_ = &own_J_;
    SetupVectors(pattern);
}

void NewtonSolver::SetupShared(std::shared_ptr<Eigen::SparseMatrix<double>> pattern) {
    Eigen::SparseMatrix<double>().swap(own_J_);
    shared_J_ = std::move(pattern);
    J_ = shared_J_.get();
    SetupVectors(*J_);
}

void NewtonSolver::SetupVectors(const Eigen::SparseMatrix<double>& pattern) {
    r_.setZero(pattern.rows());
    dx_.setZero(pattern.rows());
    dx_sum_.setZero(pattern.rows());
    scales_.setZero(pattern.cols());  // sized here: a failure path that allocates nothing
    bound_.setZero(pattern.rows());
    excess_.setZero(pattern.rows());
    // The linear solver analyses the pattern in Analyze() or at the first factorization: the
    // set-up between (the initial derivatives with their own solver) then does not hold both
    // analyses at once, which set the peak memory of large models (docs/PERFORMANCE.md,
    // "Scale").
    analyzed_ = false;
    set_up_ = true;
    jacobian_valid_ = false;
}

void NewtonSolver::Analyze() {
    if (analyzed_ || !set_up_) return;  // nothing to analyse before Setup
    linear_->Analyze(*J_);
    analyzed_ = true;
}

double NewtonSolver::Norm(const Eigen::VectorXd& v, ResidualTest test, int* worst) const {
    if (!worst) {  // one pass when every entry is finite (a finite sum of squares says so)
        const double sq = v.squaredNorm();
        if (std::isfinite(sq))
            return test == ResidualTest::kMinMax ? (v.size() ? v.cwiseAbs().maxCoeff() : 0.0)
                                                 : std::sqrt(sq);
    }
    Eigen::Index i = 0;
    double m = v.size() ? v.cwiseAbs().maxCoeff(&i) : 0.0;
    if (worst) *worst = static_cast<int>(i);
    if (!std::isfinite(m) || v.hasNaN()) {
        for (Eigen::Index k = 0; k < v.size(); ++k)
            if (!std::isfinite(v[k])) {
                if (worst) *worst = static_cast<int>(k);
                break;
            }
        return std::numeric_limits<double>::quiet_NaN();
    }
    return test == ResidualTest::kMinMax ? m : v.norm();
}

bool NewtonSolver::RoundoffBound(const NewtonSystem& system) {
    // eps sum_j |J_ij| s_j per equation (NewtonSystem::UnknownScales); J_ is the last
    // iteration matrix (its magnitudes are what matter).
    system.UnknownScales(scales_);
    if (scales_.size() != J_->cols() || J_->nonZeros() == 0) return false;
    bound_.setZero(J_->rows());
    for (int k = 0; k < J_->outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(*J_, k); it; ++it)
            bound_[it.row()] += std::abs(it.value()) * scales_[it.col()];
    bound_ *= std::numeric_limits<double>::epsilon();
    return bound_.allFinite();
}

double NewtonSolver::RoundoffEstimate(const NewtonSystem& system, ResidualTest test) {
    if (!RoundoffBound(system)) return -1.0;
    const double e = Norm(bound_, test, nullptr);
    return std::isfinite(e) ? e : -1.0;
}

double NewtonSolver::ResidualAboveRoundoff(const Eigen::VectorXd& bound, ResidualTest test) {
    // |r_i| less its bound, not below 0: what is left once every equation's round-off is
    // granted.
    excess_ = (r_.cwiseAbs() - bound).cwiseMax(0.0);
    return Norm(excess_, test, nullptr);
}

std::string NewtonSolver::NonConvergenceHint(const NewtonSystem& system, double roundoff,
                                             double best, int stalled) const {
    // The unknown the point moved most (its summed corrections), for the step-size hint.
    int fastest = -1;
    if (dx_sum_.size() > 0) {
        Eigen::Index i = 0;
        if (dx_sum_.cwiseAbs().maxCoeff(&i) > 0.0) fastest = static_cast<int>(i);
    }
    std::ostringstream os;
    const bool known = roundoff >= 0.0;
    // "Near": within kRoundoffFactor of the estimate (a bound, which the noise of a stalled
    // residual reaches within a few orders of magnitude).
    constexpr double kRoundoffFactor = 100.0;
    if (known && stalled >= 3 && best <= kRoundoffFactor * roundoff) {
        os << "; the residual has not decreased below " << best << " for the last " << stalled
           << " iterations, near its round-off level (~" << roundoff
           << "): a tolerance below the round-off level of these equations cannot be met: "
              "loosen it";
        return os.str();
    }
    if (stalled >= 3)
        os << "; the residual has not decreased below " << best << " for the last " << stalled
           << " iterations";
    if (known)
        os << (stalled >= 3 ? ", " : "; ") << "far above its round-off level (~" << roundoff
           << "): the time step may be too large for this motion: try a smaller time step";
    else if (stalled >= 3)  // no estimate (NewtonSystem::UnknownScales): both causes
        os << ": if that is the round-off level of these equations, loosen the tolerance; "
              "otherwise the time step may be too large for this motion: try a smaller time "
              "step";
    else
        os << "; the time step may be too large for this motion: try a smaller time step";
    if (fastest >= 0)
        os << " (the fastest-changing equation: " << system.DescribeEquation(fastest) << ")";
    return os.str();
}

void NewtonSolver::AdaptReuse(bool started_with_reuse, int iterations) {
    if (!started_with_reuse) return;  // a fresh start says nothing about reuse
    if (iterations > kAdaptiveIterations) {
        fresh_points_.Failed();
    } else {
        fresh_points_.Succeeded();
    }
}

NewtonResult NewtonSolver::Solve(NewtonSystem& system) {
    NewtonResult res;
    const bool modified = settings_.modified_newton;
    const bool adaptive = modified && settings_.modified_newton_adaptive;
    if (adaptive && fresh_points_.Take()) jacobian_valid_ = false;
    const bool started_with_reuse = modified && jacobian_valid_;
    // Without `modified`: a fresh Jacobian at every iteration (`true`), or at the first of the
    // point and then while an iteration with it contracts the residual by less than
    // kChordContraction (the default: the chord iteration of a simplified Newton method in
    // Newton's range, Deuflhard, "Newton Methods for Nonlinear Problems", 2004, sec. 2.1.4).
    const bool every = !modified && settings_.jacobian_every_iteration;
    bool fresh_last = false, fresh_before = false;  // the last two corrections: fresh matrices
    bool monotone = true;  // no iteration of the point has raised the residual
    // Chord iterations at this point: not after a point whose chord iteration did not end it
    // (then 1, 2, 4, ... up to kChordMaxOff points without, back to 1 after a point that one
    // chord iteration ended; iteration counts only, so runs are reproducible).
    const bool chord = !modified && !every && !chord_off_.Take();
    bool chord_failed = false;
    const int max_it = settings_.max_iterations;
    dx_sum_.setZero();
    double previous = 0.0, before_previous = 0.0;  // the residuals one and two iterations back
    double best = std::numeric_limits<double>::infinity();
    int stalled = 0;         // iterations since the residual last halved its best value
    double roundoff = -2.0;  // -2: not estimated yet, -1: unknown (RoundoffEstimate)
    int bound_state = 0;     // bound_ at this point: 0 not computed, 1 valid, -1 unknown
    for (int it = 0;; ++it) {
        // The first iteration of a point refactors whenever the factorization is not reused:
        // the Jacobian comes with the residual (one pass over the elements). Only a predictor
        // that already meets the tolerance wastes it. Full Newton does the same at the later
        // iterations while the point has taken fewer than the last point took: a residual that
        // will not meet the tolerance is then not evaluated twice (a point that converges
        // sooner than the last wastes one Jacobian).
        const bool jacobian_now = (it == 0 && (!modified || !jacobian_valid_)) ||
                                  (every && it < static_cast<int>(last_iterations_));
        if (jacobian_now)
            system.ResidualAndJacobian(r_, *J_);
        else
            system.Residual(r_);
        const ResidualTest test = settings_.residual_test == ResidualTest::kNone
                                      ? ResidualTest::kNorm
                                      : settings_.residual_test;
        const double rn = Norm(r_, test, nullptr);
        // The worst equation, for the messages of a failure only.
        auto worst_row = [&] {
            int worst = -1;
            Norm(r_, test, &worst);
            res.worst_row = worst;
            return worst;
        };
        res.residual = rn;
        if (rn < 0.5 * best) {
            best = rn;
            stalled = 0;
        } else {
            // The round-off level, estimated once per point where the residual first fails to
            // halve: near the solution when it stalls there, before the state runs away when
            // Newton diverges (a point that converges quadratically never pays for it).
            if (++stalled == 1 && roundoff < -1.5) roundoff = RoundoffEstimate(system, test);
        }
        if (std::isnan(rn)) {
            res.message = "non-finite residual in " + system.DescribeEquation(worst_row());
            // After Newton updates (not at the predictor, where a drive may be at fault) the
            // iterates ran away.
            if (it > 0)
                res.message += " after " + std::to_string(it) + " iteration" +
                               (it == 1 ? "" : "s") + kDivergedHint;
            return res;
        }
        // Converged on the residual test, or on the solution-increment test when one is set.
        // Each equation counts with what exceeds its round-off bound: eps sum_j |J_ij| s_j
        // (RoundoffBound: an absolute tolerance below what the equations can represent, e.g. a
        // position constraint -phi/(b0 h) cannot go below ~eps |x| / (b0 h), which grows with
        // the model's extent) plus the round-off a system states for rows it forms with a
        // cancellation of its own (NewtonSystem::ResidualNoise). Only a residual that has
        // stalled (not halved by the last iteration) is tested so: accepting the first iterate
        // under the bound would accept errors up to it at every step, which add up over a run.
        // Or one that full Newton's quadratic convergence certifies: r_k ~ C r_{k-1}^2 with C
        // from the last two residuals (r_{k-1} / r_{k-2}^2, taken only after a contraction
        // by 100 or more, where the step is in Newton's quadratic range) predicts a residual
        // ten times under the tolerance, so what r_k holds above that is round-off (as an
        // error estimate from the observed contraction: Hairer & Wanner, Solving ODEs II,
        // Sec. IV.8, with the quadratic instead of the linear rate); the stall would cost one
        // more iteration to see. The Jacobian bound is computed once per point, when it is
        // first needed (a point that meets the tolerance never pays for it).
        // (Only after two corrections with fresh matrices: a chord iteration's rate is linear.)
        const bool certified =
            !modified && it >= 2 && fresh_last && fresh_before &&
            previous <= 1e-2 * before_previous &&
            previous / (before_previous * before_previous) * previous * previous <=
                0.1 * settings_.residual_tolerance;
        bool res_ok =
            settings_.residual_test != ResidualTest::kNone && rn <= settings_.residual_tolerance;
        if (!res_ok && settings_.residual_test != ResidualTest::kNone && it > 0 &&
            (rn > 0.5 * previous || certified) && std::isfinite(rn)) {
            system.ResidualNoise(noise_);  // sized once per solver: no allocation per step
            const bool own = noise_.size() == r_.size();
            if (bound_state == 0) bound_state = RoundoffBound(system) ? 1 : -1;
            if (own && bound_state > 0) noise_ += bound_;
            if (own || bound_state > 0)
                res_ok = ResidualAboveRoundoff(own ? noise_ : bound_, test) <=
                         settings_.residual_tolerance;
        }
        const bool sol_ok =
            it > 0 &&
            ((settings_.solution_tolerance > 0.0 && res.solution <= settings_.solution_tolerance) ||
             system.IncrementConverged(dx_));
        if (chord && it > 0 && !fresh_last) {  // the last correction was a chord iteration's
            if (!(res_ok || sol_ok)) {
                chord_failed = true;
            } else if (!chord_failed) {
                chord_off_.Succeeded();
            }
        }
        if (chord_failed && (res_ok || sol_ok || it >= max_it)) chord_off_.Failed();
        if (res_ok || sol_ok) {
            if (settings_.output_iterations) std::printf("\tIteration(%d) %g\n", it, rn);
            res.converged = true;
            if (adaptive) AdaptReuse(started_with_reuse, res.iterations);
            last_iterations_ = static_cast<std::uint8_t>(std::min(res.iterations, 255));
            return res;
        }
        if (it >= max_it) {
            if (settings_.max_iterations_at_most) {
                res.converged = true;
                return res;
            }
            std::ostringstream os;
            os << "no convergence after " << it << " iterations: residual " << rn << " (tolerance "
               << settings_.residual_tolerance << "), worst equation "
               << system.DescribeEquation(worst_row())
               << NonConvergenceHint(system,
                                     roundoff < -1.5 ? RoundoffEstimate(system, test) : roundoff,
                                     best, rn <= 10.0 * best ? stalled : 0);
            res.message = os.str();
            return res;
        }
        // Decide whether to (re)factor.
        bool refactor = !modified || !jacobian_valid_;
        // Chord iterations only while the point's residuals fall, the last fell by
        // kChordContraction, and the residual is within kChordReach of the tolerance: an
        // iterate outside Newton's range of quadratic convergence (residuals that grew on the
        // way, as in a large load step) gets full Newton, and so does a residual that one
        // chord iteration would not bring to the tolerance (its rate is linear: the 10 000-link
        // chain contracts by 1e-2 per chord iteration from 1e-5, where a fresh matrix reaches
        // the round-off floor in one).
        if (it > 0 && rn > previous) monotone = false;
        if (chord && monotone && it > 0 && jacobian_valid_ && rn <= kChordContraction * previous &&
            rn <= kChordReach * settings_.residual_tolerance)
            refactor = false;  // the last iteration contracted well: its matrix serves
        if (modified && jacobian_valid_) {
            if (settings_.modified_newton_iterations > 0 &&
                uses_of_factorization_ >= settings_.modified_newton_iterations)
                refactor = true;
            if (it > 0 && rn > 0.5 * previous) refactor = true;  // poor contraction
        }
        if (settings_.output_iterations)
            std::printf("\tIteration(%d) %g%s\n", it, rn, refactor ? " J" : "");
        if (settings_.output_residual)
            for (Eigen::Index i = 0; i < r_.size(); ++i)
                std::printf("\tResidual(%d) %s: %.16g\n", it,
                            system.DescribeEquation(static_cast<int>(i)).c_str(), r_[i]);
        if (refactor) {
            if (!jacobian_now) system.Jacobian(*J_);
            Analyze();
            if (!linear_->TimedFactor(*J_)) {
                res.message =
                    "singular iteration matrix (check constraints and boundary conditions)";
                return res;
            }
            ++res.factorizations;
            jacobian_valid_ = true;
            uses_of_factorization_ = 0;
        }
        ++uses_of_factorization_;
        fresh_before = fresh_last;
        fresh_last = refactor;
        before_previous = previous;
        previous = rn;
        dx_ = -r_;
        system.ScaleForSolve(dx_);
        linear_->TimedSolve(dx_);
        res.solution = Norm(dx_,
                            settings_.solution_test == ResidualTest::kMinMax ? ResidualTest::kMinMax
                                                                             : ResidualTest::kNorm,
                            nullptr);
        if (settings_.output_solution)
            for (Eigen::Index i = 0; i < dx_.size(); ++i)
                std::printf("\tSolution(%d) %s: %.16g\n", it,
                            system.DescribeEquation(static_cast<int>(i)).c_str(), dx_[i]);
        if (std::isnan(res.solution)) {
            int worst_dx = -1;
            Norm(dx_, ResidualTest::kNorm, &worst_dx);
            res.message = "non-finite Newton increment in " + system.DescribeEquation(worst_dx);
            if (it > 0) res.message += kDivergedHint;
            return res;
        }
        system.Update(dx_);
        dx_sum_ += dx_;
        ++res.iterations;
    }
}

}  // namespace mbstep
