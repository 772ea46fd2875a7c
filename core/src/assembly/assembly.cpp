#include "mbstep/assembly/assembly.hpp"

#include <algorithm>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/sequential_vertex_coloring.hpp>

#include "mbstep/common.hpp"

namespace mbstep {

std::vector<std::vector<int>> ColorElements(const std::vector<std::vector<int>>& element_nodes,
                                            int num_nodes) {
    const int ne = static_cast<int>(element_nodes.size());
    std::vector<std::vector<int>> node_elements(num_nodes);
    for (int e = 0; e < ne; ++e)
        for (int n : element_nodes[e]) node_elements[n].push_back(e);
    // The conflict graph in compressed rows: each pair of conflicting elements once, however
    // many nodes the two share, so its memory is O(pairs) rather than O(sum over nodes of their
    // elements squared), which decides its size when many elements share many nodes (the
    // columns of a Jacobian sharing rows). The edge runs from the later element to the earlier:
    // the sequential colouring in element order reads, for each element, the colours of its
    // neighbours already coloured, i.e. the earlier ones (a later one is uncoloured then).
    // Edges come sorted by source.
    std::vector<std::pair<int, int>> edges;
    std::vector<int> last(ne, -1);  // last[f] == e: the edge (e, f) is listed
    for (int e = 0; e < ne; ++e)
        for (int n : element_nodes[e])
            for (int f : node_elements[n])
                if (f < e && last[f] != e) {
                    last[f] = e;
                    edges.emplace_back(e, f);
                }
    std::vector<std::vector<int>>().swap(node_elements);
    using Graph =
        boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                           boost::no_property, int, int>;
    const Graph g(boost::edges_are_sorted, edges.begin(), edges.end(), ne);
    std::vector<std::pair<int, int>>().swap(edges);
    std::vector<int> color(ne, 0);
    int num_colors = 0;
    if (ne > 0) {
        auto cmap =
            boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g));
        num_colors = static_cast<int>(boost::sequential_vertex_coloring(g, cmap));
    }
    std::vector<std::vector<int>> groups(num_colors);
    for (int e = 0; e < ne; ++e) groups[color[e]].push_back(e);
    return groups;
}

int FindPatternSlot(const Eigen::SparseMatrix<double>& A, int row, int col) {
    const int* outer = A.outerIndexPtr();
    const int* inner = A.innerIndexPtr();
    const int* begin = inner + outer[col];
    const int* end = inner + outer[col + 1];
    const int* it = std::lower_bound(begin, end, row);
    return it != end && *it == row ? static_cast<int>(it - inner) : -1;
}

int PatternSlot(const Eigen::SparseMatrix<double>& A, int row, int col) {
    const int slot = FindPatternSlot(A, row, col);
    if (slot < 0)
        throw RunError("internal error: entry (" + std::to_string(row) + ", " +
                       std::to_string(col) + ") is not in the sparsity pattern");
    return slot;
}

void PatternBuilder::AddBlock(int row, int rows, int col, int cols) {
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) triplets_.emplace_back(row + i, col + j, 0.0);
}

Eigen::SparseMatrix<double> PatternBuilder::Build() const {
    Eigen::SparseMatrix<double> A(n_, n_);
    A.setFromTriplets(triplets_.begin(), triplets_.end(), [](double a, double) { return a; });
    A.makeCompressed();
    return A;
}

}  // namespace mbstep
