// mbstep — the single-step methods SS2, SS3, SS4 on SingleStep<N> (plugin family
// `single_step`): the equivalents of LMS2/3/4 (`ms2`, `ms3`, `ms4`) with N - 1 auxiliary
// derivative variables [Zhang, Masarati et al., section 2.2; their ref. 36].
//
// Summary: 1 implicit stage, self-starting, order 2, A-stable, rho_inf in [0, 1]
// (rho_inf = 0: SS2 is BDF2 in single-step form); the same characteristic roots as LMS N.
//
// Parameters (gamma_0..gamma_{2N-2}, SingleStep eqs. (1)-(3); g_j = gamma_j, r = rho_inf):
//   all even-indexed gammas   g_0 = g_2 = ... = g_{2N-2} = 1 / (1 + r)
//   SS2   g_1 = (3 - r) / (2 (1 + r))
//   SS3   g_1 = (5 - r) / (4 (1 + r)) + i sqrt(15) (1 - r) / (12 (1 + r)),   g_3 = conj(g_1)
//   SS4   g_1 = (18136681528176695 - 4625882646065207 r) / (13510798882111488 (1 + r))  (real)
//         g_3 = (29151114559213513 - 2129516794990537 r) / (27021597764222976 (1 + r))
//               + i 5833664606412816 sqrt(3) (1 - r) / (27021597764222976 (1 + r)),
//         g_5 = conj(g_3)
//   (SS4's integers are MBDyn's double constants, from MBDyn's mbdyn/base/singlestepsol_impl.cc,
//   written as rationals over 3 2^52 and 6 2^52; tests/integrators/single_step_test.cpp checks
//   the values at r = 0, 0.6, 1.)
// Stage order (SingleStep eq. (2)): stage p uses (g_{2(N-p)-1}, g_{2(N-p)}), so the chain is
//   SS3: y' -(g3, g4)-> W1 -(g1, g2)-> W2 -(g0)-> y,
//   SS4: y' -(g5, g6)-> W1 -(g3, g4)-> W2 -(g1, g2)-> W3 -(g0)-> y,
// conjugate pairs on consecutive stages (W_{N-1} real). The gammas make the characteristic
// polynomial of SingleStep eq. (6) equal to rho(zeta) - z sigma(zeta) of LMS N times a
// constant (tests/integrators/single_step_test.cpp checks this for SS2/3/4 at several rho).
//
// Predictor and start-up: SingleStep (constant y', W_p = y'_0 at t_0). The algebraic rho_inf
// is accepted and validated; multipliers are not integrated (MBDyn copies the differential
// coefficients for them as well), so it has no effect.
#pragma once

#include <string>

#include "mbstep/integrator/single_step.hpp"

namespace mbstep::single_step {

/// The family: name, rho_inf drives, order 2; a method supplies its gammas only.
template <int N>
class Method : public SingleStep<N> {
  public:
    Method(std::string name, RhoParameter rho, RhoParameter alg)
        : name_(std::move(name)), rho_(std::move(rho)), alg_(std::move(alg)) {}
    std::string name() const override { return name_; }
    static constexpr int kOrder = 2;  ///< declared order (also the registry's)
    static constexpr bool kTunable = true;
    int order() const override { return kOrder; }
    bool tunable() const override { return kTunable; }

  protected:
    double DoRho(double t) const override { return rho_.At(t); }

  private:
    std::string name_;
    RhoParameter rho_, alg_;
};

class Ss2 final : public Method<2> {
  public:
    using Method<2>::Method;

  protected:
    Gammas DoGammas(double rho) const override;
};

class Ss3 final : public Method<3> {
  public:
    using Method<3>::Method;

  protected:
    Gammas DoGammas(double rho) const override;
};

class Ss4 final : public Method<4> {
  public:
    using Method<4>::Method;

  protected:
    Gammas DoGammas(double rho) const override;
};

}  // namespace mbstep::single_step
