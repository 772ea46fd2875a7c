// mbstep — KLU and Eigen SparseLU solvers.
#include "mbstep/solver/linear_solver.hpp"

#include <klu.h>

#include <Eigen/SparseLU>

#include "mbstep/common.hpp"

namespace mbstep {
namespace {

// SuiteSparse KLU [Davis & Palamadai Natarajan, ACM TOMS 37 (2010)]: BTF + AMD ordering,
// symbolic analysis once, klu_factor on the first call and klu_refactor afterwards (same
// pivot sequence); a refactorization whose pivot growth is poor falls back to klu_factor.
class KluSolver final : public LinearSolver {
  public:
    KluSolver() { klu_defaults(&common_); }
    ~KluSolver() override { Free(); }
    std::string name() const override { return "klu"; }

    void Analyze(const Eigen::SparseMatrix<double>& A) override {
        Free();
        n_ = static_cast<int>(A.rows());
        colptr_.assign(A.outerIndexPtr(), A.outerIndexPtr() + n_ + 1);
        rowind_.assign(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
        symbolic_ = klu_analyze(n_, colptr_.data(), rowind_.data(), &common_);
        if (!symbolic_)
            throw RunError("KLU symbolic analysis failed (status " +
                           std::to_string(common_.status) + ")");
    }

    bool Factor(const Eigen::SparseMatrix<double>& A) override {
        double* values = const_cast<double*>(A.valuePtr());
        if (numeric_) {
            if (klu_refactor(colptr_.data(), rowind_.data(), values, symbolic_, numeric_,
                             &common_) &&
                klu_rgrowth(colptr_.data(), rowind_.data(), values, symbolic_, numeric_,
                            &common_) &&
                common_.rgrowth > 1e-10)
                return true;
            klu_free_numeric(&numeric_, &common_);
        }
        numeric_ = klu_factor(colptr_.data(), rowind_.data(), values, symbolic_, &common_);
        return numeric_ != nullptr && common_.status == KLU_OK;
    }

    void Solve(Eigen::VectorXd& b) override {
        klu_solve(symbolic_, numeric_, n_, 1, b.data(), &common_);
    }

    double ReciprocalCondition() override {
        if (!numeric_) return 0.0;
        klu_rcond(symbolic_, numeric_, &common_);
        return common_.rcond;
    }

  private:
    void Free() {
        if (numeric_) klu_free_numeric(&numeric_, &common_);
        if (symbolic_) klu_free_symbolic(&symbolic_, &common_);
    }
    klu_common common_{};
    klu_symbolic* symbolic_{nullptr};
    klu_numeric* numeric_{nullptr};
    int n_{0};
    std::vector<int> colptr_, rowind_;
};

class SparseLuSolver final : public LinearSolver {
  public:
    std::string name() const override { return "sparselu"; }
    void Analyze(const Eigen::SparseMatrix<double>& A) override { lu_.analyzePattern(A); }
    bool Factor(const Eigen::SparseMatrix<double>& A) override {
        lu_.factorize(A);
        return lu_.info() == Eigen::Success;
    }
    void Solve(Eigen::VectorXd& b) override { b = lu_.solve(b); }

  private:
    Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu_;
};

}  // namespace

std::unique_ptr<LinearSolver> MakeLinearSolver(const std::string& name) {
    if (name == "klu") return std::make_unique<KluSolver>();
    if (name == "sparselu") return std::make_unique<SparseLuSolver>();
    throw RunError("unknown linear solver '" + name + "'; accepted: klu, sparselu");
}

}  // namespace mbstep
