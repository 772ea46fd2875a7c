// mbstep — unit-quaternion (Euler parameter) matrices, e = (e0, e_v):
//   (1) E(e) = [-e_v, e0 I + skew(e_v)],  L(e) = [-e_v, e0 I - skew(e_v)]   (3 x 4)
//   (2) R(e) = E(e) L(e)^T / |e|^2,  w = G(e) e' with G(e) = (2/|e|^2) E(e) (spatial), and the
//       body-frame angular velocity 2 L(e) e' for unit e
//   (3) E(e) b = -E(b) e, L(e) b = -L(b) e for 4-vectors b (bilinear, antisymmetric), so the
//       maps e -> E(e)^T m and e -> L(e)^T y are the 4 x 4 matrices ETransposeTimes(m),
//       LTransposeTimes(y) (column k: E(u_k)^T m, L(u_k)^T y)
//   (4) e' = exp((0, theta/2)) e: e turned by the spatial rotation vector theta (Kinon &
//       Betsch's discrete null-space update (105))
// References: [Sherif, Nachbagauer, Steiner, Lauss 2019] "A modified HHT method for the
// numerical simulation of rigid body rotations with Euler parameters", eqs. (3)-(4); the
// Livens-principle scheme of [Kinon & Betsch, Multibody Syst Dyn] (plugins/eml).
#pragma once

#include <Eigen/Geometry>

#include "mbstep/common.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep::quaternion {

using Vec4 = Eigen::Vector4d;
using Mat4 = Eigen::Matrix4d;
using Mat34 = Eigen::Matrix<double, 3, 4>;

/// (1)
inline Mat34 E(const Vec4& e) {
    Mat34 m;
    m.col(0) = -e.tail<3>();
    m.rightCols<3>() = e[0] * Mat3::Identity() + Skew(e.tail<3>());
    return m;
}

/// (1)
inline Mat34 L(const Vec4& e) {
    Mat34 m;
    m.col(0) = -e.tail<3>();
    m.rightCols<3>() = e[0] * Mat3::Identity() - Skew(e.tail<3>());
    return m;
}

/// (2): the rotation R(e) = E(e) L(e)^T / |e|^2 of e/|e|.
inline Mat3 Rotation(const Vec4& e) { return E(e) * L(e).transpose() / e.squaredNorm(); }

/// (2): the exact map dtheta = G(e) de of R(e/|e|), spatial increments.
inline Mat34 G(const Vec4& e) { return (2.0 / e.squaredNorm()) * E(e); }

/// (4): the spatial rotation by the rotation vector theta applied to e, exp((0, theta/2)) e
/// (quaternion product; unit length kept exactly up to round-off).
inline Vec4 RotateLeft(const Vec3& theta, const Vec4& e) {
    const double a = theta.norm();
    const Eigen::Quaterniond dq = a > 0.0 ? Eigen::Quaterniond(Eigen::AngleAxisd(a, theta / a))
                                          : Eigen::Quaterniond::Identity();
    const Eigen::Quaterniond r = dq * Eigen::Quaterniond(e[0], e[1], e[2], e[3]);
    return Vec4(r.w(), r.x(), r.y(), r.z());
}

/// (3): the matrix of e -> E(e)^T m.
inline Mat4 ETransposeTimes(const Vec3& m) {
    Mat4 out;
    for (int k = 0; k < 4; ++k) out.col(k) = E(Vec4::Unit(k)).transpose() * m;
    return out;
}

/// (3): the matrix of e -> L(e)^T y.
inline Mat4 LTransposeTimes(const Vec3& y) {
    Mat4 out;
    for (int k = 0; k < 4; ++k) out.col(k) = L(Vec4::Unit(k)).transpose() * y;
    return out;
}

}  // namespace mbstep::quaternion
