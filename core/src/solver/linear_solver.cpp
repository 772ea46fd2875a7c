// mbstep — KLU and Eigen SparseLU solvers.
#include "mbstep/solver/linear_solver.hpp"

#include <klu.h>

#include <Eigen/SparseLU>
#include <algorithm>
#include <array>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include "dense_lu.hpp"
#include "mbstep/common.hpp"

namespace mbstep {

bool LinearSolver::TimedFactor(const Eigen::SparseMatrix<double>& A) {
    if (!timing_on_) return Factor(A);
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = Factor(A);
    timing_.factor_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++timing_.factors;
    return ok;
}

void LinearSolver::TimedSolve(Eigen::VectorXd& b) {
    if (!timing_on_) return Solve(b);
    const auto t0 = std::chrono::steady_clock::now();
    Solve(b);
    timing_.solve_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++timing_.solves;
}

double RandomRhsBackwardError(LinearSolver& solver, const Eigen::SparseMatrix<double>& A,
                              Eigen::VectorXd* x_out, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::VectorXd b(A.rows());
    for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = u(gen);
    Eigen::VectorXd x = b;
    solver.Solve(x);
    const double norm_a = (A.cwiseAbs() * Eigen::VectorXd::Ones(A.cols())).maxCoeff();
    const double rel = (A * x - b).lpNorm<Eigen::Infinity>() /
                       (norm_a * x.lpNorm<Eigen::Infinity>() + b.lpNorm<Eigen::Infinity>());
    if (x_out) *x_out = std::move(x);
    return rel;
}

const char* OrderingName(Ordering o) {
    switch (o) {
        case Ordering::kAmd:
            return "amd";
        case Ordering::kColamd:
            return "colamd";
        case Ordering::kNatural:
            return "natural";
        case Ordering::kRcm:
            return "rcm";
        case Ordering::kAuto:
            break;
    }
    return "auto";
}

Ordering OrderingFromName(const std::string& name) {
    for (Ordering o :
         {Ordering::kAuto, Ordering::kAmd, Ordering::kColamd, Ordering::kNatural, Ordering::kRcm})
        if (name == OrderingName(o)) return o;
    throw RunError("unknown ordering '" + name + "'; accepted: auto, amd, colamd, natural, rcm");
}

// Measured with `mbstep-bench --set orderings` (docs/PERFORMANCE.md, "KLU orderings"): below
// ~1000 unknowns AMD has the lowest or equal fill and refactorization time at the cheapest
// analysis; from the 100-link chain (1500 unknowns) up, RCM has the least fill (1.30-1.38 x
// nnz(A) against AMD's 1.45) and the fastest refactorization + solve (up to 1.5-1.9x). From
// 100000 unknowns on AMD again: at 150000 (chain N = 10000) RCM raised the run's peak memory
// from 192 MB to 345 MB for the same time per step (9.12 vs 9.02 us per body, run-speed.sh).
// With the structure-aware cgr patterns AMD is faster from ~50000 unknowns: chain
// N = 10000 under `cgr velocity` (90000 unknowns) floor 7.3-7.7 ms (AMD) vs 9.5-10.3 ms (RCM),
// step 3-6 % faster, analysis 11 vs 165 ms; at 9000 unknowns RCM stays ahead (534 vs 639 us).
Ordering AutoOrdering(int n) { return n >= 1000 && n < 50000 ? Ordering::kRcm : Ordering::kAmd; }

std::vector<int> ReverseCuthillMcKee(int n, const int* colptr, const int* rowind) {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    std::vector<std::pair<int, int>> edges;  // pattern of A + A^T, one edge per pair i < j
    for (int j = 0; j < n; ++j)
        for (int p = colptr[j]; p < colptr[j + 1]; ++p)
            if (rowind[p] != j) edges.emplace_back(std::min(rowind[p], j), std::max(rowind[p], j));
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    Graph g(edges.begin(), edges.end(), n);
    std::vector<boost::default_color_type> color(n);
    std::vector<int> perm(n);
    auto index = boost::get(boost::vertex_index, g);
    boost::cuthill_mckee_ordering(g, perm.rbegin(),
                                  boost::make_iterator_property_map(color.begin(), index),
                                  boost::make_degree_map(g));
    return perm;
}

namespace {

// KLU user ordering (common.ordering = 3), called per diagonal block of the BTF form.
int UserOrder(int n, int* Ap, int* Ai, int* Perm, klu_common* common) {
    const auto o = *static_cast<const Ordering*>(common->user_data);
    if (o == Ordering::kRcm) {
        const std::vector<int> p = ReverseCuthillMcKee(n, Ap, Ai);
        std::copy(p.begin(), p.end(), Perm);
    } else {
        for (int k = 0; k < n; ++k) Perm[k] = k;
    }
    return 1;  // non-zero: success (KLU then counts the fill itself)
}

// SuiteSparse KLU [Davis & Palamadai Natarajan, ACM TOMS 37 (2010)]: BTF + a fill-reducing
// ordering of each block (AMD by default, see Ordering), no row scaling, symbolic analysis
// once, klu_factor on the first call and klu_refactor afterwards (same pivot sequence); a
// refactorization whose smallest pivot is below 1e-13 of its largest (klu_rcond, O(n)) falls
// back to klu_factor.
// (klu_rgrowth, the pivot-growth test used before, cost a third of a refactorization.)
class KluSolver final : public LinearSolver {
  public:
    KluSolver(Ordering ordering, int scale) : requested_(ordering), ordering_(ordering) {
        klu_defaults(&common_);
        // By default no row scaling and no input check (scale = -1): the formulations scale their
        // rows (constraint rows by 1/(b0 h)) and build valid patterns; KLU's default max-row
        // scaling took ~20 % of a refactorization + solve (chain N = 1000, cgr velocity: 1204
        // -> 934 us, medians of 5; docs/PERFORMANCE.md). The backward error stays at round-off
        // (solver_test: <= 4e-18 down to h = 1e-6).
        common_.scale = scale;  // decks may ask for it (MBDyn's `scale, ...`)
    }
    ~KluSolver() override { Free(); }
    std::string name() const override { return "klu"; }

