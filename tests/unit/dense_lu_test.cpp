// The dense LU kernels of `naive` and `schur` (core/src/solver/dense_lu.hpp): the unrolled
// one-rhs solve on pivoted rows gives the bits of the generic solve, on matrices whose small
// diagonal forces row exchanges, and both solve the system.
#include "../../core/src/solver/dense_lu.hpp"

#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <random>
#include <vector>

#include "mbstep/solver/linear_solver.hpp"

namespace {

template <int M>
void CheckPermutedSolve(unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::Matrix<double, M, M> A;
    for (int j = 0; j < M; ++j)
        for (int i = 0; i < M; ++i) A(i, j) = (i == j ? 1e-3 : 1.0) * u(gen);
    Eigen::Matrix<double, M, 1> b;
    for (int i = 0; i < M; ++i) b[i] = u(gen);

    Eigen::Matrix<double, M, M> lu = A;
    int piv[M];
    double dinv[M], umin = 0.0, umax = 0.0;
    REQUIRE(mbstep::detail::LuFactorInPlace<M>(lu.data(), M, piv, &umin, &umax, dinv));
    int swaps = 0;
    for (int k = 0; k < M; ++k) swaps += piv[k] != k;
    CHECK(swaps > 0);  // the case the gathered order exists for

    Eigen::Matrix<double, M, 1> generic = b;
    mbstep::detail::LuSolveInPlace<M, 1>(lu.data(), piv, M, generic.data());
    int perm[M];
    mbstep::detail::LuPermutation(piv, M, perm);
    Eigen::Matrix<double, M, 1> permuted;
    for (int i = 0; i < M; ++i) permuted[i] = b[perm[i]];
    mbstep::detail::LuSolvePermuted<M>(lu.data(), dinv, permuted.data());
    for (int i = 0; i < M; ++i) CHECK(permuted[i] == generic[i]);
    const Eigen::Matrix<double, M, 1> x = A.partialPivLu().solve(b);
    CHECK((permuted - x).norm() <= 1e-12 * x.norm());
    CHECK((A * permuted - b).norm() <= 1e-13 * A.norm() * permuted.norm());
}

}  // namespace

TEST_CASE("dense LU: the permuted one-rhs solve has the generic solve's bits, with pivoting") {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        CheckPermutedSolve<6>(seed);
        CheckPermutedSolve<12>(seed);
    }
}

TEST_CASE("dense LU: `naive` on 1 to 20 unknowns has the run-time-size kernels' bits") {
    // Up to 16 unknowns `naive` runs kernels compiled for the size; they must do the same
    // operations in the same order as the run-time-size kernels (and solve the system).
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int n = 1; n <= 20; ++n) {
        Eigen::MatrixXd A(n, n);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) A(i, j) = (i == j ? 1e-2 : 1.0) * u(gen);
        Eigen::VectorXd b(n);
        for (int i = 0; i < n; ++i) b[i] = u(gen);
        const Eigen::SparseMatrix<double> S = A.sparseView();
        auto solver = mbstep::MakeLinearSolver("naive");
        solver->Analyze(S);
        REQUIRE(solver->Factor(S));
        Eigen::VectorXd x = b;
        solver->Solve(x);

        Eigen::MatrixXd lu = A;
        std::vector<int> piv(static_cast<size_t>(n));
        double umin = 0.0, umax = 0.0;
        REQUIRE(mbstep::detail::LuFactorInPlace<0>(lu.data(), n, piv.data(), &umin, &umax));
        Eigen::VectorXd generic = b;
        mbstep::detail::LuSolveInPlace<0, 1>(lu.data(), piv.data(), n, generic.data());
        INFO("n = " << n);
        for (int i = 0; i < n; ++i) CHECK(x[i] == generic[i]);
        CHECK(solver->ReciprocalCondition() == doctest::Approx(umin / umax));
        CHECK((A * x - b).norm() <= 1e-12 * A.norm() * x.norm());
    }
}
