// mbstep — `eml` on systems of abstract nodes (see eml_abstract.hpp for the equations).
#include "eml_abstract.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mbstep/model/model.hpp"

namespace mbstep::eml {

std::string EmlNewtonFailure(double t, double h, double residual, double tol,
                             const Eigen::VectorXd& r, int n,
                             const std::function<std::string(int)>& describe) {
    std::ostringstream os;
    os << "eml: Newton did not converge at t = " << t << " (h = " << h << "), residual " << residual
       << " > tolerance " << tol;
    if (r.size() == n) {  // the last residual evaluated: its worst equation
        Eigen::Index worst = 0;
        if (r.allFinite()) {
            r.cwiseAbs().maxCoeff(&worst);
        } else {
            while (std::isfinite(r[worst])) ++worst;
        }
        os << ", worst equation " << describe(static_cast<int>(worst));
    }
    return os.str();
}

SolverSettings EmlNewtonSettings(const SolverSettings& deck) {
    SolverSettings s = deck;
    s.residual_test = ResidualTest::kMinMax;
    s.solution_tolerance = 0.0;
    s.solution_test = ResidualTest::kMinMax;
    s.max_iterations_at_most = false;
    s.modified_newton = false;
    s.modified_newton_adaptive = false;
    s.jacobian_every_iteration = true;
    s.output_iterations = s.output_residual = s.output_solution = false;
    return s;
}

bool IncrementAtRoundoff(const Eigen::VectorXd& dx, const Eigen::VectorXd& u) {
    return dx.lpNorm<Eigen::Infinity>() <= 1e-13 * (1.0 + u.lpNorm<Eigen::Infinity>());
}

namespace {

// Gonzalez's discrete gradient (71) of f from x0 to x1 = x0 + dx, in the quotient by the
// coordinates `cyclic` marks: grad f(x_mid) + c a, a = dx with zeros at the cyclic coordinates,
// c = (f1 - f0 - grad f(x_mid) . dx) / |a|^2. Since a . dx = |a|^2, directionality (69) holds
// for any marking. Below |a| = 1e-6 the correction (O(|a|^2) relative, dominated by the
// round-off of f1 - f0) is dropped (energy error O(|a|^3)), as in the rigid-body `eml`.
struct Correction {
    bool on{false};
    double c{0.0};
    double a2{0.0};
    Eigen::VectorXd a;
};

Correction Gonzalez(double f0, double f1, const Eigen::VectorXd& grad_mid,
                    const Eigen::VectorXd& dx, const std::vector<char>* cyclic) {
    Correction k;
    k.a = dx;
    if (cyclic)
        for (Eigen::Index i = 0; i < dx.size(); ++i)
            if ((*cyclic)[i]) k.a[i] = 0.0;
    k.a2 = k.a.squaredNorm();
    if (k.a2 < 1e-12) return k;
    k.on = true;
    k.c = (f1 - f0 - grad_mid.dot(dx)) / k.a2;
    return k;
}

// d(c a)/dx1 of a Correction when x1 moves (dx = x1 - x0, x_mid = (x0 + x1)/2): a dc^T + c P,
// dc = (grad f(x1) - grad f(x_mid) - H(x_mid) dx / 2 - 2 c a) / |a|^2, P = diag(non-cyclic).
void AddEndPointDerivative(const Correction& k, const Eigen::VectorXd& grad1,
                           const Eigen::VectorXd& grad_mid, const Eigen::MatrixXd& hess_mid,
                           const Eigen::VectorXd& dx, const std::vector<char>* cyclic,
                           Eigen::MatrixXd& out) {
    if (!k.on) return;
    const Eigen::VectorXd dc = (grad1 - grad_mid - 0.5 * hess_mid * dx - 2.0 * k.c * k.a) / k.a2;
    out += k.a * dc.transpose();
    for (Eigen::Index i = 0; i < k.a.size(); ++i)
        if (!cyclic || !(*cyclic)[i]) out(i, i) += k.c;
}

}  // namespace

AbstractEml::AbstractEml(AbstractFormulation& f, Variant variant, const SolverSettings& s)
    : f_(f), variant_(variant), settings_(EmlNewtonSettings(s)), newton_(settings_) {
    if (variant == Variant::kNullSpace)
        throw RunError(
            "eml, null space: the discrete null-space variant is defined for unit quaternions "
            "(rotation-vector increments (105)); a model of abstract nodes has none: use `eml` "
            "or `eml, reduced`");
    n_ = f.num_coordinates();
    m_ = f.num_multipliers();
    // The matrix is formed dense: a full pattern.
    const int nu = num_unknowns();
    std::vector<Eigen::Triplet<double>> full;
    full.reserve(static_cast<size_t>(nu) * nu);
    for (int j = 0; j < nu; ++j)
        for (int i = 0; i < nu; ++i) full.emplace_back(i, j, 0.0);
    Eigen::SparseMatrix<double> pattern(nu, nu);
    pattern.setFromTriplets(full.begin(), full.end());
    newton_.Setup(pattern);
    // The initial state (p_0, the cyclic coordinates) already here: a run stopped before Start
    // (`abort after`) writes its .csv line at t0 from it.
    Start(f.time());
}

int AbstractEml::num_unknowns() const { return variant_ == Variant::kFull ? 3 * n_ + m_ : n_ + m_; }

void AbstractEml::DetectCyclic() {
    // A coordinate is cyclic for a function when its derivative there is exactly zero at the
    // start and at a deterministic perturbation of it (off any special configuration).
    Eigen::VectorXd qp = q_n_, vp = v_n_;
    for (int i = 0; i < n_; ++i) {
        qp[i] += 0.1 * (1.0 + std::abs(q_n_[i])) * std::sin(1.7 * i + 0.3);
        vp[i] += 0.1 * (1.0 + std::abs(v_n_[i])) * std::sin(2.3 * i + 0.9);
    }
    const auto& elements = f_.elements();
    cyclic_.assign(elements.size(), Cyclic{});
    LagrangianBlock b0, b1;
    for (size_t k = 0; k < elements.size(); ++k) {
        f_.Evaluate(static_cast<int>(k), q_n_, v_n_, b0);
        f_.Evaluate(static_cast<int>(k), qp, vp, b1);
        const size_t nk = elements[k].coordinates.size();
        Cyclic& c = cyclic_[k];
        c.T.assign(nk, 0);
        c.V.assign(nk, 0);
        c.g.assign(elements[k].m, std::vector<char>(nk, 0));
        for (size_t a = 0; a < nk; ++a) {
            c.T[a] = b0.T_q[a] == 0.0 && b1.T_q[a] == 0.0;
            c.V[a] = b0.V_q[a] == 0.0 && b1.V_q[a] == 0.0;
            for (int j = 0; j < elements[k].m; ++j)
                c.g[j][a] = b0.G(j, a) == 0.0 && b1.G(j, a) == 0.0;
        }
    }
}

void AbstractEml::Start(double t0) {
    const Model& model = f_.model();
    q_n_.resize(n_);
    v_n_.resize(n_);
    for (int i = 0; i < n_; ++i) {
        q_n_[i] = model.abstract_nodes()[i].x0;
        v_n_[i] = model.abstract_nodes()[i].v0;
    }
    t_n_ = t0;
    // Consistent initial momenta p_0 = T_v(q_0, v_0) (the paper's p0 = M(q0) v0).
    p_n_ = Eigen::VectorXd::Zero(n_);
    lambda_n_ = Eigen::VectorXd::Zero(m_);
    const auto& elements = f_.elements();
    b00_.resize(elements.size());
    for (size_t k = 0; k < elements.size(); ++k) {
        f_.Evaluate(static_cast<int>(k), q_n_, v_n_, b00_[k]);
        for (size_t a = 0; a < elements[k].coordinates.size(); ++a)
            p_n_[elements[k].coordinates[a]] += b00_[k].T_v[a];
    }
    DetectCyclic();
    f_.SetState(t0, q_n_, v_n_, lambda_n_);
}

void AbstractEml::Discrete(const Eigen::VectorXd& q1, const Eigen::VectorXd& v1,
                           const Eigen::VectorXd& lambda, Eigen::VectorXd& F, Eigen::VectorXd& dTv,
                           Eigen::VectorXd& g1, Jac* jac) {
    F.setZero(n_);
    dTv.setZero(n_);
    g1.setZero(m_);
    if (jac) {
        jac->F_q.setZero(n_, n_);
        jac->F_v.setZero(n_, n_);
        jac->F_l.setZero(n_, m_);
        jac->Tv_q.setZero(n_, n_);
        jac->Tv_v.setZero(n_, n_);
        jac->g_q.setZero(m_, n_);
    }
    const Eigen::VectorXd qm = 0.5 * (q_n_ + q1), vm = 0.5 * (v_n_ + v1);
    LagrangianBlock b10, bm0, b01, b11, bm1, b0m, b1m;
    const auto& elements = f_.elements();
    for (size_t k = 0; k < elements.size(); ++k) {
        const AbstractFormulation::ElementData& d = elements[k];
        const int e = static_cast<int>(k);
        const int nk = static_cast<int>(d.coordinates.size());
        const LagrangianBlock& b00 = b00_[k];
        f_.Evaluate(e, q1, v_n_, b10);
        f_.Evaluate(e, qm, v_n_, bm0);
        f_.Evaluate(e, q_n_, v1, b01);
        f_.Evaluate(e, q1, v1, b11);
        f_.Evaluate(e, qm, v1, bm1);
        f_.Evaluate(e, q_n_, vm, b0m);
        f_.Evaluate(e, q1, vm, b1m);
        Eigen::VectorXd dq(nk), dv(nk);
        for (int a = 0; a < nk; ++a) {
            dq[a] = q1[d.coordinates[a]] - q_n_[d.coordinates[a]];
            dv[a] = v1[d.coordinates[a]] - v_n_[d.coordinates[a]];
        }
        const Cyclic& cy = cyclic_[k];
        // Partitioned discrete derivatives of T (Appendix A): (71) in q at v_n and at v_n+1,
        // (71) in v at q_n and at q_n+1, each pair averaged.
        const Correction cq0 = Gonzalez(b00.T, b10.T, bm0.T_q, dq, &cy.T);
        const Correction cq1 = Gonzalez(b01.T, b11.T, bm1.T_q, dq, &cy.T);
        const Correction cv0 = Gonzalez(b00.T, b01.T, b0m.T_v, dv, nullptr);
        const Correction cv1 = Gonzalez(b10.T, b11.T, b1m.T_v, dv, nullptr);
        Eigen::VectorXd f = 0.5 * (bm0.T_q + bm1.T_q);
        if (cq0.on) f += 0.5 * cq0.c * cq0.a;
        if (cq1.on) f += 0.5 * cq1.c * cq1.a;
        Eigen::VectorXd tv = 0.5 * (b0m.T_v + b1m.T_v);
        if (cv0.on) tv += 0.5 * cv0.c * cv0.a;
        if (cv1.on) tv += 0.5 * cv1.c * cv1.a;
        // Potential and constraints: (71) at q_mid.
        const Correction cV = Gonzalez(b00.V, b10.V, bm0.V_q, dq, &cy.V);
        f -= bm0.V_q;
        if (cV.on) f -= cV.c * cV.a;
        std::vector<Correction> cg(d.m);
        std::vector<Eigen::VectorXd> dg(d.m);
        for (int j = 0; j < d.m; ++j) {
            const Eigen::VectorXd Gm = bm0.G.row(j).transpose();
            cg[j] = Gonzalez(b00.g[j], b10.g[j], Gm, dq, &cy.g[j]);
            dg[j] = Gm;
            if (cg[j].on) dg[j] += cg[j].c * cg[j].a;
            f -= lambda[d.mult_offset + j] * dg[j];
            g1[d.mult_offset + j] = b10.g[j];
        }
        for (int a = 0; a < nk; ++a) {
            F[d.coordinates[a]] += f[a];
            dTv[d.coordinates[a]] += tv[a];
        }
        if (!jac) continue;
        // Exact derivatives w.r.t. q_n+1, v_n+1, lambda (eml_abstract.hpp, Newton).
        Eigen::MatrixXd Fq = 0.25 * (bm0.T_qq + bm1.T_qq), Fv = 0.5 * bm1.T_qv;
        Eigen::MatrixXd Dq0 = Eigen::MatrixXd::Zero(nk, nk), Dq1 = Dq0;
        AddEndPointDerivative(cq0, b10.T_q, bm0.T_q, bm0.T_qq, dq, &cy.T, Dq0);
        AddEndPointDerivative(cq1, b11.T_q, bm1.T_q, bm1.T_qq, dq, &cy.T, Dq1);
        Fq += 0.5 * (Dq0 + Dq1);
        if (cq1.on)  // c of (71) in q at v_n+1 depends on v_n+1
            Fv += 0.5 * cq1.a *
                  ((b11.T_v - b01.T_v - bm1.T_qv.transpose() * dq) / cq1.a2).transpose();
        Eigen::MatrixXd Tvv = 0.25 * (b0m.T_vv + b1m.T_vv), Tvq = 0.5 * b1m.T_qv.transpose();
        Eigen::MatrixXd Dv0 = Eigen::MatrixXd::Zero(nk, nk), Dv1 = Dv0;
        AddEndPointDerivative(cv0, b01.T_v, b0m.T_v, b0m.T_vv, dv, nullptr, Dv0);
        AddEndPointDerivative(cv1, b11.T_v, b1m.T_v, b1m.T_vv, dv, nullptr, Dv1);
        Tvv += 0.5 * (Dv0 + Dv1);
        if (cv1.on)  // c of (71) in v at q_n+1 depends on q_n+1
            Tvq += 0.5 * cv1.a * ((b11.T_q - b10.T_q - b1m.T_qv * dv) / cv1.a2).transpose();
        Eigen::MatrixXd DV = 0.5 * bm0.V_qq;
        AddEndPointDerivative(cV, b10.V_q, bm0.V_q, bm0.V_qq, dq, &cy.V, DV);
        Fq -= DV;
        for (int j = 0; j < d.m; ++j) {
            const double l = lambda[d.mult_offset + j];
            Eigen::MatrixXd Dg = 0.5 * bm0.g_qq[j];
            AddEndPointDerivative(cg[j], b10.G.row(j).transpose(), bm0.G.row(j).transpose(),
                                  bm0.g_qq[j], dq, &cy.g[j], Dg);
            Fq -= l * Dg;
        }
        for (int a = 0; a < nk; ++a) {
            const int i = d.coordinates[a];
            for (int bb = 0; bb < nk; ++bb) {
                const int c = d.coordinates[bb];
                jac->F_q(i, c) += Fq(a, bb);
                jac->F_v(i, c) += Fv(a, bb);
                jac->Tv_q(i, c) += Tvq(a, bb);
                jac->Tv_v(i, c) += Tvv(a, bb);
            }
            for (int j = 0; j < d.m; ++j) {
                jac->F_l(i, d.mult_offset + j) -= dg[j][a];
                jac->g_q(d.mult_offset + j, i) += b10.G(j, a);
            }
        }
    }
}

void AbstractEml::Residual(const Eigen::VectorXd& u, Eigen::VectorXd& r, Eigen::MatrixXd* J) {
    const double h = h_;
    const bool full = variant_ == Variant::kFull;
    const Eigen::VectorXd q1 = u.head(n_);
    const Eigen::VectorXd lambda = u.tail(m_);
    const Eigen::VectorXd v1 = full ? Eigen::VectorXd(u.segment(n_, n_))
                                    : Eigen::VectorXd((2.0 / h) * (q1 - q_n_) - v_n_);  // (101)
    Eigen::VectorXd F, dTv, g1;
    Jac jac;
    Discrete(q1, v1, lambda, F, dTv, g1, J ? &jac : nullptr);
    const int nu = num_unknowns();
    r.resize(nu);
    if (J) J->setZero(nu, nu);
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n_, n_);
    if (full) {
        const Eigen::VectorXd p1 = u.segment(2 * n_, n_);
        r.segment(0, n_) = q1 - q_n_ - 0.5 * h * (v_n_ + v1);  // (72a)
        r.segment(n_, n_) = p1 - p_n_ - h * F;                 // (72b)
        r.segment(2 * n_, n_) = 0.5 * (p_n_ + p1) - dTv;       // (72c)
        r.tail(m_) = g1;                                       // (72d)
        if (J) {
            J->block(0, 0, n_, n_) = I;
            J->block(0, n_, n_, n_) = -0.5 * h * I;
            J->block(n_, 0, n_, n_) = -h * jac.F_q;
            J->block(n_, n_, n_, n_) = -h * jac.F_v;
            J->block(n_, 2 * n_, n_, n_) = I;
            J->block(n_, 3 * n_, n_, m_) = -h * jac.F_l;
            J->block(2 * n_, 0, n_, n_) = -jac.Tv_q;
            J->block(2 * n_, n_, n_, n_) = -jac.Tv_v;
            J->block(2 * n_, 2 * n_, n_, n_) = 0.5 * I;
            J->block(3 * n_, 0, m_, n_) = jac.g_q;
        }
        return;
    }
    // Reduced: p_n+1 = 2 dT_v - p_n (102) in (72b); dv_n+1/dq_n+1 = 2/h.
    r.head(n_) = 2.0 * dTv - 2.0 * p_n_ - h * F;
    r.tail(m_) = g1;
    if (J) {
        J->block(0, 0, n_, n_) =
            2.0 * (jac.Tv_q + (2.0 / h) * jac.Tv_v) - h * (jac.F_q + (2.0 / h) * jac.F_v);
        J->block(0, n_, n_, m_) = -h * jac.F_l;
        J->block(n_, 0, m_, n_) = jac.g_q;
    }
}

