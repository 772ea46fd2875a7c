// mbstep tests — elements with position- and velocity-level rows (ConstraintLevel::kMixed,
// `axial rotation`) in the cgr formulation: the iteration matrix against central differences
// of the residual, with the real joint and spring plugins read from a deck (the formulation
// scales each row by its own level, element.hpp row_level).
#include <doctest/doctest.h>

#include "mbstep/formulation/formulation.hpp"
#include "mbstep/integrator/integrator.hpp"
#include "mbstep/io/deck_reader.hpp"
#include "mbstep/plugin/registry.hpp"
#include "support/iteration_matrix_check.hpp"

using namespace mbstep;

TEST_CASE("cgr iteration matrix with a mixed-level joint matches finite differences") {
    const char* deck = R"(
begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 1.; time step: 1.e-3; end: initial value;
begin: control data; structural nodes: 3; rigid bodies: 2; joints: 3; end: control data;
begin: nodes;
    structural: 1, dynamic, 0.1, -0.2, 0.3, euler123, 0.2, -0.1, 0.4, 0.1, 0.2, -0.1,
        0.3, -0.2, 1.1;
    structural: 2, dynamic, 0.5, 0.1, -0.2, euler123, -0.3, 0.5, 0.1, -0.2, 0.1, 0.3,
        0.1, 0.4, -0.6;
    structural: 3, static, 1., 1., 0., eye, null, null;
end: nodes;
begin: elements;
    body: 1, 1, 2., 0.1, 0.2, -0.1, diag, 1., 2., 3.;
    body: 2, 2, 3., -0.2, 0.1, 0.1, diag, 2., 1., 1.5;
    joint: 1, axial rotation, 1, position, 0.2, 0.1, 0.3, orientation, euler123, 0.3, 0.1, -0.2,
        2, position, -0.1, 0.2, 0.1, orientation, euler123, -0.2, 0.4, 0.1,
        sine, 0., 2., 0.5, forever, 1.;
    joint: 2, rod, 2, position, 0.1, 0., 0., 3, 1.5, linear viscoelastic, 100., 2.;
    joint: 3, deformable hinge, 3, 1, linear viscoelastic, 20., 1.;
end: elements;
)";
    const Registry& reg = GlobalRegistry();
    const Deck d = ReadDeckText(deck, "mixed.mbd", reg);
    REQUIRE(d.model.elements()[2]->constraint_level() == ConstraintLevel::kMixed);
    const FormulationDescriptor* fd = reg.FindFormulation("cgr");
    REQUIRE(fd != nullptr);
    auto f = fd->make(d.model);
    FirstOrderProblem& p = *f->first_order();
    const int n = p.num_dofs();
    CHECK(n == 12 + 12 + 6 + 6);
    srand(11);
    test::CheckIterationMatrixAtRandomStates(p, 0.21, 0.011);
}
