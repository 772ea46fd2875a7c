// mbstep — the one registry of names (STYLE.md §1.4, §7). Plugins add descriptors from their
// `mbstep_register` entry point; the deck reader, `mbstep plugins`, the CLI and the tests all
// read it.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mbstep/model/constitutive_law.hpp"
#include "mbstep/model/drive.hpp"
#include "mbstep/model/element.hpp"

namespace mbstep {

class DeckInput;
class Integrator;
class Formulation;
class Model;

/// ABI version checked by the loader; bump when a descriptor or interface changes layout.
inline constexpr int kPluginAbi = 14;

/// Everything an element reader needs: the argument stream positioned after the element's
/// type keyword, its label, and the control data's `default orientation` (the orientation
/// description of an element that writes a relative orientation and names none, as MBDyn's
/// ReadOptionalOrientationDescription takes the data manager's).
struct ElementReadArgs {
    DeckInput& in;
    int label;
    OrientationOutput default_orientation{OrientationOutput::kEuler123};
};

struct ParameterInfo {
    std::string name;
    std::string default_value;
    std::string range;
};

struct ElementDescriptor {
    /// Statement keyword: "joint", "body", "force", "couple", "gravity".
    std::string statement;
    /// Type keyword after the label ("spherical hinge", "absolute"); empty for "body".
    std::string name;
    std::string description;
    std::function<std::unique_ptr<Element>(ElementReadArgs&)> read;
    /// Deck snippets (complete element statements, label 1) valid with two dynamic nodes
    /// labelled 1 and 2 and a static node labelled 3; the registry-driven tests read and
    /// check each of them (finite-difference Jacobians).
    std::vector<std::string> test_snippets;
    std::string library;  ///< filled by the loader
};

struct DriveDescriptor {
    std::string name;
    std::string description;
    std::function<DrivePtr(DeckInput&)> read;
    std::string library;
};

/// A constitutive law keyword (model/constitutive_law.hpp), e.g. "linear viscoelastic generic".
struct ConstitutiveLawDescriptor {
    std::string name;
    std::string description;
    /// The dimensions it is defined for (1, 3, 6).
    std::vector<int> dimensions;
    /// Reads the law's arguments (after its keyword) for the given dimension.
    std::function<ConstitutiveLawPtr(DeckInput&, int dimension)> read;
    /// Argument lists (after the keyword) valid for each dimension, e.g. {1, "5.e3"}; the
    /// registry-driven tests read and check each of them.
    std::vector<std::pair<int, std::string>> test_arguments;
    std::string library;
};

/// Which formulation interface an integrator needs / a formulation provides.
enum class ProblemInterface { kFirstOrderDae, kSecondOrderDae, kOde };

struct IntegratorDescriptor {
    std::string name;         ///< deck keyword, e.g. "ms3"
    std::string family;       ///< e.g. "linear multistep"
    std::string description;  ///< one line
    std::string order;        ///< declared order, e.g. "2"
    std::vector<ParameterInfo> parameters;
    /// A tunable method: its first parameter is rho_inf in [0, 1] (a drive), and its spectral
    /// radius at h lambda -> -inf is that rho_inf (the registry tests run it at 0, 0.6, 1);
    /// a method without it states `fixed_rho_inf`. Registry::Add refuses a tunable method
    /// whose first parameter is not "rho_inf".
    bool tunable{false};
    std::string reference;
    ProblemInterface requires_interface{ProblemInterface::kFirstOrderDae};
    /// The formulation a deck without `formulation:` runs on. First-order methods: `cgr`'s
    /// equations and test with the momenta eliminated from Newton (docs/DESIGN.md, "Formulation
    /// `cgr velocity`"); `cgr` itself is one keyword away.
    std::string default_formulation{"cgr velocity unscaled"};
    // Optional table fields (docs/methods.md, `mbstep plugins --markdown`); a blank field is
    // filled there from the integrator itself (FirstOrderIntegrator, linear analysis).
    /// Steps or stages, e.g. "3 steps", "4 stages (3 implicit)"; blank: "N steps" from
    /// MultistepCoefficients, else "s implicit stages" from implicit_stages().
    std::string steps;
    /// Linear stability, e.g. "A-stable; L-stable at rho_inf = 0"; blank: computed from the
    /// amplification matrix (spectral radius on the imaginary axis and at h lambda -> -inf).
    std::string stability;
    /// Spectral radius at h lambda -> -inf of a method without a rho_inf parameter (0 for
    /// L-stable methods, 1 for Crank-Nicolson); tunable methods reach their rho_inf instead.
    /// tests/integrators/registry_spectral_test.cpp checks it against the amplification matrix.
    double fixed_rho_inf{0.0};
    /// Equation/table numbers of the coefficients in `reference`, e.g. "eqs. (2), (3)";
    /// blank: shown as "-".
    std::string equations;
    /// Reads the rest of the `method:` statement (parameters) and builds the integrator.
    std::function<std::unique_ptr<Integrator>(DeckInput&)> make;
    std::string library;
};

struct FormulationDescriptor {
    std::string name;
    std::string description;
    ProblemInterface provides{ProblemInterface::kFirstOrderDae};
    /// True if the formulation honours Model::static_model() (MBDyn's `model: static;`); the
    /// run loop refuses a static model on any other before building it.
    bool solves_static_model{false};
    /// True if the formulation runs models with abstract nodes (Model::abstract_nodes()); the
    /// run loop refuses such a model on any other before building it.
    bool supports_abstract_nodes{false};
    std::function<std::unique_ptr<Formulation>(const Model&)> make;
    std::string library;
};

/// The five kinds of registered names.
enum class PluginKind { kElement, kDrive, kConstitutiveLaw, kIntegrator, kFormulation };

/// One registered name as the plugin index lists it: its kind, the element statement
/// (elements only), the name as the plugin spells it, and the library file that registers it.
struct RegisteredName {
    PluginKind kind{PluginKind::kElement};
    std::string statement;
    std::string name;
    std::string library;
};

/// The plugin index a plugin folder may hold (written by `mbstep plugins --write-index` at build
/// and install time): each plugin file's size, modification time and registered names, so
/// that a run opens only the plugins its deck names (LoadPlugins).
inline constexpr const char* kPluginIndexFile = "mbstep-plugins.index";

/// The registry of names. A plugin listed in a folder's index is *pending*: its names are
/// known, its library is opened the first time one of them is looked up (Find*), or when a
/// listing (elements(), integrators(), ...) is asked for. To its users the registry behaves
/// as if every plugin were loaded.
class Registry {
  public:
    /// Add* reject an empty or duplicate name, naming both libraries (throws RunError).
    void Add(ElementDescriptor d);
    void Add(DriveDescriptor d);
    void Add(ConstitutiveLawDescriptor d);
    void Add(IntegratorDescriptor d);
    void Add(FormulationDescriptor d);

