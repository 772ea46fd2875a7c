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
#pragma once

#include <Eigen/Core>
#include <complex>
#include <iosfwd>
#include <string>
#include <vector>

namespace mbstep {

class FirstOrderIntegrator;

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
    std::string method;  ///< registry key
    double rho{0.0};     ///< rho_inf (meaningful if tunable)
    bool tunable{false};
    int stages{1};  ///< n = implicit_stages()
    std::vector<OscillatorPoint> points;
};

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

/// CSV with the header `h_over_T,spectral_radius,AD_percent,PE_percent` (h_over_T is
/// h / (n T), see (1)); 17 significant digits.
void WriteCsv(std::ostream& os, const OscillatorCurve& c);

/// Least-squares slope of log(y) against log(x) over the points with x in [x_lo, x_hi]
/// and |y| > 0.
double LogLogSlope(const std::vector<double>& x, const std::vector<double>& y, double x_lo,
                   double x_hi);

}  // namespace analysis
}  // namespace mbstep
