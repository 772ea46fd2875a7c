// mbstep — formulation `cgr` (equations in cgr_formulation.hpp): the initial derivatives y'
// and multipliers at t0, solved at acceleration level.
#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "cgr_formulation.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/solver/linear_solver.hpp"

namespace mbstep::cgr {

namespace {

// The compressed n x n matrix of the triplets as Eigen's setFromTriplets builds it (each
// column's rows increasing, repeated entries summed in the triplets' order: the same bits),
// by one counting sort on the columns instead of its row-major intermediate and transposition.
Eigen::SparseMatrix<double> CompressTriplets(int n, const std::vector<Eigen::Triplet<double>>& t) {
    Eigen::SparseMatrix<double> A(n, n);
    A.resizeNonZeros(static_cast<Eigen::Index>(t.size()));  // repeats: the tail stays unused
    int* outer = A.outerIndexPtr();                         // zeroed by the constructor
    int* inner = A.innerIndexPtr();
    double* values = A.valuePtr();
    for (const auto& x : t) ++outer[x.col() + 1];
    for (int j = 0; j < n; ++j) outer[j + 1] += outer[j];
    // Triplet indices column by column, in the triplets' order (every entry written below).
    const std::unique_ptr<int[]> by_column(new int[t.size()]);
    {
        std::vector<int> fill(outer, outer + n);
        for (size_t k = 0; k < t.size(); ++k) by_column[fill[t[k].col()]++] = static_cast<int>(k);
    }
    std::vector<int> where(n, -1);
    int out = 0, begin = 0;  // begin: column j's first triplet in by_column
    for (int j = 0; j < n; ++j) {
        const int base = out, end = outer[j + 1];
        for (int q = begin; q < end; ++q) {
            const Eigen::Triplet<double>& x = t[by_column[q]];
            if (where[x.row()] >= base) {
                values[where[x.row()]] += x.value();
            } else {
                where[x.row()] = out;
                inner[out] = x.row();
                values[out] = x.value();
                ++out;
            }
        }
        for (int a = base + 1; a < out; ++a)  // insertion sort of the column by row
            for (int b = a; b > base && inner[b - 1] > inner[b]; --b) {
                std::swap(inner[b - 1], inner[b]);
                std::swap(values[b - 1], values[b]);
            }
        outer[j + 1] = out;  // column j's end in the compressed arrays
        begin = end;
    }
    A.resizeNonZeros(out);
    return A;
}

}  // namespace

// Initial derivatives, solved at acceleration level (exact, no regularisation): with the
// node accelerations a, alpha and the multipliers as unknowns,
//   [m I, -skew(S); skew(S), J] (a; alpha) - L lambda = f_app - (w x (w x S);
//                                            v x beta + (w x S) x v + w x (J w))
//   phi_q (a; alpha) = -d2/dtau2 phi(q(tau), t0 + tau)   (position-level constraints)
//   phi_v (a; alpha) = -d/dtau phi(q(tau), v, t0 + tau)  (velocity-level constraints)
// where q(tau) moves with the constant initial twist; the tau-derivatives of phi are central
// differences of phi_q v + phi_t. Then beta' = m a + alpha x S + w x (w x S) and
// gamma' = (w x S) x v + S x a + J alpha + w x (J w). MBDyn's regularised derivative phase
// omits the velocity-product terms (its multipliers miss centripetal contributions); the
// `derivatives ...` statements are accepted and this exact solve replaces it.
int CgrFormulation::SolveInitialDerivatives(const SolverSettings& s, double h) {
    return SolveInitialDerivatives(s, h, nullptr);
}

int CgrFormulation::SolveInitialDerivatives(const SolverSettings& /*s*/, double /*h*/,
                                            const InitialCoupling* coupling) {
    // A static model has no initial derivatives: its load path starts at rest (y' = 0, set at
    // construction), and the multipliers stay 0 until the first step's equilibrium (the
    // initial configuration need not be one).
    if (static_) return 0;
    ComputeStates();
    const auto& elems = model_.elements();
    const int nn = static_cast<int>(nodes_.size());
    const int node_dofs = 6 * nn;
    int nm = 0;
    std::vector<int> moff(elems.size(), -1);
    for (size_t e = 0; e < elems.size(); ++e)
        if (elements_[e].m > 0) {
            moff[e] = node_dofs + nm;
            nm += elements_[e].m;
        }
    const int extra = coupling ? coupling->unknowns : 0;
    const int N = node_dofs + nm + extra;
    std::vector<Eigen::Triplet<double>> trip;
    {
        // At most 36 entries per node block and 6 k m in each of an element's L and G.
        size_t bound = 36 * static_cast<size_t>(nn);
        for (size_t e = 0; e < elems.size(); ++e)
            bound += 12 * elems[e]->nodes().size() * static_cast<size_t>(elements_[e].m);
        trip.reserve(bound);
    }
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(N);
    for (int i = 0; i < nn; ++i) {
        const NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        const FrameState& s = states_[i];
        const Vec3 S = s.R * nd.inertia.s;
        const Mat3 J = s.R * nd.inertia.J * s.R.transpose();
        Mat6 M;
        M << nd.inertia.m * Mat3::Identity(), -Skew(S), Skew(S), J;
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 6; ++c)
                if (M(r, c) != 0.0) trip.emplace_back(6 * i + r, 6 * i + c, M(r, c));
        const Vec3 beta = nd.inertia.m * s.v + s.w.cross(S);
        rhs.segment<3>(6 * i) -= s.w.cross(s.w.cross(S));
        rhs.segment<3>(6 * i + 3) -= s.v.cross(beta) + s.w.cross(S).cross(s.v) + s.w.cross(J * s.w);
    }
    // Element loads with lambda = 0 (f is affine in lambda: f = f_app + L lambda).
    ElementBlock b;
    std::vector<double> zero_lambda(ElementBlock::kMaxMultipliers, 0.0);
    const Vec3 grav = Gravity();
    for (size_t e = 0; e < elems.size(); ++e) {
        const Element& el = *elems[e];
        if (!el.HasContribution() && elements_[e].m == 0) continue;
        if (!el.abstract_nodes().empty()) continue;  // the coupling's (InitialCoupling)
        const auto& en = el.nodes();
        const int k = static_cast<int>(en.size());
        const int m = elements_[e].m;
        ElementContext ctx{t_, state_ptrs_.data() + state_ptr_offset_[e], zero_lambda.data(), grav};
        b.Reset(k, m, true);
        el.Evaluate(ctx, b);
        for (int a = 0; a < k; ++a) {
            rhs.segment<6>(6 * en[a]) += b.f.segment<6>(6 * a);
            for (int r = 0; r < 6; ++r)
                for (int j = 0; j < m; ++j)
                    if (b.L(6 * a + r, j) != 0.0)
                        trip.emplace_back(6 * en[a] + r, moff[e] + j, -b.L(6 * a + r, j));
        }
        if (m == 0) continue;
        // Velocity-level rows differentiate once (phi_v), position-level rows twice (phi_q).
        std::array<bool, ElementBlock::kMaxMultipliers> velocity_row{};
        bool any_velocity = false, any_position = false;
        for (int j = 0; j < m; ++j) {
            velocity_row[j] = el.row_level(j) == ConstraintLevel::kVelocity;
            (velocity_row[j] ? any_velocity : any_position) = true;
        }
        for (int j = 0; j < m; ++j) {
            const auto& G = velocity_row[j] ? b.phi_v : b.phi_q;
            for (int a = 0; a < k; ++a)
                for (int c = 0; c < 6; ++c)
                    if (G(j, 6 * a + c) != 0.0)
                        trip.emplace_back(moff[e] + j, 6 * en[a] + c, G(j, 6 * a + c));
        }
        // psi(tau) = phi_q v + phi_t along the constant-twist motion.
        auto psi = [&](double tau) {
            return ConstraintRateAlongMotion(el, states_, t_, tau, grav);
        };
        Eigen::VectorXd acc = Eigen::VectorXd::Zero(m), first;
        if (any_velocity) first = psi(0.0);
        if (any_position) {
            // Central differences with Richardson extrapolation (error O(d^4)); d scaled so
            // that the rotation over d stays ~1e-3 rad.
            double wmax = 1.0;
            for (int a = 0; a < k; ++a) wmax = std::max(wmax, states_[en[a]].w.norm());
            const double d = 1e-3 / wmax;
            const Eigen::VectorXd d1 = (psi(d) - psi(-d)) / (2 * d);
            const Eigen::VectorXd d2 = (psi(0.5 * d) - psi(-0.5 * d)) / d;
            acc = (4.0 * d2 - d1) / 3.0;
        }
        for (int j = 0; j < m; ++j)
            if (velocity_row[j]) acc[j] = first[j];
        rhs.segment(moff[e], m) -= acc;
    }
    if (coupling) coupling->assemble(node_dofs + nm, states_, trip, rhs);
    Eigen::SparseMatrix<double> A = CompressTriplets(N, trip);
    std::vector<Eigen::Triplet<double>>().swap(trip);
    // The steps' solver (`auto`): each dynamic node's 6x6 mass block is eliminated and the
    // multipliers' Schur complement G M^-1 L factored (schur_solver.cpp). A general sparse LU
    // (Eigen's SparseLU, COLAMD) set the run's peak memory on the 100000-link chain
    // (docs/PERFORMANCE.md, "Scale: 100 000-link chain").
    const std::unique_ptr<LinearSolver> lu = MakeLinearSolver("auto");
    lu->Analyze(A);
    if (!lu->Factor(A)) {
        // The constraint rows (node columns only) say whether constraints are redundant.
        const Eigen::SparseMatrix<double> G = A.block(node_dofs, 0, nm, node_dofs);
        auto owner = [&](int row) {
            for (size_t e = 0; e < elems.size(); ++e)
                if (moff[e] >= 0 && node_dofs + row >= moff[e] &&
                    node_dofs + row < moff[e] + elements_[e].m)
                    return ElementRowOwner(*elems[e], node_dofs + row - moff[e]);
            return ConstraintRowOwner{"constraint row " + std::to_string(row + 1), 0};
        };
        throw RunError(SingularSystemMessage(
            "initial derivatives: singular system at t = " + std::to_string(t_), G, owner,
            "no redundant constraint rows: a static node without stiffness in some direction?"));
    }
    Eigen::VectorXd sol = rhs;
    lu->Solve(sol);
    if (!sol.allFinite()) throw RunError("initial derivatives: non-finite solution");
    for (int i = 0; i < nn; ++i) {
        const NodeData& nd = nodes_[i];
        if (!nd.dynamic) continue;
        const FrameState& s = states_[i];
        const Vec3 S = s.R * nd.inertia.s;
        const Mat3 J = s.R * nd.inertia.J * s.R.transpose();
        const Vec3 a = sol.segment<3>(6 * i), alpha = sol.segment<3>(6 * i + 3);
        yp_.segment<3>(nd.offset + 6) = nd.inertia.m * a + alpha.cross(S) + s.w.cross(s.w.cross(S));
        yp_.segment<3>(nd.offset + 9) =
            s.w.cross(S).cross(s.v) + S.cross(a) + J * alpha + s.w.cross(J * s.w);
    }
    for (size_t e = 0; e < elems.size(); ++e)
        if (elements_[e].m > 0)
            y_.segment(elements_[e].mult_offset, elements_[e].m) =
                sol.segment(moff[e], elements_[e].m);
    if (coupling) coupling->accept(sol.tail(extra));
    for (NodeData& nd : nodes_) nd.elim_valid = false;
    states_dirty_ = true;
    return 1;
}

}  // namespace mbstep::cgr
