// mbstep — linear analysis of the first-order integrators on the undamped oscillator
// [Zhang, Masarati et al., section 4, eq. (22), Figures 2-7]: spectral radius, percentage
// amplitude decay AD(%) and percentage period elongation PE(%) from the characteristic roots.
//
// Model problem: x'' + w^2 x = 0, T = 2 pi / w, written first order y = (x, x'), has the
// eigenvalues +-i w; by symmetry (real coefficients) y' = lambda y with lambda = i w suffices.
// A method with n = implicit_stages() solves per step is compared at equal cost on the
// abscissa x = h / (n T) (n = 1 for multistep and single-step methods) [section 4]:
//
//   (1) z = h lambda = i 2 pi n x
//   (2) mu_j(z), the eigenvalues of FirstOrderIntegrator::AmplificationMatrix(z, rho_inf):
//       the characteristic roots (the roots of rho(mu) - z sigma(mu) for multistep methods,
//       R(z) for multistage ones)
//   (3) spectral radius rho(z) = max_j |mu_j| (AmplificationMatrix holds the characteristic
//       roots only: for SSn the N x N matrix over (y, h W), whose roots are those of LMSn;
//       the filter modes of its real implementation are not part of it)
//   (4) principal root mu_1: the root continued from mu_1 = 1 at z = 0 along the grid, by
//       adaptive continuation in log x (a step is accepted when the root nearest the
//       extrapolated value is unambiguous), never picked by magnitude
//   (5) mu_1 = exp(h w_bar (-xi_bar + i sqrt(1 - xi_bar^2)))               [eq. (22)]
//       so with L = log|mu_1| + i arg(mu_1), arg unwrapped along the continuation:
//         w_bar h = |L|,   xi_bar = -Re(L) / |L|
//   (6) AD(%) = 100 xi_bar                      (amplitude decay ratio)
//       PE(%) = 100 (T_bar - T) / T = 100 (w / w_bar - 1) = 100 (|z| / |L| - 1)
//   (7) rho_inf, the spectral radius at h lambda -> -inf: the limit matrix A_inf is
//       extrapolated from A(z) at z = -Z, -2Z, -4Z, -8Z (Lagrange in w = 1/z, error O(Z^-4)),
//       for Z on a ladder 1e2 .. 1e6 keeping the neighbours that agree best (truncation falls
//       with Z, round-off of A(z) grows with Z); the eigenvalues of A_inf that form a cluster
//       (a root of multiplicity m is perturbed by delta^(1/m) by a perturbation delta of the
//       matrix) are replaced by the cluster mean, which moves by O(delta) only. Evaluating
//       at one large finite z instead errs by |z|^(-1/m) for an m-fold root.
//
// Asymptotics (tested): a method of order p has log mu_1 = z + C z^(p+1) + D z^(p+2) + ...
// with real C, D. On z = i w h the term z^(p+1) is imaginary for even p and real for odd p,
// so for even p: PE ~ (w h)^p and AD ~ (w h)^(p+1); for odd p: AD ~ (w h)^p, PE ~ (w h)^(p+1).
//
// Second-order methods (Newmark family, HHT, generalized alpha, ...; any Integrator on a
// SecondOrderProblem) are analysed on the oscillator itself, x'' + w^2 x = 0, with
// Omega = w h = |z| for z = i w h, and n = 1:
//   (8) A(Omega) is identified by stepping the method's own Advance on a one-dof linear model
//       (M = 1, f = w^2 x, no constraint; h = 1, w = Omega). From the three initial states
//       e_k of (x_0, v_0, a_0) (InitialConditions returns a_0 as given) the outputs
//       Y_j = (x_j, v_j) after j = 1 .. 2m steps are the Markov parameters C A^(j-1) B' of the
//       recurrence from step 1 on (the first step may differ: a_0 need not satisfy the
//       equilibrium); the eigensystem realization algorithm [J.-N. Juang, R. S. Pappa, J.
//       Guid. Control Dyn. 8 (1985) 620-627, the realization from the Hankel matrices' singular
//       value decomposition] gives A from the block Hankel matrices
//       H0 = [Y_(1+i+j)], H1 = [Y_(2+i+j)], i, j < m: H0 = U S V^T truncated to its numerical
//       rank r, A = S^(-1/2) U^T H1 V S^(-1/2). The rank counts the singular values above 100
//       times the round-off of the data, measured as the difference between Y and the same
//       outputs from mixed initial states Q e_k, times Q^-1 (equal in exact arithmetic). Its
//       eigenvalues are the roots of the method's recurrence that the outputs see (a root whose
//       mode neither the state nor the outputs reach does not act on the solution), e.g. the two
//       principal roots and the spurious root of the amplification matrices in [H. M. Hilber, T. J.
//       R. Hughes, R. L. Taylor, Earthq. Eng. Struct. Dyn. 5 (1977) 283-292, section 3] and [J.
//       Chung, G. M. Hulbert, J. Appl. Mech. 60 (1993) 371-375, section 3]. The principal root mu_1
//       = exp(Omega_bar h (-xi_bar + i sqrt(1 - xi_bar^2))) gives AD and PE by (5), (6) as for the
//       first-order methods: xi_bar is the numerical damping ratio and PE(%) = 100 (T_bar / T - 1)
//       the relative period error of those papers, which write mu_1 = exp(Omega_d (-xi_bar + i))
//       with the damped frequency Omega_d (the same for xi_bar = 0, different in O(xi_bar^2)
//       otherwise).
//   (9) Explicit Runge-Kutta tableaus (A, b): A(z) = R(z) = 1 + z b^T (I - z A)^-1 1, the
//       stability function [Hairer & Wanner, Solving ODEs II, section IV.2, eq. (2.3)], on
//       y' = lambda y with z = i w h (the eigenvalues of x'' + w^2 x = 0 written first order).
#pragma once

