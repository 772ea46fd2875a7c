// mbstep — `mbstep study` across MPI ranks (study_parts.hpp): rank r takes the jobs i with
// i % size == r and sends its outcomes, serialized as text with hexadecimal doubles
// (bit-exact), to rank 0. MPI is optional at build time (MBSTEP_WITH_MPI) and initialised only
// when the process was started by a launcher.
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "study_parts.hpp"

#ifdef MBSTEP_WITH_MPI
#include <mpi.h>
#endif

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
        MPI_Init(nullptr, nullptr);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        mpi = true;
    }
#endif
}

Ranks::~Ranks() {
#ifdef MBSTEP_WITH_MPI
    if (mpi) MPI_Finalize();
#endif
}

std::string Ranks::Gather(const std::string& mine) const {
    if (!mpi) return mine;
#ifdef MBSTEP_WITH_MPI
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(rank == 0 ? size : 0), displs(rank == 0 ? size : 0);
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank == 0) {
        int total = 0;
        for (int r = 0; r < size; ++r) {
            displs[r] = total;
            total += lens[r];
        }
        all.resize(total);
    }
    MPI_Gatherv(mine.data(), len, MPI_CHAR, rank == 0 ? all.data() : nullptr, lens.data(),
                displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    return all;
#else
    return mine;
#endif
}

bool Ranks::AllOk(bool ok) const {
#ifdef MBSTEP_WITH_MPI
    if (mpi) {
        int mine = ok ? 1 : 0, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        return all == 1;
    }
#endif
    return ok;
}

}  // namespace mbstep::study
