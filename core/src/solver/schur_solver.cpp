// mbstep — block elimination (Schur complement) solver, `linear solver: schur` (docs/DESIGN.md,
// "Solver services").
//
// The unknowns split into small groups G_1 ... G_K that have a structurally non-zero diagonal
// and are coupled to no other group (a node's twist or velocity unknowns: elements declare
// their node-pair blocks, and joints couple their nodes only through multipliers), and the
// rest R (multipliers, or any unknown that does not fit):
//
//   [A  B] [x]   [f]      A = diag(A_1 ... A_K), A_k = A(G_k, G_k), m_k <= kMaxBlock
//   [C  D] [y] = [g]
//
//   (1) A_k = P_k L_k U_k                         dense LU, partial pivoting, per group
//   (2) X_k = A_k^-1 B_k,  B_k = A(G_k, R_k^c)     only the columns of R that G_k couples to
//   (3) S = D - sum_k C_k X_k,  C_k = A(R_k^r, G_k) sparse Schur complement, KLU (the dense
//                                                  `naive` LU up to kDenseMaxUnknowns)
//   Solve: z_k = A_k^-1 f_k;  S y = g - sum_k C_k z_k;  x_k = z_k - X_k y(R_k^c).
//
// The groups are the connected components of the pattern restricted to unknowns with a
// diagonal entry; components larger than kMaxBlock stay in R. Pattern of S, the gather
// positions of A_k, B_k, C_k in A's value array and the scatter positions into S are built once
// (Analyze); Factor and Solve do not allocate. If a group's LU has a pivot below 1e-13 of its
// largest (a massless node, say) the solver falls back to KLU on the whole matrix for the rest
// of the run (block elimination without pivoting across groups would be unstable there).
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "block_lu.hpp"
#include "dense_lu.hpp"
#include "mbstep/assembly/assembly.hpp"
#include "mbstep/common.hpp"
#include "mbstep/solver/linear_solver.hpp"

