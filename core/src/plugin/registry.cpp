// mbstep — registry and plugin loader (STYLE.md §7).
#include "mbstep/plugin/registry.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "mbstep/common.hpp"

namespace mbstep {

namespace {
// The C locale's isspace and tolower, inline: names are compared for every statement of a
// deck (a libc call per character was 4 % of reading a 10 000-body deck).
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

std::string Registry::Normalize(const std::string& name) {
    std::string out;
    bool space = false;
    for (char c : name) {
        if (IsSpace(c)) {
            space = !out.empty();
            continue;
        }
        if (space) out.push_back(' ');
        space = false;
        out.push_back(Lower(c));
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
    if (d.tunable && (d.parameters.empty() || d.parameters[0].name != "rho_inf"))
        throw RunError("integrator '" + d.name + "' (" + current_library_ +
                       ") is declared tunable, but its first parameter is not rho_inf");
    AddChecked(integrators_, std::move(d), current_library_, "integrator");
}
void Registry::Add(FormulationDescriptor d) {
    AddChecked(formulations_, std::move(d), current_library_, "formulation");
}

void Registry::Merge(Registry&& other) {
    for (ElementDescriptor& d : other.elements_) {
        const std::string lib = d.library, prefix = d.statement + ": ";
        AddChecked(elements_, std::move(d), lib, "element", prefix);
    }
    for (DriveDescriptor& d : other.drives_) {
        const std::string lib = d.library;
        AddChecked(drives_, std::move(d), lib, "drive");
    }
    for (ConstitutiveLawDescriptor& d : other.laws_) {
        const std::string lib = d.library;
        AddChecked(laws_, std::move(d), lib, "constitutive law");
    }
    for (IntegratorDescriptor& d : other.integrators_) {
        const std::string lib = d.library;
        AddChecked(integrators_, std::move(d), lib, "integrator");
    }
    for (FormulationDescriptor& d : other.formulations_) {
        const std::string lib = d.library;
        AddChecked(formulations_, std::move(d), lib, "formulation");
    }
    other = Registry{};
}

std::vector<std::string> Registry::Keys() const {
    std::vector<std::string> keys;
    for (const ElementDescriptor& d : elements_)
        keys.push_back("element '" + Normalize(d.statement) +
                       (d.name.empty() ? "" : ": " + Normalize(d.name)) + "'");
    for (const DriveDescriptor& d : drives_) keys.push_back("drive '" + Normalize(d.name) + "'");
    for (const ConstitutiveLawDescriptor& d : laws_)
        keys.push_back("constitutive law '" + Normalize(d.name) + "'");
    for (const IntegratorDescriptor& d : integrators_)
        keys.push_back("integrator '" + Normalize(d.name) + "'");
    for (const FormulationDescriptor& d : formulations_)
        keys.push_back("formulation '" + Normalize(d.name) + "'");
    std::sort(keys.begin(), keys.end());
    return keys;
}

namespace {
// Normalize(raw) == normalized, without building Normalize(raw) (the deck reader looks an
// element up for every statement).
bool NormalizesTo(const std::string& raw, const std::string& normalized) {
    std::size_t k = 0;
    bool space = false, started = false;
    for (char c : raw) {
        if (IsSpace(c)) {
            space = started;
            continue;
        }
        if (space) {
            if (k >= normalized.size() || normalized[k] != ' ') return false;
            ++k;
        }
        space = false, started = true;
        if (k >= normalized.size() || normalized[k] != Lower(c)) return false;
        ++k;
    }
    return k == normalized.size();
}

template <class D>
const D* FindIn(const std::vector<D>& list, const std::string& name) {
    const std::string key = Registry::Normalize(name);
    for (const D& d : list)
        if (NormalizesTo(d.name, key)) return &d;
    return nullptr;
}
}  // namespace

const ElementDescriptor* Registry::FindElement(const std::string& statement,
                                               const std::string& name) const {
    const std::string s = Normalize(statement), n = Normalize(name);
    for (const ElementDescriptor& d : elements_)
        if (NormalizesTo(d.statement, s) && NormalizesTo(d.name, n)) return &d;
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

/// The entries of MBSTEP_PLUGIN_PATH, in order.
std::vector<std::string> EnvironmentEntries() {
    std::vector<std::string> entries;
    if (const char* env = std::getenv("MBSTEP_PLUGIN_PATH")) {
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ':'))
            if (!item.empty()) entries.push_back(item);
    }
    return entries;
}

/// An entry of MBSTEP_PLUGIN_PATH that names a plugin file rather than a folder.
bool IsExplicitPlugin(const std::string& entry) {
    std::error_code ec;
    return !std::filesystem::is_directory(entry, ec) &&
           std::filesystem::path(entry).extension() == ".so";
}

/// dlopen + dlsym + mbstep_register into `registry`. Returns false with the loader's error
/// in *error when the file is not a loadable mbstep plugin (dlopen fails, the entry point is
/// missing, or the plugin refuses this ABI); exceptions of the registration propagate.
bool TryLoadPlugin(Registry& registry, const std::string& path, std::string* error) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* err = dlerror();
        *error = "cannot load plugin " + path + ": " + (err ? err : "unknown error");
        return false;
    }
    using Entry = int (*)(Registry&, int);
    dlerror();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "mbstep_register"));
    if (!entry) {
        const char* err = dlerror();
        *error = "plugin " + path +
                 " has no mbstep_register entry point: " + (err ? err : "symbol not found");
        return false;
    }
    registry.set_current_library(std::filesystem::path(path).filename().string());
    const int rc = entry(registry, kPluginAbi);
    registry.set_current_library({});
    if (rc != 0) {
        *error = "plugin " + path + " refused to register (ABI " + std::to_string(kPluginAbi) +
                 ", code " + std::to_string(rc) + ")";
        return false;
    }
    // Handles stay open for the life of the process: descriptors hold code of the library.
    return true;
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
    for (const std::string& item : EnvironmentEntries()) add(item);
    return dirs;
}

