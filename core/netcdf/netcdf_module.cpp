// mbstep — the NetCDF writer module mbstep-netcdf.so: a run in MBDyn's NetCDF layout
// (mbstep/io/netcdf.hpp) with Unidata's netCDF C library (netcdf.h). NetcdfWriter
// (core/src/io/netcdf.cpp) loads it when a run asks for a .nc (core/src/io/netcdf_backend.hpp).
#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>

#include "../src/io/netcdf_backend.hpp"
#include "../src/io/output_columns.hpp"
#include "mbstep/common.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep {

namespace {

/// The units attributes of the dimensions mbstep writes, as MBDyn names them
/// (mbdyn/base/output.cc): without `output units` the dimension's name (DimensionNames,
/// SetUnspecifiedUnits); with a unit system its base units, the derived ones composed as
/// SetDerivedUnits does, and the names SetMKSUnits, SetCGSUnits, ... give Force and Moment.
struct UnitNames {
    std::string dimensionless{"Dimensionless"}, time{"Time"}, length{"Length"},
        velocity{"Velocity"}, angular_velocity{"Angular velocity"}, force{"Force"},
        moment{"Moment"};
    std::string Of(OutputQuantity q) const {
        switch (q) {
            case OutputQuantity::kLength:
                return length;
            case OutputQuantity::kVelocity:
                return velocity;
            case OutputQuantity::kAngularVelocity:
                return angular_velocity;
            case OutputQuantity::kForce:
                return force;
            case OutputQuantity::kMoment:
                return moment;
            case OutputQuantity::kRadians:
                return "radian";
            case OutputQuantity::kDegrees:
                return "deg";
            case OutputQuantity::kDimensionless:
                break;
        }
        return "-";
    }
};

UnitNames MakeUnitNames(const RunSettings::OutputUnits& u) {
    UnitNames n;
    if (u.system.empty()) return n;
    std::string mass;
    if (u.system == "MKS") {
        n.length = "m", mass = "kg", n.time = "s";
    } else if (u.system == "CGS") {
        n.length = "cm", mass = "kg", n.time = "s";
    } else if (u.system == "MMTMS") {
        n.length = "mm", mass = "ton", n.time = "ms";
    } else if (u.system == "MMKGMS") {
        n.length = "mm", mass = "kg", n.time = "ms";
    } else {  // custom
        n.length = u.length, mass = u.mass, n.time = u.time;
    }
    n.velocity = n.length + " " + n.time + "^-1";
    n.angular_velocity = "rad " + n.time + "^-1";
    n.force = mass + " " + n.length + " " + n.time + "^-2";
    n.moment = n.force + " " + n.length;
    if (u.system == "MKS") {
        n.force = "N", n.moment = "N m";
    } else if (u.system == "CGS") {
        n.force = "dyn", n.moment = "dyn cm";
    } else if (u.system == "MMTMS") {
        n.force = "N", n.moment = "N mm";
    } else if (u.system == "MMKGMS") {
        n.force = "kN", n.moment = "N m";
    }
    return n;
}

/// A node's or joint's values of one record: where they start in the record and how many.
struct Slot {
    int var;
    int offset;
    int size;  // 1 (scalar), 3 (Vec3) or 9 (Mat3x3)
};

}  // namespace

struct Impl {
    const Model& model;
    int ncid{-1};
    int var_step{-1}, var_time{-1}, var_dt{-1};
    std::vector<Slot> slots;
    int stride{2};  // doubles per record: time, dt, then the slots
    // Per node (Model::nodes(), then dummy nodes) and joint with output: its first slot.
    struct NodeOut {
        int index;  // into Model::nodes() (dummy: into dummy_nodes())
        bool dummy;
        OrientationOutput orientation;
        int slot;
    };
    std::vector<NodeOut> nodes;
    struct ElementOut {
        int element;
        const ElementOutput* output;  // Element::output(), asked once by the constructor
        int slot;
        int count;  // variables
        int size;   // doubles of all its variables
    };
    std::vector<ElementOut> elements;
    std::vector<double> element_values;
    // Kept records.
    std::vector<int> steps;
    std::vector<double> values;
    size_t records{0};  // written so far
    std::vector<double> gather;
    std::vector<const FrameState*> node_ptrs;

    explicit Impl(const Model& m) : model(m) {}
};

class NcFile final : public netcdf_module::Backend {
  public:
    NcFile(const std::string& path, const Model& model, const RunSettings& settings,
           std::vector<std::string>& names);
    ~NcFile() override;
    void AddStep(int step, double t, double dt, const std::vector<FrameState>& states,
                 const std::function<const double*(int)>& lambda, const Vec3& gravity) override;
    void Flush() override;
    size_t buffered() const override;

