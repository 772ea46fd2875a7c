#include "mbstep/assembly/fixed_pattern.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "mbstep/assembly/assembly.hpp"
#include "mbstep/common.hpp"

namespace mbstep {

using SpMat = Eigen::SparseMatrix<double>;

bool PatternCopy::Matches(const SpMat& A) const {
    if (A.rows() != rows_ || A.cols() != cols_ || !A.isCompressed()) return false;
    const size_t nnz = static_cast<size_t>(A.nonZeros());
    return nnz == inner_.size() &&
           std::memcmp(A.outerIndexPtr(), outer_.data(), outer_.size() * sizeof(int)) == 0 &&
           (nnz == 0 || std::memcmp(A.innerIndexPtr(), inner_.data(), nnz * sizeof(int)) == 0);
}

void PatternCopy::Save(const SpMat& A) {
    rows_ = A.rows();
    cols_ = A.cols();
    outer_.assign(A.outerIndexPtr(), A.outerIndexPtr() + A.outerSize() + 1);
    inner_.assign(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
}

// ---------------------------------------------------------------- FixedPatternMatrix

void FixedPatternMatrix::Begin(int rows, int cols) {
    replay_ = builds_ > 0 && rows == rows_ && cols == cols_;
    if (!replay_) {
        keys_.clear();
        values_.clear();
    }
    rows_ = rows;
    cols_ = cols;
    next_ = 0;
    used_ = 0;
}

double* FixedPatternMatrix::ReserveNew(int row, int col, int rows, int cols) {
    if (row < 0 || rows < 0 || row + rows > rows_ || col < 0 || cols < 0 || col + cols > cols_)
        throw RunError("internal error: a " + std::to_string(rows) + " x " + std::to_string(cols) +
                       " block at (" + std::to_string(row) + ", " + std::to_string(col) +
                       ") outside a " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                       " matrix");
    if (replay_) {  // the sequence departs from the last one here: keep what matched
        replay_ = false;
        keys_.resize(next_);
        values_.resize(used_);
    }
    keys_.push_back({row, col, rows, cols});
    ++next_;
    const size_t first = used_;
    used_ += static_cast<size_t>(rows) * cols;
    values_.resize(used_);
    return values_.data() + first;
}

void FixedPatternMatrix::Build() {
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(values_.size());
    for (const Key& k : keys_)
        for (int j = 0; j < k.cols; ++j)
            for (int i = 0; i < k.rows; ++i) t.emplace_back(k.row + i, k.col + j, 0.0);
    pattern_.resize(rows_, cols_);
    pattern_.setFromTriplets(t.begin(), t.end());
    pattern_.makeCompressed();
    slots_.resize(t.size());
    for (size_t k = 0; k < t.size(); ++k) slots_[k] = PatternSlot(pattern_, t[k].row(), t[k].col());
    target_.Clear();
    ++builds_;
}

void FixedPatternMatrix::Finish(SpMat& m) {
    if (replay_ && next_ < keys_.size()) {  // a shorter sequence: a new structure
        keys_.resize(next_);
        values_.resize(used_);
        replay_ = false;
    }
    if (!replay_) Build();
    if (!target_.Matches(m)) {
        m = pattern_;
        target_.Save(m);
    }
    double* v = m.valuePtr();
    std::fill(v, v + m.nonZeros(), 0.0);
    const size_t n = values_.size();
    for (size_t k = 0; k < n; ++k) v[slots_[k]] += values_[k];
    replay_ = true;
}

// ---------------------------------------------------------------- SparseProduct

void SparseProduct::Plan(const SpMat& A, const SpMat& B) {
    if (A.cols() != B.rows())
        throw RunError("internal error: sparse product of incompatible sizes");
    const int rows = static_cast<int>(A.rows()), cols = static_cast<int>(B.cols());
    const int* ao = A.outerIndexPtr();
    const int* ai = A.innerIndexPtr();
    const int* bo = B.outerIndexPtr();
    const int* bi = B.innerIndexPtr();
    // Pattern of C column by column (sorted rows), then the slot of every product.
    std::vector<int> mark(rows, -1), col_rows;
    std::vector<int> outer(cols + 1, 0), inner;
    for (int j = 0; j < cols; ++j) {
        col_rows.clear();
        for (int kb = bo[j]; kb < bo[j + 1]; ++kb)
            for (int ka = ao[bi[kb]]; ka < ao[bi[kb] + 1]; ++ka)
                if (mark[ai[ka]] != j) {
                    mark[ai[ka]] = j;
                    col_rows.push_back(ai[ka]);
                }
        std::sort(col_rows.begin(), col_rows.end());
        inner.insert(inner.end(), col_rows.begin(), col_rows.end());
        outer[j + 1] = static_cast<int>(inner.size());
    }
    C_ = SpMat(rows, cols);
    C_.resizeNonZeros(static_cast<Eigen::Index>(inner.size()));
    std::copy(outer.begin(), outer.end(), C_.outerIndexPtr());
    std::copy(inner.begin(), inner.end(), C_.innerIndexPtr());
    std::fill(C_.valuePtr(), C_.valuePtr() + inner.size(), 0.0);
    ops_.clear();
    for (int j = 0; j < cols; ++j)
        for (int kb = bo[j]; kb < bo[j + 1]; ++kb)
            for (int ka = ao[bi[kb]]; ka < ao[bi[kb] + 1]; ++ka) {
                const int* begin = inner.data() + outer[j];
                const int* end = inner.data() + outer[j + 1];
                const int slot =
                    static_cast<int>(std::lower_bound(begin, end, ai[ka]) - inner.data());
                ops_.insert(ops_.end(), {slot, ka, kb});
            }
    a_.Save(A);
    b_.Save(B);
}

const SpMat& SparseProduct::Compute(const SpMat& A, const SpMat& B) {
    if (!a_.Matches(A) || !b_.Matches(B)) Plan(A, B);
    double* c = C_.valuePtr();
    std::fill(c, c + C_.nonZeros(), 0.0);
    const double* a = A.valuePtr();
    const double* b = B.valuePtr();
    const int* op = ops_.data();
    const int* end = op + ops_.size();
    for (; op != end; op += 3) c[op[0]] += a[op[1]] * b[op[2]];
    return C_;
}

// ---------------------------------------------------------------- SparseAccumulator

void SparseAccumulator::Begin(SpMat& J) {
    if (!J.isCompressed()) J.makeCompressed();
    if (!j_.Matches(J)) {
        j_.Save(J);
        for (Plan& p : plans_) p.a.Clear();  // slots into the old pattern
    }
    J_ = &J;
    std::fill(J.valuePtr(), J.valuePtr() + J.nonZeros(), 0.0);
}

void SparseAccumulator::Add(size_t term, const SpMat& A, int r0, int c0, double s) {
    SpMat& J = *J_;
    if (term >= plans_.size()) plans_.resize(term + 1);
    Plan& p = plans_[term];
    if (!A.isCompressed())
        throw RunError(std::string("internal error: ") + who_ + ": uncompressed matrix term");
    if (p.r0 != r0 || p.c0 != c0 || !p.a.Matches(A)) {
        if (r0 + A.rows() > J.rows() || c0 + A.cols() > J.cols())
            throw RunError(std::string("internal error: ") + who_ +
                           ": a matrix term does not fit the iteration matrix");
        p.slots.resize(static_cast<size_t>(A.nonZeros()));
        for (int c = 0; c < A.outerSize(); ++c)
            for (int k = A.outerIndexPtr()[c]; k < A.outerIndexPtr()[c + 1]; ++k)
                p.slots[k] = FindPatternSlot(J, r0 + A.innerIndexPtr()[k], c0 + c);
        p.a.Save(A);
        p.r0 = r0;
        p.c0 = c0;
    }
    double* v = J.valuePtr();
    const double* a = A.valuePtr();
    const int n = static_cast<int>(A.nonZeros());
    for (int k = 0; k < n; ++k) {
        const int slot = p.slots[k];
        if (slot >= 0) {
            v[slot] += s * a[k];
        } else if (a[k] != 0.0) {
            throw RunError(std::string(who_) +
                           ": iteration matrix entry outside its sparsity pattern (an element "
                           "wrote a Jacobian block it did not declare at set-up?)");
        }
    }
}

SpMat SparseAccumulator::UnionPattern(int rows, int cols, const std::vector<Term>& terms,
                                      bool diagonal) {
    std::vector<Eigen::Triplet<double>> t;
    for (const Term& term : terms)
        for (int c = 0; c < term.A->outerSize(); ++c)
            for (SpMat::InnerIterator it(*term.A, c); it; ++it)
                t.emplace_back(term.r0 + static_cast<int>(it.row()), term.c0 + c, 0.0);
    if (diagonal)
        for (int i = 0; i < std::min(rows, cols); ++i) t.emplace_back(i, i, 0.0);
    SpMat P(rows, cols);
    P.setFromTriplets(t.begin(), t.end());
    P.makeCompressed();
    return P;
}

}  // namespace mbstep
