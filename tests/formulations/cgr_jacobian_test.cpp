// The iteration matrix J = dr/dy' + c dr/dy of every first-order formulation in the registry
// (cgr, mbdyn cgr, cgr velocity [unscaled]) against central differences of its residual, at a state
// with non-zero rotation parameters and references (so that every term of the CGR maps G(g),
// Omega(g, g') is exercised), with inertia, springs, dampers and position- and velocity-level
// constraints. Columns are Newton unknowns (FirstOrderProblem::unknown_dof: `cgr velocity`
// eliminates the momenta, which follow from the unknowns with y - c y' kept).
#include <doctest/doctest.h>

#include <random>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/model/model.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/iteration_matrix_check.hpp"
#include "support/test_elements.hpp"
#include "support/test_models.hpp"

using namespace mbstep;
using test::FunctionElement;
using test::Rand3;

namespace {

// Two dynamic nodes and one static node; a spring-damper between points of nodes 0 and 1, a
// follower moment on node 2, a spherical constraint between nodes 1 and 2 and a velocity
// constraint on node 0.
// centred: the nodes at their centres of mass (s = 0), where `cgr` leaves the first-moment
// sub-blocks out of its pattern. velocity_constraint: false leaves the velocity constraint out.
Model MakeModel(std::mt19937& rng, bool centred = false, bool velocity_constraint = true) {
    Model m;
    for (int i = 0; i < 3; ++i) {
        StructuralNode n;
        n.label = i + 1;
        n.kind = i < 2 ? NodeKind::kDynamic : NodeKind::kStatic;
        n.initial.x = Rand3(rng, 1.0);
        n.initial.R = so3::Exp(Rand3(rng, 1.0));
        n.initial.v = Rand3(rng, 1.0);
        n.initial.w = Rand3(rng, 2.0);
        m.AddNode(n);
    }
    for (int i = 0; i < 2; ++i) {
        NodeInertia in;
        in.m = 2.0 + i;
        in.s = centred ? Vec3::Zero() : Vec3(Rand3(rng, 0.5) * in.m);
        const Mat3 A = Mat3::Random();
        in.J = A * A.transpose() + Mat3::Identity();
        m.AddElement(std::make_unique<test::InertiaElement>(10 + i, i, in));
    }
    const Vec3 oa = Rand3(rng, 0.5), ob = Rand3(rng, 0.5), M0 = Rand3(rng, 1.0);
    m.AddElement(test::SpringDamper(20, 0, 1, oa, ob));
    m.AddElement(std::make_unique<FunctionElement>(
        21, std::vector<int>{2}, [=](const FunctionElement::States& s, double) {
            Eigen::VectorXd f(6);
            f << -5.0 * s[0].x, s[0].R * M0 - 0.5 * s[0].w;
            return f;
        }));
    m.AddElement(test::SphericalConstraint(22, 1, 2, ob));
    if (!velocity_constraint) return m;
    m.AddElement(std::make_unique<FunctionElement>(
        23, std::vector<int>{0}, nullptr, 1,
        [=](const FunctionElement::States& s, double t) {
            Eigen::VectorXd phi(1);
            phi << (s[0].R.col(2)).dot(s[0].w) - 0.3 * t;
            return phi;
        },
        ConstraintLevel::kVelocity,
        [=](const FunctionElement::States& s, double) {
            Eigen::MatrixXd W = Eigen::MatrixXd::Zero(1, 6);
            W.block<1, 3>(0, 3) = s[0].R.col(2).transpose();
            return W;
        }));
    return m;
}

// The registry's formulations that provide the first-order DAE interface.
std::vector<const FormulationDescriptor*> FirstOrderFormulations() {
    std::vector<const FormulationDescriptor*> out;
    for (const FormulationDescriptor& d : GlobalRegistry().formulations())
        if (d.provides == ProblemInterface::kFirstOrderDae) out.push_back(&d);
    return out;
}

}  // namespace

