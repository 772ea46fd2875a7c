// mbstep — the state of abstract-node models for `eml` and `rk` (abstract_formulation.hpp).
#include "mbstep/formulation/abstract_formulation.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "mbstep/model/model.hpp"

namespace mbstep {

std::vector<AbstractElement> AbstractElementTable(const Model& model, const std::string& why,
                                                  int first_multiplier, int* num_multipliers) {
    if (!model.nodes().empty())
        throw RunError(why +
                       "abstract nodes together with structural nodes are not supported here "
                       "(a model with both runs on the `cgr` family (cgr, mbdyn cgr, cgr "
                       "rotation vector, cgr velocity, cgr velocity unscaled) with a first-order "
                       "method: linear multistep, single-step or ESDIRK)");
    const int nn = static_cast<int>(model.abstract_nodes().size());
    std::vector<bool> read(nn, false);
    std::vector<AbstractElement> table;
    int m_total = 0;
    const auto& elements = model.elements();
    for (size_t e = 0; e < elements.size(); ++e) {
        const Element& el = *elements[e];
        if (el.abstract_nodes().empty())
            throw RunError(why + el.statement() + " " + std::to_string(el.label()) + " (" +
                           el.type() + ") acts on structural nodes, which this model has none of");
        AbstractElement d;
        d.element = static_cast<int>(e);
        d.lagrangian = el.lagrangian();
        if (!d.lagrangian)
            throw RunError(why + el.statement() + " " + std::to_string(el.label()) + " (" +
                           el.type() + ") on abstract nodes has no Lagrangian contract");
        d.coordinates = el.abstract_nodes();
        d.m = el.num_multipliers();
        d.mult_offset = first_multiplier + m_total;
        m_total += d.m;
        for (int i : d.coordinates) read[i] = true;
        table.push_back(std::move(d));
    }
    for (int i = 0; i < nn; ++i)
        if (!read[i])
            throw RunError(why + "abstract node " +
                           std::to_string(model.abstract_nodes()[i].label) +
                           " is read by no element: its equations would be empty");
    *num_multipliers = m_total;
    return table;
}

AbstractFormulation::AbstractFormulation(const Model& model) : model_(model) {
    const std::string why = "formulation 'lagrangian': ";
    if (model.static_model())
        throw RunError(why +
                       "cannot solve a static model (`model: static;`): it has no "
                       "equations of its own, only the state for `eml` and `rk`");
    if (model.abstract_nodes().empty())
        throw RunError(why +
                       "the model has no abstract nodes; this formulation holds systems of "
                       "abstract nodes and `lagrangian` elements only");
    const int nn = static_cast<int>(model.abstract_nodes().size());
    int m_total = 0;
    elements_ = AbstractElementTable(model, why, 0, &m_total);
    q_.resize(nn);
    v_.resize(nn);
    for (int i = 0; i < nn; ++i) {
        q_[i] = model.abstract_nodes()[i].x0;
        v_[i] = model.abstract_nodes()[i].v0;
    }
    lambda_ = Eigen::VectorXd::Zero(m_total);
    abs_.resize(nn);
    SetState(0.0, q_, v_, lambda_);
}

void AbstractFormulation::SetState(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                   const Eigen::VectorXd& lambda) {
    t_ = t;
    q_ = q;
    v_ = v;
    lambda_ = lambda;
    for (int i = 0; i < q.size(); ++i) abs_[i] = AbstractState{q[i], v[i]};
}

void AbstractFormulation::Evaluate(int k, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                   LagrangianBlock& out) const {
    const ElementData& d = elements_[k];
    const size_t n = d.coordinates.size();
    ql_.resize(n);
    vl_.resize(n);
    for (size_t a = 0; a < n; ++a) {
        ql_[a] = q[d.coordinates[a]];
        vl_[a] = v[d.coordinates[a]];
    }
    d.lagrangian->EvaluateLagrangian(t_, ql_.data(), vl_.data(), out);
}

const double* AbstractFormulation::multipliers(int element) const {
    for (const ElementData& d : elements_)
        if (d.element == element) return d.m > 0 ? lambda_.data() + d.mult_offset : nullptr;
    return nullptr;
}

Invariants AbstractFormulation::ComputeInvariants() const {
    Invariants inv;
    LagrangianBlock b;
    for (size_t k = 0; k < elements_.size(); ++k) {
        Evaluate(static_cast<int>(k), q_, v_, b);
        inv.kinetic += b.T;
        inv.potential += b.V;
        for (int j = 0; j < elements_[k].m; ++j)
            inv.constraint_violation = std::max(inv.constraint_violation, std::abs(b.g[j]));
    }
    return inv;
}

}  // namespace mbstep

