// Registry-driven spectral checks of every first-order method (STYLE.md §8) and the linear
// analysis of `mbstep analyze` [Zhang, Masarati et al., section 4] against closed forms.
//
//   (a) spectral radius at h lambda -> -inf = rho_inf (the declared fixed_rho_inf for methods
//       without the parameter) within 1e-8, from the extrapolated limit matrix with cluster
//       means (linear_analysis.hpp (7)); at h lambda -> 0 it is 1 and the principal root is
//       exp(h lambda) + O((h lambda)^(p+1)).
//   (b) curves of ms3, ms4, msstc5 at rho_inf in {0, 0.6, 1}: rho -> rho_inf as h/T -> inf at
//       the rate |z|^(-1/m) of an m-fold root; PE ~ (h/T)^2 and AD = O((h/T)^3) as h/T -> 0
//       (order 2, linear_analysis.hpp "Asymptotics"; LMS-N: AD ~ (h/T)^(2N-1)); at rho_inf = 1 the
//       trapezoidal rule's closed form PE = theta / (2 atan(theta / 2)) - 1, AD = 0, rho = 1, theta
//       = 2 pi h/(nT).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "mbstep/analysis/linear_analysis.hpp"
#include "mbstep/integrator/first_order.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"

using namespace mbstep;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string Text(const std::string& name, double rho) {
    std::ostringstream os;
    os << name << ", " << rho;
    return os.str();
}

// Every (method, rho_inf) of the registry with an amplification matrix.
struct Case {
    std::string label;
    std::unique_ptr<Integrator> integ;
    double rho;
    double expected_rho_inf;
};

std::vector<Case> FirstOrderCases() {
    const Registry& reg = GlobalRegistry();
    std::vector<Case> out;
    for (const auto& d : reg.integrators()) {
        auto probe = MakeIntegrator(d.name, reg);
        auto* fo = dynamic_cast<FirstOrderIntegrator*>(probe.get());
        if (!fo || fo->AmplificationMatrix(-1.0, 0.0).size() == 0) continue;
        if (!d.tunable) {
            out.push_back({d.name, std::move(probe), 0.0, d.fixed_rho_inf});
            continue;
        }
        for (double rho : {0.0, 0.6, 1.0})
            out.push_back({Text(d.name, rho), MakeIntegrator(Text(d.name, rho), reg), rho, rho});
    }
    return out;
}

const FirstOrderIntegrator& Fo(const Case& c) {
    return dynamic_cast<const FirstOrderIntegrator&>(*c.integ);
}

}  // namespace

TEST_CASE("the declared trait `tunable` agrees with the integrator and its parameters") {
    const Registry& reg = GlobalRegistry();
    for (const auto& d : reg.integrators()) {
        INFO(d.name);
        CHECK(d.tunable == (!d.parameters.empty() && d.parameters[0].name == "rho_inf"));
        auto probe = MakeIntegrator(d.name, reg);
        // A tunable keyword builds a tunable integrator (the converse need not hold: `bdf`
        // is ms2 with rho_inf fixed at 0).
        if (auto* fo = dynamic_cast<FirstOrderIntegrator*>(probe.get()); fo && d.tunable)
            CHECK(fo->tunable());
    }
    // Registry::Add refuses a tunable method without rho_inf first.
    Registry r;
    IntegratorDescriptor bad;
    bad.name = "bad";
    bad.tunable = true;
    bad.parameters = {{"alpha", "0", "[-1/3, 0]"}};
    CHECK_THROWS_WITH_AS(r.Add(bad), doctest::Contains("not rho_inf"), RunError);
}

TEST_CASE("every first-order method: spectral radius rho_inf at h lambda -> -inf (1e-8)") {
    int tested = 0;
    for (const Case& c : FirstOrderCases()) {
        INFO(c.label);
        const double r_inf = analysis::SpectralRadiusAtInfinity(Fo(c), c.rho);
        // The limit matrix is accurate to ~1e-11 (linear_analysis.hpp (7)) and cluster means move
        // by O(perturbation): 1e-8 (the tolerance) leaves a margin of 1e3.
        INFO("spectral radius at -inf ", r_inf,
             "; at h lambda = -1e12: ", analysis::SpectralRadius(Fo(c), -1e12, c.rho));
        CHECK(std::abs(r_inf - c.expected_rho_inf) < 1e-8);
        ++tested;
    }
    CHECK(tested >= 13);
}

