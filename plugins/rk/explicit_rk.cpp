// mbstep — `rk` family: explicit Runge–Kutta / RKMK (equations in explicit_rk.hpp).
#include "explicit_rk.hpp"

#include <Eigen/LU>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "mbstep/common.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep::rk {

namespace {
using Trip = Eigen::Triplet<double>;

void AppendTriplets(std::vector<Trip>& t, const Eigen::SparseMatrix<double>& m, int r0, int c0) {
    for (int k = 0; k < m.outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(m, k); it; ++it)
            t.emplace_back(r0 + it.row(), c0 + it.col(), it.value());
}

// Controller constants (explicit_rk.hpp).
constexpr double kSafety = 0.9, kFacMin = 0.2, kFacMax = 5.0;
}  // namespace

ExplicitRk::ExplicitRk(const ButcherTableau& tableau, bool adaptive, double rtol, double atol)
    : tableau_(tableau), adaptive_(adaptive), rtol_(rtol), atol_(atol) {
    if (adaptive_ && !tableau_.embedded())
        throw RunError("rk: '" + tableau_.name +
                       "' has no embedded error estimate, so it runs with the deck's fixed time "
                       "step only; step-size control needs an embedded pair (ode23, dopri5)");
    if (adaptive_ && !(rtol_ >= 0.0 && atol_ >= 0.0 && rtol_ + atol_ > 0.0))
        throw RunError("rk: tolerances must be >= 0 and not both zero");
    const int s = tableau_.stages();
    if (tableau_.fsal) {
        bool ok = tableau_.c[s - 1] == 1.0;
        for (int j = 0; j < s; ++j) ok = ok && tableau_.a[s - 1][j] == tableau_.b[j];
        if (!ok) throw RunError("rk: tableau '" + tableau_.name + "' is marked FSAL but is not");
    }
}

void ExplicitRk::Attach(Formulation& f, const SolverSettings& s) {
    formulation_ = &f;
    problem_ = f.second_order();
    abstract_ = f.name() == "lagrangian" ? static_cast<AbstractFormulation*>(&f) : nullptr;
    if (!problem_ && !abstract_)
        throw RunError("integrator '" + name() +
                       "' needs a second-order formulation (lie group, euler parameters, euler "
                       "angles); '" +
                       f.name() + "' is not one");
    // Explicit RK integrates the unconstrained ODE only: refuse before the first step.
    for (const auto& el : f.model().elements())
        if (el->num_multipliers() > 0) {
            std::ostringstream os;
            os << "integrator '" << name()
               << "' (explicit Runge-Kutta) cannot integrate models with constraints: "
               << el->statement() << " " << el->label() << " (" << el->type() << ") owns "
               << el->num_multipliers()
               << " constraint equation(s); it is the model's first constraint element "
                  "(index-1/Baumgarte variants are not implemented; use an implicit method, "
               << (abstract_ ? "e.g. eml, or ms on a cgr formulation, for abstract nodes)"
                             : "e.g. hht or generalized alpha)");
            throw RunError(os.str());
        }
    if (abstract_) {
        nv_ = abstract_->num_coordinates();
        nc_ = 0;
        vector_space_ = true;
    } else {
        nv_ = problem_->num_velocities();
        nc_ = problem_->num_constraints();
        vector_space_ = problem_->vector_space();
    }
    solver_ = MakeLinearSolver(s.linear_solver, OrderingFromName(s.linear_solver_ordering),
                               s.linear_solver_scale);
    pattern_outer_.clear();
    pattern_inner_.clear();
    const int st = tableau_.stages();
    kq_.assign(st, Eigen::VectorXd::Zero(nv_));
    kv_.assign(st, Eigen::VectorXd::Zero(nv_));
    zero_v_ = Eigen::VectorXd::Zero(nv_);
    zero_l_ = Eigen::VectorXd::Zero(nc_);
}

