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

// The 3x3 maps below are written coefficient by coefficient. Eigen's SSE2 code for 3x3
// column-major products stores two-row halves of columns and reloads pairs that straddle them
// (store-forwarding stalls: a quarter of the cgr assembly was spent there). The operations per
// coefficient are those of the Eigen expressions in the comments, in the same order, so the
// values do not move (structural zeros of skew matrices dropped, which changes no value; Eigen's
// SSE2 products sum rows 0 and 1 as (p0 + p1) + p2 and row 2, its scalar tail, as
// p0 + (p1 + p2)): tests/unit/rotation_test.cpp compares them with the Eigen expressions.

/// r = a b (r must not alias a or b).
inline void Mul3(const Mat3& a, const Mat3& b, Mat3& r) {
    for (int j = 0; j < 3; ++j) {
        r(0, j) = a(0, 0) * b(0, j) + a(0, 1) * b(1, j) + a(0, 2) * b(2, j);
        r(1, j) = a(1, 0) * b(0, j) + a(1, 1) * b(1, j) + a(1, 2) * b(2, j);
        r(2, j) = a(2, 0) * b(0, j) + (a(2, 1) * b(1, j) + a(2, 2) * b(2, j));
    }
}

/// a v
inline Vec3 Mul3(const Mat3& a, const Vec3& v) {
    return Vec3(a(0, 0) * v[0] + a(0, 1) * v[1] + a(0, 2) * v[2],
                a(1, 0) * v[0] + a(1, 1) * v[1] + a(1, 2) * v[2],
                a(2, 0) * v[0] + (a(2, 1) * v[1] + a(2, 2) * v[2]));
}

/// R diag(J) R^T for a diagonal J: the values of Eigen's (R * J.diagonal().asDiagonal()) *
/// R.transpose() (whose diagonal view has no packet access: every coefficient is summed as
/// p0 + (p1 + p2)).
inline Mat3 RotateDiagonal(const Mat3& R, const Mat3& J) {
    const double d0 = J(0, 0), d1 = J(1, 1), d2 = J(2, 2);
    Mat3 r;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i)
            r(i, j) = R(i, 0) * d0 * R(j, 0) + (R(i, 1) * d1 * R(j, 1) + R(i, 2) * d2 * R(j, 2));
    return r;
}

/// skew(u) b
inline Mat3 SkewMul3(const Vec3& u, const Mat3& b) {
    Mat3 r;
    for (int j = 0; j < 3; ++j) {
        r(0, j) = -u[2] * b(1, j) + u[1] * b(2, j);
        r(1, j) = u[2] * b(0, j) + -u[0] * b(2, j);
        r(2, j) = -u[1] * b(0, j) + u[0] * b(1, j);
    }
    return r;
}

/// skew(u) skew(v): each coefficient has at most two non-zero terms, so its value does not
/// depend on the order of the sum.
inline Mat3 SkewSkew(const Vec3& u, const Vec3& v) {
    Mat3 r;
    r(0, 0) = -u[2] * v[2] + u[1] * -v[1];
    r(1, 1) = u[2] * -v[2] + -u[0] * v[0];
    r(2, 2) = -u[1] * v[1] + u[0] * -v[0];
    r(0, 1) = u[1] * v[0];
    r(0, 2) = -u[2] * -v[0];
    r(1, 0) = -u[0] * -v[1];
    r(1, 2) = u[2] * v[1];
    r(2, 0) = u[0] * v[2];
    r(2, 1) = -u[1] * -v[2];
    return r;
}

/// (1): I + c (skew(g) + (1/2 skew(g)) skew(g)), c = 4/(4 + g.g).
inline Mat3 CgrRotation(const Vec3& g) {
    const double c = 4.0 / (4.0 + g.squaredNorm());
    const double x = g[0], y = g[1], z = g[2];
    const double hx = 0.5 * x, hy = 0.5 * y, hz = 0.5 * z;
    Mat3 R;
    R(0, 0) = 1.0 + c * (-(hz * z) - hy * y);
    R(1, 1) = 1.0 + c * (-(hz * z) - hx * x);
    R(2, 2) = 1.0 + c * (-(hy * y) - hx * x);
    R(0, 1) = c * (-z + hy * x);
    R(0, 2) = c * (y + hz * x);
    R(1, 0) = c * (z + hx * y);
    R(1, 2) = c * (-x + hz * y);
    R(2, 0) = c * (-y + hx * z);
    R(2, 1) = c * (x + hy * z);
    return R;
}

/// (2): c (I + 1/2 skew(g)).
inline Mat3 CgrG(const Vec3& g) {
    const double c = 4.0 / (4.0 + g.squaredNorm());
    const double hx = 0.5 * g[0], hy = 0.5 * g[1], hz = 0.5 * g[2];
    Mat3 G;
    G(0, 0) = G(1, 1) = G(2, 2) = c;
    G(0, 1) = c * -hz;
    G(0, 2) = c * hy;
    G(1, 0) = c * hz;
    G(1, 2) = c * -hx;
    G(2, 0) = c * -hy;
    G(2, 1) = c * hx;
    return G;
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
    // -0.5 * c * Skew(a) - 0.5 * c * c * (a + 0.5 * g.cross(a)) * g.transpose()
    const double c = 4.0 / (4.0 + g.squaredNorm());
    const double s = -0.5 * c, t = 0.5 * c * c;
    const Vec3 gxa = g.cross(a);
    const Vec3 w(t * (a[0] + 0.5 * gxa[0]), t * (a[1] + 0.5 * gxa[1]), t * (a[2] + 0.5 * gxa[2]));
    Mat3 D;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) D(i, j) = -(w[i] * g[j]);
    D(0, 1) += s * -a[2];
    D(0, 2) += s * a[1];
    D(1, 0) += s * a[2];
    D(1, 2) += s * -a[0];
    D(2, 0) += s * -a[1];
    D(2, 1) += s * a[0];
    return D;
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
/// The inverses of Euler123/313/321FromRotation (angles in radians, in their order).
inline Mat3 RotationFromEuler123(const Vec3& a) { return RotX(a[0]) * RotY(a[1]) * RotZ(a[2]); }
inline Mat3 RotationFromEuler313(const Vec3& a) { return RotZ(a[0]) * RotX(a[1]) * RotZ(a[2]); }
inline Mat3 RotationFromEuler321(const Vec3& a) { return RotZ(a[2]) * RotY(a[1]) * RotX(a[0]); }

/// The geodesic distance on SO(3): the angle of R1^T R2, in [0, pi] (atan2 of the sine and
/// cosine parts, accurate also near 0 and pi).
inline double GeodesicAngle(const Mat3& R1, const Mat3& R2) {
    const Mat3 D = R1.transpose() * R2;
    return std::atan2(Axial(D).norm(), 0.5 * (D.trace() - 1.0));
}

/// euler321: R = Rz(a1) Ry(a2) Rx(a3); returned as (a3, a2, a1) = (x, y, z) angles, as MBDyn.
inline Vec3 Euler321FromRotation(const Mat3& R) {
    const double ay = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
    const double az = std::atan2(R(1, 0), R(0, 0));
    const double ax = std::atan2(R(2, 1), R(2, 2));
    return Vec3(ax, ay, az);
}

}  // namespace mbstep
