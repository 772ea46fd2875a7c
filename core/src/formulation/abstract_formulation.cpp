// mbstep — the state of abstract-node models for `eml` and `rk` (abstract_formulation.hpp).
#include "mbstep/formulation/abstract_formulation.hpp"

#include <algorithm>
#include <cmath>

#include "mbstep/model/model.hpp"

namespace mbstep {

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
    if (!model.nodes().empty())
        throw RunError(why +
                       "abstract nodes together with structural nodes are not supported (a "
                       "model is either structural or made of abstract nodes)");
    const int nn = static_cast<int>(model.abstract_nodes().size());
    std::vector<bool> read(nn, false);
    int m_total = 0;
    const auto& elements = model.elements();
    for (size_t e = 0; e < elements.size(); ++e) {
        const Element& el = *elements[e];
        if (el.abstract_nodes().empty())
            throw RunError(why + el.statement() + " " + std::to_string(el.label()) + " (" +
                           el.type() + ") acts on structural nodes, which this model has none of");
        ElementData d;
        d.element = static_cast<int>(e);
        d.coordinates = el.abstract_nodes();
        d.m = el.num_multipliers();
        d.mult_offset = m_total;
        m_total += d.m;
        for (int i : d.coordinates) read[i] = true;
        elements_.push_back(std::move(d));
    }
    for (int i = 0; i < nn; ++i)
        if (!read[i])
            throw RunError(why + "abstract node " +
                           std::to_string(model.abstract_nodes()[i].label) +
                           " is read by no element: its equations would be empty");
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
    model_.elements()[d.element]->EvaluateLagrangian(t_, ql_.data(), vl_.data(), out);
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
