// Beams (elements/beams/beam.hpp) against closed-form solutions:
//   1. patch and objectivity: a rigidly moved beam carries no load; a deformed beam rotated
//      rigidly has its nodal forces rotated;
//   2. a cantilever under a tip moment 2 pi EI/L closes into a circle (static nodes, load
//      stepping): tip back at the root to the Newton tolerance, tip rotation 2 pi;
//   3. a cantilever under a dead tip force against the elastica (shooting, computed here);
//   4. bending frequencies of a cantilever with lumped masses against Euler-Bernoulli;
//   5. an undamped flexible pendulum: energy bounded with ms 1 / crank nicolson, dissipated
//      with rho_inf < 1;
//   6. the flexible pendulum under `cgr` and under `lie group` + generalized alpha converges
//      to one solution as h -> 0.
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"
#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

struct Cantilever {
    int elements{10};
    double L{1.0};
    double EA{1.0e6}, GA{1.0e6}, GJ{1.0}, EI{1.0};
    bool dynamic{false};          // false: `model: static`
    double mass_per_length{0.0};  // dynamic: lumped bodies as MBDyn's generators lump them
    std::string method{"ms, 0.6"};
    std::string formulation;
    double h{0.05}, tf{1.0};
    double tolerance{1e-10};
    std::string loads;  // element statements (label >= 100)
    int forces{0};
    std::string root_joint{"clamp"};
    bool gravity{false};
    double vy{0.0};  // initial transverse velocity vy * (x / L)^2 of the nodes
};

// Nodes 0..2n along x from 0 to L (node frames = global), beam3 elements k = 1..n on nodes
// 2k-2, 2k-1, 2k; node 0 held by `root_joint`.
std::string CantileverDeck(const Cantilever& c) {
    const int nn = 2 * c.elements + 1;
    std::ostringstream os;
    os << std::setprecision(17);
    os << "begin: data; problem: initial value; end: data;\n"
       << "begin: initial value; initial time: 0.; final time: " << c.tf << "; time step: " << c.h
       << "; method: " << c.method << "; tolerance: " << c.tolerance << "; max iterations: 40;\n";
    if (!c.formulation.empty()) os << "formulation: " << c.formulation << ";\n";
    os << "end: initial value;\n"
       << "begin: control data; structural nodes: " << nn << "; beams: " << c.elements
       << "; joints: 1;\n";
    if (c.forces) os << "forces: " << c.forces << ";\n";
    if (c.dynamic) os << "rigid bodies: " << nn << ";\n";
    if (c.gravity) os << "gravity;\n";
    if (!c.dynamic) os << "model: static;\n";
    os << "end: control data;\nbegin: nodes;\n";
    for (int i = 0; i < nn; ++i)
        os << "structural: " << i << ", " << (c.dynamic ? "dynamic" : "static") << ", "
           << c.L * i / (nn - 1) << ", 0., 0., eye, 0., "
           << c.vy * std::pow(double(i) / (nn - 1), 2) << ", 0., null;\n";
    os << "end: nodes;\nbegin: elements;\n";
    if (c.root_joint == "clamp")
        os << "joint: 1000, clamp, 0, node, node;\n";
    else
        os << "joint: 1000, " << c.root_joint << ", 0, position, null, position, null;\n";
    os << "constitutive law: 1, 6, linear elastic generic, diag, " << c.EA << ", " << c.GA << ", "
       << c.GA << ", " << c.GJ << ", " << c.EI << ", " << c.EI << ";\n";
    for (int k = 1; k <= c.elements; ++k)
        os << "beam3: " << k << ", " << 2 * k - 2 << ", null, " << 2 * k - 1 << ", null, " << 2 * k
           << ", null, eye, reference, 1, same, same;\n";
    if (c.dynamic) {
        const double dl = c.L / (nn - 1);
        for (int i = 0; i < nn; ++i) {
            const double m = c.mass_per_length * dl * ((i == 0 || i == nn - 1) ? 0.5 : 1.0);
            // a small rotary inertia keeps the node mass matrix regular
            const double J = m * dl * dl / 12.0 + 1e-12;
            os << "body: " << i << ", " << i << ", " << m << ", null, diag, " << J << ", " << J
               << ", " << J << ";\n";
        }
    }
    if (c.gravity) os << "gravity: uniform, 0., -1., 0., const, 9.81;\n";
    os << c.loads << "end: elements;\n";
    return os.str();
}

