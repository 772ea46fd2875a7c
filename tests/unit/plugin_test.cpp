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
