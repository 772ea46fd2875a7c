// The plugin loader: a missing or broken plugin is named with the loader's error.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "mbstep/common.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"

using namespace mbstep;

TEST_CASE("a broken plugin file is reported with dlopen's error") {
    const auto dir = std::filesystem::temp_directory_path() / "mbstep_broken_plugin";
    std::filesystem::create_directories(dir);
    const auto path = dir / "libbroken.so";
    std::ofstream(path) << "this is not an ELF file";
    Registry reg;
    try {
        LoadPlugin(reg, path.string());
        FAIL("loading a broken plugin must throw");
    } catch (const RunError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(msg.find(path.string()) != std::string::npos);
        CHECK(msg.find("cannot load plugin") != std::string::npos);
        CHECK((msg.find("ELF") != std::string::npos || msg.find("too short") != std::string::npos));
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("a library without the entry point is refused by name") {
    // The core library itself has no mbstep_register.
    const std::string core = std::string(MBSTEP_BINARY_DIR) + "/lib/libmbstep_core.so";
    Registry reg;
    CHECK_THROWS_WITH_AS(LoadPlugin(reg, core), doctest::Contains("no mbstep_register"), RunError);
    CHECK_THROWS_WITH_AS(LoadPlugin(reg, "/nonexistent/libnothing.so"),
                         doctest::Contains("/nonexistent/libnothing.so"), RunError);
}

TEST_CASE("the registry rejects duplicate and empty names, naming both libraries") {
    Registry reg;
    reg.set_current_library("liba.so");
    FormulationDescriptor d;
    d.name = "x";
    reg.Add(d);
    reg.set_current_library("libb.so");
    CHECK_THROWS_WITH_AS(reg.Add(d), doctest::Contains("liba.so"), RunError);
    FormulationDescriptor e;
    CHECK_THROWS_AS(reg.Add(e), RunError);
    CHECK(reg.FindFormulation("  X ") != nullptr);  // case- and space-insensitive lookup
}

TEST_CASE("the built-in plugin directory is found without environment variables") {
    const Registry& reg = GlobalRegistry();
    CHECK(reg.FindFormulation("cgr") != nullptr);
    CHECK(reg.FindIntegrator("ms3") != nullptr);
    CHECK(reg.FindElement("joint", "spherical hinge") != nullptr);
    bool found = false;
    for (const auto& d : PluginSearchPath())
        found = found || d.find("lib/mbstep") != std::string::npos;
    CHECK(found);
}

namespace {

/// Sets MBSTEP_PLUGIN_PATH for the life of the object, restoring it after.
class PluginPathScope {
  public:
    explicit PluginPathScope(const std::string& value) {
        if (const char* old = std::getenv("MBSTEP_PLUGIN_PATH")) {
            had_ = true;
            old_ = old;
        }
        setenv("MBSTEP_PLUGIN_PATH", value.c_str(), 1);
    }
    ~PluginPathScope() {
        if (had_)
            setenv("MBSTEP_PLUGIN_PATH", old_.c_str(), 1);
        else
            unsetenv("MBSTEP_PLUGIN_PATH");
    }

  private:
    bool had_{false};
    std::string old_;
};

std::string BuiltPlugin(const std::string& name) {
    return std::filesystem::weakly_canonical(std::string(MBSTEP_BINARY_DIR) + "/lib/mbstep/" + name)
        .string();
}

/// The load warnings that mention `text`.
int CountWarnings(const Registry& reg, const std::string& text) {
    int n = 0;
    for (const std::string& w : reg.load_warnings()) n += w.find(text) != std::string::npos;
    return n;
}

}  // namespace

TEST_CASE("plugin folders: foreign files are skipped with a warning, the same plugin loads once") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "mbstep_plugin_folder";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string garbage = (dir / "libgarbage.so").string();
    std::ofstream(garbage) << "not a library";
    const std::string foreign = (dir / "libforeign.so").string();  // a library, no entry point
    fs::copy_file(std::string(MBSTEP_BINARY_DIR) + "/lib/libmbstep_core.so", foreign);
    const std::string copy = (dir / "libmbstep_lms.so").string();  // same name, same plugin
    fs::copy_file(BuiltPlugin("libmbstep_lms.so"), copy);
    const std::string link = (dir / "liblink.so").string();  // the same file again
    fs::create_symlink(BuiltPlugin("libmbstep_rk.so"), link);
    fs::create_directories(dir / "libdir.so");  // a folder with a library's name
    PluginPathScope path(dir.string());
    Registry reg;
    LoadPlugins(reg);
    // Every command still works: the built-in plugins are all there.
    CHECK(reg.FindIntegrator("bdf") != nullptr);
    CHECK(reg.FindIntegrator("ms3") != nullptr);
    CHECK(reg.FindFormulation("cgr") != nullptr);
    CHECK(reg.FindElement("joint", "revolute hinge") != nullptr);
    // The garbage file: its path and dlopen's error.
    REQUIRE(CountWarnings(reg, "plugin " + garbage +
                                   " skipped: not an mbstep plugin: cannot "
                                   "load plugin " +
                                   garbage + ": ") == 1);
    CHECK((CountWarnings(reg, "invalid ELF header") + CountWarnings(reg, "file too short")) == 1);
    CHECK(CountWarnings(reg, "plugin " + foreign + " skipped: not an mbstep plugin: plugin " +
                                 foreign + " has no mbstep_register entry point") == 1);
    CHECK(CountWarnings(reg, "plugin " + copy + " is the same plugin as " +
                                 BuiltPlugin("libmbstep_lms.so") +
                                 " (same file name, same registered names): loaded once") == 1);
    CHECK(CountWarnings(reg, "plugin " + link + " is the same file as " +
                                 BuiltPlugin("libmbstep_rk.so") + ": loaded once") == 1);
    CHECK(CountWarnings(
              reg, "plugin " + (dir / "libdir.so").string() + " skipped: not a regular file") == 1);
    CHECK(reg.load_warnings().size() == 5);
    // Loaded once: one integrator named bdf, from the built-in folder.
    int bdf = 0;
    for (const auto& d : reg.integrators()) bdf += d.name == "bdf";
    CHECK(bdf == 1);
    fs::remove_all(dir);
}

TEST_CASE("plugin folders: two different plugins registering one name fail naming both paths") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "mbstep_plugin_clash";
    fs::remove_all(dir);
    fs::create_directories(dir);
    // Another file name: another plugin, registering lms's names again.
    const std::string other = (dir / "libother_lms.so").string();
    fs::copy_file(BuiltPlugin("libmbstep_lms.so"), other);
    PluginPathScope path(dir.string());
    Registry reg;
    try {
        LoadPlugins(reg);
        FAIL("no error");
    } catch (const RunError& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK(msg.find("two different plugins register integrator '") == 0);
        CHECK(msg.find(": " + BuiltPlugin("libmbstep_lms.so") + " and " + other +
                       " (remove one from the plugin folders)") != std::string::npos);
    }
    fs::remove_all(dir);
}

