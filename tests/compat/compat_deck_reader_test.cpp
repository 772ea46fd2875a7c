// mbstep tests — MBDyn's own test decks as read (label `compat`): chain15 (include, references
// with euler123 in degrees*deg2rad, counts as expressions) and 6barmech (a dummy node), from the
// optional folder of MBDyn's test decks (test::FindMbdynTests()); reported as skipped when the
// folder is absent. An executable of its own, so that the skip marker cannot hide the other
// deck-reader tests (tests/io/deck_reader_test.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/math/rotation.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/mbdyn_tests.hpp"
#include "support/skip.hpp"

using namespace mbstep;

TEST_CASE("deck: MBDyn's rigid-body test decks") {
    const test::MbdynTestsFolder folder = test::FindMbdynTests();
    if (!folder.skip_reason.empty()) {
        test::ReportSkip(folder.skip_reason);
        return;
    }
    const std::filesystem::path& root = folder.path;
    const Registry& r = GlobalRegistry();
    // chain15: include, references with euler123 in degrees*deg2rad, counts as expressions.
    if (r.FindElement("joint", "spherical hinge") && r.FindElement("joint", "spherical pin") &&
        r.FindElement("joint", "clamp") && r.FindElement("body", "")) {
        const Deck d = ReadDeck((root / "chain15" / "chain15").string(), r);
        CHECK(d.model.nodes().size() == 16);
        CHECK(d.model.elements().size() == 32);
        CHECK(d.settings.solver.residual_tolerance == 1e-10);
        CHECK(d.settings.method_text == "ms, .6");
        const StructuralNode& n1 = d.model.nodes()[d.model.FindNode(1)];
        CHECK(n1.initial.x.isApprox(Vec3(0, 1.865902e-01, -4.638794e-01)));
        CHECK(n1.initial.R.isApprox(RotX(21.91189 * M_PI / 180.0)));
    }
    // 6barmech has a dummy node (label 99999, offset L/2 above node 0), counted among the
    // structural nodes of control data (5 + 1) but not among the nodes with unknowns.
    if (r.FindElement("joint", "total joint") && r.FindElement("joint", "total pin joint")) {
        const Deck d = ReadDeck((root / "6barmech" / "6barmech").string(), r);
        CHECK(d.model.nodes().size() == 5);
        REQUIRE(d.model.dummy_nodes().size() == 1);
        const DummyNode& n = d.model.dummy_nodes()[0];
        CHECK(n.label == 99999);
        CHECK(d.model.nodes()[n.base].label == 0);
        CHECK(n.f.isApprox(Vec3(0.0, 0.0, 0.5)));
    }
}
