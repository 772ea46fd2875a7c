// mbstep — sparse linear solvers behind one interface (docs/DESIGN.md, "Solver services").
//
// The sparsity pattern is analysed once (Analyze); Factor() refactors with new values in the
// same pattern (KLU: klu_refactor after the first klu_factor); Solve() overwrites b with x.
#pragma once

#include <Eigen/SparseCore>
#include <memory>
#include <string>

namespace mbstep {

class LinearSolver {
  public:
    virtual ~LinearSolver() = default;
    virtual std::string name() const = 0;
    /// Symbolic analysis of the pattern (column-major, compressed).
    virtual void Analyze(const Eigen::SparseMatrix<double>& A) = 0;
    /// Numeric factorization; returns false if the matrix is singular.
    virtual bool Factor(const Eigen::SparseMatrix<double>& A) = 0;
    /// Solves A x = b in place with the last factorization.
    virtual void Solve(Eigen::VectorXd& b) = 0;
    /// Estimated reciprocal condition number of the last factorization (0 when unknown).
    virtual double ReciprocalCondition() { return 0.0; }
};

/// "klu" (default) or "sparselu"; throws RunError for other names.
std::unique_ptr<LinearSolver> MakeLinearSolver(const std::string& name);

}  // namespace mbstep
