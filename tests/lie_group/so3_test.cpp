// math/so3.hpp: the coefficients of exp, T_exp and T_exp^-1 against long-double series on
// both sides of the Taylor switch (loss of significance), T_exp against a central difference
// of exp, and T_exp^-1 T_exp = I.
#include "mbstep/math/so3.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace mbstep;

namespace {

using LD = long double;

// Reference values: power series in long double for phi <= 1 (terms decay at least like
// phi^(2k)/(2k)!, or (phi/2pi)^(2k) for d), long-double closed forms above.
LD SeriesFact(LD phi, int shift) {  // sum_k (-1)^k phi^(2k) / (2k + shift)!
    LD sum = 0, term = 1;
    for (int i = 1; i <= shift; ++i) term /= i;
    for (int k = 0; k < 30; ++k) {
        sum += term;
        term *= -phi * phi / ((2 * k + shift + 1) * (2 * k + shift + 2));
    }
    return sum;
}
LD RefA(LD p) { return p <= 1 ? SeriesFact(p, 1) : std::sin(p) / p; }
LD RefB(LD p) { return p <= 1 ? SeriesFact(p, 2) : (1 - std::cos(p)) / (p * p); }
LD RefC(LD p) { return p <= 1 ? SeriesFact(p, 3) : (p - std::sin(p)) / (p * p * p); }
LD RefD(LD p) {
    if (p > 1) return 1 / (p * p) - (1 + std::cos(p)) / (2 * p * std::sin(p));
    // sum_k |B_2k| phi^(2k-2) / (2k)!
    static const LD kB[] = {1.0L / 6,       1.0L / 30,       1.0L / 42,       1.0L / 30,
                            5.0L / 66,      691.0L / 2730,   7.0L / 6,        3617.0L / 510,
                            43867.0L / 798, 174611.0L / 330, 854513.0L / 138, 236364091.0L / 2730};
    LD sum = 0, fact = 1, pw = 1;
    for (int k = 1; k <= 12; ++k) {
        fact *= (2 * k - 1) * (2 * k);
        sum += kB[k - 1] * pw / fact;
        pw *= p * p;
    }
    return sum;
}

}  // namespace

TEST_CASE("so3 coefficients on both sides of the Taylor switch") {
    const double eps = std::numeric_limits<double>::epsilon();
    const double sw = so3::kTaylorSwitch;
    for (double phi : {0.0, 1e-12, 1e-8, 1e-5, 1e-3, 0.03, sw * (1 - 1e-9), sw * 0.999, sw,
                       sw * 1.001, sw * (1 + 1e-9), 0.2, 0.5, 1.0, 1.5, 2.5, 3.1}) {
        INFO("phi = ", phi);
        // Closed forms lose ~eps/phi^2 relative (b, c) and 12 eps/phi^2 (d): bound 20 eps/phi^2;
        // the Taylor branch (phi < switch) is accurate to a few eps.
        const double tol = phi < sw ? 4 * eps : 4 * eps + 20 * eps / (phi * phi);
        CHECK(std::abs(so3::CoefA(phi) - double(RefA(phi))) <= tol * double(RefA(phi)));
        CHECK(std::abs(so3::CoefB(phi) - double(RefB(phi))) <= tol * double(RefB(phi)));
        CHECK(std::abs(so3::CoefC(phi) - double(RefC(phi))) <= tol * double(RefC(phi)));
        CHECK(std::abs(so3::CoefD(phi) - double(RefD(phi))) <= tol * double(RefD(phi)));
    }
    // Without the Taylor branch b would lose everything at phi = 1e-8 (1 - cos = 0 in double).
    CHECK(so3::CoefB(1e-8) == doctest::Approx(0.5).epsilon(1e-15));
}