namespace mbstep {
namespace {

constexpr int kMaxBlock = 24;
// Groups of 6 (cgr velocity) or 12 (cgr) unknowns coupled to at most kFixedCoupling unknowns of
// S on either side run through the compile-time-size kernels of dense_lu.hpp with C_k and B_k
// padded by zeros; other shapes through the same kernels with run-time sizes.
constexpr int kFixedCoupling = 6;

// dst[0..n) = src[0..n), n <= N: a copy at compile-time length when n == N (the usual coupling),
// which the compiler inlines; a loop of run-time length became a call to memcpy per group.
template <int N>
inline void CopyRows(double* dst, const double* src, int n) {
    if (n == N) {
        for (int r = 0; r < N; ++r) dst[r] = src[r];
    } else {
        for (int r = 0; r < n; ++r) dst[r] = src[r];
    }
}

// The groups of A's unknowns (see the top of the file), each in increasing order, and the
// unknowns left for S. Flat (compressed) storage: group g is members[start[g] .. start[g+1]),
// the groups numbered in the order of their smallest unknown.
struct Grouping {
    std::vector<int> start{0};
    std::vector<int> members;
    std::vector<int> rest;
    int count() const { return static_cast<int>(start.size()) - 1; }
    const int* begin(int g) const { return members.data() + start[g]; }
    const int* end(int g) const { return members.data() + start[g + 1]; }
    int size(int g) const { return start[g + 1] - start[g]; }
};

// Sorts each segment [start[g], start[g+1]) of v and drops its repeats, compacting v and
// start in place.
void SortUniqueSegments(std::vector<int>& start, std::vector<int>& v) {
    int out = 0;
    const int k = static_cast<int>(start.size()) - 1;
    for (int g = 0; g < k; ++g) {
        const auto first = v.begin() + start[g], last = v.begin() + start[g + 1];
        std::sort(first, last);
        const auto uend = std::unique(first, last);
        start[g] = out;
        out = static_cast<int>(std::copy(first, uend, v.begin() + out) - v.begin());
    }
    start[k] = out;
    v.resize(out);
}

// The connected components of A's pattern over the unknowns with a diagonal entry
// (union-find): root[i] names i's component (-1: no diagonal entry), size[r] its unknowns.
struct Components {
    std::vector<int> root, size;
};

Components FindComponents(const Eigen::SparseMatrix<double>& A) {
    const int n = static_cast<int>(A.rows());
    const int* colptr = A.outerIndexPtr();
    const int* rowind = A.innerIndexPtr();
    std::vector<char> diag(n, 0);
    for (int j = 0; j < n; ++j) diag[j] = FindPatternSlot(A, j, j) >= 0;
    Components k;
    std::vector<int>& parent = k.root;
    parent.resize(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto root = [&](int i) {
        while (parent[i] != i) i = parent[i] = parent[parent[i]];
        return i;
    };
    for (int j = 0; j < n; ++j)
        if (diag[j])
            for (int p = colptr[j]; p < colptr[j + 1]; ++p)
                if (diag[rowind[p]]) parent[root(rowind[p])] = root(j);
    k.size.assign(n, 0);
    for (int i = 0; i < n; ++i) {
        parent[i] = diag[i] ? root(i) : -1;
        if (parent[i] >= 0) ++k.size[parent[i]];
    }
    return k;
}

Grouping GroupUnknowns(const Eigen::SparseMatrix<double>& A) {
    const int n = static_cast<int>(A.rows());
    Components comp = FindComponents(A);
    std::vector<int>& size = comp.size;
    // Group of each unknown (-1: rest), groups numbered by their first unknown; then the
    // members by a counting sort (stable: increasing within a group).
    Grouping g;
    std::vector<int> group_of(n, -1);
    int groups = 0;
    for (int i = 0; i < n; ++i) {
        const int r = comp.root[i];
        if (r >= 0 && size[r] <= kMaxBlock) {
            // size[r] > 0 marks an unnumbered root; numbered ones store -(group + 1).
            if (size[r] > 0) size[r] = -(groups++ + 1);
            group_of[i] = -size[r] - 1;
        } else {
            g.rest.push_back(i);
        }
    }
    g.start.assign(static_cast<size_t>(groups) + 1, 0);
    for (int i = 0; i < n; ++i)
        if (group_of[i] >= 0) ++g.start[group_of[i] + 1];
    for (int q = 0; q < groups; ++q) g.start[q + 1] += g.start[q];
    g.members.resize(static_cast<size_t>(g.start[groups]));
    std::vector<int> fill(g.start.begin(), g.start.end() - 1);
    for (int i = 0; i < n; ++i)
        if (group_of[i] >= 0) g.members[fill[group_of[i]]++] = i;
    return g;
}

class SchurSolver final : public LinearSolver {
  public:
    SchurSolver(Ordering ordering, int scale) : ordering_(ordering), scale_(scale) {}
    std::string name() const override { return full_ ? "schur (klu fallback)" : "schur"; }
    void set_threads(int threads) override { threads_ = std::max(1, threads); }

    void Analyze(const Eigen::SparseMatrix<double>& A) override;
    bool Factor(const Eigen::SparseMatrix<double>& A) override;
    void Solve(Eigen::VectorXd& b) override;

    double ReciprocalCondition() override {
        if (full_) return full_->ReciprocalCondition();
        return ns_ ? std::min(block_rcond_, s_solver_->ReciprocalCondition()) : block_rcond_;
    }
    long FactorNonzeros() const override {
        if (full_) return full_->FactorNonzeros();
        long n = ns_ ? s_solver_->FactorNonzeros() : 0;
        for (const Block& k : blocks_) n += long(k.m) * (k.m + k.sc + k.sr);
        return n;
    }
    Ordering ordering() const override {
        return full_ ? full_->ordering() : ns_ ? s_solver_->ordering() : Ordering::kNatural;
    }
    int eliminated() const override { return full_ ? 0 : n_ - ns_; }
    std::string remainder_solver() const override {
        return full_ || !s_solver_ ? std::string() : s_solver_->name();
    }
    int largest_group() const override {
        int m = 0;
        for (const Block& k : blocks_) m = std::max(m, k.m);
        return full_ ? 0 : m;
    }

  private:
    struct Block {
        int m{0}, nr{0}, nc{0};  // group size, rows of C_k, columns of B_k
        int sr{0}, sc{0};        // stored rows of C_k and columns of X_k (padded: kFixedCoupling)
        int fixed{0};            // 0: run-time-size kernels; 6 or 12: compile-time size m
        int members{0};          // offset into members_ (m)
        int rows{0}, cols{0};    // offsets into rows_ (nr), cols_ (nc): unknowns of S
        int apos{0};             // offset into apos_ (m*m) and lu_ (m*m)
        int bpos{0};             // offset into bpos_ (m*sc) and x_ (m*sc)
        int cpos{0};             // offset into cpos_ (sr*m) and c_ (sr*m)
        int spos{0};             // offset into spos_ (nr*nc) and cx_ (nr*nc)
        int piv{0};              // offset into piv_ (m)
        int runs{-1};            // fixed groups whose gathers are column runs: offset into runs_
    };

    // Factor one group: LU of A_k, X_k, and C_k X_k written to cx (nr x nc, column-major).
    bool FactorGroup(const Block& k, const double* a, double* cx, double* rcond);
    bool FactorBlock(const Block& k, const double* a, double* cx, double* rcond);
    template <int M>
    bool FactorFixed(const Block& k, const double* a, double* cx, double* rcond);
    // z_k = A_k^-1 f_k in place in b, C_k z_k (nr values) into cz.
    void SolveBlockForward(const Block& k, double* b, double* cz);
    template <int M>
    void SolveFixedForward(const Block& k, double* b, double* cz);
    // x_k = z_k - X_k y(C_k) in place in b.
    void SolveBackward(const Block& k, double* b, const double* y) const;
    template <int M>
    void SolveFixedBackward(const Block& k, double* b, const double* y) const;
    void FallBack(const Eigen::SparseMatrix<double>& A);
    template <class Subtract>
    bool FactorGroups(const double* a, Subtract&& subtract);
    bool FactorIntoBlocks(const Eigen::SparseMatrix<double>& A);
    void MapIntoBlocks();

    Ordering ordering_;
    int scale_;
    int n_{0}, ns_{0};
    std::vector<Block> blocks_;
    std::vector<int> members_, rows_, cols_, apos_, bpos_, cpos_, spos_, piv_;
    // Per fixed group, laid out as piv_: the unknowns a solve gathers in pivoted order and the
    // reciprocal pivots (LuSolvePermuted).
    std::vector<int> gather_;
    std::vector<double> dinv_;
    // Per fixed group whose A_k, B_k, C_k columns and S(R_k, C_k) columns are each one run of
    // consecutive value positions (the usual case: a node's unknowns and an element's
    // multipliers are numbered consecutively): the first position of each column, M for A_k,
    // nc for B_k, M for C_k, nc for S -- instead of one position per entry (fewer bytes per
    // factorization, the same values in the same order).
    std::vector<int> runs_;
    std::vector<int> s_members_;                // unknown of A for each unknown of S
    std::vector<std::pair<int, int>> d_pairs_;  // (position in A, position in S) of D
    std::vector<double> lu_, x_, c_;            // LU of A_k, X_k, C_k
    Eigen::SparseMatrix<double> S_;
    Eigen::VectorXd y_;
    std::unique_ptr<LinearSolver> s_solver_, full_;
    // When S goes to the block LU: S's entries assembled in its storage (FactorIntoBlocks) at
    // the positions of d_pairs_ and spos_ mapped there, with sblu_first_[q] set for the first
    // term of an entry.
    detail::BlockLu* blu_{nullptr};
    std::vector<int> dpos_blu_, spos_blu_;
    std::vector<char> sblu_first_;
    // The same subtractions by entry (threads > 1: entries in parallel, each entry's terms in
    // group order): entry e at sgather_pos_[e], its terms cx_[sgather_q_[b_e .. b_{e+1} - 1]]
    // with b = sgather_begin_, starting from 0 when its first term is (sblu_first_).
    // Built at the first factorization with threads (BuildEntryGather): a one-thread run and
    // the initial derivatives' single factorization do not pay for them.
    std::vector<int> sgather_pos_, sgather_begin_, sgather_q_;
    bool entry_gather_{false};
    void BuildEntryGather();
    double block_rcond_{1.0};
    int threads_{1};
    std::optional<tbb::task_arena> arena_;
    // The arena of threads_ threads (nullptr for one thread), created on first use.
    tbb::task_arena* Arena() {
        if (threads_ <= 1) return nullptr;
        if (!arena_ || arena_->max_concurrency() != threads_) arena_.emplace(threads_);
        return &*arena_;
    }
    std::vector<double> cx_;           // C_k X_k of every group, laid out as spos_
    std::vector<double> cz_;           // C_k z_k of every group in a solve, laid out as rows_
    std::vector<double> group_rcond_;  // smallest/largest pivot per group (threads > 1)
};

// Value positions of the entries (row(0) ... row(n-1), col) of a compressed pattern with the
// rows increasing, -1 where an entry is not in the pattern: one merge of two increasing lists
// (FindPatternSlot's binary search per entry gives the same positions).
template <class Row>
void ColumnPositions(const int* outer, const int* inner, int col, int n, Row row, int* out) {
    int q = outer[col];
    const int end = outer[col + 1];
    for (int i = 0; i < n; ++i) {
        const int r = row(i);
        while (q < end && inner[q] < r) ++q;
        out[i] = q < end && inner[q] == r ? q : -1;
    }
}

void SchurSolver::Analyze(const Eigen::SparseMatrix<double>& A) {
    full_.reset();
    blocks_.clear();
    n_ = static_cast<int>(A.rows());
    const int* colptr = A.outerIndexPtr();
    const int* rowind = A.innerIndexPtr();
    if (!A.isCompressed()) throw RunError("schur solver: the matrix must be compressed");

    // The set-up's temporaries live in this scope, released before S is analysed (peak memory).
    {
        Grouping grouping = GroupUnknowns(A);
        const int ng = grouping.count();
        s_members_ = std::move(grouping.rest);
        ns_ = static_cast<int>(s_members_.size());
        std::vector<int> block_of(n_, -1), snum(n_, -1);
        for (int g = 0; g < ng; ++g)
            for (const int* i = grouping.begin(g); i != grouping.end(g); ++i) block_of[*i] = g;
        for (int q = 0; q < ns_; ++q) snum[s_members_[q]] = q;

        // Couplings of each group to S, increasing: rows R (entries of C) and columns (entries
        // of B), flat as the groups.
        std::vector<int> rstart(static_cast<size_t>(ng) + 1, 0), rset;
        for (int g = 0; g < ng; ++g) {
            rstart[g] = static_cast<int>(rset.size());
            for (const int* j = grouping.begin(g); j != grouping.end(g); ++j)
                for (int p = colptr[*j]; p < colptr[*j + 1]; ++p)
                    if (snum[rowind[p]] >= 0) rset.push_back(snum[rowind[p]]);
        }
        rstart[ng] = static_cast<int>(rset.size());
        SortUniqueSegments(rstart, rset);
        std::vector<int> cstart(static_cast<size_t>(ng) + 1, 0);
        for (int c = 0; c < n_; ++c)
            if (snum[c] >= 0)
                for (int p = colptr[c]; p < colptr[c + 1]; ++p)
                    if (block_of[rowind[p]] >= 0) ++cstart[block_of[rowind[p]] + 1];
        for (int g = 0; g < ng; ++g) cstart[g + 1] += cstart[g];
        std::vector<int> cset(static_cast<size_t>(cstart[ng]));
        {
            std::vector<int> fill(cstart.begin(), cstart.end() - 1);
            for (int c = 0; c < n_; ++c)
                if (snum[c] >= 0)
                    for (int p = colptr[c]; p < colptr[c + 1]; ++p)
                        if (block_of[rowind[p]] >= 0) cset[fill[block_of[rowind[p]]]++] = snum[c];
        }
        SortUniqueSegments(cstart, cset);

        // Pattern of S: D plus R_k x C_k for every group, column by column (the groups
        // coupling to each column of S by a counting sort), each column's rows sorted.
        {
            std::vector<int> gstart(static_cast<size_t>(ns_) + 1, 0);
            for (int g = 0; g < ng; ++g)
                for (int q = cstart[g]; q < cstart[g + 1]; ++q) ++gstart[cset[q] + 1];
            for (int c = 0; c < ns_; ++c) gstart[c + 1] += gstart[c];
            std::vector<int> gcol(static_cast<size_t>(gstart[ns_]));
            std::vector<int> fill(gstart.begin(), gstart.end() - 1);
            for (int g = 0; g < ng; ++g)
                for (int q = cstart[g]; q < cstart[g + 1]; ++q) gcol[fill[cset[q]]++] = g;
            std::vector<int>().swap(fill);
            std::vector<int> outer(static_cast<size_t>(ns_) + 1, 0), inner, mark(ns_, -1);
            inner.reserve(static_cast<size_t>(A.nonZeros()));
            for (int c = 0; c < ns_; ++c) {
                const size_t first = inner.size();
                auto add = [&](int r) {
                    if (mark[r] != c) {
                        mark[r] = c;
                        inner.push_back(r);
                    }
                };
                const int ac = s_members_[c];
                for (int p = colptr[ac]; p < colptr[ac + 1]; ++p)
                    if (snum[rowind[p]] >= 0) add(snum[rowind[p]]);
                for (int q = gstart[c]; q < gstart[c + 1]; ++q)
                    for (int r = rstart[gcol[q]]; r < rstart[gcol[q] + 1]; ++r) add(rset[r]);
                std::sort(inner.begin() + static_cast<std::ptrdiff_t>(first), inner.end());
                outer[c + 1] = static_cast<int>(inner.size());
            }
            S_.resize(ns_, ns_);
            S_.resizeNonZeros(static_cast<Eigen::Index>(inner.size()));
            std::copy(outer.begin(), outer.end(), S_.outerIndexPtr());
            std::copy(inner.begin(), inner.end(), S_.innerIndexPtr());
            std::fill(S_.valuePtr(), S_.valuePtr() + inner.size(), 0.0);
        }
        const int* souter = S_.outerIndexPtr();
        const int* sinner = S_.innerIndexPtr();
        // D's entries: (position in A, position in S); S's column holds D's rows of it.
        d_pairs_.clear();
        for (int c = 0; c < ns_; ++c) {
            const int ac = s_members_[c];
            int q = souter[c];
            for (int p = colptr[ac]; p < colptr[ac + 1]; ++p)
                if (snum[rowind[p]] >= 0) {
                    while (sinner[q] < snum[rowind[p]]) ++q;
                    d_pairs_.emplace_back(p, q);
                }
        }

        // The groups' blocks, then their gather and scatter positions (sized once).
        blocks_.resize(static_cast<size_t>(ng));
        size_t n_members = 0, n_rows = 0, n_cols = 0, n_a = 0, n_b = 0, n_c = 0, n_s = 0;
        for (int g = 0; g < ng; ++g) {
            Block& k = blocks_[g];
            k.m = grouping.size(g);
            k.nr = rstart[g + 1] - rstart[g];
            k.nc = cstart[g + 1] - cstart[g];
            k.fixed = (k.m == 6 || k.m == 12) && k.nr <= kFixedCoupling && k.nc <= kFixedCoupling
                          ? k.m
                          : 0;
            k.sr = k.fixed ? kFixedCoupling : k.nr;
            k.sc = k.fixed ? kFixedCoupling : k.nc;
            k.members = static_cast<int>(n_members);
            k.rows = static_cast<int>(n_rows);
            k.cols = static_cast<int>(n_cols);
            k.apos = static_cast<int>(n_a);
            k.bpos = static_cast<int>(n_b);
            k.cpos = static_cast<int>(n_c);
            k.spos = static_cast<int>(n_s);
            k.piv = static_cast<int>(n_members);
            n_members += k.m;
            n_rows += k.nr;
            n_cols += k.nc;
            n_a += static_cast<size_t>(k.m) * k.m;
            n_b += static_cast<size_t>(k.m) * k.sc;
            n_c += static_cast<size_t>(k.sr) * k.m;
            n_s += static_cast<size_t>(k.nr) * k.nc;
        }
        members_ = std::move(grouping.members);
        rows_ = std::move(rset);
        cols_ = std::move(cset);
        apos_.assign(n_a, -1);
        bpos_.assign(n_b, -1);
        cpos_.assign(n_c, -1);
        spos_.assign(n_s, -1);
        piv_.assign(n_members, 0);
        runs_.clear();
        for (Block& k : blocks_) {
            const int* mem = members_.data() + k.members;
            const int* rk = rows_.data() + k.rows;
            const int* ck = cols_.data() + k.cols;
            auto member = [&](int i) { return mem[i]; };
            for (int j = 0; j < k.m; ++j)  // A_k column-major
                ColumnPositions(colptr, rowind, mem[j], k.m, member, &apos_[k.apos + j * k.m]);
            for (int c = 0; c < k.nc; ++c)  // B_k column-major, m x sc (padding: -1)
                ColumnPositions(colptr, rowind, s_members_[ck[c]], k.m, member,
                                &bpos_[k.bpos + c * k.m]);
            for (int j = 0; j < k.m; ++j)  // C_k column-major, sr x m (padding: -1)
                ColumnPositions(
                    colptr, rowind, mem[j], k.nr, [&](int r) { return s_members_[rk[r]]; },
                    &cpos_[k.cpos + j * k.sr]);
            for (int c = 0; c < k.nc; ++c)  // S(R_k, C_k) column-major, nr x nc
                ColumnPositions(
                    souter, sinner, ck[c], k.nr, [&](int r) { return rk[r]; },
                    &spos_[k.spos + c * k.nr]);
            if (k.fixed) {
                // Column runs: every column's positions consecutive (padding excluded).
                auto run = [](const int* pos, int len) {
                    for (int i = 0; i < len; ++i)
                        if (pos[i] < 0 || pos[i] != pos[0] + i) return false;
                    return true;
                };
                bool ok = true;
                for (int j = 0; j < k.m; ++j) ok = ok && run(&apos_[k.apos + j * k.m], k.m);
                for (int c = 0; c < k.nc; ++c) ok = ok && run(&bpos_[k.bpos + c * k.m], k.m);
                for (int j = 0; j < k.m; ++j) ok = ok && run(&cpos_[k.cpos + j * k.sr], k.nr);
                for (int c = 0; c < k.nc; ++c) ok = ok && run(&spos_[k.spos + c * k.nr], k.nr);
                if (ok && k.nr > 0 && k.nc > 0) {
                    k.runs = static_cast<int>(runs_.size());
                    for (int j = 0; j < k.m; ++j) runs_.push_back(apos_[k.apos + j * k.m]);
                    for (int c = 0; c < k.nc; ++c) runs_.push_back(bpos_[k.bpos + c * k.m]);
                    for (int j = 0; j < k.m; ++j) runs_.push_back(cpos_[k.cpos + j * k.sr]);
                    for (int c = 0; c < k.nc; ++c) runs_.push_back(spos_[k.spos + c * k.nr]);
                }
            }
        }
    }
    // The growth slack of the lists built by appending (peak memory).
    for (auto* v : {&rows_, &cols_, &runs_}) v->shrink_to_fit();
    cx_.assign(spos_.size(), 0.0);
    cz_.assign(rows_.size(), 0.0);
    group_rcond_.assign(blocks_.size(), 1.0);
    lu_.assign(apos_.size(), 0.0);
    gather_.assign(piv_.size(), 0);
    dinv_.assign(piv_.size(), 0.0);
    x_.assign(bpos_.size(), 0.0);
    c_.assign(cpos_.size(), 0.0);
    y_.setZero(ns_);
    s_solver_.reset();
    blu_ = nullptr;
    if (ns_ > 0) {
        if (ns_ <= kDenseMaxUnknowns)
            s_solver_ = MakeLinearSolver("naive", ordering_, scale_);
        else if (scale_ < 0 && detail::BlockLu::Applies(S_))
            s_solver_ = std::make_unique<detail::BlockLu>(ordering_);
        else
            s_solver_ = MakeLinearSolver("klu", ordering_, scale_);
        s_solver_->Analyze(S_);
        blu_ = dynamic_cast<detail::BlockLu*>(s_solver_.get());
        if (blu_) MapIntoBlocks();
    }
}

void SchurSolver::MapIntoBlocks() {
    std::vector<char> written(blu_->FactorNonzeros(), 0);
    dpos_blu_.resize(d_pairs_.size());
    for (size_t q = 0; q < d_pairs_.size(); ++q) {
        dpos_blu_[q] = blu_->value_position(d_pairs_[q].second);
        written[dpos_blu_[q]] = 1;
    }
    spos_blu_.resize(spos_.size());
    sblu_first_.assign(spos_.size(), 0);
    for (const Block& k : blocks_)  // in the order Factor subtracts
        for (int q = k.spos; q < k.spos + k.nr * k.nc; ++q) {
            spos_blu_[q] = blu_->value_position(spos_[q]);
            sblu_first_[q] = !written[spos_blu_[q]];
            written[spos_blu_[q]] = 1;
        }
    entry_gather_ = false;  // built at the first factorization with threads
}

void SchurSolver::BuildEntryGather() {
    // By entry: counting sort of the terms by position, stable (group order kept).
    const size_t positions = static_cast<size_t>(blu_->FactorNonzeros());
    std::vector<int> count(positions + 1, 0);
    for (int p : spos_blu_) ++count[p + 1];
    sgather_pos_.clear(), sgather_begin_.assign(1, 0);
    for (size_t p = 0; p < positions; ++p)
        if (count[p + 1] > 0) {
            sgather_pos_.push_back(static_cast<int>(p));
            sgather_begin_.push_back(sgather_begin_.back() + count[p + 1]);
        }
    for (size_t p = 1; p < count.size(); ++p) count[p] += count[p - 1];
    sgather_q_.assign(spos_blu_.size(), 0);
    for (const Block& k : blocks_)
        for (int q = k.spos; q < k.spos + k.nr * k.nc; ++q) sgather_q_[count[spos_blu_[q]]++] = q;
    for (auto* v : {&sgather_pos_, &sgather_begin_}) v->shrink_to_fit();
    entry_gather_ = true;
}

void SchurSolver::FallBack(const Eigen::SparseMatrix<double>& A) {
    full_ = MakeLinearSolver("klu", ordering_, scale_);
    full_->Analyze(A);
}

// (1)-(3) for one group with the run-time-size kernels (any m <= kMaxBlock, any coupling).
bool SchurSolver::FactorBlock(const Block& k, const double* a, double* cxo, double* rcond) {
    const int m = k.m;
    const int nr = k.nr, nc = k.nc;  // not padded (k.fixed == 0: sr == nr, sc == nc)
    double* lu = lu_.data() + k.apos;
    const int* ap = apos_.data() + k.apos;
    for (int q = 0; q < m * m; ++q) lu[q] = ap[q] >= 0 ? a[ap[q]] : 0.0;
    int* piv = piv_.data() + k.piv;
    double umin = 0.0, umax = 0.0;
    if (!detail::LuFactorInPlace(lu, m, piv, &umin, &umax) || !(umin > 1e-13 * umax)) return false;
    *rcond = umin / umax;
    // X_k = A_k^-1 B_k, column by column.
    double* x = x_.data() + k.bpos;
    const int* bp = bpos_.data() + k.bpos;
    for (int q = 0; q < m * nc; ++q) x[q] = bp[q] >= 0 ? a[bp[q]] : 0.0;
    detail::LuSolveInPlace(lu, piv, m, x, nc);
    // C_k X_k.
    double* cm = c_.data() + k.cpos;
    const int* cp = cpos_.data() + k.cpos;
    for (int q = 0; q < nr * m; ++q) cm[q] = cp[q] >= 0 ? a[cp[q]] : 0.0;
    for (int c = 0; c < nc; ++c) {
        const double* xc = x + c * m;
        for (int r = 0; r < nr; ++r) {
            double sum = 0.0;
            for (int j = 0; j < m; ++j) sum += cm[j * nr + r] * xc[j];
            cxo[c * nr + r] = sum;
        }
    }
    return true;
}

// (1)-(3) with the fixed-size kernels: C_k, B_k padded to kFixedCoupling by zeros.
template <int M>
bool SchurSolver::FactorFixed(const Block& k, const double* a, double* cxo, double* rcond) {
    constexpr int N = kFixedCoupling;
    double* lu = lu_.data() + k.apos;
    const int* runs = k.runs >= 0 ? runs_.data() + k.runs : nullptr;
    if (runs) {
        for (int j = 0; j < M; ++j)
            for (int i = 0; i < M; ++i) lu[j * M + i] = a[runs[j] + i];
    } else {
        const int* ap = apos_.data() + k.apos;
        for (int q = 0; q < M * M; ++q) lu[q] = ap[q] >= 0 ? a[ap[q]] : 0.0;
    }
    double umin = 0.0, umax = 0.0;
    int* piv = piv_.data() + k.piv;
    double* dinv = dinv_.data() + k.piv;
    if (!detail::LuFactorInPlace<M>(lu, M, piv, &umin, &umax, dinv) || !(umin > 1e-13 * umax))
        return false;
    *rcond = umin / umax;
    // The rows of b each solve gathers, in pivoted order.
    int* gather = gather_.data() + k.piv;
    detail::LuPermutation(piv, M, gather);
    const int* mem = members_.data() + k.members;
    for (int i = 0; i < M; ++i) gather[i] = mem[gather[i]];
    double* x = x_.data() + k.bpos;  // X_k = A_k^-1 B_k, M x N
    double* c = c_.data() + k.cpos;  // C_k, N x M
    if (runs) {
        for (int col = 0; col < N; ++col)
            for (int i = 0; i < M; ++i) x[col * M + i] = col < k.nc ? a[runs[M + col] + i] : 0.0;
        for (int j = 0; j < M; ++j)
            for (int r = 0; r < N; ++r) c[j * N + r] = r < k.nr ? a[runs[M + k.nc + j] + r] : 0.0;
    } else {
        const int* bp = bpos_.data() + k.bpos;
        for (int q = 0; q < M * N; ++q) x[q] = bp[q] >= 0 ? a[bp[q]] : 0.0;
        const int* cp = cpos_.data() + k.cpos;
        for (int q = 0; q < N * M; ++q) c[q] = cp[q] >= 0 ? a[cp[q]] : 0.0;
    }
    detail::LuSolveInPlace<M, N>(lu, piv, M, x);
    // C_k X_k, column by column into cxo (the used nr x nc part: loops at compile-time trip
    // counts inlined here; Eigen's fixed-size lazy product was an out-of-line call).
    for (int col = 0; col < k.nc; ++col) {
        double acc[N] = {};
        const double* xc = x + col * M;
        for (int q = 0; q < M; ++q) {
            const double xq = xc[q];
            for (int r = 0; r < N; ++r) acc[r] += c[q * N + r] * xq;
        }
        CopyRows<N>(cxo + col * k.nr, acc, k.nr);
    }
    return true;
}

template <int M>
void SchurSolver::SolveFixedForward(const Block& k, double* b, double* czo) {
    constexpr int N = kFixedCoupling;
    const int* mem = members_.data() + k.members;
    const int* gather = gather_.data() + k.piv;
    double z[M];
    for (int i = 0; i < M; ++i) z[i] = b[gather[i]];
    detail::LuSolvePermuted<M>(lu_.data() + k.apos, dinv_.data() + k.piv, z);
    for (int i = 0; i < M; ++i) b[mem[i]] = z[i];
    const Eigen::Matrix<double, N, 1> cz =
        Eigen::Map<const Eigen::Matrix<double, N, M>>(c_.data() + k.cpos)
            .lazyProduct(Eigen::Map<const Eigen::Matrix<double, M, 1>>(z));
    CopyRows<N>(czo, cz.data(), k.nr);
}

template <int M>
void SchurSolver::SolveFixedBackward(const Block& k, double* b, const double* y) const {
    constexpr int N = kFixedCoupling;
    const int* cols = cols_.data() + k.cols;
    Eigen::Matrix<double, N, 1> yc = Eigen::Matrix<double, N, 1>::Zero();
    for (int c = 0; c < k.nc; ++c) yc[c] = y[cols[c]];
    // (X_k's padded columns are zero.)
    const Eigen::Matrix<double, M, 1> dx =
        Eigen::Map<const Eigen::Matrix<double, M, N>>(x_.data() + k.bpos).lazyProduct(yc);
    const int* mem = members_.data() + k.members;
    for (int i = 0; i < M; ++i) b[mem[i]] -= dx[i];
}

bool SchurSolver::FactorGroup(const Block& k, const double* a, double* cx, double* rcond) {
    return k.fixed == 6    ? FactorFixed<6>(k, a, cx, rcond)
           : k.fixed == 12 ? FactorFixed<12>(k, a, cx, rcond)
                           : FactorBlock(k, a, cx, rcond);
}

bool SchurSolver::Factor(const Eigen::SparseMatrix<double>& A) {
    if (full_) return full_->Factor(A);
    if (blu_) return FactorIntoBlocks(A);
    const double* a = A.valuePtr();
    double* s = S_.valuePtr();
    std::fill(s, s + S_.nonZeros(), 0.0);
    for (const auto& [pa, ps] : d_pairs_) s[ps] = a[pa];
    // S(R_k, C_k) -= C_k X_k.
    const bool ok = FactorGroups(a, [&](const Block& k, const double* cx) {
        if (k.runs >= 0) {
            const int* scol = runs_.data() + k.runs + 2 * k.m + k.nc;
            for (int c = 0; c < k.nc; ++c) {
                double* sc = s + scol[c];
                for (int r = 0; r < k.nr; ++r) sc[r] -= cx[c * k.nr + r];
            }
        } else {
            const int* spos = spos_.data() + k.spos;
            for (int q = 0; q < k.nr * k.nc; ++q) s[spos[q]] -= cx[q];
        }
    });
    if (!ok) {  // a (nearly) singular group: KLU on the whole matrix from now on
        FallBack(A);
        return full_->Factor(A);
    }
    return ns_ == 0 || s_solver_->Factor(S_);
}

// Every group factored, and subtract(k, C_k X_k) called for each in group order: one thread
// group after group (a fixed group's C_k X_k on the stack: cx_ is for the parallel path), or
// the groups in parallel and then the subtractions in the same order -- every entry of S the
// same sum for any thread count. False at a (nearly) singular group.
template <class Subtract>
bool SchurSolver::FactorGroups(const double* a, Subtract&& subtract) {
    block_rcond_ = 1.0;
    if (threads_ <= 1) {
        double local[kFixedCoupling * kFixedCoupling];
        for (const Block& k : blocks_) {
            double rcond = 1.0;
            double* cx = k.fixed ? local : cx_.data() + k.spos;
            if (!FactorGroup(k, a, cx, &rcond)) return false;
            subtract(k, cx);
            block_rcond_ = std::min(block_rcond_, rcond);
        }
        return true;
    }
    std::atomic<bool> all_ok{true};
    if (!arena_ || arena_->max_concurrency() != threads_) arena_.emplace(threads_);
    arena_->execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<size_t>(0, blocks_.size(), 64),
            [&](const tbb::blocked_range<size_t>& range) {
                for (size_t g = range.begin(); g != range.end(); ++g)
                    if (!FactorGroup(blocks_[g], a, cx_.data() + blocks_[g].spos, &group_rcond_[g]))
                        all_ok = false;
            });
    });
    if (!all_ok) return false;
    for (const Block& k : blocks_) subtract(k, cx_.data() + k.spos);
    for (double r : group_rcond_) block_rcond_ = std::min(block_rcond_, r);
    return true;
}

