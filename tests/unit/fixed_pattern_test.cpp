// FixedPatternMatrix, SparseProduct and SparseAccumulator against Eigen's own triplet build,
// sparse product and sums; pattern changes re-plan instead of reusing stale slots.
#include "mbstep/assembly/fixed_pattern.hpp"

#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <random>
#include <vector>

#include "mbstep/assembly/assembly.hpp"
#include "mbstep/common.hpp"

using namespace mbstep;
using SpMat = Eigen::SparseMatrix<double>;

namespace {

struct Entry {
    int r, c;
};

// A random entry sequence with duplicates (rows x cols).
std::vector<Entry> RandomSequence(int rows, int cols, int n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> R(0, rows - 1), C(0, cols - 1);
    std::vector<Entry> s;
    for (int k = 0; k < n; ++k) s.push_back({R(gen), C(gen)});
    s.push_back(s.front());  // at least one duplicate
    return s;
}

std::vector<double> RandomValues(size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    std::vector<double> v(n);
    for (double& x : v) x = U(gen);
    return v;
}

SpMat FromTriplets(int rows, int cols, const std::vector<Entry>& s, const std::vector<double>& v) {
    std::vector<Eigen::Triplet<double>> t;
    for (size_t k = 0; k < s.size(); ++k) t.emplace_back(s[k].r, s[k].c, v[k]);
    SpMat m(rows, cols);
    m.setFromTriplets(t.begin(), t.end());
    m.makeCompressed();
    return m;
}

void Fill(FixedPatternMatrix& f, int rows, int cols, const std::vector<Entry>& s,
          const std::vector<double>& v, SpMat& out) {
    f.Begin(rows, cols);
    for (size_t k = 0; k < s.size(); ++k) f.Add(s[k].r, s[k].c, v[k]);
    f.Finish(out);
}

// Same structure and the same value bits.
bool Identical(const SpMat& a, const SpMat& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.nonZeros() != b.nonZeros()) return false;
    for (int j = 0; j <= a.outerSize(); ++j)
        if (a.outerIndexPtr()[j] != b.outerIndexPtr()[j]) return false;
    for (int k = 0; k < a.nonZeros(); ++k)
        if (a.innerIndexPtr()[k] != b.innerIndexPtr()[k] || a.valuePtr()[k] != b.valuePtr()[k])
            return false;
    return true;
}

SpMat RandomSparse(int rows, int cols, int n, unsigned seed) {
    const auto s = RandomSequence(rows, cols, n, seed);
    return FromTriplets(rows, cols, s, RandomValues(s.size(), seed + 1));
}

}  // namespace

TEST_CASE("FixedPatternMatrix builds setFromTriplets' matrix and then writes it in place") {
    const int rows = 40, cols = 30;
    const auto seq = RandomSequence(rows, cols, 300, 1);
    FixedPatternMatrix f;
    SpMat m;
    for (unsigned round = 0; round < 4; ++round) {
        const auto v = RandomValues(seq.size(), 10 + round);
        Fill(f, rows, cols, seq, v, m);
        CHECK(Identical(m, FromTriplets(rows, cols, seq, v)));
    }
    CHECK(f.builds() == 1);  // the same sequence: one pattern, values in place
    const double* storage = m.valuePtr();
    Fill(f, rows, cols, seq, RandomValues(seq.size(), 99), m);
    CHECK(m.valuePtr() == storage);  // no reallocation

    // Another sequence (one entry changed, one appended, or one fewer): a new pattern, the
    // right matrix.
    auto changed = seq;
    changed[150] = {(seq[150].r + 1) % rows, seq[150].c};
    auto longer = seq;
    longer.push_back({rows - 1, cols - 1});
    auto shorter = seq;
    shorter.pop_back();
    int builds = f.builds();
    for (const std::vector<Entry>* s :
         std::initializer_list<const std::vector<Entry>*>{&changed, &longer, &shorter, &seq}) {
        const auto v = RandomValues(s->size(), 7);
        Fill(f, rows, cols, *s, v, m);
        CHECK(Identical(m, FromTriplets(rows, cols, *s, v)));
        CHECK(f.builds() == ++builds);
    }
    // A target matrix with another pattern gets this one.
    SpMat other = RandomSparse(rows, cols, 50, 5);
    const auto v = RandomValues(seq.size(), 8);
    Fill(f, rows, cols, seq, v, other);
    CHECK(Identical(other, FromTriplets(rows, cols, seq, v)));
    // Out-of-range entries are refused.
    f.Begin(rows, cols);
    CHECK_THROWS_AS(f.Add(rows, 0, 1.0), RunError);
}

