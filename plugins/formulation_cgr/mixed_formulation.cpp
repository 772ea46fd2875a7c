// mbstep — the `cgr` family on structural and abstract nodes (mixed_formulation.hpp).
#include "mixed_formulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mbstep::cgr {

MixedFormulation::MixedFormulation(const Model& model, std::unique_ptr<CgrFormulation> structural)
    : model_(model), cgr_(std::move(structural)) {
    const std::string why =
        "formulation '" + cgr_->name() + "' with abstract and structural nodes: ";
    if (model.static_model())
        throw RunError(why +
                       "`model: static;` is not supported (the abstract nodes' equations are "
                       "the dynamic momentum form only)");
    num_abstract_ = static_cast<int>(model.abstract_nodes().size());
    nc_ = cgr_->num_dofs();
    nuc_ = static_cast<int>(cgr_->pattern().rows());
    const auto& elems = model.elements();
    lagrangian_of_.assign(elems.size(), -1);
    std::vector<bool> read(num_abstract_, false);
    int off = nc_ + 2 * num_abstract_;
    for (size_t e = 0; e < elems.size(); ++e) {
        const Element& el = *elems[e];
        if (el.abstract_nodes().empty()) continue;
        ElementData d;
        d.element = static_cast<int>(e);
        d.lagrangian = el.lagrangian();
        if (!d.lagrangian)
            throw RunError(why + el.statement() + " " + std::to_string(el.label()) + " (" +
                           el.type() + ") on abstract nodes has no Lagrangian contract");
        d.coordinates = el.abstract_nodes();
        d.structural = el.nodes();
        d.m = el.num_multipliers();
        if (d.m > ElementBlock::kMaxMultipliers ||
            static_cast<int>(d.structural.size()) > ElementBlock::kMaxNodes)
            throw RunError(why + el.statement() + " " + std::to_string(el.label()) +
                           " exceeds the block size");
        d.mult_offset = off;
        off += d.m;
        for (int i : d.coordinates) read[i] = true;
        lagrangian_of_[e] = static_cast<int>(elements_.size());
        elements_.push_back(std::move(d));
    }
    for (int i = 0; i < num_abstract_; ++i)
        if (!read[i])
            throw RunError(why + "abstract node " +
                           std::to_string(model.abstract_nodes()[i].label) +
                           " is read by no element: its equations would be empty");
    n_ = off;
    nu_ = nuc_ + (n_ - nc_);
    kinds_ = cgr_->dof_kinds();
    kinds_.resize(n_, DofKind::kDifferential);
    std::fill(kinds_.begin() + nc_ + 2 * num_abstract_, kinds_.end(), DofKind::kAlgebraic);
    y_ = Eigen::VectorXd::Zero(n_);
    yp_ = Eigen::VectorXd::Zero(n_);
    SyncUp();
    for (int i = 0; i < num_abstract_; ++i) {
        y_[coordinate_dof(i)] = model.abstract_nodes()[i].x0;
        yp_[coordinate_dof(i)] = model.abstract_nodes()[i].v0;
    }
    block_.resize(elements_.size());
    sblock_.resize(elements_.size());
    // p = T_v(q0, v0); the structural blocks must be forces on the node points that depend on
    // their positions only (the coupling maps them to x' alone).
    for (size_t k = 0; k < elements_.size(); ++k) {
        Evaluate(static_cast<int>(k), true);
        const auto& c = elements_[k].coordinates;
        for (size_t a = 0; a < c.size(); ++a) y_[coordinate_dof(c[a]) + 1] += block_[k].T_v[a];
        if (elements_[k].structural.empty()) continue;
        const ElementBlock& b = sblock_[k];
        if ((b.k_quadrants & ~ElementBlock::Quadrant(0, 0)) != 0 || b.c_blocks != 0)
            throw RunError(why + elems[elements_[k].element]->statement() + " " +
                           std::to_string(elems[elements_[k].element]->label()) +
                           " writes moments or velocity terms on its structural nodes, which "
                           "this formulation does not map (forces on the node points only)");
    }
    Jc_ = cgr_->pattern();
    std::vector<Eigen::Triplet<double>> extra;
    Triplets(1.0, true, extra);
    for (int k = 0; k < Jc_.outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(Jc_, k); it; ++it)
            triplets_.emplace_back(static_cast<int>(it.row()), static_cast<int>(it.col()), 0.0);
    triplets_.insert(triplets_.end(), extra.begin(), extra.end());
    pattern_.resize(nu_, nu_);
    pattern_.setFromTriplets(triplets_.begin(), triplets_.end());
    pattern_.makeCompressed();
    abs_.resize(num_abstract_);
}

