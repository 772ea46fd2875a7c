// mbstep tests — finite-difference check of an element's analytic derivatives (element
// contract, model/element.hpp eqs. (2)-(6)) at random states.
#pragma once

#include <array>
#include <random>

#include "mbstep/model/element.hpp"

namespace mbstep::test {

/// A random evaluation point for an element: node states, multipliers, time, gravity.
struct RandomPoint {
    std::array<FrameState, ElementBlock::kMaxNodes> state;
    std::array<const FrameState*, ElementBlock::kMaxNodes> ptr{};
    std::array<double, ElementBlock::kMaxMultipliers> lambda{};
    double t{0.0};
    Vec3 gravity{Vec3::Zero()};

    ElementContext Context() {
        for (int i = 0; i < ElementBlock::kMaxNodes; ++i) ptr[i] = &state[i];
        ElementContext ctx;
        ctx.t = t;
        ctx.node = ptr.data();
        ctx.lambda = lambda.data();
        ctx.gravity = gravity;
        return ctx;
    }
};

RandomPoint MakeRandomPoint(std::mt19937& rng);

/// Largest mismatch of one block, relative to its tolerance (<= 1 passes).
struct BlockError {
    const char* block{""};
    double error{0.0};      ///< max |analytic - fd|
    double tolerance{1.0};  ///< 1e-6 * max|analytic| + 1e-7
    double ratio() const { return error / tolerance; }
};

/// Compares K, C, L, phi_q, phi_v with central differences of f and phi at point p, and
/// checks that Evaluate without the Jacobian gives the same f and phi. Returns the worst block.
BlockError CheckJacobians(const Element& e, RandomPoint& p);

/// Number of heap allocations made so far by this process (global operator new).
long AllocationCount();

}  // namespace mbstep::test
