// `linear solver: schur` (core/src/solver/schur_solver.cpp) on synthetic KKT-shaped matrices:
// groups of unknowns with a diagonal (nodes) coupled only through multiplier unknowns without
// one (joints), against a dense LU of the same matrix.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <random>

#include "mbstep/common.hpp"
#include "mbstep/solver/linear_solver.hpp"

using namespace mbstep;

namespace {

struct Joint {
    int a, b;  // groups it couples (b < 0: ground)
    int rows;  // multipliers
};

// Groups of the given sizes (diagonally dominant dense blocks), joints with `rows` multipliers
// each coupling their groups' unknowns both ways (random, non-symmetric), and a multiplier
// block D with off-diagonal entries between the two first joints (none on its diagonal).
// `band` > 0 adds a banded block of that many unknowns with a diagonal coupled to the first
// group through a joint: a component larger than the solver's groups, kept in S.
Eigen::SparseMatrix<double> MakeKkt(const std::vector<int>& groups,
                                    const std::vector<Joint>& joints, unsigned seed, int band = 0) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<int> start;
    int n = 0;
    for (int m : groups) start.push_back(n), n += m;
    const int band0 = n;
    n += band;
    std::vector<Eigen::Triplet<double>> t;
    for (size_t g = 0; g < groups.size(); ++g)
        for (int i = 0; i < groups[g]; ++i)
            for (int j = 0; j < groups[g]; ++j)
                t.emplace_back(start[g] + i, start[g] + j,
                               (i == j ? 4.0 + groups[g] : 0.0) + u(gen));
    for (int i = 0; i < band; ++i)
        for (int j = std::max(0, i - 2); j <= std::min(band - 1, i + 2); ++j)
            t.emplace_back(band0 + i, band0 + j, (i == j ? 8.0 : 0.0) + u(gen));
    std::vector<int> jstart;
    for (const Joint& jt : joints) {
        jstart.push_back(n);
        for (int r = 0; r < jt.rows; ++r, ++n)
            for (int g : {jt.a, jt.b}) {
                if (g < 0) continue;
                const int m = g == int(groups.size()) ? band : groups[g];
                const int s0 = g == int(groups.size()) ? band0 : start[g];
                for (int i = 0; i < m; ++i) {
                    t.emplace_back(n, s0 + i, u(gen));  // C: constraint row
                    t.emplace_back(s0 + i, n, u(gen));  // B: reaction column
                }
            }
    }
    if (joints.size() >= 2)
        for (int r = 0; r < std::min(joints[0].rows, joints[1].rows); ++r) {
            t.emplace_back(jstart[0] + r, jstart[1] + r, 0.1 * u(gen));
            t.emplace_back(jstart[1] + r, jstart[0] + r, 0.1 * u(gen));
        }
    Eigen::SparseMatrix<double> A(n, n);
    A.setFromTriplets(t.begin(), t.end());
    A.makeCompressed();
    return A;
}

// Solves A x = b for a random b with `solver` and compares with a dense LU.
double RelativeError(LinearSolver& solver, const Eigen::SparseMatrix<double>& A, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::VectorXd b(A.rows());
    for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = u(gen);
    const Eigen::VectorXd ref = Eigen::MatrixXd(A).partialPivLu().solve(b);
    Eigen::VectorXd x = b;
    solver.Solve(x);
    return (x - ref).lpNorm<Eigen::Infinity>() / ref.lpNorm<Eigen::Infinity>();
}

std::vector<Joint> ChainJoints(int groups, int rows) {
    std::vector<Joint> j{{0, -1, rows}};
    for (int g = 1; g < groups; ++g) j.push_back({g - 1, g, rows});
    return j;
}

}  // namespace

TEST_CASE("schur: a chain of 6-unknown groups (fixed-size kernels) solves as a dense LU") {
    const Eigen::SparseMatrix<double> A = MakeKkt(std::vector<int>(40, 6), ChainJoints(40, 3), 1);
    auto s = MakeLinearSolver("schur");
    s->Analyze(A);
    CHECK(s->eliminated() == 240);
    CHECK(s->largest_group() == 6);
    REQUIRE(s->Factor(A));
    CHECK(s->name() == "schur");
    CHECK(RelativeError(*s, A, 2) <= 1e-12);
    CHECK(RandomRhsBackwardError(*s, A) <= 1e-15);
    CHECK(s->ReciprocalCondition() > 0.0);
    // New values in the same pattern: refactoring gives the new solution.
    Eigen::SparseMatrix<double> B = A;
    for (Eigen::Index q = 0; q < B.nonZeros(); ++q) B.valuePtr()[q] *= 1.0 + 0.01 * (q % 7);
    REQUIRE(s->Factor(B));
    CHECK(RelativeError(*s, B, 3) <= 1e-12);
}

