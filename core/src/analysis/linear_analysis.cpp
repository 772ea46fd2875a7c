// mbstep — linear analysis (equations in mbstep/analysis/linear_analysis.hpp).
#include "mbstep/analysis/linear_analysis.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

#include "mbstep/common.hpp"
#include "mbstep/formulation/formulation.hpp"
#include "mbstep/formulation/second_order.hpp"
#include "mbstep/integrator/butcher_tableau.hpp"
#include "mbstep/integrator/first_order.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

namespace mbstep::analysis {

namespace {

constexpr double kPi = 3.14159265358979323846;

Eigen::MatrixXcd Amplification(const FirstOrderIntegrator& m, std::complex<double> z, double rho) {
    Eigen::MatrixXcd A = m.AmplificationMatrix(z, rho);
    if (A.size() == 0)
        throw RunError("integrator '" + m.name() +
                       "' provides no amplification matrix (linear analysis)");
    return A;
}

std::vector<std::complex<double>> Eigenvalues(const Eigen::MatrixXcd& A) {
    if (A.rows() == 1 || !A.allFinite()) return {A(0, 0)};
    Eigen::ComplexEigenSolver<Eigen::MatrixXcd> es(A, false);
    const Eigen::VectorXcd ev = es.eigenvalues();
    return {ev.data(), ev.data() + ev.size()};
}

double MaxModulus(const std::vector<std::complex<double>>& v) {
    double r = 0.0;
    for (const auto& x : v) r = std::max(r, std::abs(x));
    return r;
}

// The one-dof model of (8): x'' + w^2 x = 0 as M a + f = 0 with M = 1, f = w^2 x, no
// constraint, no structural node; InitialConditions hands out the state set by Reset.
class OscillatorModel final : public Formulation, public SecondOrderProblem {
  public:
    explicit OscillatorModel(double w2) : w2_(w2) {
        q_.setZero(1);
        v_.setZero(1);
        a_.setZero(1);
        Eigen::SparseMatrix<double> one(1, 1);
        one.insert(0, 0) = 1.0;
        jac_.M = one;
        jac_.K = w2_ * one;
        jac_.Kq_inertia.resize(1, 1);
        jac_.C.resize(1, 1);
        jac_.L.resize(1, 0);
        jac_.B.resize(0, 1);
    }
    void Reset(double x, double v, double a) {
        q_[0] = x;
        v_[0] = v;
        a_[0] = a;
        t_ = 0.0;
    }
    double velocity() const { return v_[0]; }

    // Formulation.
    std::string name() const override { return "linear oscillator"; }
    ProblemInterface interface() const override { return ProblemInterface::kSecondOrderDae; }
    SecondOrderProblem* second_order() override { return this; }
    const Model& model() const override { return model_; }
    const std::vector<FrameState>& node_states() const override { return states_; }
    const double* multipliers(int /*element*/) const override { return nullptr; }
    double time() const override { return t_; }
    Invariants ComputeInvariants() const override { return {}; }
    void set_threads(int /*n*/) override {}

    // SecondOrderProblem.
    int num_velocities() const override { return 1; }
    int num_constraints() const override { return 0; }
    bool vector_space() const override { return true; }
    const Eigen::VectorXd& q() const override { return q_; }
    void set_q(const Eigen::VectorXd& q) override { q_ = q; }
    void Retract(const Eigen::VectorXd& q0, const Eigen::VectorXd& dq,
                 Eigen::VectorXd& q1) const override {
        q1 = q0 + dq;
    }
    void TangentOperator(const Eigen::VectorXd& /*dq*/,
                         Eigen::SparseMatrix<double>& T) const override {
        T = jac_.M;
    }
    void SetTime(double t) override { t_ = t; }
    void Evaluate(const Eigen::VectorXd& /*v*/, const Eigen::VectorXd& a,
                  const Eigen::VectorXd& /*lambda*/, Eigen::VectorXd& Ma, Eigen::VectorXd& f,
                  Eigen::VectorXd& phi) override {
        Ma = a;
        f = w2_ * q_;
        phi.resize(0);
    }
    void Evaluate(const Eigen::VectorXd& /*v*/, const Eigen::VectorXd& /*a*/,
                  const Eigen::VectorXd& /*lambda*/, Jacobians& J) override {
        J = jac_;
    }
    void InitialConditions(Eigen::VectorXd& v, Eigen::VectorXd& a,
                           Eigen::VectorXd& lambda) override {
        v = v_;
        a = a_;
        lambda.resize(0);
    }
    void AfterConvergence(const Eigen::VectorXd& v, const Eigen::VectorXd& /*lambda*/) override {
        v_ = v;
    }
    std::string DescribeEquation(int /*row*/) const override { return "oscillator, x'' + w^2 x"; }

