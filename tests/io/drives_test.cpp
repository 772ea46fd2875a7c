// mbstep tests — drive callers: every registered drive against finite differences (a
// registry-driven loop: a drive without a sample below fails), and known values.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "io_support.hpp"

using namespace mbstep;

namespace {

/// One valid argument list per drive keyword, chosen so that the sample times of the
/// finite-difference check below avoid every break point.
const std::map<std::string, std::string>& Samples() {
    static const std::map<std::string, std::string> samples = {
        {"const", "const, 2.5"},
        {"linear", "linear, 1, 2"},
        {"parabolic", "parabolic, 1, 2, 3"},
        {"cubic", "cubic, 1, 2, 3, 4"},
        {"ramp", "ramp, 2, 0.5, 3.3, 1"},
        {"double ramp", "double ramp, 2, 0.5, 1.5, -1, 2.5, forever, 1"},
        {"step", "step, 1.05, 2, 1"},
        {"double step", "double step, 1.05, 3.05, 2, 1"},
        {"sine", "sine, 0.1, 2, 1.5, 2, 0.5"},
        {"cosine", "cosine, 0.1, 2, 1.5, half, 0.5"},
        {"piecewise linear", "piecewise linear, 3, 0.05, 0, 1.05, 2, 3.05, 0"},
        {"string", "string, \"sin(2*Time)*exp(-Time) + Time^3/(1 + Time^2)\""},
        {"time", "time"},
        {"direct", "direct"},
        {"null", "null"},
        {"unit", "unit"},
        {"one", "one"},
        {"tanh", "tanh, 1, 2, 3, 0.5"},
        {"exponential", "exponential, 2, 0.5, 0.3, 1"},
        {"mult", "mult, sine, 0, 1, 1, forever, 0, linear, 1, 2"},
        {"array", "array, 2, time, cosine, 0, 2, 1, forever, 0"},
        {"drive", "drive, string, \"Time^2\", sine, 0, 1, 1, forever, 0"},
        {"periodic", "periodic, 0.3, 1.7, parabolic, 0, 1, 1"},
    };
    return samples;
}

double At(const std::string& text, double t) {
    return ReadDrive(text, test::TestRegistry())->Value(t);
}
double Slope(const std::string& text, double t) {
    return ReadDrive(text, test::TestRegistry())->Derivative(t);
}

}  // namespace

TEST_CASE("drives: every registered drive, value and derivative vs finite differences") {
    const Registry& r = test::TestRegistry();
    REQUIRE(r.FindDrive("sine") != nullptr);  // the drives plugin is loaded
    for (const DriveDescriptor& d : r.drives()) {
        INFO("drive '" << d.name << "' (" << d.library << ")");
        auto it = Samples().find(d.name);
        REQUIRE_MESSAGE(it != Samples().end(), "no sample arguments for drive " << d.name);
        const DrivePtr drive = ReadDrive(it->second, r);
        REQUIRE(drive);
        for (int k = 0; k < 12; ++k) {
            const double t = 0.0123 + 0.4 * k;
            const double h = 1e-6;
            // Central difference: error O(h^2 f''') plus round-off O(eps |f| / h) ~ 1e-9.
            const double fd = (drive->Value(t + h) - drive->Value(t - h)) / (2 * h);
            INFO("t = " << t);
            CHECK(std::isfinite(drive->Value(t)));
            CHECK(drive->Derivative(t) == doctest::Approx(fd).epsilon(1e-6).scale(1.0));
        }
    }
}

