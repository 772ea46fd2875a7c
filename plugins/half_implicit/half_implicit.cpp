// mbstep — `half implicit`: half-implicit symplectic Euler (equations in half_implicit.hpp).
#include "half_implicit.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mbstep/common.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep::half_implicit {

namespace {
// Relative size below which a centre-of-mass offset or an off-diagonal inertia entry counts as
// zero (inertia data are typed with ~16 digits; the Lie group mass matrix is then diagonal to
// round-off).
constexpr double kPrincipalTolerance = 1e-12;
}  // namespace

void HalfImplicitEuler::Attach(Formulation& f, const SolverSettings& s) {
    formulation_ = &f;
    problem_ = f.second_order();
    if (!problem_ || f.name() != "lie group")
        throw RunError(
            "integrator 'half implicit' needs the `lie group` formulation (constant "
            "diagonal mass matrix, orientation update R exp(h W)); '" +
            f.name() + "' is not it");
    const Model& model = f.model();
    for (const auto& n : model.nodes())
        if (n.kind == NodeKind::kStatic)
            throw RunError(
                "integrator 'half implicit' inverts the mass matrix: static structural "
                "node " +
                std::to_string(n.label) +
                " has no inertia (make it dynamic with a body, or use an implicit "
                "method)");
    // Constant diagonal mass matrix: every body's centre of mass at its node and its inertia
    // diagonal in the node frame (the paper's central principal body frames, sec. 2).
    for (const auto& el : model.elements()) {
        std::vector<NodeInertia> local(el->nodes().size());
        el->AddInertia(local);
        for (size_t k = 0; k < local.size(); ++k) {
            const NodeInertia& in = local[k];
            if (in.m == 0.0 && in.J.isZero(0.0)) continue;
            const double jscale = std::max(in.J.diagonal().cwiseAbs().maxCoeff(), 1e-300);
            const double off = (in.J - Mat3(in.J.diagonal().asDiagonal())).cwiseAbs().maxCoeff();
            const double ds = in.m > 0.0 ? in.s.norm() / in.m : in.s.norm();
            std::ostringstream os;
            if (ds >
                kPrincipalTolerance * std::max(1.0, std::sqrt(jscale / std::max(in.m, 1e-300))))
                os << "its centre of mass is " << ds << " from node "
                   << model.nodes()[el->nodes()[k]].label;
            else if (off > kPrincipalTolerance * jscale)
                os << "its inertia is not diagonal in the frame of node "
                   << model.nodes()[el->nodes()[k]].label << " (largest off-diagonal entry " << off
                   << ")";
            if (!os.str().empty())
                throw RunError(
                    "integrator 'half implicit' needs a constant diagonal mass matrix "
                    "(central principal node frames): " +
                    el->statement() + " " + std::to_string(el->label()) + " (" + el->type() +
                    "): " + os.str() +
                    "; put the node at the centre of mass with principal axes, or use "
                    "an implicit method");
        }
    }
    settings_ = s;
    nv_ = problem_->num_velocities();
    nc_ = problem_->num_constraints();
    solver_ = MakeLinearSolver(s.linear_solver, OrderingFromName(s.linear_solver_ordering),
                               s.linear_solver_scale);
    pattern_outer_.clear();
    pattern_inner_.clear();
    zero_v_ = Eigen::VectorXd::Zero(nv_);
    zero_l_ = Eigen::VectorXd::Zero(nc_);
}

void HalfImplicitEuler::Start(double t0, double h) {
    (void)h;
    problem_->SetTime(t0);
    Eigen::VectorXd a0;
    problem_->InitialConditions(v_n_, a0, lambda_n_);
    q_n_ = problem_->q();
    // The mass matrix, checked to be diagonal (and positive), inverted once.
    problem_->Evaluate(v_n_, zero_v_, lambda_n_, jac_);
    minv_.setZero(nv_);
    for (int k = 0; k < jac_.M.outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(jac_.M, k); it; ++it) {
            if (it.row() == it.col())
                minv_[it.row()] = it.value();
            else if (it.value() != 0.0)
                throw RunError("integrator 'half implicit': the mass matrix is not diagonal at " +
                               problem_->DescribeEquation(static_cast<int>(it.row())));
        }
    for (int i = 0; i < nv_; ++i) {
        if (!(minv_[i] > 0.0))
            throw RunError("integrator 'half implicit': zero or negative mass/inertia at " +
                           problem_->DescribeEquation(i) +
                           " (every principal moment of inertia must be positive)");
        minv_[i] = 1.0 / minv_[i];
    }
    problem_->AfterConvergence(v_n_, lambda_n_);
}