    const ElementDescriptor* FindElement(const std::string& statement,
                                         const std::string& name) const;
    const DriveDescriptor* FindDrive(const std::string& name) const;
    const ConstitutiveLawDescriptor* FindConstitutiveLaw(const std::string& name) const;
    const IntegratorDescriptor* FindIntegrator(const std::string& name) const;
    const FormulationDescriptor* FindFormulation(const std::string& name) const;

    /// Every descriptor of a kind, in load order; pending plugins are loaded first. The
    /// containers are deques: a descriptor's address never changes once it is registered.
    const std::deque<ElementDescriptor>& elements() const;
    const std::deque<DriveDescriptor>& drives() const;
    const std::deque<ConstitutiveLawDescriptor>& constitutive_laws() const;
    const std::deque<IntegratorDescriptor>& integrators() const;
    const std::deque<FormulationDescriptor>& formulations() const;

    /// The names of a kind, loaded and pending, without loading anything (what the deck
    /// reader matches a keyword against before it looks the match up).
    /// The reference stays valid until a plugin with new names is added (opening a pending
    /// plugin does not change it).
    const std::vector<RegisteredName>& Names(PluginKind kind) const;
    /// Registers the names of a plugin not loaded yet (`path`: the library file; each name's
    /// `library` is its file name). Throws RunError as Add does for a name already taken.
    void AddPending(const std::string& path, const std::vector<RegisteredName>& names);
    /// The library files opened so far, in order (file names).
    const std::vector<std::string>& loaded_libraries() const { return loaded_libraries_; }

    /// Library being loaded (stamped into descriptors added meanwhile).
    void set_current_library(std::string lib) {
        if (!lib.empty()) loaded_libraries_.push_back(lib);
        current_library_ = std::move(lib);
    }
    /// Every registered name of the loaded descriptors, in load order.
    std::vector<RegisteredName> LoadedNames() const;

