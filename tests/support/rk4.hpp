// mbstep tests — a classical fourth-order Runge–Kutta integrator for independent reference
// solutions of small ODEs y' = f(y) (a test's own reduced equations, not mbstep's).
#pragma once

#include <array>
#include <cstddef>

namespace mbstep::test {

/// n classical RK4 steps of size h from y: returns y(t0 + n h).
template <std::size_t N, class F>
std::array<double, N> Rk4(F f, std::array<double, N> y, double h, int n) {
    for (int i = 0; i < n; ++i) {
        std::array<double, N> a;
        const std::array<double, N> k1 = f(y);
        for (std::size_t j = 0; j < N; ++j) a[j] = y[j] + 0.5 * h * k1[j];
        const std::array<double, N> k2 = f(a);
        for (std::size_t j = 0; j < N; ++j) a[j] = y[j] + 0.5 * h * k2[j];
        const std::array<double, N> k3 = f(a);
        for (std::size_t j = 0; j < N; ++j) a[j] = y[j] + h * k3[j];
        const std::array<double, N> k4 = f(a);
        for (std::size_t j = 0; j < N; ++j)
            y[j] += h / 6.0 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    }
    return y;
}

}  // namespace mbstep::test
