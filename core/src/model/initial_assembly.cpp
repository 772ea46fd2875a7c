// mbstep — initial joint assembly (model/initial_assembly.hpp for the equations).
#include "mbstep/model/initial_assembly.hpp"

#include <Eigen/SparseCore>
#include <cmath>
#include <sstream>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/solver/linear_solver.hpp"

namespace mbstep {

std::string InitialAssemblyReport::Describe() const {
    std::ostringstream os;
    os.precision(6);
    os << "initial joint assembly: " << iterations << " position iteration"
       << (iterations == 1 ? "" : "s") << ", residual " << residual;
    if (max_position_change > 0.0)
        os << "; largest position change " << max_position_change << " (node " << position_node
           << ")";
    if (max_rotation_change > 0.0)
        os << "; largest rotation change " << max_rotation_change << " rad (node " << rotation_node
           << ")";
    if (max_velocity_change > 0.0)
        os << "; largest velocity change " << max_velocity_change << " (node " << velocity_node
           << ", velocity constraint residual " << velocity_residual << " before)";
    if (max_position_change == 0.0 && max_rotation_change == 0.0 && max_velocity_change == 0.0)
        os << "; the initial state is consistent (nothing moved)";
    return os.str();
}

namespace {

// Which elements take part: joints (their constraints and, for deformable joints, their
// forces), beams, and on request bodies (weight) and forces.
bool UsedInAssembly(const Element& e, const InitialAssemblyOptions& o) {
    const std::string& s = e.statement();
    if (s == "joint" || s == "beam3" || s == "beam2") return true;
    if (s == "body") return o.use_bodies;
    if (s == "force" || s == "couple") return o.use_forces;
    return false;
}

struct Row {
    int element;  // index into the model's elements
    int k;        // row of the element
};

class Assembler {
  public:
    Assembler(Model& model, double t0, const InitialAssemblyOptions& o)
        : model_(model), t0_(t0), o_(o) {
        const auto& elems = model.elements();
        for (size_t e = 0; e < elems.size(); ++e) {
            if (!UsedInAssembly(*elems[e], o)) continue;
            used_.push_back(static_cast<int>(e));
            const Element& el = *elems[e];
            for (int k = 0; k < el.num_multipliers(); ++k)
                (el.row_level(k) == ConstraintLevel::kVelocity ? vel_rows_ : pos_rows_)
                    .push_back({static_cast<int>(e), k});
        }
        for (const StructuralNode& n : model.nodes()) {
            s0_.push_back(n.initial);
            s_.push_back(n.initial);
        }
        lambda_.assign(elems.size(), std::vector<double>());
        for (size_t e = 0; e < elems.size(); ++e)
            lambda_[e].assign(elems[e]->num_multipliers(), 0.0);
        gravity_ = model.gravity() ? model.gravity()->At(t0) : Vec3::Zero();
    }

    InitialAssemblyReport Run() {
        InitialAssemblyReport rep;
        // The position problem is static: the elements see the nodes at rest (damping forces
        // of inconsistent initial velocities must not move the positions).
        for (FrameState& s : s_) s.v.setZero(), s.w.setZero();
        Positions(rep);
        for (size_t i = 0; i < s_.size(); ++i) s_[i].v = s0_[i].v, s_[i].w = s0_[i].w;
        Velocities(rep);
        // Report and write back.
        for (size_t i = 0; i < s_.size(); ++i) {
            const int label = model_.nodes()[i].label;
            const double dx = (s_[i].x - s0_[i].x).norm();
            // (an unchanged R gives exactly 0, not the round-off of R R0^T)
            const double dr =
                s_[i].R == s0_[i].R ? 0.0 : LogSO3(s_[i].R * s0_[i].R.transpose()).norm();
            const double dv =
                std::sqrt((s_[i].v - s0_[i].v).squaredNorm() + (s_[i].w - s0_[i].w).squaredNorm());
            if (dx > rep.max_position_change)
                rep.max_position_change = dx, rep.position_node = label;
            if (dr > rep.max_rotation_change)
                rep.max_rotation_change = dr, rep.rotation_node = label;
            if (dv > rep.max_velocity_change)
                rep.max_velocity_change = dv, rep.velocity_node = label;
            model_.set_initial_state(static_cast<int>(i), s_[i]);
        }
        return rep;
    }

