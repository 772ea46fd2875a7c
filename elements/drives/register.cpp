// mbstep — the drives plugin: one registry entry per drive caller keyword (drives.hpp).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "drives.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep::drives {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// `tf | forever` as a time (+inf for forever).
double GetEndTime(DeckInput& in, std::string_view what) {
    return in.IsKeyword("forever") ? kInf : in.GetReal(what);
}

/// `N | half | one | forever` of (9), (10): -1, 1, 0 or N.
long GetCycles(DeckInput& in) {
    if (in.IsKeyword("forever")) return 0;
    if (in.IsKeyword("one")) return 1;
    if (in.IsKeyword("half")) return -1;
    return in.GetInt("number of cycles (N, half, one or forever)");
}

DrivePtr ReadPolynomial(DeckInput& in, int degree) {
    std::vector<double> c;
    static const char* const kNames[] = {"constant coefficient", "linear coefficient",
                                         "parabolic coefficient", "cubic coefficient"};
    for (int k = 0; k <= degree; ++k) c.push_back(in.GetReal(kNames[k]));
    return std::make_shared<PolynomialDrive>(std::move(c));
}

/// slope, t0, tf (| forever) of (5) and (6).
RampDrive ReadRamp(DeckInput& in, const std::string& prefix, bool allow_forever, double v0) {
    const double s = in.GetReal(prefix + "slope");
    const double t0 = in.GetReal(prefix + "initial time");
    const SourceLocation at = in.Where();
    const double tf =
        allow_forever ? GetEndTime(in, prefix + "final time") : in.GetReal(prefix + "final time");
    if (tf < t0) in.Fail(at, prefix + "final time must not precede the initial time");
    return RampDrive(s, t0, tf, v0);
}

DrivePtr ReadHarmonic(DeckInput& in, bool cosine) {
    const double t0 = in.GetReal("initial time");
    const SourceLocation at = in.Where();
    const double omega = in.GetReal("angular velocity");
    if (omega == 0.0) in.Fail(at, "angular velocity must be non-zero");
    const double a = in.GetReal("amplitude");
    const long n = GetCycles(in);
    const double v0 = in.GetReal("initial value");
    return std::make_shared<HarmonicDrive>(cosine, t0, omega, a, n, v0);
}

DrivePtr ReadPiecewiseLinear(DeckInput& in) {
    const SourceLocation at = in.Where();
    const long n = in.GetInt("number of points");
    if (n < 2 || n > 1000000) in.Fail(at, "piecewise linear drive needs at least 2 points");
    std::vector<double> t, v;
    for (long i = 0; i < n; ++i) {
        const SourceLocation at_t = in.Where();
        t.push_back(in.GetReal("point " + std::to_string(i + 1)));
        if (i > 0 && !(t[i] > t[i - 1]))
            in.Fail(at_t, "piecewise linear points must be strictly increasing");
        v.push_back(in.GetReal("value " + std::to_string(i + 1)));
    }
    return std::make_shared<PiecewiseLinearDrive>(std::move(t), std::move(v));
}

void Add(Registry& r, const char* name, const char* description,
         std::function<DrivePtr(DeckInput&)> read) {
    r.Add(DriveDescriptor{name, description, std::move(read), {}});
}

}  // namespace

