// mbstep tests — independent reference solutions of the two non-rigid examples of P.L. Kinon,
// P. Betsch, "Conserving integration of multibody systems with singular and non-constant mass
// matrix including quaternion-based rigid body dynamics", Multibody Syst Dyn (2024),
// doi:10.1007/s11044-024-10001-9, sect. 5.1-5.2 (examples/mass-spring-singular,
// examples/spring-pendulum), by the classical Runge-Kutta method (support/rk4.hpp) on the
// tests' own equations — no mbstep code involved.
#pragma once

#include <array>
#include <cmath>

#include "support/rk4.hpp"

namespace mbstep::test {

/// Mass-spring with a singular mass matrix: (q1, q3, q1', q3') at t = 10 of the reduced ODE
/// (q2 = q1 + l10 + w eliminated, regular 2 x 2 mass matrix [m1 + m2, m2; m2, m2]), m1 = 2,
/// m2 = 1, K1 = 1, K2 = 3, 200000 steps. It agrees with a DOP853 solution (rtol 1e-13) of the
/// same ODE to 1e-13 (q1 = 0.8877973989143377, q3 = 0.2659615048854821).
inline std::array<double, 4> MassSpringSingularReference() {
    auto rhs = [](const std::array<double, 4>& s) {
        const double f1 = -(s[0] + 2 * s[0] * s[0] * s[0]);
        const double f3 = -3.0 * (s[1] + 2 * s[1] * s[1] * s[1]);
        // [3 1; 1 1] a = f
        return std::array<double, 4>{s[2], s[3], (f1 - f3) / 2.0, (3.0 * f3 - f1) / 2.0};
    };
    std::array<double, 4> s{0.0, 0.0, 1.0, -1.0};
    const int n = 200000;
    return Rk4(rhs, s, 10.0 / n, n);
}

/// Spring pendulum: (l, theta, phi, l', theta', phi') at t = 1 of the Lagrange equations solved
/// for the accelerations (M = diag(m, m l^2, m l^2 sin^2 theta) is invertible along the
/// motion), m = 1, EA = 300, l0 = 1, g = 0, 100000 steps. It agrees with a DOP853 solution
/// (rtol 1e-13) to 1e-13 (l = 1.0239908361878183, theta = 2.355977500928156).
inline std::array<double, 6> SpringPendulumReference() {
    using State = std::array<double, 6>;
    auto rhs = [](const State& s) {
        const double l = s[0], th = s[1], dl = s[3], dth = s[4], dph = s[5];
        const double eps = (l * l - 1.0) / 2.0;
        return State{dl,
                     dth,
                     dph,
                     l * dth * dth + l * std::sin(th) * std::sin(th) * dph * dph - 300.0 * eps * l,
                     std::sin(th) * std::cos(th) * dph * dph - 2.0 * dl * dth / l,
                     -(2.0 * dl / l + 2.0 * std::cos(th) * dth / std::sin(th)) * dph};
    };
    State s{1.05, 3.14159265358979323846 / 2, 0.0, 0.0, 1.0, 1.0};
    const int n = 100000;
    return Rk4(rhs, s, 1.0 / n, n);
}

}  // namespace mbstep::test
