// mbstep — the VTK XML time series (vtk.hpp).
#include "mbstep/io/vtk.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "mbstep/io/number_format.hpp"
#include "mbstep/model/element_output.hpp"

namespace mbstep {

namespace {

// VTK cell types (vtkCellType.h).
constexpr int kVtkVertex = 1;
constexpr int kVtkLine = 3;
constexpr int kVtkPolyLine = 4;

// Cell data `kind`: what a cell draws, so a ParaView Threshold filter selects one kind.
constexpr long kKindNode = 0;

long CellKind(const std::string& statement) {
    if (statement == "body") return 1;
    if (statement == "joint") return 2;
    if (statement == "beam3" || statement == "beam2" || statement == "beam") return 3;
    if (statement == "force" || statement == "couple") return 4;
    return 5;  // any other element on structural nodes
}

constexpr const char* kPvdTail = "  </Collection>\n</VTKFile>\n";

void WriteAll(int fd, const std::string& path, const char* p, size_t n, long offset) {
    while (n > 0) {
        const ssize_t k = offset >= 0 ? ::pwrite(fd, p, n, offset) : ::write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            throw RunError("cannot write output file " + path + ": " +
                           (k < 0 ? std::strerror(errno) : "nothing written"));
        p += k;
        n -= static_cast<size_t>(k);
        if (offset >= 0) offset += k;
    }
}

void OpenArray(std::string& s, const char* type, const char* name, int components) {
    s += "        <DataArray type=\"";
    s += type;
    s += "\" Name=\"";
    s += name;
    s += '"';
    if (components > 1) s += " NumberOfComponents=\"" + std::to_string(components) + '"';
    s += " format=\"ascii\">\n";
}

constexpr const char* kCloseArray = "\n        </DataArray>\n";

void IntArray(std::string& s, const char* type, const char* name, const std::vector<long>& v) {
    OpenArray(s, type, name, 1);
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s.push_back(' ');
        AppendNumber(s, v[i]);
    }
    s += kCloseArray;
}

template <class Get>
void VectorArray(std::string& s, const char* name, size_t n, int precision, Get get) {
    OpenArray(s, "Float64", name, 3);
    for (size_t i = 0; i < n; ++i) {
        if (i) s.push_back('\n');
        const Vec3 v = get(i);
        char buf[3 * (kMaxNumberChars + 1)];
        const char* end = FormatVector3(buf, v, precision);
        s.append(buf + 1, static_cast<size_t>(end - buf - 1));  // without the first space
    }
    s += kCloseArray;
}

/// The shortest digits that read back as v (std::to_chars without a precision): the times.
void AppendTime(std::string& s, double v) {
    char buf[32];
    s.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

}  // namespace

VtkSeriesWriter::VtkSeriesWriter(const std::string& prefix, const Model& model, int precision)
    : model_(model), precision_(precision) {
    for (const auto& e : model.elements()) element_output_.push_back(e->output());
    namespace fs = std::filesystem;
    pvd_path_ = prefix + ".pvd";
    folder_ = prefix + "-vtk";
    for (char c : fs::path(folder_).filename().string()) {  // an XML attribute value
        if (c == '&')
            folder_name_ += "&amp;";
        else if (c == '"')
            folder_name_ += "&quot;";
        else if (c == '<')
            folder_name_ += "&lt;";
        else
            folder_name_ += c;
    }
    std::error_code ec;
    fs::create_directories(folder_, ec);
    if (ec || !fs::is_directory(folder_))
        throw RunError("cannot create the VTK folder " + folder_ +
                       (ec ? ": " + ec.message() : std::string(": not a folder")));
    // Files of an earlier run that this one may not overwrite.
    for (const auto& entry : fs::directory_iterator(folder_, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("step-", 0) == 0 && entry.path().extension() == ".vtu")
            fs::remove(entry.path(), ec);
    }
    pvd_fd_ = ::open(pvd_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (pvd_fd_ < 0)
        throw RunError("cannot open output file " + pvd_path_ + ": " + std::strerror(errno));
    const std::string head =
        "<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
        "  <Collection>\n";
    WriteAll(pvd_fd_, pvd_path_, (head + kPvdTail).data(), head.size() + std::strlen(kPvdTail), 0);
    pvd_end_ = static_cast<long>(head.size());
}

VtkSeriesWriter::~VtkSeriesWriter() {
    try {
        Flush();
    } catch (const std::exception&) {  // a destructor does not throw; Flush reported it before
    }
    if (pvd_fd_ >= 0) ::close(pvd_fd_);
}

void VtkSeriesWriter::AddStep(int step, double t, const std::vector<FrameState>& states,
                              const std::function<const double*(int)>& lambda,
                              const Vec3& gravity) {
    // Points: the structural nodes, then the dummy nodes.
    points_.assign(states.begin(), states.end());
    std::vector<long> point_label;
    for (const StructuralNode& n : model_.nodes()) point_label.push_back(n.label);
    for (const DummyNode& n : model_.dummy_nodes()) {
        points_.push_back(n.Evaluate(states));
        point_label.push_back(n.label);
    }
    const size_t np = points_.size();
    // Cells: a vertex per point, then the elements.
    std::vector<long> conn, offsets, types, cell_label, cell_kind;
    std::vector<Vec3> cell_force, cell_moment;
    auto add_cell = [&](int type, const int* nodes, int count, long label, long kind, const Vec3& F,
                        const Vec3& M) {
        for (int k = 0; k < count; ++k) conn.push_back(nodes[k]);
        offsets.push_back(static_cast<long>(conn.size()));
        types.push_back(type);
        cell_label.push_back(label);
        cell_kind.push_back(kind);
        cell_force.push_back(F);
        cell_moment.push_back(M);
    };
    for (size_t i = 0; i < np; ++i) {
        const int p = static_cast<int>(i);
        add_cell(kVtkVertex, &p, 1, point_label[i], kKindNode, Vec3::Zero(), Vec3::Zero());
    }
    const auto& elems = model_.elements();
    for (size_t e = 0; e < elems.size(); ++e) {
        const Element& el = *elems[e];
        const std::vector<int>& nodes = el.nodes();
        const int k = static_cast<int>(nodes.size());
        if (k == 0) continue;
        const long kind = CellKind(el.statement());
        node_ptrs_.clear();
        for (int n : nodes) node_ptrs_.push_back(&states[static_cast<size_t>(n)]);
        const ElementContext ctx{t, node_ptrs_.data(), lambda(static_cast<int>(e)), gravity};
        force_.clear();
        moment_.clear();
        if (const ElementOutput* eo = element_output_[e]) eo->OutputVectors(ctx, force_, moment_);
        const size_t pairs = std::min(force_.size(), moment_.size());
        if (k >= 2 && pairs == static_cast<size_t>(k - 1)) {  // one line per segment
            for (int s = 0; s + 1 < k; ++s)
                add_cell(kVtkLine, &nodes[static_cast<size_t>(s)], 2, el.label(), kind, force_[s],
                         moment_[s]);
        } else {
            add_cell(k == 1   ? kVtkVertex
                     : k == 2 ? kVtkLine
                              : kVtkPolyLine,
                     nodes.data(), k, el.label(), kind, pairs ? force_[0] : Vec3::Zero(),
                     pairs ? moment_[0] : Vec3::Zero());
        }
    }
    const size_t nc = types.size();

    const int prec = precision_;
    std::string s;
    s.reserve(np * 6 * 3 * 16 + nc * 64 + 1024);
    s += "<?xml version=\"1.0\"?>\n"
         "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
         "header_type=\"UInt64\">\n"
         "  <UnstructuredGrid>\n"
         "    <FieldData>\n"
         "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
         "format=\"ascii\">\n        ";
    AppendTime(s, t);
    s += "\n      </DataArray>\n"
         "      <DataArray type=\"Int64\" Name=\"Step\" NumberOfTuples=\"1\" "
         "format=\"ascii\">\n        ";
    AppendNumber(s, static_cast<long>(step));
    s += "\n      </DataArray>\n"
         "    </FieldData>\n"
         "    <Piece NumberOfPoints=\"" +
         std::to_string(np) + "\" NumberOfCells=\"" + std::to_string(nc) +
         "\">\n"
         "      <PointData Scalars=\"label\" Vectors=\"velocity\">\n";
    IntArray(s, "Int32", "label", point_label);
    VectorArray(s, "velocity", np, prec, [&](size_t i) { return points_[i].v; });
    VectorArray(s, "angular_velocity", np, prec, [&](size_t i) { return points_[i].w; });
    VectorArray(s, "axis_1", np, prec, [&](size_t i) { return Vec3(points_[i].R.col(0)); });
    VectorArray(s, "axis_2", np, prec, [&](size_t i) { return Vec3(points_[i].R.col(1)); });
    VectorArray(s, "axis_3", np, prec, [&](size_t i) { return Vec3(points_[i].R.col(2)); });
    s += "      </PointData>\n"
         "      <CellData Scalars=\"label\" Vectors=\"force\">\n";
    IntArray(s, "Int32", "label", cell_label);
    IntArray(s, "UInt8", "kind", cell_kind);
    VectorArray(s, "force", nc, prec, [&](size_t i) { return cell_force[i]; });
    VectorArray(s, "moment", nc, prec, [&](size_t i) { return cell_moment[i]; });
    s += "      </CellData>\n"
         "      <Points>\n";
    VectorArray(s, "position", np, prec, [&](size_t i) { return points_[i].x; });
    s += "      </Points>\n"
         "      <Cells>\n";
    IntArray(s, "Int64", "connectivity", conn);
    IntArray(s, "Int64", "offsets", offsets);
    IntArray(s, "UInt8", "types", types);
    s += "      </Cells>\n"
         "    </Piece>\n"
         "  </UnstructuredGrid>\n"
         "</VTKFile>\n";
    char name[40];
    std::snprintf(name, sizeof name, "step-%06d.vtu", step);
    buffered_ += s.size();
    pending_.push_back(Pending{name, t, std::move(s)});
}

void VtkSeriesWriter::Flush() {
    if (pending_.empty()) return;
    std::string entries, failure;
    size_t written = 0;
    for (; written < pending_.size(); ++written) {
        const Pending& p = pending_[written];
        const std::string path = folder_ + "/" + p.name;
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0) {
            failure = "cannot open output file " + path + ": " + std::strerror(errno);
            break;
        }
        try {
            WriteAll(fd, path, p.text.data(), p.text.size(), -1);
        } catch (const RunError& e) {
            failure = e.what();
            ::close(fd);
            break;
        }
        ::close(fd);
        entries += "    <DataSet timestep=\"";
        AppendTime(entries, p.t);
        entries += "\" group=\"\" part=\"0\" file=\"" + folder_name_ + "/" + p.name + "\"/>\n";
    }
    // The entries of the written files, then the closing tags again.
    const std::string tail = entries + kPvdTail;
    WriteAll(pvd_fd_, pvd_path_, tail.data(), tail.size(), pvd_end_);
    pvd_end_ += static_cast<long>(entries.size());
    for (size_t i = 0; i < written; ++i) buffered_ -= pending_[i].text.size();
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(written));
    if (!failure.empty()) throw RunError(failure);
}

}  // namespace mbstep