namespace mbstep {

void AbstractFormulation::set_q(const Eigen::VectorXd& q) {
    q_ = q;
    for (int i = 0; i < q.size(); ++i) abs_[i].x = q[i];
}

void AbstractFormulation::AfterConvergence(const Eigen::VectorXd& v,
                                           const Eigen::VectorXd& lambda) {
    SetState(t_, q_, v, lambda);
}

void AbstractFormulation::TangentOperator(const Eigen::VectorXd& dq,
                                          Eigen::SparseMatrix<double>& T) const {
    T.resize(dq.size(), dq.size());
    T.setIdentity();
}

void AbstractFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                   const Eigen::VectorXd& lambda, Eigen::VectorXd& Ma,
                                   Eigen::VectorXd& f, Eigen::VectorXd& phi) {
    const int nv = num_coordinates();
    Ma = Eigen::VectorXd::Zero(nv);
    f = Eigen::VectorXd::Zero(nv);
    phi.resize(num_multipliers());
    LagrangianBlock b;
    for (size_t k = 0; k < elements_.size(); ++k) {
        const ElementData& d = elements_[k];
        Evaluate(static_cast<int>(k), q_, v, b);
        const int n = static_cast<int>(d.coordinates.size());
        Eigen::VectorXd vl(n), al(n);
        for (int i = 0; i < n; ++i) {
            vl[i] = v[d.coordinates[i]];
            al[i] = a[d.coordinates[i]];
        }
        const Eigen::VectorXd ma = b.T_vv * al;
        Eigen::VectorXd fl = b.T_qv.transpose() * vl - b.T_q + b.V_q;
        if (d.m > 0) fl += b.G.transpose() * lambda.segment(d.mult_offset, d.m);
        for (int i = 0; i < n; ++i) {
            Ma[d.coordinates[i]] += ma[i];
            f[d.coordinates[i]] += fl[i];
        }
        if (d.m > 0) phi.segment(d.mult_offset, d.m) = b.g;
    }
}

void AbstractFormulation::Evaluate(const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                   const Eigen::VectorXd& lambda, Jacobians& J) {
    const int nv = num_coordinates(), nc = num_multipliers();
    using Triplets = std::vector<Eigen::Triplet<double>>;
    Triplets tm, tkq, tc, tk, tl, tb;
    LagrangianBlock b;
    Eigen::MatrixXd dHa, dHv;
    // Every entry of each element's blocks enters the triplets, zero or not: the patterns are
    // fixed (second_order.hpp).
    for (size_t k = 0; k < elements_.size(); ++k) {
        const ElementData& d = elements_[k];
        const Element& el = *model_.elements()[d.element];
        Evaluate(static_cast<int>(k), q_, v, b);
        const int n = static_cast<int>(d.coordinates.size());
        std::vector<double> ql(n), vl(n), al(n), zero(n, 0.0);
        for (int i = 0; i < n; ++i) {
            ql[i] = q_[d.coordinates[i]];
            vl[i] = v[d.coordinates[i]];
            al[i] = a[d.coordinates[i]];
        }
        const LagrangianContract& lc = *d.lagrangian;
        if (!lc.KineticHessianDerivative(t_, ql.data(), vl.data(), zero.data(), al.data(), dHa) ||
            !lc.KineticHessianDerivative(t_, ql.data(), vl.data(), vl.data(), zero.data(), dHv))
            throw RunError("formulation 'lagrangian': " + el.statement() + " " +
                           std::to_string(el.label()) + " (" + el.type() +
                           ") provides no third derivatives of its kinetic energy, which the "
                           "Newmark-family Jacobians need");
        Eigen::MatrixXd K = dHv.bottomLeftCorner(n, n) - b.T_qq + b.V_qq;
        for (int j = 0; j < d.m; ++j) K += lambda[d.mult_offset + j] * b.g_qq[j];
        const Eigen::MatrixXd C = b.T_qv.transpose() - b.T_qv + dHv.bottomRightCorner(n, n);
        for (int i = 0; i < n; ++i) {
            const int r = d.coordinates[i];
            for (int j = 0; j < n; ++j) {
                const int c = d.coordinates[j];
                tm.emplace_back(r, c, b.T_vv(i, j));
                tkq.emplace_back(r, c, dHa(n + i, j));
                tc.emplace_back(r, c, C(i, j));
                tk.emplace_back(r, c, K(i, j));
            }
            for (int j = 0; j < d.m; ++j) {
                tl.emplace_back(r, d.mult_offset + j, b.G(j, i));
                tb.emplace_back(d.mult_offset + j, r, b.G(j, i));
            }
        }
    }
    auto set = [](Eigen::SparseMatrix<double>& m, int rows, int cols, const Triplets& t) {
        m.resize(rows, cols);
        m.setFromTriplets(t.begin(), t.end());
    };
    set(J.M, nv, nv, tm);
    set(J.Kq_inertia, nv, nv, tkq);
    set(J.C, nv, nv, tc);
    set(J.K, nv, nv, tk);
    set(J.L, nv, nc, tl);
    set(J.B, nc, nv, tb);
}