    /// Adds every descriptor of `other` with its library stamp; a name both define throws
    /// RunError as Add does.
    void Merge(Registry&& other);
    /// Every registered name, loaded or pending, as "<kind> '<name>'" (elements: "element
    /// '<statement>: <name>'"), normalised and sorted: what two plugin files are compared by.
    std::vector<std::string> Keys() const;
    /// The key of one name, as Keys() spells it.
    static std::string Key(const RegisteredName& name);

    /// What LoadPlugins skipped or loaded once, one line each ("plugin <path>: ...").
    const std::vector<std::string>& load_warnings() const { return load_warnings_; }
    void AddLoadWarning(std::string warning) { load_warnings_.push_back(std::move(warning)); }

    /// Keys are normalised: lower case, runs of white space collapsed to one space.
    static std::string Normalize(const std::string& name);

  private:
    /// Opens the pending plugin that registers `name` of `kind` (if one does); true if it did.
    bool LoadPendingFor(PluginKind kind, const std::string& statement,
                        const std::string& name) const;
    /// Opens every pending plugin, in the order they were found.
    void LoadAllPending() const;
    /// Opens one pending library (its path) and merges it; throws RunError with the loader's
    /// error if it does not load or registers other names than its index entry.
    void LoadPending(const std::string& path) const;

    // Mutable: opening a pending plugin is, to the registry's users, a cache fill.
    mutable std::deque<ElementDescriptor> elements_;
    mutable std::deque<DriveDescriptor> drives_;
    mutable std::deque<ConstitutiveLawDescriptor> laws_;
    mutable std::deque<IntegratorDescriptor> integrators_;
    mutable std::deque<FormulationDescriptor> formulations_;
    struct Pending {
        RegisteredName name;
        std::string path;  ///< the library file
        std::string key;   ///< Key(name)
    };
    mutable std::vector<Pending> pending_;
    mutable std::set<std::string> pending_keys_;
    mutable std::vector<std::string> pending_paths_;  // each pending library once, in order
    mutable std::vector<std::string> loaded_libraries_;
    mutable std::map<PluginKind, std::vector<RegisteredName>> names_;  // Names(), cached
    std::string current_library_;
    std::vector<std::string> load_warnings_;
};

/// Loads every plugin library (lib*.so) of the built-in directory (<exe dir>/../lib/mbstep,
/// or the directory of libmbstep_core's install) and of each directory in
/// MBSTEP_PLUGIN_PATH (':'-separated), in that order, each folder's files sorted by name.
/// Folders hold other libraries too, so a file found there that is not an mbstep plugin (it
/// does not load: dlopen's error; or it has no mbstep_register) is skipped with a load
/// warning naming its path and the loader's error. The same plugin found twice (the same
/// file, or a file of the same name registering the same names) is loaded once, with a
/// warning naming both paths. Two different plugins registering one name throw RunError
/// naming both paths. An entry of MBSTEP_PLUGIN_PATH that names a `.so` file rather than a
/// folder requests that plugin explicitly: if it fails to load, that is a RunError with the
/// loader's message.
/// Within a folder that holds a plugin index (kPluginIndexFile) whose entry for a file
/// matches the file's size and modification time, that plugin is registered pending (its
/// names from the index) instead of being opened; a file the index does not list, or lists
/// with another size or time, is opened as above.
void LoadPlugins(Registry& registry);
/// Loads one library file (an explicit request); throws RunError with dlerror() on failure.
void LoadPlugin(Registry& registry, const std::string& path);
/// Opens every plugin (lib*.so) of `folder` and writes the folder's plugin index (atomically:
/// a temporary file renamed). Files that are not mbstep plugins are left out, one line each
/// in *skipped. Throws RunError if the index cannot be written.
void WritePluginIndex(const std::string& folder, std::vector<std::string>* skipped);
/// The directories searched, in order.
std::vector<std::string> PluginSearchPath();

/// The process-wide registry with all plugins loaded (loaded on first use; its load warnings
/// are printed to stderr once, as `mbstep: warning: ...`).
Registry& GlobalRegistry();

}  // namespace mbstep

#define MBSTEP_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
/// Each plugin library defines exactly this entry point:
///   MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi);
/// returning 0 on success (non-zero when abi != mbstep::kPluginAbi).
