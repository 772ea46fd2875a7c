// mbstep — the `cgr` family's first-order form for abstract nodes (lagrangian_formulation.hpp).
#include "lagrangian_formulation.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace mbstep::cgr {

LagrangianFormulation::LagrangianFormulation(const Model& model, std::string name)
    : model_(model), name_(std::move(name)) {
    const std::string why = "formulation '" + name_ + "' with abstract nodes: ";
    if (model.static_model()) throw RunError(why + "`model: static;` is not supported");
    num_nodes_ = static_cast<int>(model.abstract_nodes().size());
    int m_total = 0;
    elements_ = AbstractElementTable(model, why, 2 * num_nodes_, &m_total);
    n_ = 2 * num_nodes_ + m_total;
    kinds_.assign(n_, DofKind::kDifferential);
    for (int k = 2 * num_nodes_; k < n_; ++k) kinds_[k] = DofKind::kAlgebraic;
    block_.resize(elements_.size());
    y_ = Eigen::VectorXd::Zero(n_);
    yp_ = Eigen::VectorXd::Zero(n_);
    for (int i = 0; i < num_nodes_; ++i) {
        y_[2 * i] = model.abstract_nodes()[i].x0;
        yp_[2 * i] = model.abstract_nodes()[i].v0;
    }
    // p = T_v(q0, v0)
    for (size_t k = 0; k < elements_.size(); ++k) {
        Evaluate(static_cast<int>(k));
        const auto& c = elements_[k].coordinates;
        for (size_t a = 0; a < c.size(); ++a) y_[2 * c[a] + 1] += block_[k].T_v[a];
    }
    Triplets(1.0, true, triplets_);
    pattern_.resize(n_, n_);
    pattern_.setFromTriplets(triplets_.begin(), triplets_.end());
    pattern_.makeCompressed();
    abs_.resize(num_nodes_);
}

void LagrangianFormulation::Evaluate(int k) const {
    const ElementData& d = elements_[k];
    const size_t n = d.coordinates.size();
    q_.resize(n);
    v_.resize(n);
    for (size_t a = 0; a < n; ++a) {
        q_[a] = y_[2 * d.coordinates[a]];
        v_[a] = yp_[2 * d.coordinates[a]];
    }
    d.lagrangian->EvaluateLagrangian(t_, q_.data(), v_.data(), block_[k]);
}

const std::vector<AbstractState>& LagrangianFormulation::abstract_states() const {
    for (int i = 0; i < num_nodes_; ++i) abs_[i] = AbstractState{y_[2 * i], yp_[2 * i]};
    return abs_;
}

const double* LagrangianFormulation::multipliers(int element) const {
    for (const ElementData& d : elements_)
        if (d.element == element) return d.m > 0 ? y_.data() + d.mult_offset : nullptr;
    return nullptr;
}

void LagrangianFormulation::Residual(double c, Eigen::VectorXd& r) {
    for (size_t k = 0; k < elements_.size(); ++k) Evaluate(static_cast<int>(k));
    FillResidual(c, r);
}

void LagrangianFormulation::Jacobian(double c, Eigen::SparseMatrix<double>& J) {
    for (size_t k = 0; k < elements_.size(); ++k) Evaluate(static_cast<int>(k));
    FillJacobian(c, J);
}

void LagrangianFormulation::ResidualAndJacobian(double c, Eigen::VectorXd& r,
                                                Eigen::SparseMatrix<double>& J) {
    for (size_t k = 0; k < elements_.size(); ++k) Evaluate(static_cast<int>(k));
    FillResidual(c, r);
    FillJacobian(c, J);
}

void LagrangianFormulation::FillResidual(double c, Eigen::VectorXd& r) const {
    r.setZero(n_);
    for (int i = 0; i < num_nodes_; ++i) {
        r[2 * i] = y_[2 * i + 1];        // (L1): p - sum T_v
        r[2 * i + 1] = -yp_[2 * i + 1];  // (L2): ... - p'
    }
    for (size_t k = 0; k < elements_.size(); ++k) {
        const ElementData& d = elements_[k];
        const LagrangianBlock& b = block_[k];
        const auto lambda = y_.segment(d.mult_offset, d.m);
        for (size_t a = 0; a < d.coordinates.size(); ++a) {
            const int i = d.coordinates[a];
            double gl = 0.0;
            for (int j = 0; j < d.m; ++j) gl += b.G(j, a) * lambda[j];
            r[2 * i] -= b.T_v[a];
            r[2 * i + 1] += b.T_q[a] - b.V_q[a] - gl;
        }
        for (int j = 0; j < d.m; ++j) r[d.mult_offset + j] = -b.g[j] / c;  // (L3)
    }
}

