// High-speed rotor on spring-damper supports under the torque of Holzinger, Arnold, Gerstmayr
// (2024), eq. (44) (examples/high-speed-rotor), with ms, ms3 and Bathe: the precession period
// measured from the path of the bearing point p1 = (-LL, 0, 0) over 4 s against the slow
// (precession) root of the linearized gyroscopic equations.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>

#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;

namespace {
const std::string kDeck = SourcePath("examples/high-speed-rotor/deck.mbd");
const std::vector<std::string> kMethods = {"ms, 0.6", "ms3, 0.6", "Bathe, 0.6"};
// The deck's data.
constexpr double kRho = 7850.0, kR = 0.05, kL = 0.5, kLL = 0.24, kOmega = 1000.0, kK = 875.0,
                 kC = 2.0, kG = 9.81;
const double kM = kRho * M_PI * kR * kR * kL;
const double kJp = kM * kR * kR / 2.0, kJt = kM * (3.0 * kR * kR + kL * kL) / 12.0;
const double kTorque = (kL / 2.0 - kLL) * kM * kG;
const double kKt = 2.0 * kK * kLL * kLL, kCt = 2.0 * kC * kLL * kLL;  // tilt stiffness, damping

// Linearized tilt psi = theta_y + i theta_z: Jt psi'' + (Ct - i Jp Omega) psi' + Kt psi = 0;
// the precession mode is the root of smaller modulus.
double LinearPrecessionPeriod() {
    const std::complex<double> b(kCt, -kJp * kOmega);
    const std::complex<double> disc = std::sqrt(b * b - 4.0 * kJt * kKt);
    const std::complex<double> s1 = (-b + disc) / (2.0 * kJt), s2 = (-b - disc) / (2.0 * kJt);
    const std::complex<double> slow = std::abs(s1) < std::abs(s2) ? s1 : s2;
    return 2.0 * M_PI / std::abs(slow.imag());
}

struct Result {
    double period{0.0}, radius_min{1e9}, radius_max{0.0};
    bool completed{false};
};

// Period from the phase of p1 about the static deflection (y_c, 0), y_c = -LL sin(T/Kt),
// unwrapped and fitted by least squares over [0.5, 4] s (the fast nutation, period 0.1 s,
// averages out).
Result Run(const std::string& method, double h) {
    const double yc = -kLL * std::sin(kTorque / kKt);
    std::vector<double> ts, phis;
    double phi_prev = 0.0, turns = 0.0;
    Result r;
    const RunResult run = RunDeck(kDeck, method, h, 4.0, [&](double t, const Formulation& f) {
        const FrameState& s = f.node_states()[0];
        const Vec3 p1 = s.x + s.R * Vec3(-kLL, 0.0, 0.0);
        const double dy = p1.y() - yc, dz = p1.z();
        const double phi = std::atan2(dz, dy);
        if (!ts.empty() && phi - phi_prev > M_PI) turns -= 1.0;
        if (!ts.empty() && phi - phi_prev < -M_PI) turns += 1.0;
        phi_prev = phi;
        if (t >= 0.5) {
            ts.push_back(t);
            phis.push_back(phi + 2.0 * M_PI * turns);
            r.radius_min = std::min(r.radius_min, std::hypot(dy, dz));
            r.radius_max = std::max(r.radius_max, std::hypot(dy, dz));
        }
    });
    double st = 0, sp = 0, stt = 0, stp = 0;
    const double n = static_cast<double>(ts.size());
    for (size_t k = 0; k < ts.size(); ++k) {
        st += ts[k];
        sp += phis[k];
        stt += ts[k] * ts[k];
        stp += ts[k] * phis[k];
    }
    const double rate = (n * stp - st * sp) / (n * stt - st * st);
    r.period = 2.0 * M_PI / std::abs(rate);
    r.completed = run.summary.completed;
    return r;
}
}  // namespace

TEST_CASE("high-speed rotor: precession period against the linearized gyroscopic equations") {
    const double t_lin = LinearPrecessionPeriod();
    const double r_static = kLL * std::sin(kTorque / kKt);  // radius of the precession circle
    MESSAGE("linear precession period ", t_lin, " s, static tilt ", kTorque / kKt, " rad");
    // The deck's step: 0.5 rad of spin per step. (At h = 1e-3, ms, 0.6 lets the nutation
    // grow: the circle's radius ranges over [0.0003, 0.0123] m by t = 4 s, see README.)
    const double h = 5e-4;
    for (const std::string& m : kMethods) {
        INFO(m);
        const Result r = Run(m, h);
        REQUIRE(r.completed);
        MESSAGE(m, " h = ", h, ": period ", r.period, " s, radius in [", r.radius_min, ", ",
                r.radius_max, "] (static ", r_static, ")");
        // Measured 2.5137 s (all three methods, 2.5141 at h = 1e-3 for ms3 and Bathe) against
        // the linear 2.5054 s: +0.33 %, the tilt of 0.03 rad and the rods' geometry, not the
        // step. 1 % is the model's nonlinearity with a factor 3.
        CHECK(std::abs(r.period - t_lin) < 0.01 * t_lin);
        // p1 circles the static deflection with the nutation on top: radius 0.0064..0.0073 m
        // for the static 0.0072 m; +-20 % bounds a growing nutation.
        CHECK(r.radius_min > 0.8 * r_static);
        CHECK(r.radius_max < 1.2 * r_static);
    }
}