// S assembled directly in the block LU's storage: the same sums in the same order as in S_
// (D's entries assigned, each group's C_k X_k subtracted in group order), but an entry's first
// term starts from 0 instead of a zeroed copy (sblu_first_), the positions no term reaches are
// zeroed (the fill), and no S_ is written and scattered: two passes over S fewer per
// factorization.
bool SchurSolver::FactorIntoBlocks(const Eigen::SparseMatrix<double>& A) {
    const double* a = A.valuePtr();
    double* s = blu_->values();
    blu_->ZeroFill();
    for (size_t q = 0; q < d_pairs_.size(); ++q) s[dpos_blu_[q]] = a[d_pairs_[q].first];
    const int* spos = spos_blu_.data();
    const char* first = sblu_first_.data();
    bool ok;
    if (threads_ <= 1) {
        ok = FactorGroups(a, [&](const Block& k, const double* cx) {
            for (int q = k.spos; q < k.spos + k.nr * k.nc; ++q) {
                double& e = s[spos[q]];
                e = (first[q] ? 0.0 : e) - cx[q - k.spos];
            }
        });
    } else {
        // All C_k X_k in cx_ first, then every entry's terms in group order: the same
        // operations on each entry as above, the entries in parallel.
        if (!entry_gather_) BuildEntryGather();
        ok = FactorGroups(a, [](const Block&, const double*) {});
        if (ok)
            Arena()->execute([&] {
                tbb::parallel_for(tbb::blocked_range<size_t>(0, sgather_pos_.size(), 1024),
                                  [&](const tbb::blocked_range<size_t>& range) {
                                      for (size_t e = range.begin(); e != range.end(); ++e) {
                                          const int* q = sgather_q_.data() + sgather_begin_[e];
                                          const int* end =
                                              sgather_q_.data() + sgather_begin_[e + 1];
                                          double sum = first[*q] ? 0.0 : s[sgather_pos_[e]];
                                          for (; q != end; ++q) sum -= cx_[*q];
                                          s[sgather_pos_[e]] = sum;
                                      }
                                  });
            });
    }
    if (!ok) {
        FallBack(A);
        return full_->Factor(A);
    }
    blu_->set_arena(Arena());  // the split's two parts in parallel (the same bits on one thread)
    if (blu_->FactorValues()) return true;
    // A pivot of the block LU below 1e-13 of the largest or too much growth (no exchanges
    // between blocks): KLU with partial pivoting on S from now on, S assembled again in S_.
    blu_ = nullptr;
    s_solver_ = MakeLinearSolver("klu", ordering_, scale_);
    s_solver_->Analyze(S_);
    return Factor(A);
}

