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
//
// Like KLU's refactorization (a fixed pivot sequence), the factorization is refused when the
// smallest pivot is below 1e-13 of the largest or not finite, and also when an entry of L or W
// exceeds kMaxGrowth (growth without exchanges between blocks): `schur` then solves S with KLU
// (partial pivoting over the whole matrix) for the rest of the run. Analyze() refuses patterns
// without that block structure (the caller uses KLU). No allocation after Analyze().
#pragma once

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

    explicit BlockLu(Ordering ordering = Ordering::kAuto) : requested_(ordering) {}
    std::string name() const override { return "block lu"; }
    /// Throws RunError when the pattern has no block structure (check Applies() first).
    void Analyze(const Eigen::SparseMatrix<double>& A) override;
    bool Factor(const Eigen::SparseMatrix<double>& A) override;
    void Solve(Eigen::VectorXd& b) override;
    double ReciprocalCondition() override { return factored_ ? pivot_ratio_ : 0.0; }
    long FactorNonzeros() const override { return static_cast<long>(values_.size()); }
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

  private:
    // The blocks of A's columns: start[J] .. start[J + 1] - 1; empty when there is none.
    static std::vector<int> FindBlocks(const Eigen::SparseMatrix<double>& A);
    template <int Fixed>
    bool FactorBlocks(double* umin, double* umax, double* growth);
    template <int Fixed>
    void SolveBlocks(double* b);

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
    // Right-looking updates: for every k and every pair (i, j) of its structure, the offset of
    // the block (i, j) (diagonal, L or U) in values_, in the order the loops visit them.
    std::vector<int> update_begin_, update_;
    std::vector<int> scatter_;  // position in values_ of each entry of A (CSC order)
    std::vector<int> fill_;     // positions in values_ no entry of A lands on (zeroed first)
    std::vector<double> values_;
    std::vector<double> work_;  // solve: the right-hand side in elimination order
};

}  // namespace mbstep::detail