  private:
    double w2_;
    double t_{0.0};
    Eigen::VectorXd q_, v_, a_;
    Jacobians jac_;
    Model model_;
    std::vector<FrameState> states_;
};

}  // namespace

std::complex<double> StabilityFunction(const ButcherTableau& t, std::complex<double> z) {
    // (9): R(z) = 1 + z b^T k with (I - z A) k = 1.
    const int s = t.stages();
    Eigen::MatrixXcd M = Eigen::MatrixXcd::Identity(s, s);
    for (int i = 0; i < s; ++i)
        for (int j = 0; j < s; ++j) M(i, j) -= z * t.a[i][j];
    const Eigen::VectorXcd k = M.partialPivLu().solve(Eigen::VectorXcd::Ones(s));
    std::complex<double> r = 1.0;
    for (int i = 0; i < s; ++i) r += z * t.b[i] * k[i];
    return r;
}

namespace {

// (8): outputs Y[j] (2 x p) after step j + 1 from p unit initial states, and the same from
// mixed ones, times Q^-1 (equal in exact arithmetic, so their difference measures the
// round-off of the steps, which sets the numerical rank: it grows with Omega and differs
// between methods, e.g. HHT forms x_(n+1) from terms ~Omega^2 |x| that cancel).
using Outputs = std::vector<Eigen::MatrixXd>;
constexpr int kBlocks = 3;  // Hankel block rows/columns m: state dimension up to 2 m
constexpr int kSteps = 2 * kBlocks;

Eigen::MatrixXd MixingMatrix(int p) {
    Eigen::Matrix3d Q;
    Q << 1.0, 0.5, 0.25, -0.3, 1.0, 0.4, 0.2, -0.6, 1.0;
    return Q.topLeftCorner(p, p);
}

Eigen::MatrixXd Realize(const Outputs& Y, Outputs Ymix, const Eigen::MatrixXd& Q) {
    const int p = static_cast<int>(Q.rows());
    const Eigen::MatrixXd Qinv = Q.inverse();
    for (auto& y : Ymix) y = (y * Qinv).eval();
    auto hankel = [&](const Outputs& O, int shift) {
        Eigen::MatrixXd H(2 * kBlocks, p * kBlocks);
        for (int i = 0; i < kBlocks; ++i)
            for (int j = 0; j < kBlocks; ++j) H.block(2 * i, p * j, 2, p) = O[i + j + shift];
        return H;
    };
    const Eigen::MatrixXd H0 = hankel(Y, 0), H1 = hankel(Y, 1);
    const double noise = (H0 - hankel(Ymix, 0)).norm();
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(H0, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::VectorXd& sv = svd.singularValues();
    // Modes whose singular value is not well above the noise are left out, and their roots
    // with them (e.g. HHT's spurious root, ~-alpha, at Omega >~ 1e6, where the noise reaches
    // it); the principal roots' singular values are the largest.
    const double floor = std::max(100.0 * noise, 1e-14 * sv[0]);
    int r = 0;
    while (r < sv.size() && sv[r] > floor) ++r;
    if (r == 0) return Eigen::MatrixXd::Zero(1, 1);  // every output vanishes after one step
    const Eigen::VectorXd is = sv.head(r).cwiseSqrt().cwiseInverse();
    return is.asDiagonal() * svd.matrixU().leftCols(r).transpose() * H1 *
           svd.matrixV().leftCols(r) * is.asDiagonal();
}

// Newton settings of the identification runs: the equations are linear in the states the
// outputs see, so every step does its iterations without a test (the first solves the linear
// step exactly).
SolverSettings IdentificationSettings(int iterations, double tolerance = 0.0) {
    SolverSettings s;
    s.residual_tolerance = tolerance;
    s.max_iterations = iterations;
    s.max_iterations_at_most = true;
    s.linear_solver = "naive";
    return s;
}

void RequireStep(const Integrator& m, const StepStats& st, const std::string& what) {
    if (!st.converged || !st.accepted)
        throw RunError("linear analysis of '" + m.name() + "': a step of " + what +
                       " failed: " + st.failure);
}

}  // namespace

Eigen::MatrixXd SecondOrderAmplification(Integrator& m, double omega) {
    // (8) with h = 1, w = omega: outputs (x, v / w) so that both are O(1).
    OscillatorModel model(omega * omega);
    m.Attach(model, IdentificationSettings(2));
    // Y[j] (2 x 3): outputs after step j + 1 from the initial states (x, v / w, a / w^2) given
    // by the columns of B.
    auto collect = [&](const Eigen::MatrixXd& B) {
        Outputs Y(kSteps, Eigen::MatrixXd(2, 3));
        for (int k = 0; k < 3; ++k) {
            model.Reset(B(0, k), B(1, k) * omega, B(2, k) * omega * omega);
            m.Start(0.0, 1.0);
            for (int j = 0; j < kSteps; ++j) {
                RequireStep(m, m.Advance(j, 1.0), "the linear oscillator");
                Y[j](0, k) = model.q()[0];
                Y[j](1, k) = model.velocity() / omega;
            }
        }
        return Y;
    };
    const Eigen::MatrixXd Q = MixingMatrix(3);
    return Realize(collect(Eigen::Matrix3d::Identity()), collect(Q), Q);
}

namespace {
struct StepFailed : RunError {
    using RunError::RunError;
};
}  // namespace

Eigen::MatrixXd SecondOrderAmplificationOnNodes(const std::string& method,
                                                const std::string& formulation,
                                                const Registry& registry, double omega) {
    // (8'): two unit masses on structural nodes, 1 m apart on the x axis, joined by a rod of
    // stiffness omega^2 / 2 (unstretched at 1 m), moved antisymmetrically along x: the
    // stretch r = x2 - x1 - 1 obeys r'' + omega^2 r = 0 exactly (the rod stays on the x axis,
    // the nodes do not rotate, the centre of mass stays put). Outputs (r, r' / w); inputs the
    // initial stretch and stretch rate (the formulation derives the accelerations from them, so
    // two inputs instead of three; the recurrence reaches its other modes from step 1 on).
    auto run = [&](double r0, double rate0, Eigen::MatrixXd& Y, int k) {
        std::ostringstream deck;
        deck << std::setprecision(17)
             << "begin: data; problem: initial value; end: data;\n"
                "begin: initial value; initial time: 0.; final time: "
             << kSteps
             << ".; time step: 1.;\n"
                "    method: "
             << method
             << ";\n    tolerance: 0.; max iterations: 8, at most;\n"
                "end: initial value;\n"
                "begin: control data; skip initial joint assembly;\n"
                "    structural nodes: 2; rigid bodies: 2; joints: 1;\n"
                "end: control data;\n"
                "begin: nodes;\n"
                "    structural: 1, dynamic, "
             << -0.5 - 0.5 * r0 << ", 0., 0., eye, " << -0.5 * rate0 * omega
             << ", 0., 0., null;\n    structural: 2, dynamic, " << 0.5 + 0.5 * r0
             << ", 0., 0., eye, " << 0.5 * rate0 * omega
             << ", 0., 0., null;\n"
                "end: nodes;\n"
                "begin: elements;\n"
                "    body: 1, 1, 1., null, diag, 1., 1., 1.;\n"
                "    body: 2, 2, 1., null, diag, 1., 1., 1.;\n"
                "    joint: 3, rod, 1, 2, 1., linear elastic, "
             << 0.5 * omega * omega
             << ";\n"
                "end: elements;\n";
        Deck d = ReadDeckText(deck.str(), "<linear analysis model>", registry);
        d.settings.formulation = formulation;
        RunOptions options;
        options.write_output = false;
        options.progress = false;
        int j = 0;
        bool started = false;
        options.on_step = [&](double t, const Formulation& f) {
            started = true;
            if (t == 0.0 || j >= kSteps) return;
            const auto& x = f.node_states();
            Y(2 * j, k) = x[1].x[0] - x[0].x[0] - 1.0;
            Y(2 * j + 1, k) = (x[1].v[0] - x[0].v[0]) / omega;
            ++j;
        };
        try {
            Run(d, options, registry);
        } catch (const RunError& e) {
            if (!started) throw;  // the method or formulation refuses the model: say why
            throw StepFailed(e.what());
        }
        if (j != kSteps) throw RunError("linear analysis: the two-body run stopped early");
    };
    auto collect = [&](const Eigen::MatrixXd& B, double a) {
        Eigen::MatrixXd all(2 * kSteps, 2);
        for (int k = 0; k < 2; ++k) run(a * B(0, k), a * B(1, k), all, k);
        Outputs Y(kSteps);
        for (int j = 0; j < kSteps; ++j) Y[j] = all.middleRows(2 * j, 2) / a;
        return Y;
    };
    // Initial amplitudes a (stretch a, rate a w): the rod is linear while |stretch| < 1; a
    // response that grows beyond 0.4 (an unstable method, or a large transient near a
    // stability limit) is redone with a smaller a (the outputs scale with a; the round-off
    // relative to them grows as a shrinks). A step the method cannot solve (its Newton
    // iteration fails at this Omega), or a growth that needs a < 1e-9, leaves A(Omega)
    // unidentified: NaN.
    const Eigen::MatrixXd Q = MixingMatrix(2);
    try {
        for (double a = 0.1; a >= 1e-9;) {
            const Outputs Y = collect(Eigen::Matrix2d::Identity(), a), Ymix = collect(Q, a);
            double largest = 0.0;
            for (const Outputs* o : {&Y, &Ymix})
                for (const Eigen::MatrixXd& y : *o)
                    largest = std::max(largest, a * y.row(0).cwiseAbs().maxCoeff());
            if (!std::isfinite(largest)) break;
            if (largest < 0.4) return Realize(Y, Ymix, Q);
            a *= 0.1 / largest;
        }
        return Eigen::MatrixXd::Constant(1, 1, std::numeric_limits<double>::quiet_NaN());
    } catch (const StepFailed&) {
        return Eigen::MatrixXd::Constant(1, 1, std::numeric_limits<double>::quiet_NaN());
    }
}

std::vector<double> LogGrid(const Grid& g) {
    if (!(g.min > 0.0) || !(g.max > g.min) || g.points < 2) {
        std::ostringstream os;
        os << "linear analysis grid: need 0 < min < max and points >= 2, got min = " << g.min
           << ", max = " << g.max << ", points = " << g.points;
        throw RunError(os.str());
    }
    std::vector<double> x(g.points);
    const double l0 = std::log(g.min), l1 = std::log(g.max);
    for (int i = 0; i < g.points; ++i) x[i] = std::exp(l0 + (l1 - l0) * i / (g.points - 1));
    x.front() = g.min;
    x.back() = g.max;
    return x;
}

std::vector<std::complex<double>> CharacteristicRoots(const FirstOrderIntegrator& m,
                                                      std::complex<double> z, double rho) {
    return Eigenvalues(Amplification(m, z, rho));
}

double SpectralRadius(const FirstOrderIntegrator& m, std::complex<double> z, double rho) {
    return MaxModulus(CharacteristicRoots(m, z, rho));
}

Eigen::MatrixXcd LimitAmplificationMatrix(const FirstOrderIntegrator& m, double rho) {
    // (7): A(z) = A_inf + B w + C w^2 + D w^3 + O(w^4), w = 1/z, for |z| beyond the poles.
    // Truncation falls like |pole / Z|^4 while the round-off of a method's A(z) grows with
    // |z| (e.g. eps |z| for R(z) from (I - z A)^-1), so the extrapolation is done on a ladder
    // of Z and the two neighbours that agree best are kept (their mean).
    auto extrapolate = [&](double Z) {
        // Lagrange weights of the nodes w, w/2, w/4, w/8 at w = 0: -1/21, 2/3, -8/3, 64/21.
        return Eigen::MatrixXcd(
            (64.0 * Amplification(m, -8.0 * Z, rho) - 56.0 * Amplification(m, -4.0 * Z, rho) +
             14.0 * Amplification(m, -2.0 * Z, rho) - Amplification(m, -Z, rho)) /
            21.0);
    };
    Eigen::MatrixXcd prev = extrapolate(1e2), best;
    double best_diff = std::numeric_limits<double>::infinity();
    for (double Z = std::sqrt(10.0) * 1e2; Z <= 1.01e6; Z *= std::sqrt(10.0)) {
        const Eigen::MatrixXcd next = extrapolate(Z);
        const double diff = (next - prev).cwiseAbs().maxCoeff();
        if (diff < best_diff) {
            best_diff = diff;
            best = 0.5 * (next + prev);
        }
        prev = next;
    }
    return best;
}

std::vector<std::complex<double>> ClusterMeans(const std::vector<std::complex<double>>& roots,
                                               double radius) {
    // Single-linkage clusters (union-find over pairs closer than radius).
    const size_t n = roots.size();
    std::vector<size_t> parent(n);
    for (size_t i = 0; i < n; ++i) parent[i] = i;
    auto find = [&](size_t i) {
        while (parent[i] != i) i = parent[i] = parent[parent[i]];
        return i;
    };
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j)
            if (std::abs(roots[i] - roots[j]) < radius) parent[find(i)] = find(j);
    std::vector<std::complex<double>> out(n);
    for (size_t i = 0; i < n; ++i) {
        std::complex<double> sum = 0.0;
        int count = 0;
        for (size_t j = 0; j < n; ++j)
            if (find(j) == find(i)) {
                sum += roots[j];
                ++count;
            }
        out[i] = sum / double(count);
    }
    return out;
}

double SpectralRadiusAtInfinity(const FirstOrderIntegrator& m, double rho) {
    const Eigen::MatrixXcd A = LimitAmplificationMatrix(m, rho);
    // A perturbation ~1e-15 of A_inf spreads a root of multiplicity m <= 5 over <~1e-3.
    const auto roots = Eigenvalues(A);
    return MaxModulus(ClusterMeans(roots, 1e-2));
}

OscillatorCurve AnalyzeOscillator(const FirstOrderIntegrator& m, double rho,
                                  const std::vector<double>& grid) {
    OscillatorCurve c;
    c.method = m.name();
    c.rho = rho;
    c.tunable = m.tunable();
    c.stages = m.implicit_stages();
    return AnalyzeOscillator([&](std::complex<double> z) { return Amplification(m, z, rho); }, c,
                             grid);
}

OscillatorCurve AnalyzeOscillator(const AmplificationFunction& A, OscillatorCurve c,
                                  const std::vector<double>& grid) {
    c.points.clear();
    if (grid.empty()) return c;
    const auto roots_at = [&](std::complex<double> z) { return Eigenvalues(A(z)); };
    const std::string name = c.method;
    const double n = c.stages;
    auto z_at = [&](double s) { return std::complex<double>(0.0, 2.0 * kPi * n * std::exp(s)); };

    // Start (4): at a tiny z the principal root is the one nearest exp(z), well apart from the
    // others for a zero-stable method.
    double s = std::log(std::min(grid.front() * 0.5, 1e-6));
    std::complex<double> mu;
    {
        const std::complex<double> z = z_at(s);
        const auto roots = roots_at(z);
        std::vector<double> d;
        for (const auto& r : roots) d.push_back(std::abs(r - std::exp(z)));
        const size_t k = std::min_element(d.begin(), d.end()) - d.begin();
        std::sort(d.begin(), d.end());
        if (d.size() > 1 && !(d[0] < 1e-3 * d[1]))
            throw RunError("integrator '" + name +
                           "': no isolated principal root near 1 at h lambda -> 0");
        mu = roots[k];
    }
    double phase = std::arg(mu);
    std::complex<double> dmu_ds = z_at(s) * mu;  // d exp(z)/ds = z exp(z), since z ~ e^s
    double ds_try = (grid.size() > 1) ? std::log(grid[1] / grid[0]) : 0.1;

    bool lost = false;  // an unidentified matrix (NaN) ends the curve: NaN from there on
    for (double x : grid) {
        const double s_target = std::log(x);
        // Adaptive continuation from s to s_target (4).
        while (!lost && s < s_target) {
            double ds = std::min(ds_try, s_target - s);
            for (;;) {
                const double s_new = (s_target - s - ds < 1e-14) ? s_target : s + ds;
                const std::complex<double> pred = mu + dmu_ds * (s_new - s);
                const auto roots = roots_at(z_at(s_new));
                if (!std::isfinite(std::abs(roots[0]))) {
                    lost = true;
                    break;
                }
                double d1 = std::numeric_limits<double>::infinity(), d2 = d1;
                size_t k = 0;
                for (size_t j = 0; j < roots.size(); ++j) {
                    const double d = std::abs(roots[j] - pred);
                    if (d < d1) {
                        d2 = d1;
                        d1 = d;
                        k = j;
                    } else if (d < d2) {
                        d2 = d;
                    }
                }
                const std::complex<double> mu_new = roots[k];
                const double turn =
                    (std::abs(mu) > 0.0 && std::abs(mu_new) > 0.0) ? std::arg(mu_new / mu) : 0.0;
                const bool clear = d1 <= 0.3 * d2 && std::abs(turn) < 0.5;
                if (clear || ds < 1e-12) {
                    dmu_ds = (mu_new - mu) / (s_new - s);
                    phase += turn;
                    mu = mu_new;
                    s = s_new;
                    ds_try = std::min(2.0 * ds, 0.1);
                    break;
                }
                ds *= 0.5;
            }
        }
        // Quantities (3), (5), (6) at x.
        OscillatorPoint p;
        p.h_over_nT = x;
        if (lost) {
            constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
            p.principal_root = {kNaN, kNaN};
            p.phase = p.spectral_radius = p.ad_percent = p.pe_percent = kNaN;
            c.points.push_back(p);
            continue;
        }
        p.principal_root = mu;
        p.phase = phase;
        p.spectral_radius = MaxModulus(roots_at(z_at(s_target)));
        const double wh = std::abs(z_at(s_target));
        const double log_mod = std::log(std::abs(mu));
        const double wbar_h = std::hypot(log_mod, phase);
        if (std::isfinite(log_mod) && wbar_h > 0.0) {
            p.ad_percent = -100.0 * log_mod / wbar_h;
            p.pe_percent = 100.0 * (wh / wbar_h - 1.0);
        } else {
            p.ad_percent = 100.0;
            p.pe_percent = std::numeric_limits<double>::quiet_NaN();
        }
        c.points.push_back(p);
    }
    return c;
}

const char* CsvHeader() {
    return "method,rho_inf,stages,h_over_T,Omega,spectral_radius,AD_percent,PE_percent\n";
}

void WriteCsvRows(std::ostream& os, const OscillatorCurve& c) {
    std::string method = c.method;
    if (method.find_first_of(",\"") != std::string::npos) {
        method = "\"";
        for (char ch : c.method) method += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        method += '"';
    }
    const auto precision = os.precision(17);
    for (const auto& p : c.points)
        os << method << ',' << c.rho_text << ',' << c.stages << ',' << p.h_over_nT << ','
           << 2.0 * kPi * c.stages * p.h_over_nT << ',' << p.spectral_radius << ',' << p.ad_percent
           << ',' << p.pe_percent << '\n';
    os.precision(precision);
}

void WriteCsv(std::ostream& os, const OscillatorCurve& c) {
    os << CsvHeader();
    WriteCsvRows(os, c);
}

double LogLogSlope(const std::vector<double>& x, const std::vector<double>& y, double x_lo,
                   double x_hi) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (x[i] < x_lo || x[i] > x_hi || !(std::abs(y[i]) > 0.0)) continue;
        const double lx = std::log(x[i]), ly = std::log(std::abs(y[i]));
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
        ++n;
    }
    if (n < 2) return std::numeric_limits<double>::quiet_NaN();
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace mbstep::analysis
