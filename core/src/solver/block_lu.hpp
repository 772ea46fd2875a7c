// mbstep — sparse LU by dense blocks for `schur`'s Schur complement S (docs/DESIGN.md, "Solver
// services").
//
// S couples the multipliers of elements that share a node; an element's multipliers are
// consecutive and their columns have one pattern, so S is a sparse matrix of small dense blocks
// (3 x 3 for a spherical joint). KLU treats it entry by entry (one indirect access and one
// division on the critical path per column); here it is factored block by block:
//
//   blocks      runs of consecutive columns with the same pattern (at most kMaxBlockSize), whose
//               own rows are all in that pattern (a dense diagonal block);
//   ordering    AMD on the block graph (RCM or the given order when the deck asks for `rcm` or
//               `natural`), symbolic fill by the elimination tree of the symmetric block pattern;
//   factor      right-looking block LU without exchanges between blocks: the inverse of each
//               diagonal block D_k from its dense LU with partial pivoting inside the block,
//               L_ik = A_ik D_k^-1, A_ij -= L_ik A_kj for i, j in the structure of k, then
//               W_kj = D_k^-1 A_kj;
//   solve       forward y_i -= L_ik y_k, y_k := D_k^-1 y_k; backward x_k = y_k - sum_j W_kj x_j
//               (one small matrix-vector product per block on each sweep's dependency chain:
//               a chain's blocks are solved one after the other).
//   split       with AMD and at least kSplitMinBlocks blocks, one level of nested dissection
//               first (George 1973; separator from a level structure rooted at a
//               pseudo-peripheral block, George & Liu 1979): part A, part B, then the
//               separator, ordered by constrained AMD (CAMD) within that sequence. No fill
//               joins A and B, so their columns are factored (and their sweeps run) as two
//               independent TBB tasks; the only blocks both update are
//               the separator's, where B's updates go to a buffer added in afterwards -- on one
//               thread too, so the result has the same bits for any thread count.
//
// Like KLU's refactorization (a fixed pivot sequence), the factorization is refused when the
// smallest pivot is below 1e-13 of the largest or not finite, and also when an entry of L or W
// exceeds kMaxGrowth (growth without exchanges between blocks): `schur` then solves S with KLU
// (partial pivoting over the whole matrix) for the rest of the run. Analyze() refuses patterns
// without that block structure (the caller uses KLU). No allocation after Analyze().
#pragma once

#include <tbb/task_arena.h>

#include <Eigen/SparseCore>
#include <vector>

#include "mbstep/solver/linear_solver.hpp"

namespace mbstep::detail {

class BlockLu final : public LinearSolver {
  public:
    static constexpr int kMaxBlockSize = 8;
    /// Largest entry of the multipliers L_ik = A_ik D_k^-1 and of W_kj = D_k^-1 A_kj accepted:
    /// they bound the growth of the Schur updates, as |L| <= 1 does for partial pivoting. The
    /// chain's S has 1.0 (a discrete Laplacian); random non-symmetric KKT matrices with 20-50
    /// kept round-off backward errors, 487 gave 4e-14 (tests/unit/schur_solver_test.cpp).
    static constexpr double kMaxGrowth = 100.0;
    /// Fewest blocks for the nested-dissection split (below, the fork costs more than half the
    /// factorization), and the largest separator accepted, as a fraction 1/kSplitMaxSeparator
    /// of the blocks (its blocks are factored on one thread after both parts).
    static constexpr int kSplitMinBlocks = 256;
    static constexpr int kSplitMaxSeparator = 16;

    explicit BlockLu(Ordering ordering = Ordering::kAuto) : requested_(ordering) {}
    std::string name() const override { return "block lu"; }
    /// Throws RunError when the pattern has no block structure (check Applies() first).
    void Analyze(const Eigen::SparseMatrix<double>& A) override;
    bool Factor(const Eigen::SparseMatrix<double>& A) override;
    void Solve(Eigen::VectorXd& b) override;
    double ReciprocalCondition() override { return factored_ ? pivot_ratio_ : 0.0; }
    long FactorNonzeros() const override { return factor_size_; }
    Ordering ordering() const override { return ordering_; }

