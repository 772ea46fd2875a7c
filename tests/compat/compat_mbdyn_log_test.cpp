// mbstep tests — the model lines of the .log (io/mbdyn_log.hpp) against the .log MBDyn develop
// writes for the same deck (labels `compat`, `output`): the optional folder of MBDyn's test
// decks holds, in mbdyn-logs/, the model part of MBDyn's .log of each deck. Every line of a
// keyword mbstep writes (nodes, bodies, joints, beams, rods, forces, the DOF index lines) must
// be there with the same number of fields and the same numbers (MBDyn prints 6 significant
// digits), and mbstep must write no such line that MBDyn does not. Lines are matched by keyword
// and label, so the order of the dummy nodes (mbstep writes them after the other nodes) does
// not matter. Reported as skipped when the folder is absent.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/io/mbdyn_log.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/mbdyn_tests.hpp"
#include "support/skip.hpp"

using namespace mbstep;

namespace {

struct Line {
    std::string keyword;              // the words before the first ':'
    std::vector<std::string> fields;  // the words after it
};

std::vector<Line> Parse(std::istream& is) {
    std::vector<Line> lines;
    std::string s;
    while (std::getline(is, s)) {
        const size_t colon = s.find(':');
        if (colon == std::string::npos) continue;
        Line l;
        l.keyword = s.substr(0, colon);
        std::istringstream words(s.substr(colon + 1));
        for (std::string w; words >> w;) l.fields.push_back(w);
        lines.push_back(std::move(l));
    }
    return lines;
}

// Numbers agree to MBDyn's 6 significant digits (both sides rounded: 1e-5 relative), small
// values to 1e-6 absolute (MBDyn prints round-off such as 6.93889e-18 where mbstep may print
// 0). Integers (labels, indices, flags) compare exactly as text.
bool SameField(const std::string& a, const std::string& b) {
    if (a == b) return true;
    char* end_a = nullptr;
    char* end_b = nullptr;
    const double x = std::strtod(a.c_str(), &end_a);
    const double y = std::strtod(b.c_str(), &end_b);
    if (*end_a != '\0' || *end_b != '\0') return false;
    return std::fabs(x - y) <= 1e-5 * std::max(std::fabs(x), std::fabs(y)) + 1e-6;
}

std::string Join(const Line& l) {
    std::string s = l.keyword + ":";
    for (const auto& f : l.fields) s += " " + f;
    return s;
}

// The key that matches a line of mbstep's with MBDyn's: keyword and label; the DOF index lines
// and `output frequency` have one line each.
std::string Key(const Line& l) {
    if (l.keyword.rfind("struct ", 0) == 0 || l.keyword == "output frequency") return l.keyword;
    return l.keyword + " " + (l.fields.empty() ? std::string() : l.fields[0]);
}

void Compare(const std::filesystem::path& deck, const std::filesystem::path& reference) {
    INFO("deck " << deck.string());
    const Deck d = ReadDeck(deck.string(), GlobalRegistry());
    std::istringstream ours_text(
        MbdynModelLog(d.model, d.settings.output_every, d.settings.output_precision));
    std::ifstream ref_file(reference);
    CHECK(ref_file.good());
    const std::vector<Line> ours = Parse(ours_text);
    const std::vector<Line> ref = Parse(ref_file);
    std::set<std::string> keywords;
    std::map<std::string, const Line*> by_key;
    for (const Line& l : ours) {
        keywords.insert(l.keyword);
        CHECK_MESSAGE(by_key.emplace(Key(l), &l).second, "two lines " << Key(l));
    }
    // Every line of MBDyn's of a keyword mbstep writes, field by field.
    int matched = 0;
    for (const Line& r : ref) {
        if (!keywords.count(r.keyword)) continue;
        const auto it = by_key.find(Key(r));
        CHECK_MESSAGE(it != by_key.end(), "mbstep writes no line for: " << Join(r));
        if (it == by_key.end()) continue;
        const Line& o = *it->second;
        INFO("MBDyn:  " << Join(r));
        INFO("mbstep: " << Join(o));
        CHECK(o.fields.size() == r.fields.size());
        if (o.fields.size() == r.fields.size())
            for (size_t k = 0; k < r.fields.size(); ++k)
                CHECK_MESSAGE(SameField(o.fields[k], r.fields[k]), "field " << k + 1);
        by_key.erase(it);
        ++matched;
    }
    // And no line MBDyn does not write.
    for (const auto& [key, line] : by_key)
        CHECK_MESSAGE(false, "not in MBDyn's .log: " << Join(*line));
    MESSAGE(deck.filename().string() << ": " << matched << " lines as MBDyn's");
    CHECK(matched > 0);
}

}  // namespace

TEST_CASE("mbdyn .log: the model lines of MBDyn's test decks as MBDyn writes them") {
    const test::MbdynTestsFolder folder = test::FindMbdynTests();
    if (!folder.skip_reason.empty()) {
        test::ReportSkip(folder.skip_reason);
        return;
    }
    const std::filesystem::path logs = folder.path / "mbdyn-logs";
    if (!std::filesystem::is_directory(logs)) {
        test::ReportSkip(logs.string() + " is absent (MBDyn's .log files of the test decks)");
        return;
    }
    int decks = 0;
    for (const auto& entry : std::filesystem::directory_iterator(logs)) {
        if (entry.path().extension() != ".log") continue;
        const std::string name = entry.path().stem().string();
        std::filesystem::path deck = folder.path / name / name;
        if (!std::filesystem::exists(deck)) deck = folder.path / "flexible" / name / name;
        if (!std::filesystem::exists(deck)) continue;
        Compare(deck, entry.path());
        ++decks;
    }
    CHECK(decks > 0);
}
