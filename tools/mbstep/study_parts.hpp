// mbstep — the parts of `mbstep study` (study.hpp) shared by its units: the jobs and their
// outcomes (study_run.cpp), the transport between MPI ranks (study_mpi.cpp), the reference,
// errors and files (study_report.cpp) and the plan read from the command line (study.cpp).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "mbstep/model/node.hpp"

namespace mbstep {

class Registry;

namespace study {

class StudyError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct NodeFinal {
    int label{0};
    double x[3]{0, 0, 0};
    double v[3]{0, 0, 0};
    double R[9]{1, 0, 0, 0, 1, 0, 0, 0, 1};  ///< orientation, row-major
    double w[3]{0, 0, 0};                    ///< angular velocity (global frame)
    bool has_orientation{true};              ///< false: a reference CSV row without it
};

struct Job {
    std::string method;       ///< method text as given, e.g. "ms, 0.6"
    std::string formulation;  ///< resolved formulation name
    double h{0.0};
    int series{-1};  ///< index into the method list; -1 for the reference run
};

struct Outcome {
    bool ok{false};
    int steps{0};         ///< converged steps (also of a failed run)
    long iterations{-1};  ///< -1: unknown (a failed run: Run() throws its summary away)
    long factorizations{-1};
    double cpu_seconds{0.0};
    std::vector<NodeFinal> nodes;
    std::string message;
};

struct Series {
    std::string method;
    std::string formulation;
    int declared_order{0};
};

/// The quantities of --error; the error is the max over the selected ones and the nodes.
enum Quantity : unsigned { kPosition = 1, kVelocity = 2, kOrientation = 4, kAngularVelocity = 8 };

struct QuantityInfo {
    Quantity q;
    const char* name;  ///< --error keyword and CSV column suffix
};
constexpr QuantityInfo kQuantities[] = {{kPosition, "position"},
                                        {kVelocity, "velocity"},
                                        {kOrientation, "orientation"},
                                        {kAngularVelocity, "angular-velocity"}};

struct RunSetup {
    std::string deck_path;
    double final_time{0.0};
    double tolerance{0.0};  ///< 0: the deck's
    int repeat{1};          ///< runs per job; the CPU time is their minimum
};

struct StudyPlan {
    std::string kind;
    RunSetup setup;
    std::vector<Series> series;
    std::vector<double> steps;  ///< decreasing
    std::vector<Job> jobs;      ///< jobs[0] is the reference run unless from_file
    bool reference_from_file{false};
    std::string reference_text;
    std::vector<NodeFinal> reference_nodes;  ///< from the file
    unsigned quantities{kPosition};          ///< Quantity bits of --error
    std::string work{"cpu_seconds"};         ///< the work plot's x column
    std::string prefix;
    int threads{1};
    bool plot{true};
    std::vector<std::string> warnings;
};

/// Trimmed of blanks and tabs (also the lists of `mbstep analyze`, main.cpp).
std::string Trim(const std::string& s);
/// A positive finite number, or StudyError naming `what`.
double ParsePositive(const std::string& text, const std::string& what);
/// `v` with `precision` digits; "" for NaN and infinities.
std::string Num(double v, int precision = 17);
/// `s` quoted for CSV when it holds a comma, a quote or a newline.
std::string CsvField(const std::string& s);

// study_run.cpp
/// Validates "METHOD[@FORMULATION]" and resolves the formulation (explicit, --formulation, or
/// the method's default); returns the series with its declared order.
Series ResolveMethod(const std::string& spec, const std::string& default_formulation,
                     const Registry& reg);
/// setup.repeat runs of the job (the same results, bit for bit: serial and deterministic);
/// the CPU time is the minimum over them, the least disturbed by other processes.
Outcome RunJob(const RunSetup& setup, const Job& job, const Registry& reg);

// study_mpi.cpp
/// One line per job, hexadecimal doubles (bit-exact).
std::string Serialize(int index, const Outcome& o);
/// Fills out[index] from Serialize's lines.
void Deserialize(const std::string& text, std::vector<Outcome>& out);

/// The MPI ranks (MPI initialised only when started by a launcher: mpirun / srun); without
/// MPI one rank.
class Ranks {
  public:
    Ranks();
    ~Ranks();
    Ranks(const Ranks&) = delete;
    Ranks& operator=(const Ranks&) = delete;
    /// Rank 0 receives every rank's text (concatenated); the others get "".
    std::string Gather(const std::string& mine) const;
    /// True on every rank iff `ok` on every rank.
    bool AllOk(bool ok) const;

    int rank{0};
    int size{1};
    bool mpi{false};
};

// study_report.cpp
std::vector<NodeFinal> ReadReferenceFile(const std::string& path, unsigned quantities,
                                         const std::map<int, OrientationOutput>& orientation);
/// Rank 0: errors, orders, slopes, files, summary. Returns the exit code.
int Report(const StudyPlan& p, const std::vector<Outcome>& outcomes);

}  // namespace study
}  // namespace mbstep
