#include "mbstep/formulation/formulation.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseQR>
#include <algorithm>
#include <sstream>

#include "mbstep/common.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep {

void AddNodeInvariants(const NodeInertia& in, const FrameState& s, Invariants& inv) {
    const Vec3 S = s.R * in.s;
    const Mat3 J = s.R * in.J * s.R.transpose();
    const Vec3 p = in.m * s.v + s.w.cross(S);
    inv.kinetic += 0.5 * in.m * s.v.squaredNorm() + s.v.dot(s.w.cross(S)) + 0.5 * s.w.dot(J * s.w);
    inv.momentum += p;
    inv.angular_momentum += s.x.cross(p) + S.cross(s.v) + J * s.w;
}

std::string DescribeConstraintRow(const Element& e, int k) {
    std::ostringstream os;
    os << e.statement() << " " << e.label() << " (" << e.type() << "), constraint equation "
       << (k + 1);
    return os.str();
}

std::vector<int> DependentConstraintRows(const Eigen::SparseMatrix<double>& G) {
    if (G.rows() == 0) return {};
    Eigen::SparseMatrix<double> Gt = G.transpose();
    Gt.makeCompressed();
    // Natural ordering: columns (constraint rows) are eliminated in equation order, so a row
    // is reported dependent only on the rows before it (the later of two duplicated joints).
    Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::NaturalOrdering<int>> qr;
    qr.compute(Gt);
    if (qr.info() != Eigen::Success) return {};
    const Eigen::Index rank = qr.rank();
    std::vector<int> rows;
    const auto& perm = qr.colsPermutation().indices();
    for (Eigen::Index i = rank; i < perm.size(); ++i) rows.push_back(perm[i]);
    std::sort(rows.begin(), rows.end());
    return rows;
}

std::string DescribeRedundantRows(const std::vector<int>& rows,
                                  const std::function<ConstraintRowOwner(int)>& owner_of) {
    std::ostringstream os;
    std::string current;
    std::vector<int> equations;
    auto flush = [&] {
        if (equations.empty()) return;
        if (os.tellp() > 0) os << "; ";
        os << current;
        if (equations.front() > 0) {  // 0: the owner names the row itself
            os << ", constraint equation" << (equations.size() > 1 ? "s " : " ");
            for (size_t i = 0; i < equations.size(); ++i) os << (i ? ", " : "") << equations[i];
        }
        equations.clear();
    };
    for (int r : rows) {
        const ConstraintRowOwner o = owner_of(r);
        if (o.owner != current || o.equation <= 0) flush();
        current = o.owner;
        equations.push_back(o.equation);
    }
    flush();
    return os.str();
}

std::string SingularSystemMessage(const std::string& what, const Eigen::SparseMatrix<double>& G,
                                  const std::function<ConstraintRowOwner(int)>& owner_of,
                                  const std::string& otherwise) {
    const std::vector<int> rows = DependentConstraintRows(G);
    if (rows.empty()) return what + " (" + otherwise + ")";
    return what + ": redundant constraints (linearly dependent on the constraints before them): " +
           DescribeRedundantRows(rows, owner_of) +
           ". Remove them, or the joints they repeat, or replace a joint by one that constrains "
           "fewer directions";
}

ConstraintRowOwner ElementRowOwner(const Element& e, int k) {
    std::ostringstream os;
    os << e.statement() << " " << e.label() << " (" << e.type() << ")";
    return {os.str(), k + 1};
}

Eigen::VectorXd ConstraintRateAlongMotion(const Element& el, const std::vector<FrameState>& states,
                                          double t, double tau, const Vec3& gravity) {
    const auto& en = el.nodes();
    const int k = static_cast<int>(en.size()), m = el.num_multipliers();
    std::vector<FrameState> moved(k);
    std::vector<const FrameState*> ptr(k);
    Eigen::VectorXd vt(6 * k);
    for (int a = 0; a < k; ++a) {
        const FrameState& s = states[en[a]];
        moved[a] = s;
        moved[a].x = s.x + tau * s.v;
        moved[a].R = so3::Exp(tau * s.w) * s.R;
        ptr[a] = &moved[a];
        vt.segment<6>(6 * a) << s.v, s.w;
    }
    const std::vector<double> zero_lambda(ElementBlock::kMaxMultipliers, 0.0);
    ElementBlock b, bp, bm;
    ElementContext c{t + tau, ptr.data(), zero_lambda.data(), gravity};
    b.Reset(k, m, true);
    el.Evaluate(c, b);
    Eigen::VectorXd out = b.phi_q * vt;
    const double eps = 1e-6;
    c.t = t + tau + eps;
    bp.Reset(k, m, false);
    el.Evaluate(c, bp);
    c.t = t + tau - eps;
    bm.Reset(k, m, false);
    el.Evaluate(c, bm);
    out += (bp.phi - bm.phi) / (2 * eps);
    return out;
}

ElementTable BuildElementTable(const Model& model, const std::vector<FrameState>& states,
                               const std::string& formulation, int first_multiplier) {
    ElementTable t;
    const auto& elems = model.elements();
    t.slots.assign(elems.size(), ElementSlot{});
    t.ptr_offset.assign(elems.size(), 0);
    int next = first_multiplier;
    int n_ptrs = 0;
    for (size_t e = 0; e < elems.size(); ++e) {
        const Element& el = *elems[e];
        const int m = el.num_multipliers();
        if (m > ElementBlock::kMaxMultipliers ||
            static_cast<int>(el.nodes().size()) > ElementBlock::kMaxNodes)
            throw RunError("element " + std::to_string(el.label()) + " exceeds the block size");
        for (int j = 0; j < m; ++j)
            if (el.row_level(j) == ConstraintLevel::kVelocity)
                throw RunError("formulation '" + formulation + "': " + el.statement() + " " +
                               std::to_string(el.label()) + " (" + el.type() +
                               ") has velocity-level constraint rows, which this second-order "
                               "formulation does not support; use the cgr formulation");
        t.slots[e].m = m;
        if (m > 0) {
            t.slots[e].mult_offset = next;
            next += m;
        }
        t.ptr_offset[e] = n_ptrs;
        n_ptrs += static_cast<int>(el.nodes().size());
        if (el.HasContribution() || m > 0) t.active.push_back(static_cast<int>(e));
    }
    t.ptrs.resize(n_ptrs);
    for (size_t e = 0; e < elems.size(); ++e)
        for (size_t k = 0; k < elems[e]->nodes().size(); ++k)
            t.ptrs[t.ptr_offset[e] + k] = &states[elems[e]->nodes()[k]];
    t.end_multiplier = next;
    return t;
}

}  // namespace mbstep