TEST_CASE("SparseProduct equals Eigen's product and re-plans when a pattern changes") {
    SparseProduct p;
    const SpMat A = RandomSparse(25, 20, 120, 3), B = RandomSparse(20, 15, 80, 4);
    const SpMat ref = A * B;
    const SpMat& C = p.Compute(A, B);
    CHECK(Eigen::MatrixXd(C).isApprox(Eigen::MatrixXd(ref), 1e-14));
    // New values, same patterns: the same plan, still the product.
    SpMat A2 = A;
    for (int k = 0; k < A2.nonZeros(); ++k) A2.valuePtr()[k] *= -2.5 + k % 3;
    CHECK(Eigen::MatrixXd(p.Compute(A2, B)).isApprox(Eigen::MatrixXd(A2 * B), 1e-14));
    // Another pattern of A.
    const SpMat A3 = RandomSparse(25, 20, 60, 11);
    CHECK(Eigen::MatrixXd(p.Compute(A3, B)).isApprox(Eigen::MatrixXd(A3 * B), 1e-14));
    // A structural product keeps entries that cancel numerically.
    SpMat a(1, 2), b(2, 1);
    a.insert(0, 0) = 1.0;
    a.insert(0, 1) = 1.0;
    b.insert(0, 0) = 1.0;
    b.insert(1, 0) = -1.0;
    a.makeCompressed();
    b.makeCompressed();
    const SpMat& z = p.Compute(a, b);
    CHECK(z.nonZeros() == 1);
    CHECK(z.valuePtr()[0] == 0.0);
}

TEST_CASE("SparseAccumulator sums scaled, offset terms into a fixed pattern") {
    const SpMat M = RandomSparse(10, 10, 30, 21), L = RandomSparse(10, 4, 12, 22),
                B = RandomSparse(4, 10, 12, 23);
    const std::vector<SparseAccumulator::Term> terms = {{&M, 0, 0}, {&L, 0, 10}, {&B, 10, 0}};
    SpMat J = SparseAccumulator::UnionPattern(14, 14, terms, true);
    for (int i = 0; i < 14; ++i) CHECK(FindPatternSlot(J, i, i) >= 0);  // the diagonal is in it
    SparseAccumulator acc("test");
    Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(14, 14);
    ref.topLeftCorner(10, 10) = 2.0 * Eigen::MatrixXd(M);
    ref.topRightCorner(10, 4) = -1.0 * Eigen::MatrixXd(L);
    ref.bottomLeftCorner(4, 10) = 0.5 * Eigen::MatrixXd(B);
    for (int round = 0; round < 2; ++round) {  // the second round reuses the slot maps
        acc.Begin(J);
        acc.Add(0, M, 0, 0, 2.0);
        acc.Add(1, L, 0, 10, -1.0);
        acc.Add(2, B, 10, 0, 0.5);
        CHECK(Eigen::MatrixXd(J).isApprox(ref, 1e-15));
    }
    // A term with an entry outside J's pattern: explicit zeros are skipped, values refused.
    SpMat outside(4, 4);
    outside.insert(3, 3) = 0.0;
    outside.makeCompressed();
    acc.Begin(J);
    CHECK_NOTHROW(acc.Add(3, outside, 10, 10, 1.0));  // (13, 13) is on the diagonal: inside
    SpMat J2 = SparseAccumulator::UnionPattern(14, 14, terms, false);
    acc.Begin(J2);                                    // a new J pattern: every term re-plans
    CHECK_NOTHROW(acc.Add(3, outside, 10, 10, 1.0));  // an explicit zero outside: skipped
    outside.valuePtr()[0] = 1.0;
    CHECK_THROWS_AS(acc.Add(3, outside, 10, 10, 1.0), RunError);
    acc.Add(0, M, 0, 0, 2.0);
    CHECK(Eigen::MatrixXd(J2).topLeftCorner(10, 10).isApprox(2.0 * Eigen::MatrixXd(M), 1e-15));
}

TEST_CASE("FixedPatternMatrix blocks: overlapping dense blocks, a changed block shape re-plans") {
    FixedPatternMatrix f;
    SpMat m;
    auto fill = [&](double s, int cols_of_second) {
        Eigen::Matrix3d a;
        a << 1, 2, 3, 4, 5, 6, 7, 8, 9;
        const Eigen::MatrixXd b = s * Eigen::MatrixXd::Ones(2, cols_of_second);
        f.Begin(5, 5);
        f.AddBlock(0, 0, s * a);
        f.AddBlock(1, 1, b);  // overlaps a
        f.Add(4, 4, s);
        f.Finish(m);
        Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(5, 5);
        ref.topLeftCorner(3, 3) = s * a;
        ref.block(1, 1, 2, cols_of_second) += b;
        ref(4, 4) = s;
        const int nnz = 9 + 1 + 2 * (cols_of_second - 2);  // b's columns past a's add entries
        return Eigen::MatrixXd(m).isApprox(ref, 0.0) && m.nonZeros() == nnz;
    };
    CHECK(fill(1.0, 2));
    CHECK(fill(-2.0, 2));
    CHECK(f.builds() == 1);
    CHECK(fill(3.0, 4));  // the second block is 2 x 4 now
    CHECK(f.builds() == 2);
}
