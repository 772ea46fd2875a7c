#include "block_lu.hpp"

#include <amd.h>
#include <camd.h>
#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "mbstep/common.hpp"

namespace mbstep::detail {

namespace {

// d := d^-1 (column-major b x b) by Gauss-Jordan elimination with partial pivoting (the pivots
// of an LU with partial pivoting); umin, umax take the smallest and largest pivot magnitudes.
// False at a zero or non-finite pivot.
template <int Fixed>
bool InvertInPlace(double* d, int size, double* umin, double* umax) {
    constexpr int kMax = BlockLu::kMaxBlockSize;
    const int b = Fixed > 0 ? Fixed : size;
    double m[kMax][kMax], inv[kMax][kMax];  // row-major copies: rows are exchanged
    for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) m[r][c] = d[c * b + r], inv[r][c] = r == c ? 1.0 : 0.0;
    for (int k = 0; k < b; ++k) {
        int p = k;
        double best = std::abs(m[k][k]);
        for (int i = k + 1; i < b; ++i)
            if (std::abs(m[i][k]) > best) best = std::abs(m[i][k]), p = i;
        if (!(best > 0.0) || !std::isfinite(best)) return false;
        *umin = std::min(*umin, best), *umax = std::max(*umax, best);
        if (p != k)
            for (int c = 0; c < b; ++c)
                std::swap(m[k][c], m[p][c]), std::swap(inv[k][c], inv[p][c]);
        const double r = 1.0 / m[k][k];
        for (int c = 0; c < b; ++c) m[k][c] *= r, inv[k][c] *= r;
        for (int i = 0; i < b; ++i) {
            if (i == k) continue;
            const double f = m[i][k];
            for (int c = 0; c < b; ++c) m[i][c] -= f * m[k][c], inv[i][c] -= f * inv[k][c];
        }
    }
    for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) d[c * b + r] = inv[r][c];
    return true;
}

// out := x y for column-major x (m x p) and y (p x n), out (m x n) may be x or y; each entry
// summed in order from 0. Returns the largest magnitude written (the growth test).
template <int Fixed>
double MultiplyInPlace(const double* x, const double* y, int m, int p, int n, double* out) {
    if (Fixed > 0) m = p = n = Fixed;
    double t[BlockLu::kMaxBlockSize * BlockLu::kMaxBlockSize];
    for (int c = 0; c < n; ++c)
        for (int r = 0; r < m; ++r) {
            double sum = 0.0;
            for (int s = 0; s < p; ++s) sum += x[s * m + r] * y[c * p + s];
            t[c * m + r] = sum;
        }
    double largest = 0.0;
    for (int q = 0; q < m * n; ++q) out[q] = t[q], largest = std::max(largest, std::abs(t[q]));
    return largest;
}

}  // namespace

std::vector<int> BlockLu::FindBlocks(const Eigen::SparseMatrix<double>& A) {
    const int n = static_cast<int>(A.rows());
    if (n == 0 || A.cols() != n || !A.isCompressed()) return {};
    const int* colptr = A.outerIndexPtr();
    const int* rowind = A.innerIndexPtr();
    auto same_pattern = [&](int a, int b) {
        const int la = colptr[a + 1] - colptr[a];
        return la == colptr[b + 1] - colptr[b] &&
               std::equal(rowind + colptr[a], rowind + colptr[a + 1], rowind + colptr[b]);
    };
    std::vector<int> start{0};
    for (int j = 1; j < n; ++j)
        if (!same_pattern(j, j - 1) || j - start.back() == kMaxBlockSize) start.push_back(j);
    start.push_back(n);
    // Every block's own rows in its (shared) column pattern: a dense diagonal block.
    for (size_t J = 0; J + 1 < start.size(); ++J) {
        const int* r0 = rowind + colptr[start[J]];
        const int* r1 = rowind + colptr[start[J] + 1];
        if (!std::is_sorted(r0, r1)) return {};
        for (int r = start[J]; r < start[J + 1]; ++r)
            if (!std::binary_search(r0, r1, r)) return {};
    }
    return start;
}

bool BlockLu::Applies(const Eigen::SparseMatrix<double>& A) { return !FindBlocks(A).empty(); }

