// mbstep — the dense LU kernels shared by `naive` (the whole matrix) and `schur` (each group).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace mbstep::detail {

/// LAPACK getrf's unblocked algorithm: right-looking LU with partial pivoting of the
/// column-major n x n matrix a, in place (unit L below the diagonal, U on and above);
/// piv[k] = the row exchanged with row k at step k. Column updates skip zero multipliers (the
/// sparse Newton matrices have them in most columns). Returns false at an exactly zero or
/// non-finite pivot; umin, umax: the smallest and largest pivot magnitudes.
inline bool LuFactorInPlace(double* a, int n, int* piv, double* umin, double* umax) {
    *umax = 0.0;
    *umin = std::numeric_limits<double>::infinity();
    for (int k = 0; k < n; ++k) {
        double* ck = a + static_cast<size_t>(k) * n;
        int p = k;
        double best = std::abs(ck[k]);
        for (int i = k + 1; i < n; ++i)
            if (std::abs(ck[i]) > best) best = std::abs(ck[i]), p = i;
        piv[k] = p;
        if (!(best > 0.0) || !std::isfinite(best)) return false;
        *umax = std::max(*umax, best);
        *umin = std::min(*umin, best);
        if (p != k)
            for (int j = 0; j < n; ++j)
                std::swap(a[static_cast<size_t>(j) * n + k], a[static_cast<size_t>(j) * n + p]);
        const double inv = 1.0 / ck[k];
        for (int i = k + 1; i < n; ++i) ck[i] *= inv;
        for (int j = k + 1; j < n; ++j) {
            double* cj = a + static_cast<size_t>(j) * n;
            const double m = cj[k];
            if (m == 0.0) continue;
            for (int i = k + 1; i < n; ++i) cj[i] -= ck[i] * m;
        }
    }
    return true;
}

/// x := A^-1 x with the factors of LuFactorInPlace.
inline void LuSolveInPlace(const double* a, const int* piv, int n, double* x) {
    for (int k = 0; k < n; ++k)
        if (piv[k] != k) std::swap(x[k], x[piv[k]]);
    for (int k = 0; k < n; ++k) {  // L y = P b (unit diagonal), column-oriented
        const double xk = x[k];
        if (xk == 0.0) continue;
        const double* ck = a + static_cast<size_t>(k) * n;
        for (int i = k + 1; i < n; ++i) x[i] -= ck[i] * xk;
    }
    for (int k = n - 1; k >= 0; --k) {  // U x = y
        const double* ck = a + static_cast<size_t>(k) * n;
        x[k] /= ck[k];
        const double xk = x[k];
        for (int i = 0; i < k; ++i) x[i] -= ck[i] * xk;
    }
}

}  // namespace mbstep::detail
