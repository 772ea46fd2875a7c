// No heap allocation inside a Newton iteration: this test binary interposes the C
// allocator (malloc, calloc, realloc, the aligned variants; operator new, Eigen and KLU all
// allocate through them) and counts the calls made between two consecutive converged steps of
// the N-link chain deck (`ms, 0.6`, one thread, no output files). After a warm-up of a few
// steps (start-up history, first factorization, the predictor switching from constant to
// Hermite), every step — prediction, all Newton iterations (residual, Jacobian assembly into
// the fixed pattern, KLU refactorization and solve, update), convergence bookkeeping and the
// driver's loop — must allocate nothing: zero per step implies zero per Newton iteration.
// The counter only counts; nothing is timed here (speed lives in tools/bench).
#include <doctest/doctest.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "support/run_helpers.hpp"

// Sanitizer runtimes own the allocator: the interposition is compiled out there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MBSTEP_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define MBSTEP_COUNT_ALLOCATIONS 0
#endif
#endif
#if !defined(MBSTEP_COUNT_ALLOCATIONS) && defined(__GLIBC__)
#define MBSTEP_COUNT_ALLOCATIONS 1
#endif
#ifndef MBSTEP_COUNT_ALLOCATIONS
#define MBSTEP_COUNT_ALLOCATIONS 0
#endif

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
inline void Count() {
    if (g_counting.load(std::memory_order_relaxed))
        g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#if MBSTEP_COUNT_ALLOCATIONS
// glibc's allocator entry points; the definitions below interpose the public names for the
// whole process (the executable comes first in symbol lookup, plugins included).
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) noexcept {
    Count();
    return __libc_malloc(n);
}
void* calloc(std::size_t a, std::size_t b) noexcept {
    Count();
    return __libc_calloc(a, b);
}
void* realloc(void* p, std::size_t n) noexcept {
    Count();
    return __libc_realloc(p, n);
}
void free(void* p) noexcept { __libc_free(p); }
void* memalign(std::size_t a, std::size_t n) noexcept {
    Count();
    return __libc_memalign(a, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) noexcept {
    Count();
    return __libc_memalign(a, n);
}
int posix_memalign(void** out, std::size_t a, std::size_t n) noexcept {
    Count();
    void* p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
}
#endif

using namespace mbstep;
using namespace mbstep::test;

namespace {

// Allocations per converged step (entry k: between the callbacks of steps k and k + 1; entry 0
// includes the integrator's start).
std::vector<long> AllocationsPerStep(const std::string& deck_path, const std::string& method,
                                     bool modified_newton, int steps, int threads,
                                     const std::string& linear_solver, long* iterations,
                                     bool write_output = false) {
    const Registry& reg = GlobalRegistry();
    Deck deck = ReadDeck(deck_path, reg);
    std::string name;
    deck.integrator = MakeIntegrator(method, reg, &name);
    deck.method_name = name;
    deck.settings.method_text = method;
    deck.settings.final_time = deck.settings.initial_time + steps * deck.settings.time_step;
    deck.settings.solver.linear_solver = linear_solver;
    if (modified_newton) {
        deck.settings.solver.modified_newton = true;
        deck.settings.solver.modified_newton_iterations = 10;
    }
    RunOptions opt;
    opt.write_output = write_output;
    opt.output_prefix = "allocation_output";  // in the test's own temporary folder
    opt.progress = false;
    opt.threads = threads;
    std::vector<long> per_step;
    per_step.reserve(steps + 2);
    opt.on_step = [&](double, const Formulation&) {
        const bool first = !g_counting.exchange(false);
        if (!first) per_step.push_back(g_allocations.load());
        g_allocations = 0;
        g_counting = true;
    };
    const RunSummary s = Run(deck, opt, reg);
    g_counting = false;
    *iterations = s.iterations;
    REQUIRE(s.completed);
    REQUIRE(s.steps == steps);
    return per_step;
}

// A chain of n links (test::ChainDeckText) in a temporary file: n = 50 gives `schur` an S of
// 150 unknowns, the block LU's.
std::string ChainDeckFile(int n) {
    const std::string path = "allocation_chain" + std::to_string(n) + ".mbd";
    std::ofstream(path) << ChainDeckText(n, "", 1.0);
    return path;
}

void CheckNoAllocationsAfterWarmUp(const std::string& method, bool modified_newton, int threads = 1,
                                   const std::string& linear_solver = "auto",
                                   const std::string& deck_path = "", bool write_output = false) {
#if !MBSTEP_COUNT_ALLOCATIONS
    MESSAGE("allocation counting is compiled out (sanitizer build or not glibc)");
    return;
#endif
    const int steps = 30, warm_up = 2;
    long iterations = 0;
    const std::vector<long> n = AllocationsPerStep(
        deck_path.empty() ? SourcePath("examples/n-link-chain/deck.mbd") : deck_path, method,
        modified_newton, steps, threads, linear_solver, &iterations, write_output);
    REQUIRE(n.size() == static_cast<size_t>(steps));
    long warm = 0, after = 0;
    for (int k = 0; k < steps; ++k) (k < warm_up ? warm : after) += n[k];
    std::string first;
    for (int k = 0; k < warm_up; ++k) first += (k ? ", " : "") + std::to_string(n[k]);
    MESSAGE(method, std::string(modified_newton ? " (modified Newton)" : ""), ", ", linear_solver,
            ", ", threads, " thread(s): ", iterations, " Newton iterations in ", steps,
            " steps; allocations in steps 1..", warm_up, ": ", first, " (", warm, "); in steps ",
            warm_up + 1, "..", steps, ": ", after);
    CHECK(iterations >= steps);  // the steps did iterate
    for (int k = warm_up; k < steps; ++k) {
        INFO("step ", k + 1);
        CHECK(n[k] == 0);
    }
}

}  // namespace

TEST_CASE("allocation: the counting hook sees operator new and Eigen") {
#if !MBSTEP_COUNT_ALLOCATIONS
    MESSAGE("allocation counting is compiled out");
    return;
#endif
    g_allocations = 0;
    g_counting = true;
    auto* p = new std::vector<double>(100);
    Eigen::VectorXd v = Eigen::VectorXd::Ones(50);
    g_counting = false;
    CHECK(g_allocations.load() >= 3);
    CHECK(v.sum() == 50.0);
    delete p;
}

TEST_CASE("allocation: none per step (hence per Newton iteration) on the chain, ms 0.6") {
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false);
}