TEST_CASE("first-order iteration matrices match finite differences of the residual") {
    int tested = 0;
    for (const FormulationDescriptor* fd : FirstOrderFormulations()) {
        const FormulationDescriptor& d = *fd;
        INFO("formulation ", d.name);
        for (const bool centred : {false, true}) {
            INFO("centres of mass at the nodes: ", centred);
            ++tested;
            std::mt19937 rng(7);
            const Model model = MakeModel(rng, centred);
            auto f = d.make(model);
            FirstOrderProblem& p = *f->first_order();
            const int n = p.num_dofs();
            const int nu = static_cast<int>(p.pattern().rows());
            CHECK(n == 12 + 12 + 6 + 3 + 1);
            // Newton unknowns: all state dofs, or 6 per node + multipliers without the momenta.
            CHECK(nu == (d.name.rfind("cgr velocity", 0) == 0 ? 6 + 6 + 6 + 3 + 1 : n));
            test::CheckIterationMatrixAtRandomStates(p, 0.37, 0.013);
        }
    }
    CHECK(tested >= 8);
}

TEST_CASE("static model: J = c dr/dy matches differences, r does not depend on y'") {
    // cgr_formulation.hpp eq. (6): every node static (6 unknowns), the elements evaluated at zero
    // velocities (the spring-damper's and the moment's damping terms vanish) and their C blocks
    // not mapped; a C block mapped by mistake would add -C G to J where the differences see 0.
    int tested = 0;
    for (const FormulationDescriptor* fd : FirstOrderFormulations()) {
        const FormulationDescriptor& d = *fd;
        if (!d.solves_static_model) continue;
        INFO("formulation ", d.name);
        std::mt19937 rng(7);
        Model model = MakeModel(rng, false, false);
        model.set_static_model(true);
        auto f = d.make(model);
        FirstOrderProblem& p = *f->first_order();
        CHECK(p.num_dofs() == 6 + 6 + 6 + 3);
        CHECK(p.pattern().rows() == p.num_dofs());
        test::CheckIterationMatrixAtRandomStates(p, 0.37, 0.013);
        // The residual at fixed y and c is the same bits for any y'; states have v = w = 0.
        Eigen::VectorXd r0, r1;
        p.Residual(0.02, r0);
        p.yp() += Eigen::VectorXd::Random(p.num_dofs());
        p.Residual(0.02, r1);
        CHECK(r0 == r1);
        for (const FrameState& s : f->node_states()) {
            CHECK(s.v == Vec3::Zero());
            CHECK(s.w == Vec3::Zero());
        }
        ++tested;
    }
    CHECK(tested == 5);  // cgr, mbdyn cgr, cgr rotation vector, cgr velocity [unscaled]
}

TEST_CASE("first-order iteration matrices with an element that lists one node twice") {
    // Its two sides write the same multiplier-column and multiplier-row entries: `cgr` must add
    // them (an element's multiplier entries are stored, not added, only where exactly one slot
    // writes each of them).
    int tested = 0;
    for (const FormulationDescriptor* fd : FirstOrderFormulations()) {
        const FormulationDescriptor& d = *fd;
        INFO("formulation ", d.name);
        std::mt19937 rng(11);
        Model model = MakeModel(rng);
        const Vec3 a(0.3, -0.7, 0.2), b(-0.4, 0.1, 0.9);
        model.AddElement(std::make_unique<FunctionElement>(
            24, std::vector<int>{0, 0}, nullptr, 1,
            [=](const FunctionElement::States& s, double) {
                Eigen::VectorXd phi(1);
                phi << a.dot(s[0].x) + b.dot(s[1].x) - 0.2;
                return phi;
            },
            ConstraintLevel::kPosition,
            [=](const FunctionElement::States&, double) {
                Eigen::MatrixXd W = Eigen::MatrixXd::Zero(1, 12);
                W.block<1, 3>(0, 0) = a.transpose();
                W.block<1, 3>(0, 6) = b.transpose();
                return W;
            }));
        auto f = d.make(model);
        FirstOrderProblem& p = *f->first_order();
        test::CheckIterationMatrixAtRandomStates(p, 0.37, 0.013);
        ++tested;
    }
    CHECK(tested >= 4);
}