// Level structure (breadth-first levels) from a pseudo-peripheral block found as in George &
// Liu (1979): from a block of the last level with the fewest neighbours while that deepens the
// structure. The separator is the level that leaves the most balanced sides among the smallest
// ones: a level separates the levels before it from those after it (edges join adjacent levels
// only). Blocks not reached (other components) join the smaller side.
std::vector<int> BlockLu::Bisect(int nb, const std::vector<int>& bp, const std::vector<int>& bi) {
    std::vector<int> level(nb), queue(nb);
    auto bfs = [&](int root) {  // levels from root; returns the number of levels
        std::fill(level.begin(), level.end(), -1);
        int head = 0, tail = 0, depth = 0;
        level[root] = 0, queue[tail++] = root;
        while (head < tail) {
            const int u = queue[head++];
            depth = std::max(depth, level[u] + 1);
            for (int q = bp[u]; q < bp[u + 1]; ++q)
                if (level[bi[q]] < 0) level[bi[q]] = level[u] + 1, queue[tail++] = bi[q];
        }
        return std::make_pair(depth, tail);
    };
    int root = 0;
    auto [depth, reached] = bfs(root);
    for (int pass = 0; pass < 8; ++pass) {
        int best = -1;
        for (int t = reached - 1; t >= 0 && level[queue[t]] == depth - 1; --t)
            if (best < 0 || bp[queue[t] + 1] - bp[queue[t]] < bp[best + 1] - bp[best])
                best = queue[t];
        const auto [d, r] = bfs(best);
        if (d <= depth) {
            bfs(root);
            break;
        }
        root = best, depth = d, reached = r;
    }
    std::vector<int> count(depth, 0);
    for (int t = 0; t < reached; ++t) ++count[level[queue[t]]];
    const int rest = nb - reached;  // unreached: added to the smaller side
    int sep = -1, sep_size = 0, sep_small = 0, before = 0;
    for (int l = 0; l < depth; before += count[l++]) {
        const int after = reached - before - count[l];
        const int small = std::min(before, after) + rest;
        const int large = std::max(before, after);
        if (l == 0 || l == depth - 1 || 5 * std::min(small, large) < 2 * (nb - count[l]))
            continue;  // sides within 40:60
        if (sep < 0 || count[l] < sep_size || (count[l] == sep_size && small > sep_small))
            sep = l, sep_size = count[l], sep_small = small;
    }
    if (sep < 0 || kSplitMaxSeparator * sep_size > nb) return {};
    int below = 0;
    for (int l = 0; l < sep; ++l) below += count[l];
    const int above = reached - below - sep_size;
    std::vector<int> part(nb, below <= above ? 0 : 1);  // unreached: the smaller side
    for (int t = 0; t < reached; ++t) {
        const int l = level[queue[t]];
        part[queue[t]] = l < sep ? 0 : l > sep ? 1 : 2;
    }
    return part;
}

