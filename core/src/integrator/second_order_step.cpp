// mbstep — SecondOrderStep (equations in mbstep/integrator/second_order_step.hpp; the comments
// below use its numbers).
#include "mbstep/integrator/second_order_step.hpp"

#include <Eigen/SparseCore>
#include <sstream>
#include <vector>

#include "mbstep/assembly/fixed_pattern.hpp"
#include "mbstep/common.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/solver/newton.hpp"

namespace mbstep {

namespace {

using SpMat = Eigen::SparseMatrix<double>;

// The structure of A with every value set to 1 (products of such matrices do not cancel).
SpMat Ones(const SpMat& A) {
    SpMat B = A;
    for (int k = 0; k < B.nonZeros(); ++k) B.valuePtr()[k] = 1.0;
    return B;
}

void AddTriplets(std::vector<Eigen::Triplet<double>>& t, const SpMat& A, int r0, int c0) {
    for (int c = 0; c < A.outerSize(); ++c)
        for (SpMat::InnerIterator it(A, c); it; ++it)
            t.emplace_back(r0 + static_cast<int>(it.row()), c0 + c, 0.0);
}

void CopyResult(const NewtonResult& r, StepStats& s) {
    s.iterations = r.iterations;
    s.factorizations = r.factorizations;
    s.residual = r.residual;
    s.solution = r.solution;
    s.converged = r.converged;
}

}  // namespace

/// One form's step loop; the Newton system of the step is the stepper itself.
class SecondOrderStep::Stepper : public NewtonSystem {
  public:
    Stepper(SecondOrderStep& m, SecondOrderProblem& p, const SolverSettings& s)
        : newton(std::make_unique<NewtonSolver>(s)),
          m_(m),
          p_(p),
          name_(m.name()),
          nv_(p.num_velocities()),
          nc_(p.num_constraints()) {}
    virtual void Start(double t0, double h) = 0;
    virtual StepStats Advance(double t, double h) = 0;
    std::string DescribeEquation(int row) const override { return p_.DescribeEquation(row); }

    std::unique_ptr<NewtonSolver> newton;

  protected:
    SecondOrderStep& m_;  // the method: coefficients and switches
    SecondOrderProblem& p_;
    const std::string name_;  // the method's name (messages)
    const int nv_, nc_;
};

// ---------------------------------------------------------------------------------------------
// kAlgorithmicAcceleration: (1), (2), (A1)-(A5). Newton unknowns (dx, dmu).
class SecondOrderStep::AlgorithmicAcceleration final : public SecondOrderStep::Stepper {
  public:
    AlgorithmicAcceleration(SecondOrderStep& m, SecondOrderProblem& p, const SolverSettings& s)
        : Stepper(m, p, s), tangent_(m.DoTangentOperator()), acc_(name_.c_str()) {}

    void Start(double t0, double /*h*/) override {
        p_.SetTime(t0);
        q_n_ = p_.q();
        p_.InitialConditions(v_n_, vdot_n_, lambda_n_);
        a_n_ = vdot_n_;
        newton->Setup(Pattern(v_n_, vdot_n_, lambda_n_));
        last_h_ = 0.0;
        last_rho_ = -1.0;
    }

    StepStats Advance(double t, double h) override {
        const double rho = m_.DoRho(t + h);
        if (h != last_h_ || rho != last_rho_) newton->InvalidateJacobian();
        last_h_ = h;
        last_rho_ = rho;
        k_ = m_.DoCoefficients(rho);
        const NewmarkCoefficients& k = k_;
        h_ = h;
        beta_p_ = (1.0 - k.alpha_m) / (h * h * k.beta * (1.0 - k.alpha_f));  // (A4)
        gamma_p_ = k.gamma / (h * k.beta);                                   // (A4)
        kappa_ = gamma_p_;
        s_ = beta_p_;

        // Predictor: vdot_{n+1} = vdot_n, lambda_{n+1} = lambda_n; a_{n+1} from (A1); (1), (2).
        vdot1_ = vdot_n_;
        lambda1_ = lambda_n_;
        a1_ = (k.alpha_f * vdot_n_ + (1.0 - k.alpha_f) * vdot1_ - k.alpha_m * a_n_) /
              (1.0 - k.alpha_m);
        hdq_ = h * v_n_ + h * h * (0.5 - k.beta) * a_n_ + h * h * k.beta * a1_;
        v1_ = v_n_ + h * (1.0 - k.gamma) * a_n_ + h * k.gamma * a1_;
        p_.SetTime(t + h);
        Configure();

        const NewtonResult r = newton->Solve(*this);
        StepStats st;
        CopyResult(r, st);
        if (!r.converged) {
            std::ostringstream os;
            os << "at t = " << t + h << " (h = " << h << "): " << r.message;
            st.failure = os.str();
            // Back to the solved point n.
            p_.SetTime(t);
            p_.set_q(q_n_);
            p_.AfterConvergence(v_n_, lambda_n_);
            newton->InvalidateJacobian();
            return st;
        }
        q_n_ = q1_;
        v_n_ = v1_;
        vdot_n_ = vdot1_;
        a_n_ = a1_;
        lambda_n_ = lambda1_;
        p_.AfterConvergence(v_n_, lambda_n_);
        return st;
    }

