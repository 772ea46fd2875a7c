#include "mbstep/io/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include "mbstep/io/number_format.hpp"
#include "mbstep/math/rotation.hpp"
#include "output_columns.hpp"

namespace mbstep {

namespace {

/// Monotonic wall time for the flush deadline. Linux's CLOCK_MONOTONIC_COARSE (resolution of a
/// few milliseconds, plenty for an interval of seconds) is read without the time-stamp counter,
/// several times cheaper per step than steady_clock.
std::int64_t MonotonicNanoseconds() {
#ifdef CLOCK_MONOTONIC_COARSE
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
#else
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
#endif
}

/// The orientation columns at o (up to 9 numbers, a space before each); returns the end.
char* WriteOrientation(char* o, const Mat3& R, OrientationOutput kind, int precision) {
    if (kind == OrientationOutput::kOrientationMatrix) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                *o++ = ' ';
                o = FormatNumber(o, R(i, j), precision);
            }
        return o;
    }
    return FormatVector3(o, output_columns::OrientationAngles(R, kind), precision);
}

/// Room for a .mov line: a label and at most 18 numbers with their spaces.
constexpr int kMovLineChars = 24 + 18 * (kMaxNumberChars + 1) + 1;

// label x y z  orientation  vx vy vz  wx wy wz
void AppendMovLine(std::string& out, int label, const FrameState& s, OrientationOutput kind,
                   int precision) {
    char line[kMovLineChars];
    char* o = FormatNumber(line, static_cast<long>(label));
    o = FormatVector3(o, s.x, precision);
    o = WriteOrientation(o, s.R, kind, precision);
    o = FormatVector3(o, s.v, precision);
    o = FormatVector3(o, s.w, precision);
    *o++ = '\n';
    out.append(line, static_cast<size_t>(o - line));
}

}  // namespace

void AppendOrientation(std::string& out, const Mat3& R, OrientationOutput o, int precision) {
    char buf[9 * (kMaxNumberChars + 1)];
    const char* end = WriteOrientation(buf, R, o, precision);
    out.append(buf + 1, static_cast<size_t>(end - buf - 1));  // without the first space
}

void AppendOrientationValues(std::vector<double>& out, const Mat3& R, OrientationOutput o) {
    if (o == OrientationOutput::kOrientationMatrix) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) out.push_back(R(i, j));
        return;
    }
    const Vec3 a = output_columns::OrientationAngles(R, o);
    out.insert(out.end(), a.data(), a.data() + 3);
}

std::string FormatOrientation(const Mat3& R, OrientationOutput o, int precision) {
    std::string s;
    AppendOrientation(s, R, o, precision);
    return s;
}

std::streamsize OutputWriter::AppendBuf::xsputn(const char* p, std::streamsize n) {
    s_.append(p, static_cast<size_t>(n));
    return n;
}

OutputWriter::AppendBuf::int_type OutputWriter::AppendBuf::overflow(int_type c) {
    if (!traits_type::eq_int_type(c, traits_type::eof()))
        s_.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
}

