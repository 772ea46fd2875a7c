// Element colouring, pattern slots and the element block's reset.
#include "mbstep/assembly/assembly.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "mbstep/model/element.hpp"

using namespace mbstep;

namespace {
#ifdef NDEBUG
constexpr bool kDebugBuild = false;
#else
constexpr bool kDebugBuild = true;
#endif
}  // namespace

TEST_CASE("colouring separates elements that share a node") {
    // A chain: element i connects nodes i and i+1; plus a ground element on node 0.
    std::vector<std::vector<int>> en;
    for (int i = 0; i < 20; ++i) en.push_back({i, i + 1});
    en.push_back({0});
    en.push_back({});
    const auto colors = ColorElements(en, 21);
    std::set<int> seen;
    for (const auto& c : colors) {
        std::set<int> nodes;
        for (int e : c) {
            CHECK(seen.insert(e).second);
            for (int n : en[e]) CHECK(nodes.insert(n).second);  // no shared node within a colour
        }
    }
    CHECK(seen.size() == en.size());
    CHECK(colors.size() <= 3);
}

TEST_CASE("pattern slots address the compressed values") {
    PatternBuilder pb(6);
    pb.AddBlock(0, 3, 0, 3);
    pb.AddBlock(3, 3, 0, 2);
    auto A = pb.Build();
    CHECK(A.nonZeros() == 15);
    const int s = PatternSlot(A, 4, 1);
    A.valuePtr()[s] = 7.0;
    CHECK(A.coeff(4, 1) == 7.0);
    CHECK_THROWS(PatternSlot(A, 5, 5));
}

TEST_CASE("ElementBlock::Reset zeroes the declared node-pair blocks") {
    ElementBlock b;
    const auto fill = [&b] {
        b.K.setConstant(18, 18, 7.0);
        b.C.setConstant(18, 18, 7.0);
    };
    const auto block_zero = [](const ElementBlock::Mat& m, int a, int c) {
        return m.block<6, 6>(6 * a, 6 * c).isZero(0.0);
    };
    // Every block (the default, and a declaration naming every pair of the element's nodes).
    const std::uint32_t all3 =
        0x7u | 0x7u << ElementBlock::kMaxNodes | 0x7u << (2 * ElementBlock::kMaxNodes);
    for (std::uint32_t pairs : {~0u, all3}) {
        fill();
        b.Reset(3, 2, true, pairs, pairs);
        CHECK(b.K.rows() == 18);
        CHECK(b.K.isZero(0.0));
        CHECK(b.C.isZero(0.0));
    }
    // K on the diagonal pairs and (0, 2), C on (1, 0) only: those are zero, the rest is not
    // touched in release builds (debug builds zero everything for their checks).
    fill();
    const std::uint32_t kp = ElementBlock::Pair(0, 0) | ElementBlock::Pair(1, 1) |
                             ElementBlock::Pair(2, 2) | ElementBlock::Pair(0, 2);
    const std::uint32_t cp = ElementBlock::Pair(1, 0);
    b.Reset(3, 2, true, kp, cp);
    CHECK(b.K.rows() == 18);
    CHECK(b.C.cols() == 18);
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
            const std::uint32_t p = ElementBlock::Pair(a, c);
            CHECK(block_zero(b.K, a, c) == ((kp & p) != 0 || kDebugBuild));
            CHECK(block_zero(b.C, a, c) == ((cp & p) != 0 || kDebugBuild));
        }
    CHECK(b.L.rows() == 18);
    CHECK(b.L.isZero(0.0));
    CHECK(b.phi_q.isZero(0.0));
    // Without the Jacobian only f and phi are sized and zeroed.
    b.f.setConstant(18, 1.0);
    b.Reset(2, 1, false, kp, cp);
    CHECK(b.f.size() == 12);
    CHECK(b.f.isZero(0.0));
    CHECK(b.phi.size() == 1);
}

TEST_CASE("colouring: the colours of first fit in element order, elements sharing many nodes") {
    // Columns of a banded matrix as elements, their rows as nodes: each pair of neighbouring
    // columns shares many rows (one graph edge per pair, however many rows they share).
    const int n = 60, band = 7;
    std::vector<std::vector<int>> en(n);
    for (int j = 0; j < n; ++j)
        for (int i = std::max(0, j - band); i <= std::min(n - 1, j + band); ++i)
            if ((i * 7 + j * 3) % 5 != 0 || i == j) en[j].push_back(i);
    // First fit: the smallest colour none of whose elements shares a node with j.
    std::vector<std::vector<int>> expect;
    std::vector<std::vector<char>> used;
    for (int j = 0; j < n; ++j) {
        size_t c = 0;
        for (; c < expect.size(); ++c) {
            bool free = true;
            for (int row : en[j]) free = free && !used[c][row];
            if (free) break;
        }
        if (c == expect.size()) expect.emplace_back(), used.emplace_back(n, 0);
        expect[c].push_back(j);
        for (int row : en[j]) used[c][row] = 1;
    }
    CHECK(ColorElements(en, n) == expect);
}