void LoadPlugin(Registry& registry, const std::string& path) {
    std::string error;
    if (!TryLoadPlugin(registry, path, &error)) throw RunError(error);
}

void LoadPlugins(Registry& registry) {
    struct Loaded {
        std::string path;
        std::string file;  // name without folder
        dev_t device;
        ino_t inode;
        std::vector<std::string> keys;
    };
    std::vector<Loaded> loaded;
    std::map<std::string, std::string> owner;  // key -> path of the plugin that registered it
    // Loads `path` unless it is a plugin already loaded; `explicit_request`: failures throw.
    auto load = [&](const std::string& path, bool explicit_request) {
        auto skip = [&](const std::string& why) {
            if (explicit_request) throw RunError(why);
            registry.AddLoadWarning("plugin " + path + " skipped: " + why);
        };
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) {
            if (explicit_request) {  // dlopen's own message for a missing file
                LoadPlugin(registry, path);
                return;
            }
            return skip(std::string("cannot read it: ") + std::strerror(errno));
        }
        if (!S_ISREG(st.st_mode)) return skip("not a regular file");
        for (const Loaded& l : loaded)
            if (l.device == st.st_dev && l.inode == st.st_ino) {
                registry.AddLoadWarning("plugin " + path + " is the same file as " + l.path +
                                        ": loaded once");
                return;
            }
        Registry scratch;
        std::string error;
        if (!TryLoadPlugin(scratch, path, &error)) {
            if (explicit_request) throw RunError(error);
            return skip("not an mbstep plugin: " + error);
        }
        const std::string file = std::filesystem::path(path).filename().string();
        std::vector<std::string> keys = scratch.Keys();
        for (const Loaded& l : loaded)
            if (l.file == file && l.keys == keys) {
                registry.AddLoadWarning("plugin " + path + " is the same plugin as " + l.path +
                                        " (same file name, same registered names): loaded once");
                return;
            }
        for (const std::string& k : keys) {
            auto it = owner.find(k);
            if (it != owner.end())
                throw RunError("two different plugins register " + k + ": " + it->second + " and " +
                               path + " (remove one from the plugin folders)");
        }
        registry.Merge(std::move(scratch));
        for (const std::string& k : keys) owner[k] = path;
        loaded.push_back(Loaded{path, file, st.st_dev, st.st_ino, std::move(keys)});
    };
    for (const std::string& dir : PluginSearchPath()) {
        std::vector<std::string> files;
        std::error_code ec;
        std::filesystem::directory_iterator it(dir, ec), end;
        if (ec) {
            registry.AddLoadWarning("plugin folder " + dir + " skipped: " + ec.message());
            continue;
        }
        for (; it != end; it.increment(ec)) {
            const auto& p = it->path();
            if (p.extension() == ".so" && p.filename().string().rfind("lib", 0) == 0)
                files.push_back(p.string());
        }
        if (ec) registry.AddLoadWarning("plugin folder " + dir + ": " + ec.message());
        std::sort(files.begin(), files.end());
        for (const std::string& f : files) load(f, false);
    }
    for (const std::string& entry : EnvironmentEntries())
        if (IsExplicitPlugin(entry)) load(entry, true);
}

Registry& GlobalRegistry() {
    static Registry registry;
    static std::once_flag once;
    std::call_once(once, [] {
        LoadPlugins(registry);
        for (const std::string& w : registry.load_warnings())
            std::cerr << "mbstep: warning: " << w << "\n";
    });
    return registry;
}

}  // namespace mbstep