TEST_CASE("every first-order method: spectral radius 1 and principal root exp(z) at z -> 0") {
    for (const Case& c : FirstOrderCases()) {
        INFO(c.label);
        const FirstOrderIntegrator& m = Fo(c);
        // |mu_1(z)| = |exp(z)| + O(z^(p+1)) = 1 - 1e-10 at z = -1e-10; the others are < 1.
        CHECK(analysis::SpectralRadius(m, -1e-10, c.rho) == doctest::Approx(1.0).epsilon(1e-8));
        // On the imaginary axis: mu_1(i y) - exp(i y) = O(y^(p+1)); at y = 1e-2 and p >= 1 this
        // is <= C 1e-4 with C < 1 for every method here (error constants are < 1/2).
        const std::complex<double> z(0.0, 1e-2);
        double best = 1e300;
        for (const auto& mu : analysis::CharacteristicRoots(m, z, c.rho))
            best = std::min(best, std::abs(mu - std::exp(z)));
        CHECK(best < 1e-4);
        // The principal root is continued (not picked by magnitude): on a grid up to
        // h/(nT) = 1e-3 (|z| <= 2 pi n 1e-3 <= 0.04) it stays within O(z^2) of exp(z).
        const auto curve =
            analysis::AnalyzeOscillator(m, c.rho, analysis::LogGrid({1e-5, 1e-3, 9}));
        for (const auto& p : curve.points) {
            const std::complex<double> zp(0.0, 2 * kPi * curve.stages * p.h_over_nT);
            CHECK(std::abs(p.principal_root - std::exp(zp)) < 1e-3);
        }
    }
}

namespace {

// The analysis curves of (b) for one method keyword: `multiplicity` of the root at
// h lambda -> -inf (N for LMS-N, 1 for a one-stage R(z)), `ad_slope` the closed-form rate of
// AD (0: only the order-2 bound AD = O((h/T)^3) is known).
void CheckCurves(const std::string& name, int multiplicity, double ad_slope) {
    const Registry& reg = GlobalRegistry();
    if (!reg.FindIntegrator(name)) {
        MESSAGE(name << " is not registered: its analysis curves are not checked");
        return;
    }
    const std::vector<double> x = analysis::LogGrid({1e-4, 1e4, 161});  // 20 points a decade
    const std::vector<double> x_far = analysis::LogGrid({1e5, 1e6, 11});
    for (double rho : {0.0, 0.6, 1.0}) {
        INFO(name, " rho_inf ", rho);
        const auto integ = MakeIntegrator(Text(name, rho), reg);
        const auto& m = dynamic_cast<const FirstOrderIntegrator&>(*integ);
        const auto c = analysis::AnalyzeOscillator(m, rho, x);
        REQUIRE(c.points.size() == x.size());
        std::vector<double> ad, pe;
        for (const auto& p : c.points) {
            ad.push_back(p.ad_percent);
            pe.push_back(p.pe_percent);
        }
        // rho -> rho_inf: the limit itself, and the deviation decaying like |z|^(-1/m) for an
        // m-fold root (the next term is |z|^(-2/m) relative: the fit over 1e5..1e6 is within
        // 0.02 of -1/m for m <= 4); a simple root decays at least like 1/|z|.
        CHECK(std::abs(analysis::SpectralRadiusAtInfinity(m, rho) - rho) < 1e-8);
        if (rho < 1.0) {
            const auto far = analysis::AnalyzeOscillator(m, rho, x_far);
            std::vector<double> dev;
            for (const auto& p : far.points) dev.push_back(std::abs(p.spectral_radius - rho));
            const double q = analysis::LogLogSlope(x_far, dev, 1e5, 1e6);
            INFO("rate of rho(h/T) -> rho_inf: ", q, "; deviation at 1e6: ", dev.back());
            if (multiplicity > 1)
                CHECK(std::abs(q + 1.0 / multiplicity) < 0.02);
            else
                CHECK(q < -0.95);
            CHECK(dev.back() < std::abs(c.points.back().spectral_radius - rho));
        }
        // PE -> 0 with the order-2 rate (fit over 3e-4..3e-3, where the next term is O(h/T)
        // relative, i.e. < 0.02 in the slope).
        const double s_pe = analysis::LogLogSlope(x, pe, 3e-4, 3e-3);
        INFO("PE slope ", s_pe, "; PE(1e-3) = ", pe[20]);
        CHECK(std::abs(s_pe - 2.0) < 0.05);
        if (rho < 1.0) {
            // AD -> 0 at least with the order-2 bound (h/T)^3 (the z^3 error term is
            // dispersive); LMS-N with the optimal parameters reach (h/T)^(2N-1). Fit over
            // 1.5e-2..4e-2, where log|mu_1| is still >> round-off for AD ~ (h/T)^7.
            const double s_ad = analysis::LogLogSlope(x, ad, 1.5e-2, 4e-2);
            INFO("AD slope ", s_ad, "; AD(1e-2) = ", ad[40]);
            CHECK(s_ad > 2.85);
            if (ad_slope > 0) CHECK(std::abs(s_ad - ad_slope) < 0.15);
            CHECK(ad[40] > 0.0);
        } else {
            // rho_inf = 1: the trapezoidal rule [paper, section 4], in closed form.
            for (const auto& p : c.points) {
                const double theta = 2 * kPi * p.h_over_nT;
                CHECK(std::abs(p.spectral_radius - 1.0) < 1e-12);
                CHECK(std::abs(p.ad_percent) < 1e-9);
                const double pe_tr = 100.0 * (theta / (2.0 * std::atan(theta / 2.0)) - 1.0);
                CHECK(p.pe_percent == doctest::Approx(pe_tr).epsilon(1e-9));
            }
        }
    }
}

}  // namespace

