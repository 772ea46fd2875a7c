// mbstep tests — MBDyn compatibility suite (label `compat`): runs every deck <name>/<name> of
// the optional folder of MBDyn's test decks (test::FindMbdynTests(), support/mbdyn_tests.hpp)
// unchanged with the mbstep library, from the deck's folder (decks `include:` relative files),
// writing MBDyn-layout output into a temporary folder, and reports per deck: steps, Newton
// iterations, wall time, the largest position-level constraint residual and the energy change.
// It passes when every deck reaches its final time. chain15 also checks that its node positions
// at t0 are the frames of the included reference file chain15h.ref (written by MBDyn) and that
// the hanging chain conserves energy.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"
#include "support/mbdyn_tests.hpp"
#include "support/skip.hpp"

namespace fs = std::filesystem;
using namespace mbstep;

namespace {

// Changes the working directory for the lifetime of the object.
struct WorkingDirectory {
    fs::path saved = fs::current_path();
    explicit WorkingDirectory(const fs::path& p) { fs::current_path(p); }
    ~WorkingDirectory() { fs::current_path(saved); }
};

struct DeckResult {
    bool completed{false};
    std::string error;
    int steps{0};
    long iterations{0};
    double final_time{0}, wanted_final_time{0}, seconds{0};
    double violation0{0}, max_violation{0};  // at t0 (as read), max over the steps
    double drift_bound{0};                   // residual tolerance x time step
    double energy0{0}, energy1{0};
    std::vector<FrameState> initial;
    std::vector<FrameState> final;
};

DeckResult RunOne(const fs::path& deck_path, const fs::path& out_dir) {
    DeckResult r;
    const WorkingDirectory cd(deck_path.parent_path());
    const auto t0 = std::chrono::steady_clock::now();
    try {
        const Registry& reg = GlobalRegistry();
        Deck deck = ReadDeck(deck_path.filename().string(), reg);
        r.wanted_final_time = deck.settings.final_time;
        r.drift_bound = deck.settings.solver.residual_tolerance * deck.settings.time_step;
        for (const StructuralNode& n : deck.model.nodes()) r.initial.push_back(n.initial);
        RunOptions opt;
        opt.output_prefix = (out_dir / deck_path.filename()).string();
        opt.progress = false;
        bool first = true;
        opt.on_step = [&](double, const Formulation& f) {
            const Invariants inv = f.ComputeInvariants();
            if (first) {
                r.energy0 = inv.kinetic + inv.potential;
                r.violation0 = inv.constraint_violation;
                first = false;
                return;
            }
            r.energy1 = inv.kinetic + inv.potential;
            r.final = f.node_states();
            r.max_violation = std::max(r.max_violation, inv.constraint_violation);
        };
        const RunSummary s = Run(deck, opt, reg);
        r.completed = s.completed;
        r.steps = s.steps;
        r.iterations = s.iterations;
        r.final_time = s.final_time;
        if (!s.completed) r.error = s.failure;
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

// Positions of `reference: <label>, reference, global, x, y, z, ...` in an MBDyn .ref file.
std::map<int, Vec3> ReferencePositions(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream text;
    for (std::string line; std::getline(f, line);) {
        const auto hash = line.find('#');
        text << line.substr(0, hash) << ' ';
    }
    std::map<int, Vec3> out;
    std::string s = text.str();
    std::replace(s.begin(), s.end(), ',', ' ');
    std::replace(s.begin(), s.end(), ';', ' ');
    std::istringstream in(s);
    for (std::string w; in >> w;) {
        if (w != "reference:") continue;
        int label = 0;
        std::string r1, g1;
        Vec3 x;
        in >> label >> r1 >> g1 >> x[0] >> x[1] >> x[2];
        out[label] = x;
    }
    return out;
}

}  // namespace

TEST_CASE("MBDyn's test decks run unchanged to their final time") {
    const test::MbdynTestsFolder folder = test::FindMbdynTests();
    if (!folder.skip_reason.empty()) {
        test::ReportSkip(folder.skip_reason);
        return;
    }
    const fs::path& suite = folder.path;
    const fs::path out_dir = fs::temp_directory_path() / "mbstep_compat";
    fs::create_directories(out_dir);
    std::vector<fs::path> decks;
    for (const auto& entry : fs::directory_iterator(suite)) {
        if (!entry.is_directory()) continue;
        const fs::path deck = entry.path() / entry.path().filename();
        if (fs::is_regular_file(deck)) decks.push_back(deck);
    }
    std::sort(decks.begin(), decks.end());
    REQUIRE_FALSE(decks.empty());
    int passed = 0;
    for (const fs::path& deck : decks) {
        const std::string name = deck.filename().string();
        INFO("deck ", name);
        const DeckResult r = RunOne(deck, out_dir);
        std::ostringstream line;
        line << name << ": " << (r.completed ? "completed" : "FAILED") << ", t = " << r.final_time
             << " of " << r.wanted_final_time << ", " << r.steps << " steps, " << r.iterations
             << " iterations, " << r.seconds << " s, constraint residual at t0 " << r.violation0
             << ", max over the steps " << r.max_violation << ", energy " << r.energy0 << " -> "
             << r.energy1;
        if (!r.error.empty()) line << "; " << r.error;
        if (r.seconds > 60.0) line << " (slow: over 60 s)";
        MESSAGE(line.str());
        CHECK_MESSAGE(r.completed, r.error);
        if (r.completed) CHECK(r.final_time == doctest::Approx(r.wanted_final_time));
        // Position-level constraints hold to the Newton tolerance at every converged step (no
        // drift): the constraint rows of the residual are phi / (b0 h), b0 <= 1, so a converged
        // step has |phi| <= tolerance * h (plus round-off).
        CHECK(r.max_violation <= r.drift_bound + 1e-12);
        passed += r.completed;

        // realgimbal: the hub (node 3, the last node) is driven through a gimbal (homokinetic)
        // joint by a shaft spinning at Omega = 25 rad/s and is tilted by the in-plane and
        // distance constraints until t = 2; once the tilt is constant the hub spins about its
        // own tilted axis at exactly Omega, so |w| = 25 (to the Newton tolerance).
        if (name == "realgimbal" && r.completed) {
            REQUIRE_FALSE(r.final.empty());
            const FrameState& hub = r.final.back();
            const double tilt = std::acos(std::min(1.0, hub.R.col(2).z()));
            MESSAGE("realgimbal: hub |w| = " << hub.w.norm() << " rad/s, tilt " << tilt << " rad");
            CHECK(hub.w.norm() == doctest::Approx(25.0).epsilon(1e-6));
            CHECK((hub.w.normalized() - hub.R.col(2)).norm() < 1e-6);
            // Closed form of the tilt phi: the hub point R e_3 lies in the plane x + y = 0 and
            // at distance l = sqrt(2) - 0.2 (the cosine drive at its end) from (1, -1, 1):
            // l^2 = 4 - 2 sqrt(2) sin(phi) - 2 cos(phi).
            const double l = std::sqrt(2.0) - 0.2, A = 2.0 * std::sqrt(2.0), B = 2.0;
            const double phi = std::asin((4.0 - l * l) / std::hypot(A, B)) - std::atan2(B, A);
            MESSAGE("realgimbal: closed-form tilt " << phi << " rad");
            CHECK(tilt == doctest::Approx(phi).epsilon(1e-8));
        }
        // chain15: the deck's initial node positions are the frames of chain15h.ref (MBDyn's own
        // include file), and the frictionless chain, integrated with `ms, 0.6` (dissipative
        // at high frequency), may lose energy but never gain it (1e-9 relative: round-off).
        if (name == "chain15" && r.completed) {
            const auto ref = ReferencePositions(deck.parent_path() / "chain15h.ref");
            REQUIRE(ref.size() == 15);
            double worst = 0.0;
            for (const auto& [label, x] : ref) {
                // Node i has label i and is the i-th dynamic node after the static node 0.
                REQUIRE(static_cast<size_t>(label) < r.initial.size());
                worst = std::max(worst, (r.initial[label].x - x).norm());
            }
            MESSAGE("chain15: initial positions vs chain15h.ref: max deviation " << worst);
            CHECK(worst < 1e-12);
            const double rel = (r.energy1 - r.energy0) / std::abs(r.energy0);
            MESSAGE("chain15: relative energy change over the run " << rel);
            CHECK(rel < 1e-9);
        }
    }
    MESSAGE(std::string(std::to_string(passed) + " of " + std::to_string(decks.size()) +
                        " decks run to their final time"));
}

// The flexible benchmarks of H. Zhang, R. Zhang, A. Zanoni, P. Masarati, "Performance of implicit
// A-stable time integration methods for multibody system dynamics", Multibody Syst Dyn (2022),
// doi:10.1007/s11044-021-09806-9, sections 5.2-5.4, as MBDyn's test tree ships them
// (flexible/<name>/<name>), run unchanged: beam3 elements with 6-D laws, driven elements, total
// joints with imposed angular velocity, drive-valued gravity, negative initial times, `linear
// solver: naive, colamd`.
TEST_CASE("MBDyn's flexible benchmarks run unchanged to their final time") {
    const test::MbdynTestsFolder folder = test::FindMbdynTests("flexible");
    if (!folder.skip_reason.empty()) {
        test::ReportSkip(folder.skip_reason);
        return;
    }
    const fs::path& suite = folder.path;
    const fs::path out_dir = fs::temp_directory_path() / "mbstep_compat_flexible";
    fs::create_directories(out_dir);
    for (const char* name : {"fourbar", "lateralbuckling", "rotatingshaft"}) {
        INFO("deck ", name);
        const fs::path deck = suite / name / name;
        REQUIRE(fs::is_regular_file(deck));
        const DeckResult r = RunOne(deck, out_dir);
        std::ostringstream line;
        line << name << ": " << (r.completed ? "completed" : "FAILED") << ", t = " << r.final_time
             << " of " << r.wanted_final_time << ", " << r.steps << " steps, " << r.iterations
             << " iterations, " << r.seconds << " s, max constraint residual " << r.max_violation;
        if (!r.error.empty()) line << "; " << r.error;
        MESSAGE(line.str());
        CHECK_MESSAGE(r.completed, r.error);
        if (!r.completed) continue;
        CHECK(r.final_time == doctest::Approx(r.wanted_final_time));
        CHECK(r.max_violation <= r.drift_bound + 1e-12);
        // rotatingshaft: the shaft root (node 0) is driven by `angular velocity` rows to
        // A1 Omega = 48 rad/s (cosine ramp on 0..0.5 s), then by (A2 - A1) Omega more to 72 rad/s
        // (1..1.25 s), about the shaft axis x: at t = 2.5 s w_x = 72 to the Newton tolerance.
        if (std::string(name) == "rotatingshaft") {
            const FrameState& root = r.final.at(1);  // node 999 (static) is the first
            MESSAGE("rotatingshaft: root angular velocity " << root.w.transpose());
            CHECK(root.w.x() == doctest::Approx(72.0).epsilon(1e-8));
        }
    }
}
