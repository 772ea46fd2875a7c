// The plugin loader: a missing or broken plugin is named with the loader's error.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mbstep/common.hpp"
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
