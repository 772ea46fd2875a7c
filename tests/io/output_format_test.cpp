// The outputs' number formatting (mbstep/io/number_format.hpp) against std::ostream, which
// wrote them before (issue 7): the same characters for every precision and kind of value.
#include <doctest/doctest.h>

#include <cmath>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>

#include "mbstep/io/number_format.hpp"
#include "mbstep/io/output.hpp"
#include "mbstep/math/rotation.hpp"

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
    const Mat3 R = ExpSO3(Vec3(0.3, -1.1, 2.0));
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