    void Residual(Eigen::VectorXd& r) override {
        p_.Evaluate(v1_, vdot1_, lambda1_, Ma_, f_, phi_);
        r.resize(nv_ + nc_);
        r.head(nv_) = Ma_ + f_;       // (A2)
        r.tail(nc_) = kappa_ * phi_;  // (A2), weighted
    }
    void Jacobian(SpMat& J) override {
        p_.Evaluate(v1_, vdot1_, lambda1_, jac_);
        // (A5), into J's fixed pattern; K T, Kq T and B T by fixed product plans.
        acc_.Begin(J);
        acc_.Add(0, jac_.M, 0, 0, 1.0);
        acc_.Add(1, jac_.C, 0, 0, gamma_p_ / beta_p_);
        if (tangent_) {
            p_.TangentOperator(hdq_, T_);
            acc_.Add(2, kt_.Compute(jac_.K, T_), 0, 0, 1.0 / beta_p_);
            acc_.Add(3, kqt_.Compute(jac_.Kq_inertia, T_), 0, 0, 1.0 / beta_p_);
            acc_.Add(4, bt_.Compute(jac_.B, T_), nv_, 0, 1.0);
        } else {
            acc_.Add(2, jac_.K, 0, 0, 1.0 / beta_p_);
            acc_.Add(3, jac_.Kq_inertia, 0, 0, 1.0 / beta_p_);
            acc_.Add(4, jac_.B, nv_, 0, 1.0);
        }
        acc_.Add(5, jac_.L, 0, nv_, 1.0);
    }
    void ScaleForSolve(Eigen::VectorXd& rhs) const override {
        rhs.head(nv_) /= beta_p_;  // (A5)
        rhs.tail(nc_) /= kappa_;
    }
    void Update(const Eigen::VectorXd& dx) override {
        // (A3)
        const auto d = dx.head(nv_);
        hdq_ += d;
        v1_ += gamma_p_ * d;
        vdot1_ += beta_p_ * d;
        a1_ += d / (h_ * h_ * k_.beta);
        lambda1_ += s_ * dx.tail(nc_);
        Configure();
    }

  private:
    void Configure() {
        p_.Retract(q_n_, hdq_, q1_);
        p_.set_q(q1_);
    }

    /// The fixed pattern of (A5): union of all blocks, T at a generic increment.
    SpMat Pattern(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                  const Eigen::VectorXd& lambda) {
        p_.Evaluate(v, a, lambda, jac_);
        p_.TangentOperator(Eigen::VectorXd::Constant(nv_, 0.1), T_);
        const SpMat T1 = Ones(T_);
        const SpMat KT = (Ones(jac_.K) + Ones(jac_.Kq_inertia)) * T1;
        const SpMat BT = Ones(jac_.B) * T1;
        std::vector<Eigen::Triplet<double>> t;
        AddTriplets(t, jac_.M, 0, 0);
        AddTriplets(t, jac_.C, 0, 0);
        AddTriplets(t, jac_.K, 0, 0);
        AddTriplets(t, jac_.Kq_inertia, 0, 0);
        AddTriplets(t, KT, 0, 0);
        AddTriplets(t, jac_.L, 0, nv_);
        AddTriplets(t, jac_.B, nv_, 0);
        AddTriplets(t, BT, nv_, 0);
        // The diagonal of the velocity rows (the LU pivots there); the multiplier block stays
        // structurally empty, so `schur` can eliminate each node's unknowns on their own.
        for (int i = 0; i < nv_; ++i) t.emplace_back(i, i, 0.0);
        SpMat P(nv_ + nc_, nv_ + nc_);
        P.setFromTriplets(t.begin(), t.end());
        P.makeCompressed();
        return P;
    }

