// CGR map, its inverse and G(g) against finite differences and the exponential map.
#include "mbstep/math/rotation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "mbstep/math/so3.hpp"

using namespace mbstep;

namespace {
Vec3 RandomVec(std::mt19937& rng, double scale) {
    std::uniform_real_distribution<double> u(-scale, scale);
    return Vec3(u(rng), u(rng), u(rng));
}
}  // namespace

TEST_CASE("CGR rotation is orthonormal and g(R(g)) = g") {
    std::mt19937 rng(1);
    for (int k = 0; k < 50; ++k) {
        const Vec3 g = RandomVec(rng, 2.0);
        const Mat3 R = CgrRotation(g);
        CHECK((R * R.transpose() - Mat3::Identity()).norm() < 1e-14);
        CHECK(R.determinant() == doctest::Approx(1.0).epsilon(1e-14));
        CHECK((CgrFromRotation(R) - g).norm() < 1e-13 * (1 + g.norm()));
        // g = 2 tan(phi/2) e: compare with the exponential map of the same rotation.
        const double phi = 2.0 * std::atan(0.5 * g.norm());
        CHECK((so3::Exp(phi * g.normalized()) - R).norm() < 1e-14);
    }
}

TEST_CASE("CGR rotation matches the exponential map to second order for small angles") {
    // R(g) - exp(g) = O(|g|^3): the ratio must stay bounded as g -> 0.
    const Vec3 dir = Vec3(0.3, -0.5, 0.8).normalized();
    double previous = 0;
    for (double s : {1e-1, 1e-2, 1e-3}) {
        const double err = (CgrRotation(s * dir) - so3::Exp(s * dir)).norm();
        if (previous > 0) CHECK(previous / err == doctest::Approx(1000.0).epsilon(0.05));
        previous = err;
    }
}

TEST_CASE("G(g) maps dg to the spatial rotation increment, and G^-1 inverts it") {
    std::mt19937 rng(2);
    const double eps = 1e-6;
    for (int k = 0; k < 30; ++k) {
        const Vec3 g = RandomVec(rng, 1.5);
        const Mat3 G = CgrG(g);
        CHECK((CgrGInverse(g) * G - Mat3::Identity()).norm() < 1e-13);
        for (int j = 0; j < 3; ++j) {
            Vec3 dg = Vec3::Zero();
            dg[j] = eps;
            // dR R^T = skew(G dg): central difference of R(g).
            const Mat3 dR = (CgrRotation(g + dg) - CgrRotation(g - dg)) / (2 * eps);
            const Vec3 dtheta = Axial(dR * CgrRotation(g).transpose());
            CHECK((dtheta - G.col(j)).norm() < 1e-8);
        }
    }
}

TEST_CASE("d(G(g) a)/dg against finite differences") {
    std::mt19937 rng(3);
    const double eps = 1e-6;
    for (int k = 0; k < 30; ++k) {
        const Vec3 g = RandomVec(rng, 1.5), a = RandomVec(rng, 3.0);
        const Mat3 D = CgrGTimesDerivative(g, a);
        for (int j = 0; j < 3; ++j) {
            Vec3 dg = Vec3::Zero();
            dg[j] = eps;
            const Vec3 fd = (CgrG(g + dg) * a - CgrG(g - dg) * a) / (2 * eps);
            CHECK((fd - D.col(j)).norm() < 1e-8);
        }
    }
}