// z_k = A_k^-1 f_k (in place in b), C_k z_k into cz.
void SchurSolver::SolveBlockForward(const Block& k, double* b, double* cz) {
    const int m = k.m;
    double z[kMaxBlock];
    const int* mem = members_.data() + k.members;
    const int* piv = piv_.data() + k.piv;
    const double* lu = lu_.data() + k.apos;
    for (int i = 0; i < m; ++i) z[i] = b[mem[i]];
    detail::LuSolveInPlace(lu, piv, m, z);
    for (int i = 0; i < m; ++i) b[mem[i]] = z[i];
    const double* cm = c_.data() + k.cpos;
    for (int r = 0; r < k.nr; ++r) {
        double sum = 0.0;
        for (int j = 0; j < m; ++j) sum += cm[j * k.nr + r] * z[j];
        cz[r] = sum;
    }
}

void SchurSolver::SolveBackward(const Block& k, double* b, const double* y) const {
    if (k.fixed == 6) return SolveFixedBackward<6>(k, b, y);
    if (k.fixed == 12) return SolveFixedBackward<12>(k, b, y);
    const int* mem = members_.data() + k.members;
    const int* cols = cols_.data() + k.cols;
    const double* x = x_.data() + k.bpos;
    for (int c = 0; c < k.nc; ++c) {  // (padded columns of X_k are zero, not read)
        const double yc = y[cols[c]];
        if (yc == 0.0) continue;
        for (int i = 0; i < k.m; ++i) b[mem[i]] -= x[c * k.m + i] * yc;
    }
}

