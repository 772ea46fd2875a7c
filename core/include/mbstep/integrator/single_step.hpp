// mbstep — SingleStep<N>: the single-step methods equivalent to the N-step LMS, with N - 1
// auxiliary derivative variables, for r(y, y', t) = 0 [Zhang, Masarati et al., sections 2.2
// and 3; Zhang et al. ref. 36]; MBDyn's tplSingleStepIntegrator.
//
// Summary: one implicit solve per step, self-starting, order 2 (SS2/3/4), A-stable with
// rho_inf in [0, 1]; on y' = lambda y the characteristic roots are those of LMS N.
//
// Notation: W_p (p = 1..N-1) are the auxiliary variables (the paper's y'^p), W_0 = y'; the
// parameters gamma_0..gamma_{2N-2} are complex; go_p = gamma_{2(N-p)-1}, ge_p = gamma_{2(N-p)}
// are the pair of stage p.
//
//   (1) y_k = y_{k-1} + h ((1 - gamma_0) W_{N-1,k-1} + gamma_0 W_{N-1,k})          [eq. (4a)]
//   (2) go_p W_{p,k} + (1 - go_p) W_{p,k-1} = ge_p W_{p-1,k} + (1 - ge_p) W_{p-1,k-1},
//       p = 1..N-1 (a cascade of first-order filters from y' to W_{N-1})     [eqs. (4b)-(4e)]
//   (3) written forward: W_{p,k} = d_p W_{p-1,k} + e_p W_{p-1,k-1} + f_p W_{p,k-1},
//       d_p = ge_p / go_p, e_p = (1 - ge_p) / go_p, f_p = -(1 - go_p) / go_p    [eqs. (18)-(20)]
//   (4) eliminating W_{.,k} from (1) with (3):                                  [eqs. (9)-(11)]
//         y_k = y_{k-1} + h Re[ b_0 y'_k + b_-1 y'_{k-1} + sum_p bI_p W_{p,k-1} ],
//       the b's computed by the template from the gammas for any N (Scheme below); e.g. SS2:
//       b_0 = g0 g2 / g1, b_-1 = g0 (1 - g2) / g1, bI_1 = (g1 - g0) / g1.
//       For SS3/SS4 the complex gammas come in conjugate pairs on consecutive stages, so b_0,
//       b_-1, W_{N-1} and y are real in exact arithmetic; Re[] drops round-off.
//   (5) Newton on y' with dy = c dy', c = Re(b_0) h                               [eq. (21)]
//   (6) linear analysis (y' = lambda y, z = h lambda, zeta the shift): the recurrence has the
//       characteristic polynomial, with P = prod_p (go_p zeta + 1 - go_p) and
//       Q = prod_p (ge_p zeta + 1 - ge_p),
//         (zeta - 1) P(zeta) - z (g0 zeta + 1 - g0) Q(zeta),
//       which the method's gammas make proportional to rho(zeta) - z sigma(zeta) of LMS N.
//       AmplificationMatrix() is the N x N complex matrix of one step over
//       (y, h W_1, ..., h W_{N-1}); its eigenvalues are exactly those roots.
//       RealAmplificationMatrix() is the (2N - 1) real matrix of the step as implemented (real
//       y, real and imaginary parts of W): its N - 1 extra eigenvalues (filter modes of (3),
//       largest |.| 1/3, 0.316, 0.335 for SS2/3/4 at rho_inf = 0) do not reach y
//       (tests/integrators/single_step_test.cpp).
//
// Tunable parameters: rho_inf in [0, 1] (a drive; the gammas of step k are those of rho_inf
// at t_k, and the update (3) of W at point k uses the gammas of step k).
//
// Predictor and start-up [eq. (15), section 2.2]: y'_N = y'_{N-1} (constant), y_N from (4);
// multipliers (algebraic dofs, dof_kinds()) are not integrated: lambda_N = lambda_{N-1}, and
// Newton solves for lambda itself. At t_0 every W_p = y'_0; the method is self-starting.
// Variable step: (3) has no h, (4) is applied with the current h; second order holds at
// constant step, a step change costs one locally first-order step (MBDyn ignores the step
// ratio too).
//
// Rotations [paper section 3.1, after eq. (17)]: before each step the formulation rewrites
// the last point's rotation entries as g_{N-1} = 0, g'_{N-1} = w_{N-1} (BeforePredict, chart
// 0). The auxiliary variables of rotation dofs are auxiliary angular velocities: the paper
// approximates g^p_{N-1} by 0, so g'^p = w^p. Consistently, the template feeds the recurrence
// (3) with the derivative vectors as they read right after BeforePredict — w_{N-1} and
// w_{N-2}, each taken in its own chart — never with g' re-referenced to another chart. This
// needs no knowledge of which dofs are rotations (other dofs are unchanged by BeforePredict)
// and is eqs. (18)-(20) exactly. The W update of point N-1 therefore happens at the start
// of step N, after BeforePredict. The approximation g'^p ~ w^p errs by O(h^2 |w| |w'|) (the
// O(h) term is proportional to w x w = 0), so the order stays 2, but SSN and LMSN differ
// slightly on rotating bodies: on the heavy top (150 rad/s spin, rho_inf 0.6) the CoM
// trajectories of ssN and msN differ by at most 3e-8 m at h = 1e-4 and 7e-6..2e-5 m at
// h = 1e-3 (tests/integrators/single_step_test.cpp).
//
// Failure: a step that does not converge leaves the W's, history and formulation at the last
// solved point; the caller may retry with another h.
//
// Contract with a derived method (STYLE.md §5): it supplies numbers only — DoGammas(rho)
// (gamma_0..gamma_{2N-2}), DoRho(t) and its declared order. The template owns the auxiliary
// variables and their update, the history, prediction, Newton and start-up.
//
// References: [Zhang, Masarati et al.] H. Zhang, R. Zhang, A. Zanoni, P. Masarati, "Performance
// of implicit A-stable time integration methods for multibody system dynamics", Multibody Syst
// Dyn (2022), doi:10.1007/s11044-021-09806-9 (the comparison of multistep, single-step and
// multistage methods implemented in MBDyn), eqs. (4a)-(4e), (9)-(11), (15), (18)-(20), (21);
// its ref. [36] (Zhang et al.) for the SS2/SS3/SS4 parameters; MBDyn's
// mbdyn/base/singlestepsol_tpl.h and mbdyn/base/singlestepsol_impl.cc (the SS2/SS3/SS4 gammas).
#pragma once

