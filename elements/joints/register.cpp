// mbstep — registration of the joint family (STYLE.md §7).
#include "cardano.hpp"
#include "clamp.hpp"
#include "mbstep/plugin/registry.hpp"
#include "point_joints.hpp"
#include "revolute.hpp"
#include "spherical.hpp"
#include "total.hpp"
#include "velocity.hpp"

namespace {
void AddJoint(mbstep::Registry& r, const char* name, const char* text,
              std::function<std::unique_ptr<mbstep::Element>(mbstep::ElementReadArgs&)> read,
              std::vector<std::string> snippets) {
    mbstep::ElementDescriptor d;
    d.statement = "joint";
    d.name = name;
    d.description = text;
    d.read = std::move(read);
    d.test_snippets = std::move(snippets);
    r.Add(std::move(d));
}
}  // namespace

MBSTEP_PLUGIN_EXPORT int mbstep_register(mbstep::Registry& r, int abi) {
    namespace j = mbstep::joints;
    if (abi != mbstep::kPluginAbi) return 1;
    AddJoint(r, "clamp", "fixes a node's position and orientation (6 multipliers)", j::ReadClamp,
             {"joint: 1, clamp, 1, node, node;",
              "joint: 1, clamp, 2, position, 0.1, -0.2, 0.3, "
              "orientation, euler123, 0.2, -0.4, 0.7;"});
    AddJoint(r, "spherical hinge", "common point of two nodes (3 multipliers)",
             j::ReadSphericalHinge,
             {"joint: 1, spherical hinge, 1, position, 0.1, 0.2, 0.3, "
              "2, position, -0.2, 0.1, 0.4;",
              "joint: 1, spherical hinge, 1, position, 0.3, -0.1, 0.2, "
              "orientation, euler123, 0.1, 0.2, 0.3, 3, position, 0.2, 0.2, -0.5;"});
    AddJoint(r, "spherical pin", "node point fixed to a ground point (3 multipliers)",
             j::ReadSphericalPin,
             {"joint: 1, spherical pin, 2, position, 0.4, -0.3, 0.2, "
              "position, 1., 2., -0.5;"});
    AddJoint(r, "revolute hinge",
             "relative rotation of two nodes about a common axis "
             "(5 multipliers)",
             j::ReadRevoluteHinge,
             {"joint: 1, revolute hinge, 1, position, 0.1, 0.2, 0.3, "
              "orientation, euler123, 0.3, -0.2, 0.1, "
              "2, position, -0.2, 0.1, 0.4, orientation, euler123, -0.5, 0.4, 0.2;",
              "joint: 1, revolute hinge, 3, position, 0.2, -0.3, 0.1, "
              "2, position, 0.1, 0.1, -0.2, hinge, euler123, 0.6, 0.1, -0.3;",
              // Friction: the preload gives a normal force without a previous step.
              "joint: 1, revolute hinge, 1, position, 0.1, 0.2, 0.3, "
              "orientation, euler123, 0.3, -0.2, 0.1, "
              "2, position, -0.2, 0.1, 0.4, orientation, euler123, -0.5, 0.4, 0.2, "
              "friction, 0.05, preload, 30., coulomb, 0.3, regularization, 0.5, simple;",
              "joint: 1, revolute hinge, 2, null, 1, null, hinge, euler123, 0.2, -0.7, 0.4, "
              "initial theta, 0.1, friction, 0.2, preload, 10., coulomb, 0.4;"});
    AddJoint(r, "revolute pin", "rotation of a node about a ground axis (5 multipliers)",
             j::ReadRevolutePin,
             {"joint: 1, revolute pin, 1, position, 0.3, 0.1, -0.2, "
              "orientation, euler123, 0.2, 0.5, -0.1, "
              "position, 0.5, -1., 2., orientation, euler123, -0.3, 0.2, 0.4;",
              "joint: 1, revolute pin, 2, position, 0.3, 0.1, -0.2, "
              "orientation, euler123, 0.2, 0.5, -0.1, position, 0.5, -1., 2., "
              "friction, 0.1, preload, 20., coulomb, 0.25, regularization, 0.8;"});
    // Snippets use dynamic nodes 1, 2 and static node 3 of the test model (registry.hpp).
    const char* cardano_hinge =
        "joint: 1, cardano hinge, 1, position, 0.1, 0.2, 0.3, orientation, euler123, 0.3, -0.2, "
        "0.1, 2, position, -0.2, 0.1, 0.4, orientation, euler123, -0.5, 0.4, 0.2;";
    AddJoint(r, "cardano hinge", "universal joint: common point, crossed axes (4 multipliers)",
             j::ReadCardanoHinge, {cardano_hinge});
    AddJoint(r, "universal hinge", "alias of cardano hinge", j::ReadCardanoHinge,
             {"joint: 1, universal hinge, 3, position, 0.2, -0.3, 0.1, 2, position, 0.1, 0.1, "
              "-0.2, hinge, euler123, 0.6, 0.1, -0.3;"});
    AddJoint(r, "cardano pin", "universal joint of a node to the ground (4 multipliers)",
             j::ReadCardanoPin,
             {"joint: 1, cardano pin, 1, position, 0.3, 0.1, -0.2, orientation, euler123, 0.2, "
              "0.5, -0.1, position, 0.5, -1., 2., orientation, euler123, -0.3, 0.2, 0.4;"});
    AddJoint(r, "universal pin", "alias of cardano pin", j::ReadCardanoPin,
             {"joint: 1, universal pin, 2, null, null;"});
    AddJoint(r, "cardano rotation", "crossed axes without position constraint (1 multiplier)",
             j::ReadCardanoRotation,
             {"joint: 1, cardano rotation, 1, orientation, euler123, 0.3, -0.2, 0.1, "
              "2, hinge, euler123, -0.5, 0.4, 0.2;"});
    AddJoint(r, "universal rotation", "alias of cardano rotation", j::ReadCardanoRotation,
             {"joint: 1, universal rotation, 1, hinge, eye, 2, hinge, euler123, 0.2, 0.1, 0.4;"});
    AddJoint(r, "gimbal rotation",
             "homokinetic joint: no relative twist about axis 3 (1 multiplier)",
             j::ReadGimbalRotation,
             {"joint: 1, gimbal rotation, 1, hinge, euler123, 0.3, -0.2, 0.1, "
              "2, hinge, euler123, -0.5, 0.4, 0.2;",
              "joint: 1, gimbal rotation, 2, 3, orientation description, euler123;"});
    AddJoint(r, "prismatic", "relative orientation fixed, position free (3 multipliers)",
             j::ReadPrismatic,
             {"joint: 1, prismatic, 1, orientation, euler123, 0.3, -0.2, 0.1, "
              "2, orientation, euler123, -0.5, 0.4, 0.2;"});
    AddJoint(r, "drive hinge", "relative rotation imposed by a vector drive (3 multipliers)",
             j::ReadDriveHinge,
             {"joint: 1, drive hinge, 1, hinge, euler123, 0.3, -0.2, 0.1, 2, hinge, eye, "
              "single, 0., 0., 1., sine, 0., 2., 0.5, forever, 0.1;",
              "joint: 1, drive hinge, 3, 2, component, 0.2, inactive, linear, 0.1, 0.3;"});
    AddJoint(r, "in line", "point of node 2 on a line of node 1 (2 multipliers)", j::ReadInLine,
             {"joint: 1, in line, 1, position, 0.1, 0.2, 0.3, orientation, euler123, 0.3, -0.2, "
              "0.1, 2, offset, -0.2, 0.1, 0.4;",
              "joint: 1, in line, 3, null, eye, 1;",
              "joint: 1, in line, 1, position, 0.1, 0.2, 0.3, orientation, euler123, 0.3, -0.2, "
              "0.1, 2, offset, -0.2, 0.1, 0.4, friction, preload, 5., coulomb, 0.3, "
              "regularization, 0.7;",
              "joint: 1, in line, 2, position, -0.3, 0.1, 0.2, orientation, euler123, -0.4, 0.6, "
              "0.2, 1, offset, 0.1, -0.3, 0.2, friction, preload, 8., coulomb, 0.5, simple;"});
    AddJoint(r, "in plane", "point of node 2 on a plane of node 1 (1 multiplier)", j::ReadInPlane,
             {"joint: 1, in plane, 1, position, 0.1, 0.2, 0.3, 1., 2., -0.5, "
              "2, offset, -0.2, 0.1, 0.4;"});
    AddJoint(r, "distance", "distance between two points, fixed or driven (1 multiplier)",
             j::ReadDistance,
             {"joint: 1, distance, 1, position, 0.1, 0.2, 0.3, 2, position, -0.2, 0.1, 0.4, "
              "from nodes;",
              "joint: 1, distance, 2, 3, position, 0.3, 0., 0., cosine, 0., 3., 0.1, half, 1.5;"});
    AddJoint(r, "total joint",
             "any subset of relative position and orientation components, driven "
             "(up to 6 multipliers)",
             j::ReadTotalJoint,
             {"joint: 1, total joint, 1, position, 0.1, 0.2, 0.3, position orientation, euler123, "
              "0.3, -0.2, 0.1, rotation orientation, euler123, 0.1, 0.5, -0.3, "
              "2, position, -0.2, 0.1, 0.4, position orientation, eye, rotation orientation, "
              "euler123, -0.5, 0.4, 0.2, position constraint, active, inactive, 1, "
              "component, 0.2, inactive, sine, 0., 1., 0.3, forever, 0., "
              "orientation constraint, 1, 0, active, single, 0.3, 0.4, -0.5, linear, 0.1, 0.2;",
              "joint: 1, total joint, 3, position, 0.2, 0., 0., 2, position, null, "
              "position constraint, 1, 1, 1, null, orientation constraint, 1, 1, 1, null;",
              // A rotation with an imposed angular velocity (mixed levels), as in MBDyn's
              // rotating-shaft benchmark.
              "joint: 1, total joint, 1, position, 0.1, 0.2, 0.3, rotation orientation, "
              "euler123, 0.1, 0.5, -0.3, 2, position, -0.2, 0.1, 0.4, rotation orientation, "
              "euler123, -0.5, 0.4, 0.2, position constraint, 1, 1, 1, null, "
              "orientation constraint, angular velocity, 1, 1, 1., 0.2, -0.1, "
              "cosine, 0., 3., 1.5, half, 0.;"});
    AddJoint(r, "total pin joint",
             "any subset of a node's position and orientation components relative to the "
             "ground, driven (up to 6 multipliers)",
             j::ReadTotalPinJoint,
             {"joint: 1, total pin joint, 1, position, 0.1, 0.2, 0.3, "
              "position orientation, euler123, 0.3, -0.2, 0.1, rotation orientation, eye, "
              "position, 1., -0.5, 0.2, position orientation, euler123, 0.2, 0.1, 0.4, "
              "rotation orientation, euler123, -0.5, 0.4, 0.2, "
              "position constraint, 1, 0, 1, single, 1., 2., 0., linear, 0.1, 0.2, "
              "orientation constraint, inactive, active, active, null;",
              "joint: 1, total pin joint, 2, position, 0.1, 0.2, 0.3, rotation orientation, "
              "euler123, 0.2, -0.1, 0.3, position, 1., 0., 0.5, rotation orientation, "
              "euler123, 0.1, 0.2, 0.3, position constraint, 1, 1, 1, null, "
              "orientation constraint, 1, angular velocity, 1, 0., 2., 0., linear, 0.5, 0.3;"});
    AddJoint(r, "axial rotation",
             "revolute hinge with prescribed relative angular velocity (6 multipliers, "
             "the last at velocity level)",
             j::ReadAxialRotation,
             {"joint: 1, axial rotation, 1, position, 0.1, 0.2, 0.3, orientation, euler123, 0.3, "
              "-0.2, 0.1, 2, position, -0.2, 0.1, 0.4, orientation, euler123, -0.5, 0.4, 0.2, "
              "sine, 0., 2., 0.5, forever, 1.;",
              "joint: 1, axial rotation, 3, null, 2, null, hinge, euler123, 0.2, 0.3, 0.1, 25.;"});
    AddJoint(r, "angular velocity",
             "angular velocity of a node about an axis prescribed (1 multiplier, velocity level)",
             j::ReadAngularVelocity,
             {"joint: 1, angular velocity, 2, 0.3, -1., 0.5, linear, 1., 0.5;",
              "joint: 1, angular velocity, 3, 0., 0., 1., 2.;"});
    return 0;
}
