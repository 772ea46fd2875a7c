// mbstep — the Lie group SO(3) in rotation-vector local coordinates: exp, log, the tangent
// operator T_exp (right-trivialised dexp) and its inverse, with Taylor branches near 0
// (STYLE.md §6; used by the `lie group` formulation and the Lie group generalized-alpha).
//
// With theta a rotation vector, phi = |theta|, Theta = skew(theta):
//   (1) exp(Theta)      = I + a(phi) Theta + b(phi) Theta^2,
//                         a = sin(phi)/phi,            b = (1 - cos(phi))/phi^2
//   (2) T_exp(theta)    = I - b(phi) Theta + c(phi) Theta^2,
//                         c = (phi - sin(phi))/phi^3
//       so that exp(Theta + skew(delta)) = exp(Theta) exp(skew(T_exp(theta) delta)) + O(delta^2)
//   (3) T_exp(theta)^-1 = I + 1/2 Theta + d(phi) Theta^2,
//                         d = (1 - (phi/2) cot(phi/2))/phi^2 = 1/phi^2 - (1 + cos phi)/(2 phi sin
//                         phi)
//   (4) log(R)          = the rotation vector of R, |theta| <= pi (LogSO3 of rotation.hpp)
//   (5) d(T_exp(theta) a)/dtheta = b A - (b'/phi) (theta x a) theta^T
//                                  - c (skew(theta x a) + Theta A) + (c'/phi) (theta x (theta x a))
//                                  theta^T,
//       A = skew(a), b' = db/dphi, c' = dc/dphi:
//       b'/phi = (phi sin(phi) - 2 (1 - cos(phi)))/phi^4 = sum_k>=1 (-1)^k 2k phi^(2k-2)/(2k+2)!
//       c'/phi = (1 - cos(phi))/phi^4 - 3 (phi - sin(phi))/phi^5
//              = sum_k>=1 (-1)^k 2k phi^(2k-2)/(2k+3)!
//       (the derivative of the curvature T_exp(theta) theta' of an interpolated rotation field)
//
// Below |phi| < kTaylorSwitch the coefficients are evaluated from their Taylor series
//   b = 1/2 - phi^2/24 + phi^4/720 - phi^6/40320 + phi^8/3628800
//   c = 1/6 - phi^2/120 + phi^4/5040 - phi^6/362880 + phi^8/39916800
//   d = 1/12 + phi^2/720 + phi^4/30240 + phi^6/1209600 + phi^8/47900160   (|B_2k| phi^(2k-2)/(2k)!)
// whose truncation error at the switch (0.1) is below 1e-18; above it the closed forms lose at
// most eps/phi^2 ~ 2e-14 relative (tests/unit/math/so3_test.cpp checks both sides).
//
// References: [Brüls, Cardona, Arnold, 2012] "Lie group generalized-alpha time integration of
// constrained flexible multibody systems", Mech. Mach. Theory 48, eqs. (18)-(20) (T_exp of
// SO(3)); [Sonneville, Cardona, Brüls, 2014] appendix (Taylor expansions); the comparison paper
// [Holzinger, Arnold, Gerstmayr, 2024] "Evaluation and implementation of Lie group integration
// methods for rigid multibody systems", Multibody Syst Dyn, doi:10.1007/s11044-024-09970-8,
// section 2.2 (R^3 x SO(3)) and section 3.1, Algorithm 1 (UAC update).
#pragma once

#include <array>
#include <cmath>

#include "mbstep/common.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::so3 {

/// Below this |theta| the coefficients b, c, d use their Taylor series.
inline constexpr double kTaylorSwitch = 0.1;

/// a(phi) = sin(phi)/phi of (1).
inline double CoefA(double phi) {
    if (phi < kTaylorSwitch) {
        const double p2 = phi * phi;
        return 1.0 - p2 / 6.0 * (1.0 - p2 / 20.0 * (1.0 - p2 / 42.0 * (1.0 - p2 / 72.0)));
    }
    return std::sin(phi) / phi;
}
/// b(phi) = (1 - cos(phi))/phi^2 of (1), (2).
inline double CoefB(double phi) {
    if (phi < kTaylorSwitch) {
        const double p2 = phi * phi;
        return 0.5 - p2 / 24.0 * (1.0 - p2 / 30.0 * (1.0 - p2 / 56.0 * (1.0 - p2 / 90.0)));
    }
    return (1.0 - std::cos(phi)) / (phi * phi);
}
/// c(phi) = (phi - sin(phi))/phi^3 of (2).
inline double CoefC(double phi) {
    if (phi < kTaylorSwitch) {
        const double p2 = phi * phi;
        return 1.0 / 6.0 - p2 / 120.0 * (1.0 - p2 / 42.0 * (1.0 - p2 / 72.0 * (1.0 - p2 / 110.0)));
    }
    return (phi - std::sin(phi)) / (phi * phi * phi);
}
/// d(phi) = (1 - (phi/2) cot(phi/2))/phi^2 of (3) (singular at phi = 2 pi).
inline double CoefD(double phi) {
    if (phi < kTaylorSwitch) {
        const double p2 = phi * phi;
        return 1.0 / 12.0 +
               p2 * (1.0 / 720.0 + p2 * (1.0 / 30240.0 + p2 * (1.0 / 1209600.0 + p2 / 47900160.0)));
    }
    return 1.0 / (phi * phi) - (1.0 + std::cos(phi)) / (2.0 * phi * std::sin(phi));
}