TEST_CASE("mbstep analyze curves: ms3, ms4, msstc5 against the closed-form limits") {
    CheckCurves("ms3", 3, 5.0);
    CheckCurves("ms4", 4, 7.0);
    CheckCurves("msstc5", 1, 0.0);
}

TEST_CASE("analysis grid and bad input are rejected with the accepted range") {
    CHECK_THROWS_WITH_AS(analysis::LogGrid({0.0, 1.0, 10}), doctest::Contains("0 < min < max"),
                         RunError);
    CHECK_THROWS_AS(analysis::LogGrid({1.0, 1.0, 10}), RunError);
    CHECK_THROWS_AS(analysis::LogGrid({1e-3, 1.0, 1}), RunError);
    const auto g = analysis::LogGrid({1e-3, 1e3, 7});
    REQUIRE(g.size() == 7);
    CHECK(g[3] == doctest::Approx(1.0));
    // Cluster means: a perturbed triple root at -0.5 averages back to -0.5.
    std::vector<std::complex<double>> roots;
    for (int k = 0; k < 3; ++k) roots.push_back(-0.5 + 1e-4 * std::polar(1.0, 2 * kPi * k / 3));
    roots.push_back(0.1);
    const auto means = analysis::ClusterMeans(roots, 1e-2);
    for (int k = 0; k < 3; ++k) CHECK(std::abs(means[k] + 0.5) < 1e-15);
    CHECK(means[3] == std::complex<double>(0.1));
}