    bool tangent_{true};
    // Step data: (A4), the scaling, and the iterate.
    NewmarkCoefficients k_;
    double h_{0.0}, beta_p_{0.0}, gamma_p_{0.0}, kappa_{1.0}, s_{1.0};
    Eigen::VectorXd hdq_, q1_, v1_, vdot1_, a1_, lambda1_;
    // Solved point n.
    Eigen::VectorXd q_n_, v_n_, vdot_n_, a_n_, lambda_n_;
    double last_h_{0.0}, last_rho_{-1.0};
    Eigen::VectorXd Ma_, f_, phi_;
    SecondOrderProblem::Jacobians jac_;
    SpMat T_;
    SparseProduct kt_, kqt_, bt_;
    SparseAccumulator acc_;
};

// ---------------------------------------------------------------------------------------------
// kWeightedForces: (1), (2), (W1)-(W3), written with HHT's alpha = -alpha_f. Newton unknowns
// (a, lambda).
class SecondOrderStep::WeightedForces final : public SecondOrderStep::Stepper {
  public:
    WeightedForces(SecondOrderStep& m, SecondOrderProblem& p, const SolverSettings& s,
                   const UnitQuaternionRates* rates)
        : Stepper(m, p, s), rates_(rates), acc_(name_.c_str()) {}

    void Start(double t0, double h) override {
        last_rho_ = m_.DoRho(t0 + h);
        SetCoefficients(m_.DoCoefficients(last_rho_));
        p_.SetTime(t0);
        p_.InitialConditions(v_n_, a_n_, lambda_n_);
        q_n_ = p_.q();
        p_.Evaluate(v_n_, a_n_, lambda_n_, Ma_, f_n_, phi_);
        p_.AfterConvergence(v_n_, lambda_n_);
        q_ = q_n_;
        v_ = v_n_;
        a_ = a_n_;
        lambda_ = lambda_n_;
        // The fixed pattern of (W2), from one evaluation.
        h_ = last_h_ = h;
        // (W3)'s w, one per quaternion, set by Advance; zero for the pattern below.
        w_n_.clear();
        if (rates_) rates_->AngularVelocities(q_n_, v_n_, a_n_, 0.0, w_n_);
        for (Eigen::Vector3d& w : w_n_) w.setZero();
        SpMat J;
        IterationMatrix(J);
        newton->Setup(J);
    }

    StepStats Advance(double t, double h) override {
        const double rho = m_.DoRho(t + h);
        SetCoefficients(m_.DoCoefficients(rho));
        h_ = h;
        if (h != last_h_ || rho != last_rho_) newton->InvalidateJacobian();
        last_h_ = h;
        last_rho_ = rho;
        // (W3): w = L_n e'_n + h (1 - gamma) L_n e''_n, fixed during the step.
        if (rates_) rates_->AngularVelocities(q_n_, v_n_, a_n_, h * (1.0 - gamma_), w_n_);
        p_.SetTime(t + h);
        a_ = a_n_;
        lambda_ = lambda_n_;
        UpdateKinematics();
        const NewtonResult r = newton->Solve(*this);
        StepStats s;
        CopyResult(r, s);
        if (!r.converged) {
            std::ostringstream os;
            os << "at t = " << t + h << ": " << r.message;
            s.failure = os.str();
            p_.SetTime(t);
            p_.set_q(q_n_);
            return s;
        }
        // f_{n+1} at the converged point (the last residual may precede the last update).
        p_.Evaluate(v_, a_, lambda_, Ma_, f_n_, phi_);
        q_n_ = q_;
        v_n_ = v_;
        a_n_ = a_;
        lambda_n_ = lambda_;
        p_.AfterConvergence(v_n_, lambda_n_);
        return s;
    }

    void Residual(Eigen::VectorXd& r) override {
        p_.Evaluate(v_, a_, lambda_, Ma_, f_, phi_);
        r.resize(nv_ + nc_);
        r.head(nv_) = Ma_ + (1.0 + alpha_) * f_ - alpha_ * f_n_;  // (W1)
        r.tail(nc_) = kappa() * phi_;                             // (W1), weighted
    }
    void ScaleForSolve(Eigen::VectorXd& rhs) const override {
        rhs.tail(nc_) /= gamma_ * h_;  // (W2)
    }
    void Jacobian(SpMat& J) override { IterationMatrix(J); }
    void Update(const Eigen::VectorXd& dx) override {
        a_ += dx.head(nv_);
        lambda_ += dx.tail(nc_);
        UpdateKinematics();
    }

