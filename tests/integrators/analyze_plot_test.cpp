// `mbstep analyze` over the method families at once: first-order (ms3), second-order
// (generalized alpha, HHT: stepped on the oscillator) and explicit Runge-Kutta (rk44: its
// stability function); one CSV per curve with the columns of analysis::CsvHeader(), the method
// and rho_inf as given on every row, and the three PNGs written by analysis_plot.py (this
// executable reports a skip when /usr/bin/python3 lacks matplotlib, after the CSV checks).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/skip.hpp"

namespace {

std::vector<std::string> Lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// CSV fields; a quoted field keeps its commas (and its quotes).
std::vector<std::string> Fields(const std::string& line) {
    std::vector<std::string> f(1);
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        if (c == ',' && !quoted)
            f.emplace_back();
        else
            f.back() += c;
    }
    return f;
}

}  // namespace

TEST_CASE("mbstep analyze: every family, CSV layout, PNGs") {
    const std::string exe = std::string(MBSTEP_BINARY_DIR) + "/bin/mbstep";
    const std::string prefix = std::string(MBSTEP_BINARY_DIR) + "/analyze_plot_test";
    for (const char* suffix : {"-AD.png", "-PE.png", "-spectral_radius.png"})
        std::remove((prefix + suffix).c_str());
    const std::string cmd = exe + " analyze ms3 'generalized alpha' 'hht, -0.2' 'hht,-0.1' rk44 " +
                            "--rho 0.6 --points 31 -o " + prefix + " > " + prefix + ".log 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const auto index = Lines(prefix + "-index.csv");
    REQUIRE(index.size() == 6);
    CHECK(index[0] == "method,rho_inf,tunable,stages,order,file");
    CHECK(index[2].rfind("\"generalized alpha\",0.6,1,1,2,", 0) == 0);
    CHECK(index[3].rfind("\"hht, -0.2\",,0,1,2,", 0) == 0);
    CHECK(index[4].rfind("\"hht,-0.1\",,0,1,2,", 0) == 0);
    struct Expect {
        std::string file, method, rho;
        double rho_at_max;  // spectral radius at the largest h/T (h/T = 1000, Omega = 6283)
        double tol;         // the approach to rho_inf: |z|^(-1/m) for an m-fold root
    };
    const std::vector<Expect> files = {
        {"-ms3-rho0.6.csv", "ms3", "0.6", 0.6, 0.05},                              // m = 3
        {"-generalized-alpha-rho0.6.csv", "generalized alpha", "0.6", 0.6, 5e-3},  // Omega^-2/3
        {"-hht---0.2.csv", "\"hht, -0.2\"", "", 0.8 / 1.2, 1e-3},  // (1+alpha)/(1-alpha), m = 2
        {"-hht--0.1.csv", "\"hht,-0.1\"", "", 0.9 / 1.1, 1e-3},
        {"-rk44.csv", "rk44", "", -1.0, 0.0},  // unbounded: checked below
    };
    for (const auto& e : files) {
        INFO(e.file);
        const auto lines = Lines(prefix + e.file);
        REQUIRE(lines.size() == 32);
        CHECK(lines[0] ==
              "method,rho_inf,stages,h_over_T,Omega,spectral_radius,AD_percent,"
              "PE_percent");
        for (size_t i = 1; i < lines.size(); ++i) {
            const auto f = Fields(lines[i]);
            REQUIRE(f.size() >= 7);  // an empty rho_inf is an empty field
            CHECK(f[0] == e.method);
            CHECK(f[1] == e.rho);
            CHECK(std::stod(f[4]) == doctest::Approx(2 * M_PI * std::stod(f[3])).epsilon(1e-12));
        }
        const double rho_last = std::stod(Fields(lines.back())[5]);
        if (e.rho_at_max >= 0)
            CHECK(std::abs(rho_last - e.rho_at_max) < e.tol);
        else
            CHECK(rho_last > 1e10);  // |R(i 6283)| of RK4 ~ Omega^4 / 24
    }
    std::ifstream log(prefix + ".log");
    std::stringstream ss;
    ss << log.rdbuf();
    if (std::system("/usr/bin/python3 -c 'import matplotlib' > /dev/null 2>&1") != 0) {
        CHECK(ss.str().find("plots skipped") != std::string::npos);
        mbstep::test::ReportSkip("/usr/bin/python3 has no matplotlib: the PNGs are not checked");
        return;
    }
    for (const char* suffix : {"-AD.png", "-PE.png", "-spectral_radius.png"}) {
        INFO(suffix);
        std::ifstream png(prefix + suffix, std::ios::binary);
        REQUIRE(png.good());
        char sig[8] = {};
        png.read(sig, 8);
        CHECK(std::string(sig + 1, 3) == "PNG");
        png.seekg(0, std::ios::end);
        CHECK(png.tellg() > 10000);
    }
}