    /// Assembly in place (`schur`): the storage, the position in it of A's p-th entry (CSC
    /// order; the same for any values), zeroing the positions no entry of A reaches, and the
    /// factorization of what was written there (Factor() = ZeroFill, scatter A, FactorValues).
    double* values() { return values_.data(); }
    int value_position(int p) const { return scatter_[p]; }
    void ZeroFill() {
        for (int p : fill_) values_[p] = 0.0;
    }
    bool FactorValues();

    /// Whether A's pattern (square, compressed) has the block structure above.
    static bool Applies(const Eigen::SparseMatrix<double>& A);
    int blocks() const { return nb_; }
    /// The blocks of parts A and B of the split (0 when the matrix is not split).
    int split_blocks() const { return split_b_; }
    /// Where the two parts run in parallel (nullptr: one after the other, same bits).
    void set_arena(tbb::task_arena* arena) { arena_ = arena; }
    /// The factors' values (for tests: identical for any arena).
    const double* factor_values() const { return values_.data(); }

  private:
    // The blocks of A's columns: start[J] .. start[J + 1] - 1; empty when there is none.
    static std::vector<int> FindBlocks(const Eigen::SparseMatrix<double>& A);
    // A level-structure bisection of the block graph: part[J] = 0 (A), 1 (B) or 2 (separator),
    // empty when no balanced split with a small separator is found.
    static std::vector<int> Bisect(int nb, const std::vector<int>& bp, const std::vector<int>& bi);
    template <int Fixed>
    bool FactorAll(double* umin, double* umax, double* growth);
    template <int Fixed>
    bool FactorBlocks(int k0, int k1, double* umin, double* umax, double* growth);
    template <int Fixed>
    void SolveBlocks(double* b);
    template <int Fixed>
    void ForwardBlocks(int k0, int k1, double* y) const;
    template <int Fixed>
    void BackwardBlocks(int k0, int k1, double* y) const;
    template <class F, class G>
    void RunBoth(F&& f, G&& g);

    Ordering requested_, ordering_{Ordering::kAmd};
    int n_{0}, nb_{0};
    int uniform_{0};  // the size of every block when they all have one, else 0
    bool factored_{false};
    double pivot_ratio_{0.0};
    // In elimination order k: the block's size, first row of A, offset of the diagonal block
    // in values_, its structure (blocks i > k of L's column and U's row k: struct_begin_[k] ..
    // struct_begin_[k + 1] into struct_), and for each i in it the offsets of L_ik (b_i x b_k)
    // and U_ki (b_k x b_i), column-major.
    std::vector<int> size_, first_, diag_, struct_begin_, struct_, lpos_, upos_;
    std::vector<int> offset_;  // first unknown of block k in the elimination order
    // Split: blocks 0 .. split_a_ - 1 are part A, split_a_ .. split_b_ - 1 part B, the rest the
    // separator (split_b_ = 0: no split). B's updates of separator x separator blocks go to
    // values_[factor_size_ ..] (merge_: buffer offset, target offset, length, added in after
    // both parts); on the forward sweep, B's updates of the separator's unknowns go to
    // work_[n_ ..]. fwd_[q]: where the forward sweep updates y_i for struct_[q] = i.
    int split_a_{0}, split_b_{0};
    long factor_size_{0};
    std::vector<int> merge_, fwd_;
    tbb::task_arena* arena_{nullptr};
    // Right-looking updates: for every k and every pair (i, j) of its structure, the offset of
    // the block (i, j) (diagonal, L or U) in values_, in the order the loops visit them.
    std::vector<int> update_begin_, update_;
    std::vector<int> scatter_;  // position in values_ of each entry of A (CSC order)
    std::vector<int> fill_;     // positions in values_ no entry of A lands on (zeroed first)
    std::vector<double> values_;
    std::vector<double> work_;  // solve: the right-hand side in elimination order
};

}  // namespace mbstep::detail
