// mbstep — Cardan/Tait-Bryan xyz angles (formulation `euler angles`): the rotation
// R = Rx(theta1) Ry(theta2) Rz(theta3), its inverse, the angular-velocity maps Gb (body) and
// Gs = R Gb (spatial) and the partial derivatives of Gb (equations in
// euler_angles_formulation.hpp).
#pragma once

#include <cmath>

#include "mbstep/math/rotation.hpp"

namespace mbstep::euler_angles {

/// Stop threshold (rad) of the singularity check.
inline constexpr double kSingularityMargin = 1e-3;

/// (1): R = Rx(theta1) Ry(theta2) Rz(theta3).
inline Mat3 RotationXyz(const Vec3& th) { return RotX(th[0]) * RotY(th[1]) * RotZ(th[2]); }

/// Inverse of (1) with theta2 in [-pi/2, pi/2] (atan2 forms, accurate near the singularity):
// R(0, 2) = s2, R(0, 0) = c2 c3, R(0, 1) = -c2 s3, R(1, 2) = -s1 c2, R(2, 2) = c1 c2.
inline Vec3 AnglesXyz(const Mat3& R) {
    const double t2 = std::atan2(R(0, 2), std::hypot(R(0, 0), R(0, 1)));
    const double t1 = std::atan2(-R(1, 2), R(2, 2));
    const double t3 = std::atan2(-R(0, 1), R(0, 0));
    return Vec3(t1, t2, t3);
}

/// (2): body map, W = Gb theta'.
inline Mat3 GBody(const Vec3& th) {
    const double c2 = std::cos(th[1]), s2 = std::sin(th[1]);
    const double c3 = std::cos(th[2]), s3 = std::sin(th[2]);
    Mat3 g;
    g << c2 * c3, s3, 0, -c2 * s3, c3, 0, s2, 0, 1;
    return g;
}

/// (2): spatial map, w = Gs theta' = R Gb theta'; dR/dtheta_k = skew(Gs e_k) R.
inline Mat3 GSpatial(const Vec3& th) {
    const double c1 = std::cos(th[0]), s1 = std::sin(th[0]);
    const double c2 = std::cos(th[1]), s2 = std::sin(th[1]);
    Mat3 g;
    g << 1, 0, s2, 0, c1, -s1 * c2, 0, s1, c1 * c2;
    return g;
}

/// dGb/dtheta_k. Gb depends on theta2 (first column) and theta3 (first two columns) only.
inline Mat3 GBodyPartial(const Vec3& th, int k) {
    const double c2 = std::cos(th[1]), s2 = std::sin(th[1]);
    const double c3 = std::cos(th[2]), s3 = std::sin(th[2]);
    Mat3 g = Mat3::Zero();
    if (k == 1) {
        g.col(0) << -s2 * c3, s2 * s3, c2;
    } else if (k == 2) {
        g.col(0) << -c2 * s3, -c2 * c3, 0;
        g.col(1) << c3, -s3, 0;
    }
    return g;
}

/// d^2 Gb / (dtheta_k dtheta_l).
inline Mat3 GBodyPartial2(const Vec3& th, int k, int l) {
    const double c2 = std::cos(th[1]), s2 = std::sin(th[1]);
    const double c3 = std::cos(th[2]), s3 = std::sin(th[2]);
    Mat3 g = Mat3::Zero();
    if (k == 0 || l == 0) return g;
    if (k == 1 && l == 1) {
        g.col(0) << -c2 * c3, c2 * s3, -s2;
    } else if (k == 2 && l == 2) {
        g.col(0) << -c2 * c3, c2 * s3, 0;
        g.col(1) << -s3, -c3, 0;
    } else {
        g.col(0) << s2 * s3, s2 * c3, 0;
    }
    return g;
}

/// Distance of theta2 from the nearest singular value pi/2 + k pi.
inline double SingularityDistance(double theta2) {
    constexpr double pi = 3.14159265358979323846;
    const double r = std::remainder(theta2 - 0.5 * pi, pi);  // in [-pi/2, pi/2]
    return std::abs(r);
}

}  // namespace mbstep::euler_angles
