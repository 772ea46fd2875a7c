// mbstep — an explicit Runge–Kutta method as data: a Butcher tableau plus a name (the `rk`
// plugin family, docs/DESIGN.md "Explicit Runge–Kutta and RKMK"). Header only; the
// registered tableaus live in plugins/rk/tableaus.cpp; an integrator defined by one implements
// TableauIntegrator, and ButcherTableauOf finds it from any Integrator (the order-condition
// test walks the registry with it; `analyze` takes the stability function from it).
//
//   c | A          A strictly lower triangular (explicit), c_i = sum_j a_ij
//   --+----        b: weights of the propagated solution (order p)
//     | b^T        b_hat: weights of the embedded solution (order p_hat), empty if none
//     | b_hat^T    fsal: the last stage is evaluated at the new point (a_s = b, c_s = 1)
#pragma once

#include <string>
#include <vector>

namespace mbstep {

struct ButcherTableau {
    std::string name;                    ///< deck keyword, e.g. "dopri5"
    std::string description;             ///< one line
    std::string reference;               ///< where the coefficients come from
    int order{0};                        ///< p of b
    int embedded_order{0};               ///< p_hat of b_hat (0: no embedded pair)
    bool fsal{false};                    ///< first same as last
    std::vector<std::vector<double>> a;  ///< s x s, a[i][j] = 0 for j >= i
    std::vector<double> b, c;
    std::vector<double> b_hat;  ///< empty: no error estimate

    int stages() const { return static_cast<int>(b.size()); }
    bool embedded() const { return !b_hat.empty(); }
};

class Integrator;

/// The interface of the integrators that a Butcher tableau defines (explicit Runge–Kutta and
/// RKMK: plugins/rk), besides Integrator.
class TableauIntegrator {
  public:
    virtual ~TableauIntegrator();
    virtual const ButcherTableau& tableau() const = 0;
};

/// The tableau of `integrator` when it is a TableauIntegrator, else nullptr.
const ButcherTableau* ButcherTableauOf(const Integrator& integrator);

}  // namespace mbstep