TEST_CASE("first-order iteration matrices with the element plugins' declared structure") {
    // Real elements that narrow their K/C structure (body: its node's block; spherical hinge
    // and pin: each node's own block, nothing between the nodes): patterns built from the
    // declarations must still hold every non-zero of J. Bodies with and without centre-of-mass
    // offsets.
    const std::string deck = R"(
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.; time step: 1e-3; method: ms, 0.6;
    tolerance: 1e-8; end: initial value;
begin: control data; structural nodes: 2; rigid bodies: 2; joints: 2; gravity; end: control data;
begin: nodes;
    structural: 1, dynamic, 0.1, 0.2, -1., euler, 0.3, -0.2, 0.5, 0.5, -0.3, 0.2, 1., 2., -3.;
    structural: 2, dynamic, 0.3, -0.1, -3., euler, -0.4, 0.1, 0.2, 0.1, 0.4, -0.2, -2., 1., 4.;
end: nodes;
begin: elements;
    body: 1, 1, 39., 0.1, -0.2, 0.3, diag, 0.5, 13., 12.;
    body: 2, 2, 20., null, diag, 0.2, 6., 7.;
    joint: 1, spherical pin, 1, position, -1., 0., 0., position, 0.1, 0.2, 0.;
    joint: 2, spherical hinge, 1, position, 1., 0.1, 0., 2, position, -1., 0., 0.2;
    gravity: uniform, 0.07, 0.68, 0.72, const, 9.81;
end: elements;
)";
    const Registry& reg = GlobalRegistry();
    int tested = 0;
    for (const FormulationDescriptor* fd : FirstOrderFormulations()) {
        const FormulationDescriptor& d = *fd;
        INFO("formulation ", d.name);
        Deck dk = ReadDeckText(deck, "structure.mbd", reg);
        auto f = d.make(dk.model);
        FirstOrderProblem& p = *f->first_order();
        p.y().tail(6) = Eigen::VectorXd::LinSpaced(6, -2.0, 3.0) * 100.0;  // multipliers
        test::CheckIterationMatrixAtRandomStates(p, 0.37, 0.013);
        ++tested;
    }
    CHECK(tested >= 4);
}

