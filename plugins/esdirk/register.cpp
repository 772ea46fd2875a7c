// mbstep — plugin entry point of the `esdirk` family: one MethodInfo per keyword (the exact
// MBDyn keywords; lookup is case-insensitive).
#include <sstream>

#include "esdirk_methods.hpp"
#include "mbstep/io/deck_input.hpp"
#include "mbstep/plugin/registry.hpp"
#include "tableau_tools.hpp"

namespace {

using namespace mbstep;
using namespace mbstep::esdirk;

const char* kPaper = "Zhang, Masarati et al., section 2.3, eqs. (5)-(7), (12)-(17)";

// clang-format off
const MethodInfo kMethods[] = {
    {"Bathe", "rho_inf-Bathe, 2 implicit stages, order 2, tunable rho_inf", 2, 2, 2, false,
     RhoRange::kInterval, std::string(kPaper) + "; Noh & Bathe 2019", "eq. (7)", &BatheTableau},
    {"msstc3", "MSSTC(3), 3 implicit stages, order 2, rho_inf in 0, 0.1, ..., 1", 3, 2, 2, false,
     RhoRange::kTenths, std::string(kPaper) + "; ref. 35; MBDyn Msstc3Solver", "eqs. (5)-(6)", &Msstc3Tableau},
    {"msstc4", "MSSTC(4), 4 implicit stages, order 2, rho_inf in 0, 0.1, ..., 1", 4, 2, 2, false,
     RhoRange::kTenths, std::string(kPaper) + "; ref. 35; MBDyn Msstc4Solver", "eqs. (5)-(6)", &Msstc4Tableau},
    {"msstc5", "MSSTC(5), 5 implicit stages, order 2, rho_inf in 0, 0.1, ..., 1", 5, 2, 2, false,
     RhoRange::kTenths, std::string(kPaper) + "; ref. 35; MBDyn Msstc5Solver", "eqs. (5)-(6)", &Msstc5Tableau},
    {"mssth3", "MSSTH(3), 3 implicit stages, order 3, rho_inf in 0, 0.1, ..., 1", 3, 3, 2, false,
     RhoRange::kTenths, std::string(kPaper) + ", Appendix; MBDyn Mssth3Solver", "eqs. (5)-(6)", &Mssth3Tableau},
    {"mssth4", "MSSTH(4), 4 implicit stages, order 4, rho_inf in 0, 0.6, 1", 4, 4, 2, true,
     RhoRange::kZeroSixOne, std::string(kPaper) + ", Appendix; MBDyn Mssth4Solver", "eqs. (5)-(6), (16)-(17)", &Mssth4Tableau},
    {"mssth5", "MSSTH(5), 5 implicit stages, order 5, rho_inf in 0, 0.6, 1", 5, 5, 2, true,
     RhoRange::kZeroSixOne, std::string(kPaper) + ", Appendix; MBDyn Mssth5Solver", "eqs. (5)-(6), (16)-(17)", &Mssth5Tableau},
    {"DIRK33", "ESDIRK3(2)4L[2]SA (Kennedy & Carpenter), 3 implicit stages, order 3, L-stable", 3, 3, 2, false,
     RhoRange::kNone, "Kennedy & Carpenter, NASA/TM-2016-219173; " + std::string(kPaper), "-", &Dirk33Tableau},
    {"DIRK43", "ESDIRK3(2)5L[2]SA (Kennedy & Carpenter), 4 implicit stages, order 3, L-stable", 4, 3, 2, false,
     RhoRange::kNone, "Kennedy & Carpenter, NASA/TM-2016-219173; " + std::string(kPaper), "-", &Dirk43Tableau},
    {"DIRK54", "ESDIRK4(3)6L[2]SA2 (Kennedy & Carpenter), 5 implicit stages, order 4, L-stable", 5, 4, 2, true,
     RhoRange::kNone, "Kennedy & Carpenter, NASA/TM-2016-219173; " + std::string(kPaper), "(16)-(17)", &Dirk54Tableau},
};
// clang-format on

// Reads `[, rho_inf [, algebraic rho_inf]]` and rejects, with the argument's location, a
// constant rho_inf outside [0, 1] or off the method's table (STYLE.md §4).
RhoParameter ReadRho(DeckInput& in, const MethodInfo& m) {
    if (m.rho_range == RhoRange::kNone) return RhoParameter();
    auto read_one = [&](const char* label) {
        const SourceLocation where = in.Where();
        DrivePtr d = in.GetDrive(label);
        if (d->IsConstant()) {
            const double v = d->Value(0.0);
            std::ostringstream os;
            if (!(v >= 0.0 && v <= 1.0)) {
                os << m.name << ": " << label << " must be in [0, 1], got " << v;
                in.Fail(where, os.str());
            }
            if (std::string(label) == "rho_inf") {
                try {
                    m.tableau(v);
                } catch (const RunError& e) {
                    in.Fail(where, e.what());
                }
            }
        }
        return RhoParameter(d);
    };
    RhoParameter rho(std::make_shared<ConstDrive>(0.0));
    if (in.HasArg()) rho = read_one("rho_inf");
    if (in.HasArg()) read_one("algebraic rho_inf");  // accepted, no effect (esdirk_methods.hpp)
    return rho;
}

template <int S>
std::unique_ptr<Integrator> Make(const MethodInfo& m, DeckInput& in) {
    if constexpr (S > 1)
        if (m.stages != S) return Make<S - 1>(m, in);
    if (m.stages != S)
        throw RunError(m.name + ": " + std::to_string(m.stages) +
                       " implicit stages; StageN supports 1 to 6");
    return std::make_unique<EsdirkMethod<S>>(m, ReadRho(in, m));
}

}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    if (abi != mbstep::kPluginAbi) return 1;
    for (const MethodInfo& m : kMethods) {
        IntegratorDescriptor d;
        d.name = m.name;
        d.family = "ESDIRK, explicit first stage (StageN)";
        d.description = m.description;
        d.order = std::to_string(m.order);
        if (m.rho_range != RhoRange::kNone) {
            const char* range = m.rho_range == RhoRange::kInterval ? "[0, 1] (drive)"
                                : m.rho_range == RhoRange::kTenths ? "0, 0.1, ..., 1 (drive)"
                                                                   : "0, 0.6, 1 (drive)";
            d.parameters = {{"rho_inf", "0", range},
                            {"algebraic rho_inf", "rho_inf", "[0, 1] (no effect)"}};
            d.tunable = true;
        }
        d.reference = m.reference;
        if (m.equations != "-") d.equations = m.equations;
        d.make = [&m](DeckInput& in) { return Make<6>(m, in); };
        r.Add(std::move(d));
    }
    return 0;
}