struct Result {
    std::vector<FrameState> states;
    std::vector<double> t, energy;
    RunSummary summary;
};

Result RunText(const std::string& text, std::function<void(double, const Formulation&)> cb = {}) {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeckText(text, "beam.mbd", reg);
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    Result r;
    opt.on_step = [&](double t, const Formulation& f) {
        r.states = f.node_states();
        r.t.push_back(t);
        const Invariants inv = f.ComputeInvariants();
        r.energy.push_back(inv.kinetic + inv.potential);
        if (cb) cb(t, f);
    };
    r.summary = Run(deck, opt, reg);
    return r;
}

// Elastica of a cantilever (inextensible, unshearable) under a dead tip force P along -y:
// theta'' = k cos(theta), theta(0) = 0, theta'(L) = 0, k = P/EI, x' = cos, y' = sin; shooting
// on theta'(0) with RK4 (2000 steps: error ~1e-13). Returns the tip (x, y).
Vec3 ElasticaTip(double k, double L) {
    auto integrate = [&](double c, double& theta_p_end) {
        const int n = 2000;
        const double ds = L / n;
        Eigen::Vector4d s(0.0, c, 0.0, 0.0);  // theta, theta', x, y
        auto rhs = [&](const Eigen::Vector4d& u) {
            return Eigen::Vector4d(u[1], k * std::cos(u[0]), std::cos(u[0]), std::sin(u[0]));
        };
        for (int i = 0; i < n; ++i) {
            const Eigen::Vector4d k1 = rhs(s), k2 = rhs(s + 0.5 * ds * k1),
                                  k3 = rhs(s + 0.5 * ds * k2), k4 = rhs(s + ds * k3);
            s += ds / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4);
        }
        theta_p_end = s[1];
        return Vec3(s[2], s[3], 0.0);
    };
    // theta'(0) = -k x_tip lies in (-k L, 0); the residual theta'(L) is monotonic there.
    double lo = -k * L, hi = 0.0, r;
    for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        integrate(mid, r);
        (r > 0.0 ? hi : lo) = mid;
    }
    // Rotation sign: theta decreases (the tip bends towards -y); y = -deflection.
    Vec3 tip = integrate(0.5 * (lo + hi), r);
    return tip;
}

}  // namespace

TEST_CASE("beam3: a tip moment 2 pi EI/L closes the cantilever into a circle") {
    Cantilever c;
    c.elements = 10;
    c.EA = c.GA = 1e4;  // the circle carries no force: moderate axial and shear stiffness keep
                        // the residual's round-off (~EA eps) below the 1e-10 tolerance
    const double M = 2.0 * M_PI * c.EI / c.L;
    std::ostringstream load;
    load << std::setprecision(17) << "couple: 100, absolute, " << 2 * c.elements
         << ", 0., 0., 1., linear, 0., " << M << ";\n";
    c.loads = load.str();
    c.forces = 1;
    c.h = 0.05;  // 20 load steps of 18 degrees of tip rotation
    c.tf = 1.0;
    Mat3 R_half = Mat3::Identity();
    const Result r = RunText(CantileverDeck(c), [&](double t, const Formulation& f) {
        if (std::abs(t - 0.5) < 1e-9) R_half = f.node_states()[2 * c.elements].R;
    });
    REQUIRE(r.summary.completed);
    const FrameState& tip = r.states[2 * c.elements];
    // Constant curvature is represented exactly: the tip returns to the root up to the Newton
    // tolerance (1e-10 on forces of order EI/L = 1) divided by the axial/shear stiffness.
    INFO("tip position ", tip.x.transpose());
    CHECK(tip.x.norm() <= 1e-8);
    // Tip rotation 2 pi: R = I at the end, a half turn about z at half load.
    CHECK((tip.R - Mat3::Identity()).cwiseAbs().maxCoeff() <= 1e-8);
    CHECK((R_half - RotZ(M_PI)).cwiseAbs().maxCoeff() <= 1e-8);
    // Every node lies on the circle of radius L / (2 pi) centred at (0, L / (2 pi)) only to the
    // discretization; the mid node (s = L/2) is at the top of the circle within 1e-3 L.
    const double rho = c.L / (2.0 * M_PI);
    CHECK((r.states[c.elements].x - Vec3(0.0, 2.0 * rho, 0.0)).norm() <= 1e-3 * c.L);
}

