#include "mbstep/io/output.hpp"

#include <iomanip>

#include "mbstep/io/number_format.hpp"
#include "mbstep/math/rotation.hpp"

namespace mbstep {

void AppendOrientation(std::string& out, const Mat3& R, OrientationOutput o, int precision) {
    constexpr double kDeg = 180.0 / M_PI;
    Vec3 a = Vec3::Zero();
    switch (o) {
        case OrientationOutput::kEuler123:
            a = Euler123FromRotation(R) * kDeg;
            break;
        case OrientationOutput::kEuler313:
            a = Euler313FromRotation(R) * kDeg;
            break;
        case OrientationOutput::kEuler321:
            a = Euler321FromRotation(R) * kDeg;
            break;
        case OrientationOutput::kOrientationVector:
            a = LogSO3(R);
            break;
        case OrientationOutput::kOrientationMatrix:
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) {
                    if (i + j) out.push_back(' ');
                    AppendNumber(out, R(i, j), precision);
                }
            return;
    }
    AppendNumber(out, a.x(), precision);
    out.push_back(' ');
    AppendNumber(out, a.y(), precision);
    out.push_back(' ');
    AppendNumber(out, a.z(), precision);
}

std::string FormatOrientation(const Mat3& R, OrientationOutput o, int precision) {
    std::string s;
    AppendOrientation(s, R, o, precision);
    return s;
}

namespace {
// label x y z  orientation  vx vy vz  wx wy wz
void AppendMovLine(std::string& out, int label, const FrameState& s, OrientationOutput o,
                   int precision) {
    AppendNumber(out, label);
    AppendVector3(out, s.x, precision);
    out.push_back(' ');
    AppendOrientation(out, s.R, o, precision);
    AppendVector3(out, s.v, precision);
    AppendVector3(out, s.w, precision);
    out.push_back('\n');
}
}  // namespace

OutputWriter::OutputWriter(const std::string& prefix, const RunSettings& settings,
                           const Model& model, const Integrator* integrator)
    : settings_(settings), model_(model), integrator_(integrator) {
    mov_ = Open(prefix + ".mov");
    out_ = Open(prefix + ".out");
    log_ = Open(prefix + ".log");
    csv_ = Open(prefix + ".csv");
    // One file per extension of the elements' output lines (.jnt joints, .act beams), opened in
    // the order their first element appears; each element writes to its own.
    for (const auto& e : model.elements()) {
        if (!e->HasReactionOutput() || !settings.ElementOutput(e->statement())) {
            element_file_.push_back(-1);
            continue;
        }
        const std::string ext = e->output_extension();
        int k = 0;
        while (k < static_cast<int>(element_ext_.size()) && element_ext_[k] != ext) ++k;
        if (k == static_cast<int>(element_ext_.size())) {
            element_ext_.push_back(ext);
            element_out_.push_back(std::make_unique<std::ofstream>(Open(prefix + "." + ext)));
        }
        element_file_.push_back(k);
    }
    out_ << "# Step Time TStep NIter ResErr SolErr SolConv Out\n";
    csv_ << "time,kinetic,potential,energy,px,py,pz,lx,ly,lz,constraint_violation,iterations";
    std::string columns;
    if (integrator_)
        for (const auto& [name, meaning] : integrator_->ExtraCsvColumns()) {
            csv_ << ',' << name;
            columns += ".csv column " + name + ": " + meaning + "\n";
        }
    csv_ << '\n';
    pending_log_ = columns;  // after the model summary (the first WriteLog)
    out_.flush();
    csv_.flush();
}

std::ofstream OutputWriter::Open(const std::string& path) {
    std::ofstream f(path);
    if (!f) throw RunError("cannot open output file " + path);
    files_.push_back(path);
    return f;
}

void OutputWriter::WriteStop(const std::string& message) {
    out_ << "# " << message << "\n";
    out_.flush();
    WriteLog(message + "\n");
}

void OutputWriter::WriteLog(const std::string& text) {
    log_ << text << pending_log_;
    pending_log_.clear();
    log_.flush();
}

void OutputWriter::WriteStep(int step, double t, double dt, const StepStats& stats, bool output,
                             const Formulation& f) {
    const int p = settings_.output_precision;
    line_.clear();
    line_ += "Step ";
    AppendNumber(line_, static_cast<long>(step));
    line_.push_back(' ');
    AppendNumber(line_, t, p);
    line_.push_back(' ');
    AppendNumber(line_, dt, p);
    line_.push_back(' ');
    AppendNumber(line_, static_cast<long>(stats.iterations));
    line_.push_back(' ');
    AppendNumber(line_, stats.residual, p);
    line_.push_back(' ');
    AppendNumber(line_, stats.solution, p);
    line_ += settings_.solver.solution_tolerance > 0 &&
                     stats.solution <= settings_.solver.solution_tolerance
                 ? " 1 "
                 : " 0 ";
    line_ += output ? "1\n" : "0\n";
    out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
    out_.flush();
    if (!output) return;
    const auto& states = f.node_states();
    line_.clear();
    for (size_t i = 0; i < states.size(); ++i) {
        const StructuralNode& n = model_.nodes()[i];
        if (n.output) AppendMovLine(line_, n.label, states[i], n.orientation_output, p);
    }
    // Dummy nodes after the nodes with unknowns, as MBDyn writes them.
    for (const DummyNode& n : model_.dummy_nodes())
        if (n.output) AppendMovLine(line_, n.label, n.Evaluate(states), n.orientation_output, p);
    mov_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
    mov_.flush();
    if (!element_out_.empty()) {
        const auto& elems = model_.elements();
        for (auto& os : element_out_) *os << std::setprecision(p);
        for (size_t e = 0; e < elems.size(); ++e) {
            if (element_file_[e] < 0) continue;
            node_ptrs_.clear();
            for (int k : elems[e]->nodes()) node_ptrs_.push_back(&states[k]);
            ElementContext ctx{t, node_ptrs_.data(), f.multipliers(static_cast<int>(e)),
                               model_.gravity() ? model_.gravity()->At(t) : Vec3::Zero()};
            elems[e]->WriteReaction(*element_out_[element_file_[e]], ctx);
        }
        for (auto& os : element_out_) os->flush();
    }
    const Invariants inv = f.ComputeInvariants();
    line_.clear();
    for (double v :
         {t, inv.kinetic, inv.potential, inv.kinetic + inv.potential, inv.momentum.x(),
          inv.momentum.y(), inv.momentum.z(), inv.angular_momentum.x(), inv.angular_momentum.y(),
          inv.angular_momentum.z(), inv.constraint_violation}) {
        AppendNumber(line_, v, 12);
        line_.push_back(',');
    }
    AppendNumber(line_, static_cast<long>(stats.iterations));
    if (integrator_) {
        extra_.clear();
        integrator_->ExtraCsvValues(extra_);
        for (double v : extra_) {
            line_.push_back(',');
            AppendNumber(line_, v, 12);
        }
    }
    line_.push_back('\n');
    csv_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
    csv_.flush();
}

}  // namespace mbstep
