// mbstep — the dense LU kernels shared by `naive` (the whole matrix) and `schur` (each group).
//
// Every kernel takes its size either at run time (Fixed = 0, the size argument) or at compile
// time (Fixed = M > 0, the size argument ignored): `schur`'s groups of 6 and 12 unknowns use the
// latter, whose loops the compiler unrolls (Eigen's fixed-size PartialPivLU and triangular
// solves go through its dynamic-size blocked code and cost ~3x more at these sizes).
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
/// dinv (optional, n values): the reciprocals 1 / U(k, k), the factors LuSolveInPlace computes.
template <int Fixed = 0>
inline bool LuFactorInPlace(double* a, int size, int* piv, double* umin, double* umax,
                            double* dinv = nullptr) {
    const int n = Fixed > 0 ? Fixed : size;
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
        if (dinv) dinv[k] = inv;
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

/// X := A^-1 X for the column-major n x nrhs matrix x (leading dimension n), with the factors of
/// LuFactorInPlace: the row exchanges, then L and U column by column of the factors, each
/// applied to every right-hand side.
template <int Fixed = 0, int FixedRhs = 0>
inline void LuSolveInPlace(const double* a, const int* piv, int size, double* x, int rhs = 1) {
    const int n = Fixed > 0 ? Fixed : size;
    const int nrhs = FixedRhs > 0 ? FixedRhs : rhs;
    for (int k = 0; k < n; ++k)
        if (piv[k] != k)
            for (int c = 0; c < nrhs; ++c)
                std::swap(x[static_cast<size_t>(c) * n + k],
                          x[static_cast<size_t>(c) * n + piv[k]]);
    for (int k = 0; k < n; ++k) {  // L y = P b (unit diagonal), column-oriented
        const double* ck = a + static_cast<size_t>(k) * n;
        for (int c = 0; c < nrhs; ++c) {
            double* xc = x + static_cast<size_t>(c) * n;
            const double xk = xc[k];
            if (xk == 0.0) continue;
            for (int i = k + 1; i < n; ++i) xc[i] -= ck[i] * xk;
        }
    }
    for (int k = n - 1; k >= 0; --k) {  // U x = y
        const double* ck = a + static_cast<size_t>(k) * n;
        const double inv = 1.0 / ck[k];
        for (int c = 0; c < nrhs; ++c) {
            double* xc = x + static_cast<size_t>(c) * n;
            xc[k] *= inv;
            const double xk = xc[k];
            for (int i = 0; i < k; ++i) xc[i] -= ck[i] * xk;
        }
    }
}

/// z := U^-1 L^-1 z for one right-hand side already permuted (z[i] = b[perm[i]], perm from
/// LuPermutation), with the reciprocals dinv of LuFactorInPlace: the operations of
/// LuSolveInPlace<M, 1> in the same order (the same bits but for the sign of a zero), unrolled so
/// that z stays in registers -- the memory round trips of the generic loop stalled on store
/// forwarding in the repeated solves of modified Newton.
template <int M>
inline void LuSolvePermuted(const double* a, const double* dinv, double* z) {
#pragma GCC unroll 24
    for (int k = 0; k < M; ++k)
#pragma GCC unroll 24
        for (int i = k + 1; i < M; ++i) z[i] -= a[k * M + i] * z[k];
#pragma GCC unroll 24
    for (int k = M - 1; k >= 0; --k) {
        z[k] *= dinv[k];
#pragma GCC unroll 24
        for (int i = 0; i < k; ++i) z[i] -= a[k * M + i] * z[k];
    }
}

/// perm[i]: the row of b that LuSolveInPlace's row exchanges move to row i.
inline void LuPermutation(const int* piv, int n, int* perm) {
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int k = 0; k < n; ++k) std::swap(perm[k], perm[piv[k]]);
}

}  // namespace mbstep::detail
