// my_spring — an element written outside the mbstep tree: an isotropic linear spring-damper
// between the points of two structural nodes, registered as the deck statement
//
//   joint: LABEL, my spring, NODE_1, NODE_2, stiffness, K [, damping, C];
//
// Equations, in the element contract of mbstep/model/element.hpp (twist space, global frame;
// x_i the node positions, v_i their velocities, d = x_2 - x_1, e = v_2 - v_1):
//   (1) f_1 = K d + C e,  f_2 = -f_1              forces on the nodes; no moments (the force
//                                                  acts at the node points)
//   (2) K_blocks = -df/dq:  [ K I  -K I ; -K I  K I ] on the translations (dx_1, dx_2)
//   (3) C_blocks = -df/dv:  [ C I  -C I ; -C I  C I ] on the velocities (v_1, v_2)
// No multipliers, no constraint rows. The rest length is zero: the spring pulls node 2's point
// onto node 1's (a zero-length bushing, as MBDyn's `deformable displacement joint` with a
// linear isotropic law and no offsets).
//
// What mbstep checks for an element it ships (tests/elements/element_fd_test.cpp: K and C
// against finite differences of f) this example checks by its physics: a mass on the spring,
// x(t) = A cos(sqrt(K/m) t) (oscillator.mbd; tests/install/install_test.py).
#include <memory>

#include "mbstep/io/deck_input.hpp"
#include "mbstep/model/element.hpp"
#include "mbstep/plugin/registry.hpp"

namespace my {

class Spring final : public mbstep::Element {
  public:
    Spring(int label, int node_1, int node_2, double k, double c)
        : Element(label, "my spring"), k_(k), c_(c) {
        nodes_ = {node_1, node_2};
    }

    void Evaluate(const mbstep::ElementContext& ctx, mbstep::ElementBlock& out) const override {
        const mbstep::FrameState& a = *ctx.node[0];
        const mbstep::FrameState& b = *ctx.node[1];
        const mbstep::Vec3 f = k_ * (b.x - a.x) + c_ * (b.v - a.v);  // eq. (1)
        out.f.segment<3>(0) += f;
        out.f.segment<3>(6) -= f;
        if (!out.want_jacobian) return;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                const double sign = i == j ? 1.0 : -1.0;
                out.K.block<3, 3>(6 * i, 6 * j).diagonal().array() += sign * k_;  // eq. (2)
                out.C.block<3, 3>(6 * i, 6 * j).diagonal().array() += sign * c_;  // eq. (3)
            }
        // Only the force rows and translation columns are written (an optional declaration
        // that lets formulations skip the other quadrants).
        using B = mbstep::ElementBlock;
        out.k_quadrants = out.c_quadrants = B::Quadrant(0, 0);
    }

  private:
    double k_, c_;
};

std::unique_ptr<mbstep::Element> Read(mbstep::ElementReadArgs& args) {
    mbstep::DeckInput& in = args.in;
    const mbstep::SourceLocation where = in.Where();
    const int n1 = in.GetNode("my spring node 1");
    const mbstep::SourceLocation n2_at = in.Where();
    const int n2 = in.GetNode("my spring node 2");
    if (n1 == n2) in.Fail(n2_at, "a my spring needs two different nodes");
    in.GetKeyword("my spring keyword", {"stiffness"});
    const mbstep::SourceLocation k_at = in.Where();
    const double k = in.GetReal("my spring stiffness");
    if (!(k >= 0.0)) in.Fail(k_at, "the stiffness must be non-negative");
    double c = 0.0;
    if (in.IsKeyword("damping")) {
        const mbstep::SourceLocation c_at = in.Where();
        c = in.GetReal("my spring damping");
        if (!(c >= 0.0)) in.Fail(c_at, "the damping must be non-negative");
    }
    auto e = std::make_unique<Spring>(args.label, n1, n2, k, c);
    e->set_where(where);
    return e;
}

}  // namespace my

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::ElementDescriptor d;
    d.statement = "joint";
    d.name = "my spring";
    d.description = "out of tree: isotropic linear spring-damper between two node points";
    d.read = my::Read;
    d.test_snippets = {"joint: 1, my spring, 1, 2, stiffness, 100., damping, 2.;"};
    r.Add(std::move(d));
    return 0;
}