TEST_CASE("beam3: a cantilever under a dead tip force follows the elastica") {
    for (double load : {1.0, 3.0, 10.0}) {
        INFO("P L^2 / EI = ", load);
        std::vector<double> err;
        for (int n : {2, 4, 8}) {  // three-node elements
            Cantilever c;
            c.elements = n;
            c.EA = c.GA = 1e7;   // inextensible and unshearable to 1e-6
            c.tolerance = 1e-6;  // on forces of P = 1..10 N (round-off ~1e-7 at EA = 1e7)
            std::ostringstream f;
            f << std::setprecision(17) << "force: 100, absolute, " << 2 * n
              << ", position, null, 0., -1., 0., linear, 0., " << load * c.EI / (c.L * c.L)
              << ";\n";
            c.loads = f.str();
            c.forces = 1;
            c.h = 0.05;
            const Result r = RunText(CantileverDeck(c));
            REQUIRE(r.summary.completed);
            const Vec3 tip = r.states[2 * n].x;
            const Vec3 ref = ElasticaTip(load / (c.L * c.L), c.L);
            INFO("n = ", n, " tip ", tip.transpose(), " elastica ", ref.transpose());
            err.push_back((tip - ref).norm() / c.L);
        }
        INFO("errors with 2, 4, 8 elements ", err[0], " ", err[1], " ", err[2]);
        // Measured 6.3e-5 4.1e-6 2.0e-7 (P L^2/EI = 1), 7.2e-4 5.1e-5 3.1e-6 (3), 3.9e-3
        // 3.9e-4 2.5e-5 (10): the nodal tip position converges faster than second order
        // (ratios 10-20 per halving). Eight elements: within 5e-5 L; each halving gains 8.
        CHECK(err[2] <= 5e-5);
        CHECK(err[0] / err[1] >= 8.0);
        CHECK(err[1] / err[2] >= 8.0);
    }
}

namespace {

// A beam3 (and a beam2) with offsets and a section frame rotated about the beam axis,
// viscoelastic, read from deck text; nodes 1, 2, 3 along a slightly curved line.
const char* kPatchDeck = R"(
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.; time step: 1e-3; end: initial value;
begin: control data; structural nodes: 3; beams: 2; end: control data;
begin: nodes;
structural: 1, dynamic, 0., 0., 0., euler123, 0.1, 0.2, 0.3, null, null;
structural: 2, dynamic, 0.5, 0.05, 0.02, euler123, -0.2, 0.1, 0.4, null, null;
structural: 3, dynamic, 1., 0.02, 0.06, euler123, 0.3, -0.1, 0.2, null, null;
end: nodes;
begin: elements;
constitutive law: 5, 6, linear viscoelastic generic, sym,
    1.e4, 10., 0., 5., 0., 2., 4.e3, 0., 0., 0., 0., 5.e3, 0., 0., 0., 20., 1., 0., 30., 0., 40.,
    proportional, 0.05;
beam3: 1, 1, position, 0.01, 0.02, 0., 2, position, null, 3, position, 0., -0.01, 0.02,
    euler123, 0.4, 0., 0., reference, 5, from nodes, reference, 5;
beam2: 2, 1, null, 3, null, from nodes, reference, 5;
end: elements;
)";