void LagrangianFormulation::Triplets(double c, bool zero,
                                     std::vector<Eigen::Triplet<double>>& out) const {
    out.clear();
    auto add = [&](int row, int col, double v) { out.emplace_back(row, col, zero ? 0.0 : v); };
    for (int i = 0; i < num_nodes_; ++i) {
        add(2 * i, 2 * i + 1, c);         // d(L1)/dp'
        add(2 * i + 1, 2 * i + 1, -1.0);  // d(L2)/dp'
    }
    for (size_t k = 0; k < elements_.size(); ++k) {
        const ElementData& d = elements_[k];
        const LagrangianBlock& b = block_[k];
        const int n = static_cast<int>(d.coordinates.size());
        const auto lambda = y_.segment(d.mult_offset, d.m);
        for (int a = 0; a < n; ++a) {
            const int i = d.coordinates[a];
            for (int bb = 0; bb < n; ++bb) {
                const int j = d.coordinates[bb];
                double hl = 0.0;
                if (!zero)
                    for (int kk = 0; kk < d.m; ++kk) hl += lambda[kk] * b.g_qq[kk](a, bb);
                // T_vq(a, bb) = d(T_v,a)/dq_bb = T_qv(bb, a)
                add(2 * i, 2 * j, zero ? 0.0 : -b.T_vv(a, bb) - c * b.T_qv(bb, a));
                add(2 * i + 1, 2 * j,
                    zero ? 0.0 : b.T_qv(a, bb) + c * (b.T_qq(a, bb) - b.V_qq(a, bb) - hl));
            }
            for (int kk = 0; kk < d.m; ++kk) {
                add(2 * i + 1, d.mult_offset + kk, zero ? 0.0 : -b.G(kk, a));
                add(d.mult_offset + kk, 2 * i, zero ? 0.0 : -b.G(kk, a));
            }
        }
    }
}

void LagrangianFormulation::FillJacobian(double c, Eigen::SparseMatrix<double>& J) {
    Triplets(c, false, triplets_);
    J.resize(n_, n_);
    J.setFromTriplets(triplets_.begin(), triplets_.end());
    J.makeCompressed();
}

void LagrangianFormulation::Update(const Eigen::VectorXd& delta, double c) {
    for (int k = 0; k < n_; ++k) {
        if (kinds_[k] == DofKind::kDifferential) {
            yp_[k] += delta[k];
            y_[k] += c * delta[k];
        } else {
            y_[k] += delta[k];
        }
    }
}

std::string LagrangianFormulation::DescribeEquation(int row) const {
    if (row < 2 * num_nodes_)
        return "abstract node " + std::to_string(model_.abstract_nodes()[row / 2].label) +
               (row % 2 == 0 ? ", momentum definition" : ", Euler-Lagrange balance");
    for (const ElementData& d : elements_)
        if (row >= d.mult_offset && row < d.mult_offset + d.m)
            return DescribeConstraintRow(*model_.elements()[d.element], row - d.mult_offset);
    return "row " + std::to_string(row);
}

Invariants LagrangianFormulation::ComputeInvariants() const {
    Invariants inv;
    for (size_t k = 0; k < elements_.size(); ++k) {
        Evaluate(static_cast<int>(k));
        inv.kinetic += block_[k].T;
        inv.potential += block_[k].V;
        for (int j = 0; j < elements_[k].m; ++j)
            inv.constraint_violation = std::max(inv.constraint_violation, std::abs(block_[k].g[j]));
    }
    return inv;
}

int LagrangianFormulation::SolveInitialDerivatives(const SolverSettings&, double) {
    const int nn = num_nodes_;
    const int m = n_ - 2 * nn;
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nn + m, nn + m);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(nn + m);
    for (size_t k = 0; k < elements_.size(); ++k) {
        Evaluate(static_cast<int>(k));
        const ElementData& d = elements_[k];
        const LagrangianBlock& b = block_[k];
        const int n = static_cast<int>(d.coordinates.size());
        const int row0 = nn + (d.mult_offset - 2 * nn);
        for (int a = 0; a < n; ++a) {
            const int i = d.coordinates[a];
            double tvq_v = 0.0;
            for (int bb = 0; bb < n; ++bb) {
                A(i, d.coordinates[bb]) += b.T_vv(a, bb);
                tvq_v += b.T_qv(bb, a) * v_[bb];
            }
            rhs[i] += b.T_q[a] - b.V_q[a] - tvq_v;
            for (int kk = 0; kk < d.m; ++kk) {
                A(i, row0 + kk) += b.G(kk, a);
                A(row0 + kk, i) += b.G(kk, a);
            }
        }
        for (int kk = 0; kk < d.m; ++kk) {
            double vhv = 0.0;
            for (int a = 0; a < n; ++a)
                for (int bb = 0; bb < n; ++bb) vhv += v_[a] * b.g_qq[kk](a, bb) * v_[bb];
            rhs[row0 + kk] = -vhv;
        }
    }
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
    if (qr.rank() < nn + m)
        throw RunError("initial derivatives: singular system at t = " + std::to_string(t_) +
                       " (the mass matrix T_vv is not positive definite on the null space of "
                       "the constraint gradients, or constraints are redundant)");
    const Eigen::VectorXd x = qr.solve(rhs);
    for (int i = 0; i < nn; ++i) yp_[2 * i + 1] = 0.0;
    for (int kk = 0; kk < m; ++kk) y_[2 * nn + kk] = x[nn + kk];
    // p' = T_q - V_q - G^T lambda
    for (size_t k = 0; k < elements_.size(); ++k) {
        const ElementData& d = elements_[k];
        const LagrangianBlock& b = block_[k];
        for (size_t a = 0; a < d.coordinates.size(); ++a) {
            double gl = 0.0;
            for (int kk = 0; kk < d.m; ++kk) gl += b.G(kk, a) * y_[d.mult_offset + kk];
            yp_[2 * d.coordinates[a] + 1] += b.T_q[a] - b.V_q[a] - gl;
        }
    }
    return 1;
}

}  // namespace mbstep::cgr
