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
#include <fstream>
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

/// Opening a pending plugin changes the registry; lookups and listings take this lock (a
/// registry may be read from several threads, e.g. a study's runs).
std::recursive_mutex& LoadMutex() {
    static std::recursive_mutex mutex;
    return mutex;
}
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
void AddChecked(std::deque<D>& list, D d, const std::string& lib, const std::string& kind,
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
    names_.clear();
    if (d.statement.empty())
        throw RunError("plugin " + current_library_ + ": element without statement");
    std::string prefix = d.statement + ": ";
    AddChecked(elements_, std::move(d), current_library_, "element", prefix);
}
void Registry::Add(DriveDescriptor d) {
    names_.clear();
    AddChecked(drives_, std::move(d), current_library_, "drive");
}
void Registry::Add(ConstitutiveLawDescriptor d) {
    names_.clear();
    AddChecked(laws_, std::move(d), current_library_, "constitutive law");
}
void Registry::Add(IntegratorDescriptor d) {
    names_.clear();
    if (d.tunable && (d.parameters.empty() || d.parameters[0].name != "rho_inf"))
        throw RunError("integrator '" + d.name + "' (" + current_library_ +
                       ") is declared tunable, but its first parameter is not rho_inf");
    AddChecked(integrators_, std::move(d), current_library_, "integrator");
}
void Registry::Add(FormulationDescriptor d) {
    names_.clear();
    AddChecked(formulations_, std::move(d), current_library_, "formulation");
}

void Registry::Merge(Registry&& other) {
    names_.clear();
    if (!pending_keys_.empty())
        for (const RegisteredName& n : other.LoadedNames()) {
            const std::string key = Key(n);
            if (pending_keys_.count(key))
                for (const Pending& p : pending_)
                    if (p.key == key)
                        throw RunError("duplicate " + key + " registered by " + n.library +
                                       "; already registered by " + p.name.library);
        }
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
    for (std::string& lib : other.loaded_libraries_) loaded_libraries_.push_back(std::move(lib));
    other = Registry{};
}

std::vector<RegisteredName> Registry::LoadedNames() const {
    std::vector<RegisteredName> names;
    for (const ElementDescriptor& d : elements_)
        names.push_back({PluginKind::kElement, d.statement, d.name, d.library});
    for (const DriveDescriptor& d : drives_)
        names.push_back({PluginKind::kDrive, {}, d.name, d.library});
    for (const ConstitutiveLawDescriptor& d : laws_)
        names.push_back({PluginKind::kConstitutiveLaw, {}, d.name, d.library});
    for (const IntegratorDescriptor& d : integrators_)
        names.push_back({PluginKind::kIntegrator, {}, d.name, d.library});
    for (const FormulationDescriptor& d : formulations_)
        names.push_back({PluginKind::kFormulation, {}, d.name, d.library});
    return names;
}

std::string Registry::Key(const RegisteredName& n) {
    switch (n.kind) {
        case PluginKind::kElement:
            return "element '" + Normalize(n.statement) +
                   (n.name.empty() ? "" : ": " + Normalize(n.name)) + "'";
        case PluginKind::kDrive:
            return "drive '" + Normalize(n.name) + "'";
        case PluginKind::kConstitutiveLaw:
            return "constitutive law '" + Normalize(n.name) + "'";
        case PluginKind::kIntegrator:
            return "integrator '" + Normalize(n.name) + "'";
        case PluginKind::kFormulation:
            return "formulation '" + Normalize(n.name) + "'";
    }
    return {};
}

std::vector<std::string> Registry::Keys() const {
    std::vector<std::string> keys;
    for (const RegisteredName& n : LoadedNames()) keys.push_back(Key(n));
    for (const Pending& p : pending_) keys.push_back(p.key);
    std::sort(keys.begin(), keys.end());
    return keys;
}

const std::vector<RegisteredName>& Registry::Names(PluginKind kind) const {
    std::lock_guard<std::recursive_mutex> lock(LoadMutex());
    auto it = names_.find(kind);
    if (it != names_.end()) return it->second;
    std::vector<RegisteredName>& names = names_[kind];
    for (RegisteredName& n : LoadedNames())
        if (n.kind == kind) names.push_back(std::move(n));
    for (const Pending& p : pending_)
        if (p.name.kind == kind) names.push_back(p.name);
    return names;
}

