// mbstep — the NetCDF writer's module interface (internal to the core and core/netcdf/).
// The writer that links Unidata's netCDF C library is a module of its own, mbstep-netcdf.so
// (core/netcdf/netcdf_module.cpp), which NetcdfWriter (io/netcdf.cpp) loads with dlopen the
// first time a run asks for a .nc: the library and its dependencies (HDF5, curl, TLS, ...)
// then cost a run without NetCDF output nothing at start-up.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mbstep/io/settings.hpp"
#include "mbstep/model/model.hpp"

namespace mbstep::netcdf_module {

/// One open .nc: NetcdfWriter's AddStep, Flush and buffered, as mbstep/io/netcdf.hpp says.
class Backend {
  public:
    virtual ~Backend() = default;
    virtual void AddStep(int step, double t, double dt, const std::vector<FrameState>& states,
                         const std::function<const double*(int)>& lambda, const Vec3& gravity) = 0;
    virtual void Flush() = 0;
    virtual size_t buffered() const = 0;
};

/// The module's entry point: creates `path` and defines its variables, appending their names
/// (after run.step, time, run.timestep) to *names. Throws RunError.
using CreateFunction = Backend* (*)(const std::string& path, const Model& model,
                                    const RunSettings& settings, std::vector<std::string>* names);
inline constexpr const char* kModuleFile = "mbstep-netcdf.so";
inline constexpr const char* kCreateSymbol = "mbstep_netcdf_create";

}  // namespace mbstep::netcdf_module