void BlockLu::Analyze(const Eigen::SparseMatrix<double>& A) {
    const std::vector<int> start = FindBlocks(A);
    if (start.empty()) throw RunError("block LU: the matrix has no dense diagonal blocks");
    n_ = static_cast<int>(A.rows());
    nb_ = static_cast<int>(start.size()) - 1;
    factored_ = false;
    split_a_ = split_b_ = 0;
    const int* colptr = A.outerIndexPtr();
    const int* rowind = A.innerIndexPtr();
    std::vector<int> block_of(n_);
    for (int J = 0; J < nb_; ++J)
        for (int r = start[J]; r < start[J + 1]; ++r) block_of[r] = J;

    // Symmetric block pattern (without the diagonal), column-compressed and sorted.
    std::vector<std::vector<int>> adj(nb_);
    for (int J = 0; J < nb_; ++J)
        for (int p = colptr[start[J]]; p < colptr[start[J] + 1]; ++p) {
            const int I = block_of[rowind[p]];
            if (I != J) adj[I].push_back(J), adj[J].push_back(I);
        }
    std::vector<int> bp{0}, bi;
    for (auto& a : adj) {
        std::sort(a.begin(), a.end());
        a.erase(std::unique(a.begin(), a.end()), a.end());
        bi.insert(bi.end(), a.begin(), a.end());
        bp.push_back(static_cast<int>(bi.size()));
    }

    // Elimination order of the blocks.
    std::vector<int> order(nb_);  // order[k] = block eliminated k-th
    ordering_ = requested_ == Ordering::kNatural ? Ordering::kNatural
                : requested_ == Ordering::kRcm   ? Ordering::kRcm
                                                 : Ordering::kAmd;
    if (ordering_ == Ordering::kNatural) {
        std::iota(order.begin(), order.end(), 0);
    } else if (ordering_ == Ordering::kRcm) {
        order = ReverseCuthillMcKee(nb_, bp.data(), bi.data());
    } else {
        auto amd = [](int n, const std::vector<int>& p, const std::vector<int>& i, int* out) {
            double info[AMD_INFO];
            const int status = amd_order(n, p.data(), i.data(), out, nullptr, info);
            if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED)
                throw RunError("block LU: AMD ordering failed (status " + std::to_string(status) +
                               ")");
        };
        const std::vector<int> part =
            nb_ >= kSplitMinBlocks ? Bisect(nb_, bp, bi) : std::vector<int>{};
        if (part.empty()) {
            amd(nb_, bp, bi, order.data());
        } else {
            // A, then B, then the separator: constrained AMD (CAMD, Amestoy, Davis & Duff),
            // whose degrees count the neighbours in the later sets, so that the blocks next to
            // the separator come last in their part (AMD on a part alone would start there and
            // carry the separator through the part's whole elimination as fill).
            double info[CAMD_INFO];
            const int status =
                camd_order(nb_, bp.data(), bi.data(), order.data(), nullptr, info, part.data());
            if (status != CAMD_OK && status != CAMD_OK_BUT_JUMBLED)
                throw RunError("block LU: CAMD ordering failed (status " + std::to_string(status) +
                               ")");
            split_a_ = static_cast<int>(std::count(part.begin(), part.end(), 0));
            split_b_ = split_a_ + static_cast<int>(std::count(part.begin(), part.end(), 1));
            for (int k = 0; k < nb_; ++k)
                if (part[order[k]] != (k < split_a_ ? 0 : k < split_b_ ? 1 : 2))
                    throw RunError("block LU: CAMD did not keep the dissection's order");
        }
    }
    std::vector<int> pos(nb_);  // pos[block] = its place in the order
    for (int k = 0; k < nb_; ++k) pos[order[k]] = k;

    // Structure of L's block columns (= U's block rows): A's lower pattern merged with the
    // children's structures in the elimination tree.
    std::vector<std::vector<int>> st(nb_), children(nb_);
    std::vector<int> mark(nb_, -1);
    for (int k = 0; k < nb_; ++k) {
        std::vector<int>& s = st[k];
        auto add = [&](int i) {
            if (i > k && mark[i] != k) mark[i] = k, s.push_back(i);
        };
        for (int q = bp[order[k]]; q < bp[order[k] + 1]; ++q) add(pos[bi[q]]);
        for (int c : children[k])
            for (int i : st[c]) add(i);
        std::sort(s.begin(), s.end());
        if (!s.empty()) children[s.front()].push_back(k);
    }
    std::vector<std::vector<int>>().swap(children);

    size_.assign(nb_, 0), first_.assign(nb_, 0), diag_.assign(nb_, 0);
    offset_.assign(nb_ + 1, 0), struct_begin_.assign(nb_ + 1, 0);
    struct_.clear(), lpos_.clear(), upos_.clear();
    int offset = 0;
    for (int k = 0; k < nb_; ++k) {
        size_[k] = start[order[k] + 1] - start[order[k]];
        first_[k] = start[order[k]];
        offset_[k + 1] = offset_[k] + size_[k];
    }
    for (int k = 0; k < nb_; ++k) {
        diag_[k] = offset;
        offset += size_[k] * size_[k];
        for (int i : st[k]) {
            struct_.push_back(i);
            lpos_.push_back(offset);
            offset += size_[i] * size_[k];
            upos_.push_back(offset);
            offset += size_[k] * size_[i];
        }
        struct_begin_[k + 1] = static_cast<int>(struct_.size());
    }
    std::vector<std::vector<int>>().swap(st);

    // Offset of block (i, j) of the factors: the diagonal, L_ij (i > j) or U_ij (i < j).
    auto block_at = [&](int i, int j) {
        if (i == j) return diag_[i];
        const int col = std::min(i, j), other = std::max(i, j);
        const int* b = struct_.data() + struct_begin_[col];
        const int* e = struct_.data() + struct_begin_[col + 1];
        const int* f = std::lower_bound(b, e, other);
        if (f == e || *f != other) throw RunError("block LU: symbolic fill inconsistent");
        const int q = static_cast<int>(f - struct_.data());
        return i > j ? lpos_[q] : upos_[q];
    };
    update_begin_.assign(nb_ + 1, 0);
    update_.clear();
    for (int k = 0; k < nb_; ++k) {
        for (int qa = struct_begin_[k]; qa < struct_begin_[k + 1]; ++qa)
            for (int qc = struct_begin_[k]; qc < struct_begin_[k + 1]; ++qc)
                update_.push_back(block_at(struct_[qa], struct_[qc]));
        update_begin_[k + 1] = static_cast<int>(update_.size());
    }
    factor_size_ = offset;
    merge_.clear();
    fwd_.resize(struct_.size());
    for (size_t q = 0; q < struct_.size(); ++q) fwd_[q] = offset_[struct_[q]];
    if (split_b_ > 0) {
        // No fill between the parts (the separator separates them in every elimination graph).
        for (int k = 0; k < split_b_; ++k)
            for (int q = struct_begin_[k]; q < struct_begin_[k + 1]; ++q)
                if (struct_[q] < split_b_ && (struct_[q] < split_a_) != (k < split_a_))
                    throw RunError("block LU: fill between the dissection's parts");
        // B's updates of separator x separator blocks: to a buffer after the factors, one
        // slot per block, in the order B first reaches them.
        std::vector<int> slot(offset, -1);
        for (int k = split_a_; k < split_b_; ++k) {
            int* target = update_.data() + update_begin_[k];
            for (int qa = struct_begin_[k]; qa < struct_begin_[k + 1]; ++qa)
                for (int qc = struct_begin_[k]; qc < struct_begin_[k + 1]; ++qc, ++target) {
                    const int i = struct_[qa], j = struct_[qc];
                    if (i < split_b_ || j < split_b_) continue;
                    if (slot[*target] < 0) {
                        slot[*target] = offset;
                        merge_.insert(merge_.end(), {offset, *target, size_[i] * size_[j]});
                        offset += size_[i] * size_[j];
                    }
                    *target = slot[*target];
                }
            for (int q = struct_begin_[k]; q < struct_begin_[k + 1]; ++q)
                if (struct_[q] >= split_b_) fwd_[q] += n_ - offset_[split_b_];
        }
    }
    scatter_.assign(A.nonZeros(), 0);
    for (int c = 0; c < n_; ++c) {
        const int kj = pos[block_of[c]];
        for (int p = colptr[c]; p < colptr[c + 1]; ++p) {
            const int r = rowind[p];
            const int ki = pos[block_of[r]];
            scatter_[p] = block_at(ki, kj) + (c - first_[kj]) * size_[ki] + (r - first_[ki]);
        }
    }
    values_.assign(offset, 0.0);
    work_.assign(n_ + (split_b_ > 0 ? n_ - offset_[split_b_] : 0), 0.0);
    // Positions of the factors no entry of A lands on (fill, and the blocks' structural zeros).
    std::vector<char> covered(factor_size_, 0);
    for (int p : scatter_) covered[p] = 1;
    fill_.clear();
    for (size_t p = 0; p < covered.size(); ++p)
        if (!covered[p]) fill_.push_back(static_cast<int>(p));
    uniform_ = size_.empty() ? 0 : size_[0];
    for (int b : size_)
        if (b != uniform_) uniform_ = 0;
    for (auto* v : {&struct_, &lpos_, &upos_, &update_, &scatter_, &fill_, &merge_, &fwd_})
        v->shrink_to_fit();
}

