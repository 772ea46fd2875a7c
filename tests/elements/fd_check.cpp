// mbstep tests — finite-difference check of element derivatives (fd_check.hpp).
#include "fd_check.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

// Count heap allocations so the tests can assert that Evaluate allocates nothing
// (STYLE.md §6). Replacing the global operator new also covers the loaded plugins.
namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t n) {
    ++g_allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace mbstep::test {

long AllocationCount() { return g_allocations.load(); }

namespace {

// Central-difference step and tolerance. With h = 1e-6 the truncation error of a central
// difference is h^2/6 |f'''| ~ 1e-12 for the O(1)..O(10) states used here, and the round-off
// error is ~ eps |f| / h ~ 2e-16 * 10 / 1e-6 ~ 2e-9. A tolerance of 1e-6 relative to the
// block's largest entry plus 1e-7 absolute is thus >= 50x above the FD noise, while a wrong
// or missing term is O(|lambda| |p|) ~ O(1) and fails by orders of magnitude.
constexpr double kStep = 1e-6;
constexpr double kRelTol = 1e-6;
constexpr double kAbsTol = 1e-7;

Vec3 RandomVec(std::mt19937& rng, double scale) {
    std::uniform_real_distribution<double> u(-scale, scale);
    return Vec3(u(rng), u(rng), u(rng));
}

struct Sample {
    ElementBlock::Vec f;
    ElementBlock::VecC phi;
};

Sample EvalNoJacobian(const Element& e, RandomPoint& p, int k, int m) {
    ElementBlock b;
    b.Reset(k, m, false);
    const ElementContext ctx = p.Context();
    e.Evaluate(ctx, b);
    return {b.f, b.phi};
}

template <class A, class B>
void Compare(const char* name, const A& analytic, const B& fd, BlockError& worst) {
    if (analytic.size() == 0) return;
    const double err = (analytic - fd).cwiseAbs().maxCoeff();
    const double tol = kRelTol * analytic.cwiseAbs().maxCoeff() + kAbsTol;
    if (err / tol > worst.ratio()) worst = {name, err, tol};
}

}  // namespace

RandomPoint MakeRandomPoint(std::mt19937& rng) {
    RandomPoint p;
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (FrameState& s : p.state) {
        s.x = RandomVec(rng, 2.0);
        s.R = so3::Exp(RandomVec(rng, 2.0));  // angles up to ~3.5 rad: all of SO(3)
        s.v = RandomVec(rng, 1.0);
        s.w = RandomVec(rng, 1.0);
    }
    for (double& l : p.lambda) l = 5.0 * u(rng);
    p.t = 2.0 * (u(rng) + 1.0);
    p.gravity = RandomVec(rng, 10.0);
    return p;
}

BlockError CheckJacobians(const Element& e, RandomPoint& p) {
    const int k = static_cast<int>(e.nodes().size());
    const int m = e.num_multipliers();
    const int n = 6 * k;

    ElementBlock a;
    a.Reset(k, m, true);
    {
        const ElementContext ctx = p.Context();
        e.Evaluate(ctx, a);
    }
    BlockError worst;
    // Same f and phi without the Jacobian.
    const Sample plain = EvalNoJacobian(e, p, k, m);
    Compare("f (no jacobian)", a.f, plain.f, worst);
    Compare("phi (no jacobian)", a.phi, plain.phi, worst);

    ElementBlock::Mat K_fd(n, n), C_fd(n, n);
    ElementBlock::MatC phiq_fd(m, n), phiv_fd(m, n);
    ElementBlock::MatL L_fd(n, m);
    for (int i = 0; i < k; ++i) {
        FrameState& s = p.state[i];
        const FrameState saved = s;
        for (int j = 0; j < 6; ++j) {
            const int col = 6 * i + j;
            // Pose: dx additive, dtheta spatial R <- exp(skew(dtheta)) R.
            Sample plus, minus;
            for (int sign : {+1, -1}) {
                s = saved;
                if (j < 3) {
                    s.x[j] += sign * kStep;
                } else {
                    s.R = so3::Exp(sign * kStep * Vec3::Unit(j - 3)) * saved.R;
                }
                (sign > 0 ? plus : minus) = EvalNoJacobian(e, p, k, m);
            }
            K_fd.col(col) = -(plus.f - minus.f) / (2.0 * kStep);
            phiq_fd.col(col) = (plus.phi - minus.phi) / (2.0 * kStep);
            // Twist: additive.
            for (int sign : {+1, -1}) {
                s = saved;
                if (j < 3) {
                    s.v[j] += sign * kStep;
                } else {
                    s.w[j - 3] += sign * kStep;
                }
                (sign > 0 ? plus : minus) = EvalNoJacobian(e, p, k, m);
            }
            C_fd.col(col) = -(plus.f - minus.f) / (2.0 * kStep);
            phiv_fd.col(col) = (plus.phi - minus.phi) / (2.0 * kStep);
        }
        s = saved;
    }
    for (int r = 0; r < m; ++r) {
        const double saved = p.lambda[r];
        p.lambda[r] = saved + kStep;
        const Sample plus = EvalNoJacobian(e, p, k, m);
        p.lambda[r] = saved - kStep;
        const Sample minus = EvalNoJacobian(e, p, k, m);
        p.lambda[r] = saved;
        L_fd.col(r) = (plus.f - minus.f) / (2.0 * kStep);
    }
    Compare("K", a.K, K_fd, worst);
    Compare("C", a.C, C_fd, worst);
    Compare("L", a.L, L_fd, worst);
    Compare("phi_q", a.phi_q, phiq_fd, worst);
    Compare("phi_v", a.phi_v, phiv_fd, worst);
    // Blocks outside the declared structure (ElementBlock::k_blocks, c_blocks) must vanish,
    // in the analytic blocks and in the differences: formulations skip them unread.
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
            const std::uint32_t bit = ElementBlock::Pair(i, j);
            const ElementBlock::Mat zero = ElementBlock::Mat::Zero(6, 6);
            if (!(a.k_blocks & bit)) {
                Compare("K outside k_blocks", a.K.block(6 * i, 6 * j, 6, 6), zero, worst);
                Compare("K outside k_blocks (fd)", K_fd.block(6 * i, 6 * j, 6, 6), zero, worst);
            }
            if (!(a.c_blocks & bit)) {
                Compare("C outside c_blocks", a.C.block(6 * i, 6 * j, 6, 6), zero, worst);
                Compare("C outside c_blocks (fd)", C_fd.block(6 * i, 6 * j, 6, 6), zero, worst);
            }
        }
    return worst;
}

}  // namespace mbstep::test