/// (1)
inline Mat3 Exp(const Vec3& theta) {
    const double phi = theta.norm();
    const Mat3 T = Skew(theta);
    return Mat3::Identity() + CoefA(phi) * T + CoefB(phi) * T * T;
}
/// (4)
inline Vec3 Log(const Mat3& R) { return LogSO3(R); }
/// (2)
inline Mat3 Texp(const Vec3& theta) {
    const double phi = theta.norm();
    const Mat3 T = Skew(theta);
    return Mat3::Identity() - CoefB(phi) * T + CoefC(phi) * T * T;
}
/// (3)
inline Mat3 TexpInverse(const Vec3& theta) {
    const double phi = theta.norm();
    const Mat3 T = Skew(theta);
    return Mat3::Identity() + 0.5 * T + CoefD(phi) * T * T;
}

/// Below this |theta| the derivative coefficients b'/phi, c'/phi of (5) use their series (the
/// closed forms lose eps/phi^5 to cancellation: 7e-15 at the switch; the series' first omitted
/// term there is below 1e-17).
inline constexpr double kTaylorSwitchDerivative = 0.5;

namespace detail {
/// The series coefficients (-1)^k 2k/(2k+m)!, k = 1..8, of b'/phi (m = 2) and c'/phi (m = 3).
constexpr std::array<double, 8> DerivativeSeries(int m) {
    std::array<double, 8> c{};
    for (int k = 1; k <= 8; ++k) {
        double fact = 1.0;
        for (int i = 2; i <= 2 * k + m; ++i) fact *= i;
        c[k - 1] = (k % 2 ? -2.0 : 2.0) * k / fact;
    }
    return c;
}
inline constexpr std::array<double, 8> kBPrimeSeries = DerivativeSeries(2);
inline constexpr std::array<double, 8> kCPrimeSeries = DerivativeSeries(3);
inline double Horner(const std::array<double, 8>& c, double p2) {
    double sum = c[7];
    for (int k = 6; k >= 0; --k) sum = sum * p2 + c[k];
    return sum;
}
}  // namespace detail

/// b'(phi)/phi of (5).
inline double CoefBPrimeOverPhi(double phi) {
    const double p2 = phi * phi;
    if (phi < kTaylorSwitchDerivative) return detail::Horner(detail::kBPrimeSeries, p2);
    return (phi * std::sin(phi) - 2.0 * (1.0 - std::cos(phi))) / (p2 * p2);
}
/// c'(phi)/phi of (5).
inline double CoefCPrimeOverPhi(double phi) {
    const double p2 = phi * phi;
    if (phi < kTaylorSwitchDerivative) return detail::Horner(detail::kCPrimeSeries, p2);
    return (1.0 - std::cos(phi)) / (p2 * p2) - 3.0 * (phi - std::sin(phi)) / (p2 * p2 * phi);
}
/// (5): the derivative of T_exp(theta) a with respect to theta.
inline Mat3 TexpDerivative(const Vec3& theta, const Vec3& a) {
    const double phi = theta.norm();
    const Vec3 ta = theta.cross(a);
    const Vec3 tta = theta.cross(ta);
    return CoefB(phi) * Skew(a) - CoefBPrimeOverPhi(phi) * ta * theta.transpose() -
           CoefC(phi) * (Skew(ta) + Skew(theta) * Skew(a)) +
           CoefCPrimeOverPhi(phi) * tta * theta.transpose();
}

/// One Newton–Schulz step towards the nearest orthonormal matrix, R (3 I - R^T R) / 2: removes
/// the round-off drift of repeated products R exp(Theta) (error e -> O(e^2)).
inline Mat3 Orthonormalize(const Mat3& R) {
    return 0.5 * R * (3.0 * Mat3::Identity() - R.transpose() * R);
}

}  // namespace mbstep::so3
