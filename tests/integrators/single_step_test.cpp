// SingleStep<N> and the `single_step` family (ss2, ss3, ss4): the gammas against MBDyn's
// values, the characteristic roots against LMS N (single_step.hpp eq. (6)), the auxiliary
// modes that do not reach the state, rho_inf at h lambda -> -inf, order 2 on the linear
// oscillator, the equivalence with LMS N on linear problems step by step, failure restore,
// and the heavy top against ms2/ms3/ms4.
#include "mbstep/integrator/single_step.hpp"

#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>

#include "support/linear_problem.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;
using namespace mbstep::test;
using Complex = std::complex<double>;

namespace {

const std::string kHeavyTop = SourcePath("examples/heavy-top/heavy-top.mbd");

std::unique_ptr<Integrator> Make(const std::string& text) {
    return MakeIntegrator(text, GlobalRegistry());
}

FirstOrderIntegrator& AsFirstOrder(Integrator& i) { return dynamic_cast<FirstOrderIntegrator&>(i); }

// Unreduced LMS coefficients of msN (the polynomials rho, sigma of [paper eq. (2)]).
void LmsCoefficients(int N, double rho, std::vector<double>& a, std::vector<double>& b) {
    auto ms = Make("ms" + std::to_string(N) + ", " + std::to_string(rho));
    REQUIRE(AsFirstOrder(*ms).MultistepCoefficients(1.0, rho, a, b));
}

// Monic (rho(zeta) - z sigma(zeta)) / (1 - z b0): coefficients of zeta^N, ..., zeta^0.
std::vector<Complex> LmsCharacteristic(const std::vector<double>& a, const std::vector<double>& b,
                                       Complex z) {
    const Complex lead = 1.0 - z * b[0];
    std::vector<Complex> c{1.0};
    for (size_t j = 0; j < a.size(); ++j) c.push_back(-(a[j] + z * b[j + 1]) / lead);
    return c;
}

// Monic polynomial with the given roots.
std::vector<Complex> FromRoots(const Eigen::VectorXcd& r) {
    std::vector<Complex> c{1.0};
    for (Eigen::Index i = 0; i < r.size(); ++i) {
        c.push_back(0.0);
        for (size_t k = c.size() - 1; k > 0; --k) c[k] -= r[i] * c[k - 1];
    }
    return c;
}

Eigen::VectorXcd Roots(const std::vector<Complex>& monic) {
    const int n = static_cast<int>(monic.size()) - 1;
    Eigen::MatrixXcd comp = Eigen::MatrixXcd::Zero(n, n);
    for (int j = 0; j < n; ++j) comp(0, j) = -monic[j + 1];
    for (int i = 1; i < n; ++i) comp(i, i - 1) = 1.0;
    return comp.eigenvalues();
}

// Largest distance from a root of `want` to the nearest unused root of `got`.
double RootDistance(Eigen::VectorXcd want, Eigen::VectorXcd got) {
    double worst = 0.0;
    std::vector<bool> used(got.size(), false);
    for (Eigen::Index i = 0; i < want.size(); ++i) {
        double best = 1e300;
        Eigen::Index k = -1;
        for (Eigen::Index j = 0; j < got.size(); ++j)
            if (!used[j] && std::abs(want[i] - got[j]) < best) {
                best = std::abs(want[i] - got[j]);
                k = j;
            }
        used[k] = true;
        worst = std::max(worst, best);
    }
    return worst;
}

// Amplification matrices of ssN through the template (ssN's type is known here).
template <int N>
const SingleStep<N>& AsSingleStep(const Integrator& i) {
    return dynamic_cast<const SingleStep<N>&>(i);
}

Eigen::MatrixXd RealAmplification(const Integrator& i, int N, double z, double rho) {
    if (N == 2) return AsSingleStep<2>(i).RealAmplificationMatrix(z, rho);
    if (N == 3) return AsSingleStep<3>(i).RealAmplificationMatrix(z, rho);
    return AsSingleStep<4>(i).RealAmplificationMatrix(z, rho);
}

std::vector<Complex> Gammas(const Integrator& i, int N, double rho) {
    if (N == 2) {
        auto g = AsSingleStep<2>(i).gammas(rho);
        return {g.begin(), g.end()};
    }
    if (N == 3) {
        auto g = AsSingleStep<3>(i).gammas(rho);
        return {g.begin(), g.end()};
    }
    auto g = AsSingleStep<4>(i).gammas(rho);
    return {g.begin(), g.end()};
}

}  // namespace

