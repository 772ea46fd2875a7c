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
                                     std::optional<Function> V, std::vector<Function> g)
    : Element(label, "lagrangian"),
      q_(std::move(q)),
      v_(std::move(v)),
      T_(std::move(T)),
      V_(std::move(V)),
      g_(std::move(g)) {
    abstract_nodes_ = std::move(abstract_nodes);
    for (const auto& x : q_) {
        qv_vars_.push_back(x.get());
        q_vars_.push_back(x.get());
        names_.push_back(x->name);
    }
    for (const auto& x : v_) qv_vars_.push_back(x.get());
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
                                           LagrangianBlock& out) const {
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
    const Eigen::VectorXd qx = x.head(n);
    if (V_) {
        const SecondOrderValue V = Derivatives(*V_, t, q_vars_, qx);
        out.V = V.value;
        out.V_q = V.gradient;
        out.V_qq = V.hessian;
    } else {
        out.V = 0.0;
        out.V_q = Eigen::VectorXd::Zero(n);
        out.V_qq = Eigen::MatrixXd::Zero(n, n);
    }
    const int m = static_cast<int>(g_.size());
    out.g.resize(m);
    out.G.resize(m, n);
    out.g_qq.resize(m);
    for (int k = 0; k < m; ++k) {
        const SecondOrderValue g = Derivatives(g_[k], t, q_vars_, qx);
        out.g[k] = g.value;
        out.G.row(k) = g.gradient.transpose();
        out.g_qq[k] = g.hessian;
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
    std::vector<std::shared_ptr<Variable>> locals = q;
    locals.insert(locals.end(), v.begin(), v.end());

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
    auto e = std::make_unique<LagrangianElement>(args.label, nodes, q, v, std::move(T),
                                                 std::move(V), std::move(g));
    // Evaluated once at the initial state: derivative errors (a kink, a piecewise-constant
    // function of a coordinate) are reported at their place in the deck now.
    std::vector<double> q0, v0;
    for (int i : nodes) {
        q0.push_back(in.abstract_node(i).x0);
        v0.push_back(in.abstract_node(i).v0);
    }
    LagrangianBlock b;
    try {
        e->EvaluateLagrangian(0.0, q0.data(), v0.data(), b);
    } catch (const ExpressionRunError& err) {
        in.Fail(err.where(), err.message());
    }
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(b.T_vv);
    std::ostringstream d;
    d << self << ": " << n << " coordinate" << (n == 1 ? "" : "s") << " (";
    for (long i = 0; i < n; ++i) d << (i ? ", " : "") << q[i]->name;
    d << "), " << m << " constraint" << (m == 1 ? "" : "s")
      << "; mass matrix T_vv at the initial state: rank " << lu.rank() << " of " << n
      << (lu.rank() < n ? " (singular: never inverted)" : "");
    e->set_description(d.str());
    return e;
}

}  // namespace mbstep::lagrangian
