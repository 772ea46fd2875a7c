// mbstep — building blocks of the esdirk family's tableaus: the rows of an ESDIRK with
// explicit first stage computed from their defining conditions (STYLE.md §4: non-closed-form
// coefficients are computed, not looked up).
//
// Notation as in core/include/mbstep/integrator/stage_n.hpp: full tableau A (S + 1 stages,
// row 0 zero, a_ii = gamma, last row b^T), abscissae c.
//   (T1) stage order 2 of row i: sum_j a_ij = c_i, sum_j a_ij c_j = c_i^2 / 2
//   (T2) quadrature of the last row: sum_j b_j c_j^(q-1) = 1/q, q = 1..S
//   (T3) series of the stability function: R(z) = sum_k r_k z^k, r_k = b^T A^(k-1) 1
//   (T4) amplitude of the undamped oscillator: |R(i theta)|^2 = sum_m a_2m theta^2m,
//        a_2m = (-1)^m sum_{k+l=2m} (-1)^l r_k r_l
//   (T5) R(-inf) = Y_S(inf), with Y_0 = 1 and Y_i(inf) = -(sum_{j<i} a_ij Y_j(inf)) / gamma
#pragma once

#include <string>
#include <vector>

#include "mbstep/integrator/stage_n.hpp"

namespace mbstep::esdirk {

/// A tableau with S implicit stages, diagonal gamma, stage 1 the trapezoidal rule (a_10 =
/// a_11 = gamma, c_1 = 2 gamma), c_S = 1 and the given abscissae of stages 2..S-1; rows 2..S
/// other than the diagonal are zero.
EsdirkTableau TrapezoidalStart(int S, double gamma, const std::vector<double>& c_inner);

/// A linear condition on the tableau: sum_i w_i sum_j a_ij f_j = target.
struct WeightedCondition {
    std::vector<double> w, f;
    double target;
};

/// Solves rows first..last (entries j < i) from (T1) for each of them plus the given
/// conditions (whose weights w must not involve those rows); the count must match.
void SolveStageOrderTwoRows(EsdirkTableau& t, int first, int last,
                            const std::vector<WeightedCondition>& extra);

/// The last row from (T2).
void QuadratureWeights(EsdirkTableau& t);

/// (T3): r_0..r_{K-1}.
std::vector<double> StabilitySeries(const EsdirkTableau& t, int K);

/// (T4): a_2m for m = 0..(K-1)/2 from the series r (entry m).
std::vector<double> AmplitudeSeries(const std::vector<double>& r);

/// (T5).
double StabilityAtInfinity(const EsdirkTableau& t);

/// Index k of rho = k / 10 if |10 rho - k| < 1e-9 and 0 <= k <= 10, else -1 (MBDyn tabulates
/// its multi-sub-step parameters on this grid).
int TenthsIndex(double rho);

/// Throws RunError: `method` does not accept rho, the accepted values are `accepted`.
[[noreturn]] void RejectRho(const std::string& method, double rho, const std::string& accepted);

}  // namespace mbstep::esdirk
