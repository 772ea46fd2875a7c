// mbstep — a mutation fuzzer for the deck reader (docs/DESIGN.md, "Reliability").
//
//   mbstep-deck-fuzz [--seed S] [--iterations N] [--seconds T] [--source DIR]
//                    [--crash-file PATH] [--replay FILE]
//
// Seeds: every examples/**/*.mbd of the source tree. Each mutant is one seed deck with 1 to 8
// edits drawn from a fixed-seed generator (std::mt19937_64; the same seed gives the same
// mutants): bit flips, random bytes, deletions and duplications of a span, splices of a span
// of another seed, and insertions of dictionary tokens (deck keywords, expression operators
// and functions, numbers at the limits of int and double, long operator chains, deep
// nesting, include lines naming devices, folders and the deck itself). Each mutant is read with
// ReadDeckText under the seed's own path (so `include:` resolves as for the real deck). The
// outcome must be a deck or a DeckError whose text is `file:line:column: message`; any
// other exception is a failure, and so is a crash: a signal handler (on its own stack, so
// a stack overflow reaches it) writes the mutant to --crash-file and exits. The run prints
// the number of mutants read, the number refused (DeckError) and the number of failures, and
// exits 1 on a failure. --replay reads one file as a deck the same way (to reproduce).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/common.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"

namespace fs = std::filesystem;
using namespace mbstep;

namespace {

// The mutant being read and where a crash writes it (set before the run: the signal handler
// may only call async-signal-safe functions).
std::string g_current;
char g_crash_path[4096] = "mbstep-fuzz-crash.mbd";
unsigned long long g_iteration = 0;

void WriteAll(int fd, const char* data, std::size_t n) {
    while (n > 0) {
        const ssize_t w = write(fd, data, n);
        if (w <= 0) return;
        data += w;
        n -= static_cast<std::size_t>(w);
    }
}

extern "C" void OnCrash(int sig) {
    static const char kMsg[] = "mbstep-deck-fuzz: CRASH (signal ";
    WriteAll(2, kMsg, sizeof kMsg - 1);
    char num[32];
    int len = 0;
    for (int v = sig; v > 0 && len < 30; v /= 10) num[len++] = static_cast<char>('0' + v % 10);
    std::reverse(num, num + len);
    WriteAll(2, num, static_cast<std::size_t>(len));
    static const char kSaved[] = "); the mutant is in ";
    WriteAll(2, kSaved, sizeof kSaved - 1);
    WriteAll(2, g_crash_path, std::strlen(g_crash_path));
    WriteAll(2, "\n", 1);
    const int fd = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        WriteAll(fd, g_current.data(), g_current.size());
        close(fd);
    }
    _exit(2);
}

