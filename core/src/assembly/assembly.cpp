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
    if (rows > 0 && cols > 0) blocks_.push_back({row, rows, col, cols});
}

Eigen::SparseMatrix<double> PatternBuilder::Build() const {
    // Row indices per column with repeats (CSC counts, then fill) written straight into the
    // matrix's arrays, then each column sorted and its repeats dropped in place.
    Eigen::SparseMatrix<double> A(n_, n_);
    int* const start = A.outerIndexPtr();  // zeroed by the constructor
    for (const Block& b : blocks_)
        for (int j = b.col; j < b.col + b.cols; ++j) start[j + 1] += b.rows;
    for (int j = 0; j < n_; ++j) start[j + 1] += start[j];
    const int total = start[n_];
    A.resizeNonZeros(total);
    int* const rows = A.innerIndexPtr();
    {
        std::vector<int> fill(start, start + n_);
        for (const Block& b : blocks_)
            for (int j = b.col; j < b.col + b.cols; ++j)
                for (int i = 0; i < b.rows; ++i) rows[fill[j]++] = b.row + i;
    }
    int nnz = 0, begin = 0;  // begin: column j's first entry before compaction
    for (int j = 0; j < n_; ++j) {
        const int end_j = start[j + 1];
        std::sort(rows + begin, rows + end_j);
        int* const end = std::unique(rows + begin, rows + end_j);
        start[j] = nnz;
        nnz = static_cast<int>(std::copy(rows + begin, end, rows + nnz) - rows);
        begin = end_j;
    }
    start[n_] = nnz;
    A.resizeNonZeros(nnz);
    if (nnz < total) A.data().squeeze();  // repeats: no unused tail kept for the run
    std::fill(A.valuePtr(), A.valuePtr() + nnz, 0.0);
    return A;
}

}  // namespace mbstep