TEST_CASE("T_exp is the right-trivialised derivative of exp; T_exp^-1 inverts it") {
    const Vec3 dir = Vec3(0.3, -0.8, 0.52).normalized();
    const Vec3 delta = Vec3(-0.4, 0.25, 0.9);
    for (double phi : {0.0, 1e-7, 1e-3, 0.0999, 0.1, 0.1001, 0.7, 2.0, 3.0}) {
        INFO("phi = ", phi);
        const Vec3 theta = phi * dir;
        const Mat3 T = so3::Texp(theta);
        // exp(theta + e delta) = exp(theta) exp(e T delta) + O(e^2): central difference.
        const double e = 1e-6;
        const Mat3 R0 = so3::Exp(theta);
        const Vec3 fd = (so3::Log(R0.transpose() * so3::Exp(theta + e * delta)) -
                         so3::Log(R0.transpose() * so3::Exp(theta - e * delta))) /
                        (2 * e);
        CHECK((fd - T * delta).norm() <= 1e-8);
        CHECK((so3::TexpInverse(theta) * T - Mat3::Identity()).cwiseAbs().maxCoeff() <= 1e-14);
        if (phi >= 0.1) {  // Rodrigues' formula in closed form (no cancellation here)
            const Mat3 W = Skew(theta);
            const Mat3 rodrigues = Mat3::Identity() + std::sin(phi) / phi * W +
                                   (1.0 - std::cos(phi)) / (phi * phi) * W * W;
            CHECK((R0 - rodrigues).cwiseAbs().maxCoeff() <= 1e-15);
        }
        CHECK((R0.transpose() * R0 - Mat3::Identity()).cwiseAbs().maxCoeff() <= 1e-15);
    }
}

namespace {
// b'/phi and c'/phi by long-double series: sum_k>=1 (-1)^k 2k phi^(2k-2) / (2k + shift)!.
LD SeriesDerivative(LD phi, int shift) {
    LD sum = 0, fact = 1;
    for (int i = 2; i <= 2 + shift; ++i) fact *= i;
    LD pw = 1;
    for (int k = 1; k < 30; ++k) {
        sum += (k % 2 ? -1 : 1) * 2 * k * pw / fact;
        pw *= phi * phi;
        fact *= (2 * k + shift + 1) * (2 * k + shift + 2);
    }
    return sum;
}
}  // namespace

TEST_CASE("derivative coefficients b'/phi, c'/phi on both sides of their Taylor switch") {
    const double eps = std::numeric_limits<double>::epsilon();
    const double sw = so3::kTaylorSwitchDerivative;
    for (double phi :
         {0.0, 1e-8, 1e-3, 0.1, 0.3, sw * (1 - 1e-9), sw, sw * (1 + 1e-9), 0.8, 1.5, 2.5, 3.1}) {
        INFO("phi = ", phi);
        // Closed forms lose ~eps/phi^4 (b'/phi) and ~eps/phi^5 (c'/phi) to cancellation; the
        // series (phi < switch) are accurate to a few eps. The values are -1/12 and -1/60 at 0.
        const double tb = phi < sw ? 8 * eps : 8 * eps + 40 * eps / std::pow(phi, 4);
        const double tc = phi < sw ? 8 * eps : 8 * eps + 200 * eps / std::pow(phi, 5);
        const LD rb = SeriesDerivative(phi, 2), rc = SeriesDerivative(phi, 3);
        CHECK(std::abs(so3::CoefBPrimeOverPhi(phi) - double(rb)) <= tb * std::abs(double(rb)));
        CHECK(std::abs(so3::CoefCPrimeOverPhi(phi) - double(rc)) <= tc * std::abs(double(rc)));
    }
    CHECK(so3::CoefBPrimeOverPhi(0.0) == doctest::Approx(-1.0 / 12.0).epsilon(1e-15));
    CHECK(so3::CoefCPrimeOverPhi(0.0) == doctest::Approx(-1.0 / 60.0).epsilon(1e-15));
}

TEST_CASE("TexpDerivative is the derivative of T_exp(theta) a (central differences)") {
    const Vec3 dir = Vec3(-0.6, 0.2, 0.77).normalized();
    const Vec3 a(0.7, -1.1, 0.4);
    for (double phi : {0.0, 1e-6, 0.2, 0.4999, 0.5, 0.5001, 1.3, 2.9}) {
        INFO("phi = ", phi);
        const Vec3 theta = phi * dir;
        const Mat3 D = so3::TexpDerivative(theta, a);
        const double h = 1e-6;
        Mat3 fd;
        for (int j = 0; j < 3; ++j) {
            const Vec3 e = h * Vec3::Unit(j);
            fd.col(j) = (so3::Texp(theta + e) * a - so3::Texp(theta - e) * a) / (2 * h);
        }
        // Central difference: truncation h^2 |T'''| ~ 1e-12, round-off eps/h ~ 2e-10.
        CHECK((D - fd).cwiseAbs().maxCoeff() <= 2e-9);
    }
}