TEST_CASE("schur: mixed group sizes, hubs with more than 6 couplings, a large component in S") {
    // Groups of 1, 3, 5, 6, 8, 12 and 12 unknowns; group 3 (6 unknowns) carries four joints
    // (12 couplings: the scalar path), a band of 30 coupled unknowns stays in S.
    const std::vector<int> groups{1, 3, 5, 6, 8, 12, 12};
    std::vector<Joint> joints = ChainJoints(7, 3);
    joints.push_back({3, 5, 2});
    joints.push_back({3, 7, 3});  // group 7 = the band
    joints.push_back({6, -1, 1});
    const Eigen::SparseMatrix<double> A = MakeKkt(groups, joints, 4, 30);
    for (const int threads : {1, 2}) {
        INFO("threads ", threads);
        auto s = MakeLinearSolver("schur");
        s->set_threads(threads);
        s->Analyze(A);
        CHECK(s->eliminated() == 47);  // the band's 30 and the 24 multipliers are not
        CHECK(s->largest_group() == 12);
        REQUIRE(s->Factor(A));
        CHECK(RelativeError(*s, A, 5) <= 1e-12);
        CHECK(RandomRhsBackwardError(*s, A) <= 1e-15);
    }
    // Only groups, no multipliers: block diagonal, nothing left for S.
    const Eigen::SparseMatrix<double> D = MakeKkt({6, 12, 3}, {}, 6);
    auto s = MakeLinearSolver("schur");
    s->Analyze(D);
    CHECK(s->eliminated() == 21);
    REQUIRE(s->Factor(D));
    CHECK(RelativeError(*s, D, 7) <= 1e-13);
}

TEST_CASE("schur: the same bits for one and two threads") {
    const Eigen::SparseMatrix<double> A =
        MakeKkt(std::vector<int>(300, 6), ChainJoints(300, 3), 8);  // > one parallel range
    Eigen::VectorXd x1 = Eigen::VectorXd::LinSpaced(A.rows(), -1.0, 1.0), x2 = x1;
    auto s1 = MakeLinearSolver("schur"), s2 = MakeLinearSolver("schur");
    s2->set_threads(2);
    s1->Analyze(A);
    s2->Analyze(A);
    REQUIRE(s1->Factor(A));
    REQUIRE(s2->Factor(A));
    s1->Solve(x1);
    s2->Solve(x2);
    CHECK((x1.array() == x2.array()).all());
}

TEST_CASE("schur: groups with interleaved unknowns (gathers by position) give the same bits") {
    // Consecutive unknowns let the solver gather each group's columns as runs; interleaving
    // the unknowns of groups 2p and 2p+1 (each group's order, the multipliers and the group
    // order unchanged) leaves A_k, B_k, C_k and S the same matrices, gathered entry by entry.
    const int groups = 40;
    const Eigen::SparseMatrix<double> A =
        MakeKkt(std::vector<int>(groups, 6), ChainJoints(groups, 3), 16);
    const int n = static_cast<int>(A.rows());
    Eigen::VectorXi perm(n);  // new index of each unknown
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int g = 0; g < groups; ++g)
        for (int i = 0; i < 6; ++i) perm[6 * g + i] = 12 * (g / 2) + 2 * i + g % 2;
    const Eigen::PermutationMatrix<Eigen::Dynamic> P(perm);
    Eigen::SparseMatrix<double> B = P * A * P.transpose();
    B.makeCompressed();
    Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 1.0);
    Eigen::VectorXd x1 = b, x2 = P * b;
    auto s1 = MakeLinearSolver("schur"), s2 = MakeLinearSolver("schur");
    s1->Analyze(A);
    s2->Analyze(B);
    CHECK(s2->eliminated() == 6 * groups);
    REQUIRE(s1->Factor(A));
    REQUIRE(s2->Factor(B));
    s1->Solve(x1);
    s2->Solve(x2);
    const Eigen::VectorXd back = P.transpose() * x2;
    CHECK((x1.array() == back.array()).all());
    CHECK(RelativeError(*s2, B, 17) <= 1e-12);
}