TEST_CASE("ssN gammas match MBDyn's (singlestepsol_impl.cc at rho_inf 0, 0.6, 1)") {
    // MBDyn's gamma formulas (MBDyn's mbdyn/base/singlestepsol_impl.cc, develop 9f75c76)
    // evaluated at rho_inf = 0, 0.6, 1 and printed with 12 significant digits.
    struct Row {
        int N;
        double rho;
        std::vector<Complex> g;
    };
    const Complex i(0.0, 1.0);
    const std::vector<Row> rows = {
        {2, 0.0, {1.0, 1.5, 1.0}},
        {2, 0.6, {0.625, 0.75, 0.625}},
        {2, 1.0, {0.5, 0.5, 0.5}},
        {3, 0.0, {1.0, 1.25 + 0.322748612184 * i, 1.0, 1.25 - 0.322748612184 * i, 1.0}},
        {3, 0.6, {0.625, 0.6875 + 0.080687153046 * i, 0.625, 0.6875 - 0.080687153046 * i, 0.625}},
        {3, 1.0, {0.5, 0.5, 0.5, 0.5, 0.5}},
        {4,
         0.0,
         {1.0, 1.34238409486, 1.0, 1.07880795257 + 0.373930645434 * i, 1.0,
          1.07880795257 - 0.373930645434 * i, 1.0}},
        {4,
         0.6,
         {0.625, 0.710596023715, 0.625, 0.644701988143 + 0.0934826613584 * i, 0.625,
          0.644701988143 - 0.0934826613584 * i, 0.625}},
        {4, 1.0, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}},
    };
    for (const Row& r : rows) {
        auto ss = Make("ss" + std::to_string(r.N) + ", " + std::to_string(r.rho));
        const auto g = Gammas(*ss, r.N, r.rho);
        REQUIRE(g.size() == r.g.size());
        for (size_t k = 0; k < g.size(); ++k) {
            INFO("ss", r.N, " rho ", r.rho, " gamma_", k, " = ", g[k].real(), " + ", g[k].imag(),
                 "i");
            CHECK(std::abs(g[k] - r.g[k]) < 1e-11);
        }
    }
}

TEST_CASE("ssN and msN have the same characteristic roots") {
    // The eigenvalues of ssN's amplification matrix (single_step.hpp eq. (6)) against the roots
    // of msN's rho(zeta) - z sigma(zeta), on a grid of complex z = h lambda. The characteristic
    // polynomials are compared coefficient-wise (well conditioned; 1e-11 is round-off of the
    // expansion), the roots directly (at rho_inf = 1 the LMS roots -1 are double/triple, found
    // only to ~eps^(1/m): 1e-4 there, 1e-7 elsewhere for near-coincident pairs).
    for (int N : {2, 3, 4}) {
        for (double rho : {0.0, 0.6, 1.0}) {
            auto ss = Make("ss" + std::to_string(N) + ", " + std::to_string(rho));
            std::vector<double> a, b;
            LmsCoefficients(N, rho, a, b);
            for (double x : {-1e3, -30.0, -2.0, -0.3, -1e-3, 0.0}) {
                for (double y : {0.0, 0.5, 3.0, 40.0}) {
                    const Complex z(x, y);
                    INFO("ss", N, " rho ", rho, " z = ", x, " + ", y, "i");
                    const Eigen::MatrixXcd A = AsFirstOrder(*ss).AmplificationMatrix(z, rho);
                    REQUIRE(A.rows() == N);
                    const Eigen::VectorXcd mu = A.eigenvalues();
                    const auto lms = LmsCharacteristic(a, b, z);
                    const auto sspoly = FromRoots(mu);
                    double scale = 1.0, diff = 0.0;
                    for (size_t k = 0; k < lms.size(); ++k) {
                        scale = std::max(scale, std::abs(lms[k]));
                        diff = std::max(diff, std::abs(lms[k] - sspoly[k]));
                    }
                    CHECK(diff < 1e-11 * scale);
                    CHECK(RootDistance(Roots(lms), mu) < (rho == 1.0 ? 1e-4 : 1e-7));
                }
            }
        }
    }
}

