// Linear test problem for the first-order integrators: y' = A y with a constant matrix A and
// a known exact solution, behind the FirstOrderProblem interface, plus the minimal Formulation
// that lets an integrator Attach() to it (no nodes, no rotations, no constraints).
//
//   (1) oscillator x'' + w^2 x = 0 as y = (x, x'):  A = [0 1; -w^2 0]
//   (2) exact solution y(t) = expm(A t) y0: x = x0 cos(w t) + v0/w sin(w t),
//                                           x' = -x0 w sin(w t) + v0 cos(w t)
//   (3) residual r = y' - A y; iteration matrix J = dr/dy' + c dr/dy = I - c A;
//       Update: y' += delta, y += c delta (all dofs differential).
#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cmath>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep::test {

/// y' = A y, dense A (a few dofs), all dofs differential (3).
class LinearProblem final : public FirstOrderProblem {
  public:
    explicit LinearProblem(Eigen::MatrixXd A) : A_(std::move(A)) {
        const int n = static_cast<int>(A_.rows());
        kinds_.assign(n, DofKind::kDifferential);
        y_ = Eigen::VectorXd::Zero(n);
        yp_ = Eigen::VectorXd::Zero(n);
        std::vector<Eigen::Triplet<double>> t;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) t.emplace_back(i, j, 0.0);
        pattern_.resize(n, n);
        pattern_.setFromTriplets(t.begin(), t.end());
    }
    int num_dofs() const override { return static_cast<int>(A_.rows()); }
    const std::vector<DofKind>& dof_kinds() const override { return kinds_; }
    void SetTime(double t) override { t_ = t; }
    double time() const { return t_; }
    void BeforePredict(std::vector<Eigen::VectorXd>&, std::vector<Eigen::VectorXd>&, int) override {
    }
    void AfterPredict() override {}
    void Residual(double, Eigen::VectorXd& r) override { r = yp_ - A_ * y_; }  // (3)
    void Jacobian(double c, Eigen::SparseMatrix<double>& J) override {
        J = pattern_;
        for (int k = 0; k < J.outerSize(); ++k)
            for (Eigen::SparseMatrix<double>::InnerIterator it(J, k); it; ++it)
                it.valueRef() = (it.row() == it.col() ? 1.0 : 0.0) - c * A_(it.row(), it.col());
    }
    const Eigen::SparseMatrix<double>& pattern() const override { return pattern_; }
    void Update(const Eigen::VectorXd& delta, double c) override {
        yp_ += delta;
        y_ += c * delta;
    }
    void AfterConvergence() override {}
    void RestoreLastSolved() override {}
    void DiscardSolved(int) override {}  // no history beyond y, y'
    std::string DescribeEquation(int row) const override {
        return "linear equation " + std::to_string(row);
    }
    int SolveInitialDerivatives(const SolverSettings&, double) override {
        yp_ = A_ * y_;
        return 1;
    }

  private:
    Eigen::MatrixXd A_;
    std::vector<DofKind> kinds_;
    Eigen::SparseMatrix<double> pattern_;
    double t_{0.0};
};

/// The Formulation an integrator attaches to: exposes the LinearProblem and nothing else.
class LinearFormulation final : public Formulation {
  public:
    explicit LinearFormulation(Eigen::MatrixXd A) : problem_(std::move(A)) {}
    std::string name() const override { return "linear test problem"; }
    ProblemInterface interface() const override { return ProblemInterface::kFirstOrderDae; }
    FirstOrderProblem* first_order() override { return &problem_; }
    const Model& model() const override { return model_; }
    const std::vector<FrameState>& node_states() const override { return states_; }
    const double* multipliers(int) const override { return nullptr; }
    double time() const override { return problem_.time(); }
    Invariants ComputeInvariants() const override { return {}; }
    void set_threads(int) override {}
    LinearProblem& problem() { return problem_; }

  private:
    LinearProblem problem_;
    Model model_;
    std::vector<FrameState> states_;
};

/// The oscillator (1) with angular frequency w.
inline Eigen::MatrixXd OscillatorMatrix(double w) {
    Eigen::MatrixXd A(2, 2);
    A << 0.0, 1.0, -w * w, 0.0;
    return A;
}

/// Exact solution (2) at t from y0 = (x0, v0).
inline Eigen::Vector2d OscillatorExact(double w, const Eigen::Vector2d& y0, double t) {
    const double c = std::cos(w * t), s = std::sin(w * t);
    return {y0[0] * c + y0[1] / w * s, -y0[0] * w * s + y0[1] * c};
}

/// Integrates the oscillator (1) from y0 over [0, tf] with nsteps constant steps; Newton
/// converges in one iteration (linear problem, exact Jacobian), to a residual tolerance far
/// below the truncation errors the tests measure.
inline Eigen::Vector2d IntegrateOscillator(Integrator& integ, double w, const Eigen::Vector2d& y0,
                                           double tf, int nsteps) {
    LinearFormulation f(OscillatorMatrix(w));
    SolverSettings s;
    s.residual_tolerance = 1e-13 * (1.0 + w * w);
    s.max_iterations = 10;
    integ.Attach(f, s);
    LinearProblem& p = f.problem();
    p.y() = y0;
    p.SetTime(0.0);
    const double h = tf / nsteps;
    p.SolveInitialDerivatives(s, h);
    integ.Start(0.0, h);
    double t = 0.0;
    for (int k = 0; k < nsteps; ++k) {
        const StepStats st = integ.Advance(t, h);
        if (!st.converged) throw RunError("linear oscillator: step failed: " + st.failure);
        t = (k + 1) * h;
    }
    return p.y();
}

}  // namespace mbstep::test
