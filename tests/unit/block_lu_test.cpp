// The block LU that `schur` uses for its Schur complement (core/src/solver/block_lu.hpp) on
// synthetic block-sparse matrices against Eigen's dense LU, and its refusals: patterns without
// dense diagonal blocks, and pivots below 1e-13 of the largest (then `schur` uses KLU on S).
#include "../../core/src/solver/block_lu.hpp"

#include <doctest/doctest.h>
#include <tbb/task_arena.h>

#include <Eigen/Dense>
#include <cstring>
#include <random>

#include "mbstep/common.hpp"

using mbstep::Ordering;
using mbstep::detail::BlockLu;

namespace {

// Blocks of the given sizes; a random tree over them (block i coupled to a random earlier
// one) plus `loops` extra couplings, so the factorization has fill. Dense blocks on the
// diagonal, random couplings both ways (non-symmetric values, symmetric block pattern); the
// diagonal blocks dominate so that no pivoting across blocks is needed.
Eigen::SparseMatrix<double> MakeFromLinks(const std::vector<int>& sizes,
                                          std::vector<std::pair<int, int>> links,
                                          std::mt19937& gen) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<int> start{0};
    for (int b : sizes) start.push_back(start.back() + b);
    const int nb = static_cast<int>(sizes.size());
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    std::vector<Eigen::Triplet<double>> t;
    auto block = [&](int I, int J, double diag) {
        for (int r = start[I]; r < start[I + 1]; ++r)
            for (int c = start[J]; c < start[J + 1]; ++c)
                t.emplace_back(r, c, (r == c ? diag : 0.0) + u(gen));
    };
    for (int I = 0; I < nb; ++I) block(I, I, 12.0);
    for (auto [a, b] : links) block(a, b, 0.0), block(b, a, 0.0);
    Eigen::SparseMatrix<double> A(start.back(), start.back());
    A.setFromTriplets(t.begin(), t.end());
    A.makeCompressed();
    return A;
}

Eigen::SparseMatrix<double> MakeBlockMatrix(const std::vector<int>& sizes, int loops,
                                            unsigned seed) {
    std::mt19937 gen(seed);
    const int nb = static_cast<int>(sizes.size());
    std::vector<std::pair<int, int>> links;
    for (int i = 1; i < nb; ++i)
        links.emplace_back(std::uniform_int_distribution<int>(0, i - 1)(gen), i);
    for (int l = 0; l < loops; ++l) {
        const int a = std::uniform_int_distribution<int>(0, nb - 1)(gen);
        const int b = std::uniform_int_distribution<int>(0, nb - 1)(gen);
        if (a != b) links.emplace_back(std::min(a, b), std::max(a, b));
    }
    return MakeFromLinks(sizes, std::move(links), gen);
}

// A chain of blocks (block i coupled to i + 1, as the chain's S) with `loops` random couplings
// at most `reach` blocks apart.
Eigen::SparseMatrix<double> MakeChainMatrix(const std::vector<int>& sizes, int loops, int reach,
                                            unsigned seed) {
    std::mt19937 gen(seed);
    const int nb = static_cast<int>(sizes.size());
    std::vector<std::pair<int, int>> links;
    for (int i = 1; i < nb; ++i) links.emplace_back(i - 1, i);
    for (int l = 0; l < loops; ++l) {
        const int a = std::uniform_int_distribution<int>(0, nb - 1)(gen);
        const int b = std::min(nb - 1, a + std::uniform_int_distribution<int>(2, reach)(gen));
        if (a != b) links.emplace_back(a, b);
    }
    return MakeFromLinks(sizes, std::move(links), gen);
}

// An nx x ny grid of blocks (a 2D mesh's pattern), each coupled to its right and upper
// neighbours, with `loops` random diagonal couplings.
Eigen::SparseMatrix<double> MakeGridMatrix(int nx, int ny, int size, int loops, unsigned seed) {
    std::mt19937 gen(seed);
    std::vector<std::pair<int, int>> links;
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
            if (x + 1 < nx) links.emplace_back(y * nx + x, y * nx + x + 1);
            if (y + 1 < ny) links.emplace_back(y * nx + x, (y + 1) * nx + x);
        }
    for (int l = 0; l < loops; ++l) {
        const int x = std::uniform_int_distribution<int>(0, nx - 2)(gen);
        const int y = std::uniform_int_distribution<int>(0, ny - 2)(gen);
        links.emplace_back(y * nx + x, (y + 1) * nx + x + 1);
    }
    return MakeFromLinks(std::vector<int>(nx * ny, size), std::move(links), gen);
}