TEST_CASE("ssN: the auxiliary modes of the real implementation do not reach the state") {
    // The step as implemented is real-linear over (y, Re h W_p, Im h W_p), 2N - 1 numbers
    // (RealAmplificationMatrix). Its N - 1 extra eigenvalues are auxiliary filter modes (the
    // spectral radius at h lambda -> -inf computed numerically at rho_inf = 0, aux_rinf0
    // below, is theirs: 1/3, 0.316, 0.335). They do not reach y: (a) the output row e_y^T of
    // chi(M), chi = msN's monic characteristic polynomial, is zero, so y_k satisfies msN's
    // recurrence from any initial data, auxiliary variables included; (b) every eigenvector of an
    // eigenvalue that is not an msN root has a zero y component (rho_inf < 1; at rho_inf = 1 the
    // auxiliary modes sit at -1 among msN's own roots at -1 and the trapezoidal root near -1, an
    // ill-conditioned cluster: (a) only).
    const double aux_rinf0[5] = {0, 0, 1.0 / 3.0, 0.316228, 0.334694};
    for (int N : {2, 3, 4}) {
        for (double rho : {0.0, 0.6, 1.0}) {
            auto ss = Make("ss" + std::to_string(N) + ", " + std::to_string(rho));
            std::vector<double> a, b;
            LmsCoefficients(N, rho, a, b);
            for (double z : {-1e4, -10.0, -1.0, -0.1, -1e-3}) {
                INFO("ss", N, " rho ", rho, " z = ", z);
                const Eigen::MatrixXd M = RealAmplification(*ss, N, z, rho);
                REQUIRE(M.rows() == 2 * N - 1);
                const auto chi = LmsCharacteristic(a, b, z);
                // (a) Horner on the matrix, first row only.
                Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(M.cols());
                for (const Complex& c : chi)
                    row = row * M + c.real() * Eigen::RowVectorXd::Unit(M.cols(), 0);
                CHECK(row.norm() < 1e-11 * (1.0 + M.norm()) * (1.0 + std::abs(chi.back())));
                // (b) Eigenvectors of the extra eigenvalues.
                Eigen::EigenSolver<Eigen::MatrixXd> es(M);
                const Eigen::VectorXcd lms_roots = Roots(chi);
                int extra = 0;
                double largest_extra = 0.0;
                for (int k = 0; k < M.rows(); ++k) {
                    const Complex mu = es.eigenvalues()[k];
                    double d = 1e300;
                    for (Eigen::Index j = 0; j < lms_roots.size(); ++j)
                        d = std::min(d, std::abs(mu - lms_roots[j]));
                    if (d < 1e-6 || rho == 1.0) continue;
                    ++extra;
                    largest_extra = std::max(largest_extra, std::abs(mu));
                    const Eigen::VectorXcd v = es.eigenvectors().col(k);
                    CHECK(std::abs(v[0]) < 1e-10 * v.norm());
                }
                if (rho < 1.0) CHECK(extra == N - 1);
                if (rho == 0.0 && z == -1e4) {
                    MESSAGE("ss" << N << " rho 0: largest auxiliary eigenvalue " << largest_extra);
                    CHECK(largest_extra == doctest::Approx(aux_rinf0[N]).epsilon(1e-5));
                }
            }
        }
    }
}

TEST_CASE("ssN: spectral radius rho_inf at h lambda -> -inf and 1 at 0") {
    // As z -> -inf the characteristic polynomial tends to sigma(zeta) / b0 = (zeta + rho)^N
    // (an N-fold root at -rho, so eigenvalues at finite z are perturbed by |z|^(-1/N)): the
    // polynomial is checked at z = -1e12 to 1e-9, the spectral radius at -1e12 to 1e-2.
    for (int N : {2, 3, 4}) {
        for (double rho : {0.0, 0.6, 1.0}) {
            INFO("ss", N, " rho ", rho);
            auto ss = Make("ss" + std::to_string(N) + ", " + std::to_string(rho));
            const FirstOrderIntegrator& fo = AsFirstOrder(*ss);
            CHECK(fo.tunable());
            CHECK(fo.implicit_stages() == 1);
            CHECK(ss->order() == 2);
            const Eigen::VectorXcd mu = fo.AmplificationMatrix(-1e12, rho).eigenvalues();
            const auto p = FromRoots(mu);
            double binom = 1.0;
            for (int k = 0; k <= N; ++k) {
                CHECK(std::abs(p[k] - binom * std::pow(rho, k)) < 1e-9);
                binom = binom * (N - k) / (k + 1);
            }
            CHECK(mu.cwiseAbs().maxCoeff() == doctest::Approx(rho).epsilon(1e-2));
            const double r0 =
                fo.AmplificationMatrix(-1e-10, rho).eigenvalues().cwiseAbs().maxCoeff();
            CHECK(r0 == doctest::Approx(1.0).epsilon(1e-8));
        }
    }
}

