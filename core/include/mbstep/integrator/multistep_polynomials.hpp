// mbstep — the characteristic polynomials of a linear multistep method
//   rho(z)   = z^N - a_1 z^(N-1) - ... - a_N
//   sigma(z) = b_0 z^N + b_1 z^(N-1) + ... + b_N
// and its irreducible form: common roots of rho and sigma are cancelled [Hairer, Norsett,
// Wanner, Solving ODE I, III.2: a method is "irreducible" if rho and sigma have no common
// divisor; a reducible method computes in exact arithmetic the same numbers as its reduced
// form, but its extra roots are unobservable modes that round-off and Newton errors excite].
//
// Why it matters here: at rho_inf = 1 the tunable LMS families degenerate. For LMS2,
// rho(z) = (z - 1)(z + 1) and sigma(z) = (z + 1)^2 / 2; for LMS3 and LMS4, rho(z) = (z - 1)(z +
// 1)^2 and (z - 1)(z + 1)^3 — a double/triple root on the unit circle, so the unreduced recurrences
// are not even zero-stable — while sigma = b0 (z + 1)^3, (z + 1)^4. Cancelling (z + 1)^(N-1) leaves
// the trapezoidal rule, which is the method these coefficients define.
#pragma once

#include <complex>
#include <vector>

namespace mbstep {

/// Cancels the real roots common to rho and sigma (within round-off: |rho(r)|, |sigma(r)| <=
/// 1e-10 times the polynomial's scale at r, roots clustered within 1e-3 and averaged). a and b
/// keep their lengths N and N+1; cancelled trailing coefficients become zero. Returns the
/// number of factors cancelled.
int ReduceMultistep(std::vector<double>& a, std::vector<double>& b);

/// Roots of c[0] z^n + ... + c[n] (leading zeros ignored).
std::vector<std::complex<double>> PolynomialRoots(const std::vector<double>& c);

}  // namespace mbstep
