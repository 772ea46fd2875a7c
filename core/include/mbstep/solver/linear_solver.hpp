// mbstep — sparse linear solvers behind one interface (docs/DESIGN.md, "Solver services").
//
// The sparsity pattern is analysed once (Analyze); Factor() refactors with new values in the
// same pattern (KLU: klu_refactor after the first klu_factor); Solve() overwrites b with x.
//
// Fill-reducing ordering of KLU's diagonal blocks (after its BTF pre-ordering): `amd` and
// `colamd` are KLU's own; `natural` keeps the formulation's dof order; `rcm` is reverse
// Cuthill-McKee (Boost.Graph) on the pattern of A + A^T, passed to KLU as a user ordering.
// `auto` picks by size (docs/DESIGN.md, "Solver services"; data in docs/PERFORMANCE.md).
#pragma once

#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

namespace mbstep {

enum class Ordering { kAuto, kAmd, kColamd, kNatural, kRcm };

/// "auto", "amd", "colamd", "natural", "rcm".
const char* OrderingName(Ordering o);
/// Inverse of OrderingName; throws RunError for other names.
Ordering OrderingFromName(const std::string& name);
/// The ordering `auto` resolves to for a matrix with n rows.
Ordering AutoOrdering(int n);

/// Reverse Cuthill-McKee permutation (perm[k] = old index of the k-th new one) of the
/// symmetric pattern A + A^T of a square compressed-column pattern (Boost.Graph).
std::vector<int> ReverseCuthillMcKee(int n, const int* colptr, const int* rowind);

/// Cumulative wall time of Factor() and Solve() when timing is enabled (diagnostic: the bench
/// measures the sparse solver's share of a step with it).
struct LinearSolverTiming {
    double factor_seconds{0.0};
    double solve_seconds{0.0};
    long factors{0};
    long solves{0};
};

class LinearSolver {
  public:
    virtual ~LinearSolver() = default;
    void set_timing(bool on) { timing_on_ = on; }
    /// Threads for the parts that run in parallel (`schur`'s block elimination); results are
    /// the same for any number.
    virtual void set_threads(int /*threads*/) {}
    const LinearSolverTiming& timing() const { return timing_; }
    /// Factor() / Solve() with the timing applied when enabled.
    bool TimedFactor(const Eigen::SparseMatrix<double>& A);
    void TimedSolve(Eigen::VectorXd& b);

    virtual std::string name() const = 0;
    /// Symbolic analysis of the pattern (column-major, compressed).
    virtual void Analyze(const Eigen::SparseMatrix<double>& A) = 0;
    /// Numeric factorization; returns false if the matrix is singular.
    virtual bool Factor(const Eigen::SparseMatrix<double>& A) = 0;
    /// Solves A x = b in place with the last factorization.
    virtual void Solve(Eigen::VectorXd& b) = 0;
    /// Estimated reciprocal condition number of the last factorization (0 when unknown).
    virtual double ReciprocalCondition() { return 0.0; }
    /// 1-norm condition estimate of the last factorization (KLU: klu_condest; 0 when unknown).
    virtual double ConditionEstimate() { return 0.0; }
    /// Entries of the last factorization: nnz(L) + nnz(U) (+ KLU's off-diagonal BTF blocks);
    /// -1 when unknown.
    virtual long FactorNonzeros() const { return -1; }
    /// The ordering actually used (auto resolved).
    virtual Ordering ordering() const { return Ordering::kAuto; }
    /// Unknowns eliminated block by block before the sparse factorization (`schur`; 0 for the
    /// others).
    virtual int eliminated() const { return 0; }
    /// Size of the largest eliminated group (`schur`; 0 for the others).
    virtual int largest_group() const { return 0; }
    /// The solver of what is left after the block elimination (`schur`: "block lu", "klu" or
    /// "naive"; empty for the others).
    virtual std::string remainder_solver() const { return {}; }

  private:
    bool timing_on_{false};
    LinearSolverTiming timing_;
};

/// Relative backward error ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf) of the
/// solution x = solver^-1 b for b uniform in [-1, 1] (std::mt19937 with `seed`); the solver
/// must have factored A. x is returned when asked (diagnostics: bench, tests).
double RandomRhsBackwardError(LinearSolver& solver, const Eigen::SparseMatrix<double>& A,
                              Eigen::VectorXd* x = nullptr, unsigned seed = 7);

/// Systems up to this many unknowns are solved densely by `auto` (measured crossover of a
/// dense LU against a KLU refactorization + solve, docs/PERFORMANCE.md, "Dense `naive` LU
/// against KLU on small systems").
constexpr int kDenseMaxUnknowns = 100;

/// `auto` uses `schur` above kDenseMaxUnknowns when at least half the unknowns are eliminated
/// (groups of 6 and 12 unknowns: faster than KLU from 150 unknowns on, measured,
/// docs/PERFORMANCE.md, "`schur` against KLU").
/// That rule for A (groups found from its pattern alone).
bool AutoUsesSchur(const Eigen::SparseMatrix<double>& A);

/// "auto" (default: "naive" up to kDenseMaxUnknowns unknowns, above "schur" or "klu" as
/// described at AutoUsesSchur), "klu", "naive"
/// (dense LU with partial pivoting), "schur" (small diagonal groups eliminated, KLU on the Schur
/// complement; core/src/solver/schur_solver.cpp) or "sparselu"; throws RunError for other
/// names. The ordering applies to KLU only (SparseLU always uses COLAMD).
/// `klu_scale` is KLU's row scaling (klu_common.scale: -1 none, the default; 1 sum; 2 max).
std::unique_ptr<LinearSolver> MakeLinearSolver(const std::string& name,
                                               Ordering ordering = Ordering::kAuto,
                                               int klu_scale = -1);

/// The `schur` solver (MakeLinearSolver("schur", ...)).
std::unique_ptr<LinearSolver> MakeSchurSolver(Ordering ordering, int klu_scale);

}  // namespace mbstep
