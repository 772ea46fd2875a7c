// Shared pieces of the random test models used by the formulation Jacobian tests (cgr, the
// second-order formulations, lie group): random vectors and a spring-damper and a spherical
// constraint between points of two nodes, written with FunctionElement.
#pragma once

#include <memory>
#include <random>

#include "mbstep/math/rotation.hpp"
#include "support/test_elements.hpp"

namespace mbstep::test {

inline Vec3 Rand3(std::mt19937& rng, double s) {
    std::uniform_real_distribution<double> u(-s, s);
    return Vec3(u(rng), u(rng), u(rng));
}

/// Linear spring (30 N/m) and damper (2 N s/m) between the points oa of node a and ob of node
/// b, plus a force sin(t) e_z on a: f = (F, (R_a oa) x F, -F, -(R_b ob) x F).
inline std::unique_ptr<Element> SpringDamper(int label, int a, int b, const Vec3& oa,
                                             const Vec3& ob) {
    return std::make_unique<FunctionElement>(
        label, std::vector<int>{a, b}, [=](const FunctionElement::States& s, double t) {
            const Vec3 pa = s[0].x + s[0].R * oa, pb = s[1].x + s[1].R * ob;
            const Vec3 va = s[0].v + s[0].w.cross(s[0].R * oa),
                       vb = s[1].v + s[1].w.cross(s[1].R * ob);
            const Vec3 F = -30.0 * (pa - pb) - 2.0 * (va - vb) + Vec3(0, 0, std::sin(t));
            Eigen::VectorXd f(12);
            f << F, (s[0].R * oa).cross(F), -F, -(s[1].R * ob).cross(F);
            return f;
        });
}

/// Spherical constraint x_a + R_a oa - x_b = 0 with its analytic W (so the geometric
/// stiffness of the reactions is accurate).
inline std::unique_ptr<Element> SphericalConstraint(int label, int a, int b, const Vec3& oa) {
    return std::make_unique<FunctionElement>(
        label, std::vector<int>{a, b}, nullptr, 3,
        [=](const FunctionElement::States& s, double) {
            return Eigen::VectorXd(s[0].x + s[0].R * oa - s[1].x);
        },
        ConstraintLevel::kPosition,
        [=](const FunctionElement::States& s, double) {
            Eigen::MatrixXd W = Eigen::MatrixXd::Zero(3, 12);
            W.block<3, 3>(0, 0).setIdentity();
            W.block<3, 3>(0, 3) = -Skew(s[0].R * oa);
            W.block<3, 3>(0, 6) = -Mat3::Identity();
            return W;
        });
}

}  // namespace mbstep::test
