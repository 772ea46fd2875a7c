// MBDyn's NetCDF layout (mbstep/io/netcdf.hpp). Built with NetCDF (MBSTEP_TEST_HAVE_NETCDF=1):
// `output results: netcdf;` is accepted, and a run's .nc, read back with the netCDF C library,
// has MBDyn's dimensions, variables and attributes and the values of the .out, .mov, .jnt, .act
// and .frc (orientation matrix stored column by column as MBDyn does, orientation vector, the
// joints' and springs' local and global reactions, a total joint's relative kinematics, a
// beam's internal forces, a force and a couple); `no text` leaves out the per-entity text files
// and writes the same .nc. Built without: the deck is refused with `file:line:column:` and the
// reason.
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/io/netcdf.hpp"
#include "mbstep/plugin/registry.hpp"
#include "mbstep/simulation.hpp"
#include "support/output_model.hpp"

#if MBSTEP_TEST_HAVE_NETCDF
#include <netcdf.h>
#endif

using namespace mbstep;
namespace fs = std::filesystem;

namespace {

// A static node 1 (orientation matrix, the default below) and a dynamic node 2 (orientation
// vector), a clamp on 1, a rod (a spring: statement joint) and a beam2 from 1 to 2; with
// `loads`, a follower force 4 and an absolute couple 5 on node 2.
std::string DeckText(const std::string& control, bool loads = false) {
    test::OutputModel m;
    m.node2 = "eye, orientation description, orientation vector, null, 0., 0.5, 0.";
    m.loads = loads;
    return test::OutputModelDeck(control, m);
}

}  // namespace

TEST_CASE("the build's NetCDF option is the core's") {
    CHECK(NetcdfOutputAvailable() == static_cast<bool>(MBSTEP_TEST_HAVE_NETCDF));
}

#if !MBSTEP_TEST_HAVE_NETCDF

TEST_CASE("output results: netcdf is refused with file:line:column and the reason") {
    try {
        ReadDeckText(DeckText("output results: netcdf;\n"), "bad.mbd", GlobalRegistry());
        CHECK_MESSAGE(false, "accepted");
    } catch (const DeckError& e) {
        const std::string what = e.what();
        CHECK(what.rfind("bad.mbd:6:17:", 0) == 0);
        CHECK(what.find("built without NetCDF") != std::string::npos);
    }
}

#else