TEST_CASE("cgr: bodies' weight applied in the node pass equals the bodies evaluated as elements") {
    // `cgr` and `cgr velocity` apply the weight of a node whose inertia comes only from bodies in
    // their node pass (Element::ContributesOnlyWeight) and leave the bodies out of the element
    // passes. Against the same model whose nodes get their inertia from an element that does
    // not claim that (test::InertiaElement) and their weight from a test element written from
    // body.hpp (4), (5) (derivatives by differences): the same r to round-off, the same J to
    // the test element's accuracy. Node 1 off its centre of mass with two bodies, node 2 centred,
    // node 3 with a body and a second inertia element (not folded: evaluated as before).
    const std::string head = R"(
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.; time step: 1e-3; method: ms, 0.6;
    tolerance: 1e-8; end: initial value;
begin: control data; structural nodes: 3; joints: 2; @CONTROL@ end: control data;
begin: nodes;
    structural: 1, dynamic, 0.1, 0.2, -1., euler, 0.3, -0.2, 0.5, 0.5, -0.3, 0.2, 1., 2., -3.;
    structural: 2, dynamic, 0.3, -0.1, -3., euler, -0.4, 0.1, 0.2, 0.1, 0.4, -0.2, -2., 1., 4.;
    structural: 3, dynamic, 0.2, 0.4, -5., euler, 0.1, 0.3, -0.2, -0.3, 0.2, 0.1, 1., -1., 2.;
end: nodes;
begin: elements;
    joint: 1, spherical pin, 1, position, -1., 0., 0., position, 0.1, 0.2, 0.;
    joint: 2, spherical hinge, 1, position, 1., 0.1, 0., 2, position, -1., 0., 0.2;
)";
    const std::string bodies = R"(
    body: 1, 1, 39., 0.1, -0.2, 0.3, diag, 0.5, 13., 12.;
    body: 2, 1, 5., -0.3, 0.1, 0.2, diag, 0.1, 0.2, 0.3;
    body: 3, 2, 20., null, diag, 0.2, 6., 7.;
    body: 4, 3, 10., 0.2, 0.1, -0.1, diag, 1., 2., 3.;
    gravity: uniform, 0.07, 0.68, 0.72, const, 9.81;
)";
    const Vec3 g = 9.81 * Vec3(0.07, 0.68, 0.72);
    const Registry& reg = GlobalRegistry();
    int tested = 0;
    for (const FormulationDescriptor* fd : FirstOrderFormulations()) {
        const FormulationDescriptor& d = *fd;
        INFO("formulation ", d.name);
        auto text = [&](const std::string& control, const std::string& elements) {
            std::string t = head;
            t.replace(t.find("@CONTROL@"), 9, control);
            return t + elements + "end: elements;\n";
        };
        Deck a = ReadDeckText(text("rigid bodies: 4; gravity;", bodies), "bodies.mbd", reg);
        Deck b = ReadDeckText(text("", ""), "weights.mbd", reg);
        // Node 3's extra inertia in both models: its body stays an element in a.
        NodeInertia extra;
        extra.m = 2.0;
        extra.s = Vec3(0.1, -0.2, 0.05);
        extra.J = Vec3(0.3, 0.4, 0.5).asDiagonal();
        a.model.AddElement(std::make_unique<test::InertiaElement>(30, 2, extra));
        b.model.AddElement(std::make_unique<test::InertiaElement>(30, 2, extra));
        int label = 40;
        for (const auto& e : a.model.elements()) {
            if (e->type() != "body") continue;
            std::vector<NodeInertia> in(1);
            e->AddInertia(in);
            const int node = e->nodes()[0];
            b.model.AddElement(std::make_unique<test::InertiaElement>(label++, node, in[0]));
            const NodeInertia w = in[0];
            b.model.AddElement(std::make_unique<FunctionElement>(
                label++, std::vector<int>{node}, [=](const FunctionElement::States& st, double) {
                    Eigen::VectorXd f(6);
                    f << w.m * g, (st[0].R * w.s).cross(g);
                    return f;
                }));
        }
        auto fa = d.make(a.model);
        auto fb = d.make(b.model);
        FirstOrderProblem& pa = *fa->first_order();
        FirstOrderProblem& pb = *fb->first_order();
        REQUIRE(pa.num_dofs() == pb.num_dofs());
        REQUIRE(pa.pattern().rows() == pb.pattern().rows());
        const int n = pa.num_dofs();
        for (int trial = 0; trial < 2; ++trial) {
            const Eigen::VectorXd dy = Eigen::VectorXd::Random(n) * 0.3;
            const Eigen::VectorXd dyp = Eigen::VectorXd::Random(n) * 0.5;
            for (FirstOrderProblem* p : {&pa, &pb}) {
                p->SetTime(0.2 + trial);
                p->y() += dy;
                p->yp() += dyp;
                p->AfterPredict();
                p->y() += 0.5 * dy;
                p->yp() += 0.5 * dyp;
            }
            const double c = 0.013 * (trial + 1);
            Eigen::VectorXd ra, rb;
            Eigen::SparseMatrix<double> Ja = pa.pattern(), Jb = pb.pattern();
            pa.ResidualAndJacobian(c, ra, Ja);
            pb.ResidualAndJacobian(c, rb, Jb);
            CHECK((ra - rb).norm() <= 1e-12 * ra.norm());
            const Eigen::MatrixXd Da(Ja), Db(Jb);
            CHECK((Da - Db).norm() <= 1e-7 * Da.norm());
            // The weight is there: without gravity the residuals differ by it.
            CHECK(ra.norm() > 0.0);
        }
        ++tested;
    }
    CHECK(tested >= 4);
}