void SchurSolver::Solve(Eigen::VectorXd& bv) {
    if (full_) return full_->Solve(bv);
    double* b = bv.data();
    double* y = y_.data();
    // z_k = A_k^-1 f_k in place and C_k z_k per group (in parallel with threads), then
    // g - sum C_k z_k in group order (the same bits for any thread count); S y = ...; then
    // x_k = z_k - X_k y(C_k) per group.
    auto forward = [&](const Block& k) {
        double* cz = cz_.data() + k.rows;
        if (k.fixed == 6)
            SolveFixedForward<6>(k, b, cz);
        else if (k.fixed == 12)
            SolveFixedForward<12>(k, b, cz);
        else
            SolveBlockForward(k, b, cz);
    };
    if (threads_ <= 1) {
        for (const Block& k : blocks_) forward(k);
    } else {
        if (!arena_ || arena_->max_concurrency() != threads_) arena_.emplace(threads_);
        arena_->execute([&] {
            tbb::parallel_for(tbb::blocked_range<size_t>(0, blocks_.size(), 64),
                              [&](const tbb::blocked_range<size_t>& range) {
                                  for (size_t g = range.begin(); g != range.end(); ++g)
                                      forward(blocks_[g]);
                              });
        });
    }
    for (int q = 0; q < ns_; ++q) y[q] = b[s_members_[q]];
    for (size_t q = 0; q < rows_.size(); ++q) y[rows_[q]] -= cz_[q];
    if (blu_) blu_->set_arena(Arena());
    if (ns_ > 0) s_solver_->Solve(y_);
    if (threads_ <= 1) {
        for (const Block& k : blocks_) SolveBackward(k, b, y);
    } else {
        arena_->execute([&] {
            tbb::parallel_for(tbb::blocked_range<size_t>(0, blocks_.size(), 64),
                              [&](const tbb::blocked_range<size_t>& range) {
                                  for (size_t g = range.begin(); g != range.end(); ++g)
                                      SolveBackward(blocks_[g], b, y);
                              });
        });
    }
    for (int q = 0; q < ns_; ++q) b[s_members_[q]] = y[q];
}

}  // namespace

bool AutoUsesSchur(const Eigen::SparseMatrix<double>& A) {
    const int n = static_cast<int>(A.rows());
    if (n <= kDenseMaxUnknowns || !A.isCompressed()) return false;
    // The unknowns GroupUnknowns puts in groups: those in components of at most kMaxBlock.
    const Components comp = FindComponents(A);
    int grouped = 0;
    for (int i = 0; i < n; ++i)
        if (comp.root[i] >= 0 && comp.size[comp.root[i]] <= kMaxBlock) ++grouped;
    return 2 * grouped >= n;
}

std::unique_ptr<LinearSolver> MakeSchurSolver(Ordering ordering, int klu_scale) {
    return std::make_unique<SchurSolver>(ordering, klu_scale);
}

}  // namespace mbstep