TEST_CASE(
    "the coefficient-wise CGR maps and 3x3 products equal the Eigen expressions bit for bit") {
    // rotation.hpp writes these maps coefficient by coefficient (speed); the values must be
    // those of the defining Eigen expressions: bit for bit in builds with SSE2 packets and no
    // FMA (the project's flags; Eigen's association of a 3x3 product depends on the packet
    // size, and contraction into FMA on the compiler), else to the round-off of a 3-term sum.
    std::mt19937 rng(5);
    auto close = [](const auto& a, const auto& b) {
        for (int i = 0; i < a.size(); ++i) {
            const double tol = 8 * std::numeric_limits<double>::epsilon() *
                               std::max({1.0, std::abs(a.data()[i]), std::abs(b.data()[i])});
            if (!(std::abs(a.data()[i] - b.data()[i]) <= tol)) return false;
        }
        return true;
    };
    auto same = [&](const auto& a, const auto& b) {
#if defined(__FMA__) || defined(__AVX__) || !defined(__SSE2__)
        return close(a, b);
#else
        for (int i = 0; i < a.size(); ++i)
            if (!(a.data()[i] == b.data()[i])) return false;
        return true;
#endif
    };
    for (int k = 0; k < 2000; ++k) {
        const double scale = k % 4 == 0 ? 1e-3 : k % 4 == 1 ? 0.3 : k % 4 == 2 ? 2.0 : 40.0;
        const Vec3 g = RandomVec(rng, scale), a = RandomVec(rng, 3.0);
        const Mat3 gx = Skew(g);
        const double c = 4.0 / (4.0 + g.squaredNorm());
        const Mat3 R = Mat3::Identity() + c * (gx + 0.5 * gx * gx);
        const Mat3 G = c * (Mat3::Identity() + 0.5 * Skew(g));
        const Mat3 D = -0.5 * c * Skew(a) - 0.5 * c * c * (a + 0.5 * g.cross(a)) * g.transpose();
        CHECK(same(CgrRotation(g), R));
        CHECK(same(CgrG(g), G));
        CHECK(same(CgrGTimesDerivative(g, a), D));
        const Mat3 B = CgrRotation(a);
        Mat3 RB;
        Mul3(R, B, RB);
        CHECK(same(RB, Mat3(R * B)));
        CHECK(same(Mul3(R, a), Vec3(R * a)));
        CHECK(same(SkewMul3(a, G), Mat3(Skew(a) * G)));
        CHECK(same(SkewSkew(a, g), Mat3(Skew(a) * Skew(g))));
        const Mat3 J = (a.cwiseAbs() + Vec3::Constant(0.1)).asDiagonal();
        // (Eigen sums this one's coefficients as (p0 + p1) + p2 or p0 + (p1 + p2) depending on
        // the context it is compiled in; RotateDiagonal is the latter, which is what the cgr
        // node maps computed before: the chain's output did not change, checked.)
        CHECK(close(RotateDiagonal(R, J), Mat3((R * J.diagonal().asDiagonal()) * R.transpose())));
    }
    // The rotation at g = 0 is exactly the identity.
    CHECK(same(CgrRotation(Vec3::Zero()), Mat3(Mat3::Identity())));
}

TEST_CASE("exp and log of SO(3), both sides of the small-angle switch") {
    std::mt19937 rng(4);
    for (double scale : {1e-6, 5e-5, 1.5e-4, 1e-2, 1.0, 3.0}) {
        for (int k = 0; k < 10; ++k) {
            Vec3 phi = RandomVec(rng, 1.0).normalized() * scale;
            const Mat3 R = so3::Exp(phi);
            CHECK((R * R.transpose() - Mat3::Identity()).norm() < 1e-14);
            CHECK((LogSO3(R) - phi).norm() < 1e-12 * std::max(1.0, scale) + 1e-15);
            // Against Rodrigues' formula evaluated directly.
            const double a = phi.norm();
            const Mat3 K = Skew(phi / a);
            const Mat3 Rr = Mat3::Identity() + std::sin(a) * K + (1 - std::cos(a)) * K * K;
            CHECK((R - Rr).norm() < 1e-14);
        }
    }
}

TEST_CASE("Euler 1-2-3 angles round trip (MBDyn convention R = Rx Ry Rz)") {
    const Vec3 a(0.3, -0.7, 1.2);
    const Mat3 R = RotX(a.x()) * RotY(a.y()) * RotZ(a.z());
    CHECK((Euler123FromRotation(R) - a).norm() < 1e-14);
    const Vec3 b(0.4, 1.1, -2.0);
    CHECK((Euler313FromRotation(RotZ(b.x()) * RotX(b.y()) * RotZ(b.z())) - b).norm() < 1e-13);
    CHECK((Euler321FromRotation(RotZ(b.z()) * RotY(b.y()) * RotX(b.x())) - b).norm() < 1e-13);
}
