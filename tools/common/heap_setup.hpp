// mbstep — the heap settings of the executables that run models (`mbstep`, `mbstep-bench`): the
// library and the tests keep glibc's defaults (docs/DESIGN.md, "Plugins and CLI").
#pragma once

#ifdef __GLIBC__
#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#endif

namespace mbstep::tools {

#ifdef __GLIBC__
/// Runs this executable again with `glibc.malloc.hugetlb=1` added to GLIBC_TUNABLES, so that
/// malloc advises the kernel to back the heap with transparent 2 MiB pages
/// (madvise(MADV_HUGEPAGE) on what it takes from the kernel; glibc 2.35 and later, older ones
/// ignore the tunable). A large model's passes over its arrays need them: with 4 KiB pages the
/// 10 000-link chain's working set (95 MB) takes ~24 000 TLB entries (docs/PERFORMANCE.md,
/// "Scale": 0.88x the CPU of the 10 000-link chain, 0.96x of the 1000-link one). glibc reads
/// tunables when a process starts, hence the exec, at most once. Returns (and the process goes
/// on as started) when the kernel has transparent huge pages off, when GLIBC_TUNABLES already
/// names the tunable, under valgrind (its preload library in LD_PRELOAD: /proc/self/exe is then
/// valgrind's tool, and the run stays in the process valgrind watches), when
/// MBSTEP_HUGE_PAGES=0, or when the exec fails.
inline void RunAgainWithHugePages(char** argv) {
    const char* off = std::getenv("MBSTEP_HUGE_PAGES");
    if (off && std::string(off) == "0") return;
    const char* given = std::getenv("GLIBC_TUNABLES");
    std::string tunables = given ? given : "";
    if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;
    std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string mode;
    std::getline(thp, mode);
    if (mode.find("[never]") != std::string::npos || mode.empty()) return;
    if (const char* preload = std::getenv("LD_PRELOAD");
        preload && std::string(preload).find("vgpreload") != std::string::npos)
        return;
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return;
    self[n] = '\0';
    tunables += (tunables.empty() ? "" : ":") + std::string("glibc.malloc.hugetlb=1");
    if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
    execv(self, argv);
    // The exec failed: go on without.
    if (given)
        setenv("GLIBC_TUNABLES", given, 1);
    else
        unsetenv("GLIBC_TUNABLES");
}

/// Whether this process's heap has the huge-page advice (the tunable in its environment).
inline bool HeapHasHugePages() {
    const char* t = std::getenv("GLIBC_TUNABLES");
    return t && std::string(t).find("glibc.malloc.hugetlb=1") != std::string::npos;
}

/// glibc gives blocks above its mmap threshold (128 KiB, adapting up to 32 MiB) back to the
/// kernel when they are freed, and trims the heap's free top above 128 KiB: the set-up's large
/// temporaries (patterns, triplets, the two linear-solver analyses) were then faulted in afresh
/// one after the other (a fifth of the chain N = 10000 set-up in page faults). Kept in the heap
/// they are reused (docs/PERFORMANCE.md, "Set-up of a large deck").
inline void KeepFreedBlocksInHeap() {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
#else
inline void RunAgainWithHugePages(char**) {}
inline bool HeapHasHugePages() { return false; }
inline void KeepFreedBlocksInHeap() {}
#endif

}  // namespace mbstep::tools
