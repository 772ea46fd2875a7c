// mbstep — a run in MBDyn's NetCDF layout (netcdf.hpp). Compiled with MBSTEP_HAVE_NETCDF when
// CMake found Unidata's netCDF C library (MBSTEP_WITH_NETCDF): the writer then loads the module
// mbstep-netcdf.so (netcdf_backend.hpp), which links the library, from the plugin folders when
// a run first asks for a .nc; without it the writer only refuses (the deck reader refuses
// `output results: netcdf;` before a run starts).
#include "mbstep/io/netcdf.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <memory>
#include <mutex>

#include "mbstep/common.hpp"
#include "mbstep/plugin/registry.hpp"
#include "netcdf_backend.hpp"

namespace mbstep {

bool NetcdfOutputAvailable() {
#ifdef MBSTEP_HAVE_NETCDF
    return true;
#else
    return false;
#endif
}

struct NetcdfWriter::Impl {
    std::unique_ptr<netcdf_module::Backend> backend;
};

#ifdef MBSTEP_HAVE_NETCDF
namespace {

/// The module's entry point, loaded once (dlopen; the module stays loaded).
netcdf_module::CreateFunction LoadModule(const std::string& path) {
    static std::mutex mutex;
    static netcdf_module::CreateFunction create = nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    if (create) return create;
    std::string tried, error;
    for (const std::string& dir : PluginSearchPath()) {
        const std::string file = dir + "/" + netcdf_module::kModuleFile;
        if (!tried.empty()) tried += ", ";
        tried += file;
        if (::access(file.c_str(), F_OK) != 0) continue;
        void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            error = why ? why : "dlopen failed";
            break;
        }
        create = reinterpret_cast<netcdf_module::CreateFunction>(
            dlsym(handle, netcdf_module::kCreateSymbol));
        if (!create) {
            error = file + ": no " + netcdf_module::kCreateSymbol;
            break;
        }
        return create;
    }
    throw RunError("cannot write " + path + ": " +
                   (error.empty() ? "the NetCDF module " + std::string(netcdf_module::kModuleFile) +
                                        " is not in the plugin folders (" + tried + ")"
                                  : "the NetCDF module cannot be loaded: " + error));
}

}  // namespace
#endif

NetcdfWriter::NetcdfWriter(const std::string& prefix, const Model& model,
                           const RunSettings& settings)
    : path_(prefix + ".nc"), impl_(std::make_unique<Impl>()) {
#ifdef MBSTEP_HAVE_NETCDF
    const netcdf_module::CreateFunction create = LoadModule(path_);
    impl_->backend.reset(create(path_, model, settings, &names_));
#else
    (void)model;
    (void)settings;
    throw RunError("cannot write " + path_ + ": mbstep was built without NetCDF");
#endif
}

NetcdfWriter::~NetcdfWriter() = default;

size_t NetcdfWriter::buffered() const { return impl_->backend ? impl_->backend->buffered() : 0; }

void NetcdfWriter::AddStep(int step, double t, double dt, const std::vector<FrameState>& states,
                           const std::function<const double*(int)>& lambda, const Vec3& gravity) {
    if (impl_->backend) impl_->backend->AddStep(step, t, dt, states, lambda, gravity);
}

void NetcdfWriter::Flush() {
    if (impl_->backend) impl_->backend->Flush();
}

}  // namespace mbstep
