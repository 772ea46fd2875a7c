// mbstep — the esdirk family: stiffly accurate ESDIRK methods with explicit first stage on
// StageN<S> [Zhang, Masarati et al., section 2.3]; MBDyn's multistage integrators.
//
// Summary (S = implicit stages, order p, all stage order 2, A-stable):
//   keyword  S  p  rho_inf            R(-inf)        coefficients
//   Bathe    2  2  [0, 1]             +rho_inf       closed form, bathe.cpp (eq. (7))
//   msstc3   3  2  0, 0.1, ..., 1     -rho_inf       msstc.cpp
//   msstc4   4  2  0, 0.1, ..., 1     +rho_inf       msstc.cpp
//   msstc5   5  2  0, 0.1, ..., 1     -rho_inf       msstc.cpp
//   mssth3   3  3  0, 0.1, ..., 1     +rho_inf       mssth.cpp
//   mssth4   4  4  0, 0.6, 1          +rho_inf       mssth.cpp
//   mssth5   5  5  0, 0.6, 1          -rho_inf       mssth.cpp
//   DIRK33   3  3  0 (L-stable)       0              kennedy_carpenter.cpp, ESDIRK3(2)4L[2]SA
//   DIRK43   4  3  0 (L-stable)       0              kennedy_carpenter.cpp, ESDIRK3(2)5L[2]SA
//   DIRK54   5  4  0 (L-stable)       0              kennedy_carpenter.cpp, ESDIRK4(3)6L[2]SA2
// (the rows, the defining equations and the references are in each .cpp's header block).
//
// Tunable parameter: rho_inf (a drive; a number is a constant drive), default 0, validated
// when read (constant) and at every step (drive): outside [0, 1] or, for the tabulated
// families, off their grid, it is rejected with the accepted values (MBDyn rejects the same
// values). An optional algebraic rho_inf is accepted for MBDyn compatibility and, as for the
// other families (docs/DESIGN.md), has no effect: multipliers are not integrated.
//
// Predictors (stage_n.hpp (5)-(7)): constant for stage 1, second order for the later stages,
// fourth order for the last stage of mssth4, mssth5 and DIRK54 [paper, section 3.1].
#pragma once

#include <string>

#include "mbstep/integrator/stage_n.hpp"

namespace mbstep::esdirk {

/// Which rho_inf a method accepts.
enum class RhoRange { kNone, kInterval, kTenths, kZeroSixOne };

/// One method: a table plus a name (STYLE.md §1).
struct MethodInfo {
    std::string name;
    std::string description;
    int stages{0};  ///< implicit stages S
    int order{0};
    int stage_order{2};
    bool fourth_order_last_stage{false};
    RhoRange rho_range{RhoRange::kNone};
    std::string reference;
    std::string equations;
    EsdirkTableau (*tableau)(double rho){nullptr};  ///< throws RunError for a rho not accepted
};

template <int S>
class EsdirkMethod final : public StageN<S> {
  public:
    EsdirkMethod(const MethodInfo& info, RhoParameter rho) : info_(info), rho_(std::move(rho)) {}
    std::string name() const override { return info_.name; }
    int order() const override { return info_.order; }
    int stage_order() const override { return info_.stage_order; }
    bool tunable() const override { return info_.rho_range != RhoRange::kNone; }

  protected:
    EsdirkTableau DoTableau(double rho) const override { return info_.tableau(rho); }
    StagePredictor DoPredictor(int stage) const override {
        if (stage == S && info_.fourth_order_last_stage) return StagePredictor::kFourthOrder;
        return StageNBase::DoPredictor(stage);
    }
    double DoRho(double t) const override { return tunable() ? rho_.At(t) : 0.0; }

  private:
    MethodInfo info_;
    RhoParameter rho_;
};

// Tableau functions (one per method).
EsdirkTableau BatheTableau(double rho);
EsdirkTableau Msstc3Tableau(double rho);
EsdirkTableau Msstc4Tableau(double rho);
EsdirkTableau Msstc5Tableau(double rho);
EsdirkTableau Mssth3Tableau(double rho);
EsdirkTableau Mssth4Tableau(double rho);
EsdirkTableau Mssth5Tableau(double rho);
EsdirkTableau Dirk33Tableau(double rho);
EsdirkTableau Dirk43Tableau(double rho);
EsdirkTableau Dirk54Tableau(double rho);

}  // namespace mbstep::esdirk
