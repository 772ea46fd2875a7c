// mbstep — assembly services: element colouring for deterministic parallel assembly, and
// value slots into a fixed compressed sparsity pattern (docs/DESIGN.md, "Solver services").
#pragma once

#include <Eigen/SparseCore>
#include <vector>

namespace mbstep {

/// Greedy colouring of the element-conflict graph (two elements conflict when they share a
/// node), Boost.Graph sequential_vertex_coloring in element order. Returns, per colour, the
/// element indices in increasing order. Elements of one colour write disjoint rows, so they
/// can be assembled concurrently, and the result is identical to serial assembly in colour
/// order. Memory: the graph holds each pair of conflicting elements once.
std::vector<std::vector<int>> ColorElements(const std::vector<std::vector<int>>& element_nodes,
                                            int num_nodes);

/// Index into A.valuePtr() of entry (row, col), which must be in the pattern.
int PatternSlot(const Eigen::SparseMatrix<double>& A, int row, int col);
/// Index into A.valuePtr() of entry (row, col); -1 when it is not in the pattern.
int FindPatternSlot(const Eigen::SparseMatrix<double>& A, int row, int col);

/// Collects dense blocks of a pattern, then compresses it (values zero, row indices sorted in
/// each column). Blocks may overlap. It keeps the blocks, not their entries, and builds the
/// columns directly: a triplet list with the overlaps set the peak memory of large models.
class PatternBuilder {
  public:
    explicit PatternBuilder(int n) : n_(n) {}
    void AddBlock(int row, int rows, int col, int cols);
    Eigen::SparseMatrix<double> Build() const;

  private:
    struct Block {
        int row, rows, col, cols;
    };
    int n_;
    std::vector<Block> blocks_;
};

}  // namespace mbstep