TEST_CASE("cgr initial derivatives: equations of motion hold and d2phi/dt2 = 0") {
    // A rigid body (node at the CoM) hanging from a fixed point through a spherical constraint,
    // spinning and swinging, under a constant force: the exact initial accelerations satisfy
    // a + alpha x (R o) + w x (w x (R o)) = 0 at the pivot.
    const Registry& reg = GlobalRegistry();
    std::mt19937 rng(11);
    Model model;
    StructuralNode n;
    n.label = 1;
    n.initial.x = Vec3(0.2, 0.1, -0.9);
    n.initial.R = so3::Exp(Vec3(0.3, -0.2, 0.5));
    const Vec3 o = n.initial.R.transpose() * (-n.initial.x);  // pivot at the origin
    n.initial.w = Vec3(1.0, -2.0, 7.0);
    n.initial.v = n.initial.w.cross(n.initial.x);  // consistent velocity
    model.AddNode(n);
    NodeInertia in;
    in.m = 3.0;
    in.J = Vec3(0.2, 0.3, 0.4).asDiagonal();
    model.AddElement(std::make_unique<test::InertiaElement>(1, 0, in));
    model.AddElement(std::make_unique<FunctionElement>(2, std::vector<int>{0},
                                                       [](const FunctionElement::States&, double) {
                                                           Eigen::VectorXd f(6);
                                                           f << 0.0, 0.0, -29.43, 0.1, 0.0, 0.0;
                                                           return f;
                                                       }));
    model.AddElement(std::make_unique<FunctionElement>(
        3, std::vector<int>{0}, nullptr, 3,
        [o](const FunctionElement::States& s, double) {
            return Eigen::VectorXd(s[0].x + s[0].R * o);
        },
        ConstraintLevel::kPosition,
        [o](const FunctionElement::States& s, double) {
            Eigen::MatrixXd W(3, 6);
            W << Mat3::Identity(), -Skew(s[0].R * o);
            return W;
        }));
    auto f = reg.FindFormulation("cgr")->make(model);
    FirstOrderProblem& p = *f->first_order();
    p.SetTime(0.0);
    SolverSettings settings;
    p.SolveInitialDerivatives(settings, 1e-3);
    Eigen::VectorXd r;
    p.Residual(1e-3, r);
    CHECK(r.norm() < 1e-9);
    // Recover accelerations from beta', gamma' and check the acceleration-level constraint.
    const FrameState s = f->node_states()[0];
    const Vec3 S = Vec3::Zero();
    const Mat3 J = s.R * in.J * s.R.transpose();
    const Vec3 a = p.yp().segment<3>(6) / in.m;
    const Vec3 alpha = J.inverse() * (p.yp().segment<3>(9) - s.w.cross(J * s.w));
    const Vec3 ro = s.R * o;
    const Vec3 acc = a + alpha.cross(ro) + s.w.cross(s.w.cross(ro));
    CHECK(acc.norm() < 1e-7 * s.w.squaredNorm());
    (void)S;
    (void)rng;
}

namespace {

// A spring between two nodes' points that declares (ElementBlock::k_blocks) only its diagonal
// node-pair blocks, correctly while t < 1 (it writes nothing between the nodes there), and
// afterwards writes the cross block too, with the default declaration (every block of K and C):
// the formulation must refuse that, not write outside its pattern (the first block declared
// now but not at set-up is named: C's block of node 1).
class DiagonalThenCoupled final : public Element {
  public:
    DiagonalThenCoupled(int label, int a, int b) : Element(label, "test coupling") {
        nodes_ = {a, b};
    }
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override {
        out.f.segment<3>(0) = -2.0 * ctx.node[0]->x;
        out.f.segment<3>(6) = -3.0 * ctx.node[1]->x;
        if (!out.want_jacobian) return;
        out.K.block<3, 3>(0, 0) = 2.0 * Mat3::Identity();
        out.K.block<3, 3>(6, 6) = 3.0 * Mat3::Identity();
        if (ctx.t < 1.0) {
            out.k_blocks = ElementBlock::Pair(0, 0) | ElementBlock::Pair(1, 1);
            out.c_blocks = 0;
        } else {
            out.K(0, 6) = 1.0;  // a coupling it did not declare at set-up
        }
    }
};

}  // namespace

TEST_CASE("cgr patterns hold only the node-pair blocks elements declare") {
    Model m;
    for (int i = 0; i < 2; ++i) {
        StructuralNode n;
        n.label = i + 1;
        n.kind = NodeKind::kDynamic;
        n.initial.x = Vec3(i, 0.5, 0.0);
        m.AddNode(n);
        NodeInertia in;
        in.m = 1.0 + i;
        in.J = Mat3::Identity();
        m.AddElement(std::make_unique<test::InertiaElement>(10 + i, i, in));
    }
    m.AddElement(std::make_unique<DiagonalThenCoupled>(20, 0, 1));
    const Registry& reg = GlobalRegistry();
    for (const char* name : {"cgr", "cgr velocity"}) {
        INFO("formulation ", name);
        const FormulationDescriptor* d = reg.FindFormulation(name);
        REQUIRE(d != nullptr);
        auto f = d->make(m);
        FirstOrderProblem& p = *f->first_order();
        // Two node blocks, no block between the nodes: `cgr velocity` 6x6; `cgr` the dense 6x6
        // of x', g' plus its momentum sub-blocks for a node at its centre of mass: two dense
        // 3x3 (-c v~, -J G + ...) and five diagonals (I, I, m I, c I, c I) = 36 + 18 + 15.
        const int per_node = std::string(name) == "cgr" ? 69 : 36;
        CHECK(p.pattern().nonZeros() == 2 * per_node);
        Eigen::SparseMatrix<double> J = p.pattern();
        p.SetTime(0.5);
        CHECK_NOTHROW(p.Jacobian(0.01, J));
        p.SetTime(1.5);
        CHECK_THROWS_WITH_AS(p.Jacobian(0.01, J),
                             doctest::Contains("element 20 may write a Jacobian block between its "
                                               "nodes 1 and 1 that it did not declare"),
                             RunError);
    }
}