void AbstractFormulation::InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                                            Eigen::VectorXd& lambda) {
    const int nv = num_coordinates(), nc = num_multipliers();
    v = v_;
    const Eigen::VectorXd zero_v = Eigen::VectorXd::Zero(nv), zero_l = Eigen::VectorXd::Zero(nc);
    Eigen::VectorXd Ma, f, phi;
    Evaluate(v, zero_v, zero_l, Ma, f, phi);
    Jacobians J;
    Evaluate(v, zero_v, zero_l, J);
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nv + nc, nv + nc);
    A.topLeftCorner(nv, nv) = Eigen::MatrixXd(J.M);
    A.topRightCorner(nv, nc) = Eigen::MatrixXd(J.L);
    A.bottomLeftCorner(nc, nv) = Eigen::MatrixXd(J.B);
    Eigen::VectorXd rhs(nv + nc);
    rhs.head(nv) = -f;
    // phi'' = G a + (d(G v)/dq) v: sum over each element's constraints of v^T g_k,qq v.
    LagrangianBlock b;
    for (size_t k = 0; k < elements_.size(); ++k) {
        const ElementData& d = elements_[k];
        if (d.m == 0) continue;
        Evaluate(static_cast<int>(k), q_, v, b);
        const int n = static_cast<int>(d.coordinates.size());
        Eigen::VectorXd vl(n);
        for (int i = 0; i < n; ++i) vl[i] = v[d.coordinates[i]];
        for (int j = 0; j < d.m; ++j) rhs[nv + d.mult_offset + j] = -vl.dot(b.g_qq[j] * vl);
    }
    Eigen::FullPivLU<Eigen::MatrixXd> lu(A);
    lu.setThreshold(1e-12);
    if (!lu.isInvertible()) {
        std::ostringstream os;
        os << "formulation 'lagrangian': the consistent initial accelerations and multipliers "
              "need [M, G^T; G, 0] (M = T_vv, G = dg/dq) to be regular, and it is singular at "
              "the initial state (rank "
           << lu.rank() << " of " << nv + nc
           << "): a singular mass matrix needs constraints that cover its null space (the "
              "Newmark family does not invert M; `eml` runs such systems)";
        throw RunError(os.str());
    }
    const Eigen::VectorXd x = lu.solve(rhs);
    a = x.head(nv);
    lambda = x.tail(nc);
    SetState(t_, q_, v, lambda);
}

std::string AbstractFormulation::DescribeEquation(int row) const {
    const int nv = num_coordinates();
    if (row < nv)
        return "abstract node " + std::to_string(model_.abstract_nodes()[row].label) +
               ", Lagrange equation";
    const int j = row - nv;
    for (const ElementData& d : elements_)
        if (j >= d.mult_offset && j < d.mult_offset + d.m) {
            const Element& el = *model_.elements()[d.element];
            return el.statement() + " " + std::to_string(el.label()) + " (" + el.type() +
                   "), constraint " + std::to_string(j - d.mult_offset + 1);
        }
    return "row " + std::to_string(row);
}

}  // namespace mbstep