TEST_CASE("mbstep analyze: CSV files, index, several methods and rho_inf; bad input") {
    const std::string exe = std::string(MBSTEP_BINARY_DIR) + "/bin/mbstep";
    const std::string prefix = std::string(MBSTEP_BINARY_DIR) + "/registry_analyze_cli";
    const std::string cmd = exe +
                            " analyze ms3 'implicit euler' --rho 0,0.6 --rho 1 --points 21 -o " +
                            prefix + " > " + prefix + ".log 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream index(prefix + "-index.csv");
    REQUIRE(index.good());
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(index, line)) lines.push_back(line);
    REQUIRE(lines.size() == 5);  // header, ms3 x 3 rho_inf, implicit euler once
    CHECK(lines[0] == "method,rho_inf,tunable,stages,order,file");
    std::ifstream csv(prefix + "-ms3-rho0.6.csv");
    REQUIRE(csv.good());
    std::getline(csv, line);
    CHECK(line == "method,rho_inf,stages,h_over_T,Omega,spectral_radius,AD_percent,PE_percent");
    int rows = 0;
    while (std::getline(csv, line)) {
        ++rows;
        CHECK(line.rfind("ms3,0.6,1,", 0) == 0);  // method and rho_inf as given, every row
    }
    CHECK(rows == 21);
    CHECK(std::ifstream(prefix + "-implicit-euler.csv").good());
    // Rejected: rho_inf outside [0, 1] (with the range), unknown method, bad grid.
    for (const std::string bad :
         {"ms3 --rho 1.5", "nosuchmethod", "ms3 --min 0", "ms3 --points 1"}) {
        INFO(bad);
        const std::string c = exe + " analyze " + bad + " > " + prefix + ".err 2>&1";
        CHECK(std::system(c.c_str()) != 0);
    }
    std::system((exe + " analyze ms3 --rho 1.5 > " + prefix + ".err 2>&1").c_str());
    std::ifstream err(prefix + ".err");
    std::stringstream ss;
    ss << err.rdbuf();
    CHECK(ss.str().find("[0, 1]") != std::string::npos);
}

TEST_CASE("mbstep plugins --markdown: one row per registered plugin, methods with formulations") {
    const std::string exe = std::string(MBSTEP_BINARY_DIR) + "/bin/mbstep";
    const std::string out = std::string(MBSTEP_BINARY_DIR) + "/registry_plugins_markdown.md";
    REQUIRE(std::system((exe + " plugins --markdown > " + out).c_str()) == 0);
    std::ifstream in(out);
    // Table rows per "## " section.
    std::map<std::string, std::vector<std::string>> sections;
    std::string section;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("## ", 0) == 0) section = line.substr(3);
        if (!section.empty() && line.rfind("|", 0) == 0) sections[section].push_back(line);
    }
    const Registry& r = GlobalRegistry();
    const auto& methods = sections["Methods"];
    REQUIRE(methods.size() == r.integrators().size() + 2);
    CHECK(methods[0] ==
          "| keyword | family | steps/stages | order | rho_inf | stability | formulations | "
          "description | reference | equations |");
    CHECK(sections["Formulations"].size() == r.formulations().size() + 2);
    CHECK(sections["Elements"].size() == r.elements().size() + 2);
    CHECK(sections["Drives"].size() == r.drives().size() + 2);
    CHECK(sections["Constitutive laws"].size() == r.constitutive_laws().size() + 2);
    // The formulations column, checked against what a run accepts: the default first; `eml`
    // only on `euler parameters` and (abstract nodes) `lagrangian`, `half implicit` only on
    // `lie group` (their Attach refuses the others); first-order methods on every cgr
    // formulation and no second-order one.
    auto cells = [](const std::string& row) {
        std::vector<std::string> c;
        std::string cur;
        for (size_t k = 1; k < row.size(); ++k) {
            if (row[k] == '|' && row[k - 1] != '\\') {
                c.push_back(cur);
                cur.clear();
            } else {
                cur += row[k];
            }
        }
        return c;
    };
    std::map<std::string, std::string> runs_on;
    for (size_t k = 2; k < methods.size(); ++k) {
        const auto c = cells(methods[k]);
        REQUIRE(c.size() == 10);
        runs_on[c[0]] = c[6];
    }
    for (const auto& d : r.integrators()) {
        INFO(d.name);
        REQUIRE(runs_on.count(" `" + d.name + "` "));
        const std::string f = runs_on[" `" + d.name + "` "];
        CHECK(f.find("`" + d.default_formulation + "` (default)") == 1);
        for (const auto& fd : r.formulations()) {
            const bool listed = f.find("`" + fd.name + "`") != std::string::npos;
            if (fd.provides != d.requires_interface) CHECK_FALSE(listed);
            if (d.name == "eml")
                CHECK(listed == (fd.name == "euler parameters" || fd.name == "lagrangian"));
            if (d.name == "half implicit") CHECK(listed == (fd.name == "lie group"));
            if (d.name == "ms" && fd.provides == d.requires_interface) CHECK(listed);
        }
    }
}
