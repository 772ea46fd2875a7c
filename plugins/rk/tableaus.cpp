// mbstep — the explicit Butcher tableaus of the `rk` family.
#include "tableaus.hpp"

#include "mbstep/plugin/registry.hpp"

namespace mbstep::rk {

namespace {

std::vector<ButcherTableau> Build() {
    std::vector<ButcherTableau> t;
    {
        ButcherTableau m;
        m.name = "explicit euler";
        m.description = "forward Euler, 1 stage";
        m.reference = "Hairer, Norsett, Wanner, Solving ODEs I (1993), sec. II.1";
        m.order = 1;
        m.a = {{0.0}};
        m.b = {1.0};
        m.c = {0.0};
        t.push_back(m);
    }
    {
        ButcherTableau m;
        m.name = "explicit midpoint";
        m.description = "explicit midpoint rule (Runge 1895), 2 stages";
        m.reference = "Hairer, Norsett, Wanner, Solving ODEs I (1993), eq. (II.1.3)";
        m.order = 2;
        m.a = {{0.0, 0.0}, {0.5, 0.0}};
        m.b = {0.0, 1.0};
        m.c = {0.0, 0.5};
        t.push_back(m);
    }
    {
        ButcherTableau m;
        m.name = "rk33";
        m.description = "Kutta's third-order method, 3 stages";
        m.reference = "Kutta 1901; Hairer, Norsett, Wanner, Solving ODEs I (1993), Table II.1.1";
        m.order = 3;
        m.a = {{0.0, 0.0, 0.0}, {0.5, 0.0, 0.0}, {-1.0, 2.0, 0.0}};
        m.b = {1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0};
        m.c = {0.0, 0.5, 1.0};
        t.push_back(m);
    }
    {
        ButcherTableau m;
        m.name = "rk44";
        m.description = "classical fourth-order Runge-Kutta method, 4 stages";
        m.reference = "Kutta 1901; Hairer, Norsett, Wanner, Solving ODEs I (1993), Table II.1.2";
        m.order = 4;
        m.a = {{0, 0, 0, 0}, {0.5, 0, 0, 0}, {0, 0.5, 0, 0}, {0, 0, 1.0, 0}};
        m.b = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
        m.c = {0.0, 0.5, 0.5, 1.0};
        t.push_back(m);
    }
    {
        ButcherTableau m;
        m.name = "rk67";
        m.description = "Butcher's sixth-order method with 7 stages";
        m.reference =
            "J. C. Butcher, J. Austral. Math. Soc. 4 (1964) 179-194; Butcher, Numerical Methods "
            "for ODEs (2016), sec. 325";
        m.order = 6;
        m.a = {{0, 0, 0, 0, 0, 0, 0},
               {1.0 / 3.0, 0, 0, 0, 0, 0, 0},
               {0, 2.0 / 3.0, 0, 0, 0, 0, 0},
               {1.0 / 12.0, 1.0 / 3.0, -1.0 / 12.0, 0, 0, 0, 0},
               {-1.0 / 16.0, 9.0 / 8.0, -3.0 / 16.0, -3.0 / 8.0, 0, 0, 0},
               {0, 9.0 / 8.0, -3.0 / 8.0, -3.0 / 4.0, 1.0 / 2.0, 0, 0},
               {9.0 / 44.0, -9.0 / 11.0, 63.0 / 44.0, 18.0 / 11.0, 0, -16.0 / 11.0, 0}};
        m.b = {11.0 / 120.0, 0, 27.0 / 40.0, 27.0 / 40.0, -4.0 / 15.0, -4.0 / 15.0, 11.0 / 120.0};
        m.c = {0, 1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0, 0.5, 0.5, 1.0};
        t.push_back(m);
    }
    {
        ButcherTableau m;
        m.name = "ode23";
        m.description = "Bogacki-Shampine 3(2) pair, 4 stages, FSAL (MATLAB ode23)";
        m.reference = "P. Bogacki, L. F. Shampine, Appl. Math. Lett. 2 (1989) 321-325";
        m.order = 3;
        m.embedded_order = 2;
        m.fsal = true;
        m.a = {{0, 0, 0, 0}, {0.5, 0, 0, 0}, {0, 0.75, 0, 0}, {2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0}};
        m.b = {2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0};
        m.b_hat = {7.0 / 24.0, 1.0 / 4.0, 1.0 / 3.0, 1.0 / 8.0};
        m.c = {0.0, 0.5, 0.75, 1.0};
        t.push_back(m);
    }
    {
        ButcherTableau m;
        m.name = "dopri5";
        m.description = "Dormand-Prince 5(4) pair, 7 stages, FSAL (MATLAB ode45)";
        m.reference =
            "J. R. Dormand, P. J. Prince, J. Comput. Appl. Math. 6 (1980) 19-26; Hairer, Norsett, "
            "Wanner, Solving ODEs I (1993), Table II.5.2";
        m.order = 5;
        m.embedded_order = 4;
        m.fsal = true;
        m.a = {{0, 0, 0, 0, 0, 0, 0},
               {1.0 / 5.0, 0, 0, 0, 0, 0, 0},
               {3.0 / 40.0, 9.0 / 40.0, 0, 0, 0, 0, 0},
               {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0, 0, 0, 0},
               {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0, 0, 0},
               {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0,
                0, 0},
               {35.0 / 384.0, 0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0}};
        m.b = {35.0 / 384.0, 0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0};
        m.b_hat = {
            5179.0 / 57600.0, 0,         7571.0 / 16695.0, 393.0 / 640.0, -92097.0 / 339200.0,
            187.0 / 2100.0,   1.0 / 40.0};
        m.c = {0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
        t.push_back(m);
    }
    return t;
}

}  // namespace

const std::vector<ButcherTableau>& Tableaus() {
    static const std::vector<ButcherTableau> t = Build();
    return t;
}

const ButcherTableau* FindTableau(const std::string& name) {
    const std::string key = Registry::Normalize(name);
    for (const auto& m : Tableaus())
        if (m.name == key) return &m;
    return nullptr;
}

}  // namespace mbstep::rk
