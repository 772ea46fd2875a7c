// mbstep — formulation `cgr`: the schedule of its passes, Parallel(), ForEachNode() and
// ForEachElementColored() (declared in cgr_formulation.hpp): the node passes in parallel
// blocks, the element passes colour by colour with the element objects prefetched. Included by
// the sources whose passes use them.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "cgr_formulation.hpp"

namespace mbstep::cgr {

template <class F>
void CgrFormulation::Parallel(F&& f) const {
    if (threads_ <= 1) {
        f();
        return;
    }
    // One arena for the formulation's life (creating one per call allocates).
    if (!arena_ || arena_->max_concurrency() != threads_) arena_.emplace(threads_);
    arena_->execute(f);
}

template <class F>
void CgrFormulation::ForEachNode(F&& f) const {
    if (threads_ <= 1) {
        for (size_t i = 0; i < nodes_.size(); ++i) f(i);
        return;
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, nodes_.size(), 16),
                      [&](const tbb::blocked_range<size_t>& range) {
                          for (size_t i = range.begin(); i != range.end(); ++i) f(i);
                      });
}

template <class F>
void CgrFormulation::ForEachElementColored(F&& f) const {
    // Each element object is a separate heap allocation that the hardware prefetcher cannot
    // follow: its first cache lines are requested kAhead elements early.
    constexpr size_t kAhead = 8;
    if (threads_ <= 1) {
        ElementBlock& block = scratch_.local();  // one thread-local lookup per pass
        for (const auto& color : colors_)
            for (size_t k = 0; k < color.size(); ++k) {
                if (k + kAhead < color.size()) PrefetchElement(color[k + kAhead]);
                f(color[k], block);
            }
        return;
    }
    for (const auto& color : colors_)
        tbb::parallel_for(tbb::blocked_range<size_t>(0, color.size(), 8),
                          [&](const tbb::blocked_range<size_t>& range) {
                              ElementBlock& block = scratch_.local();
                              for (size_t k = range.begin(); k != range.end(); ++k) {
                                  if (k + kAhead < range.end()) PrefetchElement(color[k + kAhead]);
                                  f(color[k], block);
                              }
                          });
}

}  // namespace mbstep::cgr
