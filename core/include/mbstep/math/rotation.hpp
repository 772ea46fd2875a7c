// mbstep — rotation utilities.
//
// Conventions (docs/notation.md): R maps node-frame components to global components;
// angular velocities w are spatial (global), dR/dt = skew(w) R; rotation increments are
// spatial (left): R_new = exp(skew(dtheta)) R.
//
// Cayley–Gibbs–Rodrigues parameters, MBDyn's scaling g = 2 tan(phi/2) e
// [Masarati, MBDyn theory; Zhang, Masarati et al., section 3.1]:
//   (1) R(g)    = I + 4/(4 + g.g) (skew(g) + 1/2 skew(g)^2)
//   (2) G(g)    = 4/(4 + g.g) (I + 1/2 skew(g)),      w = G(g) g',  dR R^T = skew(G(g) dg)
//   (3) G(g)^-1 = I - 1/2 skew(g) + 1/4 g g^T
//   (4) g(R)    = 4/(1 + tr R) ax(R),  ax(R) = axial vector of (R - R^T)/2
#pragma once

#include <algorithm>
#include <cmath>

#include "mbstep/common.hpp"

namespace mbstep {

inline Mat3 Skew(const Vec3& v) {
    Mat3 m;
    m << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
    return m;
}

/// Axial vector of the skew-symmetric part of m.
inline Vec3 Axial(const Mat3& m) {
    return 0.5 * Vec3(m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1));
}

/// (1)
inline Mat3 CgrRotation(const Vec3& g) {
    const Mat3 gx = Skew(g);
    return Mat3::Identity() + (4.0 / (4.0 + g.squaredNorm())) * (gx + 0.5 * gx * gx);
}

/// (2)
inline Mat3 CgrG(const Vec3& g) {
    return (4.0 / (4.0 + g.squaredNorm())) * (Mat3::Identity() + 0.5 * Skew(g));
}

/// (3)
inline Mat3 CgrGInverse(const Vec3& g) {
    return Mat3::Identity() - 0.5 * Skew(g) + 0.25 * g * g.transpose();
}

/// (4); throws RunError for a half-turn (tr R = -1), where CGR parameters are singular.
inline Vec3 CgrFromRotation(const Mat3& R) {
    const double d = 1.0 + R.trace();
    if (d <= 1e-12) throw RunError("CGR parameters undefined for a rotation of pi");
    return (4.0 / d) * Axial(R);
}

/// d(G(g) a)/dg for a fixed vector a:
///   -1/2 c skew(a) - c^2/2 (a + 1/2 g x a) g^T,  c = 4/(4 + g.g).
inline Mat3 CgrGTimesDerivative(const Vec3& g, const Vec3& a) {
    const double c = 4.0 / (4.0 + g.squaredNorm());
    return -0.5 * c * Skew(a) - 0.5 * c * c * (a + 0.5 * g.cross(a)) * g.transpose();
}

/// Rotation-vector exponential exp(skew(phi)).
inline Mat3 ExpSO3(const Vec3& phi) {
    const double a = phi.norm();
    const Mat3 px = Skew(phi);
    double s, c;  // sin(a)/a, (1-cos a)/a^2
    if (a < 1e-4) {
        const double a2 = a * a;
        s = 1.0 - a2 / 6.0 + a2 * a2 / 120.0;
        c = 0.5 - a2 / 24.0 + a2 * a2 / 720.0;
    } else {
        s = std::sin(a) / a;
        c = (1.0 - std::cos(a)) / (a * a);
    }
    return Mat3::Identity() + s * px + c * px * px;
}

/// Rotation vector of R (|phi| <= pi).
inline Vec3 LogSO3(const Mat3& R) {
    const double cos_a = std::clamp(0.5 * (R.trace() - 1.0), -1.0, 1.0);
    const double a = std::acos(cos_a);
    const Vec3 ax = Axial(R);
    if (a < 1e-6) return (1.0 + a * a / 6.0) * ax;
    if (M_PI - a < 1e-6) {
        // Near a half turn: axis from the symmetric part.
        const Mat3 B = 0.5 * (R + Mat3::Identity());
        int k = 0;
        B.diagonal().maxCoeff(&k);
        Vec3 axis = B.col(k) / std::sqrt(std::max(B(k, k), 1e-300));
        if (axis.dot(ax) < 0) axis = -axis;
        return a * axis.normalized();
    }
    return (a / std::sin(a)) * ax;
}

inline Mat3 RotX(double a) {
    Mat3 m;
    m << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a);
    return m;
}
inline Mat3 RotY(double a) {
    Mat3 m;
    m << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
    return m;
}
inline Mat3 RotZ(double a) {
    Mat3 m;
    m << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
    return m;
}

/// MBDyn euler123: R = Rx(a1) Ry(a2) Rz(a3); angles in radians.
inline Vec3 Euler123FromRotation(const Mat3& R) {
    const double a2 = std::asin(std::clamp(R(0, 2), -1.0, 1.0));
    const double a1 = std::atan2(-R(1, 2), R(2, 2));
    const double a3 = std::atan2(-R(0, 1), R(0, 0));
    return Vec3(a1, a2, a3);
}
/// euler313: R = Rz(a1) Rx(a2) Rz(a3).
inline Vec3 Euler313FromRotation(const Mat3& R) {
    const double a2 = std::acos(std::clamp(R(2, 2), -1.0, 1.0));
    const double a1 = std::atan2(R(0, 2), -R(1, 2));
    const double a3 = std::atan2(R(2, 0), R(2, 1));
    return Vec3(a1, a2, a3);
}
/// euler321: R = Rz(a1) Ry(a2) Rx(a3); returned as (a3, a2, a1) = (x, y, z) angles, as MBDyn.
inline Vec3 Euler321FromRotation(const Mat3& R) {
    const double ay = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
    const double az = std::atan2(R(1, 0), R(0, 0));
    const double ax = std::atan2(R(2, 1), R(2, 2));
    return Vec3(ax, ay, az);
}

}  // namespace mbstep
