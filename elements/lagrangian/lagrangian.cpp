// mbstep — the `lagrangian` genel (lagrangian.hpp).
#include "lagrangian.hpp"

#include <Eigen/Dense>
#include <cctype>
#include <set>
#include <sstream>

namespace mbstep::lagrangian {

LagrangianElement::LagrangianElement(int label, std::vector<int> abstract_nodes,
                                     std::vector<std::shared_ptr<Variable>> q,
                                     std::vector<std::shared_ptr<Variable>> v, Function T,
                                     std::optional<Function> V, std::vector<Function> g,
                                     std::vector<int> structural_nodes,
                                     std::vector<std::shared_ptr<Variable>> x,
                                     std::vector<double> q0, std::vector<double> x0)
    : Element(label, "lagrangian"),
      q_(std::move(q)),
      v_(std::move(v)),
      x_(std::move(x)),
      q0_(std::move(q0)),
      x0_(std::move(x0)),
      T_(std::move(T)),
      V_(std::move(V)),
      g_(std::move(g)) {
    abstract_nodes_ = std::move(abstract_nodes);
    nodes_ = std::move(structural_nodes);
    for (const auto& var : q_) {
        qv_vars_.push_back(var.get());
        qx_vars_.push_back(var.get());
        names_.push_back(var->name);
    }
    for (const auto& var : v_) qv_vars_.push_back(var.get());
    for (const auto& var : x_) qx_vars_.push_back(var.get());
}

void LagrangianElement::PotentialPoint(const double* q, const double* x,
                                       Eigen::VectorXd& at) const {
    const int n = static_cast<int>(q_.size());
    const int nx = static_cast<int>(x_.size());
    at.resize(n + nx);
    for (int i = 0; i < n; ++i) at[i] = q[i];
    for (int j = 0; j < nx; ++j) at[n + j] = x ? x[j] : x0_[j];
}

SecondOrderValue LagrangianElement::Derivatives(const Function& f, double t,
                                                const std::vector<const Variable*>& vars,
                                                const Eigen::VectorXd& at) const {
    try {
        return f.expression->SecondOrder(t, vars, at);
    } catch (const ExpressionError& e) {
        throw ExpressionRunError(
            f.locate(e.offset()),
            "genel " + std::to_string(label()) + " (lagrangian), " + f.what + ": " + e.message());
    }
}

void LagrangianElement::EvaluateLagrangian(double t, const double* q, const double* v,
                                           LagrangianBlock& out, const double* xs) const {
    const int n = static_cast<int>(q_.size());
    Eigen::VectorXd x(2 * n);
    for (int i = 0; i < n; ++i) {
        x[i] = q[i];
        x[n + i] = v[i];
    }
    const SecondOrderValue T = Derivatives(T_, t, qv_vars_, x);
    out.T = T.value;
    out.T_q = T.gradient.head(n);
    out.T_v = T.gradient.tail(n);
    out.T_qq = T.hessian.topLeftCorner(n, n);
    out.T_qv = T.hessian.topRightCorner(n, n);
    out.T_vv = T.hessian.bottomRightCorner(n, n);
    // V and g in (q, x): the coordinates, then the positions (none without `positions`).
    const int nx = static_cast<int>(x_.size());
    Eigen::VectorXd qx;
    PotentialPoint(q, xs, qx);
    if (V_) {
        const SecondOrderValue V = Derivatives(*V_, t, qx_vars_, qx);
        out.V = V.value;
        out.V_q = V.gradient.head(n);
        out.V_qq = V.hessian.topLeftCorner(n, n);
        out.V_qx = V.hessian.topRightCorner(n, nx);
    } else {
        out.V = 0.0;
        out.V_q = Eigen::VectorXd::Zero(n);
        out.V_qq = Eigen::MatrixXd::Zero(n, n);
        out.V_qx = Eigen::MatrixXd::Zero(n, nx);
    }
    const int m = static_cast<int>(g_.size());
    out.g.resize(m);
    out.G.resize(m, n);
    out.G_x.resize(m, nx);
    out.g_qq.resize(m);
    out.g_qx.resize(m);
    out.g_xx.resize(m);
    for (int k = 0; k < m; ++k) {
        const SecondOrderValue g = Derivatives(g_[k], t, qx_vars_, qx);
        out.g[k] = g.value;
        out.G.row(k) = g.gradient.head(n).transpose();
        out.G_x.row(k) = g.gradient.tail(nx).transpose();
        out.g_qq[k] = g.hessian.topLeftCorner(n, n);
        out.g_qx[k] = g.hessian.topRightCorner(n, nx);
        out.g_xx[k] = g.hessian.bottomRightCorner(nx, nx);
    }
}

void LagrangianElement::Evaluate(const ElementContext& ctx, ElementBlock& out) const {
    if (nodes_.empty()) return;
    const int n = static_cast<int>(q_.size());
    const int k = static_cast<int>(nodes_.size());
    double x[3 * ElementBlock::kMaxNodes];
    for (int a = 0; a < k; ++a)
        for (int j = 0; j < 3; ++j) x[3 * a + j] = ctx.node[a]->x[j];
    Eigen::VectorXd qx;
    PotentialPoint(ctx.abstract_q ? ctx.abstract_q : q0_.data(), x, qx);
    // Force at each node's reference point, no moment: rotations enter nothing.
    out.c_blocks = 0;
    out.c_quadrants = 0;
    out.k_quadrants = ElementBlock::Quadrant(0, 0);
    auto add = [&](const SecondOrderValue& s, double w) {
        for (int a = 0; a < k; ++a)
            for (int j = 0; j < 3; ++j) {
                out.f[6 * a + j] -= w * s.gradient[n + 3 * a + j];
                if (!out.want_jacobian) continue;
                for (int b = 0; b < k; ++b)
                    for (int l = 0; l < 3; ++l)
                        out.K(6 * a + j, 6 * b + l) += w * s.hessian(n + 3 * a + j, n + 3 * b + l);
            }
    };
    if (V_) add(Derivatives(*V_, ctx.t, qx_vars_, qx), 1.0);
    for (int c = 0; c < static_cast<int>(g_.size()); ++c) {
        const SecondOrderValue g = Derivatives(g_[c], ctx.t, qx_vars_, qx);
        out.phi[c] = g.value;
        add(g, ctx.lambda ? ctx.lambda[c] : 0.0);
        if (!out.want_jacobian) continue;
        for (int a = 0; a < k; ++a)
            for (int j = 0; j < 3; ++j) {
                out.phi_q(c, 6 * a + j) = g.gradient[n + 3 * a + j];
                out.L(6 * a + j, c) = -g.gradient[n + 3 * a + j];
            }
    }
}

bool LagrangianElement::KineticHessianDerivative(double t, const double* q, const double* v,
                                                 const double* dq, const double* dv,
                                                 Eigen::MatrixXd& dH) const {
    const int n = static_cast<int>(q_.size());
    Eigen::VectorXd x(2 * n), u(2 * n);
    for (int i = 0; i < n; ++i) {
        x[i] = q[i];
        x[n + i] = v[i];
        u[i] = dq[i];
        u[n + i] = dv[i];
    }
    try {
        dH = T_.expression->ThirdOrder(t, qv_vars_, x, u).d_hessian;
    } catch (const ExpressionError& e) {
        throw ExpressionRunError(
            T_.locate(e.offset()),
            "genel " + std::to_string(label()) + " (lagrangian), " + T_.what + ": " + e.message());
    }
    return true;
}

namespace {

bool IsIdentifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

}  // namespace

std::unique_ptr<Element> Read(ElementReadArgs& args) {
    DeckInput& in = args.in;
    const std::string self = "genel " + std::to_string(args.label) + " (lagrangian)";
    if (!in.IsKeyword("coordinates")) in.Fail(in.Where(), "expected 'coordinates'");
    const long n = in.GetInt("number of coordinates", 1, 64);
    std::vector<int> nodes;
    std::vector<std::shared_ptr<Variable>> q, v;
    std::set<std::string> names;
    auto variable = [&](const char* what) {
        const SourceLocation at = in.Where();
        const std::string name = in.GetString(what);
        if (!IsIdentifier(name))
            in.Fail(at, "the " + std::string(what) + " '" + name +
                            "' is not a name (letters, digits, '_'; not starting with a digit)");
        if (name == "Time" || !names.insert(name).second)
            in.Fail(at, "the " + std::string(what) + " '" + name + "' is used twice");
        auto var = std::make_shared<Variable>();
        var->name = name;
        var->type = ValueType::kReal;
        return var;
    };
    for (long i = 0; i < n; ++i) {
        const SourceLocation at = in.Where();
        const int node = in.GetAbstractNode("abstract node label");
        for (int other : nodes)
            if (other == node)
                in.Fail(at, "abstract node " + std::to_string(in.abstract_node(node).label) +
                                " is listed twice");
        nodes.push_back(node);
        q.push_back(variable("coordinate name"));
        v.push_back(variable("rate name"));
    }
    // `positions, K, NODE, "x", "y", "z", ...`: structural node positions V and g may read.
    std::vector<int> structural;
    std::vector<std::shared_ptr<Variable>> x;
    std::vector<double> x0;
    if (in.IsKeyword("positions")) {
        const long k = in.GetInt("number of structural nodes", 1, ElementBlock::kMaxNodes);
        for (long j = 0; j < k; ++j) {
            const SourceLocation at = in.Where();
            const int node = in.GetNode("structural node label");
            for (int other : structural)
                if (other == node)
                    in.Fail(at, "structural node " + std::to_string(in.node(node).label) +
                                    " is listed twice");
            structural.push_back(node);
            for (int c = 0; c < 3; ++c) {
                static const char* kWhat[3] = {"position x name", "position y name",
                                               "position z name"};
                x.push_back(variable(kWhat[c]));
                x0.push_back(in.node(node).initial.x[c]);
            }
        }
    }
    std::vector<std::shared_ptr<Variable>> locals = q;
    locals.insert(locals.end(), v.begin(), v.end());
    locals.insert(locals.end(), x.begin(), x.end());

    auto read = [&](const std::string& what, bool rates_allowed) {
        LagrangianElement::Function f;
        f.what = what;
        const SourceLocation at = in.Where();
        f.expression = in.GetExpression(what, locals, &f.locate);
        if (f.expression->depends_on_time())
            in.Fail(at, "the " + what + " depends on Time; " + self +
                            " supports time-independent T, V and g only");
        if (!rates_allowed)
            for (const auto& r : v)
                if (f.expression->References(*r))
                    in.Fail(at, "the " + what + " depends on the rate '" + r->name +
                                    "' (it must be a function of the coordinates only)");
        if (rates_allowed)  // the kinetic energy: no positions
            for (size_t j = 0; j < x.size(); ++j)
                if (f.expression->References(*x[j]))
                    in.Fail(at, "the " + what + " depends on the position '" + x[j]->name +
                                    "' of structural node " +
                                    std::to_string(in.node(structural[j / 3]).label) +
                                    " (positions enter the potential energy and the constraints "
                                    "only; the nodes' kinetic energy is their bodies')");
        return f;
    };
    if (!in.IsKeyword("kinetic energy")) in.Fail(in.Where(), "expected 'kinetic energy'");
    LagrangianElement::Function T = read("kinetic energy", true);
    std::optional<LagrangianElement::Function> V;
    std::vector<LagrangianElement::Function> g;
    while (in.HasArg()) {
        const SourceLocation at = in.Where();
        if (!V && in.IsKeyword("potential energy")) {
            V = read("potential energy", false);
        } else if (g.empty() && in.IsKeyword("constraints")) {
            const long m = in.GetInt("number of constraints", 1, ElementBlock::kMaxMultipliers);
            for (long k = 0; k < m; ++k)
                g.push_back(read("constraint " + std::to_string(k + 1), false));
        } else {
            in.Fail(at, "unexpected argument in " + self +
                            "; accepted: potential energy, constraints (once each)");
        }
    }
    const std::size_t m = g.size();
    std::vector<double> q0, v0;
    for (int i : nodes) {
        q0.push_back(in.abstract_node(i).x0);
        v0.push_back(in.abstract_node(i).v0);
    }
    auto e = std::make_unique<LagrangianElement>(args.label, nodes, q, v, std::move(T),
                                                 std::move(V), std::move(g), structural, x, q0, x0);
    // Evaluated once at the initial state: derivative errors (a kink, a piecewise-constant
    // function of a coordinate) are reported at their place in the deck now.
    LagrangianBlock b;
    try {
        e->EvaluateLagrangian(0.0, q0.data(), v0.data(), b, x0.empty() ? nullptr : x0.data());
    } catch (const ExpressionRunError& err) {
        in.Fail(err.where(), err.message());
    }
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(b.T_vv);
    std::ostringstream d;
    d << self << ": " << n << " coordinate" << (n == 1 ? "" : "s") << " (";
    for (long i = 0; i < n; ++i) d << (i ? ", " : "") << q[i]->name;
    d << "), ";
    if (!structural.empty())
        d << structural.size() << " structural node position" << (structural.size() == 1 ? "" : "s")
          << " in V and g, ";
    d << m << " constraint" << (m == 1 ? "" : "s")
      << "; mass matrix T_vv at the initial state: rank " << lu.rank() << " of " << n
      << (lu.rank() < n ? " (singular: never inverted)" : "");
    e->set_description(d.str());
    return e;
}

}  // namespace mbstep::lagrangian
