// mbstep — `hht, alpha [, modified]` (equations in hht.hpp).
#include "hht.hpp"

#include <cmath>
#include <sstream>

#include "mbstep/common.hpp"

namespace mbstep::newmark {

void Hht::CheckAlpha(double alpha) {
    if (!(alpha >= -1.0 / 3.0 && alpha <= 0.0)) {
        std::ostringstream os;
        os << "hht: alpha must be in [-1/3, 0], got " << alpha;
        throw RunError(os.str());
    }
}

Hht::Hht(double alpha, bool modified) : alpha_(alpha), modified_(modified) {
    CheckAlpha(alpha);
    beta_ = 0.25 * (1.0 - alpha) * (1.0 - alpha);  // eq. (19)
    gamma_ = 0.5 * (1.0 - 2.0 * alpha);
}

void Hht::Attach(Formulation& f, const SolverSettings& s) {
    formulation_ = &f;
    problem_ = f.second_order();
    if (!problem_)
        throw RunError(
            "integrator 'hht' needs a second-order DAE formulation (euler parameters, euler "
            "angles, lagrangian); '" +
            f.name() + "' is not one");
    if (!problem_->vector_space())
        throw RunError(
            "integrator 'hht' needs a vector-space formulation (euler parameters, euler angles, "
            "lagrangian); '" +
            f.name() + "' is a Lie group formulation");
    rates_ = modified_ ? problem_->unit_quaternion_rates() : nullptr;
    if (modified_ && !rates_)
        throw RunError(
            "integrator 'hht, ..., modified' needs a formulation with Euler parameters "
            "(euler parameters); '" +
            f.name() + "' has none");
    nv_ = problem_->num_velocities();
    nc_ = problem_->num_constraints();
    newton_ = std::make_unique<NewtonSolver>(s);
}

void Hht::Start(double t0, double h) {
    problem_->SetTime(t0);
    problem_->InitialConditions(v_n_, a_n_, lambda_n_);
    q_n_ = problem_->q();
    problem_->Evaluate(v_n_, a_n_, lambda_n_, Ma_, f_n_, phi_);
    problem_->AfterConvergence(v_n_, lambda_n_);
    q_ = q_n_;
    v_ = v_n_;
    a_ = a_n_;
    lambda_ = lambda_n_;
    // The fixed pattern of (5), from one evaluation.
    h_ = last_h_ = h;
    // (2m)'s w, one per quaternion, set by Advance; zero for the pattern below.
    w_n_.clear();
    if (rates_) rates_->AngularVelocities(q_n_, v_n_, a_n_, 0.0, w_n_);
    for (Eigen::Vector3d& w : w_n_) w.setZero();
    Eigen::SparseMatrix<double> J;
    IterationMatrix(J);
    newton_->Setup(J);
}

void Hht::UpdateKinematics() {
    const double h = h_;
    q_ = q_n_ + h * v_n_ + h * h * (0.5 - beta_) * a_n_ + h * h * beta_ * a_;  // (1)
    v_ = v_n_ + h * (1.0 - gamma_) * a_n_ + h * gamma_ * a_;                   // (2)
    if (rates_) rates_->Velocities(q_, a_, w_n_, h * gamma_, v_);              // (2m)
    problem_->set_q(q_);
}

void Hht::IterationMatrix(Eigen::SparseMatrix<double>& J) {
    problem_->Evaluate(v_, a_, lambda_, jac_);
    const double h = h_, bh2 = beta_ * h * h;
    // D = dv/da: gamma h I, and the Euler-parameter blocks (69) of `modified` (fixed pattern).
    fD_.Begin(nv_, nv_);
    if (rates_) {
        rates_->VelocityDerivative(q_, a_, w_n_, h * gamma_, bh2, fD_);
    } else {
        for (int i = 0; i < nv_; ++i) fD_.Add(i, i, gamma_ * h);
    }
    fD_.Finish(D_);
    const Eigen::SparseMatrix<double>& CD = cd_.Compute(jac_.C, D_);
    // (5): A11 = M + bh2 Kq + (1 + alpha) bh2 K + (1 + alpha) C D, (1 + alpha) L, and
    // d(kappa phi)/da = gamma h B, scaled; into J's fixed pattern (the first call makes it).
    if (J.nonZeros() == 0)
        J = SparseAccumulator::UnionPattern(nv_ + nc_, nv_ + nc_,
                                            {{&jac_.M, 0, 0},
                                             {&jac_.Kq_inertia, 0, 0},
                                             {&jac_.K, 0, 0},
                                             {&CD, 0, 0},
                                             {&jac_.L, 0, nv_},
                                             {&jac_.B, nv_, 0}},
                                            false);
    acc_.Begin(J);
    acc_.Add(0, jac_.M, 0, 0, 1.0);
    acc_.Add(1, jac_.Kq_inertia, 0, 0, bh2);
    acc_.Add(2, jac_.K, 0, 0, (1.0 + alpha_) * bh2);
    acc_.Add(3, CD, 0, 0, 1.0 + alpha_);
    acc_.Add(4, jac_.L, 0, nv_, 1.0 + alpha_);
    acc_.Add(5, jac_.B, nv_, 0, 1.0);
}

class HhtSystem final : public NewtonSystem {
  public:
    explicit HhtSystem(Hht& m) : m_(m) {}
    void Residual(Eigen::VectorXd& r) override {
        Hht& m = m_;
        m.problem_->Evaluate(m.v_, m.a_, m.lambda_, m.Ma_, m.f_, m.phi_);
        r.resize(m.nv_ + m.nc_);
        r.head(m.nv_) = m.Ma_ + (1.0 + m.alpha_) * m.f_ - m.alpha_ * m.f_n_;  // (3)
        r.tail(m.nc_) = m.kappa() * m.phi_;                                   // (4)
    }
    void ScaleForSolve(Eigen::VectorXd& rhs) const override {
        rhs.tail(m_.nc_) /= m_.gamma_ * m_.h_;  // (5)
    }
    void Jacobian(Eigen::SparseMatrix<double>& J) override { m_.IterationMatrix(J); }
    void Update(const Eigen::VectorXd& dx) override {
        m_.a_ += dx.head(m_.nv_);
        m_.lambda_ += dx.tail(m_.nc_);
        m_.UpdateKinematics();
    }
    std::string DescribeEquation(int row) const override {
        return m_.problem_->DescribeEquation(row);
    }

