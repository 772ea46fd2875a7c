// mbstep — formulation `cgr` (equations in cgr_formulation.hpp): construction (dof and Newton
// numbering, the element colouring), the Newton update, row names, the residual's round-off
// bound and the invariants. The other parts: cgr_chart.cpp (rotation chart, node states and
// history), cgr_pattern.cpp (pattern and slots), cgr_assembly.cpp (the node and element passes
// and their schedule), cgr_element_map.cpp (element blocks to the iteration matrix),
// cgr_initial_derivatives.cpp.
#include "cgr_formulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "cgr_internal.hpp"
#include "mbstep/assembly/assembly.hpp"

namespace mbstep::cgr {

CgrFormulation::CgrFormulation(const Model& model, bool rereference_at_prediction, Momenta momenta,
                               Chart chart)
    : model_(model),
      rereference_at_prediction_(rereference_at_prediction),
      rotation_vector_(chart == Chart::kRotationVector),
      eliminate_(momenta != Momenta::kUnknowns),
      scale_rows_(momenta == Momenta::kEliminated),
      static_(model.static_model()) {
    const auto& mnodes = model.nodes();
    const int nn = static_cast<int>(mnodes.size());
    nodes_.resize(nn);
    states_.resize(nn);
    past_.resize(nn);

    // Inertia attached to nodes by bodies (node frame). A node all of whose inertia comes
    // from elements that contribute only its weight (bodies) gets that weight in the node
    // pass, and those elements leave the element passes (NodeData::weighted).
    std::vector<NodeInertia> inertia(nn);
    std::vector<int> providers(nn, 0), weights(nn, 0);
    const auto& elems = model.elements();
    auto folds = [&](const Element& e) {
        return e.ContributesOnlyWeight() && e.nodes().size() == 1 && e.num_multipliers() == 0;
    };
    for (const auto& e : elems) {
        std::vector<NodeInertia> local(e->nodes().size());
        e->AddInertia(local);
        for (size_t k = 0; k < local.size(); ++k) {
            const int i = e->nodes()[k];
            inertia[i] += local[k];
            if (local[k].m != 0.0 || !local[k].s.isZero(0.0) || !local[k].J.isZero(0.0)) {
                ++providers[i];
                if (folds(*e)) ++weights[i];
            }
        }
    }

    // Dof numbering: nodes, then multipliers; Newton numbering likewise, without the momenta
    // when they are eliminated.
    int off = 0, row = 0;
    for (int i = 0; i < nn; ++i) {
        NodeData& nd = nodes_[i];
        nd.offset = off;
        nd.row = row;
        // A static model treats every node as static (eq. (6)).
        nd.dynamic = !static_ && mnodes[i].kind == NodeKind::kDynamic;
        nd.weighted = nd.dynamic && providers[i] > 0 && weights[i] == providers[i];
        nd.inertia = inertia[i];
        nd.inertia_diagonal = inertia[i].J.isDiagonal(0.0);
        if (nd.dynamic && inertia[i].m <= 0.0)
            throw RunError("dynamic structural node " + std::to_string(mnodes[i].label) +
                           " has no mass: attach a body or make it static");
        off += nd.dynamic ? kDynamicDofs : kStaticDofs;
        row += nd.dynamic && !eliminate_ ? kDynamicDofs : kStaticDofs;
        if (eliminate_)
            for (int j = 0; j < kStaticDofs; ++j) unknowns_.push_back(nd.offset + j);
    }
    const int node_dofs = off;
    node_dofs_ = node_dofs;
    node_rows_ = row;
    elements_.resize(elems.size());
    state_ptr_offset_.resize(elems.size());
    int ptrs = 0;
    for (size_t e = 0; e < elems.size(); ++e) {
        // Elements on abstract nodes (the Lagrangian contract) are not this formulation's: a
        // model with both node kinds runs on MixedFormulation, which evaluates them and owns
        // their multipliers (mixed_formulation.hpp).
        const bool lagrangian = !elems[e]->abstract_nodes().empty();
        const int m = lagrangian ? 0 : elems[e]->num_multipliers();
        if (m > ElementBlock::kMaxMultipliers ||
            static_cast<int>(elems[e]->nodes().size()) > ElementBlock::kMaxNodes)
            throw RunError("element " + std::to_string(elems[e]->label()) +
                           " exceeds the block size");
        elements_[e].m = m;
        const auto& en = elems[e]->nodes();
        elements_[e].k = static_cast<int>(en.size());
        for (size_t a = 0; a < en.size(); ++a) {
            const NodeData& na = nodes_[en[a]];
            elements_[e].node[a] = en[a];
            elements_[e].node_row[a] = na.row;
            elements_[e].scaled[a] = RowFactor(na, 2.0) != 1.0;
        }
        for (int j = 0; j < m; ++j)
            if (elems[e]->row_level(j) == ConstraintLevel::kVelocity) {
                // A static model has no velocities to prescribe (eq. (6)).
                if (static_) {
                    const SourceLocation& w = elems[e]->where();
                    throw RunError(DescribeConstraintRow(*elems[e], j) +
                                   (w.line > 0 ? " (" + w.ToString() + ")" : std::string()) +
                                   " is a velocity-level constraint, which a static model "
                                   "(control data `model: static;`) cannot have: its node "
                                   "velocities are zero");
                }
                elements_[e].velocity_rows |= 1u << j;
            }
        if (m > 0) {
            elements_[e].mult_offset = off;
            elements_[e].mult_row = row;
            for (int j = 0; j < m && eliminate_; ++j) unknowns_.push_back(off + j);
            off += m;
            row += m;
        }
        state_ptr_offset_[e] = ptrs;
        ptrs += static_cast<int>(elems[e]->nodes().size());
        const bool folded = folds(*elems[e]) && nodes_[en[0]].weighted;
        if ((elems[e]->HasContribution() || m > 0) && !folded && !lagrangian)
            active_elements_.push_back(static_cast<int>(e));
    }
    n_ = off;
    nu_ = row;
    kinds_.assign(n_, DofKind::kDifferential);
    std::fill(kinds_.begin() + node_dofs, kinds_.end(), DofKind::kAlgebraic);
    state_ptrs_.resize(ptrs);
    for (size_t e = 0; e < elems.size(); ++e)
        for (size_t k = 0; k < elems[e]->nodes().size(); ++k)
            state_ptrs_[state_ptr_offset_[e] + k] = &states_[elems[e]->nodes()[k]];

    // Colouring of the active elements for deterministic parallel assembly.
    std::vector<std::vector<int>> en;
    for (int e : active_elements_) en.push_back(elems[e]->nodes());
    colors_ = ColorElements(en, nn);
    for (auto& c : colors_)
        for (int& k : c) k = active_elements_[k];
    BuildTiles();

    // Initial state: g = 0 relative to R0, g' = w0 with w_ref = 0 (so w = G(0) g' = w0); a
    // static model starts its load path at rest (y' = 0, the deck's velocities ignored).
    y_.setZero(n_);
    yp_.setZero(n_);
    past_.advance();
    for (int i = 0; i < nn; ++i) {
        const FrameState& s0 = mnodes[i].initial;
        NodeData& nd = nodes_[i];
        nd.R_ref = s0.R;
        nd.w_ref.setZero();
        y_.segment<3>(nd.offset) = s0.x;
        if (static_) {
            past_.front(i) = {s0.R, Vec3::Zero()};
            continue;
        }
        yp_.segment<3>(nd.offset) = s0.v;
        yp_.segment<3>(nd.offset + 3) = s0.w;
        past_.front(i) = {s0.R, s0.w};
    }
    t_ = 0.0;
    ComputeStates();
    ReadElementStructure();
    BuildPattern();
    // Momenta consistent with the initial twist.
    for (int i = 0; i < nn; ++i) {
        NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        const FrameState& s = states_[i];
        y_.segment<3>(nd.offset + 6) = nd.inertia.m * s.v + s.w.cross(nd.S);
        y_.segment<3>(nd.offset + 9) = nd.S.cross(s.v) + nd.J * s.w;
    }
    states_dirty_ = true;
}

std::string CgrFormulation::name() const {
    if (eliminate_) return scale_rows_ ? "cgr velocity" : "cgr velocity unscaled";
    if (rotation_vector_) return "cgr rotation vector";
    return rereference_at_prediction_ ? "mbdyn cgr" : "cgr";
}

// `cgr velocity unscaled`: rows (1), (2) hold beta' = (p - h) / c with h = y - c y' of the
// prediction and p = [m v + w x S; S x v + J w], a difference of two momenta divided by c, so
// they carry round-off ~eps (|p| + |h|) / c that `cgr`'s rows (1)-(4) at the same point do not
// (there beta' is an unknown and the momenta's round-off, eps |p|, stays in rows (3), (4)).
// The bound, per node and for its three force and its three moment rows alike: 4 eps (the
// magnitudes of p's terms, which may cancel, plus |h|) / c, in norms, since v and w come out
// of the rotation maps with round-off eps |v|, eps |w| in every component (Higham, "Accuracy
// and Stability of Numerical Algorithms", 2nd ed., section 3.1). Elsewhere (`cgr`, the impulse
// rows of `cgr velocity`): none.
void CgrFormulation::ResidualNoise(double c, Eigen::VectorXd& noise) const {
    if (!eliminate_ || scale_rows_ || !(c > 0.0)) {
        noise.resize(0);
        return;
    }
    noise.setZero(pattern_.rows());
    const double k = 4.0 * std::numeric_limits<double>::epsilon() / c;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        const FrameState& st = states_[i];
        const double v = st.v.norm(), w = st.w.norm(), S = nd.S.norm();
        const int o = nd.offset + 6, ro = nd.row;
        const Vec6 h = y_.segment<6>(o) - c * yp_.segment<6>(o);
        const double force = std::abs(nd.inertia.m) * v + w * S + h.head<3>().norm();
        const double moment = S * v + nd.J.norm() * w + h.tail<3>().norm();
        for (int j = 0; j < 3; ++j) {
            noise[ro + j] = k * force;
            noise[ro + 3 + j] = k * moment;
        }
    }
}