  private:
    double Kp(int i) const {
        const double own = model_.nodes()[i].assembly_kp;
        return own >= 0.0 ? own : o_.position_stiffness;
    }

    ElementContext Context(int e, const double* lambda, std::vector<const FrameState*>& ptr,
                           double t) const {
        ptr.clear();
        for (int k : model_.elements()[e]->nodes()) ptr.push_back(&s_[k]);
        ElementContext ctx;
        ctx.t = t;
        ctx.node = ptr.data();
        ctx.lambda = lambda;
        ctx.gravity = gravity_;
        return ctx;
    }

    // eqs. (1), (2): residual and (optionally) Jacobian at the current state.
    double PositionSystem(Eigen::VectorXd& r, std::vector<Eigen::Triplet<double>>* J,
                          int* worst_row) {
        const int nn = static_cast<int>(s_.size()), np = static_cast<int>(pos_rows_.size());
        r.setZero(6 * nn + np);
        for (int i = 0; i < nn; ++i) {
            const double kp = Kp(i);
            const Vec3 phi = LogSO3(s_[i].R * s0_[i].R.transpose());
            r.segment<3>(6 * i) = kp * (s_[i].x - s0_[i].x);
            r.segment<3>(6 * i + 3) = kp * phi;
            if (!J) continue;
            const Mat3 Jli = so3::TexpInverse(-phi);  // J_l^-1(phi) = T_exp^-1(-phi)
            for (int a = 0; a < 3; ++a) {
                J->emplace_back(6 * i + a, 6 * i + a, kp);
                for (int b = 0; b < 3; ++b)
                    if (Jli(a, b) != 0.0)
                        J->emplace_back(6 * i + 3 + a, 6 * i + 3 + b, kp * Jli(a, b));
            }
        }
        // Row offsets of each element's position rows.
        std::vector<int> row_of(pos_rows_.size());
        ElementBlock b;
        std::vector<const FrameState*> ptr;
        int next = 0;
        for (int e : used_) {
            const Element& el = *model_.elements()[e];
            const auto& en = el.nodes();
            const int k = static_cast<int>(en.size()), m = el.num_multipliers();
            const ElementContext ctx = Context(e, lambda_[e].data(), ptr, t0_);
            b.Reset(k, m, J != nullptr);
            el.Evaluate(ctx, b);
            for (int a = 0; a < k; ++a) r.segment<6>(6 * en[a]) -= b.f.segment<6>(6 * a);
            // this element's position rows, in order
            std::vector<int> rows;
            while (next < np && pos_rows_[next].element == e) {
                const int row = 6 * nn + next;
                r[row] = b.phi[pos_rows_[next].k];
                rows.push_back(next);
                ++next;
            }
            if (!J) continue;
            for (int a = 0; a < k; ++a)
                for (int c = 0; c < k; ++c)
                    for (int i = 0; i < 6; ++i)
                        for (int j = 0; j < 6; ++j) {
                            const double v = b.K(6 * a + i, 6 * c + j);
                            if (v != 0.0) J->emplace_back(6 * en[a] + i, 6 * en[c] + j, v);
                        }
            for (int idx : rows) {
                const int kr = pos_rows_[idx].k, row = 6 * nn + idx;
                for (int a = 0; a < k; ++a)
                    for (int i = 0; i < 6; ++i) {
                        const double l = b.L(6 * a + i, kr), g = b.phi_q(kr, 6 * a + i);
                        if (l != 0.0) J->emplace_back(6 * en[a] + i, row, -l);
                        if (g != 0.0) J->emplace_back(row, 6 * en[a] + i, g);
                    }
            }
        }
        if (worst_row) {
            double worst = -1.0;
            for (int i = 0; i < np; ++i)
                if (std::abs(r[6 * nn + i]) > worst)
                    worst = std::abs(r[6 * nn + i]), *worst_row = i;
        }
        return r.norm();
    }

