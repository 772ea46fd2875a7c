// mbstep — LMS coefficient functions (formulas in lms_methods.hpp).
#include "lms_methods.hpp"

namespace mbstep::lms {

Ms2::Coefficients Ms2::DoCoefficients(double alpha, double rho) const {
    const double q = (1.0 - rho) * (1.0 - rho);
    const double den = 2.0 * (1.0 + alpha) - q;
    const double beta = alpha * (q * (2.0 + alpha) + 2.0 * (2.0 * rho - 1.0) * (1.0 + alpha)) / den;
    const double delta = alpha * alpha * q / (2.0 * den);
    Coefficients c;
    c.a = {1.0 - beta, beta};
    c.b = {(delta / alpha + alpha / 2.0) / alpha,
           (beta / 2.0 + alpha / 2.0 - delta / alpha * (1.0 + alpha)) / alpha,
           (beta / 2.0 + delta) / alpha};
    return c;
}

Ms3::Coefficients Ms3::DoCoefficients(double /*alpha*/, double r) const {
    const double D = r * r - 5.0 * r + 10.0;
    const double B = (1.0 + r) * D;
    Coefficients c;
    c.a = {3.0 * (2.0 * r * r - 9.0 * r + 5.0) / D, -3.0 * (5.0 * r * r - 9.0 * r + 2.0) / D,
           (10.0 * r * r - 5.0 * r + 1.0) / D};
    c.b = {6.0 / B, 18.0 * r / B, 18.0 * r * r / B, 6.0 * r * r * r / B};
    return c;
}

Ms4::Coefficients Ms4::DoCoefficients(double /*alpha*/, double r) const {
    const double r2 = r * r, r3 = r2 * r;
    const double D = -r3 + 7.0 * r2 - 21.0 * r + 35.0;
    const double B = (1.0 + r) * D;
    Coefficients c;
    c.a = {4.0 * (-2.0 * r3 + 13.0 * r2 - 35.0 * r + 14.0) / D,
           -4.0 * (1.0 - r) * (7.0 * r2 - 34.0 * r + 7.0) / D,
           -4.0 * (14.0 * r3 - 35.0 * r2 + 13.0 * r - 2.0) / D,
           (35.0 * r3 - 21.0 * r2 + 7.0 * r - 1.0) / D};
    const double binom[5] = {1, 4, 6, 4, 1};
    double rj = 1.0;
    for (int j = 0; j <= 4; ++j, rj *= r) c.b[j] = 20.0 * binom[j] * rj / B;
    return c;
}

}  // namespace mbstep::lms