bool BlockLu::Factor(const Eigen::SparseMatrix<double>& A) {
    if (static_cast<size_t>(A.nonZeros()) != scatter_.size())
        throw RunError("block LU: the matrix's pattern changed since Analyze()");
    ZeroFill();
    double* v = values_.data();
    const double* a = A.valuePtr();
    for (size_t p = 0; p < scatter_.size(); ++p) v[scatter_[p]] = a[p];
    return FactorValues();
}

bool BlockLu::FactorValues() {
    factored_ = false;
    double umin = std::numeric_limits<double>::infinity(), umax = 0.0;
    double growth = 0.0;
    const bool ok = uniform_ == 3   ? FactorAll<3>(&umin, &umax, &growth)
                    : uniform_ == 6 ? FactorAll<6>(&umin, &umax, &growth)
                                    : FactorAll<0>(&umin, &umax, &growth);
    if (!ok) return false;
    pivot_ratio_ = nb_ ? umin / umax : 1.0;
    if (!(pivot_ratio_ > 1e-13) || !std::isfinite(umax) || !(growth <= kMaxGrowth)) {
        pivot_ratio_ = 0.0;
        return false;
    }
    factored_ = true;
    return true;
}

// f and g in parallel in the arena, else f then g.
template <class F, class G>
void BlockLu::RunBoth(F&& f, G&& g) {
    if (arena_ && arena_->max_concurrency() > 1)
        arena_->execute([&] { tbb::parallel_invoke(f, g); });
    else
        f(), g();
}