    void Positions(InitialAssemblyReport& rep) {
        const int nn = static_cast<int>(s_.size()), np = static_cast<int>(pos_rows_.size());
        const int n = 6 * nn + np;
        Eigen::VectorXd r;
        std::unique_ptr<LinearSolver> solver;
        for (int it = 0;; ++it) {
            int worst = -1;
            rep.residual = PositionSystem(r, nullptr, &worst);
            rep.iterations = it;
            if (rep.residual <= o_.tolerance) return;
            if (it >= o_.max_iterations || !std::isfinite(rep.residual)) {
                std::ostringstream os;
                os << "initial joint assembly did not converge in " << it << " iteration"
                   << (it == 1 ? "" : "s")
                   << " (control data `max iterations: " << o_.max_iterations << "`): residual "
                   << rep.residual << " > tolerance " << o_.tolerance;
                if (worst >= 0) {
                    const Row& w = pos_rows_[worst];
                    os << "; worst constraint: "
                       << DescribeConstraintRow(*model_.elements()[w.element], w.k)
                       << ", |phi| = " << std::abs(r[6 * nn + worst]);
                }
                os << ". Correct the deck's initial positions, raise `max iterations` in control "
                      "data, or add `skip initial joint assembly;`";
                throw RunError(os.str());
            }
            std::vector<Eigen::Triplet<double>> trip;
            PositionSystem(r, &trip, nullptr);
            Eigen::SparseMatrix<double> A(n, n);
            A.setFromTriplets(trip.begin(), trip.end());
            A.makeCompressed();
            // The pattern changes between iterations (exact zeros are left out, and the
            // joints' geometric stiffness appears once lambda != 0): analyze every time.
            solver = MakeLinearSolver("klu");
            solver->Analyze(A);
            if (!solver->Factor(A))
                throw RunError(SingularSystemMessage(
                    "initial joint assembly: singular system", A.block(6 * nn, 0, np, 6 * nn),
                    [&](int row) {
                        const Row& w = pos_rows_[row];
                        return ElementRowOwner(*model_.elements()[w.element], w.k);
                    },
                    "no redundant constraint rows: a node held by no penalty?"));
            Eigen::VectorXd d = -r;
            solver->Solve(d);
            for (int i = 0; i < nn; ++i) {
                s_[i].x += d.segment<3>(6 * i);
                s_[i].R = so3::Orthonormalize(so3::Exp(d.segment<3>(6 * i + 3)) * s_[i].R);
            }
            for (int idx = 0; idx < np; ++idx)
                lambda_[pos_rows_[idx].element][pos_rows_[idx].k] += d[6 * nn + idx];
        }
    }