void HalfImplicitEuler::Propagate(const Eigen::VectorXd& mu, double h, Eigen::VectorXd& q1,
                                  Eigen::VectorXd& v1) {
    // (3), (4a)-(4b): v_{n+1} = v_n - h M^-1 (f + L lambda_n), lambda_n = mu / h^2.
    v1 = v_n_ - h * minv_.cwiseProduct(f0_) - (minv_l_ * mu) / h;
    // (4c)-(4d): q_{n+1} = q_n (+) h v_{n+1}.
    problem_->Retract(q_n_, h * v1, q1);
}

bool HalfImplicitEuler::FactorIterationMatrix(const Eigen::SparseMatrix<double>& B,
                                              std::string& why) {
    Eigen::SparseMatrix<double> S = B * minv_l_;
    S.makeCompressed();
    const std::vector<int> outer(S.outerIndexPtr(), S.outerIndexPtr() + S.outerSize() + 1);
    const std::vector<int> inner(S.innerIndexPtr(), S.innerIndexPtr() + S.nonZeros());
    if (outer != pattern_outer_ || inner != pattern_inner_) {
        solver_->Analyze(S);
        pattern_outer_ = outer;
        pattern_inner_ = inner;
    }
    if (!solver_->Factor(S)) {
        why = "the iteration matrix B M^-1 L is singular (redundant constraints?)";
        return false;
    }
    return true;
}

StepStats HalfImplicitEuler::Advance(double t, double h) {
    StepStats st;
    const double t1 = t + h;
    auto fail = [&](const std::string& why) {
        problem_->set_q(q_n_);
        problem_->SetTime(t);
        st.converged = false;
        std::ostringstream os;
        os << "half implicit at t = " << t1 << " (h = " << h << "): " << why;
        st.failure = os.str();
        return st;
    };
    // Forces and the Jacobians L, B at (q_n, v_n, t_n).
    problem_->set_q(q_n_);
    problem_->SetTime(t);
    problem_->Evaluate(v_n_, zero_v_, zero_l_, Ma_, f0_, phi_);
    Eigen::VectorXd q1, v1, mu = (h * h) * lambda_n_;
    if (nc_ == 0) {  // no constraints: plain symplectic Euler
        minv_l_.resize(nv_, 0);
        Propagate(mu, h, q1, v1);
    } else {
        problem_->Evaluate(v_n_, zero_v_, lambda_n_, jac_);
        minv_l_ = minv_.asDiagonal() * jac_.L;
        std::string why;
        Propagate(mu, h, q1, v1);
        problem_->set_q(q1);
        problem_->SetTime(t1);
        problem_->Evaluate(v1, zero_v_, zero_l_, Ma_, fs_, phi_);
        if (predicted_) {
            SecondOrderProblem::Jacobians jp;
            problem_->Evaluate(v1, zero_v_, zero_l_, jp);
            if (!FactorIterationMatrix(jp.B, why)) return fail(why);
        } else if (!FactorIterationMatrix(jac_.B, why)) {
            return fail(why);
        }
        st.factorizations = 1;
        const double tol = settings_.residual_tolerance;
        const int max_it = std::max(1, settings_.max_iterations);
        double res = phi_.cwiseAbs().maxCoeff();
        Eigen::VectorXd d;
        int it = 0;
        while (!(res <= tol)) {
            if (!std::isfinite(res)) return fail("non-finite constraint residual");
            if (it >= max_it) {
                Eigen::Index worst = 0;
                phi_.cwiseAbs().maxCoeff(&worst);
                std::ostringstream os;
                os << "no convergence in " << max_it << " iterations: constraint residual " << res
                   << " > " << tol << ", worst " << problem_->DescribeEquation(nv_ + int(worst));
                st.iterations = it;
                st.residual = res;
                return fail(os.str());
            }
            d = phi_;
            solver_->Solve(d);
            mu += d;
            st.solution = d.cwiseAbs().maxCoeff() / (h * h);
            Propagate(mu, h, q1, v1);
            problem_->set_q(q1);
            problem_->Evaluate(v1, zero_v_, zero_l_, Ma_, fs_, phi_);
            res = phi_.cwiseAbs().maxCoeff();
            ++it;
        }
        st.iterations = it;
        st.residual = res;
    }
    if (!q1.allFinite() || !v1.allFinite()) return fail("non-finite state");
    q_n_ = q1;
    v_n_ = v1;
    lambda_n_ = mu / (h * h);
    problem_->set_q(q_n_);
    problem_->SetTime(t1);
    problem_->AfterConvergence(v_n_, lambda_n_);
    st.converged = true;
    return st;
}

}  // namespace mbstep::half_implicit