bool ExplicitRk::AbstractAcceleration(const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t,
                                      Eigen::VectorXd& a, std::string& why) {
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(nv_, nv_);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(nv_);
    LagrangianBlock b;
    const auto& elements = abstract_->elements();
    for (size_t k = 0; k < elements.size(); ++k) {
        abstract_->Evaluate(static_cast<int>(k), q, v, b);
        const std::vector<int>& c = elements[k].coordinates;
        const int n = static_cast<int>(c.size());
        for (int i = 0; i < n; ++i) {
            double tvq_v = 0.0;  // (T_vq v)_i = sum_j T_qv(j, i) v_j
            for (int j = 0; j < n; ++j) {
                M(c[i], c[j]) += b.T_vv(i, j);
                tvq_v += b.T_qv(j, i) * v[c[j]];
            }
            rhs[c[i]] += b.T_q[i] - b.V_q[i] - tvq_v;  // (4)
        }
    }
    ++solves_;
    Eigen::FullPivLU<Eigen::MatrixXd> lu(M);
    lu.setThreshold(1e-12);
    if (lu.rank() < nv_) {
        std::ostringstream os;
        os << "the mass matrix T_vv of the abstract nodes is singular at t = " << t << " (rank "
           << lu.rank() << " of " << nv_
           << "): explicit Runge-Kutta solves M(q) a = T_q - V_q - T_vq v and needs M "
              "invertible; `eml` or a `cgr` formulation with a first-order method never invert it";
        why = os.str();
        return false;
    }
    a = lu.solve(rhs);
    if (!a.allFinite()) {
        why = "non-finite acceleration at t = " + std::to_string(t);
        return false;
    }
    return true;
}

void ExplicitRk::Retract(const Eigen::VectorXd& q, const Eigen::VectorXd& theta,
                         Eigen::VectorXd& out) {
    if (abstract_)
        out = q + theta;
    else
        problem_->Retract(q, theta, out);
}

void ExplicitRk::ShowState(const Eigen::VectorXd& q, double t) {
    if (abstract_) return;
    problem_->set_q(q);
    problem_->SetTime(t);
}