void RegisterDrives(Registry& r) {
    Add(r, "const", "f = c (1)", [](DeckInput& in) -> DrivePtr {
        return std::make_shared<ConstDrive>(in.GetReal("constant"));
    });
    Add(r, "linear", "f = c0 + c1 t (2)", [](DeckInput& in) { return ReadPolynomial(in, 1); });
    Add(r, "parabolic", "f = c0 + c1 t + c2 t^2 (3)",
        [](DeckInput& in) { return ReadPolynomial(in, 2); });
    Add(r, "cubic", "f = c0 + c1 t + c2 t^2 + c3 t^3 (4)",
        [](DeckInput& in) { return ReadPolynomial(in, 3); });
    Add(r, "ramp", "slope, t0, tf|forever, v0: linear rise between t0 and tf (5)",
        [](DeckInput& in) -> DrivePtr {
            const RampDrive shape = ReadRamp(in, "", true, 0.0);
            const double v0 = in.GetReal("initial value");
            return std::make_shared<RampDrive>(shape.WithInitialValue(v0));
        });
    Add(r, "double ramp", "ascending then descending ramp (6)", [](DeckInput& in) -> DrivePtr {
        const RampDrive a = ReadRamp(in, "ascending ", false, 0.0);
        const SourceLocation at = in.Where();
        const RampDrive d = ReadRamp(in, "descending ", true, 0.0);
        if (d.initial_time() < a.final_time())
            in.Fail(at, "the descending ramp must start after the ascending ramp ends");
        const double v0 = in.GetReal("initial value");
        return std::make_shared<DoubleRampDrive>(a, d, v0);
    });
    Add(r, "step", "t0, s, v0: v0 before t0, v0 + s after (7)", [](DeckInput& in) -> DrivePtr {
        const double t0 = in.GetReal("initial time");
        const double s = in.GetReal("step value");
        const double v0 = in.GetReal("initial value");
        return std::make_shared<StepDrive>(t0, kInf, s, v0);
    });
    Add(r, "double step", "t0, tf, s, v0: v0 + s between t0 and tf (8)",
        [](DeckInput& in) -> DrivePtr {
            const double t0 = in.GetReal("initial time");
            const SourceLocation at = in.Where();
            const double tf = in.GetReal("final time");
            if (tf < t0) in.Fail(at, "final time must not precede the initial time");
            const double s = in.GetReal("step value");
            const double v0 = in.GetReal("initial value");
            return std::make_shared<StepDrive>(t0, tf, s, v0);
        });
    Add(r, "sine", "t0, omega, A, N|half|one|forever, v0: v0 + A sin(omega (t - t0)) (9)",
        [](DeckInput& in) { return ReadHarmonic(in, false); });
    Add(r, "cosine", "t0, omega, A, N|half|one|forever, v0: v0 + A (1 - cos(omega (t - t0))) (10)",
        [](DeckInput& in) { return ReadHarmonic(in, true); });
    Add(r, "piecewise linear", "n, t1, v1, ...: linear interpolation, constant outside (11)",
        ReadPiecewiseLinear);
    Add(r, "string", "\"expression of Time\" (12)", [](DeckInput& in) -> DrivePtr {
        return std::make_shared<StringDrive>(in.GetExpression("string drive expression"));
    });
    Add(r, "time", "f = t (13)",
        [](DeckInput&) -> DrivePtr { return std::make_shared<TimeDrive>(); });
    Add(r, "direct", "f = t, the input passed through (22)",
        [](DeckInput&) -> DrivePtr { return std::make_shared<TimeDrive>(); });
    Add(r, "null", "f = 0 (14)",
        [](DeckInput&) -> DrivePtr { return std::make_shared<ConstDrive>(0.0); });
    Add(r, "unit", "f = 1 (15)",
        [](DeckInput&) -> DrivePtr { return std::make_shared<ConstDrive>(1.0); });
    Add(r, "one", "f = 1; alias of unit, MBDyn's deprecated name (15)",
        [](DeckInput&) -> DrivePtr { return std::make_shared<ConstDrive>(1.0); });
    Add(r, "tanh", "t0, A, b, v0: v0 + A tanh(b (t - t0)) (16)", [](DeckInput& in) -> DrivePtr {
        const double t0 = in.GetReal("initial time");
        const double a = in.GetReal("amplitude");
        const double b = in.GetReal("slope");
        const double v0 = in.GetReal("initial value");
        return std::make_shared<TanhDrive>(t0, a, b, v0);
    });
    Add(r, "exponential", "A, tau, t0, v0: v0 + A (1 - exp(-(t - t0)/tau)) (17)",
        [](DeckInput& in) -> DrivePtr {
            const double a = in.GetReal("amplitude");
            const SourceLocation at = in.Where();
            const double tau = in.GetReal("time constant");
            if (tau == 0.0) in.Fail(at, "time constant must be non-zero");
            const double t0 = in.GetReal("initial time");
            const double v0 = in.GetReal("initial value");
            return std::make_shared<ExponentialDrive>(a, tau, t0, v0);
        });
    Add(r, "mult", "<drive>, <drive>: product (18)", [](DeckInput& in) -> DrivePtr {
        std::vector<DrivePtr> d{in.GetDrive("first factor"), in.GetDrive("second factor")};
        return std::make_shared<CombinedDrive>(true, std::move(d));
    });
    Add(r, "array", "n, <drive>, ...: sum (19)", [](DeckInput& in) -> DrivePtr {
        const SourceLocation at = in.Where();
        const long n = in.GetInt("number of drives");
        if (n < 1 || n > 100000) in.Fail(at, "array drive needs at least 1 drive");
        std::vector<DrivePtr> d;
        for (long i = 0; i < n; ++i) d.push_back(in.GetDrive("drive " + std::to_string(i + 1)));
        return std::make_shared<CombinedDrive>(false, std::move(d));
    });
    Add(r, "drive", "<drive g>, <drive h>: g(h(t)) (20)", [](DeckInput& in) -> DrivePtr {
        DrivePtr g = in.GetDrive("outer drive");
        DrivePtr h = in.GetDrive("inner drive");
        return std::make_shared<CompositeDrive>(std::move(g), std::move(h));
    });
    Add(r, "periodic", "t0, T, <drive>: the drive repeated with period T (21)",
        [](DeckInput& in) -> DrivePtr {
            const double t0 = in.GetReal("initial time");
            const SourceLocation at = in.Where();
            const double period = in.GetReal("period");
            if (!(period > 0.0)) in.Fail(at, "period must be positive");
            return std::make_shared<PeriodicDrive>(t0, period, in.GetDrive("periodic function"));
        });
}

}  // namespace mbstep::drives

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    mbstep::drives::RegisterDrives(r);
    return 0;
}