TEST_CASE("ssN: order 2 on the linear oscillator") {
    // x'' + (2 pi)^2 x = 0 over one period, 20..160 steps; asymptotic range (the error ratio
    // is steady to 1e-2 from 40 steps on). Declared order +-0.2 (STYLE.md §8).
    const double w = 2.0 * M_PI;
    const Eigen::Vector2d y0(1.0, 0.3);
    const Eigen::Vector2d exact = OscillatorExact(w, y0, 1.0);
    for (int N : {2, 3, 4}) {
        for (double rho : {0.0, 0.6, 1.0}) {
            const std::string text = "ss" + std::to_string(N) + ", " + std::to_string(rho);
            std::vector<double> err;
            for (int n : {20, 40, 80, 160}) {
                auto ss = Make(text);
                err.push_back((IntegrateOscillator(*ss, w, y0, 1.0, n) - exact).norm());
            }
            const auto p = Orders(err);
            INFO(text, " errors ", Join(err), " orders ", Join(p));
            CHECK(std::abs(p[p.size() - 1] - 2.0) <= 0.2);
            CHECK(std::abs(p[p.size() - 2] - 2.0) <= 0.2);
        }
    }
}

TEST_CASE("ssN's solution satisfies msN's formula on a linear problem, step by step") {
    // Eliminating the auxiliary variables from SingleStep eqs. (1)-(2) gives msN's eq. (2)
    // exactly, so from point N on y_k - sum a_j y_{k-j} - h sum b_j y'_{k-j} = 0 to round-off
    // (Newton converges in one iteration on a linear problem to 1e-13). A damped oscillator
    // with two frequencies (4 dofs) exercises both real and complex modes.
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(4, 4);
    A(0, 2) = A(1, 3) = 1.0;
    A(2, 0) = -40.0, A(2, 1) = 10.0, A(3, 0) = 10.0, A(3, 1) = -900.0;
    A(2, 2) = -0.5, A(3, 3) = -2.0;
    const double h = 0.01;
    for (int N : {2, 3, 4}) {
        for (double rho : {0.0, 0.6, 1.0}) {
            const std::string text = "ss" + std::to_string(N) + ", " + std::to_string(rho);
            INFO(text);
            std::vector<double> a, b;
            LmsCoefficients(N, rho, a, b);
            auto ss = Make(text);
            LinearFormulation f(A);
            SolverSettings s;
            s.residual_tolerance = 1e-13;
            ss->Attach(f, s);
            LinearProblem& p = f.problem();
            p.y() << 1.0, -0.5, 0.2, 3.0;
            p.SolveInitialDerivatives(s, h);
            ss->Start(0.0, h);
            std::vector<Eigen::VectorXd> ys{p.y()}, yps{p.yp()};
            double worst = 0.0, scale = 0.0;
            for (int k = 1; k <= 200; ++k) {
                REQUIRE(ss->Advance((k - 1) * h, h).converged);
                ys.push_back(p.y());
                yps.push_back(p.yp());
                scale = std::max(scale, p.y().norm());
                if (k < N) continue;
                Eigen::VectorXd res = ys[k] - h * b[0] * yps[k];
                for (int j = 1; j <= N; ++j) res -= a[j - 1] * ys[k - j] + h * b[j] * yps[k - j];
                worst = std::max(worst, res.norm());
            }
            INFO("largest msN residual ", worst, " (solution scale ", scale, ")");
            CHECK(worst < 1e-11 * scale);
        }
    }
}

