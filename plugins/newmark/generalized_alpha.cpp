// mbstep — `generalized alpha` (equations in generalized_alpha.hpp).
#include "generalized_alpha.hpp"

#include <algorithm>
#include <sstream>

#include "mbstep/assembly/fixed_pattern.hpp"
#include "mbstep/io/deck_input.hpp"

namespace mbstep::newmark {

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

}  // namespace

// (1), (2)
GeneralizedAlphaCoefficients GeneralizedAlphaCoefficients::FromRho(double rho) {
    GeneralizedAlphaCoefficients k;
    k.alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
    k.alpha_f = rho / (rho + 1.0);
    k.gamma = 0.5 + k.alpha_f - k.alpha_m;
    k.beta = 0.25 * (k.gamma + 0.5) * (k.gamma + 0.5);
    return k;
}

/// Newton system of one step: unknowns (dx, dmu), eqs. (6)-(8), (10).
class GeneralizedAlpha::System final : public NewtonSystem {
  public:
    System(SecondOrderProblem& p, bool tangent) : p_(p), tangent_(tangent) {
        nv_ = p.num_velocities();
        nc_ = p.num_constraints();
    }
    int nv_{0}, nc_{0};
    // Step data.
    GeneralizedAlphaCoefficients k;
    double h{0.0}, beta_p{0.0}, gamma_p{0.0}, kappa{1.0}, s{1.0};
    const Eigen::VectorXd* q_n{nullptr};
    Eigen::VectorXd hdq, q1, v1, vdot1, a1, lambda1;

    void Configure() {
        p_.Retract(*q_n, hdq, q1);
        p_.set_q(q1);
    }

    void Residual(Eigen::VectorXd& r) override {
        p_.Evaluate(v1, vdot1, lambda1, Ma_, f_, phi_);
        r.resize(nv_ + nc_);
        r.head(nv_) = Ma_ + f_;      // (6)
        r.tail(nc_) = kappa * phi_;  // (7), scaled
    }
    void Jacobian(SpMat& J) override {
        p_.Evaluate(v1, vdot1, lambda1, jac_);
        // (10), into J's fixed pattern; K T, Kq T and B T by fixed product plans.
        acc_.Begin(J);
        acc_.Add(0, jac_.M, 0, 0, 1.0);
        acc_.Add(1, jac_.C, 0, 0, gamma_p / beta_p);
        if (tangent_) {
            p_.TangentOperator(hdq, T_);
            acc_.Add(2, kt_.Compute(jac_.K, T_), 0, 0, 1.0 / beta_p);
            acc_.Add(3, kqt_.Compute(jac_.Kq_inertia, T_), 0, 0, 1.0 / beta_p);
            acc_.Add(4, bt_.Compute(jac_.B, T_), nv_, 0, 1.0);
        } else {
            acc_.Add(2, jac_.K, 0, 0, 1.0 / beta_p);
            acc_.Add(3, jac_.Kq_inertia, 0, 0, 1.0 / beta_p);
            acc_.Add(4, jac_.B, nv_, 0, 1.0);
        }
        acc_.Add(5, jac_.L, 0, nv_, 1.0);
    }
    void ScaleForSolve(Eigen::VectorXd& rhs) const override {
        rhs.head(nv_) /= beta_p;  // (10)
        rhs.tail(nc_) /= kappa;
    }
    void Update(const Eigen::VectorXd& dx) override {
        // (8)
        const auto d = dx.head(nv_);
        hdq += d;
        v1 += gamma_p * d;
        vdot1 += beta_p * d;
        a1 += d / (h * h * k.beta);
        lambda1 += s * dx.tail(nc_);
        Configure();
    }
    std::string DescribeEquation(int row) const override { return p_.DescribeEquation(row); }

    /// The fixed pattern of (10): union of all blocks, T at a generic increment.
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

  private:
    SecondOrderProblem& p_;
    bool tangent_{true};
    Eigen::VectorXd Ma_, f_, phi_;
    SecondOrderProblem::Jacobians jac_;
    SpMat T_;
    SparseProduct kt_, kqt_, bt_;
    SparseAccumulator acc_{"generalized alpha"};
};

GeneralizedAlpha::GeneralizedAlpha(RhoParameter rho, bool tangent_operator)
    : rho_(std::move(rho)), tangent_operator_(tangent_operator) {}
GeneralizedAlpha::GeneralizedAlpha(const GeneralizedAlphaCoefficients& fixed, std::string name)
    : rho_(std::make_shared<ConstDrive>(0.0)),
      fixed_(true),
      fixed_k_(fixed),
      name_(std::move(name)) {}
GeneralizedAlpha::~GeneralizedAlpha() = default;

void GeneralizedAlpha::Attach(Formulation& f, const SolverSettings& s) {
    problem_ = f.second_order();
    if (!problem_)
        throw RunError("method '" + name_ +
                       "' needs a second-order formulation (`lie group`, "
                       "`euler parameters`, `euler angles`, `lagrangian`); '" +
                       f.name() + "' is first order");
    newton_ = std::make_unique<NewtonSolver>(s);
    system_ = std::make_unique<System>(*problem_, tangent_operator_);
}

