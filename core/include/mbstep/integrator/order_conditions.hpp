// mbstep — the order conditions of Runge–Kutta methods by rooted trees (Butcher's theory:
// E. Hairer, S. P. Nørsett, G. Wanner, Solving Ordinary Differential Equations I, 2nd ed.,
// Springer 1993, sect. II.2, Theorem 2.13). A method (A, b) has order p when, for every rooted
// tree t with at most p vertices,
//
//   (1) b^T g(t) = 1 / gamma(t),   g(t) = prod over the children u of t of (A g(u)) (entrywise;
//                                  g = 1 for the one-vertex tree),
//                                  gamma(t) = |t| prod over the children u of gamma(u).
//
// Header only: the registry-driven tests check every registered tableau (explicit `rk`, and
// StageN's ESDIRK tableaus with b the last row of A) against it.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace mbstep::order_conditions {

/// A rooted tree as the list of its children; its order is its number of vertices.
struct RootedTree {
    std::vector<RootedTree> children;

    int order() const {
        int n = 1;
        for (const RootedTree& c : children) n += c.order();
        return n;
    }
    /// gamma(t) of (1).
    double density() const {
        double d = order();
        for (const RootedTree& c : children) d *= c.density();
        return d;
    }
    /// g(t) of (1) for the coefficient matrix A.
    Eigen::VectorXd stage(const Eigen::MatrixXd& A) const {
        Eigen::VectorXd g = Eigen::VectorXd::Ones(A.rows());
        for (const RootedTree& c : children) g = g.cwiseProduct(A * c.stage(A));
        return g;
    }
    /// "[...]" with the children's strings inside.
    std::string str() const {
        std::string s = "[";
        for (const RootedTree& c : children) s += c.str();
        return s + "]";
    }
};

/// trees[n] = the rooted trees with n vertices, n = 1..max (1, 1, 2, 4, 9, 20, 48 of orders
/// 1..7): a tree of order n is a root with a multiset of trees of total order n - 1, the
/// children taken in non-increasing index order so that every multiset appears once.
inline std::vector<std::vector<RootedTree>> RootedTrees(int max) {
    std::vector<std::vector<RootedTree>> by_order(std::max(max, 1) + 1);
    by_order[1].push_back(RootedTree{});
    for (int n = 2; n <= max; ++n) {
        std::vector<const RootedTree*> flat;
        for (int k = 1; k < n; ++k)
            for (const RootedTree& t : by_order[k]) flat.push_back(&t);
        std::vector<RootedTree> children;
        std::function<void(int, int)> add = [&](int left, int max_index) {
            if (left == 0) {
                by_order[n].push_back(RootedTree{children});
                return;
            }
            for (int i = max_index; i >= 0; --i) {
                const int o = flat[i]->order();
                if (o > left) continue;
                children.push_back(*flat[i]);
                add(left - o, i);
                children.pop_back();
            }
        };
        add(n - 1, static_cast<int>(flat.size()) - 1);
    }
    return by_order;
}

/// Largest |b^T g(t) - 1/gamma(t)| of (1) over `trees` (e.g. RootedTrees(p)[q]: the
/// conditions of order q).
inline double OrderDefect(const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
                          const std::vector<RootedTree>& trees) {
    double worst = 0.0;
    for (const RootedTree& t : trees)
        worst = std::max(worst, std::abs(b.dot(t.stage(A)) - 1.0 / t.density()));
    return worst;
}

}  // namespace mbstep::order_conditions