OutputWriter::OutputWriter(const std::string& prefix, const RunSettings& settings,
                           const Model& model, const Integrator* integrator, double flush_interval)
    : settings_(settings),
      model_(model),
      integrator_(integrator),
      interval_ns_(flush_interval > 0.0
                       ? static_cast<std::int64_t>(std::min(flush_interval, 1e9) * 1e9)
                       : 0) {
    const bool text = settings.output_text;
    if (text) mov_ = &Open(prefix + ".mov");
    out_ = &Open(prefix + ".out");
    log_ = &Open(prefix + ".log");
    csv_ = &Open(prefix + ".csv");
    if (text && !model.abstract_nodes().empty()) abs_ = &Open(prefix + ".abs");
    if (settings.output_vtk) {
        vtk_ = std::make_unique<VtkSeriesWriter>(prefix, model, settings.output_precision);
        files_.push_back(vtk_->pvd_path());
    }
    if (settings.output_netcdf) {
        netcdf_ = std::make_unique<NetcdfWriter>(prefix, model, settings);
        files_.push_back(netcdf_->path());
    }
    // One file per extension of the elements' output lines (.jnt joints, .act beams), opened in
    // the order their first element appears; each element writes to its own.
    for (const auto& e : model.elements()) {
        const ElementOutput* eo = e->output();
        element_output_.push_back(eo);
        if (!text || !eo || !eo->HasReactionOutput() || !settings.ElementOutput(e->statement())) {
            element_file_.push_back(-1);
            continue;
        }
        const std::string ext = eo->output_extension();
        int k = 0;
        while (k < static_cast<int>(element_ext_.size()) && element_ext_[k] != ext) ++k;
        if (k == static_cast<int>(element_ext_.size())) {
            element_ext_.push_back(ext);
            element_buf_.push_back(std::make_unique<AppendBuf>(Open(prefix + "." + ext).buffer));
            element_out_.push_back(std::make_unique<std::ostream>(element_buf_.back().get()));
            element_out_.back()->precision(settings.output_precision);
        }
        element_file_.push_back(k);
    }
    out_->buffer += "# Step Time TStep NIter ResErr SolErr SolConv Out\n";
    csv_->buffer +=
        "time,kinetic,potential,energy,px,py,pz,lx,ly,lz,constraint_violation,iterations";
    std::string columns;
    if (integrator_)
        for (const auto& [name, meaning] : integrator_->ExtraCsvColumns()) {
            csv_->buffer += ',' + name;
            columns += ".csv column " + name + ": " + meaning + "\n";
        }
    csv_->buffer += '\n';
    pending_log_ = columns;  // after the model summary (the first WriteLog)
    deadline_ns_ = MonotonicNanoseconds() + interval_ns_;
}

OutputWriter::~OutputWriter() {
    try {
        Flush();
    } catch (const std::exception&) {  // a destructor does not throw; Flush reported it before
    }
    for (const auto& f : open_)
        if (f->fd >= 0) ::close(f->fd);
}

OutputWriter::File& OutputWriter::Open(const std::string& path) {
    auto f = std::make_unique<File>();
    f->path = path;
    f->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (f->fd < 0) throw RunError("cannot open output file " + path + ": " + std::strerror(errno));
    // The buffers are written when together they reach kMaxBuffered, so each holds at most that
    // plus a step: reserved now, a run does not reallocate them while they fill (untouched
    // pages of the reservation cost no memory).
    f->buffer.reserve(kMaxBuffered);
    files_.push_back(path);
    open_.push_back(std::move(f));
    return *open_.back();
}

void OutputWriter::Flush() {
    for (const auto& f : open_) {
        const char* p = f->buffer.data();
        size_t left = f->buffer.size();
        while (left > 0) {
            const ssize_t n = ::write(f->fd, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                const std::string why = n < 0 ? std::strerror(errno) : "nothing written";
                f->buffer.erase(0, f->buffer.size() - left);
                throw RunError("cannot write output file " + f->path + ": " + why);
            }
            p += n;
            left -= static_cast<size_t>(n);
        }
        f->buffer.clear();
    }
    if (vtk_) vtk_->Flush();
    if (netcdf_) netcdf_->Flush();
    deadline_ns_ = MonotonicNanoseconds() + interval_ns_;
}

void OutputWriter::WriteStop(const std::string& message) {
    out_->buffer += "# " + message + "\n";
    WriteLog(message + "\n");
}

void OutputWriter::WriteLog(const std::string& text) {
    log_->buffer += text;
    log_->buffer += pending_log_;
    pending_log_.clear();
    Flush();
}

