// mbstep — `mbstep study`: the reference, the errors against it, the orders and slopes, and
// the files and plots (study_parts.hpp).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "mbstep/math/rotation.hpp"
#include "mbstep/math/so3.hpp"
#include "plot_script.hpp"
#include "study_parts.hpp"

namespace mbstep::study {

namespace {

// ---------------------------------------------------------------------------------------------
// Reference file: an MBDyn .mov (label x y z <orientation> vx vy vz wx wy wz per node and
// output step; the last line of each label is taken) or a CSV `label,x,y,z[,vx,vy,vz]` (header
// and `#` lines skipped; the last row of each label is taken). The .mov's orientation columns
// are read as the deck's node writes them (`orientation`: its `default orientation` or the
// node's own; euler angles in degrees), nine columns as the orientation matrix whatever the
// deck says (MBDyn's output of `orientation matrix`).

Mat3 MovOrientation(const double* c, int columns, OrientationOutput kind) {
    constexpr double kRad = M_PI / 180.0;
    if (columns == 9) {
        Mat3 R;
        R << c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8];
        return R;
    }
    const Vec3 a(c[0], c[1], c[2]);
    switch (kind) {
        case OrientationOutput::kEuler313:
            return RotationFromEuler313(a * kRad);
        case OrientationOutput::kEuler321:
            return RotationFromEuler321(a * kRad);
        case OrientationOutput::kOrientationVector:
            return so3::Exp(a);
        case OrientationOutput::kEuler123:
        case OrientationOutput::kOrientationMatrix:  // 3 columns: not a matrix (caller checks)
            break;
    }
    return RotationFromEuler123(a * kRad);
}

}  // namespace

std::vector<NodeFinal> ReadReferenceFile(const std::string& path, unsigned quantities,
                                         const std::map<int, OrientationOutput>& orientation) {
    std::ifstream in(path);
    if (!in) throw StudyError("cannot read reference file '" + path + "'");
    const bool csv = std::filesystem::path(path).extension() == ".csv";
    std::map<int, NodeFinal> last;
    std::vector<int> order;
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        const std::string t = Trim(line);
        if (t.empty() || t[0] == '#') continue;
        std::vector<std::string> tok;
        if (csv) {
            std::stringstream ss(t);
            std::string item;
            while (std::getline(ss, item, ',')) tok.push_back(Trim(item));
        } else {
            std::istringstream ss(t);
            std::string item;
            while (ss >> item) tok.push_back(item);
        }
        std::vector<double> v;
        bool numeric = true;
        for (const auto& s : tok) {
            char* end = nullptr;
            const double d = std::strtod(s.c_str(), &end);
            if (s.empty() || *end != '\0') {
                numeric = false;
                break;
            }
            v.push_back(d);
        }
        const std::string where = path + ":" + std::to_string(line_no) + ": ";
        if (!numeric) {
            if (csv && last.empty()) continue;  // a header
            throw StudyError(where + "not a row of numbers");
        }
        NodeFinal n;
        n.label = static_cast<int>(v[0]);
        if (csv) {
            if (v.size() != 4 && v.size() != 7)
                throw StudyError(where + "expected label,x,y,z[,vx,vy,vz]");
            if ((quantities & kVelocity) && v.size() != 7)
                throw StudyError(where + "--error velocity needs columns vx,vy,vz");
            if (quantities & (kOrientation | kAngularVelocity))
                throw StudyError(where +
                                 "--error orientation or angular-velocity needs a .mov "
                                 "reference (a CSV reference holds positions and velocities)");
            n.has_orientation = false;
            for (int k = 0; k < 3; ++k) n.x[k] = v[1 + k];
            if (v.size() == 7)
                for (int k = 0; k < 3; ++k) n.v[k] = v[4 + k];
        } else {
            if (v.size() != 13 && v.size() != 19)
                throw StudyError(where +
                                 "expected an MBDyn .mov line: label, position, 3 or 9 "
                                 "orientation columns, velocity, angular velocity");
            const int oc = static_cast<int>(v.size()) - 10;
            const auto kind = orientation.find(n.label);
            const Mat3 R = MovOrientation(
                &v[4], oc, kind == orientation.end() ? OrientationOutput::kEuler123 : kind->second);
            for (int k = 0; k < 3; ++k) {
                n.x[k] = v[1 + k];
                n.v[k] = v[4 + oc + k];
                n.w[k] = v[7 + oc + k];
                for (int j = 0; j < 3; ++j) n.R[3 * k + j] = R(k, j);
            }
        }
        if (!last.count(n.label)) order.push_back(n.label);
        last[n.label] = n;
    }
    if (last.empty()) throw StudyError("reference file '" + path + "' holds no node");
    std::vector<NodeFinal> out;
    for (int l : order) out.push_back(last[l]);
    return out;
}