Eigen::VectorXd AbstractEml::Predict() const {
    Eigen::VectorXd u(num_unknowns());
    if (variant_ == Variant::kFull)
        u << q_n_ + h_ * v_n_, v_n_, p_n_, lambda_n_;
    else
        u << q_n_ + h_ * v_n_, lambda_n_;
    return u;
}

void AbstractEml::Residual(Eigen::VectorXd& r) {
    Residual(u_, r_, &J_);
    r = r_;
}

void AbstractEml::Jacobian(Eigen::SparseMatrix<double>& J) {
    std::copy(J_.data(), J_.data() + J_.size(), J.valuePtr());  // both column-major, full
}

bool AbstractEml::IncrementConverged(const Eigen::VectorXd& dx) const {
    return IncrementAtRoundoff(dx, u_);
}

StepStats AbstractEml::Advance(double t, double h) {
    StepStats st;
    t_n_ = t;
    h_ = h;
    u_ = Predict();
    const NewtonResult res = newton_.Solve(*this);
    st.converged = res.converged;
    st.iterations = res.iterations;
    st.factorizations = res.factorizations;
    st.residual = res.residual;
    st.solution = res.solution;
    if (!st.converged) {
        st.failure =
            EmlNewtonFailure(t + h, h, st.residual, settings_.residual_tolerance, r_,
                             num_unknowns(), [this](int row) { return DescribeEquation(row); });
        return st;
    }
    const Eigen::VectorXd& u = u_;
    const Eigen::VectorXd q1 = u.head(n_), lambda = u.tail(m_);
    Eigen::VectorXd v1, p1;
    if (variant_ == Variant::kFull) {
        v1 = u.segment(n_, n_);
        p1 = u.segment(2 * n_, n_);
    } else {
        v1 = (2.0 / h) * (q1 - q_n_) - v_n_;  // (101)
        Eigen::VectorXd F, dTv, g1;
        Discrete(q1, v1, lambda, F, dTv, g1, nullptr);
        p1 = 2.0 * dTv - p_n_;  // (102)
    }
    q_n_ = q1;
    v_n_ = v1;
    p_n_ = p1;
    lambda_n_ = lambda;
    for (size_t k = 0; k < b00_.size(); ++k) f_.Evaluate(static_cast<int>(k), q_n_, v_n_, b00_[k]);
    f_.SetState(t + h, q_n_, v_n_, lambda_n_);
    return st;
}