void Registry::AddPending(const std::string& path, const std::vector<RegisteredName>& names) {
    names_.clear();
    const std::string file = std::filesystem::path(path).filename().string();
    std::vector<std::string> keys;
    std::set<std::string> loaded;
    for (const RegisteredName& n : LoadedNames()) loaded.insert(Key(n));
    for (const RegisteredName& n : names) {
        if (n.name.empty() && n.kind != PluginKind::kElement)
            throw RunError("plugin " + file + ": a name of the plugin index is empty");
        keys.push_back(Key(n));
        if (pending_keys_.count(keys.back()) || loaded.count(keys.back()))
            throw RunError("duplicate " + keys.back() + " registered by " + file);
    }
    for (std::size_t k = 0; k < names.size(); ++k) {
        RegisteredName n = names[k];
        n.library = file;
        pending_keys_.insert(keys[k]);
        pending_.push_back(Pending{std::move(n), path, std::move(keys[k])});
    }
    if (!names.empty()) pending_paths_.push_back(path);
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
const D* FindIn(const std::deque<D>& list, const std::string& key) {
    for (const D& d : list)
        if (NormalizesTo(d.name, key)) return &d;
    return nullptr;
}

bool TryLoadPlugin(Registry& registry, const std::string& path, std::string* error);
}  // namespace

bool Registry::LoadPendingFor(PluginKind kind, const std::string& statement,
                              const std::string& name) const {
    const std::string s = Normalize(statement), n = Normalize(name);
    for (const Pending& p : pending_)
        if (p.name.kind == kind && NormalizesTo(p.name.name, n) &&
            (kind != PluginKind::kElement || NormalizesTo(p.name.statement, s))) {
            LoadPending(std::string(p.path));
            return true;
        }
    return false;
}

void Registry::LoadAllPending() const {
    while (!pending_paths_.empty()) LoadPending(std::string(pending_paths_.front()));
}

void Registry::LoadPending(const std::string& path) const {
    std::vector<std::string> listed;
    for (const Pending& p : pending_)
        if (p.path == path) {
            listed.push_back(p.key);
            pending_keys_.erase(p.key);
        }
    std::sort(listed.begin(), listed.end());
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                  [&](const Pending& p) { return p.path == path; }),
                   pending_.end());
    pending_paths_.erase(std::remove(pending_paths_.begin(), pending_paths_.end(), path),
                         pending_paths_.end());
    const std::string folder = std::filesystem::path(path).parent_path().string();
    const std::string rewrite = "; rewrite the folder's index with `mbstep plugins --write-index " +
                                folder + "` or remove " + folder + "/" + kPluginIndexFile;
    Registry scratch;
    std::string error;
    if (!TryLoadPlugin(scratch, path, &error))
        throw RunError(error + " (the plugin index lists it" + rewrite + ")");
    if (scratch.Keys() != listed)
        throw RunError("plugin " + path +
                       " registers other names than the plugin index of its folder lists" +
                       rewrite);
    // The registry is logically unchanged (the names were there, pending): the cache fill
    // of a const lookup.
    auto names = std::move(names_);  // the same names, now loaded: Names() stays valid
    const_cast<Registry*>(this)->Merge(std::move(scratch));
    names_ = std::move(names);
}

const ElementDescriptor* Registry::FindElement(const std::string& statement,
                                               const std::string& name) const {
    std::lock_guard<std::recursive_mutex> lock(LoadMutex());
    const std::string s = Normalize(statement), n = Normalize(name);
    for (int pass = 0; pass < 2; ++pass) {
        for (const ElementDescriptor& d : elements_)
            if (NormalizesTo(d.statement, s) && NormalizesTo(d.name, n)) return &d;
        if (pass == 0 && !LoadPendingFor(PluginKind::kElement, statement, name)) break;
    }
    return nullptr;
}

namespace {
template <class D>
const D* FindOrLoad(const Registry& registry, const std::deque<D>& list, PluginKind kind,
                    const std::string& name,
                    bool (Registry::*load)(PluginKind, const std::string&, const std::string&)
                        const) {
    std::lock_guard<std::recursive_mutex> lock(LoadMutex());
    const std::string key = Registry::Normalize(name);
    if (const D* d = FindIn(list, key)) return d;
    if ((registry.*load)(kind, {}, name)) return FindIn(list, key);
    return nullptr;
}
}  // namespace