const double* CgrFormulation::multipliers(int element) const {
    const ElementData& ed = elements_[element];
    return ed.m > 0 ? y_.data() + ed.mult_offset : nullptr;
}

void CgrFormulation::Update(const Eigen::VectorXd& delta, double c) {
    // Differential dofs (the nodes') come first, the multipliers after them.
    const int nm = n_ - node_dofs_;
    if (eliminate_) {
        // x', g' of every node (their state indices from unknowns_, a dense array, rather
        // than from each NodeData); the momenta follow at the next elimination.
        const int* u = unknowns_.data();
        double* yp = yp_.data();
        double* y = y_.data();
        const double* d = delta.data();
        for (int k = 0; k < node_rows_; ++k) {
            yp[u[k]] += d[k];
            y[u[k]] += c * d[k];
        }
    } else {
        yp_.head(node_dofs_) += delta.head(node_dofs_);
        y_.head(node_dofs_) += c * delta.head(node_dofs_);
    }
    y_.tail(nm) += delta.tail(nm);
    last_c_ = c;
    states_dirty_ = true;
}

std::string CgrFormulation::DescribeEquation(int row) const {
    static const char* kNodeRows[12] = {
        "force x",    "force y",           "force z",           "moment x",
        "moment y",   "moment z",          "momentum x",        "momentum y",
        "momentum z", "momentum moment x", "momentum moment y", "momentum moment z"};
    if (eliminate_ && row >= 0 && row < nu_) row = unknowns_[row];  // Newton -> state numbering
    std::ostringstream os;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const int k = nodes_[i].dynamic ? kDynamicDofs : kStaticDofs;
        if (row >= nodes_[i].offset && row < nodes_[i].offset + k) {
            os << "structural node " << model_.nodes()[i].label << ", "
               << kNodeRows[row - nodes_[i].offset];
            return os.str();
        }
    }
    const auto& elems = model_.elements();
    for (size_t e = 0; e < elements_.size(); ++e) {
        const ElementData& ed = elements_[e];
        if (ed.m > 0 && row >= ed.mult_offset && row < ed.mult_offset + ed.m) {
            return DescribeConstraintRow(*elems[e], row - ed.mult_offset);
        }
    }
    os << "equation " << row;
    return os.str();
}

Invariants CgrFormulation::ComputeInvariants() const {
    ComputeStates();
    Invariants inv;
    for (size_t i = 0; i < nodes_.size(); ++i) {
        const NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        AddNodeInvariants(nd.inertia, states_[i], inv);
    }
    const auto& elems = model_.elements();
    ElementBlock& b = scratch_.local();
    const Vec3 gravity = Gravity();
    for (size_t e = 0; e < elems.size(); ++e) {
        ElementContext ctx{t_, state_ptrs_.data() + state_ptr_offset_[e],
                           multipliers(static_cast<int>(e)), gravity};
        inv.potential += elems[e]->PotentialEnergy(ctx);
        if (elements_[e].m > 0) {
            EvaluateElement(static_cast<int>(e), b, false, gravity);
            for (int j = 0; j < elements_[e].m; ++j)
                if (elems[e]->row_level(j) == ConstraintLevel::kPosition)
                    inv.constraint_violation =
                        std::max(inv.constraint_violation, std::abs(b.phi[j]));
        }
    }
    return inv;
}

}  // namespace mbstep::cgr