std::string AbstractEml::DescribeEquation(int row) const {
    const Model& model = f_.model();
    const char* groups_full[] = {"velocity definition (72a)", "momentum balance (72b)",
                                 "momentum definition (72c)"};
    const char* groups_reduced[] = {"momentum balance (72b), (102)"};
    const int ngroups = variant_ == Variant::kFull ? 3 : 1;
    const char** names = variant_ == Variant::kFull ? groups_full : groups_reduced;
    if (row < ngroups * n_)
        return "abstract node " + std::to_string(model.abstract_nodes()[row % n_].label) + ", " +
               names[row / n_];
    const int k = row - ngroups * n_;
    for (const AbstractFormulation::ElementData& d : f_.elements())
        if (k >= d.mult_offset && k < d.mult_offset + d.m)
            return DescribeConstraintRow(*model.elements()[d.element], k - d.mult_offset);
    return "equation " + std::to_string(row);
}

double AbstractEml::GeneralizedEnergy() const {
    double E = p_n_.dot(v_n_);
    for (const LagrangianBlock& b : b00_) E += b.V - b.T;  // (74): p.v - T + V
    return E;
}

std::vector<std::pair<std::string, std::string>> AbstractEml::CsvColumns() const {
    std::vector<std::pair<std::string, std::string>> c{
        {"generalized_energy",
         "discrete generalized energy p.v - T(q, v) + V(q), conserved by eml [Kinon & Betsch "
         "2024, eq. (74)]; `energy` is the total energy T + V (80), which eml does not conserve "
         "when the mass matrix depends on q"}};
    for (const AbstractNode& node : f_.model().abstract_nodes())
        c.push_back({"p_" + std::to_string(node.label),
                     "discrete momentum p of abstract node " + std::to_string(node.label) +
                         " (72b)-(72c); constant when its coordinate is cyclic"});
    return c;
}

void AbstractEml::CsvValues(std::vector<double>& values) const {
    values.push_back(GeneralizedEnergy());
    values.insert(values.end(), p_n_.data(), p_n_.data() + p_n_.size());
}

}  // namespace mbstep::eml