void GeneralizedAlpha::Start(double t0, double /*h*/) {
    problem_->SetTime(t0);
    q_n_ = problem_->q();
    problem_->InitialConditions(v_n_, vdot_n_, lambda_n_);
    a_n_ = vdot_n_;
    newton_->Setup(system_->Pattern(v_n_, vdot_n_, lambda_n_));
    last_h_ = 0.0;
    last_rho_ = -1.0;
}

StepStats GeneralizedAlpha::Advance(double t, double h) {
    System& S = *system_;
    const double rho = fixed_ ? 0.0 : rho_.At(t + h);
    if (h != last_h_ || rho != last_rho_) newton_->InvalidateJacobian();
    last_h_ = h;
    last_rho_ = rho;
    const GeneralizedAlphaCoefficients k =
        fixed_ ? fixed_k_ : GeneralizedAlphaCoefficients::FromRho(rho);
    S.k = k;
    S.h = h;
    S.beta_p = (1.0 - k.alpha_m) / (h * h * k.beta * (1.0 - k.alpha_f));  // (9)
    S.gamma_p = k.gamma / (h * k.beta);                                   // (9)
    S.kappa = S.gamma_p;
    S.s = S.beta_p;
    S.q_n = &q_n_;

    // Predictor: vdot_{n+1} = vdot_n, lambda_{n+1} = lambda_n; a_{n+1} from (5); (3), (4).
    S.vdot1 = vdot_n_;
    S.lambda1 = lambda_n_;
    S.a1 =
        (k.alpha_f * vdot_n_ + (1.0 - k.alpha_f) * S.vdot1 - k.alpha_m * a_n_) / (1.0 - k.alpha_m);
    S.hdq = h * v_n_ + h * h * (0.5 - k.beta) * a_n_ + h * h * k.beta * S.a1;
    S.v1 = v_n_ + h * (1.0 - k.gamma) * a_n_ + h * k.gamma * S.a1;
    problem_->SetTime(t + h);
    S.Configure();

    const NewtonResult r = newton_->Solve(S);
    StepStats st;
    st.iterations = r.iterations;
    st.factorizations = r.factorizations;
    st.residual = r.residual;
    st.solution = r.solution;
    st.converged = r.converged;
    if (!r.converged) {
        std::ostringstream os;
        os << "at t = " << t + h << " (h = " << h << "): " << r.message;
        st.failure = os.str();
        // Back to the solved point n.
        problem_->SetTime(t);
        problem_->set_q(q_n_);
        problem_->AfterConvergence(v_n_, lambda_n_);
        newton_->InvalidateJacobian();
        return st;
    }
    q_n_ = S.q1;
    v_n_ = S.v1;
    vdot_n_ = S.vdot1;
    a_n_ = S.a1;
    lambda_n_ = S.lambda1;
    problem_->AfterConvergence(v_n_, lambda_n_);
    return st;
}

// Deck: `method: generalized alpha [, rho_inf] [, tangent operator, yes|no];`
void RegisterGeneralizedAlpha(Registry& r) {
    IntegratorDescriptor d;
    d.name = "generalized alpha";
    d.family = "newmark";
    d.description =
        "generalized-alpha (Chung-Hulbert / Arnold-Bruls); Lie group generalized-alpha on `lie "
        "group`";
    d.order = "2";
    d.tunable = true;
    d.parameters = {{"rho_inf", "0.9", "[0, 1] (drive)"},
                    {"tangent operator", "yes", "yes | no (T_exp in the iteration matrix)"}};
    d.reference =
        "Chung & Hulbert 1993; Arnold & Bruls 2007; Bruls, Cardona & Arnold 2012; Bottasso et al. "
        "2007";
    d.equations = "Chung & Hulbert eqs. (17), (20), (25); Arnold & Bruls eqs. (9)-(12)";
    d.steps = "1 step";
    d.stability = "unconditionally stable (linear); rho_inf at h omega -> inf";
    d.requires_interface = ProblemInterface::kSecondOrderDae;
    d.default_formulation = "lie group";
    d.make = [](DeckInput& in) -> std::unique_ptr<Integrator> {
        RhoParameter rho(std::make_shared<ConstDrive>(0.9));
        if (in.HasArg() && !in.IsKeyword("tangent operator")) {
            const SourceLocation where = in.Where();
            DrivePtr drive = in.GetDrive("rho_inf");
            if (drive->IsConstant()) {
                const double v = drive->Value(0.0);
                if (!(v >= 0.0 && v <= 1.0)) {
                    std::ostringstream os;
                    os << "generalized alpha: rho_inf must be in [0, 1], got " << v;
                    in.Fail(where, os.str());
                }
            }
            rho = RhoParameter(drive);
            if (in.HasArg() && !in.IsKeyword("tangent operator"))
                in.Fail(in.Where(),
                        "generalized alpha: expected `tangent operator, yes|no` after rho_inf");
            else if (!in.HasArg())
                return std::make_unique<GeneralizedAlpha>(rho, true);
        } else if (!in.HasArg()) {
            return std::make_unique<GeneralizedAlpha>(rho, true);
        }
        // `tangent operator` was consumed.
        const bool tangent = in.GetKeyword("tangent operator", {"yes", "no"}) == "yes";
        return std::make_unique<GeneralizedAlpha>(rho, tangent);
    };
    r.Add(std::move(d));
}

}  // namespace mbstep::newmark
