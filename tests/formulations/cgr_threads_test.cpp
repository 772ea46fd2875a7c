// One and two assembly threads give bit-identical results for the `cgr` family (`cgr`,
// `mbdyn cgr`, `cgr velocity`): the node passes (states, rotation maps, inertia terms, the
// zeroing of the matrix columns, the history re-referencing) and the element colours write
// disjoint data, and every matrix value and residual row is the same sum in the same order for
// any number of threads. Checked on a 300-link chain (large enough for TBB to split the node
// and element ranges): r and J at a perturbed state, and a 20-step run (node states, Newton
// iterations). One thread visits nodes and elements by tiles of 256 nodes (BuildTiles), two
// threads by colour sweeps: the chain spans two tiles, and rods between nodes of different
// tiles (whose lower-colour neighbours decide when they may be visited) are added to it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "support/run_helpers.hpp"

using namespace mbstep;

namespace {

bool SameBits(const double* a, const double* b, size_t n) {
    return std::memcmp(a, b, n * sizeof(double)) == 0;
}

bool SameStates(const std::vector<FrameState>& a, const std::vector<FrameState>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!SameBits(a[i].x.data(), b[i].x.data(), 3) ||
            !SameBits(a[i].R.data(), b[i].R.data(), 9) ||
            !SameBits(a[i].v.data(), b[i].v.data(), 3) ||
            !SameBits(a[i].w.data(), b[i].w.data(), 3))
            return false;
    return true;
}

const char* kFormulations[] = {"cgr", "mbdyn cgr", "cgr velocity"};

}  // namespace

TEST_CASE("cgr family: residual and iteration matrix bit-identical on one and two threads") {
    const Registry& reg = GlobalRegistry();
    for (const char* form : kFormulations) {
        INFO("formulation ", form);
        // Rods across the tiles (nodes 1-300, 10-280, 200-260, 255-258, 256-257).
        std::string text = test::ChainDeckText(300, form);
        const std::pair<int, int> rods[] = {
            {1, 300}, {10, 280}, {200, 260}, {255, 258}, {256, 257}};
        std::string extra;
        int label = 1000;
        for (const auto& [a, b] : rods)
            extra += "    joint: " + std::to_string(label++) + ", rod, " + std::to_string(a) +
                     ", " + std::to_string(b) + ", from nodes, linear viscoelastic, 1e4, 10.;\n";
        text.replace(text.find("    gravity: uniform"), 0, extra);
        text.replace(text.find("joints: 300;"), 12, "joints: 305;");
        Deck deck = ReadDeckText(text, "chain300", reg);
        auto f = reg.FindFormulation(form)->make(deck.model);
        FirstOrderProblem& p = *f->first_order();
        p.SolveInitialDerivatives(deck.settings.solver, 1e-3);
        // Away from the initial state, with non-zero rotation parameters and references.
        const Eigen::Index n = p.num_dofs();
        Eigen::VectorXd dy(n), dyp(n);
        for (Eigen::Index k = 0; k < n; ++k) {
            dy[k] = 1e-2 * std::sin(0.7 * double(k));
            dyp[k] = 1e-1 * std::cos(0.3 * double(k));
        }
        p.y() += dy;
        p.yp() += dyp;
        p.AfterPredict();
        p.y() += 0.5 * dy;
        p.yp() += 0.5 * dyp;
        const Eigen::VectorXd y0 = p.y(), yp0 = p.yp();
        Eigen::VectorXd r[2];
        Eigen::SparseMatrix<double> J[2] = {p.pattern(), p.pattern()};
        for (int t = 0; t < 2; ++t) {
            f->set_threads(t + 1);
            p.y() = y0;
            p.yp() = yp0;
            // Twice: the second evaluation reuses the rotation maps of the first.
            for (int rep = 0; rep < 2; ++rep) {
                p.Residual(2e-3, r[t]);
                p.Jacobian(2e-3, J[t]);
            }
        }
        REQUIRE(r[0].size() == r[1].size());
        CHECK(SameBits(r[0].data(), r[1].data(), r[0].size()));
        REQUIRE(J[0].nonZeros() == J[1].nonZeros());
        CHECK(SameBits(J[0].valuePtr(), J[1].valuePtr(), J[0].nonZeros()));
        CHECK(r[0].allFinite());
    }
}

TEST_CASE("cgr family: 20 steps of a 300-link chain bit-identical on one and two threads") {
    const Registry& reg = GlobalRegistry();
    for (const char* form : kFormulations)
        for (const char* method : {"ms, 0.6", "Bathe"}) {
            INFO("formulation ", form, ", method ", method);
            std::vector<FrameState> states[2];
            RunSummary summary[2];
            for (int t = 0; t < 2; ++t) {
                Deck deck = ReadDeckText(test::ChainDeckText(300, form), "chain300", reg);
                std::string name;
                deck.integrator = MakeIntegrator(method, reg, &name);
                deck.method_name = name;
                deck.settings.method_text = method;
                RunOptions opt;
                opt.write_output = false;
                opt.progress = false;
                opt.threads = t + 1;
                opt.on_step = [&](double, const Formulation& fo) { states[t] = fo.node_states(); };
                summary[t] = Run(deck, opt, reg);
                REQUIRE(summary[t].completed);
            }
            CHECK(summary[0].steps == 20);
            CHECK(summary[0].iterations == summary[1].iterations);
            CHECK(SameStates(states[0], states[1]));
        }
}