    // eq. (3): the twists closest to the deck's that satisfy the velocity constraints.
    void Velocities(InitialAssemblyReport& rep) {
        const int nn = static_cast<int>(s_.size());
        for (int i = 0; i < nn; ++i) {
            const int own = model_.nodes()[i].assembly_omega_rotates;
            if (own == 1 || (own < 0 && o_.omega_rotates))
                s_[i].w = s_[i].R * s0_[i].R.transpose() * s0_[i].w;
        }
        std::vector<Row> rows = pos_rows_;
        rows.insert(rows.end(), vel_rows_.begin(), vel_rows_.end());
        const int nr = static_cast<int>(rows.size());
        if (nr == 0) return;
        // G (nr x 6 nn) and c of the linear rows G v + c = 0.
        std::vector<Eigen::Triplet<double>> trip;
        Eigen::VectorXd c = Eigen::VectorXd::Zero(nr), gv = Eigen::VectorXd::Zero(nr);
        ElementBlock b, bp, bm;
        std::vector<const FrameState*> ptr;
        const double ht = 1e-6 * (1.0 + std::abs(t0_));
        for (int idx = 0; idx < nr; ++idx) {
            const Row& row = rows[idx];
            const Element& el = *model_.elements()[row.element];
            const auto& en = el.nodes();
            const int k = static_cast<int>(en.size()), m = el.num_multipliers();
            const bool velocity = el.row_level(row.k) == ConstraintLevel::kVelocity;
            b.Reset(k, m, true);
            el.Evaluate(Context(row.element, lambda_[row.element].data(), ptr, t0_), b);
            const auto& G = velocity ? b.phi_v : b.phi_q;
            double g_dot_v = 0.0;
            for (int a = 0; a < k; ++a)
                for (int i = 0; i < 6; ++i) {
                    const double g = G(row.k, 6 * a + i);
                    if (g == 0.0) continue;
                    trip.emplace_back(6 * nn + idx, 6 * en[a] + i, g);
                    trip.emplace_back(6 * en[a] + i, 6 * nn + idx, g);
                    const FrameState& s = s_[en[a]];
                    g_dot_v += g * (i < 3 ? s.v[i] : s.w[i - 3]);
                }
            gv[idx] = g_dot_v;
            if (velocity) {
                c[idx] = b.phi[row.k] - g_dot_v;  // phi = G v + c (linear in the twists)
            } else {
                bp.Reset(k, m, false);
                bm.Reset(k, m, false);
                el.Evaluate(Context(row.element, lambda_[row.element].data(), ptr, t0_ + ht), bp);
                el.Evaluate(Context(row.element, lambda_[row.element].data(), ptr, t0_ - ht), bm);
                c[idx] = (bp.phi[row.k] - bm.phi[row.k]) / (2.0 * ht);
            }
        }
        rep.velocity_residual = (gv + c).norm();
        if (rep.velocity_residual <= o_.tolerance) return;
        const int n = 6 * nn + nr;
        Eigen::VectorXd rhs(n);
        for (int i = 0; i < nn; ++i) {
            const double own = model_.nodes()[i].assembly_kv;
            const double kv = own >= 0.0 ? own : o_.velocity_stiffness;
            rhs.segment<3>(6 * i) = kv * s_[i].v;
            rhs.segment<3>(6 * i + 3) = kv * s_[i].w;
            if (kv > 0.0)
                for (int a = 0; a < 6; ++a) trip.emplace_back(6 * i + a, 6 * i + a, kv);
        }
        rhs.tail(nr) = -c;
        Eigen::SparseMatrix<double> A(n, n);
        A.setFromTriplets(trip.begin(), trip.end());
        A.makeCompressed();
        auto solver = MakeLinearSolver("klu");
        solver->Analyze(A);
        if (!solver->Factor(A))
            throw RunError(SingularSystemMessage(
                "initial joint assembly (velocities): singular system",
                A.block(6 * nn, 0, nr, 6 * nn),
                [&](int row) {
                    const Row& w = rows[row];
                    return ElementRowOwner(*model_.elements()[w.element], w.k);
                },
                "no redundant constraint rows: a node held by no velocity penalty?"));
        solver->Solve(rhs);
        for (int i = 0; i < nn; ++i) {
            s_[i].v = rhs.segment<3>(6 * i);
            s_[i].w = rhs.segment<3>(6 * i + 3);
        }
    }

    Model& model_;
    double t0_;
    const InitialAssemblyOptions& o_;
    std::vector<int> used_;
    std::vector<Row> pos_rows_, vel_rows_;
    std::vector<FrameState> s0_, s_;
    std::vector<std::vector<double>> lambda_;
    Vec3 gravity_{Vec3::Zero()};
};

}  // namespace

InitialAssemblyReport AssembleInitialState(Model& model, double t0,
                                           const InitialAssemblyOptions& options) {
    return Assembler(model, t0, options).Run();
}

}  // namespace mbstep