void MixedFormulation::SyncDown() {
    const size_t bytes = static_cast<size_t>(nc_) * sizeof(double);
    if (std::memcmp(cgr_->y().data(), y_.data(), bytes) == 0 &&
        std::memcmp(cgr_->yp().data(), yp_.data(), bytes) == 0)
        return;
    cgr_->y() = y_.head(nc_);
    cgr_->yp() = yp_.head(nc_);
    cgr_->StateChanged();
}

void MixedFormulation::SyncUp() {
    y_.head(nc_) = cgr_->y();
    yp_.head(nc_) = cgr_->yp();
}

void MixedFormulation::Evaluate(int k, bool jacobian) const {
    const ElementData& d = elements_[k];
    const Element& el = *model_.elements()[d.element];
    const size_t n = d.coordinates.size();
    q_.resize(n);
    v_.resize(n);
    for (size_t a = 0; a < n; ++a) {
        q_[a] = y_[coordinate_dof(d.coordinates[a])];
        v_[a] = yp_[coordinate_dof(d.coordinates[a])];
    }
    const int ks = static_cast<int>(d.structural.size());
    if (ks == 0) {
        d.lagrangian->EvaluateLagrangian(t_, q_.data(), v_.data(), block_[k]);
        return;
    }
    const std::vector<FrameState>& states = cgr_->node_states();
    const FrameState* ptrs[ElementBlock::kMaxNodes];
    x_.resize(3 * ks);
    for (int a = 0; a < ks; ++a) {
        ptrs[a] = &states[d.structural[a]];
        for (int j = 0; j < 3; ++j) x_[3 * a + j] = ptrs[a]->x[j];
    }
    d.lagrangian->EvaluateLagrangian(t_, q_.data(), v_.data(), block_[k], x_.data());
    ElementContext ctx{t_, ptrs, d.m > 0 ? y_.data() + d.mult_offset : nullptr, Vec3::Zero(),
                       q_.data()};
    sblock_[k].Reset(ks, d.m, jacobian);
    el.Evaluate(ctx, sblock_[k]);
}

void MixedFormulation::EvaluateAll(bool jacobian) {
    for (size_t k = 0; k < elements_.size(); ++k) Evaluate(static_cast<int>(k), jacobian);
}

void MixedFormulation::SetTime(double t) {
    t_ = t;
    cgr_->SetTime(t);
}

const std::vector<AbstractState>& MixedFormulation::abstract_states() const {
    for (int i = 0; i < num_abstract_; ++i)
        abs_[i] = AbstractState{y_[coordinate_dof(i)], yp_[coordinate_dof(i)]};
    return abs_;
}

const double* MixedFormulation::multipliers(int element) const {
    const int k = lagrangian_of_[element];
    if (k < 0) return cgr_->multipliers(element);
    return elements_[k].m > 0 ? y_.data() + elements_[k].mult_offset : nullptr;
}

void MixedFormulation::FillResidual(double c, Eigen::VectorXd& r) const {
    r.setZero(nu_);
    r.head(nuc_) = rc_;
    for (int i = 0; i < num_abstract_; ++i) {
        const int j = coordinate_dof(i);
        r[row(j)] = y_[j + 1];        // (L1): p - sum T_v
        r[row(j + 1)] = -yp_[j + 1];  // (L2): ... - p'
    }
    for (size_t k = 0; k < elements_.size(); ++k) {
        const ElementData& d = elements_[k];
        const LagrangianBlock& b = block_[k];
        const auto lambda = y_.segment(d.mult_offset, d.m);
        for (size_t a = 0; a < d.coordinates.size(); ++a) {
            const int j = coordinate_dof(d.coordinates[a]);
            double gl = 0.0;
            for (int kk = 0; kk < d.m; ++kk) gl += b.G(kk, a) * lambda[kk];
            r[row(j)] -= b.T_v[a];
            r[row(j + 1)] += b.T_q[a] - b.V_q[a] - gl;
        }
        for (int kk = 0; kk < d.m; ++kk) r[row(d.mult_offset + kk)] = -b.g[kk] / c;  // (L3)
        const ElementBlock& sb = sblock_[k];
        for (size_t a = 0; a < d.structural.size(); ++a) {
            const int node = d.structural[a];
            const double rf = cgr_->node_row_factor(node, c);
            for (int j = 0; j < 6; ++j) r[cgr_->node_row(node) + j] += rf * sb.f[6 * a + j];
        }
    }
}

