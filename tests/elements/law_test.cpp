// mbstep tests — registry-driven check of every constitutive law (model/constitutive_law.hpp):
// for each registered law and each of its test arguments, the law is read for its dimension and
// D_e, D_v are compared with central differences of f at random strains and rates; linear laws'
// Stiffness()/Damping() equal D_e/D_v and their energy's gradient is the elastic force for a
// symmetric stiffness. Then the numbers of the linear laws (elements/laws/linear_laws.hpp).
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"

using namespace mbstep;
using Vec = ConstitutiveLaw::Vec;
using Mat = ConstitutiveLaw::Mat;

TEST_CASE("every registered constitutive law matches finite differences") {
    const Registry& reg = GlobalRegistry();
    REQUIRE(!reg.constitutive_laws().empty());
    int checked = 0;
    for (const ConstitutiveLawDescriptor& d : reg.constitutive_laws()) {
        INFO("law '", d.name, "' from ", d.library);
        CHECK_FALSE(d.description.empty());
        for (int dim : d.dimensions) {
            bool has = false;
            for (const auto& [n, args] : d.test_arguments) has = has || n == dim;
            CHECK_MESSAGE(has, "no test arguments for dimension ", dim);
        }
        for (const auto& [dim, args] : d.test_arguments) {
            INFO("dimension ", dim, ": ", args);
            const ConstitutiveLawPtr law = ReadConstitutiveLaw(d.name + ", " + args, dim, reg);
            REQUIRE(law);
            CHECK(law->dimension() == dim);
            CHECK_FALSE(law->Describe().empty());
            std::mt19937 rng(1234u + static_cast<unsigned>(checked));
            std::uniform_real_distribution<double> u(-0.1, 0.1);
            Vec e(dim), ep(dim), f(dim);
            for (int i = 0; i < dim; ++i) e[i] = u(rng), ep[i] = u(rng);
            Mat De(dim, dim), Dv(dim, dim);
            law->Evaluate(e, ep, f, &De, &Dv);
            const double h = 1e-6;
            Mat De_fd(dim, dim), Dv_fd(dim, dim);
            for (int j = 0; j < dim; ++j) {
                Vec a = e, b = e, fa(dim), fb(dim);
                a[j] += h;
                b[j] -= h;
                law->Evaluate(a, ep, fa, nullptr, nullptr);
                law->Evaluate(b, ep, fb, nullptr, nullptr);
                De_fd.col(j) = (fa - fb) / (2 * h);
                a = ep;
                b = ep;
                a[j] += h;
                b[j] -= h;
                law->Evaluate(e, a, fa, nullptr, nullptr);
                law->Evaluate(e, b, fb, nullptr, nullptr);
                Dv_fd.col(j) = (fa - fb) / (2 * h);
            }
            const double scale = 1.0 + De.cwiseAbs().maxCoeff() + Dv.cwiseAbs().maxCoeff();
            CHECK((De - De_fd).cwiseAbs().maxCoeff() <= 1e-6 * scale);
            CHECK((Dv - Dv_fd).cwiseAbs().maxCoeff() <= 1e-6 * scale);
            CHECK(law->IsViscous() == !Dv.isZero(0.0));
            if (law->IsLinear()) {
                CHECK(law->Stiffness() == De);
                CHECK(law->Damping() == Dv);
                if ((De - De.transpose()).isZero(0.0)) {
                    // energy gradient = K e (central differences of 1/2 e^T K e are exact up to
                    // round-off)
                    for (int j = 0; j < dim; ++j) {
                        Vec a = e, b = e;
                        a[j] += h;
                        b[j] -= h;
                        const double g = (law->Energy(a) - law->Energy(b)) / (2 * h);
                        CHECK(std::abs(g - (De * e)[j]) <= 1e-6 * scale);
                    }
                }
            }
            ++checked;
        }
    }
    MESSAGE(std::to_string(checked), " law argument lists checked");
    CHECK(checked > 0);
}

TEST_CASE("linear laws: MBDyn's forms and the isotropic beam section") {
    const Registry& reg = GlobalRegistry();
    auto K = [&](const std::string& text, int dim) {
        return ReadConstitutiveLaw(text, dim, reg)->Stiffness();
    };
    auto C = [&](const std::string& text, int dim) {
        return ReadConstitutiveLaw(text, dim, reg)->Damping();
    };
    CHECK(K("linear elastic, 3.", 3) == 3.0 * Mat::Identity(3, 3));
    CHECK(K("linear elastic isotropic, 2.", 6) == 2.0 * Mat::Identity(6, 6));  // MBDyn: S I
    CHECK(C("linear viscous isotropic, 1.e4", 1)(0, 0) == 1.e4);
    CHECK(K("linear viscous isotropic, 1.e4", 1)(0, 0) == 0.0);
    CHECK(C("linear viscoelastic generic, diag, 1., 2., 3., proportional, 0.5", 3) ==
          Mat(Eigen::Vector3d(0.5, 1.0, 1.5).asDiagonal()));
    // sym: upper triangle by rows
    const Mat S = K("linear elastic generic, sym, 10., 2., 3., 20., 5., 30.", 3);
    CHECK(S(0, 1) == 2.0);
    CHECK(S(1, 0) == 2.0);
    CHECK(S(1, 2) == 5.0);
    CHECK(S(2, 2) == 30.0);
    // E = 2.1e11, nu = 0.3: G = E / 2.6; K = diag(E A, G A, G A, G J, E Iy, E Iz), eq. (3)
    const Mat B =
        K("linear elastic isotropic, section, 2.1e11, 0.3, 1.e-4, 1.6e-9, 8.e-10, "
          "9.e-10, shear factors, 0.5, 0.6",
          6);
    const double E = 2.1e11, G = E / 2.6;
    CHECK(B(0, 0) == doctest::Approx(E * 1e-4));
    CHECK(B(1, 1) == doctest::Approx(0.5 * G * 1e-4));
    CHECK(B(2, 2) == doctest::Approx(0.6 * G * 1e-4));
    CHECK(B(3, 3) == doctest::Approx(G * 1.6e-9));
    CHECK(B(4, 4) == doctest::Approx(E * 8e-10));
    CHECK(B(5, 5) == doctest::Approx(E * 9e-10));
    CHECK(B(0, 1) == 0.0);
    // refusals
    CHECK_THROWS_WITH_AS(ReadConstitutiveLaw("linear elastic generic, diag, 1., -1., 1.", 3, reg),
                         doctest::Contains("not positive semi-definite"), DeckError);
    CHECK_THROWS_WITH_AS(ReadConstitutiveLaw("linear elastic isotropic, section, 1., 0.3, 1., 1., "
                                             "1., 1.",
                                             3, reg),
                         doctest::Contains("for 6-D laws only"), DeckError);
    CHECK_THROWS_WITH_AS(ReadConstitutiveLaw("linear elastic isotropic, section, 1., 0.6, 1., 1., "
                                             "1., 1.",
                                             6, reg),
                         doctest::Contains("Poisson's ratio must be in (-1, 0.5)"), DeckError);
    CHECK_THROWS_WITH_AS(ReadConstitutiveLaw("linear elastic, 1., prestress, 1.", 1, reg),
                         doctest::Contains("prestress and prestrain are not supported"), DeckError);
}