namespace {

// Springs on two nodes (force rows x translation columns of K only). With `quadrants` the
// element declares that (ElementBlock::k_quadrants) while t < 1 and all four quadrants after,
// which the formulation must refuse; without, it never declares quadrants.
class QuadrantSprings final : public Element {
  public:
    QuadrantSprings(int label, int a, int b, bool quadrants)
        : Element(label, "test springs"), quadrants_(quadrants) {
        nodes_ = {a, b};
    }
    void Evaluate(const ElementContext& ctx, ElementBlock& out) const override {
        out.f.segment<3>(0) = -2.0 * ctx.node[0]->x;
        out.f.segment<3>(6) = -3.0 * ctx.node[1]->x;
        if (!out.want_jacobian) return;
        out.K.block<3, 3>(0, 0) = Mat3{{2.0, 0.1, 0.0}, {0.2, 2.0, 0.0}, {0.0, 0.3, 2.0}};
        out.K.block<3, 3>(6, 6) = 3.0 * Mat3::Identity();
        out.k_blocks = ElementBlock::Pair(0, 0) | ElementBlock::Pair(1, 1);
        out.c_blocks = 0;
        if (quadrants_ && ctx.t < 1.0) out.k_quadrants = ElementBlock::Quadrant(0, 0);
    }

  private:
    bool quadrants_;
};

Model QuadrantModel(bool quadrants) {
    Model m;
    for (int i = 0; i < 2; ++i) {
        StructuralNode n;
        n.label = i + 1;
        n.kind = NodeKind::kDynamic;
        n.initial.x = Vec3(i, 0.5, 0.0);
        n.initial.w = Vec3(0.1, -0.2 * i, 0.3);
        m.AddNode(n);
        NodeInertia in;
        in.m = 1.0 + i;
        in.J = Mat3::Identity();
        m.AddElement(std::make_unique<test::InertiaElement>(10 + i, i, in));
    }
    m.AddElement(std::make_unique<QuadrantSprings>(20, 0, 1, quadrants));
    return m;
}

}  // namespace

TEST_CASE("cgr maps only the declared Jacobian quadrants, the same values, and refuses more") {
    const Registry& reg = GlobalRegistry();
    for (const char* name : {"cgr", "cgr velocity"}) {
        INFO("formulation ", name);
        const FormulationDescriptor* d = reg.FindFormulation(name);
        REQUIRE(d != nullptr);
        Model mq = QuadrantModel(true), mf = QuadrantModel(false);
        auto fq = d->make(mq), ff = d->make(mf);
        FirstOrderProblem& pq = *fq->first_order();
        FirstOrderProblem& pf = *ff->first_order();
        Eigen::SparseMatrix<double> Jq = pq.pattern(), Jf = pf.pattern();
        pq.SetTime(0.5);
        pf.SetTime(0.5);
        pq.Jacobian(0.01, Jq);
        pf.Jacobian(0.01, Jf);
        REQUIRE(Jq.nonZeros() == Jf.nonZeros());
        CHECK(Eigen::MatrixXd(Jq) == Eigen::MatrixXd(Jf));
        CHECK(Eigen::MatrixXd(Jq).cwiseAbs().maxCoeff() > 0.0);
        pq.SetTime(1.5);
        CHECK_THROWS_WITH_AS(pq.Jacobian(0.01, Jq),
                             doctest::Contains("element 20 may write Jacobian quadrants that it "
                                               "did not declare at set-up"),
                             RunError);
    }
}