void CheckSolves(const Eigen::SparseMatrix<double>& A, Ordering ordering, unsigned seed) {
    REQUIRE(BlockLu::Applies(A));
    BlockLu lu(ordering);
    lu.Analyze(A);
    REQUIRE(lu.Factor(A));
    CHECK(lu.ReciprocalCondition() > 0.0);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Eigen::MatrixXd dense(A);
    for (int rhs = 0; rhs < 2; ++rhs) {  // two solves with one factorization
        Eigen::VectorXd b(A.rows());
        for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = u(gen);
        const Eigen::VectorXd reference = dense.partialPivLu().solve(b);
        Eigen::VectorXd x = b;
        lu.Solve(x);
        CHECK((x - reference).norm() <= 1e-12 * reference.norm());
        CHECK((dense * x - b).norm() <= 1e-13 * dense.norm() * x.norm());
    }
}

}  // namespace

TEST_CASE("block LU: uniform 3x3 and 6x6 blocks, mixed sizes, every ordering, with fill") {
    for (Ordering o : {Ordering::kAuto, Ordering::kNatural, Ordering::kRcm}) {
        CheckSolves(MakeBlockMatrix(std::vector<int>(60, 3), 0, 1), o, 11);   // a tree: no fill
        CheckSolves(MakeBlockMatrix(std::vector<int>(60, 3), 25, 2), o, 12);  // loops: fill
        CheckSolves(MakeBlockMatrix(std::vector<int>(30, 6), 10, 3), o, 13);
        CheckSolves(MakeBlockMatrix({3, 5, 6, 1, 3, 3, 8, 2, 4, 3, 5, 3, 6, 6, 3}, 6, 4), o, 14);
    }
    // Refactorization with new values in the same pattern.
    const Eigen::SparseMatrix<double> A = MakeBlockMatrix(std::vector<int>(40, 3), 12, 5);
    Eigen::SparseMatrix<double> B = A;
    for (Eigen::Index p = 0; p < B.nonZeros(); ++p) B.valuePtr()[p] *= 1.0 + 0.1 * std::sin(p);
    BlockLu lu;
    lu.Analyze(A);
    REQUIRE(lu.Factor(A));
    REQUIRE(lu.Factor(B));
    Eigen::VectorXd x = Eigen::VectorXd::Ones(B.rows());
    lu.Solve(x);
    CHECK((B * x - Eigen::VectorXd::Ones(B.rows())).norm() <= 1e-13 * x.norm() * 20.0);
}

TEST_CASE("block LU: the nested-dissection split, against dense LU and for any thread count") {
    tbb::task_arena two(2);
    const std::vector<std::pair<const char*, Eigen::SparseMatrix<double>>> cases{
        {"chain of 3x3", MakeChainMatrix(std::vector<int>(700, 3), 0, 2, 21)},
        {"chain of 6x6 with loops", MakeChainMatrix(std::vector<int>(400, 6), 60, 4, 22)},
        {"chain, mixed sizes with loops", MakeChainMatrix(
                                              [] {
                                                  std::vector<int> sizes;
                                                  for (int i = 0; i < 500; ++i)
                                                      sizes.push_back(1 + (i * 7) % 8);
                                                  return sizes;
                                              }(),
                                              80, 5, 23)},
        {"grid of 3x3", MakeGridMatrix(24, 26, 3, 100, 24)},
    };
    for (const auto& [what, A] : cases) {
        CAPTURE(what);
        REQUIRE(BlockLu::Applies(A));
        BlockLu one, both;
        one.Analyze(A), both.Analyze(A);
        REQUIRE(one.split_blocks() > 0);
        CHECK(one.split_blocks() < one.blocks());
        both.set_arena(&two);
        REQUIRE(one.Factor(A));
        REQUIRE(both.Factor(A));
        REQUIRE(one.FactorNonzeros() == both.FactorNonzeros());
        CHECK(std::memcmp(one.factor_values(), both.factor_values(),
                          sizeof(double) * one.FactorNonzeros()) == 0);
        CHECK(one.ReciprocalCondition() == both.ReciprocalCondition());
        const Eigen::MatrixXd dense(A);
        std::mt19937 gen(31);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        for (int rhs = 0; rhs < 2; ++rhs) {
            Eigen::VectorXd b(A.rows());
            for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = u(gen);
            const Eigen::VectorXd reference = dense.partialPivLu().solve(b);
            Eigen::VectorXd x = b, y = b;
            one.Solve(x), both.Solve(y);
            CHECK(std::memcmp(x.data(), y.data(), sizeof(double) * x.size()) == 0);
            CHECK((x - reference).norm() <= 1e-12 * reference.norm());
            CHECK((dense * x - b).norm() <= 1e-13 * dense.norm() * x.norm());
        }
        // Without the split (the given order) the same solution to round-off.
        BlockLu natural(Ordering::kNatural);
        natural.Analyze(A);
        CHECK(natural.split_blocks() == 0);
        REQUIRE(natural.Factor(A));
        Eigen::VectorXd z = Eigen::VectorXd::Ones(A.rows()), w = z;
        natural.Solve(z), one.Solve(w);
        CHECK((z - w).norm() <= 1e-12 * z.norm());
    }
    // Too few blocks: no split.
    BlockLu small;
    small.Analyze(MakeChainMatrix(std::vector<int>(BlockLu::kSplitMinBlocks - 1, 3), 0, 2, 25));
    CHECK(small.split_blocks() == 0);
}