    void Analyze(const Eigen::SparseMatrix<double>& A) override {
        Free();
        n_ = static_cast<int>(A.rows());
        colptr_.assign(A.outerIndexPtr(), A.outerIndexPtr() + n_ + 1);
        rowind_.assign(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
        ordering_ = requested_ == Ordering::kAuto ? AutoOrdering(n_) : requested_;
        common_.ordering = ordering_ == Ordering::kAmd ? 0 : ordering_ == Ordering::kColamd ? 1 : 3;
        common_.user_order = common_.ordering == 3 ? &UserOrder : nullptr;
        common_.user_data = &ordering_;
        symbolic_ = klu_analyze(n_, colptr_.data(), rowind_.data(), &common_);
        if (!symbolic_)
            throw RunError("KLU symbolic analysis failed (status " +
                           std::to_string(common_.status) + ")");
    }

    bool Factor(const Eigen::SparseMatrix<double>& A) override {
        double* values = const_cast<double*>(A.valuePtr());
        last_values_ = values;
        if (numeric_) {
            if (klu_refactor(colptr_.data(), rowind_.data(), values, symbolic_, numeric_,
                             &common_) &&
                klu_rcond(symbolic_, numeric_, &common_) && common_.rcond > 1e-13)
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

    double ConditionEstimate() override {
        if (!numeric_) return 0.0;
        klu_condest(colptr_.data(), last_values_, symbolic_, numeric_, &common_);
        return common_.condest;
    }

    long FactorNonzeros() const override {
        return numeric_ ? long(numeric_->lnz) + numeric_->unz + numeric_->nzoff : -1;
    }
    Ordering ordering() const override { return ordering_; }

  private:
    void Free() {
        if (numeric_) klu_free_numeric(&numeric_, &common_);
        if (symbolic_) klu_free_symbolic(&symbolic_, &common_);
    }
    klu_common common_{};
    klu_symbolic* symbolic_{nullptr};
    klu_numeric* numeric_{nullptr};
    Ordering requested_, ordering_;
    double* last_values_{nullptr};  // values of the last Factor() (klu_condest needs them)
    int n_{0};
    std::vector<int> colptr_, rowind_;
};

// `naive`: dense LU with partial pivoting on the full matrix, for small systems where KLU's
// per-call overhead dominates (docs/DESIGN.md, "Solver services"; MBDyn's `naive` is likewise its
// solver for small problems). Right-looking, column-major, row interchanges recorded in piv_
// (LAPACK getrf's unblocked algorithm); the column updates skip zero multipliers, which keeps
// the sparse Newton matrices cheap. No allocation after Analyze().
// Systems of up to kFixedMax unknowns (a rigid body's 6 and its joints': the heavy top has 9)
// run kernels compiled for their size, whose loops the compiler unrolls: the same operations in
// the same order as the run-time-size kernels (the same bits but for the sign of a zero).
namespace {
using FactorKernel = bool (*)(double*, int, int*, double*, double*, double*);
/// b := A^-1 b from the factors, the reciprocal pivots and the row permutation.
using SolveKernel = void (*)(const double*, const double*, const int*, double*);
constexpr int kFixedMax = 16;
/// The gathered right-hand side stays in registers (LuSolvePermuted): the generic solve's
/// loads and stores of b stall on store forwarding, and a size-specialised copy of that loop
/// measured no faster than the run-time-size one.
template <int M>
void SolveFixed(const double* a, const double* dinv, const int* perm, double* b) {
    double z[M];
    for (int i = 0; i < M; ++i) z[i] = b[perm[i]];
    detail::LuSolvePermuted<M>(a, dinv, z);
    for (int i = 0; i < M; ++i) b[i] = z[i];
}
template <int... M>
constexpr std::array<FactorKernel, sizeof...(M) + 1> FactorKernels(
    std::integer_sequence<int, M...>) {
    return {&detail::LuFactorInPlace<0>, &detail::LuFactorInPlace<M + 1>...};
}
template <int... M>
constexpr std::array<SolveKernel, sizeof...(M) + 1> SolveKernels(std::integer_sequence<int, M...>) {
    return {nullptr, &SolveFixed<M + 1>...};
}
// Entry n: the kernels of size n (entry 0: run-time size).
constexpr auto kFactorKernels = FactorKernels(std::make_integer_sequence<int, kFixedMax>{});
constexpr auto kSolveKernels = SolveKernels(std::make_integer_sequence<int, kFixedMax>{});
}  // namespace

class DenseLuSolver final : public LinearSolver {
  public:
    std::string name() const override { return "naive"; }
    void Analyze(const Eigen::SparseMatrix<double>& A) override {
        n_ = static_cast<int>(A.rows());
        a_.assign(static_cast<size_t>(n_) * n_, 0.0);
        piv_.assign(n_, 0);
        factored_ = false;
        const int k = n_ <= kFixedMax ? n_ : 0;
        factor_ = kFactorKernels[static_cast<size_t>(k)];
        solve_ = kSolveKernels[static_cast<size_t>(k)];
        dinv_.assign(n_, 0.0);
        perm_.assign(n_, 0);
    }
    bool Factor(const Eigen::SparseMatrix<double>& A) override {
        const int n = n_;
        double* a = a_.data();
        std::fill(a_.begin(), a_.end(), 0.0);
        norm1_ = 0.0;
        for (int j = 0; j < n; ++j) {
            double col = 0.0;
            for (Eigen::SparseMatrix<double>::InnerIterator it(A, j); it; ++it) {
                a[static_cast<size_t>(j) * n + it.row()] = it.value();
                col += std::abs(it.value());
            }
            norm1_ = std::max(norm1_, col);
        }
        double umax = 0.0, umin = 0.0;
        if (!factor_(a, n, piv_.data(), &umin, &umax, dinv_.data())) {  // zero, NaN or Inf
            factored_ = false;
            rcond_ = 0.0;
            return false;
        }
        rcond_ = n > 0 ? umin / umax : 1.0;
        if (solve_) detail::LuPermutation(piv_.data(), n, perm_.data());
        factored_ = true;
        return true;
    }
    void Solve(Eigen::VectorXd& b) override {
        if (solve_)
            solve_(a_.data(), dinv_.data(), perm_.data(), b.data());
        else
            detail::LuSolveInPlace(a_.data(), piv_.data(), n_, b.data());
    }
    /// Smallest over largest pivot magnitude (as klu_rcond).
    double ReciprocalCondition() override { return factored_ ? rcond_ : 0.0; }
    /// ||A||_1 ||A^-1||_1, A^-1 column by column (a diagnostic for small systems).
    double ConditionEstimate() override {
        if (!factored_) return 0.0;
        double inv1 = 0.0;
        Eigen::VectorXd e(n_);
        for (int j = 0; j < n_; ++j) {
            e.setZero();
            e[j] = 1.0;
            Solve(e);
            inv1 = std::max(inv1, e.lpNorm<1>());
        }
        return norm1_ * inv1;
    }
    long FactorNonzeros() const override { return long(n_) * n_; }
    Ordering ordering() const override { return Ordering::kNatural; }

  private:
    int n_{0};
    bool factored_{false};
    double rcond_{0.0}, norm1_{0.0};
    std::vector<double> a_;  // column-major LU factors (unit L below the diagonal)
    std::vector<int> piv_;
    std::vector<double> dinv_;  // 1 / U(k, k)
    std::vector<int> perm_;     // LuPermutation of piv_ (size-specialised solves)
    FactorKernel factor_{&detail::LuFactorInPlace<0>};
    SolveKernel solve_{nullptr};  // null: the run-time-size solve
};

// `auto` (the default): `naive` up to kDenseMaxUnknowns unknowns; above, `schur` where it
// eliminates at least half the unknowns (AutoUsesSchur) and `klu` otherwise, chosen at
// Analyze() from the size and pattern of the system.
class AutoSolver final : public LinearSolver {
  public:
    AutoSolver(Ordering ordering, int scale) : ordering_(ordering), scale_(scale) {}
    std::string name() const override { return impl_ ? impl_->name() : "auto"; }
    void Analyze(const Eigen::SparseMatrix<double>& A) override {
        const int n = static_cast<int>(A.rows());
        if (n <= kDenseMaxUnknowns) {
            impl_ = std::make_unique<DenseLuSolver>();
        } else if (AutoUsesSchur(A)) {
            impl_ = MakeSchurSolver(ordering_, scale_);
            impl_->set_threads(threads_);
        } else {
            impl_ = std::make_unique<KluSolver>(ordering_, scale_);
        }
        impl_->Analyze(A);
    }
    void set_threads(int threads) override {
        threads_ = threads;
        if (impl_) impl_->set_threads(threads);
    }
    int eliminated() const override { return impl_ ? impl_->eliminated() : 0; }
    int largest_group() const override { return impl_ ? impl_->largest_group() : 0; }
    std::string remainder_solver() const override {
        return impl_ ? impl_->remainder_solver() : std::string();
    }
    bool Factor(const Eigen::SparseMatrix<double>& A) override { return impl_->Factor(A); }
    void Solve(Eigen::VectorXd& b) override { impl_->Solve(b); }
    double ReciprocalCondition() override { return impl_ ? impl_->ReciprocalCondition() : 0.0; }
    double ConditionEstimate() override { return impl_ ? impl_->ConditionEstimate() : 0.0; }
    long FactorNonzeros() const override { return impl_ ? impl_->FactorNonzeros() : -1; }
    Ordering ordering() const override { return impl_ ? impl_->ordering() : ordering_; }

  private:
    Ordering ordering_;
    int scale_;
    int threads_{1};
    std::unique_ptr<LinearSolver> impl_;
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

std::unique_ptr<LinearSolver> MakeLinearSolver(const std::string& name, Ordering ordering,
                                               int klu_scale) {
    if (name == "auto") return std::make_unique<AutoSolver>(ordering, klu_scale);
    if (name == "klu") return std::make_unique<KluSolver>(ordering, klu_scale);
    if (name == "naive") return std::make_unique<DenseLuSolver>();
    if (name == "sparselu") return std::make_unique<SparseLuSolver>();
    if (name == "schur") return MakeSchurSolver(ordering, klu_scale);
    throw RunError("unknown linear solver '" + name +
                   "'; accepted: auto, klu, naive, schur, sparselu");
}

}  // namespace mbstep