#include <Eigen/Core>
#include <complex>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace mbstep {

class FirstOrderIntegrator;
class Integrator;
class Registry;
struct ButcherTableau;

namespace analysis {

/// Logarithmic grid of the abscissa x = h / (n T).
struct Grid {
    double min{1e-3};
    double max{1e3};
    int points{121};
};

/// The grid's abscissae, ascending (geometric); throws RunError for min <= 0, max <= min or
/// points < 2, naming the accepted range.
std::vector<double> LogGrid(const Grid& g);

/// One abscissa of the analysis.
struct OscillatorPoint {
    double h_over_nT{0.0};                          ///< x = h / (n T)
    double spectral_radius{0.0};                    ///< (3)
    double ad_percent{0.0};                         ///< (6)
    double pe_percent{0.0};                         ///< (6)
    std::complex<double> principal_root{1.0, 0.0};  ///< mu_1 (4)
    double phase{0.0};                              ///< unwrapped arg(mu_1) (5)
};

/// The analysis of one method at one rho_inf.
struct OscillatorCurve {
    std::string method;    ///< registry key
    double rho{0.0};       ///< rho_inf (meaningful if tunable)
    std::string rho_text;  ///< rho_inf as the user gave it (CSV), empty without rho_inf
    bool tunable{false};
    int stages{1};  ///< n = implicit_stages()
    std::vector<OscillatorPoint> points;
};

/// A method's amplification matrix as a function of z = h lambda (first-order methods, explicit
/// Runge-Kutta) or of z = i w h (second-order methods, (8)).
using AmplificationFunction = std::function<Eigen::MatrixXcd(std::complex<double>)>;

/// (9): R(z) of an explicit (or any) Runge-Kutta tableau.
std::complex<double> StabilityFunction(const ButcherTableau& t, std::complex<double> z);

/// (8): the amplification matrix of a second-order method at Omega = w h > 0, identified by
/// stepping `m` (attached to a one-dof linear model here; its previous attachment is lost).
/// Throws RunError naming the method when it refuses the model or a step fails.
Eigen::MatrixXd SecondOrderAmplification(Integrator& m, double omega);

/// (8) for a method that needs structural nodes (its Attach refuses the one-dof model, e.g.
/// `eml` and the modified HHT need Euler parameters, `half implicit` the Lie group
/// formulation): the same identification on two unit masses on structural nodes joined by a
/// rod of stiffness Omega^2 / 2 and moved antisymmetrically along the rod, whose stretch obeys
/// x'' + Omega^2 x = 0 exactly; the method is built from `method` (a method statement's text)
/// and runs on the registered formulation `formulation`. Two inputs (initial stretch and rate;
/// the formulation derives the accelerations). Throws RunError when the method or the
/// formulation refuses the model; returns a 1 x 1 NaN matrix when A(Omega) cannot be
/// identified at this Omega: a step the method cannot solve (its Newton iteration fails) or a
/// growth that takes the stretch out of the rod's linear range (an unstable method, e.g. an
/// explicit one beyond its stability limit). AnalyzeOscillator reports NaN from the first
/// such Omega on.
Eigen::MatrixXd SecondOrderAmplificationOnNodes(const std::string& method,
                                                const std::string& formulation,
                                                const Registry& registry, double omega);

/// All eigenvalues of AmplificationMatrix(z, rho); throws RunError if the method does not
/// provide one.
std::vector<std::complex<double>> CharacteristicRoots(const FirstOrderIntegrator& m,
                                                      std::complex<double> z, double rho);

/// Spectral radius (3) at z.
double SpectralRadius(const FirstOrderIntegrator& m, std::complex<double> z, double rho);

/// Spectral radius at h lambda -> -inf (7), accurate to ~1e-12 also for multiple roots.
double SpectralRadiusAtInfinity(const FirstOrderIntegrator& m, double rho);

/// The extrapolated limit matrix A_inf of (7).
Eigen::MatrixXcd LimitAmplificationMatrix(const FirstOrderIntegrator& m, double rho);

/// Eigenvalues with clusters (roots within `radius` of each other, transitively) replaced by
/// their mean, each repeated with its multiplicity (7).
std::vector<std::complex<double>> ClusterMeans(const std::vector<std::complex<double>>& roots,
                                               double radius);

/// The analysis (1)-(6) over the abscissae x (ascending, > 0) of `grid`.
OscillatorCurve AnalyzeOscillator(const FirstOrderIntegrator& m, double rho,
                                  const std::vector<double>& grid);

/// The analysis (1)-(6) of any amplification function, z = i 2 pi n x with n = c.stages;
/// `c` carries the curve's method, rho and stages (its points are replaced).
OscillatorCurve AnalyzeOscillator(const AmplificationFunction& A, OscillatorCurve c,
                                  const std::vector<double>& grid);

/// The CSV columns, in this order: `method,rho_inf,stages,h_over_T,Omega,spectral_radius,
/// AD_percent,PE_percent` (h_over_T is h / (n T), see (1); Omega = w h = 2 pi n h_over_T;
/// rho_inf as the user gave it, empty for methods without one).
const char* CsvHeader();

/// The curve's rows (no header); 17 significant digits.
void WriteCsvRows(std::ostream& os, const OscillatorCurve& c);

/// CsvHeader() and the rows.
void WriteCsv(std::ostream& os, const OscillatorCurve& c);

/// Least-squares slope of log(y) against log(x) over the points with x in [x_lo, x_hi]
/// and |y| > 0.
double LogLogSlope(const std::vector<double>& x, const std::vector<double>& y, double x_lo,
                   double x_hi);

}  // namespace analysis
}  // namespace mbstep
