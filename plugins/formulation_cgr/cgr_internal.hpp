// mbstep — formulation `cgr`: what its sources share besides the class (cgr_formulation.hpp):
// the dofs per node and the column-run writer of the node and element passes. Included only
// by the formulation's own .cpp files; the unnamed namespace keeps them internal to each, as in
// one source file.
#pragma once

#include "cgr_formulation.hpp"

namespace mbstep::cgr {

namespace {

constexpr int kDynamicDofs = 12;
constexpr int kStaticDofs = 6;

template <class Block>
void AddColumnRuns(double* values, const int* slots, int cols, int rows, const Block& b) {
    for (int j = 0; j < cols; ++j) {
        double* v = values + slots[j];
        for (int i = 0; i < rows; ++i) v[i] += b(i, j);
    }
}
}  // namespace

}  // namespace mbstep::cgr