void MixedFormulation::Triplets(double c, bool zero,
                                std::vector<Eigen::Triplet<double>>& out) const {
    out.clear();
    auto add = [&](int r, int col, double v) { out.emplace_back(r, col, zero ? 0.0 : v); };
    for (int i = 0; i < num_abstract_; ++i) {
        const int j = coordinate_dof(i);
        add(row(j), row(j + 1), c);         // d(L1)/dp'
        add(row(j + 1), row(j + 1), -1.0);  // d(L2)/dp'
    }
    for (size_t k = 0; k < elements_.size(); ++k) {
        const ElementData& d = elements_[k];
        const LagrangianBlock& b = block_[k];
        const ElementBlock& sb = sblock_[k];
        const int n = static_cast<int>(d.coordinates.size());
        const auto lambda = y_.segment(d.mult_offset, d.m);
        for (int a = 0; a < n; ++a) {
            const int qi = coordinate_dof(d.coordinates[a]);
            for (int bb = 0; bb < n; ++bb) {
                const int qj = coordinate_dof(d.coordinates[bb]);
                double hl = 0.0;
                if (!zero)
                    for (int kk = 0; kk < d.m; ++kk) hl += lambda[kk] * b.g_qq[kk](a, bb);
                // T_vq(a, bb) = d(T_v,a)/dq_bb = T_qv(bb, a)
                add(row(qi), row(qj), zero ? 0.0 : -b.T_vv(a, bb) - c * b.T_qv(bb, a));
                add(row(qi + 1), row(qj),
                    zero ? 0.0 : b.T_qv(a, bb) + c * (b.T_qq(a, bb) - b.V_qq(a, bb) - hl));
            }
            for (int kk = 0; kk < d.m; ++kk) {
                add(row(qi + 1), row(d.mult_offset + kk), zero ? 0.0 : -b.G(kk, a));
                add(row(d.mult_offset + kk), row(qi), zero ? 0.0 : -b.G(kk, a));
            }
        }
        // The coupling with the structural nodes (mixed_formulation.hpp).
        const int ks = static_cast<int>(d.structural.size());
        for (int s = 0; s < ks; ++s) {
            const int node = d.structural[s];
            const int X = cgr_->node_row(node);
            const double rf = cgr_->node_row_factor(node, c);
            for (int j = 0; j < 3; ++j) {
                for (int t = 0; t < ks; ++t) {
                    const int Xt = cgr_->node_row(d.structural[t]);
                    for (int l = 0; l < 3; ++l)
                        add(X + j, Xt + l, zero ? 0.0 : -c * rf * sb.K(6 * s + j, 6 * t + l));
                }
                for (int kk = 0; kk < d.m; ++kk) {
                    add(X + j, row(d.mult_offset + kk), zero ? 0.0 : rf * sb.L(6 * s + j, kk));
                    add(row(d.mult_offset + kk), X + j, zero ? 0.0 : -b.G_x(kk, 3 * s + j));
                }
                for (int a = 0; a < n; ++a) {
                    const int qi = coordinate_dof(d.coordinates[a]);
                    double h = 0.0;
                    if (!zero) {
                        h = b.V_qx(a, 3 * s + j);
                        for (int kk = 0; kk < d.m; ++kk) h += lambda[kk] * b.g_qx[kk](a, 3 * s + j);
                    }
                    add(X + j, row(qi), -c * rf * h);
                    add(row(qi + 1), X + j, -c * h);
                }
            }
        }
    }
}