// Without the split, the columns in order; with it, parts A and B (two tasks), B's separator
// updates added in (in Analyze's fixed order), then the separator's columns.
template <int Fixed>
bool BlockLu::FactorAll(double* umin, double* umax, double* growth) {
    if (split_b_ == 0) return FactorBlocks<Fixed>(0, nb_, umin, umax, growth);
    struct alignas(64) Part {
        double umin, umax, growth;
        bool ok;
    } a{*umin, *umax, 0.0, false}, b{*umin, *umax, 0.0, false};
    double* v = values_.data();
    RunBoth([&] { a.ok = FactorBlocks<Fixed>(0, split_a_, &a.umin, &a.umax, &a.growth); },
            [&] {
                std::fill(v + factor_size_, v + values_.size(), 0.0);
                b.ok = FactorBlocks<Fixed>(split_a_, split_b_, &b.umin, &b.umax, &b.growth);
            });
    if (!a.ok || !b.ok) return false;
    for (size_t q = 0; q < merge_.size(); q += 3) {
        const double* from = v + merge_[q];
        double* to = v + merge_[q + 1];
        for (int r = 0; r < merge_[q + 2]; ++r) to[r] += from[r];
    }
    *umin = std::min(a.umin, b.umin), *umax = std::max(a.umax, b.umax);
    double rest = 0.0;
    const bool ok = FactorBlocks<Fixed>(split_b_, nb_, umin, umax, &rest);
    *growth = std::max({a.growth, b.growth, rest});
    return ok;
}

// Columns k0 .. k1 - 1. Fixed = B > 0: every block has B unknowns (loops at compile-time trip
// counts); 0: any sizes.
template <int Fixed>
bool BlockLu::FactorBlocks(int k0, int k1, double* umin, double* umax, double* growth_out) {
    double* v = values_.data();
    // Pivot range and growth in locals, written back at the end: the two parts' results lie
    // side by side, and updating them per block from two threads shares their cache line.
    double growth = 0.0, lo = *umin, hi = *umax;
    for (int k = k0; k < k1; ++k) {
        const int b = Fixed > 0 ? Fixed : size_[k];
        double* d = v + diag_[k];
        // D_k^-1 from its LU (partial pivoting inside the block), in place of D_k.
        if (!InvertInPlace<Fixed>(d, b, &lo, &hi)) return false;
        // L_ik := A_ik D_k^-1.
        for (int q = struct_begin_[k]; q < struct_begin_[k + 1]; ++q) {
            const int bi = Fixed > 0 ? Fixed : size_[struct_[q]];
            double* l = v + lpos_[q];
            growth = std::max(growth, MultiplyInPlace<Fixed>(l, d, bi, b, b, l));
        }
        // A_ij -= L_ik U_kj for i, j in the structure of k.
        const int* target = update_.data() + update_begin_[k];
        for (int qa = struct_begin_[k]; qa < struct_begin_[k + 1]; ++qa) {
            const int bi = Fixed > 0 ? Fixed : size_[struct_[qa]];
            const double* l = v + lpos_[qa];
            for (int qc = struct_begin_[k]; qc < struct_begin_[k + 1]; ++qc) {
                const int bj = Fixed > 0 ? Fixed : size_[struct_[qc]];
                const double* u = v + upos_[qc];
                double* t = v + *target++;
                for (int c = 0; c < bj; ++c)
                    for (int r = 0; r < bi; ++r) {
                        double sum = t[c * bi + r];
                        for (int s = 0; s < b; ++s) sum -= l[s * bi + r] * u[c * b + s];
                        t[c * bi + r] = sum;
                    }
            }
        }
        // U_kj is not needed any more: W_kj = D_k^-1 U_kj in its place (the backward solve).
        for (int q = struct_begin_[k]; q < struct_begin_[k + 1]; ++q) {
            const int bj = Fixed > 0 ? Fixed : size_[struct_[q]];
            double* u = v + upos_[q];
            growth = std::max(growth, MultiplyInPlace<Fixed>(d, u, b, b, bj, u));
        }
    }
    *growth_out = growth, *umin = lo, *umax = hi;
    return true;
}