  private:
    void SetCoefficients(const NewmarkCoefficients& k) {
        if (k.alpha_m != 0.0) {
            std::ostringstream os;
            os << name_ << ": the weighted-force form has alpha_m = 0, got " << k.alpha_m;
            throw RunError(os.str());
        }
        alpha_ = -k.alpha_f;  // the alpha of HHT
        beta_ = k.beta;
        gamma_ = k.gamma;
    }
    double kappa() const { return gamma_ / (beta_ * h_); }

    void UpdateKinematics() {  // q, v from a: (1), (2), (W3)
        const double h = h_;
        q_ = q_n_ + h * v_n_ + h * h * (0.5 - beta_) * a_n_ + h * h * beta_ * a_;  // (1)
        v_ = v_n_ + h * (1.0 - gamma_) * a_n_ + h * gamma_ * a_;                   // (2)
        if (rates_) rates_->Velocities(q_, a_, w_n_, h * gamma_, v_);              // (W3)
        p_.set_q(q_);
    }

    void IterationMatrix(SpMat& J) {
        p_.Evaluate(v_, a_, lambda_, jac_);
        const double h = h_, bh2 = beta_ * h * h;
        // D = dv/da: gamma h I, and the Euler-parameter blocks of (W3) ([Sherif et al. 2019]
        // eq. (69)), in a fixed pattern.
        fD_.Begin(nv_, nv_);
        if (rates_) {
            rates_->VelocityDerivative(q_, a_, w_n_, h * gamma_, bh2, fD_);
        } else {
            for (int i = 0; i < nv_; ++i) fD_.Add(i, i, gamma_ * h);
        }
        fD_.Finish(D_);
        const SpMat& CD = cd_.Compute(jac_.C, D_);
        // (W2): A11 = M + bh2 Kq + (1 + alpha) bh2 K + (1 + alpha) C D, (1 + alpha) L, and
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

    const UnitQuaternionRates* rates_{nullptr};  // the modified update's quaternion rates
    double alpha_{0.0}, beta_{0.25}, gamma_{0.5};
    double h_{0.0}, last_h_{0.0}, last_rho_{0.0};
    // State at t_n and the unknowns of the step.
    Eigen::VectorXd q_n_, v_n_, a_n_, lambda_n_, f_n_;
    Eigen::VectorXd q_, v_, a_, lambda_;
    std::vector<Eigen::Vector3d> w_n_;  // (W3): w of each node
    Eigen::VectorXd Ma_, f_, phi_;
    SecondOrderProblem::Jacobians jac_;
    // The iteration matrix (W2) in its fixed pattern: D = dv/da, C D, and the accumulated sum.
    FixedPatternMatrix fD_;
    SpMat D_;
    SparseProduct cd_;
    SparseAccumulator acc_;
};

// ---------------------------------------------------------------------------------------------
SecondOrderStep::SecondOrderStep() = default;
SecondOrderStep::~SecondOrderStep() = default;

const NewtonSolver* SecondOrderStep::newton_solver() const {
    return stepper_ ? stepper_->newton.get() : nullptr;
}

void SecondOrderStep::Attach(Formulation& f, const SolverSettings& s) {
    SecondOrderProblem* problem = f.second_order();
    if (DoForm() == NewmarkForm::kAlgorithmicAcceleration) {
        if (!problem)
            throw RunError("method '" + name() +
                           "' needs a second-order formulation (`lie group`, "
                           "`euler parameters`, `euler angles`, `lagrangian`); '" +
                           f.name() + "' is first order");
        stepper_ = std::make_unique<AlgorithmicAcceleration>(*this, *problem, s);
        return;
    }
    if (!problem)
        throw RunError("integrator '" + name() +
                       "' needs a second-order DAE formulation (euler parameters, euler "
                       "angles, lagrangian); '" +
                       f.name() + "' is not one");
    if (!problem->vector_space())
        throw RunError("integrator '" + name() +
                       "' needs a vector-space formulation (euler parameters, euler angles, "
                       "lagrangian); '" +
                       f.name() + "' is a Lie group formulation");
    const UnitQuaternionRates* rates =
        DoUnitQuaternionRates() ? problem->unit_quaternion_rates() : nullptr;
    if (DoUnitQuaternionRates() && !rates)
        throw RunError("integrator '" + name() +
                       ", ..., modified' needs a formulation with Euler parameters "
                       "(euler parameters); '" +
                       f.name() + "' has none");
    stepper_ = std::make_unique<WeightedForces>(*this, *problem, s, rates);
}

void SecondOrderStep::Start(double t0, double h) { stepper_->Start(t0, h); }

StepStats SecondOrderStep::Advance(double t, double h) { return stepper_->Advance(t, h); }

}  // namespace mbstep