TEST_CASE("drives: known values (MBDyn semantics)") {
    // ramp, slope, t0, tf, v0
    CHECK(At("ramp, 2, 1, 3, 5", 0.0) == 5.0);
    CHECK(At("ramp, 2, 1, 3, 5", 2.0) == 7.0);
    CHECK(At("ramp, 2, 1, 3, 5", 10.0) == 9.0);
    CHECK(At("ramp, 2, 1, forever, 5", 10.0) == 23.0);
    CHECK(Slope("ramp, 2, 1, 3, 5", 2.0) == 2.0);
    // double ramp
    CHECK(At("double ramp, 1, 0, 1, -2, 2, 3, 0", 0.5) == 0.5);
    CHECK(At("double ramp, 1, 0, 1, -2, 2, 3, 0", 1.5) == 1.0);
    CHECK(At("double ramp, 1, 0, 1, -2, 2, 3, 0", 2.5) == 0.0);
    CHECK(At("double ramp, 1, 0, 1, -2, 2, 3, 0", 4.0) == -1.0);
    // step, double step
    CHECK(At("step, 1, 2, 3", 0.5) == 3.0);
    CHECK(At("step, 1, 2, 3", 1.5) == 5.0);
    CHECK(At("double step, 1, 2, 5, 1", 1.5) == 6.0);
    CHECK(At("double step, 1, 2, 5, 1", 3.0) == 1.0);
    // sine with N cycles ends after N - 1/2 cycles at v0: t0 = 0, omega = pi (T = 2).
    CHECK(At("sine, 0, pi, 2, 1, 0", 0.5) == doctest::Approx(2.0));
    CHECK(At("sine, 0, pi, 2, one, 0", 1.5) == 0.0);                 // te = 1
    CHECK(At("sine, 0, pi, 2, 2, 0", 2.5) == doctest::Approx(2.0));  // te = 3
    CHECK(At("sine, 0, pi, 2, 2, 0", 3.5) == 0.0);
    CHECK(At("sine, 0, pi, 2, forever, 0", 100.5) == doctest::Approx(2.0));
    // half: a quarter period, then the top value v0 + A.
    CHECK(At("sine, 0, pi/2, 3, half, 1", 0.5) == doctest::Approx(1.0 + 3.0 * std::sin(M_PI / 4)));
    CHECK(At("sine, 0, pi/2, 3, half, 1", 2.0) == 4.0);
    CHECK(At("sine, 0, pi/2, 3, -2, 1", 4.0) == doctest::Approx(1.0));  // te = 4 (2 - 3/4) = 5
    CHECK(At("sine, 0, pi/2, 3, -2, 1", 6.0) == 4.0);
    CHECK(At("sine, 0, pi/2, 3, -2, 1", 4.5) ==
          doctest::Approx(1.0 + 3.0 * std::sin(M_PI / 4 * 9)));
    // cosine: v0 + A (1 - cos), N cycles end at v0, half ends at v0 + 2A.
    CHECK(At("cosine, 0, pi, 1, one, 0", 1.0) == doctest::Approx(2.0));
    CHECK(At("cosine, 0, pi, 1, one, 0", 2.5) == 0.0);
    CHECK(At("cosine, 0, pi, 1, half, 0", 2.0) == 2.0);
    CHECK(At("cosine, 1., pi/1., -.1, half, sqrt(2)", 0.0) == doctest::Approx(std::sqrt(2.0)));
    // piecewise linear: interpolation, constant outside.
    const std::string pl = "piecewise linear, 3, 0, 0, 1, 2, 3, 0";
    CHECK(At(pl, -1.0) == 0.0);
    CHECK(At(pl, 0.5) == 1.0);
    CHECK(At(pl, 2.0) == 1.0);
    CHECK(At(pl, 5.0) == 0.0);
    CHECK(Slope(pl, 0.5) == 2.0);
    CHECK(Slope(pl, 2.0) == -1.0);
    CHECK(Slope(pl, 5.0) == 0.0);
    // string, time, const, plain expressions
    CHECK(At("string, \"Time^2\"", 3.0) == 9.0);
    CHECK(Slope("string, \"Time^2\"", 3.0) == 6.0);
    CHECK(At("time", 2.5) == 2.5);
    CHECK(At("2*pi", 7.0) == doctest::Approx(2 * M_PI));
    CHECK(ReadDrive("1.5", test::TestRegistry())->IsConstant());
    CHECK(At("null", 1.0) == 0.0);
    CHECK(At("unit", 1.0) == 1.0);
}

TEST_CASE("drives: argument errors") {
    const Registry& r = test::TestRegistry();
    auto message = [&](const std::string& text) -> std::string {
        try {
            ReadDrive(text, r);
        } catch (const DeckError& e) {
            return e.what();
        }
        return "no error";
    };
    CHECK(message("piecewise linear, 2, 1, 0, 1, 1").find("strictly increasing") !=
          std::string::npos);
    CHECK(message("piecewise linear, 1, 1, 0").find("at least 2 points") != std::string::npos);
    CHECK(message("sine, 0, 0, 1, forever, 0").find("angular velocity must be non-zero") !=
          std::string::npos);
    CHECK(message("ramp, 1, 2, 1, 0").find("must not precede") != std::string::npos);
    CHECK(message("sinus, 0, 1").find("unknown drive 'sinus'") != std::string::npos);
    CHECK(message("string, \"Time +\"").rfind("<drive>:1:16:", 0) == 0);  // inside the string
    CHECK(message("string, \"real x = 1\"").find("not allowed") != std::string::npos);
    CHECK(message("linear, 1").find("expected a real number (linear coefficient)") !=
          std::string::npos);
    CHECK(message("const, 1, 2").find("unexpected argument") != std::string::npos);
}

TEST_CASE("drives: a string drive of a 200000-term chain") {
    // Flat chains do not recurse (io/expression_eval.cpp): value and derivative of Time + ... +
    // Time.
    std::string body = "Time";
    for (int i = 1; i < 200000; ++i) body += "+Time";
    const DrivePtr d = ReadDrive("string, \"" + body + "\"", test::TestRegistry());
    CHECK(d->Value(0.25) == 50000.0);
    CHECK(d->Derivative(0.25) == 200000.0);
}