void BlockLu::Solve(Eigen::VectorXd& bv) {
    if (uniform_ == 3) return SolveBlocks<3>(bv.data());
    if (uniform_ == 6) return SolveBlocks<6>(bv.data());
    SolveBlocks<0>(bv.data());
}

// Forward: y_i -= L_ik y_k, then y_k := D_k^-1 y_k; backward: x_k = y_k - sum_j W_kj x_j. The
// chain of dependent operations per block is one small matrix-vector product each way. With
// the split, both sweeps of parts A and B run as two tasks (B's forward updates of the
// separator's unknowns into work_[n_ ..], added in after both).
template <int Fixed>
void BlockLu::SolveBlocks(double* b) {
    double* y = work_.data();  // block k of the elimination order at off[k]
    const int* off = offset_.data();
    auto size = [&](int k) { return Fixed > 0 ? Fixed : size_[k]; };
    for (int k = 0; k < nb_; ++k)
        for (int r = 0; r < size(k); ++r) y[off[k] + r] = b[first_[k] + r];
    if (split_b_ == 0) {
        ForwardBlocks<Fixed>(0, nb_, y);
        BackwardBlocks<Fixed>(0, nb_, y);
    } else {
        RunBoth([&] { ForwardBlocks<Fixed>(0, split_a_, y); },
                [&] {
                    std::fill(work_.begin() + n_, work_.end(), 0.0);
                    ForwardBlocks<Fixed>(split_a_, split_b_, y);
                });
        const int sep = off[split_b_];
        for (int r = 0; r < n_ - sep; ++r) y[sep + r] += y[n_ + r];
        ForwardBlocks<Fixed>(split_b_, nb_, y);
        BackwardBlocks<Fixed>(split_b_, nb_, y);
        RunBoth([&] { BackwardBlocks<Fixed>(0, split_a_, y); },
                [&] { BackwardBlocks<Fixed>(split_a_, split_b_, y); });
    }
    for (int k = 0; k < nb_; ++k)
        for (int r = 0; r < size(k); ++r) b[first_[k] + r] = y[off[k] + r];
}

template <int Fixed>
void BlockLu::ForwardBlocks(int k0, int k1, double* y) const {
    const double* v = values_.data();
    const int* off = offset_.data();
    auto size = [&](int k) { return Fixed > 0 ? Fixed : size_[k]; };
    for (int k = k0; k < k1; ++k) {
        const int bk = size(k);
        double* yk = y + off[k];
        for (int q = struct_begin_[k]; q < struct_begin_[k + 1]; ++q) {
            const int bi = size(struct_[q]);
            double* yi = y + fwd_[q];
            const double* l = v + lpos_[q];
            for (int r = 0; r < bi; ++r) {
                double sum = yi[r];
                for (int c = 0; c < bk; ++c) sum -= l[c * bi + r] * yk[c];
                yi[r] = sum;
            }
        }
        const double* d = v + diag_[k];
        double z[kMaxBlockSize];
        for (int r = 0; r < bk; ++r) {
            double sum = 0.0;
            for (int c = 0; c < bk; ++c) sum += d[c * bk + r] * yk[c];
            z[r] = sum;
        }
        for (int r = 0; r < bk; ++r) yk[r] = z[r];
    }
}

template <int Fixed>
void BlockLu::BackwardBlocks(int k0, int k1, double* y) const {
    const double* v = values_.data();
    const int* off = offset_.data();
    auto size = [&](int k) { return Fixed > 0 ? Fixed : size_[k]; };
    for (int k = k1 - 1; k >= k0; --k) {
        const int bk = size(k);
        double* yk = y + off[k];
        for (int q = struct_begin_[k]; q < struct_begin_[k + 1]; ++q) {
            const int j = struct_[q];
            const int bj = size(j);
            const double* yj = y + off[j];
            const double* w = v + upos_[q];
            for (int r = 0; r < bk; ++r) {
                double sum = yk[r];
                for (int c = 0; c < bj; ++c) sum -= w[c * bk + r] * yj[c];
                yk[r] = sum;
            }
        }
    }
}

}  // namespace mbstep::detail