  private:
    Hht& m_;
};

StepStats Hht::Advance(double t, double h) {
    h_ = h;
    if (h != last_h_) newton_->InvalidateJacobian();
    last_h_ = h;
    // (2m): w = L_n e'_n + h (1 - gamma) L_n e''_n, fixed during the step.
    if (rates_) rates_->AngularVelocities(q_n_, v_n_, a_n_, h * (1.0 - gamma_), w_n_);
    problem_->SetTime(t + h);
    a_ = a_n_;
    lambda_ = lambda_n_;
    UpdateKinematics();
    HhtSystem sys(*this);
    const NewtonResult r = newton_->Solve(sys);
    StepStats s;
    s.iterations = r.iterations;
    s.factorizations = r.factorizations;
    s.residual = r.residual;
    s.solution = r.solution;
    s.converged = r.converged;
    if (!r.converged) {
        std::ostringstream os;
        os << "at t = " << t + h << ": " << r.message;
        s.failure = os.str();
        problem_->SetTime(t);
        problem_->set_q(q_n_);
        return s;
    }
    // f_{n+1} at the converged point (the last residual may precede the last update).
    problem_->Evaluate(v_, a_, lambda_, Ma_, f_n_, phi_);
    q_n_ = q_;
    v_n_ = v_;
    a_n_ = a_;
    lambda_n_ = lambda_;
    problem_->AfterConvergence(v_n_, lambda_n_);
    return s;
}

}  // namespace mbstep::newmark
