// mbstep — sparse matrices whose sparsity pattern stays fixed from one evaluation to the next,
// written in place: the second-order formulations' Jacobian pieces and the Newmark-family
// iteration matrices built from them (docs/DESIGN.md, "Second-order Jacobians in place").
//
// Each class keeps a copy of the patterns it was planned for and compares them on every call
// (a linear scan, far cheaper than sorting): a changed pattern re-plans, it never reuses stale
// value slots.
#pragma once

#include <Eigen/SparseCore>
#include <cstddef>
#include <vector>

namespace mbstep {

/// The structure (sizes, column starts, row indices) of a compressed sparse matrix.
class PatternCopy {
  public:
    /// True when A is compressed and has exactly the structure saved by the last Save().
    bool Matches(const Eigen::SparseMatrix<double>& A) const;
    void Save(const Eigen::SparseMatrix<double>& A);
    void Clear() { rows_ = cols_ = -1; }

  private:
    Eigen::Index rows_{-1}, cols_{-1};
    std::vector<int> outer_, inner_;
};

/// A sparse matrix from a sequence of (row, column, value) entries, the same matrix as Eigen's
/// setFromTriplets builds (duplicates summed in sequence order), for a sequence that repeats:
/// the first Finish() sorts the entries into a compressed pattern and remembers the value slot
/// of each; a later evaluation that adds the same (row, column) sequence only stores its
/// values, and Finish() sums them into the matrix in place (no sort, no allocation). Any other
/// sequence (another structure) builds a new pattern.
class FixedPatternMatrix {
  public:
    /// Starts an evaluation of a rows x cols matrix.
    void Begin(int rows, int cols);
    void Add(int row, int col, double value) { *Reserve(row, col, 1, 1) = value; }
    /// A dense block at (r0, c0), column by column (an expression is evaluated once first).
    template <class Block>
    void AddBlock(int r0, int c0, const Eigen::MatrixBase<Block>& block) {
        const auto& b = block.eval();
        double* v = Reserve(r0, c0, static_cast<int>(b.rows()), static_cast<int>(b.cols()));
        for (Eigen::Index j = 0; j < b.cols(); ++j)
            for (Eigen::Index i = 0; i < b.rows(); ++i) *v++ = b(i, j);
    }
    /// Writes the matrix of this evaluation into m: in place when m has the pattern already,
    /// else m takes a copy of the pattern first.
    void Finish(Eigen::SparseMatrix<double>& m);
    /// How many times a pattern was built (tests).
    int builds() const { return builds_; }

  private:
    struct Key {  // a block of entries (one entry: 1 x 1), values column by column
        int row, col, rows, cols;
    };
    /// Where the rows x cols values of the block at (row, col) go: in replay, a comparison of
    /// the block with the one at the same position of the last sequence.
    double* Reserve(int row, int col, int rows, int cols) {
        if (replay_ && next_ < keys_.size()) {
            const Key& k = keys_[next_];
            if (k.row == row && k.col == col && k.rows == rows && k.cols == cols) {
                ++next_;
                double* v = values_.data() + used_;
                used_ += static_cast<size_t>(rows) * cols;
                return v;
            }
        }
        return ReserveNew(row, col, rows, cols);
    }
    double* ReserveNew(int row, int col, int rows, int cols);
    void Build();

    int rows_{0}, cols_{0};
    bool replay_{false};  // the entries so far repeat keys_
    size_t next_{0};      // blocks added in this evaluation
    size_t used_{0};      // values added in this evaluation
    std::vector<Key> keys_;
    std::vector<double> values_;
    std::vector<int> slots_;  // value index in pattern_ of each entry of values_
    Eigen::SparseMatrix<double> pattern_;
    PatternCopy target_;  // the pattern last written into a target matrix
    int builds_{0};
};

/// C = A B for sparse A, B whose patterns repeat: the list of products (C slot, A slot,
/// B slot) is made once per pair of patterns, and each call sums them in that fixed order into
/// C's values. C's pattern is the structural product (no cancellation is dropped).
class SparseProduct {
  public:
    const Eigen::SparseMatrix<double>& Compute(const Eigen::SparseMatrix<double>& A,
                                               const Eigen::SparseMatrix<double>& B);

  private:
    void Plan(const Eigen::SparseMatrix<double>& A, const Eigen::SparseMatrix<double>& B);
    PatternCopy a_, b_;
    std::vector<int> ops_;  // triples: C slot, A slot, B slot
    Eigen::SparseMatrix<double> C_;
};

/// Builds J = sum of s_k A_k, each placed at a block offset (r_k, c_k) of J, into J's fixed
/// pattern: Begin(J) zeroes J's values, Add(k, ...) adds term k through a slot map made once
/// per pair of patterns. An entry of A_k outside J's pattern throws (naming `who`) unless it is
/// an explicit zero.
class SparseAccumulator {
  public:
    explicit SparseAccumulator(const char* who) : who_(who) {}
    void Begin(Eigen::SparseMatrix<double>& J);
    void Add(size_t term, const Eigen::SparseMatrix<double>& A, int r0, int c0, double s);

    /// The union of the terms' patterns (values zero), with the diagonal when `diagonal`.
    struct Term {
        const Eigen::SparseMatrix<double>* A;
        int r0, c0;
    };
    static Eigen::SparseMatrix<double> UnionPattern(int rows, int cols,
                                                    const std::vector<Term>& terms, bool diagonal);

  private:
    struct Plan {
        PatternCopy a;
        int r0{-1}, c0{-1};
        std::vector<int> slots;  // per entry of A: J's value index, -1 outside J
    };
    const char* who_;
    Eigen::SparseMatrix<double>* J_{nullptr};
    PatternCopy j_;
    std::vector<Plan> plans_;
};

}  // namespace mbstep
