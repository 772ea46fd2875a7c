// mbstep — `mbstep study` across MPI ranks (study_parts.hpp): rank r takes the jobs i with
// i % size == r and sends its outcomes, serialized as text with hexadecimal doubles
// (bit-exact), to rank 0. MPI is optional at build time (MBSTEP_WITH_MPI), lives in the module
// mbstep-mpi.so (study_mpi_module.hpp), and is loaded and initialised only when the process was
// started by a launcher.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "mbstep/plugin/registry.hpp"
#include "study_mpi_module.hpp"
#include "study_parts.hpp"

namespace mbstep::study {

namespace {

std::string Hex(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
}

#ifdef MBSTEP_WITH_MPI
bool UnderMpiLauncher() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(v)) return true;
    return false;
}

/// The MPI module's functions, from the first plugin folder that holds it. RTLD_GLOBAL: Open
/// MPI's own components, which it loads with dlopen, resolve the MPI library's symbols.
const mpi_module::Api* LoadMpi() {
    std::string tried;
    for (const std::string& dir : PluginSearchPath()) {
        const std::string file = dir + "/" + mpi_module::kModuleFile;
        tried += (tried.empty() ? "" : ", ") + file;
        if (::access(file.c_str(), F_OK) != 0) continue;
        void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (!handle) {
            const char* why = dlerror();
            throw StudyError(std::string("the MPI module cannot be loaded: ") + (why ? why : file));
        }
        const auto api =
            reinterpret_cast<mpi_module::ApiFunction>(dlsym(handle, mpi_module::kApiSymbol));
        if (!api) throw StudyError(file + ": no " + mpi_module::kApiSymbol);
        return api();
    }
    throw StudyError(std::string("started by an MPI launcher, but the MPI module ") +
                     mpi_module::kModuleFile + " is not in the plugin folders (" + tried + ")");
}

const mpi_module::Api* g_mpi = nullptr;
#endif

}  // namespace

std::string Serialize(int index, const Outcome& o) {
    std::ostringstream os;
    os << index << '\t' << o.ok << '\t' << o.steps << '\t' << o.iterations << '\t'
       << o.factorizations << '\t' << Hex(o.cpu_seconds) << '\t' << o.nodes.size() << '\t';
    for (const auto& n : o.nodes) {
        os << n.label;
        for (double c : n.x) os << ' ' << Hex(c);
        for (double c : n.v) os << ' ' << Hex(c);
        for (double c : n.R) os << ' ' << Hex(c);
        for (double c : n.w) os << ' ' << Hex(c);
        os << ' ';
    }
    os << '\t' << o.message << '\n';
    return os.str();
}

void Deserialize(const std::string& text, std::vector<Outcome>& out) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::vector<std::string> f;
        size_t p = 0;
        for (int k = 0; k < 8; ++k) {
            const size_t q = line.find('\t', p);
            if (q == std::string::npos) throw StudyError("corrupt result line from a rank");
            f.push_back(line.substr(p, q - p));
            p = q + 1;
        }
        const size_t index = std::stoul(f[0]);
        if (index >= out.size()) throw StudyError("result for an unknown run from a rank");
        Outcome& o = out[index];
        o.ok = f[1] == "1";
        o.steps = std::stoi(f[2]);
        o.iterations = std::stol(f[3]);
        o.factorizations = std::stol(f[4]);
        o.cpu_seconds = std::strtod(f[5].c_str(), nullptr);
        o.nodes.resize(std::stoul(f[6]));
        std::istringstream ns(f[7]);
        for (auto& n : o.nodes) {
            std::string tok;
            ns >> n.label;
            for (double* part : {n.x, n.v, n.R, n.w})
                for (int k = 0; k < (part == n.R ? 9 : 3); ++k) {
                    ns >> tok;
                    part[k] = std::strtod(tok.c_str(), nullptr);
                }
        }
        o.message = line.substr(p);
    }
}

Ranks::Ranks() {
#ifdef MBSTEP_WITH_MPI
    if (UnderMpiLauncher()) {
        g_mpi = LoadMpi();
        g_mpi->init(&rank, &size);
        mpi = true;
    }
#endif
}

Ranks::~Ranks() {
#ifdef MBSTEP_WITH_MPI
    if (mpi) g_mpi->finalize();
#endif
}

std::string Ranks::Gather(const std::string& mine) const {
#ifdef MBSTEP_WITH_MPI
    if (mpi) return g_mpi->gather(mine, rank, size);
#endif
    return mine;
}

bool Ranks::AllOk(bool ok) const {
#ifdef MBSTEP_WITH_MPI
    if (mpi) return g_mpi->all_ok(ok);
#endif
    return ok;
}

}  // namespace mbstep::study
