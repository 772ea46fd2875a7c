// mbstep — shared parts of the second-order formulations (second_order_base.hpp).
#include "mbstep/formulation/second_order_base.hpp"

#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "mbstep/model/model.hpp"

namespace mbstep {

SecondOrderFormulationBase::SecondOrderFormulationBase(const Model& model,
                                                       const std::string& formulation)
    : model_(model), formulation_(formulation) {
    // MBDyn's static solution (`model: static;`) has no second-order form here: refused, never
    // run as a dynamic model (the run loop refuses it first, FormulationDescriptor).
    if (model.static_model())
        throw RunError("formulation '" + formulation +
                       "' cannot solve a static model (control data `model: static;`): the static "
                       "solution needs the `cgr` formulation and a first-order method");
    const auto& mnodes = model.nodes();
    nn_ = static_cast<int>(mnodes.size());
    inertia_.assign(nn_, NodeInertia{});
    states_.resize(nn_);
    for (const auto& e : model.elements()) {
        std::vector<NodeInertia> local(e->nodes().size());
        e->AddInertia(local);
        for (size_t k = 0; k < local.size(); ++k) inertia_[e->nodes()[k]] += local[k];
    }
    for (int i = 0; i < nn_; ++i)
        if (mnodes[i].kind == NodeKind::kDynamic && inertia_[i].m <= 0.0)
            throw RunError("dynamic structural node " + std::to_string(mnodes[i].label) +
                           " has no mass: attach a body or make it static");
    ElementTable table = BuildElementTable(model_, states_, formulation_, num_element_multipliers_);
    num_element_multipliers_ = table.end_multiplier;
    elements_ = std::move(table.slots);
    ptrs_ = std::move(table.ptrs);
    ptr_offset_ = std::move(table.ptr_offset);
    active_elements_ = std::move(table.active);
}

const double* SecondOrderFormulationBase::multipliers(int element) const {
    const ElementSlot& ed = elements_[element];
    return ed.m > 0 ? lambda_.data() + ed.mult_offset : nullptr;
}

Vec3 SecondOrderFormulationBase::Gravity() const {
    return model_.gravity() ? model_.gravity()->At(t_) : Vec3::Zero();
}

ElementContext SecondOrderFormulationBase::Context(int e, const double* lambda) const {
    const ElementSlot& ed = elements_[e];
    return ElementContext{t_, ptrs_.data() + ptr_offset_[e],
                          ed.m > 0 && lambda != nullptr ? lambda + ed.mult_offset : nullptr,
                          Gravity()};
}

Invariants SecondOrderFormulationBase::ComputeInvariants() const {
    Invariants inv;
    for (int i = 0; i < nn_; ++i) AddNodeInvariants(inertia_[i], states_[i], inv);
    const auto& elems = model_.elements();
    ElementBlock b;
    for (size_t e = 0; e < elems.size(); ++e) {
        const ElementContext ctx = Context(static_cast<int>(e), lambda_.data());
        inv.potential += elems[e]->PotentialEnergy(ctx);
        const int m = elements_[e].m;
        if (m > 0) {
            b.Reset(static_cast<int>(elems[e]->nodes().size()), m, false);
            elems[e]->Evaluate(ctx, b);
            for (int j = 0; j < m; ++j)
                inv.constraint_violation = std::max(inv.constraint_violation, std::abs(b.phi[j]));
        }
    }
    return inv;
}

std::string SecondOrderFormulationBase::DescribeExtraConstraint(int k) const {
    return "constraint equation " + std::to_string(num_element_multipliers_ + k);
}

std::string SecondOrderFormulationBase::DescribeEquation(int row) const {
    const std::vector<std::string>& names = NodeRowNames();
    const int per_node = static_cast<int>(names.size());
    std::ostringstream os;
    if (row >= 0 && row < nv_) {
        os << "structural node " << model_.nodes()[row / per_node].label << ", "
           << names[row % per_node];
        return os.str();
    }
    const int c = row - nv_;
    if (c >= num_element_multipliers_ && c < nc_)
        return DescribeExtraConstraint(c - num_element_multipliers_);
    const auto& elems = model_.elements();
    for (size_t e = 0; e < elements_.size(); ++e) {
        const ElementSlot& ed = elements_[e];
        if (ed.m > 0 && c >= ed.mult_offset && c < ed.mult_offset + ed.m)
            return DescribeConstraintRow(*elems[e], c - ed.mult_offset);
    }
    os << "equation " << row;
    return os.str();
}

Eigen::VectorXd SecondOrderFormulationBase::VectorSpacePhiSecondDerivative(
    const Eigen::VectorXd& v, const Eigen::VectorXd& a, const Eigen::VectorXd& lambda) {
    const Eigen::VectorXd q0 = q_;
    const double t0 = t_;
    Eigen::VectorXd m, ff, p;
    auto phi_at = [&](double tau) {
        q_ = q0 + tau * v;
        t_ = t0 + tau;
        Evaluate(v, a, lambda, m, ff, p);
        return p;
    };
    const double d = 1e-3 / std::max(1.0, v.cwiseAbs().maxCoeff());
    const Eigen::VectorXd p0 = phi_at(0.0);
    const Eigen::VectorXd dd1 = (phi_at(d) - 2.0 * p0 + phi_at(-d)) / (d * d);
    const Eigen::VectorXd dd2 = (phi_at(0.5 * d) - 2.0 * p0 + phi_at(-0.5 * d)) / (0.25 * d * d);
    q_ = q0;
    t_ = t0;
    return (4.0 * dd2 - dd1) / 3.0;
}

void SecondOrderFormulationBase::SolveInitialSystem(const Jacobians& J, const Eigen::VectorXd& f0,
                                                    const Eigen::VectorXd& rhs_phi,
                                                    Eigen::VectorXd& a,
                                                    Eigen::VectorXd& lambda) const {
    std::vector<Eigen::Triplet<double>> t;
    auto add = [&](const Eigen::SparseMatrix<double>& m, int r0, int c0) {
        for (int k = 0; k < m.outerSize(); ++k)
            for (Eigen::SparseMatrix<double>::InnerIterator it(m, k); it; ++it)
                t.emplace_back(r0 + it.row(), c0 + it.col(), it.value());
    };
    add(J.M, 0, 0);
    add(J.L, 0, nv_);
    add(J.B, nv_, 0);
    Eigen::SparseMatrix<double> A(nv_ + nc_, nv_ + nc_);
    A.setFromTriplets(t.begin(), t.end());
    A.makeCompressed();
    Eigen::VectorXd rhs(nv_ + nc_);
    rhs << -f0, rhs_phi;
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    lu.compute(A);
    if (lu.info() != Eigen::Success) {
        const auto& elems = model_.elements();
        auto owner = [&](int c) {
            for (size_t e = 0; e < elements_.size(); ++e) {
                const ElementSlot& ed = elements_[e];
                if (ed.m > 0 && c >= ed.mult_offset && c < ed.mult_offset + ed.m)
                    return ElementRowOwner(*elems[e], c - ed.mult_offset);
            }
            return ConstraintRowOwner{DescribeExtraConstraint(c - num_element_multipliers_), 0};
        };
        throw RunError(SingularSystemMessage(
            formulation_ + ": singular initial acceleration system at t = " + std::to_string(t_),
            J.B, owner,
            "no redundant constraint rows: a static node without stiffness in some direction?"));
    }
    const Eigen::VectorXd sol = lu.solve(rhs);
    if (!sol.allFinite())
        throw RunError(formulation_ +
                       " initial conditions: non-finite solution at t = " + std::to_string(t_));
    a = sol.head(nv_);
    lambda = sol.tail(nc_);
}

}  // namespace mbstep
