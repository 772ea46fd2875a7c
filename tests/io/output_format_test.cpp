// The outputs' number formatting (mbstep/io/number_format.hpp) against std::ostream, which
// wrote them before, and against std::to_chars at the same precision (printf's "%.*g"): the
// same characters for every precision and kind of value, including the cases FormatNumber's
// double-double arithmetic must get exactly (ties, carries into a new digit, powers of ten).
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>

#include "mbstep/io/number_format.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"

using namespace mbstep;

namespace {
std::string ViaStream(double v, int precision) {
    std::ostringstream os;
    os << std::setprecision(precision) << v;
    return os.str();
}
}  // namespace

TEST_CASE("output numbers: to_chars gives what std::ostream wrote, every precision") {
    std::mt19937 gen(3);
    std::uniform_real_distribution<double> mant(-10.0, 10.0);
    std::uniform_int_distribution<int> expo(-320, 300);
    std::vector<double> values{0.0,
                               -0.0,
                               1.0,
                               -1.0,
                               0.1,
                               1e-5,
                               123456789.0,
                               9.999999999e-5,
                               0.5,
                               std::numeric_limits<double>::min(),
                               std::numeric_limits<double>::denorm_min(),
                               std::numeric_limits<double>::max(),
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity()};
    for (int i = 0; i < 2000; ++i) values.push_back(mant(gen) * std::pow(10.0, expo(gen)));
    int compared = 0;
    for (int p = 0; p <= 20; ++p)
        for (double v : values) {
            std::string s;
            AppendNumber(s, v, p);
            INFO("value ", ViaStream(v, 17), " precision ", p);
            CHECK(s == ViaStream(v, p));
            ++compared;
        }
    CHECK(compared == 21 * 2014);
    std::string nan;
    AppendNumber(nan, std::numeric_limits<double>::quiet_NaN(), 6);
    CHECK(nan == ViaStream(std::numeric_limits<double>::quiet_NaN(), 6));
    std::string label;
    AppendNumber(label, -1234567L);
    AppendVector3(label, Vec3(1.5, -2.0, 1e-7), 6);
    CHECK(label == "-1234567 1.5 -2 1e-07");
}

TEST_CASE("output orientation columns: all conventions, same text as through std::ostream") {
    const Mat3 R = so3::Exp(Vec3(0.3, -1.1, 2.0));
    std::ostringstream m;
    m << std::setprecision(8);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m << (i + j ? " " : "") << R(i, j);
    CHECK(FormatOrientation(R, OrientationOutput::kOrientationMatrix, 8) == m.str());
    const Vec3 a = Euler123FromRotation(R) * (180.0 / M_PI);
    std::ostringstream e;
    e << std::setprecision(6) << a.x() << " " << a.y() << " " << a.z();
    CHECK(FormatOrientation(R, OrientationOutput::kEuler123, 6) == e.str());
    const Vec3 phi = LogSO3(R);
    std::ostringstream o;
    o << std::setprecision(10) << phi.x() << " " << phi.y() << " " << phi.z();
    CHECK(FormatOrientation(R, OrientationOutput::kOrientationVector, 10) == o.str());
}

namespace {
std::string ViaToChars(double v, int precision) {
    char buf[64];
    return std::string(
        buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision).ptr);
}
std::string Formatted(double v, int precision) {
    char buf[kMaxNumberChars];
    return std::string(buf, FormatNumber(buf, v, precision));
}
}  // namespace

TEST_CASE("FormatNumber writes what std::to_chars writes: 10^5 values of every kind, p = 0..17") {
    std::mt19937_64 gen(11);
    std::uniform_real_distribution<double> mant(-10.0, 10.0);
    std::uniform_int_distribution<int> expo(-320, 300);
    std::vector<double> values;
    for (int i = 0; i < 20000; ++i) {
        // Any bit pattern (subnormals, huge, tiny; NaN and inf included).
        const std::uint64_t bits = gen();
        double v = 0.0;
        std::memcpy(&v, &bits, sizeof v);
        values.push_back(v);
        // Any magnitude.
        values.push_back(mant(gen) * std::pow(10.0, expo(gen)));
        // Short decimals (ties of the decimal text at some precision: 0.125, 2.5e-3, ...).
        values.push_back(std::round(mant(gen) * 1e6) /
                         std::pow(10.0, static_cast<int>(gen() % 12)));
        // Binary fractions: exact ties of the exact value at some precision.
        values.push_back(static_cast<double>(static_cast<std::int64_t>(gen() % 2000001) - 1000000) /
                         8.0 * std::pow(2.0, static_cast<int>(gen() % 60) - 30));
        // Neighbours of powers of ten (carries into a new digit, the decimal exponent's edges).
        const double p10 = std::pow(10.0, static_cast<int>(gen() % 80) - 40);
        values.push_back(std::nextafter(p10, 0.0));
        values.push_back(std::nextafter(p10, 1e300));
    }
    for (double v : {0.0,
                     -0.0,
                     0.5,
                     1.5,
                     2.5,
                     0.125,
                     9.5,
                     99.5,
                     999999.5,
                     9999995.0,
                     0.15,
                     0.25,
                     1e22,
                     1e23,
                     9.999999999999999e22,
                     4503599627370495.5,
                     4503599627370497.0,
                     9007199254740993.0,
                     1e-5,
                     9.9999949999999e-5})
        values.push_back(v);
    long compared = 0, differ = 0;
    for (int p = 0; p <= 17; ++p)
        for (double v : values) {
            const std::string got = Formatted(v, p), want = ViaToChars(v, p);
            if (got != want && ++differ <= 10) {
                INFO("value ", ViaToChars(v, 17), " precision ", p);
                CHECK(got == want);
            }
            ++compared;
        }
    CHECK(differ == 0);
    CHECK(compared == 18L * static_cast<long>(values.size()));
    // Integers and the line helpers.
    char buf[24];
    CHECK(std::string(buf, FormatNumber(buf, -9223372036854775807L)) == "-9223372036854775807");
    char line[3 * (kMaxNumberChars + 1)];
    CHECK(std::string(line, FormatVector3(line, Vec3(0.1, -2.5e-7, 1e21), 16)) ==
          " 0.1 -2.5e-07 1e+21");
}
