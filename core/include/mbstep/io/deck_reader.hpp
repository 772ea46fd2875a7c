// mbstep — reading an input deck in MBDyn's language (docs/input.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mbstep/io/settings.hpp"
#include "mbstep/model/model.hpp"
#include "mbstep/plugin/registry.hpp"

namespace mbstep {

class Integrator;

/// A deck that was read completely and validated.
struct Deck {
    std::string path;
    Model model;
    RunSettings settings;
    std::unique_ptr<Integrator> integrator;  ///< from `method:`, default `ms, 0` (MBDyn's)
    std::string method_name;                 ///< registry key of the integrator
    std::vector<std::string> warnings;       ///< `file:line:column: warning: ...`
    /// `remark:` statements as MBDyn prints them: `file:line: remark: <arguments>`.
    std::vector<std::string> remarks;
};

/// Reads and validates a deck. Throws DeckError (`file:line:column: message`) on any error;
/// never creates an output file.
Deck ReadDeck(const std::string& path, const Registry& registry);
/// Same, from text (the name is used in messages and to resolve `include:`).
Deck ReadDeckText(const std::string& text, const std::string& name, const Registry& registry);

/// Builds a drive from a drive caller's text, e.g. "sine, 0., 2*pi, 1., forever, 0." (tests,
/// CLI); throws DeckError located in "<drive>".
DrivePtr ReadDrive(const std::string& drive_text, const Registry& registry);
/// Reads one constitutive law of the given dimension from text such as
/// "linear viscoelastic generic, diag, 1., 2., 3., proportional, 0.1" (tests, tools).
ConstitutiveLawPtr ReadConstitutiveLaw(const std::string& law_text, int dimension,
                                       const Registry& registry);

/// Builds an integrator from a method statement's text, e.g. "ms3, 0.6" (for --method).
std::unique_ptr<Integrator> MakeIntegrator(const std::string& method_text, const Registry& registry,
                                           std::string* name = nullptr);

}  // namespace mbstep