void MixedFormulation::Assemble(double c, Eigen::VectorXd* r, Eigen::SparseMatrix<double>* J) {
    SyncDown();
    if (J && r)
        cgr_->ResidualAndJacobian(c, rc_, Jc_);
    else if (J)
        cgr_->Jacobian(c, Jc_);
    else
        cgr_->Residual(c, rc_);
    SyncUp();  // `cgr velocity` sets the momenta from the unknowns
    EvaluateAll(J != nullptr);
    if (r) FillResidual(c, *r);
    if (!J) return;
    triplets_.clear();
    for (int k = 0; k < Jc_.outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(Jc_, k); it; ++it)
            triplets_.emplace_back(static_cast<int>(it.row()), static_cast<int>(it.col()),
                                   it.value());
    std::vector<Eigen::Triplet<double>> extra;
    Triplets(c, false, extra);
    triplets_.insert(triplets_.end(), extra.begin(), extra.end());
    J->resize(nu_, nu_);
    J->setFromTriplets(triplets_.begin(), triplets_.end());
    J->makeCompressed();
}

void MixedFormulation::Residual(double c, Eigen::VectorXd& r) { Assemble(c, &r, nullptr); }

void MixedFormulation::Jacobian(double c, Eigen::SparseMatrix<double>& J) {
    Assemble(c, nullptr, &J);
}

void MixedFormulation::ResidualAndJacobian(double c, Eigen::VectorXd& r,
                                           Eigen::SparseMatrix<double>& J) {
    Assemble(c, &r, &J);
}

void MixedFormulation::Update(const Eigen::VectorXd& delta, double c) {
    SyncDown();
    cgr_->Update(delta.head(nuc_), c);
    SyncUp();
    for (int j = nc_; j < n_; ++j) {
        const double d = delta[row(j)];
        if (kinds_[j] == DofKind::kDifferential) {
            yp_[j] += d;
            y_[j] += c * d;
        } else {
            y_[j] += d;
        }
    }
}

void MixedFormulation::BeforePredict(std::vector<Eigen::VectorXd>& yh,
                                     std::vector<Eigen::VectorXd>& yph, int chart) {
    SyncDown();
    std::vector<Eigen::VectorXd> ch(yh.size()), cph(yph.size());
    for (size_t j = 0; j < yh.size(); ++j) ch[j] = yh[j].head(nc_);
    for (size_t j = 0; j < yph.size(); ++j) cph[j] = yph[j].head(nc_);
    cgr_->BeforePredict(ch, cph, chart);
    for (size_t j = 0; j < yh.size(); ++j) yh[j].head(nc_) = ch[j];
    for (size_t j = 0; j < yph.size(); ++j) yph[j].head(nc_) = cph[j];
    SyncUp();
}

void MixedFormulation::AfterPredict() {
    SyncDown();
    cgr_->AfterPredict();
    SyncUp();
}

void MixedFormulation::AfterConvergence() {
    SyncDown();
    cgr_->AfterConvergence();
    SyncUp();
}

void MixedFormulation::RestoreLastSolved() {
    SyncDown();
    cgr_->RestoreLastSolved();
    SyncUp();
}

void MixedFormulation::DiscardSolved(int count) {
    SyncDown();
    cgr_->DiscardSolved(count);
    SyncUp();
}

std::string MixedFormulation::DescribeEquation(int r) const {
    if (r < nuc_) return cgr_->DescribeEquation(r);
    const int j = nc_ + (r - nuc_);
    if (j < nc_ + 2 * num_abstract_) {
        const int i = (j - nc_) / 2;
        return "abstract node " + std::to_string(model_.abstract_nodes()[i].label) +
               ((j - nc_) % 2 == 0 ? ", momentum definition" : ", Euler-Lagrange balance");
    }
    for (const ElementData& d : elements_)
        if (j >= d.mult_offset && j < d.mult_offset + d.m)
            return DescribeConstraintRow(*model_.elements()[d.element], j - d.mult_offset);
    return "row " + std::to_string(r);
}

void MixedFormulation::ResidualNoise(double c, Eigen::VectorXd& noise) const {
    cgr_->ResidualNoise(c, noise);
    if (noise.size() == 0) return;
    noise.conservativeResize(nu_);
    noise.tail(nu_ - nuc_).setZero();
}