#include <array>
#include <complex>
#include <vector>

#include "mbstep/integrator/first_order.hpp"

namespace mbstep {

template <int N>
class SingleStep : public FirstOrderIntegrator {
  public:
    static_assert(N >= 1, "SingleStep needs N >= 1 (N - 1 auxiliary variables)");
    static constexpr int kSteps = N;
    static constexpr int kAux = N - 1;
    using Complex = std::complex<double>;
    /// gamma_0 .. gamma_{2N-2} (paper numbering).
    using Gammas = std::array<Complex, 2 * N - 1>;

    /// The step in explicit form: (3) per stage and (4).
    struct Scheme {
        Gammas gamma{};
        std::array<Complex, N - 1> d{}, e{}, f{};  ///< (3), stage p at index p - 1
        Complex b0{}, bm1{};                       ///< (4): y'_k, y'_{k-1}
        std::array<Complex, N - 1> bI{};           ///< (4): W_{p,k-1}
    };

    void Start(double t0, double h) final;
    StepStats Advance(double t, double h) final;

    int steps() const { return N; }
    Gammas gammas(double rho) const { return DoGammas(rho); }
    /// (3) and (4) from the gammas at rho.
    Scheme scheme(double rho) const { return MakeScheme(DoGammas(rho)); }
    static Scheme MakeScheme(const Gammas& g);

    /// (6): one step over (y, h W_1..h W_{N-1}) without Re[] (complex-linear), N x N.
    Eigen::MatrixXcd AmplificationMatrix(std::complex<double> z, double rho) const override;
    /// (6): one step as implemented (Re[] in (4)) over (y, Re h W_p, Im h W_p), real z.
    Eigen::MatrixXd RealAmplificationMatrix(double z, double rho) const;
    int implicit_stages() const override { return 1; }

  protected:
    /// gamma_0..gamma_{2N-2} at rho_inf (a pure function of rho; called every step and by
    /// the linear analysis). Pre: rho in [0, 1] (validated by the caller).
    virtual Gammas DoGammas(double rho) const = 0;
    /// rho_inf at time t (methods without a parameter return 0 and ignore it).
    virtual double DoRho(double /*t*/) const { return 0.0; }

  private:
    // History for BeforePredict: [0] = (y, y') of the last solved point.
    std::vector<Eigen::VectorXd> y_hist_, yp_hist_;
    Eigen::VectorXd v_nm2_;                      // y'_{N-2} as read after its BeforePredict
    std::array<Eigen::VectorXcd, N - 1> w_;      // W_{p,N-2} (committed)
    std::array<Eigen::VectorXcd, N - 1> w_new_;  // W_{p,N-1} (this step)
    double rho_nm1_{0.0};                        // rho_inf of the step that ended at N-1
    bool aux_started_{false};                    // false until the first step converged
};

}  // namespace mbstep

#include "mbstep/integrator/single_step-inl.hpp"