const DriveDescriptor* Registry::FindDrive(const std::string& name) const {
    return FindOrLoad(*this, drives_, PluginKind::kDrive, name, &Registry::LoadPendingFor);
}
const ConstitutiveLawDescriptor* Registry::FindConstitutiveLaw(const std::string& name) const {
    return FindOrLoad(*this, laws_, PluginKind::kConstitutiveLaw, name, &Registry::LoadPendingFor);
}
const IntegratorDescriptor* Registry::FindIntegrator(const std::string& name) const {
    return FindOrLoad(*this, integrators_, PluginKind::kIntegrator, name,
                      &Registry::LoadPendingFor);
}
const FormulationDescriptor* Registry::FindFormulation(const std::string& name) const {
    return FindOrLoad(*this, formulations_, PluginKind::kFormulation, name,
                      &Registry::LoadPendingFor);
}

const std::deque<ElementDescriptor>& Registry::elements() const {
    std::lock_guard<std::recursive_mutex> lock(LoadMutex());
    LoadAllPending();
    return elements_;
}
const std::deque<DriveDescriptor>& Registry::drives() const {
    std::lock_guard<std::recursive_mutex> lock(LoadMutex());
    LoadAllPending();
    return drives_;
}
const std::deque<ConstitutiveLawDescriptor>& Registry::constitutive_laws() const {
    std::lock_guard<std::recursive_mutex> lock(LoadMutex());
    LoadAllPending();
    return laws_;
}
const std::deque<IntegratorDescriptor>& Registry::integrators() const {
    std::lock_guard<std::recursive_mutex> lock(LoadMutex());
    LoadAllPending();
    return integrators_;
}
const std::deque<FormulationDescriptor>& Registry::formulations() const {
    std::lock_guard<std::recursive_mutex> lock(LoadMutex());
    LoadAllPending();
    return formulations_;
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

namespace {

const char* KindWord(PluginKind kind) {
    switch (kind) {
        case PluginKind::kElement:
            return "element";
        case PluginKind::kDrive:
            return "drive";
        case PluginKind::kConstitutiveLaw:
            return "constitutive law";
        case PluginKind::kIntegrator:
            return "integrator";
        case PluginKind::kFormulation:
            return "formulation";
    }
    return "";
}

std::string IndexHeader() { return "mbstep plugin index, ABI " + std::to_string(kPluginAbi); }

long long MtimeNs(const struct stat& st) {
    return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

/// One plugin file as a folder's index lists it.
struct IndexEntry {
    long long size{-1};
    long long mtime_ns{-1};
    std::vector<RegisteredName> names;
};

std::vector<std::string> SplitTabs(const std::string& line) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t tab = line.find('\t', start);
        fields.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
        if (tab == std::string::npos) return fields;
        start = tab + 1;
    }
}

/// The index of `dir` by file name; empty if the folder has none. A malformed index, or one
/// of another ABI, is ignored (every plugin of the folder is then opened) with a warning.
std::map<std::string, IndexEntry> ReadPluginIndex(const std::string& dir, Registry& registry) {
    std::map<std::string, IndexEntry> index;
    const std::string path = dir + "/" + kPluginIndexFile;
    std::ifstream in(path);
    if (!in) return index;
    std::string line;
    auto ignore = [&](int line_no, const std::string& why) {
        registry.AddLoadWarning("plugin index " + path + " ignored (line " +
                                std::to_string(line_no) + ": " + why +
                                "); rewrite it with `mbstep plugins --write-index " + dir + "`");
        return std::map<std::string, IndexEntry>{};
    };
    if (!std::getline(in, line) || line != IndexHeader())
        return ignore(1, "not '" + IndexHeader() + "'");
    IndexEntry* entry = nullptr;
    std::string file;
    for (int line_no = 2; std::getline(in, line); ++line_no) {
        const std::vector<std::string> f = SplitTabs(line);
        if (f[0] == "plugin" && f.size() == 4) {
            file = f[1];
            entry = &index[file];
            try {
                entry->size = std::stoll(f[2]);
                entry->mtime_ns = std::stoll(f[3]);
            } catch (const std::exception&) {
                return ignore(line_no, "size or time is not a number");
            }
        } else if (f[0] == "name" && f.size() == 4 && entry) {
            RegisteredName n;
            bool known = false;
            for (PluginKind k :
                 {PluginKind::kElement, PluginKind::kDrive, PluginKind::kConstitutiveLaw,
                  PluginKind::kIntegrator, PluginKind::kFormulation})
                if (f[1] == KindWord(k)) n.kind = k, known = true;
            if (!known) return ignore(line_no, "unknown kind '" + f[1] + "'");
            n.statement = f[2];
            n.name = f[3];
            n.library = file;
            entry->names.push_back(std::move(n));
        } else {
            return ignore(line_no, "expected 'plugin' or 'name' and three tab-separated fields");
        }
    }
    return index;
}

}  // namespace

