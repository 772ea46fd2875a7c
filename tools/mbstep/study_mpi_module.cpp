// mbstep — the MPI transport module mbstep-mpi.so (study_mpi_module.hpp): the MPI C API calls
// of `mbstep study` under a launcher.
#include "study_mpi_module.hpp"

#include <mpi.h>

#include <vector>

namespace {

void Init(int* rank, int* size) {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

void Finalize() { MPI_Finalize(); }

std::string Gather(const std::string& mine, int rank, int size) {
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
}

bool AllOk(bool ok) {
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

const mbstep::study::mpi_module::Api kApi{Init, Finalize, Gather, AllOk};

}  // namespace

extern "C" __attribute__((visibility("default"))) const mbstep::study::mpi_module::Api*
mbstep_mpi_api() {
    return &kApi;
}