void OutputWriter::WriteStep(int step, double t, double dt, const StepStats& stats, bool output,
                             const Formulation& f) {
    const int p = settings_.output_precision;
    char line[512];  // the .out line, then the .csv line
    char* o = line;
    std::memcpy(o, "Step ", 5);
    o = FormatNumber(o + 5, static_cast<long>(step));
    *o++ = ' ';
    o = FormatNumber(o, t, p);
    *o++ = ' ';
    o = FormatNumber(o, dt, p);
    *o++ = ' ';
    o = FormatNumber(o, static_cast<long>(stats.iterations));
    *o++ = ' ';
    o = FormatNumber(o, stats.residual, p);
    *o++ = ' ';
    o = FormatNumber(o, stats.solution, p);
    const bool converged = settings_.solver.solution_tolerance > 0 &&
                           stats.solution <= settings_.solver.solution_tolerance;
    std::memcpy(o, converged ? " 1 " : " 0 ", 3);
    o += 3;
    *o++ = output ? '1' : '0';
    *o++ = '\n';
    out_->buffer.append(line, static_cast<size_t>(o - line));
    if (output) {
        const auto& states = f.node_states();
        if (mov_) {
            std::string& mov = mov_->buffer;
            for (size_t i = 0; i < states.size(); ++i) {
                const StructuralNode& n = model_.nodes()[i];
                if (n.output) AppendMovLine(mov, n.label, states[i], n.orientation_output, p);
            }
            // Dummy nodes after the nodes with unknowns, as MBDyn writes them.
            for (const DummyNode& n : model_.dummy_nodes())
                if (n.output)
                    AppendMovLine(mov, n.label, n.Evaluate(states), n.orientation_output, p);
        }
        if (abs_) {  // MBDyn's .abs: label, value, derivative
            const auto& abs_states = f.abstract_states();
            std::string& out = abs_->buffer;
            for (size_t i = 0; i < abs_states.size(); ++i) {
                const AbstractNode& n = model_.abstract_nodes()[i];
                if (!n.output) continue;
                AppendNumber(out, static_cast<long>(n.label));
                out.push_back(' ');
                AppendNumber(out, abs_states[i].x, p);
                out.push_back(' ');
                AppendNumber(out, abs_states[i].xp, p);
                out.push_back('\n');
            }
        }
        if (!element_out_.empty()) {
            const auto& elems = model_.elements();
            for (size_t e = 0; e < elems.size(); ++e) {
                if (element_file_[e] < 0) continue;
                node_ptrs_.clear();
                for (int k : elems[e]->nodes()) node_ptrs_.push_back(&states[k]);
                ElementContext ctx{t, node_ptrs_.data(), f.multipliers(static_cast<int>(e)),
                                   model_.gravity() ? model_.gravity()->At(t) : Vec3::Zero()};
                element_output_[e]->WriteReaction(*element_out_[element_file_[e]], ctx);
            }
        }
        if (vtk_)
            vtk_->AddStep(
                step, t, states, [&f](int e) { return f.multipliers(e); },
                model_.gravity() ? model_.gravity()->At(t) : Vec3::Zero());
        if (netcdf_)
            netcdf_->AddStep(
                step, t, dt, states, [&f](int e) { return f.multipliers(e); },
                model_.gravity() ? model_.gravity()->At(t) : Vec3::Zero());
        const Invariants inv = f.ComputeInvariants();
        o = line;
        for (double v :
             {t, inv.kinetic, inv.potential, inv.kinetic + inv.potential, inv.momentum.x(),
              inv.momentum.y(), inv.momentum.z(), inv.angular_momentum.x(),
              inv.angular_momentum.y(), inv.angular_momentum.z(), inv.constraint_violation}) {
            o = FormatNumber(o, v, 12);
            *o++ = ',';
        }
        o = FormatNumber(o, static_cast<long>(stats.iterations));
        std::string& csv = csv_->buffer;
        csv.append(line, static_cast<size_t>(o - line));
        if (integrator_) {
            extra_.clear();
            integrator_->ExtraCsvValues(extra_);
            for (double v : extra_) {
                csv.push_back(',');
                AppendNumber(csv, v, 12);
            }
        }
        csv.push_back('\n');
    }
    // A step boundary: write when the interval has passed or the buffers are large.
    size_t buffered = 0;
    for (const auto& file : open_) buffered += file->buffer.size();
    if (vtk_) buffered += vtk_->buffered();
    if (netcdf_) buffered += netcdf_->buffered();
    if (interval_ns_ == 0 || buffered >= kMaxBuffered || MonotonicNanoseconds() >= deadline_ns_)
        Flush();
}

}  // namespace mbstep
