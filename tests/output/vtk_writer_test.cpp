// The VTK XML series (mbstep/io/vtk.hpp) without a VTK reader: the .pvd and every .vtu are
// well-formed XML (balanced tags), their counts agree (points, cells, connectivity, offsets,
// data arrays), the points are the .mov's positions, the cell forces are the .jnt's global
// columns, and the .pvd is a complete document after every Flush. Formats: Kitware, "VTK File
// Formats" (XML: Collection, UnstructuredGrid).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/io/vtk.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"
#include "support/output_model.hpp"

using namespace mbstep;
namespace fs = std::filesystem;

namespace {

// The output tests' two-node model (support/output_model.hpp) with `control` in its control data.
std::string DeckText(const std::string& control) { return test::OutputModelDeck(control); }

std::string Slurp(const std::string& path) {
    std::ifstream f(path);
    REQUIRE_MESSAGE(f.good(), path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

/// True if every element is closed in order (<a ...>...</a>, <a .../>), one root, and the
/// document starts with the XML declaration.
bool WellFormed(const std::string& xml) {
    if (xml.rfind("<?xml", 0) != 0) return false;
    std::vector<std::string> open;
    int roots = 0;
    size_t i = xml.find("?>") + 2;
    while ((i = xml.find('<', i)) != std::string::npos) {
        const size_t end = xml.find('>', i);
        if (end == std::string::npos) return false;
        const std::string tag = xml.substr(i + 1, end - i - 1);
        if (tag.empty()) return false;
        if (tag[0] == '/') {
            if (open.empty() || open.back() != tag.substr(1)) return false;
            open.pop_back();
        } else {
            const std::string name = tag.substr(0, tag.find_first_of(" /"));
            if (open.empty()) ++roots;
            if (tag.back() != '/') open.push_back(name);
        }
        i = end + 1;
    }
    return open.empty() && roots == 1;
}

std::string Attribute(const std::string& xml, const std::string& name, size_t from = 0) {
    const size_t a = xml.find(name + "=\"", from);
    if (a == std::string::npos) return {};
    const size_t b = a + name.size() + 2;
    return xml.substr(b, xml.find('"', b) - b);
}

/// The numbers of the DataArray named `name`.
std::vector<double> Array(const std::string& xml, const std::string& name, size_t from = 0) {
    const size_t a = xml.find("Name=\"" + name + "\"", from);
    REQUIRE_MESSAGE(a != std::string::npos, name);
    const size_t b = xml.find('>', a) + 1;
    std::istringstream is(xml.substr(b, xml.find("</DataArray>", b) - b));
    std::vector<double> v;
    double x = 0.0;
    while (is >> x) v.push_back(x);
    return v;
}

std::vector<std::string> PvdFiles(const std::string& pvd) {
    std::vector<std::string> files;
    for (size_t i = 0; (i = pvd.find("<DataSet", i)) != std::string::npos; ++i)
        files.push_back(Attribute(pvd, "file", i));
    return files;
}

/// .mov (or .jnt) lines by output step: step k's lines are the k-th block of `per_step` lines.
std::vector<std::vector<double>> Lines(const std::string& path) {
    std::vector<std::vector<double>> out;
    std::istringstream is(Slurp(path));
    std::string line;
    while (std::getline(is, line)) {
        std::istringstream ls(line);
        std::vector<double> v;
        double x = 0.0;
        while (ls >> x) v.push_back(x);
        out.push_back(v);
    }
    return out;
}

}  // namespace

TEST_CASE("output results: vtk writes a series whose points and forces are the text files'") {
    const fs::path dir = fs::temp_directory_path() / "vtk_writer";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string prefix = (dir / "run").string();
    // A stale step file of an earlier run is removed.
    fs::create_directories(prefix + "-vtk");
    std::ofstream(prefix + "-vtk/step-000099.vtu") << "stale";
    Deck deck = ReadDeckText(DeckText("output results: vtk;\noutput frequency: 2;\n"), "run.mbd",
                             GlobalRegistry());
    CHECK(deck.settings.output_vtk);
    RunOptions opt;
    opt.output_prefix = prefix;
    opt.progress = false;
    const RunSummary s = Run(deck, opt, GlobalRegistry());
    REQUIRE(s.completed);
    CHECK_FALSE(fs::exists(prefix + "-vtk/step-000099.vtu"));

    const std::string pvd = Slurp(prefix + ".pvd");
    CHECK(WellFormed(pvd));
    CHECK(Attribute(pvd, "type") == "Collection");
    const std::vector<std::string> files = PvdFiles(pvd);
    REQUIRE(files.size() == 3);  // steps 0, 2, 4 (output frequency: 2)
    const auto mov = Lines(prefix + ".mov");
    const auto jnt = Lines(prefix + ".jnt");
    REQUIRE(mov.size() == 2 * files.size());
    REQUIRE(jnt.size() == 2 * files.size());  // the clamp and the rod
    size_t at = 0;
    for (size_t k = 0; k < files.size(); ++k) {
        at = pvd.find("<DataSet", at) + 1;
        CHECK(std::stod(Attribute(pvd, "timestep", at)) ==
              doctest::Approx(2e-3 * k).epsilon(1e-12));
        CHECK(files[k] == "run-vtk/step-00000" + std::to_string(2 * k) + ".vtu");
        const std::string vtu = Slurp((dir / files[k]).string());
        INFO(files[k]);
        CHECK(WellFormed(vtu));
        CHECK(Attribute(vtu, "type") == "UnstructuredGrid");
        const int np = std::stoi(Attribute(vtu, "NumberOfPoints"));
        const int nc = std::stoi(Attribute(vtu, "NumberOfCells"));
        // Points: the 2 nodes; cells: 2 node vertices, the body and the clamp (vertices), the
        // rod (a line), the beam2's one segment (a line).
        CHECK(np == 2);
        CHECK(nc == 6);
        CHECK(Array(vtu, "TimeValue")[0] == doctest::Approx(2e-3 * k).epsilon(1e-12));
        const auto types = Array(vtu, "types");
        CHECK(types == std::vector<double>{1, 1, 1, 1, 3, 3});
        const auto offsets = Array(vtu, "offsets");
        CHECK(offsets == std::vector<double>{1, 2, 3, 4, 6, 8});
        CHECK(Array(vtu, "connectivity") == std::vector<double>{0, 1, 1, 0, 0, 1, 0, 1});
        const size_t cell_data = vtu.find("<CellData");
        CHECK(Array(vtu, "label", cell_data) == std::vector<double>{1, 2, 1, 1, 2, 3});
        CHECK(Array(vtu, "kind", cell_data) == std::vector<double>{0, 0, 1, 2, 2, 3});
        CHECK(Array(vtu, "label") == std::vector<double>{1, 2});  // point data
        for (const char* a : {"velocity", "angular_velocity", "axis_1", "axis_2", "axis_3"})
            CHECK(Array(vtu, a).size() == 3 * static_cast<size_t>(np));
        CHECK(Array(vtu, "force", cell_data).size() == 3 * static_cast<size_t>(nc));
        // Positions and velocities: the .mov's numbers (the same digits).
        const auto x = Array(vtu, "position");
        const auto v = Array(vtu, "velocity");
        for (int n = 0; n < np; ++n) {
            const auto& line = mov[2 * k + static_cast<size_t>(n)];
            CHECK(line[0] == n + 1);
            for (int c = 0; c < 3; ++c) {
                CHECK(x[3 * n + c] == line[1 + c]);
                CHECK(v[3 * n + c] == line[7 + c]);
            }
        }
        // Rotated axes are unit vectors.
        const auto e1 = Array(vtu, "axis_1");
        CHECK(e1[3] * e1[3] + e1[4] * e1[4] + e1[5] * e1[5] == doctest::Approx(1.0).epsilon(1e-5));
        // Cell forces of the clamp (cell 3) and the rod (cell 4): the .jnt's global columns.
        const auto F = Array(vtu, "force", cell_data);
        const auto M = Array(vtu, "moment", cell_data);
        for (int j = 0; j < 2; ++j) {
            const auto& line = jnt[2 * k + static_cast<size_t>(j)];
            for (int c = 0; c < 3; ++c) {
                CHECK(F[3 * (3 + j) + c] == doctest::Approx(line[7 + c]).epsilon(1e-5).scale(1e-6));
                CHECK(M[3 * (3 + j) + c] ==
                      doctest::Approx(line[10 + c]).epsilon(1e-5).scale(1e-6));
            }
        }
        // Once the body has fallen, the rod and the beam pull on the clamp.
        if (k > 0) CHECK(std::abs(F[3 * 3 + 2]) > 0.0);
        // Node vertices carry no force.
        CHECK(F[0] == 0.0);
    }
}

TEST_CASE("the .pvd is a complete document after every Flush") {
    const fs::path dir = fs::temp_directory_path() / "vtk_writer_flush";
    fs::remove_all(dir);
    fs::create_directories(dir);
    Deck deck = ReadDeckText(DeckText(""), "flush.mbd", GlobalRegistry());
    std::vector<FrameState> states;
    for (const StructuralNode& n : deck.model.nodes()) states.push_back(n.initial);
    std::vector<double> zeros(16, 0.0);
    const auto lambda = [&](int) { return zeros.data(); };
    const std::string prefix = (dir / "s").string();
    VtkSeriesWriter w(prefix, deck.model, 6);
    CHECK(WellFormed(Slurp(prefix + ".pvd")));
    CHECK(PvdFiles(Slurp(prefix + ".pvd")).empty());
    w.AddStep(0, 0.0, states, lambda, Vec3::Zero());
    CHECK(w.buffered() > 0);
    CHECK(PvdFiles(Slurp(prefix + ".pvd")).empty());  // written at Flush
    w.Flush();
    CHECK(w.buffered() == 0);
    std::string pvd = Slurp(prefix + ".pvd");
    CHECK(WellFormed(pvd));
    CHECK(PvdFiles(pvd) == std::vector<std::string>{"s-vtk/step-000000.vtu"});
    states[1].x.x() = 2.5;
    w.AddStep(7, 0.25, states, lambda, Vec3::Zero());
    w.AddStep(9, 0.5, states, lambda, Vec3::Zero());
    w.Flush();
    pvd = Slurp(prefix + ".pvd");
    CHECK(WellFormed(pvd));
    CHECK(PvdFiles(pvd) == std::vector<std::string>{"s-vtk/step-000000.vtu",
                                                    "s-vtk/step-000007.vtu",
                                                    "s-vtk/step-000009.vtu"});
    const std::string vtu = Slurp(prefix + "-vtk/step-000007.vtu");
    CHECK(WellFormed(vtu));
    CHECK(Array(vtu, "position") == std::vector<double>{0, 0, 0, 2.5, 0, 0});
    CHECK(Array(vtu, "TimeValue")[0] == 0.25);
    CHECK(Array(vtu, "Step")[0] == 7);
}

TEST_CASE("output results: other formats are refused with a message") {
    // netcdf: netcdf_writer_test (accepted when built with NetCDF, else refused).
    for (const char* format : {"adams", "motion view"}) {
        INFO(format);
        try {
            ReadDeckText(DeckText(std::string("output results: ") + format + ";\n"), "bad.mbd",
                         GlobalRegistry());
            CHECK_MESSAGE(false, "accepted");
        } catch (const DeckError& e) {
            CHECK(std::string(e.what()).find("is not supported") != std::string::npos);
        }
    }
    try {
        ReadDeckText(DeckText("output results: pictures;\n"), "bad.mbd", GlobalRegistry());
        CHECK_MESSAGE(false, "accepted");
    } catch (const DeckError& e) {
        CHECK(std::string(e.what()).find("vtk") != std::string::npos);
    }
}