void WritePluginIndex(const std::string& folder, std::vector<std::string>* skipped) {
    std::vector<std::string> files;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end;
         it.increment(ec)) {
        const auto& p = it->path();
        if (p.extension() == ".so" && p.filename().string().rfind("lib", 0) == 0)
            files.push_back(p.string());
    }
    if (ec) throw RunError("cannot list plugin folder " + folder + ": " + ec.message());
    std::sort(files.begin(), files.end());
    std::ostringstream out;
    out << IndexHeader() << "\n";
    for (const std::string& path : files) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
            skipped->push_back(path + ": not a readable regular file");
            continue;
        }
        Registry scratch;
        std::string error;
        try {
            if (!TryLoadPlugin(scratch, path, &error)) {
                skipped->push_back(error);
                continue;
            }
        } catch (const std::exception& e) {
            skipped->push_back("plugin " + path + ": " + e.what());
            continue;
        }
        const std::vector<RegisteredName> names = scratch.LoadedNames();
        const bool plain = std::all_of(names.begin(), names.end(), [](const RegisteredName& n) {
            return (n.statement + n.name).find_first_of("\t\n\r") == std::string::npos;
        });
        if (!plain) {  // not representable: the plugin is then always opened
            skipped->push_back("plugin " + path + ": a registered name holds a tab or newline");
            continue;
        }
        out << "plugin\t" << std::filesystem::path(path).filename().string() << "\t" << st.st_size
            << "\t" << MtimeNs(st) << "\n";
        for (const RegisteredName& n : names)
            out << "name\t" << KindWord(n.kind) << "\t" << n.statement << "\t" << n.name << "\n";
    }
    const std::string target = folder + "/" + kPluginIndexFile;
    const std::string tmp = target + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << out.str();
        f.close();
        if (!f) throw RunError("cannot write " + tmp);
    }
    std::filesystem::rename(tmp, target, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw RunError("cannot write " + target + ": " + ec.message());
    }
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
    auto load = [&](const std::string& path, bool explicit_request, const IndexEntry* indexed) {
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
        // Listed in the folder's index with this size and time: its names, not its code.
        const bool pending = indexed && indexed->size == static_cast<long long>(st.st_size) &&
                             indexed->mtime_ns == MtimeNs(st);
        std::vector<std::string> keys;
        if (pending) {
            for (const RegisteredName& n : indexed->names) keys.push_back(Registry::Key(n));
            std::sort(keys.begin(), keys.end());
        } else {
            std::string error;
            if (!TryLoadPlugin(scratch, path, &error)) {
                if (explicit_request) throw RunError(error);
                return skip("not an mbstep plugin: " + error);
            }
            keys = scratch.Keys();
        }
        const std::string file = std::filesystem::path(path).filename().string();
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
        if (pending)
            registry.AddPending(path, indexed->names);
        else
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
        const std::map<std::string, IndexEntry> index = ReadPluginIndex(dir, registry);
        for (const std::string& f : files) {
            auto it = index.find(std::filesystem::path(f).filename().string());
            load(f, false, it == index.end() ? nullptr : &it->second);
        }
    }
    for (const std::string& entry : EnvironmentEntries())
        if (IsExplicitPlugin(entry)) load(entry, true, nullptr);
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