TEST_CASE("block LU: runs of one pattern longer than the largest block are split") {
    // Nine columns of one dense 9 x 9 block: blocks of 8 and 1.
    const Eigen::SparseMatrix<double> A = MakeBlockMatrix({9, 3, 3}, 0, 6);
    BlockLu lu;
    lu.Analyze(A);
    CHECK(lu.blocks() == 4);
    CheckSolves(A, Ordering::kAuto, 15);
}

TEST_CASE("block LU: refuses patterns without dense diagonal blocks and tiny pivots") {
    // A zero-free diagonal is missing: rows 0-2 and 3-5 coupled only off the diagonal.
    std::vector<Eigen::Triplet<double>> t;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            t.emplace_back(r, 3 + c, 1.0 + r), t.emplace_back(3 + r, c, 2.0 + c);
    Eigen::SparseMatrix<double> A(6, 6);
    A.setFromTriplets(t.begin(), t.end());
    A.makeCompressed();
    CHECK_FALSE(BlockLu::Applies(A));
    BlockLu lu;
    CHECK_THROWS_AS(lu.Analyze(A), mbstep::RunError);

    // Diagonal blocks present but (nearly) singular: two more blocks P, Q of 3 coupled to each
    // other by identities (and P weakly to the first block), with diagonal blocks d I stored
    // explicitly. The matrix is regular
    // (KLU's pivoting solves it), the block LU's pivot d is refused for d = 0 and 1e-15.
    for (double d : {0.0, 1e-15}) {
        const Eigen::SparseMatrix<double> R = MakeBlockMatrix(std::vector<int>(10, 3), 2, 7);
        std::vector<Eigen::Triplet<double>> tr;
        for (int c = 0; c < R.outerSize(); ++c)
            for (Eigen::SparseMatrix<double>::InnerIterator it(R, c); it; ++it)
                tr.emplace_back(it.row(), it.col(), it.value());
        const int n = static_cast<int>(R.rows());
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                tr.emplace_back(n + r, n + c, r == c ? d : 0.0);
                tr.emplace_back(n + 3 + r, n + 3 + c, r == c ? d : 0.0);
                tr.emplace_back(n + r, n + 3 + c, r == c ? 1.0 : 0.0);
                tr.emplace_back(n + 3 + r, n + c, r == c ? 1.0 : 0.0);
            }
        for (int r = 0; r < 3; ++r)  // P's pattern differs from Q's (no merged 6x6 block)
            tr.emplace_back(n + r, r, 1e-10), tr.emplace_back(r, n + r, 1e-10);
        Eigen::SparseMatrix<double> S(n + 6, n + 6);
        S.setFromTriplets(tr.begin(), tr.end());
        S.makeCompressed();
        REQUIRE(BlockLu::Applies(S));
        BlockLu lu2;
        lu2.Analyze(S);
        CHECK_FALSE(lu2.Factor(S));
        CHECK(lu2.ReciprocalCondition() == 0.0);
        CHECK(std::abs(Eigen::MatrixXd(S).determinant()) > 0.5);
    }

    // Regular, pivots fine, but L_10 = A_10 D_0^-1 = 1000 (natural order; a third block
    // coupled to the second only keeps the first two patterns apart): growth, refused.
    std::vector<Eigen::Triplet<double>> tg;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            const double id = r == c ? 1.0 : 0.0;
            tg.emplace_back(r, c, 1e-3 * id);
            tg.emplace_back(3 + r, 3 + c, 4.0 * id);
            tg.emplace_back(6 + r, 6 + c, 4.0 * id);
            tg.emplace_back(r, 3 + c, id), tg.emplace_back(3 + r, c, id);
            tg.emplace_back(3 + r, 6 + c, id), tg.emplace_back(6 + r, 3 + c, id);
        }
    Eigen::SparseMatrix<double> G(9, 9);
    G.setFromTriplets(tg.begin(), tg.end());
    G.makeCompressed();
    BlockLu lu3(Ordering::kNatural);
    lu3.Analyze(G);
    CHECK(lu3.blocks() == 3);
    CHECK_FALSE(lu3.Factor(G));
    // The first block's diagonal 5 instead of 1e-3: accepted, and it solves.
    for (Eigen::Index p = 0; p < G.nonZeros(); ++p)
        if (G.valuePtr()[p] == 1e-3) G.valuePtr()[p] = 5.0;
    REQUIRE(lu3.Factor(G));
    Eigen::VectorXd x = Eigen::VectorXd::Ones(9);
    lu3.Solve(x);
    CHECK((G * x - Eigen::VectorXd::Ones(9)).norm() <= 1e-14);
}
