// mbstep — registry and plugin loader (STYLE.md §7).
#include "mbstep/plugin/registry.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "mbstep/common.hpp"

namespace mbstep {

std::string Registry::Normalize(const std::string& name) {
    std::string out;
    bool space = false;
    for (char c : name) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            space = !out.empty();
            continue;
        }
        if (space) out.push_back(' ');
        space = false;
        out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return out;
}

namespace {

template <class D>
void AddChecked(std::vector<D>& list, D d, const std::string& lib, const std::string& kind,
                const std::string& key_prefix = {}) {
    if (d.name.empty() && key_prefix.empty())
        throw RunError("plugin " + lib + ": " + kind + " with an empty name");
    d.library = lib;
    for (const D& e : list) {
        if constexpr (std::is_same_v<D, ElementDescriptor>) {
            if (Registry::Normalize(e.statement) != Registry::Normalize(d.statement)) continue;
        }
        if (Registry::Normalize(e.name) == Registry::Normalize(d.name))
            throw RunError("duplicate " + kind + " '" + key_prefix + d.name + "' registered by " +
                           lib + "; already registered by " + e.library);
    }
    list.push_back(std::move(d));
}

}  // namespace

void Registry::Add(ElementDescriptor d) {
    if (d.statement.empty())
        throw RunError("plugin " + current_library_ + ": element without statement");
    std::string prefix = d.statement + ": ";
    AddChecked(elements_, std::move(d), current_library_, "element", prefix);
}
void Registry::Add(DriveDescriptor d) {
    AddChecked(drives_, std::move(d), current_library_, "drive");
}
void Registry::Add(ConstitutiveLawDescriptor d) {
    AddChecked(laws_, std::move(d), current_library_, "constitutive law");
}
void Registry::Add(IntegratorDescriptor d) {
    AddChecked(integrators_, std::move(d), current_library_, "integrator");
}
void Registry::Add(FormulationDescriptor d) {
    AddChecked(formulations_, std::move(d), current_library_, "formulation");
}

namespace {
template <class D>
const D* FindIn(const std::vector<D>& list, const std::string& name) {
    const std::string key = Registry::Normalize(name);
    for (const D& d : list)
        if (Registry::Normalize(d.name) == key) return &d;
    return nullptr;
}
}  // namespace

const ElementDescriptor* Registry::FindElement(const std::string& statement,
                                               const std::string& name) const {
    const std::string s = Normalize(statement), n = Normalize(name);
    for (const ElementDescriptor& d : elements_)
        if (Normalize(d.statement) == s && Normalize(d.name) == n) return &d;
    return nullptr;
}
const DriveDescriptor* Registry::FindDrive(const std::string& name) const {
    return FindIn(drives_, name);
}
const ConstitutiveLawDescriptor* Registry::FindConstitutiveLaw(const std::string& name) const {
    return FindIn(laws_, name);
}
const IntegratorDescriptor* Registry::FindIntegrator(const std::string& name) const {
    return FindIn(integrators_, name);
}
const FormulationDescriptor* Registry::FindFormulation(const std::string& name) const {
    return FindIn(formulations_, name);
}

// ---------------------------------------------------------------------------------------------
// Loader

namespace {

std::string SelfLibraryDir() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&SelfLibraryDir), &info) && info.dli_fname)
        return std::filesystem::path(info.dli_fname).parent_path().string();
    return {};
}

std::string ExecutableDir() {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string{} : p.parent_path().string();
}

}  // namespace

std::vector<std::string> PluginSearchPath() {
    std::vector<std::string> dirs;
    auto add = [&](const std::filesystem::path& p) {
        std::error_code ec;
        if (p.empty() || !std::filesystem::is_directory(p, ec)) return;
        std::string s = std::filesystem::weakly_canonical(p, ec).string();
        if (std::find(dirs.begin(), dirs.end(), s) == dirs.end()) dirs.push_back(s);
    };
    // Built-in: next to the core library (<prefix>/lib/mbstep), then <exe>/../lib/mbstep.
    const std::string lib = SelfLibraryDir();
    if (!lib.empty()) add(std::filesystem::path(lib) / "mbstep");
    const std::string exe = ExecutableDir();
    if (!exe.empty()) add(std::filesystem::path(exe) / ".." / "lib" / "mbstep");
#ifdef MBSTEP_INSTALL_PLUGIN_DIR
    if (dirs.empty()) add(MBSTEP_INSTALL_PLUGIN_DIR);
#endif
    if (const char* env = std::getenv("MBSTEP_PLUGIN_PATH")) {
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ':'))
            if (!item.empty()) add(item);
    }
    return dirs;
}

void LoadPlugin(Registry& registry, const std::string& path) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* err = dlerror();
        throw RunError("cannot load plugin " + path + ": " + (err ? err : "unknown error"));
    }
    using Entry = int (*)(Registry&, int);
    dlerror();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "mbstep_register"));
    if (!entry) {
        const char* err = dlerror();
        throw RunError("plugin " + path +
                       " has no mbstep_register entry point: " + (err ? err : "symbol not found"));
    }
    registry.set_current_library(std::filesystem::path(path).filename().string());
    const int rc = entry(registry, kPluginAbi);
    registry.set_current_library({});
    if (rc != 0)
        throw RunError("plugin " + path + " refused to register (ABI " +
                       std::to_string(kPluginAbi) + ", code " + std::to_string(rc) + ")");
    // Handles stay open for the life of the process: descriptors hold code of the library.
}

void LoadPlugins(Registry& registry) {
    for (const std::string& dir : PluginSearchPath()) {
        std::vector<std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            const auto& p = entry.path();
            if (p.extension() == ".so" && p.filename().string().rfind("lib", 0) == 0)
                files.push_back(p.string());
        }
        std::sort(files.begin(), files.end());
        for (const std::string& f : files) LoadPlugin(registry, f);
    }
}

Registry& GlobalRegistry() {
    static Registry registry;
    static std::once_flag once;
    std::call_once(once, [] { LoadPlugins(registry); });
    return registry;
}

}  // namespace mbstep