void InstallCrashHandler() {
    static std::vector<char> alt(1 << 16);
    stack_t ss{};
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_handler = OnCrash;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

std::string Slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

struct Seed {
    std::string path;
    std::string text;
};

/// Tokens spliced into decks: what the reader parses, at and past its limits.
std::vector<std::string> Dictionary(const std::string& self) {
    std::vector<std::string> d = {"begin: data;",
                                  "end: data;",
                                  "begin: initial value;",
                                  "end: initial value;",
                                  "begin: control data;",
                                  "end: control data;",
                                  "begin: nodes;",
                                  "end: nodes;",
                                  "begin: elements;",
                                  "end: elements;",
                                  "problem: initial value;",
                                  "initial time: ",
                                  "final time: ",
                                  "time step: ",
                                  "method: ",
                                  "ms, 0.6",
                                  "bdf, order, ",
                                  "hht, ",
                                  "tolerance: ",
                                  "max iterations: ",
                                  "derivatives max iterations: ",
                                  "nonlinear solver: newton raphson, modified, ",
                                  "linear solver: klu, mt, ",
                                  "strategy: factor, 0.5, ",
                                  "output frequency: ",
                                  "output precision: ",
                                  "structural nodes: ",
                                  "rigid bodies: ",
                                  "joints: ",
                                  "forces: ",
                                  "beams: ",
                                  "gravity;",
                                  "structural: ",
                                  "dynamic",
                                  "static",
                                  "dummy",
                                  "body: ",
                                  "joint: ",
                                  "force: ",
                                  "couple: ",
                                  "beam3: ",
                                  "gravity: uniform, ",
                                  "drive caller: ",
                                  "constitutive law: ",
                                  "reference: ",
                                  "reference, global, ",
                                  "reference, node, ",
                                  "reference, other node, ",
                                  "revolute hinge",
                                  "spherical hinge",
                                  "clamp",
                                  "total joint",
                                  "in line",
                                  "rod",
                                  "deformable hinge",
                                  "condense, ",
                                  "piecewise linear, ",
                                  "array, ",
                                  "string, \"",
                                  "sine, ",
                                  "cosine, ",
                                  "const, ",
                                  "ramp, ",
                                  "linear elastic generic, ",
                                  "diag, ",
                                  "sym, ",
                                  "matr, ",
                                  "eye",
                                  "null",
                                  "euler123, ",
                                  "set: real x = ",
                                  "set: integer i = ",
                                  "set: string s = ",
                                  "ifndef ",
                                  "const ",
                                  "remark: ",
                                  "include: \"",
                                  "\";",
                                  "include: \"/dev/zero\";",
                                  "include: \"/dev/null\";",
                                  "include: \"/tmp\";",
                                  "include: \"/\";",
                                  "include: \"" + self + "\";",
                                  "include: \"no/such/file.mbd\";",
                                  ",",
                                  ";",
                                  ":",
                                  "(",
                                  ")",
                                  "\"",
                                  "#",
                                  "/*",
                                  "*/",
                                  "#beginescape",
                                  "#endescape",
                                  "\\",
                                  "+",
                                  "-",
                                  "*",
                                  "/",
                                  "^",
                                  "<",
                                  "<=",
                                  "==",
                                  "!=",
                                  "&&",
                                  "||",
                                  "~|",
                                  "!",
                                  "=",
                                  "::",
                                  "default::",
                                  "Time",
                                  "pi",
                                  "INT_MAX",
                                  "INT_MIN",
                                  "REAL_MAX",
                                  "REAL_MIN",
                                  "sqrt(",
                                  "log(",
                                  "atan2(",
                                  "pow(",
                                  "in_el(",
                                  "integer(",
                                  "string(",
                                  "0",
                                  "1",
                                  "-1",
                                  "0.",
                                  "1e-300",
                                  "1e308",
                                  "1e309",
                                  "-1e309",
                                  "2147483647",
                                  "2147483648",
                                  "-2147483649",
                                  "4294967297",
                                  "9007199254740993",
                                  "18446744073709551617",
                                  "0/0",
                                  "1/0",
                                  "1/0.",
                                  "0./0.",
                                  "nan",
                                  "inf",
                                  "\n",
                                  " ",
                                  "\t"};
    std::string chain = "1";
    for (int i = 0; i < 40000; ++i) chain += "+1";
    d.push_back(chain);
    d.push_back(std::string(300, '(') + "1" + std::string(300, ')'));
    d.push_back(std::string(300, '-') + "1");
    d.push_back("2^" + std::string(300, '2'));
    return d;
}

class Mutator {
  public:
    Mutator(std::uint64_t seed, const std::vector<Seed>& seeds)
        : rng_(seed), seeds_(seeds), dict_(Dictionary(seeds.front().path)) {}

    /// A mutant of seed k.
    std::string Mutate(std::size_t k) {
        std::string s = seeds_[k].text;
        const int edits = 1 + static_cast<int>(rng_() % 8);
        for (int e = 0; e < edits; ++e) Edit(s);
        return s;
    }
    std::size_t PickSeed() { return rng_() % seeds_.size(); }

  private:
    std::size_t At(const std::string& s) { return s.empty() ? 0 : rng_() % (s.size() + 1); }
    std::size_t Span() { return 1 + rng_() % (rng_() % 4 == 0 ? 200 : 12); }

    void Edit(std::string& s) {
        switch (rng_() % 8) {
            case 0:  // bit flip
                if (!s.empty()) s[rng_() % s.size()] ^= static_cast<char>(1u << (rng_() % 8));
                break;
            case 1:  // random byte (printable or not)
                if (!s.empty()) s[rng_() % s.size()] = static_cast<char>(rng_() % 256);
                break;
            case 2: {  // delete a span
                const std::size_t at = At(s);
                s.erase(at, std::min(Span(), s.size() - at));
                break;
            }
            case 3: {  // duplicate a span
                const std::size_t at = At(s);
                const std::string piece = s.substr(at, Span());
                s.insert(At(s), piece);
                break;
            }
            case 4: {  // splice a span of another seed
                const std::string& other = seeds_[rng_() % seeds_.size()].text;
                const std::size_t from = At(other);
                s.insert(At(s), other.substr(from, Span()));
                break;
            }
            default: {  // a dictionary token (the most useful edit: three of eight)
                const std::string& tok = dict_[rng_() % dict_.size()];
                const std::size_t at = At(s);
                if (rng_() % 2)
                    s.insert(at, tok);
                else
                    s.replace(at, std::min(Span(), s.size() - at), tok);
                break;
            }
        }
        if (s.size() > (4u << 20)) s.resize(4u << 20);  // keep mutants small
    }

    std::mt19937_64 rng_;
    const std::vector<Seed>& seeds_;
    std::vector<std::string> dict_;
};

enum class Outcome { kRead, kRefused, kFailed };

/// Reads text as the deck `name`; a DeckError is a refusal, anything else a failure.
Outcome Try(const std::string& text, const std::string& name, const Registry& registry,
            std::string* failure) {
    g_current = text;
    try {
        ReadDeckText(text, name, registry);
        return Outcome::kRead;
    } catch (const DeckError& e) {
        const std::string what = e.what();
        // The contract: `file:line:column: message` (the root deck or an include).
        if (what.find(':') == std::string::npos || e.message().empty()) {
            *failure = "DeckError without a location: " + what;
            return Outcome::kFailed;
        }
        return Outcome::kRefused;
    } catch (const std::exception& e) {
        *failure = std::string("unexpected exception: ") + e.what();
    } catch (...) {
        *failure = "unexpected non-standard exception";
    }
    return Outcome::kFailed;
}

std::vector<Seed> LoadSeeds(const fs::path& source) {
    std::vector<Seed> seeds;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(source / "examples", ec), end; it != end && !ec;
         it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".mbd")
            seeds.push_back(Seed{it->path().string(), Slurp(it->path())});
    std::sort(seeds.begin(), seeds.end(),
              [](const Seed& a, const Seed& b) { return a.path < b.path; });
    return seeds;
}

