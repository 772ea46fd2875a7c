// Test elements defined by plain functions, with derivatives by central differences of those
// functions. They exercise formulations independently of the element plugins.
#pragma once

#include <functional>

#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/model/element.hpp"

namespace mbstep::test {

/// Attaches constant inertia to one node; no forces.
class InertiaElement final : public Element {
  public:
    InertiaElement(int label, int node, NodeInertia in) : Element(label, "test inertia"), in_(in) {
        nodes_ = {node};
    }
    void AddInertia(std::vector<NodeInertia>& inertia) const override { inertia[0] += in_; }
    bool HasContribution() const override { return false; }
    void Evaluate(const ElementContext&, ElementBlock&) const override {}

  private:
    NodeInertia in_;
};

/// f_app(states, t) and phi(states, t) given as functions; f = f_app - phi_q^T lambda for
/// position-level constraints (phi_v^T lambda for velocity-level ones). All derivatives by
/// central differences with step 1e-7 (accurate to ~1e-8 relative); give W analytically
/// (JacFn) when the geometric stiffness (a derivative of W) must be accurate.
class FunctionElement final : public Element {
  public:
    using States = std::vector<FrameState>;
    using ForceFn = std::function<Eigen::VectorXd(const States&, double)>;
    using PhiFn = std::function<Eigen::VectorXd(const States&, double)>;
    /// Analytic W = dphi/dq (position level) or dphi/dv (velocity level), m x 6k.
    using JacFn = std::function<Eigen::MatrixXd(const States&, double)>;

    FunctionElement(int label, std::vector<int> nodes, ForceFn f, int m = 0, PhiFn phi = nullptr,
                    ConstraintLevel level = ConstraintLevel::kPosition, JacFn w = nullptr)
        : Element(label, "test function"),
          f_(std::move(f)),
          m_(m),
          phi_(std::move(phi)),
          level_(level),
          w_(std::move(w)) {
        nodes_ = std::move(nodes);
    }
    int num_multipliers() const override { return m_; }
    ConstraintLevel constraint_level() const override {
        return m_ ? level_ : ConstraintLevel::kNone;
    }

    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override {
        const int k = static_cast<int>(nodes_.size());
        States s(k);
        for (int a = 0; a < k; ++a) s[a] = *ctx.node[a];
        Eigen::VectorXd lam = Eigen::VectorXd::Zero(m_);
        for (int j = 0; j < m_; ++j) lam[j] = ctx.lambda[j];
        auto total = [&](const States& st, Eigen::VectorXd* phi_out) {
            Eigen::VectorXd f = f_ ? f_(st, ctx.t) : Eigen::VectorXd::Zero(6 * k);
            if (m_) {
                Eigen::MatrixXd W = Jac(st, ctx.t, level_ == ConstraintLevel::kVelocity);
                f -= W.transpose() * lam;
                if (phi_out) *phi_out = phi_(st, ctx.t);
            }
            return f;
        };
        Eigen::VectorXd phi;
        out.f = total(s, &phi);
        if (m_) out.phi = phi;
        if (!out.want_jacobian) return;
        const double e = 1e-7;
        for (int a = 0; a < k; ++a)
            for (int c = 0; c < 12; ++c) {
                States sp = s, sm = s;
                Perturb(sp[a], c, e);
                Perturb(sm[a], c, -e);
                Eigen::VectorXd pp, pm;
                const Eigen::VectorXd df = (total(sp, &pp) - total(sm, &pm)) / (2 * e);
                const int col = 6 * a + (c % 6);
                if (c < 6)
                    out.K.col(col) = -df;
                else
                    out.C.col(col) = -df;
                if (m_) {
                    const Eigen::VectorXd dphi = (pp - pm) / (2 * e);
                    if (c < 6)
                        out.phi_q.col(col) = dphi;
                    else
                        out.phi_v.col(col) = dphi;
                }
            }
        if (m_) {
            const bool vel = level_ == ConstraintLevel::kVelocity;
            out.L = -Jac(s, ctx.t, vel).transpose();
            if (w_ && !vel) out.phi_q = w_(s, ctx.t);
            if (w_ && vel) out.phi_v = w_(s, ctx.t);
        }
    }

    /// Perturbs component c: 0-2 x, 3-5 spatial rotation, 6-8 v, 9-11 w.
    static void Perturb(FrameState& s, int c, double e) {
        if (c < 3)
            s.x[c] += e;
        else if (c < 6)
            s.R = so3::Exp(Vec3::Unit(c - 3) * e) * s.R;
        else if (c < 9)
            s.v[c - 6] += e;
        else
            s.w[c - 9] += e;
    }

  private:
    Eigen::MatrixXd Jac(const States& s, double t, bool velocity) const {
        if (w_) return w_(s, t);
        const int k = static_cast<int>(s.size());
        Eigen::MatrixXd W(m_, 6 * k);
        const double e = 1e-7;
        for (int a = 0; a < k; ++a)
            for (int c = 0; c < 6; ++c) {
                States sp = s, sm = s;
                Perturb(sp[a], velocity ? c + 6 : c, e);
                Perturb(sm[a], velocity ? c + 6 : c, -e);
                W.col(6 * a + c) = (phi_(sp, t) - phi_(sm, t)) / (2 * e);
            }
        return W;
    }
    ForceFn f_;
    int m_;
    PhiFn phi_;
    ConstraintLevel level_;
    JacFn w_;
};

}  // namespace mbstep::test