  private:
    std::string path_;
    std::vector<std::string>& names_;
    std::unique_ptr<Impl> impl_;
};

namespace {

[[noreturn]] void Fail(const std::string& path, const char* what, int status) {
    throw RunError("NetCDF output " + path + ": " + what + ": " + nc_strerror(status));
}

void Check(int status, const std::string& path, const char* what) {
    if (status != NC_NOERR) Fail(path, what, status);
}

void PutText(int ncid, int var, const std::string& path, const char* name,
             const std::string& value) {
    Check(nc_put_att_text(ncid, var, name, value.size(), value.c_str()), path, "attribute");
}

/// MBDyn's CreateVar<T>(name, dimension, description): attributes units, type, description.
int DefineVar(int ncid, const std::string& path, const std::string& name, nc_type type,
              const std::vector<int>& dims, const std::string& units, const char* type_name,
              const std::string& description) {
    int var = -1;
    Check(nc_def_var(ncid, name.c_str(), type, static_cast<int>(dims.size()), dims.data(), &var),
          path, ("variable " + name).c_str());
    PutText(ncid, var, path, "units", units);
    PutText(ncid, var, path, "type", type_name);
    PutText(ncid, var, path, "description", description);
    return var;
}

/// MBDyn's CreateVar(name, type): a char [Vec1] variable whose attribute `type` names the kind.
void DefineKind(int ncid, const std::string& path, const std::string& name, int dim_v1,
                const std::string& kind) {
    int var = -1;
    Check(nc_def_var(ncid, name.c_str(), NC_CHAR, 1, &dim_v1, &var), path,
          ("variable " + name).c_str());
    PutText(ncid, var, path, "type", kind);
}

const char* EulerSequence(OrientationOutput o) {
    switch (o) {
        case OrientationOutput::kEuler313:
            return "313";
        case OrientationOutput::kEuler321:
            return "321";
        default:
            return "123";
    }
}

/// The orientation values as MBDyn's CreateRotationVar describes them (9 for R, else 3).
int WriteOrientation(double* out, const Mat3& R, OrientationOutput o) {
    if (o == OrientationOutput::kOrientationMatrix) {
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) *out++ = R(i, j);  // R11, R21, R31, R12, ...
        return 9;
    }
    const Vec3 a = output_columns::OrientationAngles(R, o);
    for (int i = 0; i < 3; ++i) out[i] = a[i];
    return 3;
}

void Put3(double* out, const Vec3& v) {
    for (int i = 0; i < 3; ++i) out[i] = v[i];
}

}  // namespace