std::vector<FrameState> Rigid(const std::vector<FrameState>& s, const Mat3& Q, const Vec3& c,
                              const Vec3& u, const Vec3& Omega) {
    // x' = c + Q x, R' = Q R; velocities of a superposed rigid motion with velocity u and
    // angular velocity Omega: v' = Q v + u + Omega x (Q x), w' = Q w + Omega.
    std::vector<FrameState> r = s;
    for (size_t i = 0; i < s.size(); ++i) {
        r[i].x = c + Q * s[i].x;
        r[i].R = Q * s[i].R;
        r[i].v = Q * s[i].v + u + Omega.cross(Q * s[i].x);
        r[i].w = Q * s[i].w + Omega;
    }
    return r;
}

ElementBlock::Vec Forces(const Element& e, const std::vector<FrameState>& s) {
    std::vector<const FrameState*> p;
    for (int k : e.nodes()) p.push_back(&s[k]);
    ElementContext ctx;
    ctx.node = p.data();
    ElementBlock b;
    b.Reset(static_cast<int>(e.nodes().size()), 0, false);
    e.Evaluate(ctx, b);
    return b.f;
}

}  // namespace

TEST_CASE("beams: patch test and objectivity") {
    Deck deck = ReadDeckText(kPatchDeck, "patch.mbd", GlobalRegistry());
    std::vector<FrameState> s0;
    for (const auto& n : deck.model.nodes()) s0.push_back(n.initial);
    const Mat3 Q = so3::Exp(Vec3(1.2, -2.1, 0.7));  // a large rotation (2.5 rad)
    const Vec3 c(3., -1., 2.), u(0.3, 0.2, -0.1), Omega(0.5, -1.5, 2.);
    for (const auto& e : deck.model.elements()) {
        INFO(e->type());
        // The reference configuration, and the same moved rigidly with rigid velocities: no load.
        CHECK(Forces(*e, s0).cwiseAbs().maxCoeff() <= 1e-10);
        CHECK(Forces(*e, Rigid(s0, Q, c, u, Omega)).cwiseAbs().maxCoeff() <= 1e-8);
        // A deformed, moving configuration, then rotated rigidly: its nodal forces rotate.
        std::vector<FrameState> d = s0;
        d[0].x += Vec3(-0.01, 0.03, 0.02);
        d[0].R = so3::Exp(Vec3(0.1, -0.2, 0.15)) * d[0].R;
        d[1].x += Vec3(0.02, -0.01, 0.04);
        d[1].R = so3::Exp(Vec3(-0.3, 0.05, 0.1)) * d[1].R;
        d[2].R = so3::Exp(Vec3(0.2, 0.3, -0.25)) * d[2].R;
        for (auto& n : d) {
            n.v = Vec3(0.1, -0.2, 0.3) + n.x.cross(Vec3(0.05, 0.1, -0.02));
            n.w = Vec3(-0.4, 0.2, 0.1) + 0.3 * n.x;
        }
        const ElementBlock::Vec f = Forces(*e, d);
        const ElementBlock::Vec g = Forces(*e, Rigid(d, Q, c, u, Omega));
        REQUIRE(f.cwiseAbs().maxCoeff() > 1.0);  // the deformation loads the beam
        ElementBlock::Vec Qf = f;
        for (int k = 0; k < f.size() / 3; ++k) Qf.segment<3>(3 * k) = Q * f.segment<3>(3 * k);
        CHECK((g - Qf).cwiseAbs().maxCoeff() <= 1e-9 * f.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("beam3: bending frequencies of a cantilever with lumped masses (Euler-Bernoulli)") {
    // Linearized at the reference configuration: K from the elements (-df/dq at rest), M from
    // the bodies; in-plane bending dofs (u_y, theta_z) of the free nodes.
    Cantilever c;
    c.elements = 20;
    c.dynamic = true;
    c.mass_per_length = 2.0;
    c.EI = 50.0;
    c.EA = c.GA = 1e9;  // Euler-Bernoulli: no shear or axial compliance
    Deck deck = ReadDeckText(CantileverDeck(c), "cantilever.mbd", GlobalRegistry());
    const Model& m = deck.model;
    const int nn = static_cast<int>(m.nodes().size());
    std::vector<FrameState> s;
    for (const auto& n : m.nodes()) s.push_back(n.initial);
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(6 * nn, 6 * nn);
    std::vector<NodeInertia> inertia(nn);
    for (const auto& e : m.elements()) {
        std::vector<NodeInertia> local(e->nodes().size());
        e->AddInertia(local);
        for (size_t k = 0; k < e->nodes().size(); ++k) inertia[e->nodes()[k]] += local[k];
        if (e->num_multipliers() > 0 || !e->HasContribution()) continue;
        std::vector<const FrameState*> p;
        for (int k : e->nodes()) p.push_back(&s[k]);
        ElementContext ctx;
        ctx.node = p.data();
        ElementBlock b;
        b.Reset(static_cast<int>(e->nodes().size()), 0, true);
        e->Evaluate(ctx, b);
        for (size_t a = 0; a < e->nodes().size(); ++a)
            for (size_t bb = 0; bb < e->nodes().size(); ++bb)
                K.block<6, 6>(6 * e->nodes()[a], 6 * e->nodes()[bb]) +=
                    b.K.block<6, 6>(6 * a, 6 * bb);
    }
    // dofs u_y (1) and theta_z (5) of nodes 1..nn-1 (node 0 is clamped)
    std::vector<int> dofs;
    for (int i = 1; i < nn; ++i) dofs.insert(dofs.end(), {6 * i + 1, 6 * i + 5});
    const int n = static_cast<int>(dofs.size());
    Eigen::MatrixXd A(n, n);
    for (int i = 0; i < n; ++i) {
        const NodeInertia& in = inertia[dofs[i] / 6];
        const double mi = dofs[i] % 6 == 1 ? in.m : in.J(2, 2);
        for (int j = 0; j < n; ++j) A(i, j) = K(dofs[i], dofs[j]) / mi;
    }
    Eigen::EigenSolver<Eigen::MatrixXd> es(A, false);
    std::vector<double> omega;
    for (int i = 0; i < n; ++i) {
        const std::complex<double> l = es.eigenvalues()[i];
        REQUIRE(std::abs(l.imag()) <= 1e-6 * std::abs(l));
        omega.push_back(std::sqrt(l.real()));
    }
    std::sort(omega.begin(), omega.end());
    const double beta[] = {1.875104068711961, 4.694091132974175, 7.854757438237613};
    for (int k = 0; k < 3; ++k) {
        const double ref =
            beta[k] * beta[k] * std::sqrt(c.EI / (c.mass_per_length * std::pow(c.L, 4)));
        INFO("mode ", k + 1, ": ", omega[k], " rad/s, Euler-Bernoulli ", ref);
        CHECK(std::abs(omega[k] / ref - 1.0) <= 5e-3);
    }
}

namespace {
// A flexible pendulum: 4 beam3 elements (L = 1 m, 1 kg/m, EI = 5 N m^2), pinned at the root
// (spherical pin), released horizontally under gravity -y.
Cantilever Pendulum(const std::string& method, double h, double tf) {
    Cantilever c;
    c.elements = 4;
    c.dynamic = true;
    c.mass_per_length = 1.0;
    c.EI = 5.0;
    c.GJ = 5.0;
    c.EA = c.GA = 1e5;
    c.gravity = true;
    c.root_joint = "spherical pin";
    c.method = method;
    c.h = h;
    c.tf = tf;
    c.tolerance = 1e-9;
    return c;
}
}  // namespace

namespace {
// Means of E over consecutive windows of `window` seconds.
std::vector<double> WindowMeans(const Result& r, double window) {
    std::vector<double> means;
    double sum = 0.0;
    int count = 0;
    double end = window;
    for (size_t i = 0; i < r.t.size(); ++i) {
        if (r.t[i] > end + 1e-9) {
            means.push_back(sum / count);
            sum = 0.0;
            count = 0;
            end += window;
        }
        sum += r.energy[i];
        ++count;
    }
    if (count) means.push_back(sum / count);
    return means;
}
}  // namespace

TEST_CASE("beam3: an undamped flexible pendulum keeps its energy; rho_inf < 1 dissipates it") {
    // The pendulum swings (E = 0: kinetic and gravity potential 4.9 J exchange) and vibrates
    // (0.41 J of initial transverse velocity 2 (x/L)^2 m/s). The finite-volume forces are not
    // the gradient of a potential: the energy (kinetic + gravity + the Gauss-quadrature strain
    // energy) oscillates by ~0.25 % of the vibration energy with the mesh, and an undamped
    // scheme must show no secular drift beyond that.
    for (const char* method : {"ms, 1", "crank nicolson"}) {
        INFO(method);
        Cantilever c = Pendulum(method, 2e-3, 10.0);
        c.vy = 2.0;
        const Result r = RunText(CantileverDeck(c));
        REQUIRE(r.summary.completed);
        const std::vector<double> w = WindowMeans(r, 1.0);
        double spread = 0.0;
        for (double e : r.energy) spread = std::max(spread, std::abs(e - r.energy.front()));
        INFO("1-s window means ", test::Join(w), "; max |E - E0| = ", spread);
        CHECK(spread <= 2e-3);                          // bounded: 0.5 % of 0.41 J
        CHECK(std::abs(w.back() - w.front()) <= 5e-4);  // no drift over 10 s
    }
    for (const char* method : {"ms, 0.6", "ms, 0"}) {
        INFO(method);
        Cantilever c = Pendulum(method, 5e-3, 10.0);
        c.vy = 2.0;
        const Result r = RunText(CantileverDeck(c));
        REQUIRE(r.summary.completed);
        const std::vector<double> w = WindowMeans(r, 1.0);
        INFO("1-s window means ", test::Join(w));
        for (size_t i = 1; i < w.size(); ++i) CHECK(w[i] < w[i - 1]);  // monotonic decay
        CHECK(w.back() < r.energy.front() - 2e-3);                     // E0 = 0.41 J
    }
}

TEST_CASE("beam3: cgr and lie group + generalized alpha converge to one solution") {
    std::vector<double> d;
    for (double h : {4e-3, 2e-3, 1e-3}) {
        Cantilever a = Pendulum("ms, 0.6", h, 0.5);
        Cantilever b = Pendulum("generalized alpha, 0.9", h, 0.5);
        b.formulation = "lie group";
        const Result ra = RunText(CantileverDeck(a));
        const Result rb = RunText(CantileverDeck(b));
        REQUIRE(ra.summary.completed);
        REQUIRE(rb.summary.completed);
        double diff = 0.0;
        for (size_t i = 0; i < ra.states.size(); ++i)
            diff = std::max(diff, (ra.states[i].x - rb.states[i].x).norm());
        d.push_back(diff);
    }
    INFO("max node distance at t = 0.5 s: ", d[0], " ", d[1], " ", d[2]);
    // Both methods are second order: the difference falls by ~4 per halving.
    CHECK(d[0] / d[1] >= 3.0);
    CHECK(d[1] / d[2] >= 3.0);
    CHECK(d[2] <= 1e-3);
}
