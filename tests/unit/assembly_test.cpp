// Element colouring and pattern slots.
#include "mbstep/assembly/assembly.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace mbstep;

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