NcFile::NcFile(const std::string& path, const Model& model, const RunSettings& settings,
               std::vector<std::string>& names)
    : path_(path), names_(names), impl_(std::make_unique<Impl>(model)) {
    Impl& m = *impl_;
    // MBDyn opens the file in the classic format, replacing it (OutputHandler::NetCDFOpen).
    Check(nc_create(path_.c_str(), NC_CLOBBER, &m.ncid), path_, "cannot create");
    const int ncid = m.ncid;
    int dim_time = -1, dim_v1 = -1, dim_v3 = -1;
    Check(nc_def_dim(ncid, "time", NC_UNLIMITED, &dim_time), path_, "dimension time");
    Check(nc_def_dim(ncid, "Vec1", 1, &dim_v1), path_, "dimension Vec1");
    Check(nc_def_dim(ncid, "Vec3", 3, &dim_v3), path_, "dimension Vec3");
    const UnitNames units = MakeUnitNames(settings.output_units);
    // DataManager::OutputPrepare.
    m.var_step = DefineVar(ncid, path_, "run.step", NC_INT, {dim_time}, units.dimensionless,
                           "integer", "time step index");
    m.var_time = DefineVar(ncid, path_, "time", NC_DOUBLE, {dim_time}, units.time, "doublereal",
                           "simulation time");
    m.var_dt = DefineVar(ncid, path_, "run.timestep", NC_DOUBLE, {dim_time}, units.time,
                         "doublereal", "integration time step");
    const std::vector<int> vec3{dim_time, dim_v3};
    auto add_vec3 = [&](const std::string& name, const std::string& unit, const std::string& what) {
        const int var = DefineVar(ncid, path_, name, NC_DOUBLE, vec3, unit, "Vec3", what);
        m.slots.push_back(Slot{var, m.stride, 3});
        m.stride += 3;
        names_.push_back(name);
    };
    // StructNode::OutputPrepare: the node's kind, then X, the orientation, XP, Omega.
    auto add_node = [&](int label, const char* kind, OrientationOutput o) {
        const std::string base = "node.struct." + std::to_string(label);
        DefineKind(ncid, path_, base, dim_v1, kind);
        names_.push_back(base);
        const int first = static_cast<int>(m.slots.size());
        add_vec3(base + ".X", units.length, "global position vector (X, Y, Z)");
        // OutputHandler::CreateRotationVar(name, "", od, "global").
        if (o == OrientationOutput::kOrientationMatrix) {
            const std::string name = base + ".R";
            const int var =
                DefineVar(ncid, path_, name, NC_DOUBLE, {dim_time, dim_v3, dim_v3}, "-", "Mat3x3",
                          "global orientation matrix (R11, R21, R31, R12, R22, R32, "
                          "R13, R23, R33)");
            m.slots.push_back(Slot{var, m.stride, 9});
            m.stride += 9;
            names_.push_back(name);
        } else if (o == OrientationOutput::kOrientationVector) {
            add_vec3(base + ".Phi", "radian", "global orientation vector (Phi_X, Phi_Y, Phi_Z)");
        } else {
            add_vec3(base + ".E", "deg",
                     std::string("global orientation Euler angles (") + EulerSequence(o) +
                         ") (E_X, E_Y, E_Z)");
        }
        add_vec3(base + ".XP", units.velocity, "global velocity vector (v_X, v_Y, v_Z)");
        add_vec3(base + ".Omega", units.angular_velocity,
                 "global angular velocity vector (omega_X, omega_Y, omega_Z)");
        return first;
    };
    const auto& nodes = model.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
        const StructuralNode& n = nodes[i];
        if (!n.output) continue;
        const bool is_static = n.kind == NodeKind::kStatic || model.static_model();
        const int slot = add_node(n.label, is_static ? "static" : "dynamic", n.orientation_output);
        m.nodes.push_back({static_cast<int>(i), false, n.orientation_output, slot});
    }
    const auto& dummies = model.dummy_nodes();
    for (size_t i = 0; i < dummies.size(); ++i) {
        const DummyNode& n = dummies[i];
        if (!n.output) continue;
        const int slot = add_node(n.label, "dummy", n.orientation_output);
        m.nodes.push_back({static_cast<int>(i), true, n.orientation_output, slot});
    }
    // An element's variable of any shape (OutputHandler::CreateVar<doublereal>, <Vec3>, and
    // CreateRotationVar's matrix): [time], [time, Vec3] or [time, Vec3, Vec3].
    auto add_var = [&](const std::string& name, const std::string& unit, const std::string& what,
                       NetcdfShape shape) {
        if (shape == NetcdfShape::kVec3) return add_vec3(name, unit, what);
        const bool scalar = shape == NetcdfShape::kScalar;
        const std::vector<int> dims =
            scalar ? std::vector<int>{dim_time} : std::vector<int>{dim_time, dim_v3, dim_v3};
        const int var = DefineVar(ncid, path_, name, NC_DOUBLE, dims, unit,
                                  scalar ? "doublereal" : "Mat3x3", what);
        const int size = NetcdfSize(shape);
        m.slots.push_back(Slot{var, m.stride, size});
        m.stride += size;
        names_.push_back(name);
    };
    // The elements' groups (Joint::OutputPrepare_int and the joints' own, Beam::OutputPrepare,
    // the forces' and couples'): the group's kind, then its variables; by element type as
    // MBDyn's DataManager::OutputPrepare defines them (joints, beams, then forces and couples),
    // in the order read within a type.
    const auto& elems = model.elements();
    std::vector<std::pair<int, size_t> > order;
    std::vector<NetcdfGroup> groups(elems.size());
    for (size_t e = 0; e < elems.size(); ++e) {
        const ElementOutput* eo = elems[e]->output();
        if (!eo || !settings.ElementOutput(elems[e]->statement())) continue;
        groups[e] = eo->NetcdfDescription(*elems[e]);
        const std::string& p = groups[e].prefix;
        if (p.empty() || groups[e].variables.empty()) continue;
        order.emplace_back(p == "elem.joint" ? 0 : p == "elem.beam" ? 1 : 2, e);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& entry : order) {
        const size_t e = entry.second;
        const Element& el = *elems[e];
        const NetcdfGroup& g = groups[e];
        const std::string base = g.prefix + "." + std::to_string(el.label());
        DefineKind(ncid, path_, base, dim_v1, g.type);
        names_.push_back(base);
        const int slot = static_cast<int>(m.slots.size());
        int size = 0;
        for (const NetcdfVariable& v : g.variables) {
            add_var(base + "." + v.name, units.Of(v.quantity), v.description, v.shape);
            size += NetcdfSize(v.shape);
        }
        m.elements.push_back(
            {static_cast<int>(e), el.output(), slot, static_cast<int>(g.variables.size()), size});
    }
    Check(nc_enddef(ncid), path_, "header");
    Check(nc_sync(ncid), path_, "sync");
}

