// mbstep — reading a deck: blocks and statements (docs/input.md; MBDyn input manual).
//
// Structure (MBDyn manual, input/overview.tex): `begin: data;` (problem: initial value),
// `begin: initial value;` (solver settings, method), `begin: control data;` (counts and
// output settings), `begin: nodes;`, `begin: elements;`, in this order; `set:`, `reference:`,
// `drive caller:` and `include:` may appear anywhere. As in MBDyn, reading stops after
// `end: elements;`. The counts of control data are checked against the statements read:
// structural nodes, rigid bodies (body), joints (joint), forces (force and couple), beams
// (beam3 and beam2) and the gravity flag (gravity).
//
// Each block's statements are read through its keyword table (DeckReader::TableOf; the
// read-only view is mbstep/io/deck_keywords.hpp): keyword and aliases, handler, whether the
// statement acts, warns or is refused, and the lines of the input manual. The tables also
// give the "accepted:" lists of unknown keywords and the keyword tables of `mbstep manual`.
#include "mbstep/io/deck_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "deck_parser.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_keywords.hpp"
#include "mbstep/io/netcdf.hpp"
#include "mbstep/model/driven_element.hpp"

namespace mbstep {

namespace {

using detail::DeckParser;
using detail::KeywordKey;

enum class Block { kNone, kData, kInitialValue, kControlData, kNodes, kElements };

const char* BlockName(Block b) {
    switch (b) {
        case Block::kData:
            return "data";
        case Block::kInitialValue:
            return "initial value";
        case Block::kControlData:
            return "control data";
        case Block::kNodes:
            return "nodes";
        case Block::kElements:
            return "elements";
        default:
            return "";
    }
}

std::string Join(std::vector<std::string> names, bool sort = false) {
    if (sort) std::sort(names.begin(), names.end());
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

bool Is(const std::string& key, const char* keyword) { return detail::IsKeywordKey(key, keyword); }

constexpr int kIntMax = std::numeric_limits<int>::max();

std::string Format(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

/// The registered names of a kind (plugins not opened yet included), in registration order.
std::vector<std::string> NamesOf(const Registry& registry, PluginKind kind) {
    std::vector<std::string> names;
    for (const RegisteredName& n : registry.Names(kind)) names.push_back(n.name);
    return names;
}

/// `method: <name> [, parameters]`: the longest registered integrator name, then its reader.
std::unique_ptr<Integrator> ReadMethod(DeckParser& in, const Registry& registry,
                                       std::string* name) {
    const SourceLocation at = in.Where();
    const std::vector<std::string> names = NamesOf(registry, PluginKind::kIntegrator);
    const int i = in.MatchOneOf(names);
    if (i < 0)
        in.Fail(at, "unknown method " + in.NextToken() + "; registered: " +
                        (names.empty() ? std::string("none (no integrator plugins are loaded)")
                                       : Join(names, true)));
    const IntegratorDescriptor& d = *registry.FindIntegrator(names[i]);
    std::unique_ptr<Integrator> integrator;
    try {
        integrator = d.make(in);
    } catch (const DeckError&) {
        throw;
    } catch (const std::exception& e) {
        in.Fail(at, "method '" + d.name + "': " + e.what());
    }
    if (!integrator) in.Fail(at, "method '" + d.name + "' could not be created");
    in.EndStatement("method");
    if (name) *name = d.name;
    return integrator;
}

/// A count of control data (`joints: 1 + 15;`) and where it was given.
struct Count {
    long value{0};
    bool given{false};
    SourceLocation where;
};

/// What the deck defined of one kind, for the control data check.
struct Defined {
    long count{0};
    SourceLocation first;
};

class DeckReader {
  public:
    explicit DeckReader(const Registry& registry)
        : registry_(registry), in_(registry, symbols_, model_, warnings_) {}

    Deck ReadFile(const std::string& path) {
        in_.PushFile(path, nullptr);
        return Run(path);
    }
    Deck ReadText(const std::string& text, const std::string& name) {
        in_.PushText(text, name);
        return Run(name);
    }

    /// A statement being read through a keyword table: the keyword as written, where the
    /// statement starts, and the table's first name for it (MBDyn's spelling).
    struct Stmt {
        const std::string& keyword;
        const SourceLocation& where;
        const std::string& name;
    };
    using Handler = void (DeckReader::*)(const Stmt&);
    /// A row of a block's keyword table (mbstep/io/deck_keywords.hpp).
    struct Row {
        std::vector<std::string> names;  // MBDyn's spelling first, then aliases
        KeywordOutcome outcome;
        Handler handler;
        bool ends_itself;  // false: the dispatch reads the statement's `;` after the handler
        std::vector<KeywordManualLine> manual;
    };
    /// A block's rows, their index by keyword key (KeywordKey of each name) and their public
    /// view.
    struct Table {
        explicit Table(std::vector<Row> rows);
        std::vector<Row> rows;
        std::unordered_map<std::string, size_t> index;
        std::vector<KeywordEntry> entries;
        std::vector<std::string> accepted;
    };
    static const Table& TableOf(DeckBlock block);

  private:
    Deck Run(const std::string& path);
    void Statement();
    /// Reads the statement through the block's table; false if the table has no such keyword.
    bool Dispatch(DeckBlock block, const std::string& key, const std::string& keyword,
                  const SourceLocation& where);
    static std::string LinearSolverManual();
    void Begin(const SourceLocation& where);
    void End(const SourceLocation& where);
    void Data(const std::string& key, const std::string& keyword, const SourceLocation& where);
    void InitialValue(const std::string& key, const std::string& keyword,
                      const SourceLocation& where);
    void ControlData(const std::string& key, const std::string& keyword,
                     const SourceLocation& where);
    void Nodes(const std::string& key, const std::string& keyword, const SourceLocation& where);
    void Elements(const std::string& key, const std::string& keyword, const SourceLocation& where);
    // The tables' handlers. Anywhere:
    void SetStatement(const Stmt& st);
    void ReferenceStatementRow(const Stmt& st);
    void DriveCallerStatement(const Stmt& st);
    void ConstitutiveLawStatement(const Stmt& st);
    void IncludeStatement(const Stmt& st);
    void RemarkStatement(const Stmt& st);
    void PrintSymbolTableStatement(const Stmt& st);
    void ModuleLoadRow(const Stmt& st);
    void LoadablePathRow(const Stmt& st);
    void StatementNotSupported(const Stmt& st);
    // Shared by the blocks:
    void NotSupported(const Stmt& st);
    void Ignored(const Stmt& st);
    // Initial value:
    double NonNegative(const SourceLocation& at, double v, const char* what);
    void WarnDerivatives(const Stmt& st);
    void InitialTime(const Stmt& st);
    void FinalTime(const Stmt& st);
    void TimeStep(const Stmt& st);
    void MinTimeStep(const Stmt& st);
    void MaxTimeStep(const Stmt& st);
    void MethodStatement(const Stmt& st);
    void FormulationStatement(const Stmt& st);
    void Tolerance(const Stmt& st);
    void MaxIterations(const Stmt& st);
    void ModifyResidualTest(const Stmt& st);
    void DerivativesTolerance(const Stmt& st);
    void DerivativesMaxIterations(const Stmt& st);
    void DerivativesCoefficient(const Stmt& st);
    void NonlinearSolver(const Stmt& st);
    void LinearSolverStatement(const Stmt& st);
    void SolverOutput(const Stmt& st);
    void AbortAfter(const Stmt& st);
    void Strategy(const Stmt& st);
    // Control data:
    void CountStatement(const Stmt& st);
    void UnsupportedCount(const Stmt& st);
    void GravityFlag(const Stmt& st);
    void DefaultOrientation(const Stmt& st);
    void DefaultOutput(const Stmt& st);
    void OutputFrequency(const Stmt& st);
    void OutputMeter(const Stmt& st);
    void OutputPrecision(const Stmt& st);
    void SkipInitialJointAssembly(const Stmt& st);
    void TitleStatement(const Stmt& st);
    void AssemblyTolerance(const Stmt& st);
    void AssemblyMaxIterations(const Stmt& st);
    void InitialStiffness(const Stmt& st);
    void OmegaRotates(const Stmt& st);
    void UseStatement(const Stmt& st);
    void PrintStatement(const Stmt& st);
    void NoEffect(const Stmt& st);
    void OutputUnits(const Stmt& st);
    void ModelStatement(const Stmt& st);
    void OutputResults(const Stmt& st);
    // Nodes:
    void AbstractNodeRow(const Stmt& st) { AbstractNodeStatement(st.where); }
    void StructuralNodeRow(const Stmt& st) { StructuralNodeStatement(st.where); }
    void NodesNotSupported(const Stmt& st);
    // Elements:
    void DrivenRow(const Stmt& st) { DrivenStatement(st.where); }
    void UserDefinedRow(const Stmt& st) { UserDefinedStatement(st.where); }
    void InertiaStatement(const Stmt& st);
    void ElementNotProvided(const Stmt& st);

    void StructuralNodeStatement(const SourceLocation& where);
    void AbstractNodeStatement(const SourceLocation& where);
    void DummyNodeStatement(int label, const SourceLocation& where);
    /// An element statement; with `driven` (a `driven:` statement's drive), the element is
    /// wrapped in a DrivenElement with that label.
    void ElementStatement(const std::string& statement, const SourceLocation& where,
                          DrivePtr driven = nullptr, long driven_label = -1,
                          const ElementDescriptor* user_defined = nullptr);
    void DrivenStatement(const SourceLocation& where);
    /// `user defined: label, type, ...;`: any registered element type by its name.
    void UserDefinedStatement(const SourceLocation& where);
    /// `module load: "name";` and `loadable path: [set|add,] "dir";`.
    void ModuleLoad(const SourceLocation& where);
    void LoadablePath(const SourceLocation& where);
    void ReferenceStatement(const SourceLocation& where);
    [[noreturn]] void Unknown(const std::string& keyword, const SourceLocation& where,
                              const std::vector<std::string>& accepted);
    void CheckCount(const char* name, const Defined& defined);
    void Validate();

    const Registry& registry_;
    // The registry's element statements (normalized, each once) and, per statement, the names
    // registered under it: computed once, looked up for every element statement of the deck.
    std::vector<std::string> element_statements_;
    std::map<std::string, std::vector<std::string>> element_names_;
    const std::vector<std::string>& ElementStatements() {
        if (element_statements_.empty())
            for (const RegisteredName& d : registry_.Names(PluginKind::kElement)) {
                std::string s = Registry::Normalize(d.statement);
                if (std::find(element_statements_.begin(), element_statements_.end(), s) ==
                    element_statements_.end())
                    element_statements_.push_back(std::move(s));
            }
        return element_statements_;
    }
    const std::vector<std::string>& ElementNames(const std::string& statement) {
        auto it = element_names_.find(statement);
        if (it != element_names_.end()) return it->second;
        std::vector<std::string>& names = element_names_[statement];
        for (const RegisteredName& d : registry_.Names(PluginKind::kElement))
            if (Registry::Normalize(d.statement) == statement && !d.name.empty())
                names.push_back(d.name);
        return names;
    }
    // Registry::FindElement per (statement, type), each pair searched for once per deck (the
    // registry does not change while a deck is read: `module load` only checks).
    std::map<std::pair<std::string, std::string>, const ElementDescriptor*> element_found_;
    const ElementDescriptor* FindElement(const std::string& statement, const std::string& type) {
        std::pair<std::string, std::string> key(statement, type);
        auto it = element_found_.find(key);
        if (it != element_found_.end()) return it->second;
        const ElementDescriptor* d = registry_.FindElement(statement, type);
        element_found_.emplace(std::move(key), d);
        return d;
    }
    SymbolTable symbols_;
    Model model_;
    std::vector<std::string> warnings_;
    std::vector<std::string> remarks_;
    DeckParser in_;

    RunSettings settings_;
    std::unique_ptr<Integrator> integrator_;
    std::string method_name_;

    Block block_{Block::kNone};
    SourceLocation block_where_;
    std::map<Block, SourceLocation> seen_;
    bool done_{false};
    SourceLocation final_time_where_;
    bool final_time_given_{false};

    std::map<std::string, Count> counts_;  // by control data keyword
    bool gravity_flag_{false};
    SourceLocation gravity_flag_where_;
    Defined nodes_, abstract_nodes_, bodies_, joints_, forces_, gravity_, beams_, genels_, others_;
    Defined user_defined_;
    std::vector<std::string> module_path_;  // `loadable path:` folders, searched first
    std::map<std::string, std::map<long, std::pair<std::string, SourceLocation>>> labels_;
};

// ---------------------------------------------------------------------------------------------
// Main loop

Deck DeckReader::Run(const std::string& path) {
    // A statement refused as unsupported does not stop the reading: every such statement of
    // the deck is reported in one error (up to kMaxReported), the first one locating it. Any
    // other error stops at once (later statements could fail only as its consequence).
    constexpr int kMaxReported = 20;
    std::vector<DeckError> unsupported;
    auto fail_with = [&](const DeckError* last) {
        const DeckError& first = unsupported.empty() ? *last : unsupported.front();
        std::string message = first.message();
        std::vector<const DeckError*> more;
        for (size_t i = 1; i < unsupported.size(); ++i) more.push_back(&unsupported[i]);
        if (last && !unsupported.empty()) more.push_back(last);
        if (!more.empty()) {
            message += "\n  and " + std::to_string(more.size()) + " more error" +
                       (more.size() == 1 ? "" : "s") + ":";
            for (const DeckError* e : more) message += "\n  " + std::string(e->what());
            if (unsupported.size() >= kMaxReported) message += "\n  (reading stopped there)";
        }
        throw DeckError(first.where(), message);
    };
    while (!done_ && !in_.AtEnd()) {
        try {
            Statement();
        } catch (const DeckError& e) {
            if (e.message().find("not supported") == std::string::npos ||
                static_cast<int>(unsupported.size()) + 1 >= kMaxReported)
                fail_with(&e);
            unsupported.push_back(e);
            in_.SkipArguments();  // to the end of the refused statement
            if (!in_.AtEnd()) in_.EndStatement("statement");
        }
    }
    if (!unsupported.empty()) fail_with(nullptr);
    Validate();
    Deck deck;
    deck.path = path;
    deck.model = std::move(model_);
    deck.settings = std::move(settings_);
    deck.integrator = std::move(integrator_);
    deck.method_name = method_name_;
    deck.warnings = std::move(warnings_);
    deck.remarks = std::move(remarks_);
    return deck;
}

void DeckReader::Statement() {
    SourceLocation where;
    bool has_args = false;
    const std::string keyword = in_.ReadStatementKeyword(&where, &has_args);
    const std::string key = KeywordKey(keyword);
    if (Is(key, "begin")) return Begin(where);
    if (Is(key, "end")) return End(where);
    if (Dispatch(DeckBlock::kAnywhere, key, keyword, where)) return;
    switch (block_) {
        case Block::kData:
            return Data(key, keyword, where);
        case Block::kInitialValue:
            return InitialValue(key, keyword, where);
        case Block::kControlData:
            return ControlData(key, keyword, where);
        case Block::kNodes:
            return Nodes(key, keyword, where);
        case Block::kElements:
            return Elements(key, keyword, where);
        case Block::kNone:
            std::vector<std::string> accepted = AcceptedDeckKeywords(DeckBlock::kAnywhere);
            accepted.insert(accepted.begin(), "begin");
            Unknown(keyword, where, accepted);
    }
}

void DeckReader::Unknown(const std::string& keyword, const SourceLocation& where,
                         const std::vector<std::string>& accepted) {
    const std::string block = block_ == Block::kNone
                                  ? std::string("outside blocks")
                                  : "in " + std::string(BlockName(block_)) + " block";
    in_.Fail(where, "unknown keyword '" + keyword + "' " + block + "; accepted: " + Join(accepted));
}

// ---------------------------------------------------------------------------------------------
// Keyword tables (mbstep/io/deck_keywords.hpp): one per block, in the manual's order.

DeckReader::Table::Table(std::vector<Row> r) : rows(std::move(r)) {
    for (size_t i = 0; i < rows.size(); ++i) {
        KeywordEntry e;
        e.names = rows[i].names;
        e.outcome = rows[i].outcome;
        e.manual = rows[i].manual;
        entries.push_back(std::move(e));
        if (rows[i].outcome != KeywordOutcome::kRefused) accepted.push_back(rows[i].names.front());
        for (const std::string& n : rows[i].names)
            if (!index.emplace(KeywordKey(n), i).second)
                throw std::logic_error("deck keyword table: '" + n + "' given twice");
    }
}

bool DeckReader::Dispatch(DeckBlock block, const std::string& key, const std::string& keyword,
                          const SourceLocation& where) {
    const Table& table = TableOf(block);
    const auto it = table.index.find(key);
    if (it == table.index.end()) return false;
    const Row& row = table.rows[it->second];
    (this->*row.handler)(Stmt{keyword, where, row.names.front()});
    if (!row.ends_itself) in_.EndStatement(keyword);
    return true;
}

const DeckReader::Table& DeckReader::TableOf(DeckBlock block) {
    using O = KeywordOutcome;
    using L = std::vector<KeywordManualLine>;
    using D = DeckReader;
    constexpr bool kSelf = true;    // the handler ends the statement
    constexpr bool kEnded = false;  // the table's dispatch ends it (`;` after the arguments)
    switch (block) {
        case DeckBlock::kAnywhere: {
            // Statements valid everywhere (MBDyn manual, "Input Related Cards").
            static const Table t({
                {{"set"},
                 O::kActs,
                 &D::SetStatement,
                 kSelf,
                 L{{"`set: [const] {integer | real | bool | string} name = expression;`",
                    "variables of the expression language (`Time` is the simulation time in "
                    "drives)"}}},
                {{"reference"},
                 O::kActs,
                 &D::ReferenceStatementRow,
                 kSelf,
                 L{{"`reference: label, position, orientation, velocity, angular velocity;`",
                    "reference frames for `reference, label, ...`"}}},
                {{"drive caller"},
                 O::kActs,
                 &D::DriveCallerStatement,
                 kSelf,
                 L{{"`drive caller: label, <drive>;`", "named drives for `reference, label`"}}},
                {{"constitutive law"},
                 O::kActs,
                 &D::ConstitutiveLawStatement,
                 kSelf,
                 L{{"`constitutive law: label, dimension, <law>;`",
                    "named laws (dimension 1, 3, 6) for `reference, label`"}}},
                {{"include"},
                 O::kActs,
                 &D::IncludeStatement,
                 kSelf,
                 L{{"`include: \"file\";`", "relative to the including file"}}},
                {{"remark"},
                 O::kActs,
                 &D::RemarkStatement,
                 kSelf,
                 L{{"`remark: <string or expression>, ...;`", "printed with its location"}}},
                {{"print symbol table"},
                 O::kWarns,
                 &D::PrintSymbolTableStatement,
                 kSelf,
                 L{{"`print symbol table;`", "warns: no effect (`remark:` prints a variable)"}}},
                {{"module load"},
                 O::kActs,
                 &D::ModuleLoadRow,
                 kSelf,
                 L{{"`module load: \"name\";`",
                    "loads an mbstep plugin: a file (absolute, or relative to the deck's folder), "
                    "else `libmbstep_<name>.so`, `<name>.so`, `lib<name>.so` or `<name>` in the "
                    "`loadable path` folders, then the plugin search path; a plugin already "
                    "loaded from the search path is found loaded; MBDyn's own modules and module "
                    "arguments are refused"}}},
                {{"loadable path"},
                 O::kActs,
                 &D::LoadablePathRow,
                 kSelf,
                 L{{"`loadable path: [set | add,] \"folder\";`",
                    "folders searched first by `module load` (relative to the deck's folder; "
                    "`set` replaces the earlier ones)"}}},
                {{"setenv"}, O::kRefused, &D::StatementNotSupported, kSelf, L{{"`setenv`", ""}}},
                {{"scalar function"},
                 O::kRefused,
                 &D::StatementNotSupported,
                 kSelf,
                 L{{"`scalar function`", ""}}},
                {{"template drive caller"},
                 O::kRefused,
                 &D::StatementNotSupported,
                 kSelf,
                 L{{"`template drive caller`", ""}}},
                {{"hydraulic fluid"},
                 O::kRefused,
                 &D::StatementNotSupported,
                 kSelf,
                 L{{"`hydraulic fluid`", ""}}},
                {{"c81 data"},
                 O::kRefused,
                 &D::StatementNotSupported,
                 kSelf,
                 L{{"`c81 data`", "refused"}}},
            });
            return t;
        }
        case DeckBlock::kInitialValue: {
            // MBDyn input manual, "Initial-Value Problem".
            static const Table t({
                {{"initial time"}, O::kActs, &D::InitialTime, kEnded, L{{"`initial time`", ""}}},
                {{"final time"},
                 O::kActs,
                 &D::FinalTime,
                 kEnded,
                 L{{"`final time` (or `forever`)", ""}}},
                {{"time step"},
                 O::kActs,
                 &D::TimeStep,
                 kEnded,
                 L{{"`time step`", "as MBDyn; negative initial times are fine"}}},
                {{"min time step"}, O::kActs, &D::MinTimeStep, kEnded, L{{"`min time step`", ""}}},
                {{"max time step"},
                 O::kActs,
                 &D::MaxTimeStep,
                 kEnded,
                 L{{"`max time step`",
                    "bounds of the step-size control and of `strategy: factor`"}}},
                {{"method"},
                 O::kActs,
                 &D::MethodStatement,
                 kSelf,  // ReadMethod ends the statement
                 L{{"`method: <name> [, parameters];`",
                    "any registered method (below); default `ms, 0` (MBDyn's)"}}},
                {{"formulation"},
                 O::kActs,
                 &D::FormulationStatement,
                 kEnded,
                 L{{"`formulation: <name>;`",
                    "mbstep's: the coordinate formulation (below); default: the method's"}}},
                {{"tolerance"},
                 O::kActs,
                 &D::Tolerance,
                 kEnded,
                 L{{"`tolerance: r [, test, none|norm|minmax] [, s [, test, ...]];`",
                    "residual and solution tests as MBDyn; a residual stalled at its round-off "
                    "level passes (DESIGN.md); `scale` warns"}}},
                {{"max iterations"},
                 O::kActs,
                 &D::MaxIterations,
                 kEnded,
                 L{{"`max iterations: n [, at most];`", "Newton iterations per step"}}},
                {{"nonlinear solver"},
                 O::kActs,
                 &D::NonlinearSolver,
                 kEnded,
                 L{{"`nonlinear solver: newton raphson [, true | , modified, N [, adaptive]];`",
                    "MBDyn's; `true`: a Jacobian at every iteration; without `true` or "
                    "`modified` (and without the statement) mbstep reuses a step's Jacobian at "
                    "its later iterations while each cuts the residual tenfold (DESIGN.md, "
                    "\"Solver services\"); `adaptive` is mbstep's; `keep jacobian matrix`, "
                    "`honor element requests` warn; other solvers refused"}}},
                {{"linear solver", "solver"},
                 O::kActs,
                 &D::LinearSolverStatement,
                 kEnded,
                 L{{"`linear solver: <name> [, options];` (or `solver:`)", LinearSolverManual()}}},
                {{"output"},
                 O::kActs,
                 &D::SolverOutput,
                 kEnded,
                 L{{"`output: iterations | residual | solution | none;`",
                    "printed per Newton iteration as MBDyn; the other items warn"}}},
                {{"abort after"},
                 O::kActs,
                 &D::AbortAfter,
                 kEnded,
                 L{{"`abort after: input | assembly | derivatives | dummy steps;`",
                    "stop there, writing the model summary (input) or the state at t0"}}},
                {{"strategy"},
                 O::kActs,
                 &D::Strategy,
                 kEnded,
                 L{{"`strategy: factor, f, n_red, f_up, n_up, it_min [, it_max];`",
                    "MBDyn's step control: retry a failed step with h f (not below `min time "
                    "step`), shrink after a step of more than it_max iterations, grow by f_up "
                    "after quiet steps (up to `max time step`, else the deck's time step); "
                    "`change` refused"}}},
                {{"derivatives tolerance"},
                 O::kWarns,
                 &D::DerivativesTolerance,
                 kEnded,
                 L{{"`derivatives tolerance`", ""}}},
                {{"derivatives max iterations"},
                 O::kWarns,
                 &D::DerivativesMaxIterations,
                 kEnded,
                 L{{"`derivatives max iterations`", ""}}},
                {{"derivatives coefficient"},
                 O::kWarns,
                 &D::DerivativesCoefficient,
                 kEnded,
                 L{{"`derivatives coefficient`",
                    "warn: mbstep solves the initial derivatives exactly"}}},
                {{"modify residual test"},
                 O::kWarns,
                 &D::ModifyResidualTest,
                 kEnded,
                 L{{"`modify residual test`", "warns"}}},
                {{"threads"}, O::kWarns, &D::Ignored, kEnded, L{{"`threads`", ""}}},
                {{"output meter"}, O::kWarns, &D::Ignored, kEnded, L{{"`output meter`", ""}}},
                {{"dummy steps tolerance"},
                 O::kWarns,
                 &D::Ignored,
                 kEnded,
                 L{{"`dummy steps tolerance`", ""}}},
                {{"dummy steps max iterations"},
                 O::kWarns,
                 &D::Ignored,
                 kEnded,
                 L{{"`dummy steps max iterations`", ""}}},
                {{"dummy steps number"},
                 O::kWarns,
                 &D::Ignored,
                 kEnded,
                 L{{"`dummy steps number`", ""}}},
                {{"dummy steps ratio"},
                 O::kWarns,
                 &D::Ignored,
                 kEnded,
                 L{{"`dummy steps ratio`", ""}}},
                {{"dummy steps method"},
                 O::kWarns,
                 &D::Ignored,
                 kEnded,
                 L{{"`dummy steps method`", "warn (ignored); use `--threads`"}}},
                {{"eigenanalysis"},
                 O::kRefused,
                 &D::NotSupported,
                 kEnded,
                 L{{"`eigenanalysis`", ""}}},
                {{"real time"}, O::kRefused, &D::NotSupported, kEnded, L{{"`real time`", ""}}},
                {{"rtai"}, O::kRefused, &D::NotSupported, kEnded, L{{"`rtai`", ""}}},
                {{"solver diagnostics"},
                 O::kRefused,
                 &D::NotSupported,
                 kEnded,
                 L{{"`solver diagnostics`", "refused"}}},
            });
            return t;
        }
        case DeckBlock::kControlData: {
            // MBDyn input manual, "Control Data".
            static const Table t([] {
                std::vector<Row> rows;
                for (const char* c : {"structural nodes", "abstract nodes", "rigid bodies",
                                      "joints", "forces", "beams", "genels"})
                    rows.push_back({{c},
                                    O::kActs,
                                    &D::CountStatement,
                                    kEnded,
                                    L{{"`" + std::string(c) + "`", ""}}});
                rows.push_back(
                    {{"user defined elements"},
                     O::kActs,
                     &D::CountStatement,
                     kEnded,
                     L{{"`user defined elements: n;`", "checked against the statements read"}}});
                rows.push_back({{"gravity"},
                                O::kActs,
                                &D::GravityFlag,
                                kEnded,
                                L{{"`gravity;`", "required when a gravity element is defined"}}});
                const std::vector<const char*> unsupported = {"electric nodes",
                                                              "hydraulic nodes",
                                                              "parameter nodes",
                                                              "thermal nodes",
                                                              "plates",
                                                              "aerodynamic elements",
                                                              "aeromodals",
                                                              "rotors",
                                                              "induced velocity elements",
                                                              "loadable elements",
                                                              "electric elements",
                                                              "electric bulk elements",
                                                              "bulk elements",
                                                              "hydraulic elements",
                                                              "thermal elements",
                                                              "output elements",
                                                              "external elements",
                                                              "file drivers",
                                                              "drivers",
                                                              "membranes",
                                                              "shells",
                                                              "inertia"};
                for (const char* c : unsupported)
                    rows.push_back({{c},
                                    O::kRefused,
                                    &D::UnsupportedCount,
                                    kEnded,
                                    L{{"`" + std::string(c) + "`",
                                       c == unsupported.back() ? "counts refused unless 0" : ""}}});
                const std::vector<Row> more = {
                    {{"default orientation"},
                     O::kActs,
                     &D::DefaultOrientation,
                     kEnded,
                     L{{"`default orientation: euler123 | euler313 | euler321 | "
                        "orientation vector | orientation matrix;`",
                        "the `.mov` orientation columns; the joints' `orientation "
                        "description` when they name none"}}},
                    {{"default output"},
                     O::kActs,
                     &D::DefaultOutput,
                     kEnded,
                     L{{"`default output: all | none | structural nodes | abstract nodes | "
                        "joints | beams | forces | rigid bodies | ...;`",
                        "switches node and element output (the other MBDyn kinds warn: mbstep "
                        "writes no such output)"}}},
                    {{"output frequency"},
                     O::kActs,
                     &D::OutputFrequency,
                     kEnded,
                     L{{"`output frequency: n;`", ""}}},
                    {{"output meter"},
                     O::kActs,
                     &D::OutputMeter,
                     kEnded,
                     L{{"`output meter: meter, t0, tf | forever, steps, n;`",
                        "output every n steps (the meter: only for t0 <= t <= tf)"}}},
                    {{"output precision"},
                     O::kActs,
                     &D::OutputPrecision,
                     kEnded,
                     L{{"`output precision: n;`", "digits of the text outputs (1..17)"}}},
                    {{"output results"},
                     O::kActs,
                     &D::OutputResults,
                     kEnded,
                     L{{"`output results: netcdf [, sync] [, no text];`",
                        "also `PREFIX.nc` in MBDyn's NetCDF layout (as `run --netcdf`; below); "
                        "refused, with that reason, by an mbstep built without NetCDF (CMake "
                        "`MBSTEP_WITH_NETCDF`); `sync` is what mbstep does anyway; `no text` "
                        "leaves "
                        "out the per-entity text files (`.mov`, `.abs`, `.jnt`, `.act`, `.frc`) as "
                        "MBDyn does (the `.out`, `.log` and `.csv` are written)"},
                       {"`output results: vtk;`",
                        "mbstep's: also the VTK series `PREFIX.pvd` + `PREFIX-vtk/step-N.vtu` (as "
                        "`run --vtk`); MBDyn's `adams`, `motion view` refused"}}},
                    {{"model"},
                     O::kActs,
                     &D::ModelStatement,
                     kEnded,
                     L{{"`model: static | dynamic;`",
                        "MBDyn's static solution (`cgr` formulations)"}}},
                    {{"skip initial joint assembly"},
                     O::kActs,
                     &D::SkipInitialJointAssembly,
                     kEnded,
                     L{{"`skip initial joint assembly;`",
                        "the initial joint assembly is on by default"}}},
                    {{"tolerance", "initial tolerance"},
                     O::kActs,
                     &D::AssemblyTolerance,
                     kEnded,
                     L{{"`tolerance` (or `initial tolerance`)", ""}}},
                    {{"max iterations", "max initial iterations"},
                     O::kActs,
                     &D::AssemblyMaxIterations,
                     kEnded,
                     L{{"`max iterations` (or `max initial iterations`)",
                        "of the initial joint assembly (defaults 1e-6, 1)"}}},
                    {{"initial stiffness"},
                     O::kActs,
                     &D::InitialStiffness,
                     kEnded,
                     L{{"`initial stiffness: kp [, kv];`", ""}}},
                    {{"omega rotates"},
                     O::kActs,
                     &D::OmegaRotates,
                     kEnded,
                     L{{"`omega rotates: yes|no;`", "penalties and options of the assembly"}}},
                    {{"use"},
                     O::kActs,
                     &D::UseStatement,
                     kEnded,
                     L{{"`use: rigid bodies | gravity | forces | beams, in assembly;`",
                        "elements used by the assembly (joints and beams always)"}}},
                    {{"title"},
                     O::kActs,
                     &D::TitleStatement,
                     kEnded,
                     L{{"`title: \"...\";`", "heads the model summary in the `.log`"}}},
                    {{"output units"},
                     O::kActs,
                     &D::OutputUnits,
                     kEnded,
                     L{{"`output units: MKS | CGS | MMTMS | MMKGMS | custom, length, \"..\", mass, "
                        "\"..\", time, \"..\", current, \"..\", temperature, \"..\";`",
                        "the units the `.nc`'s `units` attributes name (MBDyn's); nothing is "
                        "converted"}}},
                    {{"print"}, O::kWarns, &D::PrintStatement, kEnded, L{{"`print: ...;`", ""}}},
                    {{"make restart file"},
                     O::kWarns,
                     &D::NoEffect,
                     kEnded,
                     L{{"`make restart file`", ""}}},
                    {{"select timeout"},
                     O::kWarns,
                     &D::NoEffect,
                     kEnded,
                     L{{"`select timeout`", ""}}},
                    {{"default scale"},
                     O::kWarns,
                     &D::NoEffect,
                     kEnded,
                     L{{"`default scale`", "warn (no effect)"}}},
                    {{"air properties"},
                     O::kRefused,
                     &D::NotSupported,
                     kEnded,
                     L{{"`air properties`", ""}}},
                    {{"rigid body kinematics"},
                     O::kRefused,
                     &D::NotSupported,
                     kEnded,
                     L{{"`rigid body kinematics`", "refused"}}},
                };
                rows.insert(rows.end(), more.begin(), more.end());
                return rows;
            }());
            return t;
        }
        case DeckBlock::kNodes: {
            // MBDyn input manual, "Nodes"; the manual's prose gives the syntax of the two
            // node statements that act.
            static const Table t({
                {{"structural"},
                 O::kActs,
                 &D::StructuralNodeRow,
                 kSelf,
                 L{{"`structural`",
                    "`static`, `dynamic` and `dummy` nodes (syntax above); `scale` and "
                    "`accelerations` warn (no effect); `modal`, `static displacement` and "
                    "`dynamic displacement` nodes are refused"}}},
                {{"abstract"},
                 O::kActs,
                 &D::AbstractNodeRow,
                 kSelf,
                 L{{"`abstract`",
                    "`differential` nodes (syntax above), read by the `lagrangian` genel; "
                    "`algebraic` nodes are refused"}}},
                {{"electric"}, O::kRefused, &D::NodesNotSupported, kSelf, L{{"`electric`", ""}}},
                {{"hydraulic"}, O::kRefused, &D::NodesNotSupported, kSelf, L{{"`hydraulic`", ""}}},
                {{"parameter"}, O::kRefused, &D::NodesNotSupported, kSelf, L{{"`parameter`", ""}}},
                {{"thermal"},
                 O::kRefused,
                 &D::NodesNotSupported,
                 kSelf,
                 L{{"`thermal`", "refused (MBDyn's other node kinds)"}}},
            });
            return t;
        }
        case DeckBlock::kElements: {
            // MBDyn input manual, "Elements": the statements besides the registered ones
            // (which the element plugins provide, and which are looked up first). MBDyn's
            // element statements that no plugin provides are refused: those of the built-in
            // plugins when they are not loaded (listed first), and the others.
            static const Table t([] {
                std::vector<Row> rows = {
                    {{"driven"},
                     O::kActs,
                     &D::DrivenRow,
                     kSelf,
                     L{{"`driven: label, <drive>, <element statement>;`",
                        "the element acts while the drive is non-zero (elements with "
                        "multipliers or inertia are refused; `hint` is refused)"}}},
                    {{"user defined"},
                     O::kActs,
                     &D::UserDefinedRow,
                     kSelf,
                     L{{"`user defined: label, type, ...;`",
                        "reads any registered element type by its name (MBDyn's elements of "
                        "`module load:` modules): `user defined: 7, rod, ...` is `joint: 7, "
                        "rod, ...`, written to the joint outputs, with the labels and the count "
                        "(`user defined elements`) of user defined elements; a type registered "
                        "under two statements (`absolute`: force and couple) must be written "
                        "with its statement"}}},
                    // `inertia:` only logs the inertia of a group of elements (MBDyn manual,
                    // elements.tex); skipped so that MBDyn's decks read unchanged.
                    {{"inertia"},
                     O::kWarns,
                     &D::InertiaStatement,
                     kEnded,
                     L{{"`inertia: ...;`", "warn (MBDyn only logs it)"}}},
                };
                // The statements of mbstep's own element plugins, then MBDyn's others.
                const char* const built_in[] = {"body",    "joint", "force", "couple",
                                                "gravity", "beam2", "beam3", "genel"};
                for (const char* k : built_in)
                    rows.push_back({{k},
                                    O::kRefused,
                                    &D::ElementNotProvided,
                                    kSelf,
                                    L{{std::string("`") + k + "`", ""}}});
                rows.back().manual.back().text =
                    "the registered element types (below); refused when no loaded plugin "
                    "provides the statement";
                for (const char* k : {"beam",
                                      "aerodynamic body",
                                      "aerodynamic beam",
                                      "aerodynamic beam2",
                                      "aerodynamic beam3",
                                      "output",
                                      "bind",
                                      "electric",
                                      "hydraulic",
                                      "thermal",
                                      "plate",
                                      "membrane4",
                                      "shell4",
                                      "loadable",
                                      "automatic structural",
                                      "air properties",
                                      "induced velocity",
                                      "rotor",
                                      "aircraft instruments",
                                      "aerodynamic element",
                                      "rigid body kinematics",
                                      "joint regularization",
                                      "modal",
                                      "external",
                                      "stream output",
                                      "output element",
                                      "bulk"})
                    rows.push_back({{k},
                                    O::kRefused,
                                    &D::ElementNotProvided,
                                    kSelf,
                                    L{{std::string("`") + k + "`", ""}}});
                rows.back().manual.back().text = "refused (no mbstep plugin provides them)";
                return rows;
            }());
            return t;
        }
    }
    throw std::logic_error("deck keyword table: unknown block");
}

/// The manual's text of `linear solver:`, from DeckLinearSolvers().
std::string DeckReader::LinearSolverManual() {
    std::string mapped, unavailable, ours;
    for (const LinearSolverKeyword& s : DeckLinearSolvers()) {
        std::string& list = !s.available ? unavailable : (s.solver == "auto" ? mapped : ours);
        list += (list.empty() ? "`" : ", `") + s.name + "`";
    }
    return "`auto` (default); MBDyn's " + mapped + " (direct sparse LUs) read as `auto`; " +
           unavailable + " warn and use `auto`; mbstep's " + ours +
           " as named; `colamd`/`mmdata` select KLU's ordering; `scale` maps to KLU's row "
           "scaling; `map`, `cc`, `mt`, `workspace size`, ... warn";
}

// ---------------------------------------------------------------------------------------------
// Statements valid everywhere (MBDyn manual, "Input Related Cards").

void DeckReader::SetStatement(const Stmt&) {
    in_.ReadSet();
    in_.EndStatement("set");
}

void DeckReader::ReferenceStatementRow(const Stmt& st) { ReferenceStatement(st.where); }

void DeckReader::DriveCallerStatement(const Stmt& st) {
    const long label = in_.GetLabel("drive caller label");
    if (in_.IsKeyword("name")) in_.GetString("drive caller name");
    DrivePtr drive = in_.GetDrive("drive caller " + std::to_string(label));
    in_.EndStatement("drive caller");
    in_.DefineDrive(label, std::move(drive), st.where);
}

// constitutive law: <label>, [name, "<name>",] <dimension>, <law>;
void DeckReader::ConstitutiveLawStatement(const Stmt& st) {
    const long label = in_.GetLabel("constitutive law label");
    if (in_.IsKeyword("name")) in_.GetString("constitutive law name");
    const SourceLocation at_dim = in_.Where();
    const long dim = in_.GetInt("constitutive law dimension");
    if (dim != 1 && dim != 3 && dim != 6)
        in_.Fail(at_dim,
                 "constitutive law dimension must be 1, 3 or 6, got " + std::to_string(dim));
    ConstitutiveLawPtr law =
        in_.GetConstitutiveLaw(static_cast<int>(dim), "constitutive law " + std::to_string(label));
    in_.EndStatement("constitutive law");
    in_.DefineConstitutiveLaw(label, std::move(law), st.where);
}

void DeckReader::IncludeStatement(const Stmt&) {
    const SourceLocation at = in_.Where();
    const std::string file = in_.GetString("include file name");
    in_.EndStatement("include");
    std::filesystem::path p(file);
    if (p.is_relative()) p = std::filesystem::path(in_.CurrentDirectory()) / p;
    in_.PushFile(p.lexically_normal().string(), &at);
}

// remark: <string or expression> [, ...]; printed with its location (MBDyn prints the values as
// it reads them).
void DeckReader::RemarkStatement(const Stmt& st) {
    std::string text = st.where.file + ":" + std::to_string(st.where.line) + ": remark:";
    while (in_.HasArg()) {
        text += ' ';
        if (in_.LooksLikeString()) {
            text += in_.GetString("remark");
        } else {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.16g", in_.GetReal("remark value"));
            text += buf;
        }
        if (in_.HasArg()) text += ',';
    }
    in_.EndStatement(st.keyword);
    remarks_.push_back(text);
}

void DeckReader::PrintSymbolTableStatement(const Stmt& st) {
    in_.SkipArguments();
    in_.EndStatement(st.keyword);
    in_.Warn(st.where,
             "'print symbol table' has no effect: mbstep does not list its variables "
             "(`remark: \"x\", x;` prints one)");
}

void DeckReader::ModuleLoadRow(const Stmt& st) { ModuleLoad(st.where); }

void DeckReader::LoadablePathRow(const Stmt& st) { LoadablePath(st.where); }

void DeckReader::StatementNotSupported(const Stmt& st) {
    in_.Fail(st.where, "'" + st.keyword + "' statements are not supported");
}

// Shared by the blocks' tables.
void DeckReader::NotSupported(const Stmt& st) {
    in_.Fail(st.where, "'" + st.keyword + "' is not supported");
}

void DeckReader::Ignored(const Stmt& st) {
    in_.Warn(st.where, "'" + st.keyword + "' is ignored");
    in_.SkipArguments();
}

// `reference: label, [name, "n",] position, orientation, velocity, angular velocity;`
void DeckReader::ReferenceStatement(const SourceLocation& where) {
    const SourceLocation at = in_.Where();
    const long label = in_.GetLabel("reference label");
    if (in_.IsKeyword("name")) in_.GetString("reference name");
    if (in_.IsKeyword("denavit hartenberg"))
        in_.Fail(at, "Denavit-Hartenberg references are not supported");
    const FrameState global;
    FrameState f;
    f.x = in_.GetPosition(global, "reference position");
    f.R = in_.GetOrientation(global, "reference orientation");
    f.v = in_.GetVelocity(global, f.x, "reference velocity");
    f.w = in_.GetAngularVelocity(global, "reference angular velocity");
    in_.EndStatement("reference");
    in_.DefineReference(label, f, where);
}

void DeckReader::Begin(const SourceLocation& where) {
    const SourceLocation at = in_.Where();
    const std::string name =
        in_.GetKeyword("block name", {"data", "initial value", "control data", "nodes", "elements",
                                      "drivers", "inverse dynamics"});
    in_.EndStatement("begin");
    if (name == "drivers")
        in_.Fail(at,
                 "the 'drivers' block is not supported (file drivers are not implemented; "
                 "use drive callers)");
    if (name == "inverse dynamics") in_.Fail(at, "inverse dynamics problems are not supported");
    if (block_ != Block::kNone)
        in_.Fail(where, "'begin: " + name + ";' inside block '" + BlockName(block_) +
                            "' (missing 'end: " + BlockName(block_) + ";'?)");
    const std::map<std::string, Block> blocks = {{"data", Block::kData},
                                                 {"initial value", Block::kInitialValue},
                                                 {"control data", Block::kControlData},
                                                 {"nodes", Block::kNodes},
                                                 {"elements", Block::kElements}};
    const Block b = blocks.at(name);
    if (seen_.count(b))
        in_.Fail(where,
                 "block '" + name + "' appears twice (first at " + seen_[b].ToString() + ")");
    for (const auto& kv : seen_)
        if (kv.first > b)
            in_.Fail(where, "block '" + name + "' must come before '" + BlockName(kv.first) + "'");
    if ((b == Block::kNodes || b == Block::kElements) && !seen_.count(Block::kControlData))
        in_.Fail(where, "block '" + name + "' must follow 'control data'");
    block_ = b;
    block_where_ = where;
    seen_[b] = where;
}

void DeckReader::End(const SourceLocation& where) {
    const SourceLocation at = in_.Where();
    const std::string name =
        in_.GetKeyword("block name", {"data", "initial value", "control data", "nodes", "elements",
                                      "drivers", "inverse dynamics"});
    in_.EndStatement("end");
    if (block_ == Block::kNone)
        in_.Fail(where, "'end: " + name + ";' without 'begin: " + name + ";'");
    if (name != BlockName(block_))
        in_.Fail(at, "expected 'end: " + std::string(BlockName(block_)) + ";' (block opened at " +
                         block_where_.ToString() + "), got 'end: " + name + ";'");
    if (block_ == Block::kElements) done_ = true;  // MBDyn stops reading here
    block_ = Block::kNone;
}

// ---------------------------------------------------------------------------------------------
// data, initial value

void DeckReader::Data(const std::string& key, const std::string& keyword,
                      const SourceLocation& where) {
    if (!Is(key, "problem")) Unknown(keyword, where, {"problem"});
    const SourceLocation at = in_.Where();
    const std::string p = in_.GetKeyword("problem", {"initial value", "inverse dynamics"});
    if (p != "initial value") in_.Fail(at, "only 'initial value' problems are supported");
    in_.EndStatement(keyword);
}

void DeckReader::InitialValue(const std::string& key, const std::string& keyword,
                              const SourceLocation& where) {
    if (!Dispatch(DeckBlock::kInitialValue, key, keyword, where))
        Unknown(keyword, where, AcceptedDeckKeywords(DeckBlock::kInitialValue));
}

double DeckReader::NonNegative(const SourceLocation& at, double v, const char* what) {
    if (v < 0.0) in_.Fail(at, std::string(what) + " must be non-negative, got " + Format(v));
    return v;
}

// MBDyn regularizes its initial derivatives with these settings; mbstep solves them exactly
// (consistent accelerations and multipliers at t0), so they have no effect.
void DeckReader::WarnDerivatives(const Stmt& st) {
    in_.Warn(st.where, "'" + st.keyword +
                           "' ignored: mbstep solves the initial derivatives exactly (consistent "
                           "accelerations and multipliers at t0)");
}

void DeckReader::InitialTime(const Stmt&) {
    settings_.initial_time = in_.GetReal("initial time");
    in_.set_evaluation_time(settings_.initial_time);
}

void DeckReader::FinalTime(const Stmt&) {
    final_time_where_ = in_.Where();
    final_time_given_ = true;
    settings_.forever = in_.IsKeyword("forever");
    if (!settings_.forever) settings_.final_time = in_.GetReal("final time");
}

void DeckReader::TimeStep(const Stmt&) {
    const SourceLocation at = in_.Where();
    settings_.time_step = in_.GetReal("time step");
    if (settings_.time_step <= 0.0)
        in_.Fail(at, "time step must be positive, got " + Format(settings_.time_step));
}

void DeckReader::MinTimeStep(const Stmt&) {
    const SourceLocation at = in_.Where();
    settings_.solver.min_time_step = NonNegative(at, in_.GetReal("min time step"), "min time step");
}

void DeckReader::MaxTimeStep(const Stmt&) {
    const SourceLocation at = in_.Where();
    settings_.solver.max_time_step =
        in_.IsKeyword("unlimited") ? 0.0
                                   : NonNegative(at, in_.GetReal("max time step"), "max time step");
}

void DeckReader::MethodStatement(const Stmt& st) {
    if (integrator_) in_.Fail(st.where, "method given twice");
    settings_.method_text = in_.RestOfStatement();
    integrator_ = ReadMethod(in_, registry_, &method_name_);  // ends the statement
}

void DeckReader::FormulationStatement(const Stmt&) {
    const SourceLocation at = in_.Where();
    const std::vector<std::string> names = NamesOf(registry_, PluginKind::kFormulation);
    const int i = in_.MatchOneOf(names);
    if (i < 0)
        in_.Fail(at, "unknown formulation " + in_.NextToken() + "; registered: " +
                         (names.empty() ? std::string("none (no formulation plugins are loaded)")
                                        : Join(names, true)));
    settings_.formulation = names[i];
}

void DeckReader::MaxIterations(const Stmt&) {
    SolverSettings& s = settings_.solver;
    s.max_iterations = static_cast<int>(in_.GetInt("max iterations", 1, kIntMax));
    s.max_iterations_at_most = in_.IsKeyword("at most");
}

void DeckReader::ModifyResidualTest(const Stmt& st) {
    settings_.solver.modify_residual_test = true;
    in_.Warn(st.where,
             "'modify residual test' ignored: the residual test is on the residual as assembled");
}

void DeckReader::DerivativesTolerance(const Stmt& st) {
    const SourceLocation at = in_.Where();
    WarnDerivatives(st);
    settings_.solver.derivatives_tolerance =
        NonNegative(at, in_.GetReal("derivatives tolerance"), "derivatives tolerance");
}

void DeckReader::DerivativesMaxIterations(const Stmt& st) {
    WarnDerivatives(st);
    settings_.solver.derivatives_max_iterations =
        static_cast<int>(in_.GetInt("derivatives max iterations", 1, kIntMax));
}

// derivatives coefficient: coefficient | [coefficient,] auto [, max iterations, n] [, factor, f]
void DeckReader::DerivativesCoefficient(const Stmt& st) {
    SolverSettings& s = settings_.solver;
    const SourceLocation at = in_.Where();
    WarnDerivatives(st);
    if (!in_.IsKeyword("auto")) {
        s.derivatives_coefficient = in_.GetReal("derivatives coefficient");
        if (s.derivatives_coefficient <= 0.0)
            in_.Fail(at, "derivatives coefficient must be positive, got " +
                             Format(s.derivatives_coefficient));
        s.derivatives_coefficient_auto = in_.IsKeyword("auto");
    } else {
        s.derivatives_coefficient_auto = true;
    }
    if (s.derivatives_coefficient_auto) {
        if (in_.IsKeyword("max iterations"))
            in_.GetInt("derivatives coefficient max iterations", 1, kIntMax);
        if (in_.IsKeyword("factor")) in_.GetReal("derivatives coefficient factor");
    }
}

void DeckReader::NonlinearSolver(const Stmt&) {
    SolverSettings& s = settings_.solver;
    const SourceLocation at = in_.Where();
    const std::string name = in_.GetKeyword(
        "nonlinear solver", {"newton raphson", "line search", "matrix free", "bfgs"});
    if (name != "newton raphson")
        in_.Fail(at, "nonlinear solver '" + name + "' is not supported (use newton raphson)");
    if (in_.IsKeyword("true")) {
        s.modified_newton = false;
        s.jacobian_every_iteration = true;
    } else if (in_.IsKeyword("modified")) {
        const long n = in_.GetInt("modified newton iterations", 1, kIntMax);
        s.modified_newton = true;
        s.modified_newton_iterations = static_cast<int>(n);
        while (in_.HasArg()) {
            const SourceLocation at_o = in_.Where();
            if (in_.IsKeyword("keep jacobian matrix") || in_.IsKeyword("honor element requests"))
                in_.Warn(at_o, "nonlinear solver option ignored");
            else if (in_.IsKeyword("adaptive"))  // mbstep's extension (DESIGN.md)
                s.modified_newton_adaptive = true;
            else
                break;
        }
    }
}

void DeckReader::LinearSolverStatement(const Stmt&) {
    SolverSettings& s = settings_.solver;
    const SourceLocation at = in_.Where();
    // The names of DeckLinearSolvers(), in its order.
    static const std::vector<std::string> kNames = [] {
        std::vector<std::string> names;
        for (const LinearSolverKeyword& k : DeckLinearSolvers()) names.push_back(k.name);
        return names;
    }();
    const std::string picked = in_.GetKeyword("linear solver", kNames);
    const LinearSolverKeyword& solver =
        DeckLinearSolvers()[std::find(kNames.begin(), kNames.end(), picked) - kNames.begin()];
    const std::string& name = solver.name;
    s.linear_solver_requested = name;
    s.linear_solver = solver.solver;
    if (!solver.available)
        in_.Warn(at, "linear solver '" + name + "' is not available; using auto (klu)");
    // MBDyn's options: [map | cc | dir] [, colamd | mmdata] [, mt, n] [, workspace size, n]
    // [, pivot factor, x] [, block size, n] [, scale, ...]; ours: [, ordering, {auto | amd |
    // colamd | natural | rcm}]. `colamd` selects KLU's COLAMD, `mmdata` its AMD; the
    // others do not apply to KLU and are ignored with a warning.
    while (in_.HasArg()) {
        const SourceLocation at_o = in_.Where();
        if (in_.IsKeyword("ordering")) {
            s.linear_solver_ordering = in_.GetKeyword("linear solver ordering",
                                                      {"auto", "amd", "colamd", "natural", "rcm"});
        } else if (in_.IsKeyword("colamd")) {
            s.linear_solver_ordering = "colamd";
        } else if (in_.IsKeyword("mmdata")) {
            s.linear_solver_ordering = "amd";
        } else if (in_.IsKeyword("map") || in_.IsKeyword("cc") || in_.IsKeyword("dir") ||
                   in_.IsKeyword("column compressed") || in_.IsKeyword("direct access")) {
            in_.Warn(at_o, "linear solver matrix handling option ignored");
        } else if (in_.IsKeyword("mt") || in_.IsKeyword("multithread") ||
                   in_.IsKeyword("workspace size") || in_.IsKeyword("block size")) {
            in_.GetInt("linear solver option value", 0, kIntMax);
            in_.Warn(at_o, "linear solver option ignored");
        } else if (in_.IsKeyword("pivot factor")) {
            in_.GetReal("linear solver pivot factor");
            in_.Warn(at_o, "linear solver option ignored");
        } else if (in_.IsKeyword("scale")) {
            // MBDyn: scale, {no | always | once | iterative...} [, {row max | row sum |
            // column max | column sum | lapack | iterative | row max column max}]. KLU
            // scales rows only: row sum -> klu scale 1, any other method -> row max (2).
            const std::string when = in_.GetKeyword("linear solver scale",
                                                    {"no", "always", "once", "iterative", "never"});
            s.linear_solver_scale = when == "no" || when == "never" ? -1 : 2;
            if (in_.HasArg()) {
                const SourceLocation at_m = in_.Where();
                const std::string how =
                    in_.GetKeyword("linear solver scale method",
                                   {"row max column max", "row max", "row sum", "column max",
                                    "column sum", "lapack", "iterative", "sinkhorn knopp"});
                if (s.linear_solver_scale > 0 && how == "row sum") s.linear_solver_scale = 1;
                if (how != "row max" && how != "row sum")
                    in_.Warn(at_m, "klu scales rows only: using row max scaling");
            }
            if (in_.HasArg()) {
                in_.Warn(in_.Where(), "linear solver scale options from here on ignored");
                in_.SkipArguments();
            }
        } else {
            in_.Warn(at_o, "linear solver options from here on ignored");
            in_.SkipArguments();
        }
    }
    if (s.linear_solver != "klu" && s.linear_solver != "auto" &&
        s.linear_solver_ordering != "auto" && name != "naive")
        in_.Warn(at, "the ordering applies to klu only");
}

void DeckReader::SolverOutput(const Stmt&) {
    SolverSettings& s = settings_.solver;
    const SourceLocation at = in_.Where();
    do {
        const std::string item = in_.GetKeyword(
            "output item",
            {"iterations", "residual", "solution", "jacobian matrix", "messages", "counter",
             "bailout", "matrix condition number", "solver condition number", "cpu time", "none"});
        if (item == "none") s.output_iterations = s.output_residual = s.output_solution = false;
        if (item == "iterations") s.output_iterations = true;
        if (item == "residual") s.output_residual = true;
        if (item == "solution") s.output_solution = true;
        if (item != "none" && item != "iterations" && item != "residual" && item != "solution")
            in_.Warn(at, "'output: " + item +
                             "' has no effect: mbstep prints only iterations, residual and "
                             "solution");
    } while (in_.HasArg());
}

void DeckReader::AbortAfter(const Stmt&) {
    settings_.abort_after =
        in_.GetKeyword("abort after", {"input", "assembly", "derivatives", "dummy steps"});
}

void DeckReader::Strategy(const Stmt&) {
    SolverSettings& s = settings_.solver;
    const SourceLocation at = in_.Where();
    const std::string kind = in_.GetKeyword("strategy", {"factor", "no change", "change"});
    if (kind == "change") in_.Fail(at, "'strategy: change' is not supported");
    s.strategy_factor = kind == "factor";
    if (s.strategy_factor) {
        // factor, reduction_factor, steps_before_reduction, raise_factor,
        // steps_before_raise, min_iterations [, max_iterations]
        const SourceLocation at_f = in_.Where();
        s.strategy_reduction = in_.GetReal("strategy reduction factor");
        if (!(s.strategy_reduction > 0.0 && s.strategy_reduction < 1.0))
            in_.Fail(at_f, "strategy reduction factor must be in (0, 1), got " +
                               Format(s.strategy_reduction));
        s.strategy_steps_before_reduction =
            static_cast<int>(in_.GetInt("steps before reduction", 0, kIntMax));
        const SourceLocation at_r = in_.Where();
        s.strategy_raise = in_.GetReal("strategy raise factor");
        if (s.strategy_raise < 1.0)
            in_.Fail(at_r, "strategy raise factor must be >= 1, got " + Format(s.strategy_raise));
        s.strategy_steps_before_raise =
            static_cast<int>(in_.GetInt("steps before raise", 0, kIntMax));
        s.strategy_min_iterations = static_cast<int>(in_.GetInt("min iterations", 0, kIntMax));
        if (in_.HasArg())
            s.strategy_max_iterations = static_cast<int>(in_.GetInt("max iterations", 0, kIntMax));
    }
}

// tolerance: {null | r} [, test, {none | norm | minmax} [, scale]]
//            [, {null | s} [, test, {none | norm | minmax}]]
void DeckReader::Tolerance(const Stmt&) {
    SolverSettings& s = settings_.solver;
    auto test = [&]() {
        const std::string t = in_.GetKeyword("tolerance test", {"none", "norm", "minmax"});
        return t == "none" ? ResidualTest::kNone
                           : (t == "norm" ? ResidualTest::kNorm : ResidualTest::kMinMax);
    };
    const SourceLocation at = in_.Where();
    if (in_.IsKeyword("null")) {
        s.residual_tolerance = 0.0;
        s.residual_test = ResidualTest::kNone;
    } else {
        s.residual_tolerance = in_.GetReal("residual tolerance");
        if (s.residual_tolerance < 0.0) in_.Fail(at, "tolerance must be non-negative");
        s.residual_test = s.residual_tolerance > 0.0 ? ResidualTest::kNorm : ResidualTest::kNone;
    }
    if (in_.IsKeyword("test")) {
        s.residual_test = test();
        const SourceLocation at_scale = in_.Where();
        if (in_.IsKeyword("scale")) in_.Warn(at_scale, "residual scaling is ignored");
    }
    if (!in_.HasArg()) return;
    const SourceLocation at_sol = in_.Where();
    if (in_.IsKeyword("null")) {
        s.solution_tolerance = 0.0;
        s.solution_test = ResidualTest::kNone;
    } else {
        s.solution_tolerance = in_.GetReal("solution tolerance");
        if (s.solution_tolerance < 0.0) in_.Fail(at_sol, "tolerance must be non-negative");
        s.solution_test = s.solution_tolerance > 0.0 ? ResidualTest::kNorm : ResidualTest::kNone;
    }
    if (in_.IsKeyword("test")) s.solution_test = test();
}

// ---------------------------------------------------------------------------------------------
// control data

void DeckReader::ControlData(const std::string& key, const std::string& keyword,
                             const SourceLocation& where) {
    if (!Dispatch(DeckBlock::kControlData, key, keyword, where))
        Unknown(keyword, where, AcceptedDeckKeywords(DeckBlock::kControlData));
}

void DeckReader::CountStatement(const Stmt& st) {
    const std::string& c = st.name;
    if (counts_[c].given)
        in_.Fail(st.where,
                 "'" + c + "' given twice (first at " + counts_[c].where.ToString() + ")");
    const long n = in_.GetInt(c, 0, kIntMax);
    counts_[c] = Count{n, true, st.where};
}

void DeckReader::UnsupportedCount(const Stmt& st) {
    const long n = in_.GetInt(st.name);
    if (n != 0)
        in_.Fail(st.where, "'" + st.name + "' are not supported (count " + std::to_string(n) + ")");
}

void DeckReader::GravityFlag(const Stmt& st) {
    gravity_flag_ = true;
    gravity_flag_where_ = st.where;
}

void DeckReader::DefaultOrientation(const Stmt&) {
    settings_.default_orientation = in_.GetOrientationDescription();
}

void DeckReader::DefaultOutput(const Stmt&) {
    do {
        const SourceLocation at_item = in_.Where();
        const std::string item = in_.GetKeyword("default output item", {"all",
                                                                        "none",
                                                                        "reference frames",
                                                                        "drive callers",
                                                                        "abstract nodes",
                                                                        "electric nodes",
                                                                        "hydraulic nodes",
                                                                        "structural nodes",
                                                                        "accelerations",
                                                                        "thermal nodes",
                                                                        "aerodynamic elements",
                                                                        "aeromodals",
                                                                        "air properties",
                                                                        "beams",
                                                                        "electric bulk elements",
                                                                        "electric elements",
                                                                        "external elements",
                                                                        "forces",
                                                                        "genels",
                                                                        "gravity",
                                                                        "hydraulic elements",
                                                                        "induced velocity elements",
                                                                        "joints",
                                                                        "loadable",
                                                                        "plates",
                                                                        "rigid bodies",
                                                                        "thermal elements"});
        // `none` switches every node and element kind off, `all` on; the other items switch
        // their kind on (MBDyn: the values are additive). Element kinds: by statement.
        if (item == "none" || item == "all") {
            const bool on = item == "all";
            settings_.default_output = on;
            for (const char* st : {"joint", "beam3", "beam2", "force", "couple", "body"})
                settings_.element_output[st] = on;
        }
        if (item == "none" || item == "all") settings_.abstract_output = item == "all";
        if (item == "structural nodes") settings_.default_output = true;
        if (item == "abstract nodes") settings_.abstract_output = true;
        if (item == "joints") settings_.element_output["joint"] = true;
        if (item == "beams")
            settings_.element_output["beam3"] = settings_.element_output["beam2"] = true;
        if (item == "forces")
            settings_.element_output["force"] = settings_.element_output["couple"] = true;
        if (item == "rigid bodies") settings_.element_output["body"] = true;
        if (item == "accelerations")
            in_.Warn(at_item,
                     "'default output: accelerations' has no effect: the .mov has no "
                     "acceleration columns");
        else if (item != "all" && item != "none" && item != "structural nodes" &&
                 item != "abstract nodes" && item != "joints" && item != "beams" &&
                 item != "forces" && item != "rigid bodies")
            in_.Warn(at_item, "'default output: " + item +
                                  "' has no effect: mbstep writes no output of that kind");
    } while (in_.HasArg());
}

void DeckReader::OutputFrequency(const Stmt&) {
    settings_.output_every = static_cast<int>(in_.GetInt("output frequency", 1, kIntMax));
}

// Only the `meter` drive: meter, t0, tf | forever [, steps, n].
void DeckReader::OutputMeter(const Stmt&) {
    const SourceLocation at = in_.Where();
    if (!in_.IsKeyword("meter"))
        in_.Fail(at, "only 'output meter: meter, t0, tf|forever, steps, n;' is supported");
    settings_.output_from = in_.GetReal("output meter initial time");
    if (!in_.IsKeyword("forever")) settings_.output_until = in_.GetReal("output meter final time");
    if (in_.IsKeyword("steps"))
        settings_.output_every = static_cast<int>(in_.GetInt("output meter steps", 1, kIntMax));
}

void DeckReader::OutputPrecision(const Stmt&) {
    settings_.output_precision = static_cast<int>(in_.GetInt("output precision", 1, 17));
}

void DeckReader::SkipInitialJointAssembly(const Stmt&) {
    settings_.skip_initial_joint_assembly = true;
}

void DeckReader::TitleStatement(const Stmt&) { settings_.title = in_.GetString("title"); }

void DeckReader::AssemblyTolerance(const Stmt&) {
    const SourceLocation at = in_.Where();
    settings_.assembly_tolerance = in_.GetReal("initial assembly tolerance");
    if (settings_.assembly_tolerance < 0.0) in_.Fail(at, "tolerance must be non-negative");
}

void DeckReader::AssemblyMaxIterations(const Stmt&) {
    settings_.assembly_max_iterations =
        static_cast<int>(in_.GetInt("initial assembly max iterations", 0, kIntMax));
}

// initial stiffness: <position stiffness> [, <velocity stiffness>];
void DeckReader::InitialStiffness(const Stmt&) {
    const SourceLocation at = in_.Where();
    settings_.assembly_position_stiffness = in_.GetReal("initial position stiffness");
    if (!(settings_.assembly_position_stiffness > 0.0))
        in_.Fail(at, "initial position stiffness must be positive");
    if (in_.HasArg()) {
        const SourceLocation at_v = in_.Where();
        settings_.assembly_velocity_stiffness = in_.GetReal("initial velocity stiffness");
        if (!(settings_.assembly_velocity_stiffness > 0.0))
            in_.Fail(at_v, "initial velocity stiffness must be positive");
    }
}

void DeckReader::OmegaRotates(const Stmt&) {
    settings_.assembly_omega_rotates = in_.GetBool("omega rotates");
}

// use: <item> [, ...], in assembly;  joints and beams are always used.
void DeckReader::UseStatement(const Stmt&) {
    for (;;) {
        const SourceLocation at_i = in_.Where();
        if (in_.IsKeyword("in assembly")) break;
        const std::string item = in_.GetKeyword(
            "use item", {"rigid bodies", "gravity", "forces", "beams", "aerodynamic elements",
                         "loadable elements", "in assembly"});
        if (item == "rigid bodies" || item == "gravity") settings_.assembly_use_bodies = true;
        if (item == "forces") settings_.assembly_use_forces = true;
        if (item == "aerodynamic elements" || item == "loadable elements")
            in_.Warn(at_i, "'use: " + item + "' has no effect: mbstep has no " + item);
        if (!in_.HasArg()) in_.Fail(in_.Where(), "expected ', in assembly' after the use list");
    }
}

// print: dof stats | [dof | equation] description | [element | node] connection | all | none:
// mbstep's .log always lists the unknowns and their equations by node and element.
void DeckReader::PrintStatement(const Stmt& st) {
    do {
        in_.GetKeyword("print item",
                       {"dof stats", "dof description", "equation description", "description",
                        "element connection", "node connection", "connection", "all", "none"});
    } while (in_.HasArg());
    in_.Warn(st.where,
             "'print:' ignored: the .log has the model summary, and Newton failures "
             "name their equation by node and element");
}

void DeckReader::NoEffect(const Stmt& st) {
    in_.SkipArguments();
    in_.Warn(st.where, "'" + st.keyword +
                           "' has no effect in mbstep (no restart files, no sockets, no "
                           "equation scaling)");
}

// output units: MKS | CGS | MMTMS | MMKGMS
//     | custom, length, "..", mass, "..", time, "..", current, "..", temperature, "..";
// (MBDyn input manual, control data, "Output units"; mbdyn/base/output.cc
// OutputHandler::ReadOutputUnits): only names the units of the NetCDF attributes.
void DeckReader::OutputUnits(const Stmt&) {
    RunSettings::OutputUnits& u = settings_.output_units;
    u.system = in_.GetKeyword("output units", {"MKS", "CGS", "MMTMS", "MMKGMS", "custom"});
    if (u.system == "custom")
        for (auto [name, value] : {std::pair<const char*, std::string*>{"length", &u.length},
                                   {"mass", &u.mass},
                                   {"time", &u.time},
                                   {"current", &u.current},
                                   {"temperature", &u.temperature}}) {
            const SourceLocation at_u = in_.Where();
            if (!in_.IsKeyword(name))
                in_.Fail(at_u, std::string("custom output units: expected '") + name +
                                   "', then its unit as a string (MBDyn's order: length, "
                                   "mass, time, current, temperature)");
            *value = in_.GetString(std::string(name) + " unit");
        }
}

// model: static | dynamic; (MBDyn input manual, control data, "Model": `static` makes every
// structural node static and solves the static problem at each time step, time being the load
// parameter; `dynamic`, the default, is accepted for symmetry.)
void DeckReader::ModelStatement(const Stmt&) {
    model_.set_static_model(in_.GetKeyword("model type", {"static", "dynamic"}) == "static");
}

// output results: <format> [, <format options>]; (MBDyn input manual, control data, "Output
// results": MBDyn's formats are netcdf and, historically, adams and motion view); `netcdf [,
// sync] [, no text]` adds PREFIX.nc in MBDyn's NetCDF layout (io/netcdf.hpp) and mbstep's `vtk`
// the VTK series (io/vtk.hpp) to the text files. `sync` is what mbstep does anyway (the .nc is
// synced whenever the text files are written); `no text` leaves out the per-entity text files
// (.mov, .abs, .jnt, .act, .frc), as MBDyn's OutputHandler then does; the .out, .log and .csv
// are written.
void DeckReader::OutputResults(const Stmt&) {
    do {
        const SourceLocation at_f = in_.Where();
        const std::string format =
            in_.GetKeyword("output results format", {"vtk", "netcdf", "adams", "motion view"});
        if (format == "vtk") {
            settings_.output_vtk = true;
        } else if (format == "netcdf") {
            if (!NetcdfOutputAvailable())
                in_.Fail(at_f,
                         "'output results: netcdf' needs NetCDF, and this mbstep was built "
                         "without NetCDF (configure with -DMBSTEP_WITH_NETCDF=ON and Debian's "
                         "libnetcdf-dev installed)");
            settings_.output_netcdf = true;
            // `sync` and `no text` in either order, as MBDyn's reader takes them.
            for (;;) {
                if (in_.IsKeyword("sync")) continue;
                if (in_.IsKeyword("no text")) {
                    settings_.output_text = false;
                    continue;
                }
                break;
            }
        } else {
            in_.Fail(at_f, "'output results: " + format +
                               "' is not supported (mbstep writes the text files and, with "
                               "'output results: netcdf' or 'vtk', a NetCDF file or a VTK "
                               "series)");
        }
    } while (in_.HasArg());
}

// ---------------------------------------------------------------------------------------------
// nodes

void DeckReader::Nodes(const std::string& key, const std::string& keyword,
                       const SourceLocation& where) {
    if (!Dispatch(DeckBlock::kNodes, key, keyword, where))
        Unknown(keyword, where, AcceptedDeckKeywords(DeckBlock::kNodes));
}

void DeckReader::NodesNotSupported(const Stmt& st) {
    in_.Fail(st.where, "'" + st.keyword + "' nodes are not supported");
}

// abstract: label, differential [, value, x0 [, derivative, v0]] [, output, yes|no];
// (MBDyn manual, input/nodes.tex "Abstract Node"; `algebraic` abstract nodes are refused: an
// algebraic scalar needs an element that writes its equation, and no element does.)
void DeckReader::AbstractNodeStatement(const SourceLocation& where) {
    const SourceLocation at_label = in_.Where();
    const long label = in_.GetLabel("abstract node label");
    const int existing = model_.FindAbstractNode(static_cast<int>(label));
    if (existing >= 0)
        in_.Fail(at_label, "abstract node " + std::to_string(label) + " is already defined (at " +
                               model_.abstract_nodes()[existing].where.ToString() + ")");
    AbstractNode n;
    n.label = static_cast<int>(label);
    n.where = where;
    n.output = settings_.abstract_output;
    const SourceLocation at_type = in_.Where();
    if (in_.HasArg()) {
        const std::string type =
            in_.GetKeyword("abstract node type", {"differential", "algebraic"});
        if (type == "algebraic")
            in_.Fail(at_type,
                     "'algebraic' abstract nodes are not supported: only differential ones, whose "
                     "equations the `lagrangian` genel writes");
    } else {
        in_.Fail(at_type, "expected the abstract node type 'differential'");
    }
    if (in_.IsKeyword("value")) {
        n.x0 = in_.GetReal("abstract node initial value");
        if (in_.IsKeyword("derivative")) n.v0 = in_.GetReal("abstract node initial derivative");
    }
    while (in_.HasArg()) {
        const SourceLocation at = in_.Where();
        if (in_.IsKeyword("output")) {
            n.output = in_.GetBool("node output");
        } else {
            in_.Fail(at, "unexpected argument " + in_.NextToken() +
                             " in abstract node; accepted: value, derivative, output");
        }
    }
    in_.EndStatement("abstract");
    if (abstract_nodes_.count++ == 0) abstract_nodes_.first = where;
    model_.AddAbstractNode(std::move(n));
}

// structural: label, static | dynamic, [position,] x, [orientation,] R,
//     [orientation description, d,] [velocity,] v, [angular velocity,] w
//     [, assembly, k_x, k_v, omega_rotates] [, scale, s] [, output, yes|no]
//     [, accelerations, yes|no];     or: label, static | dynamic, at reference, label, ...
// (MBDyn manual, input/nodes.tex "Structural Node")
void DeckReader::StructuralNodeStatement(const SourceLocation& where) {
    const SourceLocation at_label = in_.Where();
    const long label = in_.GetLabel("structural node label");
    const int existing = model_.FindNode(static_cast<int>(label));
    if (existing >= 0)
        in_.Fail(at_label, "structural node " + std::to_string(label) + " is already defined (at " +
                               model_.nodes()[existing].where.ToString() + ")");
    const int existing_dummy = model_.FindDummyNode(static_cast<int>(label));
    if (existing_dummy >= 0)
        in_.Fail(at_label, "structural node " + std::to_string(label) + " is already defined (at " +
                               model_.dummy_nodes()[existing_dummy].where.ToString() + ")");
    const SourceLocation at_type = in_.Where();
    const std::string type = in_.GetKeyword(
        "structural node type",
        {"static", "dynamic", "dummy", "modal", "static displacement", "dynamic displacement"});
    if (type == "dummy") return DummyNodeStatement(static_cast<int>(label), where);
    if (type != "static" && type != "dynamic")
        in_.Fail(at_type, "'" + type + "' structural nodes are not supported");

    StructuralNode n;
    n.label = static_cast<int>(label);
    n.kind = type == "static" ? NodeKind::kStatic : NodeKind::kDynamic;
    n.where = where;
    n.output = settings_.default_output;
    n.orientation_output = settings_.default_orientation;
    const FrameState global;
    if (in_.IsKeyword("at reference")) {
        const SourceLocation at_ref = in_.Where();
        const long ref = in_.GetInt("reference label");
        const FrameState* f = in_.FindReference(ref);
        if (!f) in_.Fail(at_ref, "undefined reference " + std::to_string(ref));
        n.initial = *f;
    } else {
        in_.IsKeyword("position");
        n.initial.x = in_.GetPosition(global, "node position");
        in_.IsKeyword("orientation");
        n.initial.R = in_.GetOrientation(global, "node orientation");
        if (in_.IsKeyword("orientation description"))
            n.orientation_output = in_.GetOrientationDescription();
        in_.IsKeyword("velocity");
        n.initial.v = in_.GetVelocity(global, n.initial.x, "node velocity");
        in_.IsKeyword("angular velocity");
        n.initial.w = in_.GetAngularVelocity(global, "node angular velocity");
    }
    while (in_.HasArg()) {
        const SourceLocation at = in_.Where();
        if (in_.IsKeyword("assembly")) {
            const SourceLocation at_k = in_.Where();
            n.assembly_kp = in_.GetReal("initial assembly position stiffness");
            n.assembly_kv = in_.GetReal("initial assembly velocity stiffness");
            if (!(n.assembly_kp >= 0.0) || !(n.assembly_kv >= 0.0))
                in_.Fail(at_k,
                         "initial assembly stiffnesses must be non-negative (0: the "
                         "node's position or velocity is free in the assembly)");
            n.assembly_omega_rotates = in_.GetBool("omega rotates") ? 1 : 0;
        } else if (in_.IsKeyword("scale")) {
            if (!in_.IsKeyword("default")) in_.GetReal("node scale");
            in_.Warn(at, "node 'scale' ignored: mbstep scales no equations");
        } else if (in_.IsKeyword("output")) {
            n.output = in_.GetBool("node output");
        } else if (in_.IsKeyword("accelerations")) {
            if (in_.GetBool("node accelerations"))
                in_.Warn(at, "node 'accelerations' ignored: the .mov has no acceleration columns");
        } else if (in_.IsKeyword("orientation description")) {
            n.orientation_output = in_.GetOrientationDescription();
        } else {
            in_.Fail(at, "unexpected argument " + in_.NextToken() +
                             " in structural node; accepted: assembly, scale, output, "
                             "accelerations, orientation description");
        }
    }
    in_.EndStatement("structural");
    if (nodes_.count++ == 0) nodes_.first = where;
    model_.AddNode(std::move(n));
}

// structural: label, dummy, base, offset, relative offset, relative orientation
//     [, orientation description, d];
// structural: label, dummy, base, relative frame, reference node [, position, f]
//     [, orientation, R] [, orientation description, d];
// (MBDyn manual, input/nodes.tex "Dummy Node"; the `pivot node` variant is refused.)
void DeckReader::DummyNodeStatement(int label, const SourceLocation& where) {
    auto read_node = [&](const char* what) {
        const SourceLocation at = in_.Where();
        const long l = in_.GetInt(what);
        const int index = model_.FindNode(static_cast<int>(l));
        if (index >= 0) return index;
        if (model_.FindDummyNode(static_cast<int>(l)) >= 0)
            in_.Fail(at, std::string(what) + " " + std::to_string(l) +
                             " is a dummy node; dummy nodes must be based on static or dynamic "
                             "structural nodes");
        in_.Fail(at, "undefined structural node " + std::to_string(l));
    };
    DummyNode n;
    n.label = label;
    n.where = where;
    n.output = settings_.default_output;
    n.orientation_output = settings_.default_orientation;
    n.base = read_node("dummy node base");
    const std::string kind = in_.GetKeyword("dummy node type", {"offset", "relative frame"});
    if (kind == "offset") {
        const FrameState& rf = model_.nodes()[n.base].initial;
        in_.IsKeyword("position");
        n.f = in_.GetPosition(rf, "dummy node relative offset");
        in_.IsKeyword("orientation");
        n.Rh = in_.GetOrientation(rf, "dummy node relative orientation");
    } else {
        n.kind = DummyNode::Kind::kRelativeFrame;
        n.reference = read_node("dummy node reference node");
        const FrameState& rf = model_.nodes()[n.reference].initial;
        if (in_.IsKeyword("position")) n.f = in_.GetPosition(rf, "reference offset");
        if (in_.IsKeyword("orientation")) n.Rh = in_.GetOrientation(rf, "reference orientation");
    }
    while (in_.HasArg()) {
        const SourceLocation at = in_.Where();
        if (in_.IsKeyword("orientation description")) {
            n.orientation_output = in_.GetOrientationDescription();
        } else if (in_.IsKeyword("output")) {
            n.output = in_.GetBool("node output");
        } else if (in_.IsKeyword("pivot node")) {
            in_.Fail(at, "'pivot node' in relative frame dummy nodes is not supported");
        } else {
            in_.Fail(at, "unexpected argument " + in_.NextToken() +
                             " in dummy structural node; accepted: orientation description, "
                             "output");
        }
    }
    in_.EndStatement("structural");
    if (nodes_.count++ == 0) nodes_.first = where;
    model_.AddDummyNode(std::move(n));
}

// ---------------------------------------------------------------------------------------------
// elements

void DeckReader::Elements(const std::string& key, const std::string& keyword,
                          const SourceLocation& where) {
    // Element statements are the registered ones (body, joint, force, couple, gravity, beam3,
    // beam2, ... from the element plugins), then those of the block's keyword table.
    for (const std::string& s : ElementStatements())
        if (Is(key, s.c_str())) return ElementStatement(s, where);
    if (Dispatch(DeckBlock::kElements, key, keyword, where)) return;
    std::vector<std::string> statements = ElementStatements();
    std::sort(statements.begin(), statements.end());
    Unknown(keyword, where, statements);
}

void DeckReader::InertiaStatement(const Stmt& st) {
    in_.Warn(st.where, "'inertia' output statements are ignored");
    in_.SkipArguments();
}

void DeckReader::ElementNotProvided(const Stmt& st) {
    std::vector<std::string> statements = ElementStatements();
    std::sort(statements.begin(), statements.end());
    in_.Fail(st.where, "'" + st.keyword +
                           "' statements are not supported in the elements block (no plugin "
                           "provides them); accepted: " +
                           Join(statements));
}

// driven: label, <drive> [, hint, "...", ...], <element statement>;
// (MBDyn manual, input/elements.tex "Driven Element"; the element carries the same label.)
void DeckReader::DrivenStatement(const SourceLocation& where) {
    const long label = in_.GetLabel("driven element label");
    DrivePtr drive = in_.GetDrive("driven element drive");
    const SourceLocation at = in_.Where();
    if (in_.IsKeyword("hint"))
        in_.Fail(at, "driven element hints are not supported (the element keeps its data)");
    SourceLocation inner_where;
    bool has_args = false;
    const std::string keyword = in_.ReadStatementKeyword(&inner_where, &has_args);
    std::vector<std::string> statements = ElementStatements();
    statements.erase(std::remove(statements.begin(), statements.end(), "gravity"),
                     statements.end());
    const std::string key = KeywordKey(keyword);
    for (const std::string& st : statements)
        if (Is(key, st.c_str())) return ElementStatement(st, inner_where, drive, label);
    std::sort(statements.begin(), statements.end());
    in_.Fail(inner_where, "a driven element wraps an element statement, got '" + keyword +
                              "'; accepted: " + Join(statements));
    (void)where;
}

// user defined: label, type, ...; (MBDyn manual, "User-Defined Elements": the types that
// `module load:` modules register). Here every registered element type is one: the type name
// is looked up across the statements (`joint: 1, rod, ...` and `user defined: 1, rod, ...`
// read the same element); labels and the control-data count are those of `user defined
// elements`.
void DeckReader::UserDefinedStatement(const SourceLocation& where) {
    static const ElementDescriptor kAny;  // marks the lookup by type name
    ElementStatement("user defined", where, nullptr, -1, &kAny);
}

// module load: "name"; (MBDyn manual, "Module Load"). An mbstep plugin is loaded by name:
// `name` is a file (absolute, or relative to the deck's folder, when it names a folder or ends
// in .so), else libmbstep_<name>.so, <name>.so, lib<name>.so or <name> in the `loadable path:`
// folders and then the plugin search path (MBSTEP_PLUGIN_PATH, the built-in folder). The
// plugins of the search path are registered at start (opened at their first use when their
// folder's index lists them), so naming one of them checks that it is there and does nothing
// else.
void DeckReader::ModuleLoad(const SourceLocation& where) {
    const SourceLocation at = in_.Where();
    const std::string name = in_.GetString("module name");
    if (in_.HasArg())
        in_.Fail(in_.Where(),
                 "module arguments are not supported: an mbstep plugin reads its "
                 "data in its own statements");
    in_.EndStatement("module load");
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    const bool is_path = name.find('/') != std::string::npos || fs::path(name).extension() == ".so";
    if (is_path) {
        fs::path p(name);
        if (p.is_relative()) p = fs::path(at.file).parent_path() / p;
        candidates.push_back(p);
    } else {
        std::vector<std::string> dirs = module_path_;
        for (const std::string& d : PluginSearchPath()) dirs.push_back(d);
        for (const std::string& d : dirs)
            for (const std::string& f :
                 {"libmbstep_" + name + ".so", name + ".so", "lib" + name + ".so", name})
                candidates.push_back(fs::path(d) / f);
    }
    std::error_code ec;
    const auto found = std::find_if(candidates.begin(), candidates.end(),
                                    [&](const fs::path& p) { return fs::is_regular_file(p, ec); });
    if (found == candidates.end())
        in_.Fail(at, "module '" + name + "' not found" +
                         (is_path ? " (" + candidates.front().string() + ")"
                                  : " as an mbstep plugin (libmbstep_" + name +
                                        ".so) in the loadable path or the plugin search path") +
                         (name.rfind("libmodule-", 0) == 0
                              ? "; MBDyn's own modules are not mbstep plugins"
                              : ""));
    Registry scratch;
    try {
        LoadPlugin(scratch, found->string());
    } catch (const std::exception& e) {
        in_.Fail(at, e.what());
    }
    const std::vector<std::string> have = registry_.Keys(), keys = scratch.Keys();
    std::vector<std::string> present;
    for (const std::string& k : keys)
        if (std::binary_search(have.begin(), have.end(), k)) present.push_back(k);
    if (present.size() == keys.size()) return;  // already loaded from the search path
    if (!present.empty())
        in_.Fail(at, "module '" + name + "' (" + found->string() + ") registers " +
                         present.front() + ", which another loaded plugin registers");
    if (&registry_ != &GlobalRegistry())
        in_.Fail(where,
                 "'module load' loads into the process-wide plugin registry; this deck "
                 "is read with another registry");
    GlobalRegistry().Merge(std::move(scratch));
    element_statements_.clear();
    element_names_.clear();
}

// loadable path: [set | add,] "folder"; (MBDyn manual, "Module Load"): folders searched by
// `module load:` before the plugin search path; `set` replaces the ones given before.
void DeckReader::LoadablePath(const SourceLocation& where) {
    bool set = false;
    if (in_.IsKeyword("set"))
        set = true;
    else
        in_.IsKeyword("add");
    const SourceLocation at = in_.Where();
    std::filesystem::path dir(in_.GetString("loadable path"));
    in_.EndStatement("loadable path");
    if (dir.is_relative()) dir = std::filesystem::path(at.file).parent_path() / dir;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        in_.Fail(at, "loadable path '" + dir.string() + "' is not a folder");
    if (set) module_path_.clear();
    module_path_.push_back(dir.string());
    (void)where;
}

// body: label, node, ...; joint|force|couple: label, type, ...; gravity: [type,] ...
void DeckReader::ElementStatement(const std::string& statement, const SourceLocation& where,
                                  DrivePtr driven, long driven_label,
                                  const ElementDescriptor* user_defined) {
    long label = 0;
    if (statement != "gravity") {
        const SourceLocation at_label = in_.Where();
        label = in_.GetLabel(statement + " label");
        if (label > 2147483647L) in_.Fail(at_label, "label too large");
        const std::string kind = statement == "couple" ? "force" : statement;
        auto& labels = labels_[kind];
        auto it = labels.find(label);
        if (it != labels.end())
            in_.Fail(at_label, "duplicate " + statement + " label " + std::to_string(label) + " (" +
                                   it->second.first + " " + std::to_string(label) +
                                   " is defined at " + it->second.second.ToString() + ")");
        labels[label] = {statement, where};
        if (driven && label != driven_label)
            in_.Fail(at_label, "the driven element's label " + std::to_string(driven_label) +
                                   " differs from its " + statement + " label " +
                                   std::to_string(label) + " (MBDyn requires them equal)");
    }
    // Type keyword: the longest registered name for this statement; statements registered with
    // an empty name (body, beam3, beam2) have none.
    const SourceLocation at_type = in_.Where();
    std::string type;
    if (user_defined) {  // `user defined: label, type, ...`: any registered type by its name
        std::vector<std::string> names;
        const std::vector<RegisteredName> registered = registry_.Names(PluginKind::kElement);
        for (const RegisteredName& d : registered)
            if (!d.name.empty()) names.push_back(d.name);
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        const int i = in_.MatchOneOf(names);
        if (i < 0)
            in_.Fail(at_type, "unknown user defined element type " + in_.NextToken() +
                                  "; the element plugins provide: " + Join(names) +
                                  " (`module load: \"name\";` loads another plugin)");
        type = names[i];
        const RegisteredName* found = nullptr;
        for (const RegisteredName& d : registered)
            if (Registry::Normalize(d.name) == Registry::Normalize(type)) {
                if (found)
                    in_.Fail(at_type, "user defined element type '" + type +
                                          "' is registered under both '" + found->statement +
                                          "' and '" + d.statement + "'; write that statement");
                found = &d;
            }
        user_defined = found ? registry_.FindElement(found->statement, found->name) : nullptr;
    } else if (!FindElement(statement, "")) {
        const std::vector<std::string>& names = ElementNames(statement);
        const int i = in_.MatchOneOf(names);
        if (i >= 0) {
            type = names[i];
        } else if (statement == "gravity") {
            type = "uniform";  // MBDyn's old form `gravity: x, y, z, drive;`
        } else {
            in_.Fail(at_type, "unknown " + statement + " type " + in_.NextToken() + "; accepted: " +
                                  (names.empty() ? "none (no " + statement + " plugins are loaded)"
                                                 : Join(names, true)));
        }
    }
    const ElementDescriptor* d = user_defined ? user_defined : FindElement(statement, type);
    if (!d)
        in_.Fail(statement == "body" ? where : at_type, "no plugin provides '" + statement +
                                                            (type.empty() ? "" : ": " + type) +
                                                            "' (are the element plugins built?)");
    ElementReadArgs args{in_, static_cast<int>(label), settings_.default_orientation};
    std::unique_ptr<Element> e;
    try {
        e = d->read(args);
    } catch (const DeckError&) {
        throw;
    } catch (const std::exception& ex) {
        in_.Fail(where, statement + " " + std::to_string(label) + ": " + ex.what());
    }
    if (!e) in_.Fail(where, statement + " " + std::to_string(label) + " could not be created");
    in_.EndStatement(statement);
    // A user defined element keeps its own statement (joint, force, ...): it is written to
    // that statement's output file.
    e->set_statement(user_defined ? Registry::Normalize(user_defined->statement) : statement);
    e->set_where(where);
    if (driven) {
        if (e->num_multipliers() > 0)
            in_.Fail(where, "driven " + statement + " " + std::to_string(label) +
                                ": elements with Lagrange multipliers cannot be driven (an "
                                "inactive constraint would need its multipliers set to zero)");
        std::vector<NodeInertia> inertia(e->nodes().size());
        e->AddInertia(inertia);
        for (const NodeInertia& n : inertia)
            if (n.m != 0.0 || !n.J.isZero(0.0))
                in_.Fail(where, "driven " + statement + " " + std::to_string(label) +
                                    ": elements that attach inertia cannot be driven");
        e = std::make_unique<DrivenElement>(std::move(e), std::move(driven));
    }
    Defined& defined = user_defined                                    ? user_defined_
                       : statement == "body"                           ? bodies_
                       : statement == "joint"                          ? joints_
                       : statement == "gravity"                        ? gravity_
                       : statement == "beam3" || statement == "beam2"  ? beams_
                       : statement == "force" || statement == "couple" ? forces_
                       : statement == "genel"                          ? genels_
                                                                       : others_;
    if (defined.count++ == 0) defined.first = where;
    model_.AddElement(std::move(e));
}

// ---------------------------------------------------------------------------------------------
// Validation

void DeckReader::CheckCount(const char* name, const Defined& defined) {
    const Count& c = counts_[name];
    if (c.value == defined.count) return;
    if (c.given)
        in_.Fail(c.where, "control data declares " + std::to_string(c.value) + " " + name +
                              " but the deck defines " + std::to_string(defined.count));
    in_.Fail(defined.first, "the deck defines " + std::to_string(defined.count) + " " + name +
                                " but control data does not declare them ('" + name + ": " +
                                std::to_string(defined.count) + ";' is missing)");
}

void DeckReader::Validate() {
    const SourceLocation eof = in_.EndLocation();
    if (block_ != Block::kNone)
        in_.Fail(eof, "missing 'end: " + std::string(BlockName(block_)) + ";' (block opened at " +
                          block_where_.ToString() + ")");
    if (!seen_.count(Block::kInitialValue)) in_.Fail(eof, "missing 'begin: initial value;' block");
    if (!seen_.count(Block::kControlData)) in_.Fail(eof, "missing 'begin: control data;' block");

    // Counts of control data against the statements read.
    CheckCount("structural nodes", nodes_);
    CheckCount("rigid bodies", bodies_);
    CheckCount("joints", joints_);
    CheckCount("forces", forces_);
    CheckCount("beams", beams_);
    CheckCount("abstract nodes", abstract_nodes_);
    CheckCount("genels", genels_);
    CheckCount("user defined elements", user_defined_);
    if (gravity_flag_ && gravity_.count == 0)
        in_.Fail(gravity_flag_where_,
                 "control data declares gravity but no gravity element is defined");
    if (!gravity_flag_ && gravity_.count > 0)
        in_.Fail(gravity_.first, "gravity element defined but control data lacks 'gravity;'");

    // Times.
    if (!settings_.forever && settings_.final_time <= settings_.initial_time)
        in_.Fail(final_time_given_ ? final_time_where_ : seen_[Block::kInitialValue],
                 "final time (" + Format(settings_.final_time) +
                     ") must be greater than initial time (" + Format(settings_.initial_time) +
                     ")");

    // MBDyn's default method: ms with rho_inf = 0.
    if (!integrator_) {
        if (!registry_.FindIntegrator("ms"))
            in_.Fail(seen_[Block::kInitialValue],
                     "no 'method:' given and the default method 'ms' is not registered");
        settings_.method_text = "ms, 0";
        integrator_ = MakeIntegrator(settings_.method_text, registry_, &method_name_);
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API

Deck ReadDeck(const std::string& path, const Registry& registry) {
    return DeckReader(registry).ReadFile(path);
}

Deck ReadDeckText(const std::string& text, const std::string& name, const Registry& registry) {
    return DeckReader(registry).ReadText(text, name);
}

DrivePtr ReadDrive(const std::string& drive_text, const Registry& registry) {
    SymbolTable symbols;
    Model model;
    std::vector<std::string> warnings;
    DeckParser in(registry, symbols, model, warnings);
    in.PushText(drive_text + ";", "<drive>");
    DrivePtr drive = in.GetDrive("drive");
    in.EndStatement("drive");
    if (!in.AtEnd()) in.Fail(in.Where(), "unexpected text after the drive");
    return drive;
}

ConstitutiveLawPtr ReadConstitutiveLaw(const std::string& law_text, int dimension,
                                       const Registry& registry) {
    SymbolTable symbols;
    Model model;
    std::vector<std::string> warnings;
    DeckParser in(registry, symbols, model, warnings);
    in.PushText(law_text + ";", "<law>");
    ConstitutiveLawPtr law = in.GetConstitutiveLaw(dimension, "constitutive law");
    in.EndStatement("constitutive law");
    if (!in.AtEnd()) in.Fail(in.Where(), "unexpected text after the constitutive law");
    return law;
}

std::unique_ptr<Integrator> MakeIntegrator(const std::string& method_text, const Registry& registry,
                                           std::string* name) {
    SymbolTable symbols;
    Model model;
    std::vector<std::string> warnings;
    DeckParser in(registry, symbols, model, warnings);
    in.PushText(method_text + ";", "<method>");
    std::unique_ptr<Integrator> integrator = ReadMethod(in, registry, name);
    if (!in.AtEnd()) in.Fail(in.Where(), "unexpected text after the method");
    return integrator;
}

const std::vector<KeywordEntry>& DeckKeywords(DeckBlock block) {
    return DeckReader::TableOf(block).entries;
}

std::vector<std::string> AcceptedDeckKeywords(DeckBlock block) {
    return DeckReader::TableOf(block).accepted;
}

// MBDyn's solvers (`naive`, its own sparse LU with an optional column ordering, `klu`,
// `umfpack`, ...; MBDyn input manual, "Linear Solver") are all direct sparse LUs: each maps to
// `auto` (the dense LU up to kDenseMaxUnknowns unknowns, above it KLU, after block elimination
// where that removes at least half the unknowns), the fastest direct path, which honours the
// ordering and scaling options on its KLU factorizations; those mbstep does not build are read
// with a warning. `sparselu` and `schur` are mbstep's own and are used as named.
const std::vector<LinearSolverKeyword>& DeckLinearSolvers() {
    static const std::vector<LinearSolverKeyword> kSolvers = {
        {"naive", "auto", true},    {"umfpack", "auto", false},  {"klu", "auto", true},
        {"y12", "auto", false},     {"lapack", "auto", false},   {"superlu", "auto", false},
        {"taucs", "auto", false},   {"watson", "auto", false},   {"pastix", "auto", false},
        {"qr", "auto", false},      {"spqr", "auto", false},     {"sparselu", "sparselu", true},
        {"harwell", "auto", false}, {"meschach", "auto", false}, {"schur", "schur", true},
    };
    return kSolvers;
}

}  // namespace mbstep