Invariants MixedFormulation::ComputeInvariants() const {
    Invariants inv = cgr_->ComputeInvariants();
    for (size_t k = 0; k < elements_.size(); ++k) {
        Evaluate(static_cast<int>(k), false);
        inv.kinetic += block_[k].T;
        inv.potential += block_[k].V;
        for (int j = 0; j < elements_[k].m; ++j)
            inv.constraint_violation = std::max(inv.constraint_violation, std::abs(block_[k].g[j]));
    }
    return inv;
}

int MixedFormulation::SolveInitialDerivatives(const SolverSettings& s, double h) {
    SyncDown();
    const int na = num_abstract_;
    const int first_mult = nc_ + 2 * na;
    const int ml = n_ - first_mult;
    // The structural rows take the element forces at lambda = 0 (f is affine in lambda).
    y_.tail(ml).setZero();
    CgrFormulation::InitialCoupling coupling;
    coupling.unknowns = na + ml;
    coupling.assemble = [&](int base, const std::vector<FrameState>& states,
                            std::vector<Eigen::Triplet<double>>& trip, Eigen::VectorXd& rhs) {
        for (size_t k = 0; k < elements_.size(); ++k) {
            Evaluate(static_cast<int>(k), true);
            const ElementData& d = elements_[k];
            const LagrangianBlock& b = block_[k];
            const ElementBlock& sb = sblock_[k];
            const int n = static_cast<int>(d.coordinates.size());
            const int ks = static_cast<int>(d.structural.size());
            const int mrow = base + na + (d.mult_offset - first_mult);
            const std::vector<double> v = v_;
            for (int a = 0; a < n; ++a) {
                const int i = base + d.coordinates[a];
                double tvq_v = 0.0;
                for (int bb = 0; bb < n; ++bb) {
                    trip.emplace_back(i, base + d.coordinates[bb], b.T_vv(a, bb));
                    tvq_v += b.T_qv(bb, a) * v[bb];
                }
                rhs[i] += b.T_q[a] - b.V_q[a] - tvq_v;
                for (int kk = 0; kk < d.m; ++kk) {
                    trip.emplace_back(i, mrow + kk, b.G(kk, a));
                    trip.emplace_back(mrow + kk, i, b.G(kk, a));
                }
            }
            Eigen::VectorXd xd(3 * ks);
            for (int a = 0; a < ks; ++a) {
                const int node = d.structural[a];
                xd.segment<3>(3 * a) = states[node].v;
                for (int r = 0; r < 6; ++r) {
                    rhs[6 * node + r] += sb.f[6 * a + r];
                    for (int kk = 0; kk < d.m; ++kk)
                        if (sb.L(6 * a + r, kk) != 0.0)
                            trip.emplace_back(6 * node + r, mrow + kk, -sb.L(6 * a + r, kk));
                }
                for (int kk = 0; kk < d.m; ++kk)
                    for (int j = 0; j < 3; ++j)
                        trip.emplace_back(mrow + kk, 6 * node + j, b.G_x(kk, 3 * a + j));
            }
            const Eigen::Map<const Eigen::VectorXd> vq(v.data(), n);
            for (int kk = 0; kk < d.m; ++kk) {
                double acc = vq.dot(b.g_qq[kk] * vq);
                if (ks > 0) acc += 2.0 * vq.dot(b.g_qx[kk] * xd) + xd.dot(b.g_xx[kk] * xd);
                rhs[mrow + kk] -= acc;
            }
        }
    };
    coupling.accept = [&](const Eigen::VectorXd& sol) {
        y_.tail(ml) = sol.tail(ml);
        // p' = T_q - V_q - G^T lambda (T_q, V_q, G from the blocks of assemble).
        for (int i = 0; i < na; ++i) yp_[coordinate_dof(i) + 1] = 0.0;
        for (size_t k = 0; k < elements_.size(); ++k) {
            const ElementData& d = elements_[k];
            const LagrangianBlock& b = block_[k];
            for (size_t a = 0; a < d.coordinates.size(); ++a) {
                double gl = 0.0;
                for (int kk = 0; kk < d.m; ++kk) gl += b.G(kk, a) * y_[d.mult_offset + kk];
                yp_[coordinate_dof(d.coordinates[a]) + 1] += b.T_q[a] - b.V_q[a] - gl;
            }
        }
    };
    cgr_->SolveInitialDerivatives(s, h, &coupling);
    SyncUp();
    return 1;
}

}  // namespace mbstep::cgr
