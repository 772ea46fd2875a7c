// mbstep — the deck reader's keyword tables (docs/input.md; MBDyn input manual).
//
// Each block's statement keywords are one table in core/src/io/deck_reader.cpp: a row holds the
// keyword (MBDyn's spelling, then aliases), the handler that reads the statement, what it does
// (acts, warns, is refused) and the text the input manual shows. The reader dispatches through
// the table, its "unknown keyword ...; accepted: ..." message lists the table's keywords, and
// `mbstep manual` writes the table: a keyword cannot be read without being documented. This
// header is the read-only view of those tables (the manual and the tests read it).
#pragma once

#include <string>
#include <vector>

namespace mbstep {

/// The blocks whose statements are read through a keyword table. kAnywhere: the statements
/// valid in every block and outside them (`set:`, `include:`, ...). For kElements the table
/// holds the keywords besides the registered element statements (the registry's element types
/// make the manual's list of those).
enum class DeckBlock { kAnywhere, kInitialValue, kControlData, kNodes, kElements };

/// How mbstep reads a statement (docs/input.md): it acts, it is read with a warning that says
/// why it has no effect, or it is refused with `file:line:column: message`.
enum class KeywordOutcome { kActs, kWarns, kRefused };

/// One row of the input manual's table of a block: the statement (Markdown) and what mbstep
/// does with it. An empty `text` joins the statement to the next line's row (one row of the
/// manual for keywords that read alike).
struct KeywordManualLine {
    std::string syntax;
    std::string text;
};

/// One statement keyword of a block.
struct KeywordEntry {
    std::vector<std::string> names;  ///< MBDyn's spelling first, then the aliases read alike
    KeywordOutcome outcome{KeywordOutcome::kActs};
    std::vector<KeywordManualLine> manual;
};

/// The keyword table of a block, in the manual's order.
const std::vector<KeywordEntry>& DeckKeywords(DeckBlock block);

/// The keywords an "unknown keyword" error of the block lists: the first name of every entry
/// that is not refused, in the table's order.
std::vector<std::string> AcceptedDeckKeywords(DeckBlock block);

/// `linear solver: <name>`: MBDyn's linear solver names and mbstep's, in the order the reader
/// matches them, with the mbstep solver each one runs (core/include/mbstep/solver/
/// linear_solver.hpp, MakeLinearSolver).
struct LinearSolverKeyword {
    std::string name;      ///< as written in the deck
    std::string solver;    ///< the solver run: "auto" or the name itself
    bool available{true};  ///< false: read with a warning, `auto` is used
};
const std::vector<LinearSolverKeyword>& DeckLinearSolvers();

}  // namespace mbstep