int Usage() {
    std::cerr << "usage: mbstep-deck-fuzz [--seed S] [--iterations N] [--seconds T] "
                 "[--source DIR] [--crash-file PATH] [--replay FILE]\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::uint64_t seed = 1;
    unsigned long long iterations = 20000;
    double seconds = 0.0;  // 0: no time limit
    std::string source = MBSTEP_SOURCE_DIR, replay;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--seed")
            seed = std::stoull(value());
        else if (a == "--iterations")
            iterations = std::stoull(value());
        else if (a == "--seconds")
            seconds = std::stod(value());
        else if (a == "--source")
            source = value();
        else if (a == "--crash-file")
            std::snprintf(g_crash_path, sizeof g_crash_path, "%s", value().c_str());
        else if (a == "--replay")
            replay = value();
        else
            return Usage();
    }
    InstallCrashHandler();
    const Registry& registry = GlobalRegistry();
    if (!replay.empty()) {
        std::string failure;
        const Outcome o = Try(Slurp(replay), replay, registry, &failure);
        std::cout << (o == Outcome::kRead      ? "read"
                      : o == Outcome::kRefused ? "refused (DeckError)"
                                               : "FAILED: " + failure)
                  << "\n";
        return o == Outcome::kFailed ? 1 : 0;
    }
    const std::vector<Seed> seeds = LoadSeeds(source);
    if (seeds.empty()) {
        std::cerr << "mbstep-deck-fuzz: no examples/**/*.mbd under " << source << "\n";
        return 2;
    }
    Mutator mutator(seed, seeds);
    const auto start = std::chrono::steady_clock::now();
    unsigned long long read = 0, refused = 0, failed = 0, tried = 0;
    for (; tried < iterations; ++tried) {
        if (seconds > 0.0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
                seconds)
            break;
        g_iteration = tried;
        const std::size_t k = mutator.PickSeed();
        const std::string text = mutator.Mutate(k);
        std::string failure;
        const Outcome o = Try(text, seeds[k].path, registry, &failure);
        read += o == Outcome::kRead;
        refused += o == Outcome::kRefused;
        if (o == Outcome::kFailed) {
            ++failed;
            std::ofstream(g_crash_path, std::ios::binary) << text;
            std::cerr << "mbstep-deck-fuzz: mutant " << tried << " of " << seeds[k].path
                      << " (seed " << seed << "): " << failure << "; saved to " << g_crash_path
                      << "\n";
            break;
        }
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "mbstep-deck-fuzz: seed " << seed << ", " << seeds.size() << " seed decks, "
              << tried + (failed ? 1 : 0) << " mutants in " << elapsed << " s: " << read
              << " read, " << refused << " refused with file:line:column, " << failed
              << " failures\n";
    return failed ? 1 : 0;
}