namespace {

std::string Slurp(const std::string& path) {
    std::ifstream f(path);
    REQUIRE_MESSAGE(f.good(), path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::vector<double> > Lines(const std::string& path) {
    std::vector<std::vector<double> > out;
    std::istringstream is(Slurp(path));
    std::string line;
    while (std::getline(is, line)) {
        std::istringstream ls(line);
        std::vector<double> v;
        double x = 0.0;
        while (ls >> x) v.push_back(x);
        if (!v.empty()) out.push_back(v);
    }
    return out;
}

void Ok(int status) { REQUIRE_MESSAGE(status == NC_NOERR, nc_strerror(status)); }

std::string Text(int ncid, int var, const char* name) {
    size_t len = 0;
    Ok(nc_inq_attlen(ncid, var, name, &len));
    std::string s(len, '\0');
    Ok(nc_get_att_text(ncid, var, name, s.data()));
    return s;
}

int Var(int ncid, const std::string& name) {
    int var = -1;
    const int status = nc_inq_varid(ncid, name.c_str(), &var);
    REQUIRE_MESSAGE(status == NC_NOERR, name);
    return var;
}

/// Record k of a [time, Vec3(, Vec3)] variable.
std::vector<double> Record(int ncid, const std::string& name, size_t k, size_t size) {
    std::vector<double> v(size);
    const size_t start[3] = {k, 0, 0};
    const size_t count[3] = {1, 3, 3};
    Ok(nc_get_vara_double(ncid, Var(ncid, name), start, count, v.data()));
    return v;
}

bool Close(double a, double b) { return std::abs(a - b) <= 1e-5 * std::abs(b) + 1e-9; }

/// A run of a deck text into a fresh folder.
struct RunFiles {
    std::string prefix;
    RunSettings settings;
    std::vector<std::string> warnings;
};

RunFiles RunInto(const std::string& text, const std::string& dir_name) {
    Deck deck = ReadDeckText(text, "run.mbd", GlobalRegistry());
    const fs::path dir = fs::temp_directory_path() / dir_name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    RunFiles r{(dir / "run").string(), deck.settings, deck.warnings};
    RunOptions opt;
    opt.output_prefix = r.prefix;
    opt.progress = false;
    REQUIRE(Run(deck, opt, GlobalRegistry()).completed);
    return r;
}

/// Every variable's values of the .nc, by name (the tests compare two runs' files).
std::vector<std::pair<std::string, std::vector<double> > > AllValues(const std::string& path) {
    int ncid = -1;
    Ok(nc_open(path.c_str(), NC_NOWRITE, &ncid));
    int nvars = 0;
    Ok(nc_inq_nvars(ncid, &nvars));
    std::vector<std::pair<std::string, std::vector<double> > > all;
    for (int v = 0; v < nvars; ++v) {
        char name[NC_MAX_NAME + 1];
        Ok(nc_inq_varname(ncid, v, name));
        nc_type type = NC_NAT;
        int ndims = 0;
        int dims[NC_MAX_VAR_DIMS];
        Ok(nc_inq_var(ncid, v, nullptr, &type, &ndims, dims, nullptr));
        size_t n = 1;
        for (int d = 0; d < ndims; ++d) {
            size_t len = 0;
            Ok(nc_inq_dimlen(ncid, dims[d], &len));
            n *= len;
        }
        std::vector<double> values(type == NC_CHAR ? 0 : n);
        if (type != NC_CHAR) Ok(nc_get_var_double(ncid, v, values.data()));
        all.emplace_back(name, std::move(values));
    }
    Ok(nc_close(ncid));
    return all;
}

}  // namespace

TEST_CASE("output results: netcdf writes MBDyn's layout with the text files' values") {
    const std::string control = "default orientation: orientation matrix;\noutput frequency: 2;\n";
    const RunFiles run =
        RunInto(DeckText("output results: netcdf, sync;\n" + control, true), "netcdf_writer");
    const std::string& prefix = run.prefix;
    CHECK(run.settings.output_netcdf);
    CHECK(run.settings.output_text);
    CHECK(run.warnings.empty());

    // The .out's output steps.
    std::vector<std::vector<double> > out;
    {
        std::istringstream is(Slurp(prefix + ".out"));
        std::string line;
        while (std::getline(is, line)) {
            if (line.rfind("Step ", 0) != 0) continue;
            std::istringstream ls(line.substr(5));
            std::vector<double> v;
            double x = 0.0;
            while (ls >> x) v.push_back(x);
            if (v.size() == 8 && v[7] == 1.0) out.push_back(v);
        }
    }
    const auto mov = Lines(prefix + ".mov");
    const auto jnt = Lines(prefix + ".jnt");
    const auto act = Lines(prefix + ".act");
    const auto frc = Lines(prefix + ".frc");
    const size_t n = out.size();
    REQUIRE(n >= 3);
    REQUIRE(mov.size() == 2 * n);
    REQUIRE(jnt.size() == 2 * n);
    REQUIRE(act.size() == n);
    REQUIRE(frc.size() == 2 * n);

    int ncid = -1;
    Ok(nc_open((prefix + ".nc").c_str(), NC_NOWRITE, &ncid));
    int format = 0;
    Ok(nc_inq_format(ncid, &format));
    CHECK(format == NC_FORMAT_CLASSIC);
    int ndims = 0, nvars = 0, unlimited = -1;
    Ok(nc_inq(ncid, &ndims, &nvars, nullptr, &unlimited));
    CHECK(ndims == 3);
    const char* dim_names[3] = {"time", "Vec1", "Vec3"};
    const size_t dim_lens[3] = {n, 1, 3};
    for (int d = 0; d < 3; ++d) {
        char name[NC_MAX_NAME + 1];
        size_t len = 0;
        Ok(nc_inq_dim(ncid, d, name, &len));
        CHECK(std::string(name) == dim_names[d]);
        CHECK(len == dim_lens[d]);
    }
    CHECK(unlimited == 0);
    // Every variable in MBDyn's order: run data, nodes, dummy nodes, joints, beams, forces
    // and couples.
    const std::vector<std::string> names = {"run.step",
                                            "time",
                                            "run.timestep",
                                            "node.struct.1",
                                            "node.struct.1.X",
                                            "node.struct.1.R",
                                            "node.struct.1.XP",
                                            "node.struct.1.Omega",
                                            "node.struct.2",
                                            "node.struct.2.X",
                                            "node.struct.2.Phi",
                                            "node.struct.2.XP",
                                            "node.struct.2.Omega",
                                            "elem.joint.1",
                                            "elem.joint.1.f",
                                            "elem.joint.1.m",
                                            "elem.joint.1.F",
                                            "elem.joint.1.M",
                                            "elem.joint.2",
                                            "elem.joint.2.f",
                                            "elem.joint.2.m",
                                            "elem.joint.2.F",
                                            "elem.joint.2.M",
                                            "elem.joint.2.l",
                                            "elem.joint.2.lP",
                                            "elem.joint.2.v",
                                            "elem.beam.3",
                                            "elem.beam.3.F",
                                            "elem.beam.3.M",
                                            "elem.force.4",
                                            "elem.force.4.F",
                                            "elem.force.4.Arm",
                                            "elem.couple.5",
                                            "elem.couple.5.M"};
    REQUIRE(nvars == static_cast<int>(names.size()));
    for (int v = 0; v < nvars; ++v) {
        char name[NC_MAX_NAME + 1];
        Ok(nc_inq_varname(ncid, v, name));
        CHECK(std::string(name) == names[static_cast<size_t>(v)]);
    }
    CHECK(Text(ncid, Var(ncid, "node.struct.1"), "type") == "static");
    CHECK(Text(ncid, Var(ncid, "node.struct.2"), "type") == "dynamic");
    CHECK(Text(ncid, Var(ncid, "elem.joint.1"), "type") == "clamp");
    CHECK(Text(ncid, Var(ncid, "elem.joint.2"), "type") == "rod");
    CHECK(Text(ncid, Var(ncid, "elem.beam.3"), "type") == "elastic");
    CHECK(Text(ncid, Var(ncid, "elem.force.4"), "type") == "follower");
    CHECK(Text(ncid, Var(ncid, "elem.couple.5"), "type") == "absolute");
    const int r = Var(ncid, "node.struct.1.R");
    CHECK(Text(ncid, r, "units") == "-");
    CHECK(Text(ncid, r, "type") == "Mat3x3");
    CHECK(Text(ncid, r, "description") ==
          "global orientation matrix (R11, R21, R31, R12, R22, R32, R13, R23, R33)");
    int r_dims = 0;
    Ok(nc_inq_varndims(ncid, r, &r_dims));
    CHECK(r_dims == 3);
    const int phi = Var(ncid, "node.struct.2.Phi");
    CHECK(Text(ncid, phi, "units") == "radian");
    CHECK(Text(ncid, phi, "description") == "global orientation vector (Phi_X, Phi_Y, Phi_Z)");
    CHECK(Text(ncid, Var(ncid, "elem.joint.2.M"), "units") == "Moment");
    // The rod's length, lengthening rate and direction after .M (MBDyn's Rod::OutputPrepare,
    // mbdyn/struct/rodj.cc): two scalars [time], "doublereal", and a Vec3.
    CHECK(Text(ncid, Var(ncid, "elem.joint.2.v"), "description") == "direction unit vector");
    const int rod_l = Var(ncid, "elem.joint.2.l");
    CHECK(Text(ncid, rod_l, "type") == "doublereal");
    CHECK(Text(ncid, rod_l, "units") == "Length");
    CHECK(Text(ncid, rod_l, "description") == "length of the element");
    int l_dims = 0;
    Ok(nc_inq_varndims(ncid, rod_l, &l_dims));
    CHECK(l_dims == 1);
    CHECK(Text(ncid, Var(ncid, "elem.joint.2.lP"), "units") == "Velocity");
    CHECK(Text(ncid, Var(ncid, "run.step"), "type") == "integer");
    const int bf = Var(ncid, "elem.beam.3.F");
    CHECK(Text(ncid, bf, "units") == "Force");
    CHECK(Text(ncid, bf, "type") == "Vec3");
    CHECK(Text(ncid, bf, "description") ==
          "evaluation point internal force in local frame (F_X, F_Y, F_Z)");
    CHECK(Text(ncid, Var(ncid, "elem.beam.3.M"), "units") == "Moment");
    CHECK(Text(ncid, Var(ncid, "elem.force.4.Arm"), "units") == "Length");
    CHECK(Text(ncid, Var(ncid, "elem.force.4.Arm"), "description") ==
          "arm in global frame (x, y, z)");
    CHECK(Text(ncid, Var(ncid, "elem.couple.5.M"), "description") ==
          "global couple components (x, y, z)");

    std::vector<int> steps(n);
    std::vector<double> time(n), dt(n);
    Ok(nc_get_var_int(ncid, Var(ncid, "run.step"), steps.data()));
    Ok(nc_get_var_double(ncid, Var(ncid, "time"), time.data()));
    Ok(nc_get_var_double(ncid, Var(ncid, "run.timestep"), dt.data()));
    double force_seen = 0.0, couple_seen = 0.0;
    for (size_t k = 0; k < n; ++k) {
        CHECK(steps[k] == static_cast<int>(out[k][0]));
        CHECK(Close(time[k], out[k][1]));
        CHECK(Close(dt[k], out[k][2]));
        // Node 1: label, x, R row by row (the .mov), v, w; the .nc stores R column by column.
        const auto& m1 = mov[2 * k];
        REQUIRE(m1.size() == 19);
        const auto x1 = Record(ncid, "node.struct.1.X", k, 3);
        const auto r1 = Record(ncid, "node.struct.1.R", k, 9);
        for (int i = 0; i < 3; ++i) {
            CHECK(Close(x1[i], m1[1 + i]));
            for (int j = 0; j < 3; ++j) CHECK(Close(r1[3 * j + i], m1[4 + 3 * i + j]));
        }
        const auto& m2 = mov[2 * k + 1];
        REQUIRE(m2.size() == 13);
        const char* v2[4] = {"X", "Phi", "XP", "Omega"};
        for (int a = 0; a < 4; ++a) {
            const auto v = Record(ncid, std::string("node.struct.2.") + v2[a], k, 3);
            for (int i = 0; i < 3; ++i) CHECK(Close(v[i], m2[1 + 3 * a + i]));
        }
        for (int e = 0; e < 2; ++e) {
            const auto& row = jnt[2 * k + e];
            REQUIRE(row.size() >= 13);
            CHECK(row[0] == e + 1);
            const char* jv[4] = {"f", "m", "F", "M"};
            for (int a = 0; a < 4; ++a) {
                const auto v =
                    Record(ncid, "elem.joint." + std::to_string(e + 1) + "." + jv[a], k, 3);
                for (int i = 0; i < 3; ++i) CHECK(Close(v[i], row[1 + 3 * a + i]));
            }
        }
        // The rod's .jnt: 12 reaction numbers, l, the direction (columns 15-17), l'.
        const auto& rod = jnt[2 * k + 1];
        REQUIRE(rod.size() == 18);
        const auto dir = Record(ncid, "elem.joint.2.v", k, 3);
        for (int i = 0; i < 3; ++i) CHECK(Close(dir[i], rod[14 + i]));
        CHECK(Close(Record(ncid, "elem.joint.2.l", k, 1)[0], rod[13]));
        CHECK(Close(Record(ncid, "elem.joint.2.lP", k, 1)[0], rod[17]));
        // The beam's .act line: label, F, M at its evaluation point (section frame).
        REQUIRE(act[k].size() == 7);
        CHECK(act[k][0] == 3);
        const auto bF = Record(ncid, "elem.beam.3.F", k, 3);
        const auto bM = Record(ncid, "elem.beam.3.M", k, 3);
        for (int i = 0; i < 3; ++i) {
            CHECK(Close(bF[i], act[k][1 + i]));
            CHECK(Close(bM[i], act[k][4 + i]));
        }
        // The .frc lines: force: label, node, F, point of application; couple: label, node, M.
        const auto& f4 = frc[2 * k];
        const auto& c5 = frc[2 * k + 1];
        REQUIRE(f4.size() == 8);
        REQUIRE(c5.size() == 5);
        CHECK(f4[0] == 4);
        CHECK(f4[1] == 2);
        CHECK(c5[0] == 5);
        CHECK(c5[1] == 2);
        const auto F4 = Record(ncid, "elem.force.4.F", k, 3);
        const auto A4 = Record(ncid, "elem.force.4.Arm", k, 3);
        const auto M5 = Record(ncid, "elem.couple.5.M", k, 3);
        for (int i = 0; i < 3; ++i) {
            CHECK(Close(F4[i], f4[2 + i]));
            CHECK(Close(A4[i], f4[5 + i]));
            CHECK(Close(M5[i], c5[2 + i]));
        }
        // The follower force is node 2's axis 3 times 0.5 sin(300 t), applied 0.2 m along its
        // axis 2 (node 2's orientation vector from the .mov); the couple is 100 t along x.
        const Vec3 phi2(m2[4], m2[5], m2[6]);
        const double angle = phi2.norm();
        const Mat3 R2 = angle > 0.0
                            ? Mat3(Eigen::AngleAxisd(angle, phi2 / angle).toRotationMatrix())
                            : Mat3(Mat3::Identity());
        const Vec3 expected_F = R2.col(2) * 0.5 * std::sin(300.0 * time[k]);
        const Vec3 expected_point = Vec3(m2[1], m2[2], m2[3]) + R2 * Vec3(0.0, 0.2, 0.0);
        for (int i = 0; i < 3; ++i) {
            CHECK(std::abs(F4[i] - expected_F[i]) <= 1e-5);
            CHECK(std::abs(A4[i] - expected_point[i]) <= 1e-5);
        }
        CHECK(M5[0] == doctest::Approx(100.0 * time[k]).epsilon(1e-5));
        CHECK(M5[1] == 0.0);
        CHECK(M5[2] == 0.0);
        force_seen = std::max(force_seen, Vec3(F4[0], F4[1], F4[2]).norm());
        couple_seen = std::max(couple_seen, std::abs(M5[0]));
    }
    CHECK(force_seen > 0.1);  // the loads are not zero at the output steps
    CHECK(couple_seen > 0.1);
    Ok(nc_close(ncid));

    // `no text`: the same .nc, and only the .out, .log and .csv of the text files.
    const RunFiles no_text =
        RunInto(DeckText("output results: netcdf, no text, sync;\n" + control, true),
                "netcdf_writer_no_text");
    const std::string& p2 = no_text.prefix;
    CHECK_FALSE(no_text.settings.output_text);
    CHECK(no_text.warnings.empty());
    for (const char* ext : {".mov", ".jnt", ".act", ".frc"}) CHECK_FALSE(fs::exists(p2 + ext));
    for (const char* ext : {".out", ".log", ".csv", ".nc"}) CHECK(fs::exists(p2 + ext));
    CHECK(Slurp(p2 + ".out") == Slurp(prefix + ".out"));
    CHECK(AllValues(p2 + ".nc") == AllValues(prefix + ".nc"));
}

TEST_CASE("a total joint's relative kinematics are MBDyn's X, Phi, V, Omega, as in its .jnt") {
    // Node 2 spins about z about a total joint at the origin that holds its position only: the
    // relative orientation vector is node 2's, the relative angular velocity its (0, 0, 2).
    const std::string text =
        "begin: data; problem: initial value; end: data;\n"
        "begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3;\n"
        "method: ms, 0.6; tolerance: 1e-10; end: initial value;\n"
        "begin: control data; structural nodes: 2; rigid bodies: 1; joints: 2;\n"
        "output results: netcdf;\nend: control data;\nbegin: nodes;\n"
        "structural: 1, static, null, eye, null, null;\n"
        "structural: 2, dynamic, 1., 0., 0., eye, orientation description, orientation vector, "
        "0., 2., 0., 0., 0., 2.;\nend: nodes;\nbegin: elements;\n"
        "body: 1, 2, 1., null, diag, 0.1, 0.1, 0.1;\n"
        "joint: 1, clamp, 1, node, node;\n"
        "joint: 6, total joint, 1, position, null, 2, position, -1., 0., 0., "
        "position constraint, active, active, active, null, "
        "orientation constraint, inactive, inactive, inactive, null;\n"
        "end: elements;\n";
    const RunFiles run = RunInto(text, "netcdf_writer_total");
    const auto mov = Lines(run.prefix + ".mov");
    const auto jnt = Lines(run.prefix + ".jnt");
    int ncid = -1;
    Ok(nc_open((run.prefix + ".nc").c_str(), NC_NOWRITE, &ncid));
    const int x = Var(ncid, "elem.joint.6.X");
    CHECK(Text(ncid, x, "description") == "local relative position (x, y, z)");
    CHECK(Text(ncid, x, "units") == "Length");
    CHECK(Text(ncid, Var(ncid, "elem.joint.6.Phi"), "units") == "radian");
    CHECK(Text(ncid, Var(ncid, "elem.joint.6.V"), "units") == "Velocity");
    CHECK(Text(ncid, Var(ncid, "elem.joint.6.Omega"), "units") == "Angular velocity");
    CHECK(Text(ncid, Var(ncid, "elem.joint.6"), "type") == "total");  // OutputPrepare_int
    const size_t n = mov.size() / 2;
    REQUIRE(n == 11);
    REQUIRE(jnt.size() == 2 * n);
    for (size_t k = 0; k < n; ++k) {
        const auto& row = jnt[2 * k + 1];
        REQUIRE(row.size() == 25);
        CHECK(row[0] == 6);
        const char* vars[8] = {"f", "m", "F", "M", "X", "Phi", "V", "Omega"};
        for (int a = 0; a < 8; ++a) {
            const auto v = Record(ncid, std::string("elem.joint.6.") + vars[a], k, 3);
            for (int i = 0; i < 3; ++i) CHECK(Close(v[i], row[1 + 3 * a + i]));
        }
        const auto& m2 = mov[2 * k + 1];
        const auto phi = Record(ncid, "elem.joint.6.Phi", k, 3);
        const auto omega = Record(ncid, "elem.joint.6.Omega", k, 3);
        const auto X = Record(ncid, "elem.joint.6.X", k, 3);
        for (int i = 0; i < 3; ++i) {
            CHECK(std::abs(phi[i] - m2[4 + i]) <= 1e-5 * std::abs(m2[4 + i]) + 1e-8);
            CHECK(std::abs(omega[i] - m2[10 + i]) <= 1e-5 * std::abs(m2[10 + i]) + 1e-8);
            CHECK(std::abs(X[i]) <= 1e-8);
        }
        if (k > 0) CHECK(phi[2] > 1e-3);  // it turns
    }
    Ok(nc_close(ncid));
}

TEST_CASE("output units name the units attributes as MBDyn composes them") {
    struct Case {
        const char* statement;
        const char* x;
        const char* v;
        const char* w;
        const char* t;
        const char* f;
        const char* m;
    };
    for (const Case& c : {
             Case{"", "Length", "Velocity", "Angular velocity", "Time", "Force", "Moment"},
             Case{"output units: MKS;\n", "m", "m s^-1", "rad s^-1", "s", "N", "N m"},
             Case{"output units: CGS;\n", "cm", "cm s^-1", "rad s^-1", "s", "dyn", "dyn cm"},
             Case{"output units: MMTMS;\n", "mm", "mm ms^-1", "rad ms^-1", "ms", "N", "N mm"},
             Case{"output units: custom, length, \"ft\", mass, \"slug\", time, \"min\", "
                  "current, \"A\", temperature, \"R\";\n",
                  "ft", "ft min^-1", "rad min^-1", "min", "slug ft min^-2", "slug ft min^-2 ft"},
         }) {
        INFO(c.statement);
        Deck deck = ReadDeckText(DeckText(std::string("output results: netcdf;\n") + c.statement),
                                 "run.mbd", GlobalRegistry());
        const fs::path dir = fs::temp_directory_path() / "netcdf_writer_units";
        fs::remove_all(dir);
        fs::create_directories(dir);
        const std::string prefix = (dir / "run").string();
        deck.settings.final_time = 0.0;
        RunOptions opt;
        opt.output_prefix = prefix;
        opt.progress = false;
        Run(deck, opt, GlobalRegistry());
        int ncid = -1;
        Ok(nc_open((prefix + ".nc").c_str(), NC_NOWRITE, &ncid));
        CHECK(Text(ncid, Var(ncid, "node.struct.2.X"), "units") == c.x);
        CHECK(Text(ncid, Var(ncid, "node.struct.2.XP"), "units") == c.v);
        CHECK(Text(ncid, Var(ncid, "node.struct.2.Omega"), "units") == c.w);
        CHECK(Text(ncid, Var(ncid, "time"), "units") == c.t);
        CHECK(Text(ncid, Var(ncid, "run.timestep"), "units") == c.t);
        CHECK(Text(ncid, Var(ncid, "run.step"), "units") == "Dimensionless");
        CHECK(Text(ncid, Var(ncid, "elem.joint.1.F"), "units") == c.f);
        CHECK(Text(ncid, Var(ncid, "elem.joint.1.m"), "units") == c.m);
        CHECK(Text(ncid, Var(ncid, "node.struct.2.Phi"), "units") == "radian");
        Ok(nc_close(ncid));
    }
}

/// Records of the .nc on disk now (its header's record count, written by nc_sync).
size_t RecordsOnDisk(const std::string& path) {
    int ncid = -1;
    Ok(nc_open(path.c_str(), NC_NOWRITE, &ncid));
    size_t n = 0;
    Ok(nc_inq_dimlen(ncid, 0, &n));
    Ok(nc_close(ncid));
    return n;
}

TEST_CASE("the .nc is written at the text files' flushes and ends on their step") {
    const fs::path dir = fs::temp_directory_path() / "netcdf_writer_flush";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string prefix = (dir / "run").string();
    auto count_lines = [](const std::string& path) {
        std::ifstream f(path);
        size_t n = 0;
        for (std::string line; std::getline(f, line);) ++n;
        return n;
    };
    // Interval 0: after every step the .nc has that step's record, as the .mov its two lines.
    {
        Deck deck =
            ReadDeckText(DeckText("output results: netcdf;\n"), "run.mbd", GlobalRegistry());
        RunOptions opt;
        opt.output_prefix = prefix;
        opt.progress = false;
        opt.flush_interval = 0.0;
        size_t step = 0;
        opt.on_step = [&](double, const Formulation&) {
            ++step;
            CHECK(RecordsOnDisk(prefix + ".nc") == step);
            CHECK(count_lines(prefix + ".mov") == 2 * step);
        };
        REQUIRE(Run(deck, opt, GlobalRegistry()).completed);
        CHECK(step == 5);
        CHECK(RecordsOnDisk(prefix + ".nc") == 5);
    }
    // An interval longer than the run: no record until the run ends, then all of them.
    {
        Deck deck =
            ReadDeckText(DeckText("output results: netcdf;\n"), "run.mbd", GlobalRegistry());
        RunOptions opt;
        opt.output_prefix = prefix;
        opt.progress = false;
        opt.flush_interval = 1e9;
        int calls = 0;
        opt.on_step = [&](double, const Formulation&) {
            ++calls;
            CHECK(RecordsOnDisk(prefix + ".nc") == 0);
            CHECK(count_lines(prefix + ".mov") == 0);
        };
        REQUIRE(Run(deck, opt, GlobalRegistry()).completed);
        CHECK(calls == 5);
        CHECK(RecordsOnDisk(prefix + ".nc") == 5);
    }
    // A stop request after step 2: the .nc ends on step 2 with the text files.
    {
        Deck deck =
            ReadDeckText(DeckText("output results: netcdf;\n"), "run.mbd", GlobalRegistry());
        std::atomic<int> stop{0};
        RunOptions opt;
        opt.output_prefix = prefix;
        opt.progress = false;
        opt.stop_request = &stop;
        int calls = 0;
        opt.on_step = [&](double, const Formulation&) {
            if (++calls == 3) stop = 2;  // SIGINT, after step 2 (the first call is step 0)
        };
        CHECK_FALSE(Run(deck, opt, GlobalRegistry()).completed);
        CHECK(count_lines(prefix + ".mov") == 2 * 3);
        CHECK(RecordsOnDisk(prefix + ".nc") == 3);
    }
}

TEST_CASE("a NetCDF file that cannot be created stops the run before it starts") {
    Deck deck = ReadDeckText(DeckText("output results: netcdf;\n"), "run.mbd", GlobalRegistry());
    const fs::path dir = fs::temp_directory_path() / "netcdf_writer_blocked";
    fs::remove_all(dir);
    fs::create_directories(dir / "run.nc");  // a folder where the .nc should go
    RunOptions opt;
    opt.output_prefix = (dir / "run").string();
    opt.progress = false;
    CHECK_THROWS_WITH_AS(Run(deck, opt, GlobalRegistry()),
                         doctest::Contains(("NetCDF output " + (dir / "run.nc").string()).c_str()),
                         RunError);
}

#endif