TEST_CASE("a plugin requested by file in MBSTEP_PLUGIN_PATH must load") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "mbstep_plugin_explicit";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string garbage = (dir / "libgarbage.so").string();
    std::ofstream(garbage) << "not a library";
    {
        PluginPathScope path(garbage);
        Registry reg;
        const std::string expected = "cannot load plugin " + garbage + ": ";
        CHECK_THROWS_WITH_AS(LoadPlugins(reg), doctest::Contains(expected.c_str()), RunError);
    }
    {
        const std::string missing = (dir / "libmissing.so").string();
        PluginPathScope path(missing);
        Registry reg;
        CHECK_THROWS_WITH_AS(LoadPlugins(reg), doctest::Contains("cannot open shared object file"),
                             RunError);
    }
    {
        // Requested explicitly and also in the built-in folder: loaded once.
        PluginPathScope path(BuiltPlugin("libmbstep_lms.so"));
        Registry reg;
        LoadPlugins(reg);
        CHECK(reg.FindIntegrator("bdf") != nullptr);
        CHECK(CountWarnings(reg, " is the same file as ") == 1);
    }
    fs::remove_all(dir);
}

namespace {

/// The lib*.so files of the build's plugin folder.
std::vector<std::string> BuiltPluginFiles() {
    std::vector<std::string> files;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(MBSTEP_BINARY_DIR) + "/lib/mbstep")) {
        const std::string f = e.path().filename().string();
        if (f.rfind("lib", 0) == 0 && e.path().extension() == ".so") files.push_back(f);
    }
    return files;
}