namespace {

/// The errors of one run, per quantity: max over the nodes of the reference of |x - x_ref|,
/// |v - v_ref|, the geodesic angle between R and R_ref (the angle of R^T R_ref, rad) and
/// |w - w_ref| (2-norms); NaN with `problem` set when nodes of the reference are missing
/// from the run.
struct Errors {
    double value[4]{0, 0, 0, 0};  ///< in the order of kQuantities
    /// The max over the selected quantities.
    double Of(unsigned quantities) const {
        double e = 0.0;
        for (int k = 0; k < 4; ++k)
            if (quantities & kQuantities[k].q) e = std::max(e, value[k]);
        return e;
    }
};

Errors ComputeErrors(const std::vector<NodeFinal>& run, const std::vector<NodeFinal>& ref,
                     bool from_file, std::string& problem) {
    std::map<int, const NodeFinal*> by_label;
    for (const auto& n : run) by_label[n.label] = &n;
    Errors e;
    int matched = 0;
    auto distance = [](const double* a, const double* b) {
        return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                         (a[2] - b[2]) * (a[2] - b[2]));
    };
    for (const auto& r : ref) {
        const auto it = by_label.find(r.label);
        if (it == by_label.end()) {
            if (from_file) continue;  // e.g. a dummy node of the .mov
            problem = "node " + std::to_string(r.label) + " missing";
            for (double& v : e.value) v = NAN;
            return e;
        }
        ++matched;
        const NodeFinal& n = *it->second;
        e.value[0] = std::max(e.value[0], distance(n.x, r.x));
        e.value[1] = std::max(e.value[1], distance(n.v, r.v));
        if (r.has_orientation) {
            const Mat3 R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(n.R);
            const Mat3 Rr = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(r.R);
            e.value[2] = std::max(e.value[2], GeodesicAngle(R, Rr));
            e.value[3] = std::max(e.value[3], distance(n.w, r.w));
        }
    }
    if (matched == 0) {
        problem = "no node label of the reference is a node of the model";
        for (double& v : e.value) v = NAN;
    }
    return e;
}