NcFile::~NcFile() {
    try {
        Flush();
    } catch (const std::exception&) {  // a destructor does not throw; Flush reported it before
    }
    if (impl_->ncid >= 0) nc_close(impl_->ncid);
}

size_t NcFile::buffered() const {
    return impl_->values.size() * sizeof(double) + impl_->steps.size() * sizeof(int);
}

void NcFile::AddStep(int step, double t, double dt, const std::vector<FrameState>& states,
                     const std::function<const double*(int)>& lambda, const Vec3& gravity) {
    Impl& m = *impl_;
    m.steps.push_back(step);
    const size_t at = m.values.size();
    m.values.resize(at + static_cast<size_t>(m.stride), std::numeric_limits<double>::quiet_NaN());
    double* rec = m.values.data() + at;
    rec[0] = t;
    rec[1] = dt;
    for (const Impl::NodeOut& n : m.nodes) {
        const FrameState s =
            n.dummy ? m.model.dummy_nodes()[static_cast<size_t>(n.index)].Evaluate(states)
                    : states[static_cast<size_t>(n.index)];
        const Slot* sl = &m.slots[static_cast<size_t>(n.slot)];
        Put3(rec + sl[0].offset, s.x);
        WriteOrientation(rec + sl[1].offset, s.R, n.orientation);
        Put3(rec + sl[2].offset, s.v);
        Put3(rec + sl[3].offset, s.w);
    }
    // An element's values: NetcdfValues (by default the numbers of its .jnt line, written at
    // 17 significant digits, which read back as the same doubles).
    for (const Impl::ElementOut& eo : m.elements) {
        const Element& el = *m.model.elements()[static_cast<size_t>(eo.element)];
        m.node_ptrs.clear();
        for (int k : el.nodes()) m.node_ptrs.push_back(&states[static_cast<size_t>(k)]);
        const ElementContext ctx{t, m.node_ptrs.data(), lambda(eo.element), gravity};
        if (!eo.output->NetcdfValues(ctx, m.element_values) ||
            m.element_values.size() < static_cast<size_t>(eo.size))
            continue;  // the record keeps NaN
        const double* value = m.element_values.data();
        for (int k = 0; k < eo.count; ++k) {
            const Slot& sl = m.slots[static_cast<size_t>(eo.slot + k)];
            for (int c = 0; c < sl.size; ++c) rec[sl.offset + c] = *value++;
        }
    }
}

void NcFile::Flush() {
    Impl& m = *impl_;
    const size_t k = m.steps.size();
    if (k == 0 || m.ncid < 0) return;
    const size_t stride = static_cast<size_t>(m.stride);
    size_t start[3] = {m.records, 0, 0};
    size_t count[3] = {k, 3, 3};
    Check(nc_put_vara_int(m.ncid, m.var_step, start, count, m.steps.data()), path_, "run.step");
    auto put_column = [&](int var, int offset, int size) {
        m.gather.resize(k * static_cast<size_t>(size));
        for (size_t r = 0; r < k; ++r)
            for (int c = 0; c < size; ++c)
                m.gather[r * static_cast<size_t>(size) + static_cast<size_t>(c)] =
                    m.values[r * stride + static_cast<size_t>(offset + c)];
        Check(nc_put_vara_double(m.ncid, var, start, count, m.gather.data()), path_, "values");
    };
    put_column(m.var_time, 0, 1);
    put_column(m.var_dt, 1, 1);
    for (const Slot& s : m.slots) put_column(s.var, s.offset, s.size);
    m.records += k;
    m.steps.clear();
    m.values.clear();
    Check(nc_sync(m.ncid), path_, "sync");
}

}  // namespace mbstep

extern "C" __attribute__((visibility("default"))) mbstep::netcdf_module::Backend*
mbstep_netcdf_create(const std::string& path, const mbstep::Model& model,
                     const mbstep::RunSettings& settings, std::vector<std::string>* names) {
    return new mbstep::NcFile(path, model, settings, *names);
}