TEST_CASE("ssN: a failed step leaves the integrator at the last solved point") {
    // A step is made to fail (no Newton iteration allowed), then the run continues: the result
    // is bit-identical to an uninterrupted run (W's, history and state restored).
    const double w = 2.0 * M_PI, h = 0.01;
    for (std::string text : {"ss2, 0.6", "ss3, 0", "ss4, 0.6"}) {
        INFO(text);
        auto run = [&](bool inject) {
            auto ss = Make(text);
            LinearFormulation f(OscillatorMatrix(w));
            SolverSettings good;
            good.residual_tolerance = 1e-12;
            SolverSettings bad = good;
            bad.max_iterations = 0;
            ss->Attach(f, good);
            LinearProblem& p = f.problem();
            p.y() << 1.0, 0.3;
            p.SolveInitialDerivatives(good, h);
            ss->Start(0.0, h);
            for (int k = 0; k < 50; ++k) {
                if (inject && (k == 0 || k == 7)) {
                    ss->Attach(f, bad);
                    CHECK_FALSE(ss->Advance(k * h, h).converged);
                    ss->Attach(f, good);
                }
                REQUIRE(ss->Advance(k * h, h).converged);
            }
            return Eigen::Vector2d(p.y());
        };
        const Eigen::Vector2d clean = run(false), retried = run(true);
        CHECK(clean[0] == retried[0]);
        CHECK(clean[1] == retried[1]);
    }
}

TEST_CASE("ss2/ss3/ss4: rho_inf outside [0, 1] is rejected with the range") {
    CHECK_THROWS_WITH_AS(Make("ss2, 1.5"), doctest::Contains("[0, 1]"), DeckError);
    CHECK_THROWS_WITH_AS(Make("ss3, -0.1"), doctest::Contains("[0, 1]"), DeckError);
    CHECK_THROWS_WITH_AS(Make("ss4, 0.5, 2"), doctest::Contains("[0, 1]"), DeckError);
    CHECK_NOTHROW(Make("ss4"));
}

TEST_CASE("heavy top: ssN and msN trajectories agree (same rho_inf 0.6)") {
    // The CoM trajectory (node 1 sits at the CoM) of ssN against msN, largest difference over
    // all steps. SSN's auxiliary angular velocities (g'^p ~ w^p, single_step.hpp) and its
    // self-start (W = y'_0) against msN's trapezoidal start make them differ by O(h^2).
    auto trajectory = [](const std::string& m, double h, double tf, RunSummary* summary) {
        std::vector<Vec3> x;
        RunResult r = RunDeck(kHeavyTop, m, h, tf, [&](double, const Formulation& f) {
            x.push_back(f.node_states()[0].x);
        });
        if (summary) *summary = r.summary;
        return x;
    };
    for (int N : {2, 3, 4}) {
        for (double h : {1e-3, 1e-4}) {
            RunSummary sss, sms;
            const auto xs = trajectory("ss" + std::to_string(N) + ", 0.6", h, 1.0, &sss);
            const auto xm = trajectory("ms" + std::to_string(N) + ", 0.6", h, 1.0, &sms);
            REQUIRE(xs.size() == xm.size());
            double d = 0.0;
            for (size_t k = 0; k < xs.size(); ++k) d = std::max(d, (xs[k] - xm[k]).norm());
            MESSAGE("heavy top h = " << h << ": max |x_ss" << N << " - x_ms" << N << "| = " << d
                                     << " m; Newton iterations per step ss" << N << " "
                                     << double(sss.iterations) / sss.steps << ", ms" << N << " "
                                     << double(sms.iterations) / sms.steps);
            // The bound at h = 1e-4 (paper: "very close").
            if (h == 1e-4) CHECK(d < 1e-5);
        }
    }
}

TEST_CASE("heavy top runs to t = 1 at h = 1e-3 with every SS method and rho_inf") {
    for (std::string m : {"ss2", "ss3", "ss4"}) {
        for (double rho : {0.0, 0.6, 1.0}) {
            const std::string text = m + ", " + std::to_string(rho);
            INFO(text);
            RunResult r;
            CHECK_NOTHROW(r = RunDeck(kHeavyTop, text, 1e-3, 1.0));
            CHECK(r.summary.completed);
            CHECK(r.summary.steps == 1000);
            CHECK(r.summary.failed_steps == 0);
            MESSAGE(text << ": Newton iterations per step "
                         << double(r.summary.iterations) / r.summary.steps);
        }
    }
}