TEST_CASE("schur: a singular group falls back to KLU on the whole matrix; singular refused") {
    // A massless node: its group's block is zero in the translation rows, the matrix is
    // regular (the joint rows fix it), the block elimination is not.
    Eigen::SparseMatrix<double> A = MakeKkt(std::vector<int>(20, 6), ChainJoints(20, 3), 9);
    for (int j = 30; j < 36; ++j)
        for (Eigen::SparseMatrix<double>::InnerIterator it(A, j); it; ++it)
            if (it.row() >= 30 && it.row() < 33) it.valueRef() = 0.0;
    auto s = MakeLinearSolver("schur");
    s->Analyze(A);
    REQUIRE(s->Factor(A));
    CHECK(s->name() == "schur (klu fallback)");
    CHECK(s->eliminated() == 0);
    CHECK(RelativeError(*s, A, 10) <= 1e-10);
    // Exactly singular through S (two identical constraint rows): refused.
    Eigen::SparseMatrix<double> B = MakeKkt(std::vector<int>(4, 6), ChainJoints(4, 3), 11);
    Eigen::MatrixXd Bd(B);
    Bd.row(Bd.rows() - 1) = Bd.row(Bd.rows() - 2);
    B = Bd.sparseView();
    B.makeCompressed();
    auto s2 = MakeLinearSolver("schur");
    s2->Analyze(B);
    CHECK_FALSE(s2->Factor(B));
}

TEST_CASE("schur: S by blocks; a zero pivot of the block LU switches S to KLU") {
    // The chain's S (120 multipliers in blocks of 3) goes through the block LU. Two more
    // multiplier blocks P and Q, coupled to each other by identities in D and to the first two
    // groups with explicitly zero constraint rows (C_P = C_Q = 0), make S(P, P) = S(Q, Q) = 0
    // in S's pattern: S is regular, the block LU without exchanges between blocks is not.
    const Eigen::SparseMatrix<double> A = MakeKkt(std::vector<int>(40, 6), ChainJoints(40, 3), 1);
    auto plain = MakeLinearSolver("schur");
    plain->Analyze(A);
    REQUIRE(plain->Factor(A));
    CHECK(plain->remainder_solver() == "block lu");
    CHECK(RelativeError(*plain, A, 19) <= 1e-12);
    CHECK(RandomRhsBackwardError(*plain, A) <= 1e-15);

    std::vector<Eigen::Triplet<double>> t;
    for (int c = 0; c < A.outerSize(); ++c)
        for (Eigen::SparseMatrix<double>::InnerIterator it(A, c); it; ++it)
            t.emplace_back(it.row(), it.col(), it.value());
    const int n = static_cast<int>(A.rows()), P = n, Q = n + 3;
    for (int r = 0; r < 3; ++r) {
        t.emplace_back(P + r, Q + r, 1.0);
        t.emplace_back(Q + r, P + r, 1.0);
        for (int i = 0; i < 6; ++i) {
            t.emplace_back(P + r, i, 0.0);                 // C_P (group 0), zero
            t.emplace_back(i, P + r, 0.5 + 0.1 * i);       // B_P
            t.emplace_back(Q + r, 6 + i, 0.0);             // C_Q (group 1), zero
            t.emplace_back(6 + i, Q + r, -0.3 + 0.1 * r);  // B_Q
        }
    }
    Eigen::SparseMatrix<double> B(n + 6, n + 6);
    B.setFromTriplets(t.begin(), t.end());
    B.makeCompressed();
    auto s = MakeLinearSolver("schur");
    s->Analyze(B);
    CHECK(s->eliminated() == 240);
    CHECK(s->remainder_solver() == "block lu");
    REQUIRE(s->Factor(B));
    CHECK(s->name() == "schur");
    CHECK(s->remainder_solver() == "klu");
    CHECK(RelativeError(*s, B, 20) <= 1e-10);
    CHECK(RandomRhsBackwardError(*s, B) <= 1e-14);
    REQUIRE(s->Factor(B));  // KLU on S from now on
    CHECK(RelativeError(*s, B, 21) <= 1e-10);
}

TEST_CASE("auto: schur when at least half the unknowns are eliminated, klu otherwise") {
    const Eigen::SparseMatrix<double> A6 = MakeKkt(std::vector<int>(40, 6), ChainJoints(40, 3), 12);
    const Eigen::SparseMatrix<double> A12 =
        MakeKkt(std::vector<int>(40, 12), ChainJoints(40, 3), 13);
    // Ten 6-unknown groups and a band of 200 coupled unknowns (one component, kept in S):
    // 60 of 290 unknowns eliminated.
    std::vector<Joint> joints = ChainJoints(10, 3);
    joints.push_back({0, 10, 3});  // group 10 = the band
    const Eigen::SparseMatrix<double> A1 = MakeKkt(std::vector<int>(10, 6), joints, 14, 200);
    auto a = MakeLinearSolver("auto");
    a->Analyze(A6);
    CHECK(a->name() == "schur");
    a->Analyze(A12);
    CHECK(a->name() == "schur");
    a->Analyze(A1);
    CHECK(a->name() == "klu");
    REQUIRE(a->Factor(A1));
    CHECK(RelativeError(*a, A1, 15) <= 1e-12);
}