bool Opened(const Registry& reg, const std::string& file) {
    const auto& l = reg.loaded_libraries();
    return std::find(l.begin(), l.end(), file) != l.end();
}

std::string ReadText(const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("plugin index: a registry opens a plugin when one of its names is looked up") {
    // The build writes the index of its plugin folder (mbstep plugins --write-index).
    REQUIRE(std::filesystem::exists(std::string(MBSTEP_BINARY_DIR) + "/lib/mbstep/" +
                                    kPluginIndexFile));
    Registry reg;
    LoadPlugins(reg);
    CHECK(reg.load_warnings().empty());
    CHECK(reg.loaded_libraries().empty());  // every plugin pending
    // Names are known without opening anything.
    const std::vector<std::string> keys = reg.Keys();
    CHECK(std::binary_search(keys.begin(), keys.end(), "integrator 'ms3'"));
    CHECK(std::binary_search(keys.begin(), keys.end(), "element 'joint: spherical hinge'"));
    bool bdf = false;
    for (const RegisteredName& n : reg.Names(PluginKind::kIntegrator)) bdf |= n.name == "bdf";
    CHECK(bdf);
    CHECK(reg.loaded_libraries().empty());
    // A lookup opens the one plugin that registers the name.
    const IntegratorDescriptor* ms3 = reg.FindIntegrator("MS3");
    REQUIRE(ms3 != nullptr);
    CHECK(ms3->library == "libmbstep_lms.so");
    CHECK(reg.loaded_libraries() == std::vector<std::string>{"libmbstep_lms.so"});
    CHECK(reg.FindIntegrator("no such method") == nullptr);
    CHECK(reg.loaded_libraries().size() == 1);
    // An address stays valid while other plugins are opened.
    REQUIRE(reg.FindElement("joint", "spherical  hinge") != nullptr);
    CHECK(reg.loaded_libraries().size() == 2);
    CHECK(reg.FindIntegrator("ms3") == ms3);
    CHECK(reg.Keys() == keys);
    // A listing opens every plugin, each once.
    const std::size_t integrators = reg.integrators().size();
    CHECK(integrators == reg.Names(PluginKind::kIntegrator).size());
    std::vector<std::string> opened = reg.loaded_libraries(), files = BuiltPluginFiles();
    std::sort(opened.begin(), opened.end());
    std::sort(files.begin(), files.end());
    CHECK(opened == files);
    CHECK(reg.Keys() == keys);
}

TEST_CASE("plugin index: reading a deck opens only the plugins it names") {
    Registry reg;
    LoadPlugins(reg);
    const Deck deck =
        ReadDeck(std::string(MBSTEP_SOURCE_DIR) + "/examples/heavy-top/heavy-top.mbd", reg);
    const std::vector<std::string>& opened = reg.loaded_libraries();
    INFO(opened.size());
    CHECK(Opened(reg, "libmbstep_lms.so"));  // method: ms
    CHECK(!Opened(reg, "libmbstep_rk.so"));
    CHECK(!Opened(reg, "libmbstep_esdirk.so"));
    CHECK(!Opened(reg, "libmbstep_beams.so"));
    CHECK(opened.size() < BuiltPluginFiles().size() / 2);
}

TEST_CASE("plugin index: written and read back; conflicts found from the index alone") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "mbstep_plugin_index";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string other = (dir / "libother_lms.so").string();
    fs::copy_file(BuiltPlugin("libmbstep_lms.so"), other);
    std::ofstream(dir / "libgarbage.so") << "not a library";
    std::vector<std::string> skipped;
    WritePluginIndex(dir.string(), &skipped);
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0].find((dir / "libgarbage.so").string()) != std::string::npos);
    const std::string text = ReadText(dir / kPluginIndexFile);
    CHECK(text.rfind("mbstep plugin index, ABI " + std::to_string(kPluginAbi) + "\n", 0) == 0);
    CHECK(text.find("plugin\tlibother_lms.so\t" + std::to_string(fs::file_size(other)) + "\t") !=
          std::string::npos);
    CHECK(text.find("name\tintegrator\t\tms3\n") != std::string::npos);
    CHECK(text.find("libgarbage") == std::string::npos);
    // Loading that folder: a different plugin registering lms's names, known from the index.
    PluginPathScope path(dir.string());
    Registry reg;
    CHECK_THROWS_WITH_AS(LoadPlugins(reg),
                         doctest::Contains("two different plugins register integrator '"),
                         RunError);
    Registry again;
    CHECK_THROWS_WITH_AS(LoadPlugins(again),
                         doctest::Contains((BuiltPlugin("libmbstep_lms.so") + " and " + other +
                                            " (remove one from the plugin folders)")
                                               .c_str()),
                         RunError);
    CHECK(again.loaded_libraries().empty());  // neither was opened
    fs::remove_all(dir);
}

