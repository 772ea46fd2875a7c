// mbstep — the MPI transport of `mbstep study` as a module of its own (study_mpi.cpp): the
// executable does not link the MPI library (Open MPI and its dependencies cost about 1 ms of
// dynamic loading per process, every run paid it); `mbstep study` loads mbstep-mpi.so from the
// plugin folders when the process was started by an MPI launcher.
#pragma once

#include <string>

namespace mbstep::study::mpi_module {

/// The module's functions (study_mpi_module.cpp); the C++ types cross the module boundary
/// because the module and the executable are built together by the same compiler.
struct Api {
    void (*init)(int* rank, int* size);
    void (*finalize)();
    /// MPI_Gather of the lengths then MPI_Gatherv of the texts to rank 0.
    std::string (*gather)(const std::string& mine, int rank, int size);
    /// MPI_Allreduce(MPI_MIN) of ok.
    bool (*all_ok)(bool ok);
};

using ApiFunction = const Api* (*)();
inline constexpr const char* kModuleFile = "mbstep-mpi.so";
inline constexpr const char* kApiSymbol = "mbstep_mpi_api";

}  // namespace mbstep::study::mpi_module