TEST_CASE("allocation: none per step with every output file written at every step") {
    // The heavy top writes .out, .mov, .jnt (a spherical pin's reaction line) and .csv.
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 1, "auto",
                                  SourcePath("examples/heavy-top/heavy-top.mbd"), true);
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 1, "auto", "", true);  // the chain's joints
}

TEST_CASE("allocation: none per step on the chain with modified Newton") {
    CheckNoAllocationsAfterWarmUp("ms, 0.6", true);
}

TEST_CASE("allocation: none per step on the chain with two assembly threads") {
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 2);
}

TEST_CASE("allocation: none per step on the chain with the schur solver, one and two threads") {
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 1, "schur");
    CheckNoAllocationsAfterWarmUp("ms, 0.6", true, 1, "schur");
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 2, "schur");
}

TEST_CASE("allocation: none per step with the second-order formulations (Jacobians in place)") {
    // `generalized alpha` on `lie group` (with the tangent operator), `hht` on `euler
    // parameters`: their Jacobian pieces, T, the products K T, B T, C D and the iteration
    // matrix are written into fixed patterns.
    CheckNoAllocationsAfterWarmUp("generalized alpha, 0.9", false);
    // With KLU: `auto` picks schur here, whose node groups on Euler parameters are singular
    // but for the norm constraint's multiplier (the quaternion block 4 L^T J L has rank 3), so
    // schur falls back to KLU, once, at whichever step a group's pivot ratio first drops under
    // 1e-13: an allocation at a step that depends on the iterates, not on the Jacobians'
    // assembly this case is about.
    CheckNoAllocationsAfterWarmUp("hht, -0.1", false, 1, "klu");
}

TEST_CASE("allocation: none per step with schur's block LU of S (50-link chain)") {
    const std::string deck = ChainDeckFile(50);
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 1, "schur", deck);
    CheckNoAllocationsAfterWarmUp("ms, 0.6", true, 1, "schur", deck);
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 2, "schur", deck);
    std::remove(deck.c_str());
}

TEST_CASE("allocation: none per step with the block LU's nested-dissection split (300 links)") {
    // 300 blocks of S (at least BlockLu::kSplitMinBlocks): two parts as TBB tasks on two threads.
    const std::string deck = ChainDeckFile(300);
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 1, "schur", deck);
    CheckNoAllocationsAfterWarmUp("ms, 0.6", false, 2, "schur", deck);
    std::remove(deck.c_str());
}
