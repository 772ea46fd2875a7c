// Registry-driven checks of every registered linear multistep method (STYLE.md §8): order
// conditions checked algebraically, and the roots of rho(z) and sigma(z): spectral radius 1
// at h lambda = 0 (zero-stability, simple principal root) and rho_inf at h lambda -> -inf.
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/multistep_polynomials.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"

using namespace mbstep;

namespace {

// Largest root modulus of the polynomial c[0] z^n + c[1] z^(n-1) + ... + c[n].
double MaxRoot(std::vector<double> c) {
    while (c.size() > 1 && std::abs(c.front()) < 1e-300) c.erase(c.begin());
    const int n = static_cast<int>(c.size()) - 1;
    if (n < 1) return 0.0;
    Eigen::MatrixXd comp = Eigen::MatrixXd::Zero(n, n);
    for (int j = 0; j < n; ++j) comp(0, j) = -c[j + 1] / c[0];
    for (int i = 1; i < n; ++i) comp(i, i - 1) = 1.0;
    return comp.eigenvalues().cwiseAbs().maxCoeff();
}

// Error constant of y(t) = t^q: 0^q - sum a_j (-j)^q - sum b_j q (-j)^(q-1).
double OrderResidual(const std::vector<double>& a, const std::vector<double>& b, int q) {
    double r = (q == 0) ? 1.0 : 0.0;
    for (size_t j = 1; j <= a.size(); ++j) r -= a[j - 1] * std::pow(-double(j), q);
    for (size_t j = 0; j < b.size(); ++j)
        if (q > 0) r -= b[j] * q * (j == 0 && q == 1 ? 1.0 : std::pow(-double(j), q - 1));
    return r;
}

}  // namespace

TEST_CASE("every multistep method: order conditions and spectral radii") {
    const Registry& reg = GlobalRegistry();
    int tested = 0;
    for (const auto& d : reg.integrators()) {
        const bool tunable = d.tunable;
        for (double rho : {0.0, 0.6, 1.0}) {
            std::string text = d.name + (tunable ? ", " + std::to_string(rho) : "");
            auto integ = MakeIntegrator(text, reg);
            auto* fo = dynamic_cast<FirstOrderIntegrator*>(integ.get());
            std::vector<double> a, b;
            if (!fo || !fo->MultistepCoefficients(1.0, rho, a, b)) break;
            ++tested;
            INFO(d.name, " rho_inf = ", rho);
            const int p = integ->order();
            CHECK(std::to_string(p) == d.order);
            for (int q = 0; q <= p; ++q) CHECK(std::abs(OrderResidual(a, b, q)) < 1e-12);
            CHECK(std::abs(OrderResidual(a, b, p + 1)) > 1e-3);  // exactly order p
            // Zero-stability of the method as it runs (irreducible form): rho(z) =
            // z^N - sum a_j z^(N-j) has the simple principal root 1 and all others inside the
            // unit circle (at rho_inf = 1 the unreduced LMS3/4 have a double/triple root at -1).
            std::vector<double> ra = a, rb = b;
            const int cancelled = ReduceMultistep(ra, rb);
            CHECK(cancelled == (rho == 1.0 && tunable ? int(a.size()) - 1 : 0));
            std::vector<double> rc{1.0};
            for (double aj : ra) rc.push_back(-aj);
            auto roots = PolynomialRoots(rc);
            std::sort(roots.begin(), roots.end(),
                      [](auto x, auto y) { return std::abs(x) > std::abs(y); });
            CHECK(std::abs(roots[0] - 1.0) < 1e-9);
            if (roots.size() > 1) CHECK(std::abs(roots[1]) < 1.0 - 1e-3);
            // sigma(z) = sum b_j z^(N-j): its roots are the amplification factors at h lambda ->
            // -inf.
            const double rinf = MaxRoot(b);
            const double expected = tunable ? rho : (d.name == "crank nicolson" ? 1.0 : 0.0);
            // Triple/quadruple roots at -rho are found to ~eps^(1/4): tolerance 1e-3 there.
            CHECK(rinf == doctest::Approx(expected).epsilon(a.size() > 2    ? 2e-4
                                                            : a.size() == 2 ? 1e-6
                                                                            : 1e-8));
            if (!tunable) break;
        }
    }
    CHECK(tested >= 13);
}

TEST_CASE("ms2 variable-step coefficients keep order 2 for step ratios != 1") {
    const Registry& reg = GlobalRegistry();
    auto integ = MakeIntegrator("ms2, 0.6", reg);
    auto* fo = dynamic_cast<FirstOrderIntegrator*>(integ.get());
    for (double alpha : {0.5, 0.8, 1.3, 2.0}) {
        std::vector<double> a, b;
        REQUIRE(fo->MultistepCoefficients(alpha, 0.6, a, b));
        // Exactness on t^q with t_k = 0, t_{k-1} = -h, t_{k-2} = -h - h/alpha (h = 1).
        const double t[3] = {0.0, -1.0, -1.0 - 1.0 / alpha};
        for (int q = 0; q <= 2; ++q) {
            double r = std::pow(t[0], q);
            for (int j = 1; j <= 2; ++j) r -= a[j - 1] * std::pow(t[j], q);
            for (int j = 0; j <= 2; ++j) r -= b[j] * (q ? q * std::pow(t[j], q - 1) : 0.0);
            INFO("alpha ", alpha, " q ", q);
            CHECK(std::abs(r) < 1e-12);
        }
    }
}

TEST_CASE("rho_inf outside [0, 1] and unknown methods are rejected") {
    const Registry& reg = GlobalRegistry();
    CHECK_THROWS_WITH_AS(MakeIntegrator("ms3, 1.5", reg), doctest::Contains("[0, 1]"), DeckError);
    CHECK_THROWS_WITH_AS(MakeIntegrator("ms, -0.1", reg), doctest::Contains("[0, 1]"), DeckError);
    CHECK_THROWS_AS(MakeIntegrator("no such method", reg), DeckError);
}

TEST_CASE("at rho_inf = 1 the tunable LMS reduce to the trapezoidal rule") {
    const Registry& reg = GlobalRegistry();
    for (std::string m : {"ms2", "ms3", "ms4"}) {
        auto integ = MakeIntegrator(m + ", 1", reg);
        std::vector<double> a, b;
        REQUIRE(dynamic_cast<FirstOrderIntegrator*>(integ.get())
                    ->MultistepCoefficients(1.0, 1.0, a, b));
        ReduceMultistep(a, b);
        INFO(m);
        CHECK(a[0] == doctest::Approx(1.0));
        CHECK(b[0] == doctest::Approx(0.5));
        CHECK(b[1] == doctest::Approx(0.5));
        for (size_t j = 1; j < a.size(); ++j) CHECK(std::abs(a[j]) < 1e-12);
        for (size_t j = 2; j < b.size(); ++j) CHECK(std::abs(b[j]) < 1e-12);
    }
}

// The spectral radii of every first-order method at h lambda -> -inf (rho_inf, within 1e-8)
// and at h lambda -> 0 are checked in registry_spectral_test.cpp.
