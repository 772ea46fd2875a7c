#include "mbstep/integrator/first_order.hpp"

#include <sstream>

#include "mbstep/io/deck_input.hpp"

namespace mbstep {

std::pair<RhoParameter, RhoParameter> RhoParameter::Read(DeckInput& in, double default_rho,
                                                         const std::string& what) {
    auto read_one = [&](const char* label) {
        const SourceLocation where = in.Where();
        DrivePtr d = in.GetDrive(label);
        if (d->IsConstant()) {
            const double v = d->Value(0.0);
            if (!(v >= 0.0 && v <= 1.0)) {
                std::ostringstream os;
                os << what << ": " << label << " must be in [0, 1], got " << v;
                in.Fail(where, os.str());
            }
        }
        return RhoParameter(d);
    };
    RhoParameter rho(std::make_shared<ConstDrive>(default_rho));
    if (in.HasArg()) rho = read_one("rho_inf");
    RhoParameter alg = rho;
    if (in.HasArg()) alg = read_one("algebraic rho_inf");
    return {rho, alg};
}

double RhoParameter::At(double t) const {
    const double v = drive_->Value(t);
    if (!(v >= 0.0 && v <= 1.0)) {
        std::ostringstream os;
        os << "rho_inf drive gives " << v << " at t = " << t << "; accepted range is [0, 1]";
        throw RunError(os.str());
    }
    return v;
}

void FirstOrderIntegrator::Attach(Formulation& f, const SolverSettings& s) {
    problem_ = f.first_order();
    if (!problem_)
        throw RunError("integrator '" + name() + "' needs a first-order DAE formulation (cgr); '" +
                       f.name() + "' is not one");
    newton_ = std::make_unique<NewtonSolver>(s);
    if (std::shared_ptr<Eigen::SparseMatrix<double>> shared = problem_->shared_pattern())
        newton_->SetupShared(std::move(shared));
    else
        newton_->Setup(problem_->pattern());
}

namespace {
class PointSystem final : public NewtonSystem {
  public:
    PointSystem(FirstOrderProblem& p, double c) : p_(p), c_(c) {}
    void Residual(Eigen::VectorXd& r) override { p_.Residual(c_, r); }
    void Jacobian(Eigen::SparseMatrix<double>& J) override { p_.Jacobian(c_, J); }
    void ResidualAndJacobian(Eigen::VectorXd& r, Eigen::SparseMatrix<double>& J) override {
        p_.ResidualAndJacobian(c_, r, J);
    }
    void Update(const Eigen::VectorXd& dx) override { p_.Update(dx, c_); }
    std::string DescribeEquation(int row) const override { return p_.DescribeEquation(row); }
    /// A differential unknown y'_j enters the residual as y'_j and through y_j = y_pred + c y'_j
    /// (J = dr/dy' + c dr/dy): s_j = |y'_j| + |y_j| / c. An algebraic one (a multiplier) as
    /// itself: s_j = |y_j|.
    void UnknownScales(Eigen::VectorXd& s) const override {
        const int n = static_cast<int>(p_.pattern().rows());
        const Eigen::VectorXd& y = p_.y();
        const Eigen::VectorXd& yp = p_.yp();
        const std::vector<DofKind>& kinds = p_.dof_kinds();
        s.resize(n);
        for (int k = 0; k < n; ++k) {
            const int j = p_.unknown_dof(k);
            if (j < 0 || j >= y.size() || j >= yp.size() || j >= static_cast<int>(kinds.size())) {
                s.resize(0);  // a numbering this estimate does not know
                return;
            }
            s[k] = kinds[j] == DofKind::kAlgebraic || !(c_ > 0.0)
                       ? std::abs(y[j])
                       : std::abs(yp[j]) + std::abs(y[j]) / c_;
        }
    }

    void ResidualNoise(Eigen::VectorXd& noise) const override { p_.ResidualNoise(c_, noise); }

  private:
    FirstOrderProblem& p_;
    double c_;
};
}  // namespace

NewtonResult FirstOrderIntegrator::SolvePoint(double c) {
    if (c != last_c_) newton_->InvalidateJacobian();
    last_c_ = c;
    PointSystem sys(*problem_, c);
    return newton_->Solve(sys);
}

StepStats FirstOrderIntegrator::MakeStats(const NewtonResult& r, double t) const {
    StepStats s;
    s.iterations = r.iterations;
    s.factorizations = r.factorizations;
    s.residual = r.residual;
    s.solution = r.solution;
    s.converged = r.converged;
    if (!r.converged) {
        std::ostringstream os;
        os << "at t = " << t << ": " << r.message;
        s.failure = os.str();
    }
    return s;
}

}  // namespace mbstep
