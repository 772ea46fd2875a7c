// Slider-crank with Coulomb friction in the slider's joint (examples/slider-crank-friction, the
// half-implicit paper's friction example, mu = 0, 0.2, 0.4). The crank's motion is prescribed,
// so the friction changes only the loads. When the slider reverses (4 times in 2 s), the
// friction force flips: the crank bearing's transverse reaction moment (global y) jumps, by an
// amount proportional to mu; the driving torque about the crank axis (global x) does not jump
// (its power equals the rate of energy plus mu N |v|, continuous through v = 0) but its slope
// does. With mu = 0 there is neither.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/model/element_output.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"

using namespace mbstep;

namespace {

struct History {
    std::vector<double> mx, my, v;  ///< crank reaction moments (global), slider speed
};

History Run(const std::string& mu) {
    const std::string path =
        std::string(MBSTEP_SOURCE_DIR) + "/examples/slider-crank-friction/deck.mbd";
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string text = ss.str();
    const std::string key = "set: real MU = 0.2;";
    const size_t at = text.find(key);
    REQUIRE(at != std::string::npos);
    text.replace(at, key.size(), "set: real MU = " + mu + ";");
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeckText(text, path, reg);
    const Element* crank = nullptr;
    int crank_index = -1;
    for (size_t e = 0; e < deck.model.elements().size(); ++e)
        if (deck.model.elements()[e]->statement() == "joint" &&
            deck.model.elements()[e]->label() == 1) {
            crank = deck.model.elements()[e].get();
            crank_index = static_cast<int>(e);
        }
    REQUIRE(crank != nullptr);
    History h;
    RunOptions opt;
    opt.write_output = false;
    opt.progress = false;
    opt.on_step = [&](double t, const Formulation& fo) {
        const auto& s = fo.node_states();
        const FrameState* node[] = {&s[0]};
        const ElementContext ctx{t, node, fo.multipliers(crank_index), Vec3::Zero()};
        std::ostringstream os;
        os.precision(17);
        crank->output()->WriteReaction(os, ctx);  // label, F, M local, F, M global
        std::istringstream is(os.str());
        std::vector<double> c;
        for (double x; is >> x;) c.push_back(x);
        REQUIRE(c.size() == 25);  // then relative position, rotation, velocities (MBDyn)
        h.mx.push_back(c[10]);
        h.my.push_back(c[11]);
        h.v.push_back(s[2].v.x());
    };
    const RunSummary r = mbstep::Run(deck, opt, reg);
    CHECK(r.completed);
    return h;
}

double Median(std::vector<double> x) {
    std::nth_element(x.begin(), x.begin() + x.size() / 2, x.end());
    return x[x.size() / 2];
}

}  // namespace

TEST_CASE("slider-crank friction: the slider's reversals show in the crank loads") {
    double jump_02 = 0.0, jump_04 = 0.0;
    for (const std::string mu : {"0", "0.2", "0.4"}) {
        INFO("mu = ", mu);
        const History h = Run(mu);
        REQUIRE(h.v.size() == 2001);
        std::vector<size_t> rev;
        for (size_t i = 0; i + 1 < h.v.size(); ++i)
            if ((h.v[i] > 0) != (h.v[i + 1] > 0)) rev.push_back(i);
        REQUIRE(rev.size() == 4);  // the slider reverses twice per crank turn
        std::vector<double> dmx, dmy, d2mx;
        for (size_t i = 5; i + 1 < h.v.size(); ++i) {
            dmx.push_back(std::abs(h.mx[i + 1] - h.mx[i]));
            dmy.push_back(std::abs(h.my[i + 1] - h.my[i]));
            d2mx.push_back(std::abs(h.mx[i + 1] - 2.0 * h.mx[i] + h.mx[i - 1]));
        }
        const double mdx = Median(dmx), mdy = Median(dmy), md2 = Median(d2mx);
        double jump = 0.0, kink = 0.0, step = 0.0;
        for (size_t r : rev) {
            jump = std::max(jump, std::abs(h.my[r + 1] - h.my[r]));
            step = std::max(step, std::abs(h.mx[r + 1] - h.mx[r]));
            for (size_t i = r; i <= r + 1; ++i)
                kink = std::max(kink, std::abs(h.mx[i + 1] - 2.0 * h.mx[i] + h.mx[i - 1]));
        }
        MESSAGE("mu = ", mu, ": bearing moment jump ", jump, " (median step ", mdy,
                "), driving torque step ", step, " (median ", mdx, "), its second difference ",
                kink, " (median ", md2, ")");
        // The driving torque itself never jumps: its step at a reversal is at most 3.4x its
        // median step, the same as without friction (3.8x; the torque changes fastest there).
        CHECK(step < 5.0 * mdx);
        if (mu == "0") {
            CHECK(jump < 5.0 * mdy);  // measured 1.3x
            CHECK(kink < 5.0 * md2);  // measured 1.0x
        } else {
            CHECK(jump > 100.0 * mdy);  // measured 0.56 / 0.0018 (mu 0.2), 1.15 / 0.0021 (0.4)
            CHECK(kink > 30.0 * md2);   // measured 140x (0.2), 280x (0.4)
            (mu == "0.2" ? jump_02 : jump_04) = jump;
        }
    }
    // The jump is the friction force flipping: proportional to mu (N changes a little with mu).
    CHECK(jump_04 / jump_02 > 1.6);
    CHECK(jump_04 / jump_02 < 2.4);
}