TEST_CASE("plugin index: a stale entry opens the file; a listed file that fails names both") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "mbstep_plugin_stale";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string garbage = (dir / "libgarbage.so").string();
    std::ofstream(garbage) << "not a library";
    struct stat st {};
    REQUIRE(::stat(garbage.c_str(), &st) == 0);
    const long long mtime =
        static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    auto write_index = [&](long long size) {
        std::ofstream(dir / kPluginIndexFile)
            << "mbstep plugin index, ABI " << kPluginAbi << "\nplugin\tlibgarbage.so\t" << size
            << "\t" << mtime << "\nname\tintegrator\t\tzzz method\n";
    };
    PluginPathScope path(dir.string());
    {
        write_index(st.st_size + 1);  // another size: the entry is stale, the file is opened
        Registry reg;
        LoadPlugins(reg);
        CHECK(CountWarnings(reg, "plugin " + garbage + " skipped: not an mbstep plugin") == 1);
        CHECK(reg.FindIntegrator("zzz method") == nullptr);
    }
    {
        write_index(st.st_size);  // matches: pending until looked up, then it fails
        Registry reg;
        LoadPlugins(reg);
        CHECK(reg.load_warnings().empty());
        CHECK_THROWS_WITH_AS(reg.FindIntegrator("zzz method"),
                             doctest::Contains(("cannot load plugin " + garbage).c_str()),
                             RunError);
        CHECK(reg.FindIntegrator("zzz method") == nullptr);  // refused once, then unknown
    }
    {
        std::ofstream(dir / kPluginIndexFile) << "mbstep plugin index, ABI 1\n";
        Registry reg;
        LoadPlugins(reg);
        CHECK(CountWarnings(reg, "plugin index " + (dir / kPluginIndexFile).string() +
                                     " ignored (line 1: not 'mbstep plugin index, ABI " +
                                     std::to_string(kPluginAbi) + "')") == 1);
        CHECK(CountWarnings(reg, "plugin " + garbage + " skipped") == 1);
    }
    fs::remove_all(dir);
}