/// Least-squares slope of log e against log h.
double FitSlope(const std::vector<double>& h, const std::vector<double>& e) {
    const size_t n = h.size();
    if (n < 2) return NAN;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; ++i) {
        const double x = std::log(h[i]), y = std::log(e[i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double den = n * sxx - sx * sx;
    return den > 0 ? (n * sxy - sx * sy) / den : NAN;
}

}  // namespace

std::string CsvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string Num(double v, int precision) {
    if (!std::isfinite(v)) return "";
    std::ostringstream os;
    os << std::setprecision(precision) << v;
    return os.str();
}

int Report(const StudyPlan& p, const std::vector<Outcome>& outcomes) {
    std::vector<NodeFinal> ref_nodes = p.reference_nodes;
    const size_t first = p.reference_from_file ? 0 : 1;
    bool ref_ok = true;
    if (!p.reference_from_file) {
        ref_ok = outcomes[0].ok;
        ref_nodes = outcomes[0].nodes;
        if (!ref_ok)
            std::cerr << "mbstep study: error: the reference run (" << p.reference_text
                      << ") failed: " << outcomes[0].message << "\n";
    }

    const size_t n = p.jobs.size();
    std::vector<double> error(n, NAN), order(n, NAN);
    std::vector<Errors> errors(n);
    for (auto& e : errors)
        for (double& v : e.value) v = NAN;
    std::vector<std::string> status(n);
    for (size_t i = first; i < n; ++i) {
        const Outcome& o = outcomes[i];
        if (!o.ok) {
            status[i] = "failed: " + o.message;
            continue;
        }
        if (!ref_ok) {
            status[i] = "ok (no reference)";
            continue;
        }
        std::string problem;
        errors[i] = ComputeErrors(o.nodes, ref_nodes, p.reference_from_file, problem);
        error[i] = errors[i].Of(p.quantities);
        status[i] = std::isnan(error[i]) ? "failed: " + problem : "ok";
    }
    // Local orders against the previous (larger) step of the same series, and fitted slopes.
    std::vector<double> slope(p.series.size(), NAN);
    std::vector<int> points(p.series.size(), 0);
    for (size_t s = 0; s < p.series.size(); ++s) {
        std::vector<double> hs, es;
        long prev = -1;
        for (size_t i = first; i < n; ++i) {
            if (p.jobs[i].series != static_cast<int>(s)) continue;
            const bool usable = std::isfinite(error[i]) && error[i] > 0.0;
            if (usable && prev >= 0)
                order[i] =
                    std::log(error[prev] / error[i]) / std::log(p.jobs[prev].h / p.jobs[i].h);
            if (usable) {
                prev = static_cast<long>(i);
                hs.push_back(p.jobs[i].h);
                es.push_back(error[i]);
            } else {
                prev = -1;
            }
        }
        slope[s] = FitSlope(hs, es);
        points[s] = static_cast<int>(hs.size());
    }

    const std::string csv_path = p.prefix + ".csv";
    const auto dir = std::filesystem::path(csv_path).parent_path();
    if (!dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);  // a failure shows when opening below
    }
    std::ofstream csv(csv_path);
    if (!csv) throw StudyError("cannot write " + csv_path);
    // `quantity`: the --error selection (e.g. "orientation"); error_<q>: each quantity's error.
    std::string quantity;
    for (const auto& k : kQuantities)
        if (p.quantities & k.q) quantity += (quantity.empty() ? "" : "+") + std::string(k.name);
    csv << "method,formulation,h,steps,quantity,error,order";
    for (const auto& k : kQuantities) {
        std::string col = k.name;
        std::replace(col.begin(), col.end(), '-', '_');
        csv << ",error_" << col;
    }
    csv << ",newton_iterations,factorizations,cpu_seconds,status\n";
    for (size_t i = first; i < n; ++i) {
        const Job& j = p.jobs[i];
        const Outcome& o = outcomes[i];
        csv << CsvField(j.method) << ',' << CsvField(j.formulation) << ',' << Num(j.h) << ','
            << o.steps << ',' << quantity << ',' << Num(error[i]) << ',' << Num(order[i], 6);
        for (double e : errors[i].value) csv << ',' << Num(e);
        csv << ',' << (o.iterations >= 0 ? std::to_string(o.iterations) : "") << ','
            << (o.factorizations >= 0 ? std::to_string(o.factorizations) : "") << ','
            << Num(o.cpu_seconds, 6) << ',' << CsvField(status[i]) << '\n';
    }
    csv.close();
    const std::string slopes_path = p.prefix + "-slopes.csv";
    std::ofstream sl(slopes_path);
    if (!sl) throw StudyError("cannot write " + slopes_path);
    sl << "method,formulation,declared_order,fitted_slope,points,reference\n";
    for (size_t s = 0; s < p.series.size(); ++s)
        sl << CsvField(p.series[s].method) << ',' << CsvField(p.series[s].formulation) << ','
           << p.series[s].declared_order << ',' << Num(slope[s], 6) << ',' << points[s] << ','
           << CsvField((p.reference_from_file ? "file " : "") + p.reference_text) << '\n';
    sl.close();

    // Summary on stdout.
    std::cout << "mbstep study " << p.kind << ": " << (n - first) << " runs of "
              << p.setup.deck_path << " to t = " << p.setup.final_time << "; reference "
              << (p.reference_from_file ? "file " : "") << p.reference_text << "\n";
    for (size_t s = 0; s < p.series.size(); ++s) {
        double cpu = 0.0;
        int failed = 0, zero = 0;
        for (size_t i = first; i < n; ++i)
            if (p.jobs[i].series == static_cast<int>(s)) {
                cpu += outcomes[i].cpu_seconds;
                failed += status[i] != "ok";
                zero += error[i] == 0.0;
            }
        std::cout << "  " << p.series[s].method << " @ " << p.series[s].formulation
                  << ": fitted slope " << (std::isfinite(slope[s]) ? Num(slope[s], 3) : "-")
                  << " over " << points[s] << " steps (declared order "
                  << p.series[s].declared_order << "), CPU " << Num(cpu, 3) << " s"
                  << (failed ? ", " + std::to_string(failed) + " runs without an error" : "")
                  << (zero ? ", " + std::to_string(zero) + " runs with error 0 in " + quantity +
                                 " (try --error all)"
                           : "")
                  << "\n";
    }
    std::cout << csv_path << "\n" << slopes_path << "\n";

    if (p.plot)
        RunPlotScript("study_plot.py", "MBSTEP_STUDY_PLOT",
                      ShellQuote(csv_path) + " --kind " + p.kind + " --work " + p.work,
                      "mbstep study");
    return ref_ok ? 0 : 1;
}

}  // namespace mbstep::study