bool ExplicitRk::Acceleration(const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t,
                              Eigen::VectorXd& a, Eigen::VectorXd& lambda, std::string& why) {
    if (abstract_) {
        lambda.resize(0);
        return AbstractAcceleration(q, v, t, a, why);
    }
    problem_->set_q(q);
    problem_->SetTime(t);
    problem_->Evaluate(v, zero_v_, zero_l_, Ma_, f_, phi_);  // f(q, v, 0, t)
    problem_->Evaluate(v, zero_v_, zero_l_, jac_);
    std::vector<Trip> trips;
    AppendTriplets(trips, jac_.M, 0, 0);
    AppendTriplets(trips, jac_.L, 0, nv_);
    AppendTriplets(trips, jac_.B, nv_, 0);
    const int n = nv_ + nc_;
    Eigen::SparseMatrix<double> A(n, n);
    A.setFromTriplets(trips.begin(), trips.end());
    A.makeCompressed();
    Eigen::VectorXd rhs(n);
    rhs.head(nv_) = -f_;
    if (nc_ > 0) {
        // gamma = d^2/dtau^2 phi(q (+) tau v, t + tau), central differences + Richardson.
        const double vmax = v.cwiseAbs().maxCoeff();
        const double d = 0.1 / std::max(1.0, vmax);
        Eigen::VectorXd qt, m, ff, p0, pp, pm;
        auto phi_at = [&](double tau, Eigen::VectorXd& out) {
            problem_->Retract(q, tau * v, qt);
            problem_->set_q(qt);
            problem_->SetTime(t + tau);
            problem_->Evaluate(v, zero_v_, zero_l_, m, ff, out);
        };
        phi_at(0.0, p0);
        phi_at(d, pp);
        phi_at(-d, pm);
        const Eigen::VectorXd dd1 = (pp - 2.0 * p0 + pm) / (d * d);
        phi_at(0.5 * d, pp);
        phi_at(-0.5 * d, pm);
        const Eigen::VectorXd dd2 = (pp - 2.0 * p0 + pm) / (0.25 * d * d);
        rhs.tail(nc_) = -(4.0 * dd2 - dd1) / 3.0;
        problem_->set_q(q);
        problem_->SetTime(t);
    }
    // Symbolic analysis once per pattern.
    const std::vector<int> outer(A.outerIndexPtr(), A.outerIndexPtr() + n + 1);
    const std::vector<int> inner(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
    if (outer != pattern_outer_ || inner != pattern_inner_) {
        solver_->Analyze(A);
        pattern_outer_ = outer;
        pattern_inner_ = inner;
    }
    ++solves_;
    std::ostringstream os;
    if (!solver_->Factor(A)) {
        os << "the acceleration system [M, L; B, 0] is singular at t = " << t
           << " (a node without inertia?)";
        why = os.str();
        return false;
    }
    solver_->Solve(rhs);
    if (!rhs.allFinite()) {
        os << "non-finite acceleration at t = " << t;
        why = os.str();
        return false;
    }
    a = rhs.head(nv_);
    lambda = rhs.tail(nc_);
    return true;
}

void ExplicitRk::Kinematic(const Eigen::VectorXd& theta, const Eigen::VectorXd& v,
                           Eigen::VectorXd& kq) {
    if (vector_space_ || theta.isZero(0.0)) {
        kq = v;  // T(0) = I
        return;
    }
    Eigen::SparseMatrix<double> T;
    problem_->TangentOperator(theta, T);
    T.makeCompressed();
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    lu.compute(T);
    if (lu.info() != Eigen::Success)
        throw RunError("rk: singular tangent operator (rotation increment near 2 pi per stage)");
    kq = lu.solve(v);
}

double ExplicitRk::ErrorNorm(const Eigen::VectorXd& eq, const Eigen::VectorXd& ev,
                             const Eigen::VectorXd& q1, const Eigen::VectorXd& v1) const {
    double sum = 0.0;
    for (int i = 0; i < nv_; ++i) {
        const double mq = vector_space_ ? std::max(std::abs(q_n_[i]), std::abs(q1[i])) : 1.0;
        const double mv = std::max(std::abs(v_n_[i]), std::abs(v1[i]));
        const double sq = eq[i] / (atol_ + rtol_ * mq), sv = ev[i] / (atol_ + rtol_ * mv);
        sum += sq * sq + sv * sv;
    }
    const double err = std::sqrt(sum / (2.0 * std::max(1, nv_)));
    return std::isfinite(err) ? err : std::numeric_limits<double>::infinity();
}

void ExplicitRk::Propose(double h, double err, bool accepted) {
    const int k = std::min(tableau_.order, tableau_.embedded_order) + 1;
    if (!accepted) {
        const double fac = std::isfinite(err) ? kSafety * std::pow(err, -1.0 / k) : kFacMin;
        h_next_ = h * std::clamp(fac, kFacMin, 1.0);
        last_rejected_ = true;
        return;
    }
    const double beta = 0.4 / k, alpha = 1.0 / k - 0.75 * beta;
    const double e = std::max(err, 1e-10);
    const double fac = kSafety * std::pow(e, -alpha) * std::pow(err_prev_, beta);
    h_next_ = h * std::clamp(fac, kFacMin, last_rejected_ ? 1.0 : kFacMax);
    err_prev_ = std::max(err, 1e-4);
    last_rejected_ = false;
}

void ExplicitRk::Start(double t0, double h) {
    if (abstract_) {  // the abstract nodes' initial values and derivatives
        const auto& nodes = abstract_->model().abstract_nodes();
        q_n_.resize(nv_);
        v_n_.resize(nv_);
        for (int i = 0; i < nv_; ++i) q_n_[i] = nodes[i].x0, v_n_[i] = nodes[i].v0;
    } else {
        problem_->SetTime(t0);
        Eigen::VectorXd a0, l0;
        problem_->InitialConditions(v_n_, a0, l0);  // v from the nodes' initial twists
        q_n_ = problem_->q();
    }
    std::string why;
    if (!Acceleration(q_n_, v_n_, t0, a_n_, lambda_n_, why))
        throw RunError("integrator '" + name() + "' at the initial time: " + why);
    if (abstract_)
        abstract_->SetState(t0, q_n_, v_n_, lambda_n_);
    else
        problem_->AfterConvergence(v_n_, lambda_n_);
    h_next_ = h;
    err_prev_ = 1e-4;
    last_rejected_ = false;
}

StepStats ExplicitRk::Advance(double t, double h) {
    const ButcherTableau& tb = tableau_;
    const int s = tb.stages();
    StepStats st;
    solves_ = 0;
    kq_[0] = v_n_;  // T(0) = I
    kv_[0] = a_n_;
    Eigen::VectorXd theta(nv_), V(nv_), Q, a, lambda = lambda_n_;
    std::string why;
    bool ok = true;
    for (int i = 1; i < s && ok; ++i) {
        theta.setZero();
        V = v_n_;
        for (int j = 0; j < i; ++j) {
            if (tb.a[i][j] == 0.0) continue;
            theta += (h * tb.a[i][j]) * kq_[j];
            V += (h * tb.a[i][j]) * kv_[j];
        }
        Retract(q_n_, theta, Q);
        ok = Acceleration(Q, V, t + tb.c[i] * h, kv_[i], lambda, why);
        if (ok) Kinematic(theta, V, kq_[i]);
    }
    // The propagated solution and the error estimate.
    Eigen::VectorXd theta1 = Eigen::VectorXd::Zero(nv_), v1 = v_n_, q1;
    Eigen::VectorXd eq = Eigen::VectorXd::Zero(nv_), ev = Eigen::VectorXd::Zero(nv_);
    if (ok) {
        for (int j = 0; j < s; ++j) {
            if (tb.b[j] != 0.0) {
                theta1 += (h * tb.b[j]) * kq_[j];
                v1 += (h * tb.b[j]) * kv_[j];
            }
            if (tb.embedded() && tb.b[j] != tb.b_hat[j]) {
                eq += (h * (tb.b[j] - tb.b_hat[j])) * kq_[j];
                ev += (h * (tb.b[j] - tb.b_hat[j])) * kv_[j];
            }
        }
        Retract(q_n_, theta1, q1);
        ok = q1.allFinite() && v1.allFinite();
        if (!ok) why = "non-finite state at t = " + std::to_string(t + h);
    }
    st.factorizations = solves_;
    if (adaptive_) {
        const double err = ok ? ErrorNorm(eq, ev, q1, v1) : std::numeric_limits<double>::infinity();
        st.error = err;
        if (!(err <= 1.0)) {  // rejected (or NaN): the state stays at t
            Propose(h, err, false);
            ShowState(q_n_, t);
            st.converged = true;
            st.accepted = false;
            return st;
        }
        Propose(h, err, true);
    } else if (!ok) {
        ShowState(q_n_, t);
        st.converged = false;
        st.failure = "at t = " + std::to_string(t + h) + ": " + why;
        return st;
    }
    // Accept: the acceleration at the new point (the FSAL stage, or one more solve).
    Eigen::VectorXd a1, l1;
    if (tb.fsal) {
        // The last stage was evaluated at q_n (+) h sum b_j kq_j with the same operations.
        a1 = kv_[s - 1];
        l1 = lambda;
        ShowState(q1, t + h);
    } else if (!Acceleration(q1, v1, t + h, a1, l1, why)) {
        ShowState(q_n_, t);
        st.factorizations = solves_;
        st.converged = false;
        st.accepted = true;
        st.failure = "at t = " + std::to_string(t + h) + ": " + why;
        return st;
    }
    st.factorizations = solves_;
    q_n_ = q1;
    v_n_ = v1;
    a_n_ = a1;
    lambda_n_ = l1;
    if (abstract_)
        abstract_->SetState(t + h, q_n_, v_n_, lambda_n_);
    else
        problem_->AfterConvergence(v_n_, lambda_n_);
    st.converged = true;
    st.accepted = true;
    return st;
}

}  // namespace mbstep::rk
