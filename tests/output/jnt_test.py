#!/usr/bin/python3
"""The joint-specific .jnt columns and NetCDF variables, checked against the node poses.

Cases:
  joints  runs a small deck (a tilted revolute pin, a revolute hinge and a spherical hinge
      with `orientation description, orientation vector` on a three-body chain under gravity)
      and checks, at every output step, each joint's .jnt line against quantities computed
      here from the .mov's node poses and angular velocities and the deck's hinge
      orientations, in the layouts of MBDyn's Output methods (mbdyn/struct/planej.cc
      PlanePinJoint::Output and PlaneHingeJoint::Output, mbdyn/struct/spherj.cc
      SphericalHingeJoint::Output):
        revolute pin:    f = Rj^T F, m = Rj^T M (Rj the node's hinge frame), Euler angles 123
                         of R0^T Rj in degrees, Rj^T w
        revolute hinge:  f = Rj_b^T F, m = Rj_b^T M (node b's hinge frame), Euler angles 123
                         of Rj_a^T Rj_b (a rotation about axis 3 only: angles 1, 2 vanish),
                         Rj_b^T (w_b - w_a), whose third component is also the rate of the
                         hinge angle by central differences of the angle column
        spherical hinge: f = Rj_a^T F, m = 0, M = 0, rotation vector of Rj_a^T Rj_b
      and, when mbstep is built with NetCDF and python3-netcdf4 is installed, that
      elem.joint.<label> holds f, m, F, M and then the extra variables with MBDyn's names,
      units and descriptions (OutputPrepare of each), equal to the .jnt's columns record by
      record.
  more    the same for an axial rotation (Euler 321 description), a drive hinge, a distance
      and an in plane joint on one pendulum, a cardano hinge with an angular velocity joint, an
      in line joint with friction, a cardano rotation (orientation vector) and a gimbal
      rotation: each joint's frame and extra columns (the imposed angular velocity equals
      the relative one about the axis, the drive hinge's angles equal those of its imposed
      rotation, the distance direction is the unit vector between the points, ...) in the
      layouts of MBDyn's Output methods (planej.cc AxialRotationJoint, drvhinge.cc
      DriveHingeJoint, distance.cc DistanceJoint, inplanej.cc InPlaneJoint, univj.cc
      UniversalHingeJoint / UniversalRotationJoint, drvj.cc AngularVelocityJoint, inline.cc
      InLineJoint, gimbal.cc GimbalRotationJoint), and their NetCDF variables.
  friction the first deck with Coulomb friction on the revolute hinge (regularized): its line
      gets MBDyn's friction moment M3 and coefficient fc (PlaneHingeJoint::Output), which equal
      -mu r (N_prev + N_0) tanh(omega / omega_eps) and -mu tanh(omega / omega_eps) with N_prev
      the norm of the previous line's reaction force and omega the Omega column about the axis
      (friction.hpp's model), and the couple has no component about the axis (MBDyn does not add
      M3 to it).
  matrix  the first deck with `default orientation: orientation matrix` in control data, a
      gimbal rotation, an unconstrained total pin joint and a prismatic joint to a fourth body:
      the joints naming no orientation description write the relative orientation matrix row
      by row, the one naming euler321 keeps it, the NetCDF `R` (3x3, "-", "Mat3x3") holds the
      matrix column by column, the prismatic joint's couple is the one on the fourth body
      (Newton-Euler), and the types are MBDyn's `totalpin` and `Prismatic`.
  springs a viscoelastic rod and a viscoelastic deformable hinge (Euler 313 description):
      the rod's length, direction and lengthening rate (also by central differences of the
      length column over +-5 steps) and tension (f = (T, 0, 0), F = T d / l) as MBDyn's Rod::Output
      (rodj.cc), the hinge's couple in node a's hinge frame, relative orientation and relative
      angular velocity as DeformableHingeJoint::Output (vehj.cc), and the rod's NetCDF v.
Every case also checks joints' F and M against Newton-Euler on the bodies it
holds (m (a_cm - g) and J alpha + w x J w, the accelerations by central differences of the .mov
velocities): F and M are the load MBDyn's multipliers stand for (on node 2, on node 1 or on the
ground, per joint: docs/DESIGN.md, table "Joint output"), a flipped sign fails by twice the
load.
"""
import argparse
import math
import os
from output_case import blocks, check, output_steps, run

DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.3; time step: 1e-3;
    method: ms, 0.6; tolerance: 1e-10; max iterations: 20; end: initial value;
begin: control data; structural nodes: 3; rigid bodies: 3; joints: 3; gravity;
%(netcdf)s
end: control data;
begin: nodes;
    structural: 1, dynamic, 0.5, 0., 0., eye, null, null;
    structural: 2, dynamic, 1.5, 0., 0., eye, null, null;
    structural: 3, dynamic, 2., 0.5, 0., eye, null, null;
end: nodes;
begin: elements;
    body: 1, 1, 1., null, diag, 0.1, 0.2, 0.3;
    body: 2, 2, 2., null, diag, 0.2, 0.1, 0.3;
    body: 3, 3, 0.5, null, diag, 0.05, 0.05, 0.05;
    joint: 1, revolute pin, 1, position, -0.5, 0., 0.,
        orientation, euler123, 1.2, 0.3, 0.,
        position, 0., 0., 0., orientation, euler123, 1.2, 0.3, 0.;
    joint: 2, revolute hinge, 1, position, 0.5, 0., 0.,
        orientation, euler123, 1.3, -0.2, 0.4,
        2, position, -0.5, 0., 0., orientation, euler123, 1.3, -0.2, 0.4,
        orientation description, euler123;
    joint: 3, spherical hinge, 2, position, 0.5, 0., 0., orientation, euler123, 0.3, 0.5, -0.2,
        3, position, 0., -0.5, 0., orientation, euler123, -0.1, 0.2, 0.6,
        orientation description, orientation vector;
    gravity: uniform, 0., 0., -1., 9.81;
end: elements;
"""

# Hinge orientations of the deck (radians, Euler 123), per joint and side.
RH = {1: ((1.2, 0.3, 0.), (1.2, 0.3, 0.)),
      2: ((1.3, -0.2, 0.4), (1.3, -0.2, 0.4)),
      3: ((0.3, 0.5, -0.2), (-0.1, 0.2, 0.6))}


def mat(rows):
    return [list(r) for r in rows]


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def tr(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


def mulv(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def rx(t):
    c, s = math.cos(t), math.sin(t)
    return mat(((1, 0, 0), (0, c, -s), (0, s, c)))


def ry(t):
    c, s = math.cos(t), math.sin(t)
    return mat(((c, 0, s), (0, 1, 0), (-s, 0, c)))


def rz(t):
    c, s = math.cos(t), math.sin(t)
    return mat(((c, -s, 0), (s, c, 0), (0, 0, 1)))


def euler123(a):
    return mul(mul(rx(a[0]), ry(a[1])), rz(a[2]))


def angles123(r):
    """Euler angles 123 (radians) of r = Rx(a1) Ry(a2) Rz(a3)."""
    a2 = math.asin(max(-1.0, min(1.0, r[0][2])))
    a1 = math.atan2(-r[1][2], r[2][2])
    a3 = math.atan2(-r[0][1], r[0][0])
    return [a1, a2, a3]


def rotvec(r):
    """The rotation vector of r (angle below pi)."""
    c = max(-1.0, min(1.0, (r[0][0] + r[1][1] + r[2][2] - 1.0) / 2.0))
    th = math.acos(c)
    ax = [r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]]
    k = 0.5 if th < 1e-8 else th / (2.0 * math.sin(th))
    return [k * x for x in ax]


def near(got, ref, tol, what):
    for g, r in zip(got, ref):
        check(abs(g - r) <= tol * max(1.0, abs(r)), "%s: %r, expected %r" % (what, got, ref))


def nodes_of(step_rows):
    """{label: (R, w)} from one output step of the .mov (Euler 123 in degrees)."""
    out = {}
    for row in step_rows:
        r = euler123([math.radians(x) for x in row[4:7]])
        out[int(row[0])] = (r, row[10:13])
    return out


def kin_of(step_rows, matrix=False):
    """{label: (x, R, v, w)} from one output step of the .mov (Euler 123 in degrees, or the
    orientation matrix row by row)."""
    out = {}
    for row in step_rows:
        if matrix:
            r = [row[4:7], row[7:10], row[10:13]]
            v, w = row[13:16], row[16:19]
        else:
            r = euler123([math.radians(x) for x in row[4:7]])
            v, w = row[7:10], row[10:13]
        out[int(row[0])] = (row[1:4], r, v, w)
    return out


def add(*vs):
    return [sum(x) for x in zip(*vs)]


def scale(k, v):
    return [k * x for x in v]


def rates(series, times, k):
    """Central difference at step k of a list (per step) of vectors."""
    dt = times[k + 1] - times[k - 1]
    return [(b - a) / dt for a, b in zip(series[k - 1], series[k + 1])]


def euler_moment(r, diag, w, alpha):
    """J alpha + w x J w, J = R diag R^T (global)."""
    j = mul(mul(r, [[diag[0], 0, 0], [0, diag[1], 0], [0, 0, diag[2]]]), tr(r))
    return add(mulv(j, alpha), cross(w, mulv(j, w)))


class Dynamics:
    """Newton-Euler loads of bodies from the .mov: m (a_cm - g) and, about the centre of mass,
    J alpha + w x J w, with a_cm and alpha by central differences of the velocities."""

    def __init__(self, kin, times, bodies, g=(0.0, 0.0, -9.81)):
        self.kin, self.times, self.bodies, self.g = kin, times, bodies, list(g)

    def arm(self, k, lab):  # R s, the centre of mass from the node
        return mulv(self.kin[k][lab][1], self.bodies[lab][1])

    def force(self, k, lab):
        m = self.bodies[lab][0]
        vcm = [add(self.kin[j][lab][2], cross(self.kin[j][lab][3], self.arm(j, lab)))
               for j in range(len(self.kin))]
        return scale(m, add(rates(vcm, self.times, k), scale(-1.0, self.g)))

    def moment(self, k, lab):
        w = [self.kin[j][lab][3] for j in range(len(self.kin))]
        return euler_moment(self.kin[k][lab][1], self.bodies[lab][2], w[k],
                            rates(w, self.times, k))


def near_abs(got, ref, tol, what):
    check(max(abs(g - r) for g, r in zip(got, ref)) <= tol,
          "%s: %r, expected %r (tolerance %g)" % (what, got, ref, tol))


def chain_loads_check(steps, mov, jnt, friction=False):
    """The chain deck's reactions against Newton-Euler on its bodies (MBDyn's multiplier
    signs): spherical hinge 3 writes the load on node 3, revolute hinge 2 the load on node 2
    (its couple without the friction moment), revolute pin 1 the load on the ground."""
    times = [t for (_, t, _) in steps]
    kin = [kin_of(mov[k]) for k in range(len(steps))]
    dyn = Dynamics(kin, times, {1: (1.0, [0, 0, 0], (0.1, 0.2, 0.3)),
                                2: (2.0, [0, 0, 0], (0.2, 0.1, 0.3)),
                                3: (0.5, [0, 0, 0], (0.05, 0.05, 0.05))})
    tol_f, tol_m = 0.03, 0.005  # N, N m: the .mov's six digits through the differences
    worst_f = worst_m = 0.0
    largest = 0.0
    for k in range(1, len(steps) - 1):
        rows = {int(r[0]): r for r in jnt[k]}
        rot = {lab: kin[k][lab][1] for lab in (1, 2, 3)}
        F1, F2, F3 = rows[1][7:10], rows[2][7:10], rows[3][7:10]
        M1, M2 = rows[1][10:13], rows[2][10:13]
        f3 = dyn.force(k, 3)
        f2 = add(dyn.force(k, 2), F3)
        f1 = scale(-1.0, add(dyn.force(k, 1), F2))
        for got, ref, what in ((F3, f3, "spherical hinge F = load on node 3"),
                               (F2, f2, "revolute hinge F = load on node 2"),
                               (F1, f1, "revolute pin F = load on the ground")):
            near_abs(got, ref, tol_f, "step %d: %s" % (k, what))
            worst_f = max(worst_f, max(abs(a - b) for a, b in zip(got, ref)))
            largest = max(largest, max(abs(a) for a in ref))
        p_h2 = mulv(rot[2], [-0.5, 0, 0])
        p_s2 = mulv(rot[2], [0.5, 0, 0])
        m2 = add(dyn.moment(k, 2), scale(-1.0, cross(p_h2, F2)), cross(p_s2, F3))
        if friction:  # the friction moment T u on node 2 is not in MBDyn's M
            u = col(mul(rot[1], euler123(RH[2][0])), 2)
            m2 = add(m2, scale(-rows[2][19], u))
        p_pin = mulv(rot[1], [-0.5, 0, 0])
        p_h1 = mulv(rot[1], [0.5, 0, 0])
        m1 = scale(-1.0, add(dyn.moment(k, 1), cross(p_pin, F1), M2, cross(p_h1, F2)))
        if friction:  # node 1 carries the hinge's friction moment -T u
            m1 = add(m1, scale(-rows[2][19], u))
        for got, ref, what in ((M2, m2, "revolute hinge M = couple on node 2"),
                               (M1, m1, "revolute pin M = couple on the ground")):
            near_abs(got, ref, tol_m, "step %d: %s" % (k, what))
            worst_m = max(worst_m, max(abs(a - b) for a, b in zip(got, ref)))
        near([rows[1][6], rows[2][6]], [0.0, 0.0], 1e-12, "step %d: m about the hinge axes" % k)
    check(largest > 1.0, "the reactions stayed below 1 N: a weak test")
    print("loads: F and M of the pin, hinge and spherical hinge equal Newton-Euler on the "
          "bodies (largest differences %.2g N, %.2g N m; largest force %.3g N)"
          % (worst_f, worst_m, largest))


def joints_case(args):
    os.makedirs(args.work_dir, exist_ok=True)
    deck = os.path.join(args.work_dir, "joints.mbd")
    with open(deck, "w") as f:
        f.write(DECK % {"netcdf": "output results: netcdf;" if args.with_netcdf else ""})
    prefix = os.path.join(args.work_dir, "joints")
    run([args.mbstep, "run", deck, "-o", prefix, "--quiet"])
    steps = output_steps(prefix)
    check(len(steps) > 10, "fewer than 10 output steps")
    mov = blocks(prefix + ".mov", len(steps))
    jnt = blocks(prefix + ".jnt", len(steps))
    tol = 2e-4  # the .mov's and .jnt's six digits, through products of rotations
    hinge_angle, hinge_rate, checked = [], [], 0
    for k in range(len(steps)):
        n = nodes_of(mov[k])
        rows = {int(r[0]): r for r in jnt[k]}
        check(sorted(rows) == [1, 2, 3], "step %d: joint labels %r" % (k, sorted(rows)))
        for lab, row in rows.items():
            F, M = row[7:10], row[10:13]
            ra, rb = (euler123(x) for x in RH[lab])
            if lab == 1:  # revolute pin: node 1, ground frame R0 = rb
                rj = mul(n[1][0], ra)
                check(len(row) == 19, "revolute pin: %d columns, expected 19" % len(row))
                near(row[1:4], mulv(tr(rj), F), tol, "pin f")
                near(row[4:7], mulv(tr(rj), M), tol, "pin m")
                near(row[13:16], [math.degrees(x) for x in angles123(mul(tr(rb), rj))], 1e-3,
                     "pin E")
                near(row[16:19], mulv(tr(rj), n[1][1]), tol, "pin Omega")
            elif lab == 2:  # revolute hinge: nodes 1, 2
                rja, rjb = mul(n[1][0], ra), mul(n[2][0], rb)
                check(len(row) == 19, "revolute hinge: %d columns, expected 19" % len(row))
                near(row[1:4], mulv(tr(rjb), F), tol, "hinge f")
                near(row[4:7], mulv(tr(rjb), M), tol, "hinge m")
                e = [math.degrees(x) for x in angles123(mul(tr(rja), rjb))]
                near(row[13:16], e, 1e-3, "hinge E")
                near(row[13:15], [0.0, 0.0], 1e-3, "hinge E about axes 1, 2")
                w = [b - a for a, b in zip(n[1][1], n[2][1])]
                near(row[16:19], mulv(tr(rjb), w), tol, "hinge Omega")
                hinge_angle.append(math.radians(row[15]))
                hinge_rate.append(row[18])
            else:  # spherical hinge, orientation vector
                rja, rjb = mul(n[2][0], ra), mul(n[3][0], rb)
                check(len(row) == 16, "spherical hinge: %d columns, expected 16" % len(row))
                near(row[1:4], mulv(tr(rja), F), tol, "spherical f")
                near(row[4:7] + row[10:13], [0.0] * 6, 1e-12, "spherical m, M")
                near(row[13:16], rotvec(mul(tr(rja), rjb)), 1e-4, "spherical Phi")
            checked += 1
    # The hinge angle's rate by central differences equals the Omega column about axis 3.
    times = [t for (_, t, _) in steps]
    moved = max(abs(a - hinge_angle[0]) for a in hinge_angle)
    check(moved > 0.05, "the hinge barely turned (%g rad): a weak test" % moved)
    for k in range(1, len(times) - 1):
        rate = (hinge_angle[k + 1] - hinge_angle[k - 1]) / (times[k + 1] - times[k - 1])
        check(abs(rate - hinge_rate[k]) <= 1e-2 * max(1.0, abs(hinge_rate[k])),
              "step %d: hinge angle rate %g, Omega_3 %g" % (k, rate, hinge_rate[k]))
    print("joints: %d .jnt lines equal the quantities from the .mov; hinge angle turned %.3f rad"
          % (checked, moved))
    chain_loads_check(steps, mov, jnt)
    if args.with_netcdf:
        netcdf_check(prefix, jnt)


# MBDyn's extra variables after f, m, F, M: (name, units, description), per joint label.
EXTRA = {
    1: [],  # PlanePinJoint writes no NetCDF variables of its own
    2: [("E", "deg", "global orientation Euler angles (123) (E_X, E_Y, E_Z)"),
        ("Omega", "Angular velocity", "local relative angular velocity (x, y, z)")],
    3: [("Phi", "radian", "relative orientation orientation vector (Phi_X, Phi_Y, Phi_Z)")],
}
KINDS = {1: "revolute pin", 2: "revolute hinge", 3: "spherical hinge"}


def open_netcdf(prefix):
    """The run's .nc, unmasked; None (and a line saying so) without python3-netcdf4."""
    try:
        import netCDF4
    except ImportError:
        print("NetCDF part skipped: python3-netcdf4 is not installed")
        return None
    ds = netCDF4.Dataset(prefix + ".nc")
    ds.set_auto_mask(False)
    return ds


def netcdf_check(prefix, jnt):
    ds = open_netcdf(prefix)
    if ds is None:
        return
    checked = 0
    for lab, extra in EXTRA.items():
        base = "elem.joint.%d" % lab
        check(ds.variables[base].getncattr("type") == KINDS[lab], base + " type")
        names = [v for v in ds.variables if v.startswith(base + ".")]
        want = [base + "." + x for x in ("f", "m", "F", "M")] + [base + "." + e[0] for e in extra]
        check(names == want, "%s variables %r, expected %r" % (base, names, want))
        for j, (name, units, desc) in enumerate(extra):
            v = ds.variables[base + "." + name]
            got = (v.getncattr("units"), v.getncattr("type"), v.getncattr("description"))
            check(got == (units, "Vec3", desc), "%s.%s attributes %r" % (base, name, got))
            for k in range(len(jnt)):
                row = {int(r[0]): r for r in jnt[k]}[lab]
                ref = row[13 + 3 * j:16 + 3 * j]
                near(list(v[k]), ref, 1e-5, "%s.%s record %d" % (base, name, k))
                checked += 3
    ds.close()
    print("NetCDF: %d extra values equal the .jnt columns record by record" % checked)


MORE = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.3; time step: 1e-3;
    method: ms, 0.6; tolerance: 1e-10; max iterations: 20; end: initial value;
begin: control data; structural nodes: 5; rigid bodies: 5; joints: 10; gravity;
%(netcdf)s
end: control data;
begin: nodes;
    structural: 1, dynamic, null, eye, null, null;
    structural: 2, dynamic, null, eye, null, %(w2)s;
    structural: 3, dynamic, 1., 0., 0., eye, null, 0., 0., 0.5;
    structural: 4, dynamic, 0., -1., 0., eye, null, null;
    structural: 5, dynamic, 0., 0., -1., eye, null, 0., 0.5, 0.;
end: nodes;
begin: elements;
    body: 1, 1, 1., null, diag, 0.1, 0.1, 0.1;
    body: 2, 2, 1., null, diag, 0.1, 0.2, 0.3;
    body: 3, 3, 1., null, diag, 0.1, 0.1, 0.1;
    body: 4, 4, 1., 0.3, 0., 0., diag, 0.1, 0.2, 0.3;
    body: 5, 5, 1., null, diag, 0.1, 0.1, 0.1;
    joint: 1, clamp, 1, node, node;
    joint: 2, axial rotation, 1, position, null, orientation, euler123, 0.3, 0.2, 0.,
        2, position, null, orientation, euler123, 0.3, 0.2, 0., const, 2.,
        orientation description, euler321;
    joint: 3, drive hinge, 1, hinge, eye, 3, hinge, eye, single, 0., 0., 1., linear, 0., 0.5;
    joint: 4, distance, 1, position, null, 3, position, null, from nodes;
    joint: 5, in plane, 1, position, null, 0., 1., 0., 3, offset, null;
    joint: 6, cardano hinge, 1, position, 0., -1., 0., 4, position, null;
    joint: 7, angular velocity, 4, 0., 0., 1., linear, 0., 1.;
    joint: 8, in line, 1, position, 0., 0., -1., orientation, euler123, 0.5, 0., 0.,
        5, offset, null, friction, preload, 1., coulomb, 0.2, regularization, 0.1;
    joint: 9, cardano rotation, 1, hinge, eye, 5, hinge, eye,
        orientation description, orientation vector;
    joint: 10, gimbal rotation, 1, hinge, eye, 5, hinge, eye;
    gravity: uniform, 0., 0., -1., 9.81;
end: elements;
"""


def angles321(r):
    """Euler angles 321 (radians) of r = Rz(a3) Ry(a2) Rx(a1)."""
    a2 = -math.asin(max(-1.0, min(1.0, r[2][0])))
    a1 = math.atan2(r[2][1], r[2][2])
    a3 = math.atan2(r[1][0], r[0][0])
    return [a1, a2, a3]


def col(r, j):
    return [r[i][j] for i in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def friction_case(args):
    os.makedirs(args.work_dir, exist_ok=True)
    deck = os.path.join(args.work_dir, "friction.mbd")
    text = DECK % {"netcdf": ""}
    text = text.replace("        orientation description, euler123;",
                        "        friction, 0.05, preload, 30., coulomb, 0.3, regularization, 0.5,\n"
                        "        orientation description, euler123;")
    check("friction" in text, "no friction in the deck")
    with open(deck, "w") as f:
        f.write(text)
    prefix = os.path.join(args.work_dir, "friction")
    run([args.mbstep, "run", deck, "-o", prefix, "--quiet"])
    steps = output_steps(prefix)
    jnt = blocks(prefix + ".jnt", len(steps))
    mu, r, n0, eps = 0.3, 0.05, 30.0, 0.5
    prev = None
    worst = 0.0
    for k in range(len(steps)):
        row = {int(x[0]): x for x in jnt[k]}[2]
        check(len(row) == 21, "revolute hinge with friction: %d columns, expected 21" % len(row))
        s = math.tanh(row[18] / eps)
        near([row[20]], [-mu * s], 1e-4, "step %d: friction coefficient" % k)
        near([row[6]], [0.0], 1e-12, "step %d: no couple about the axis (M3 is not in m)" % k)
        if prev is not None:  # N from the previous converged step's reaction
            nprev = math.sqrt(dot(prev[7:10], prev[7:10]))
            near([row[19]], [-mu * r * (nprev + n0) * s], 1e-4, "step %d: friction moment" % k)
            worst = max(worst, abs(row[19]))
        prev = row
    check(worst > 1e-2, "the friction moment stayed below 1e-2: a weak test")
    print("friction: %d steps, M3 and fc equal the friction model's (largest |M3| %.3g N m)" %
          (len(steps), worst))
    chain_loads_check(steps, blocks(prefix + ".mov", len(steps)), jnt, friction=True)


def more_loads_check(steps, mov, jnt):
    """The reactions of the second deck against Newton-Euler on its bodies, in MBDyn's
    multiplier signs: axial rotation 2 writes the load on node 2; distance 4 and in plane 5
    the load on node 1 (minus that on node 3), drive hinge 3 the couple on node 1; cardano
    hinge 6 the load on node 4, angular velocity 7 minus its couple on node 4; in line 8 the
    load of its multipliers on node 1 and the friction force F3 on node 5 along the line;
    cardano rotation 9 and gimbal rotation 10 the couples on node 5."""
    times = [t for (_, t, _) in steps]
    kin = [kin_of(mov[k]) for k in range(len(steps))]
    dyn = Dynamics(kin, times, {2: (1.0, [0, 0, 0], (0.1, 0.2, 0.3)),
                                3: (1.0, [0, 0, 0], (0.1, 0.1, 0.1)),
                                4: (1.0, [0.3, 0, 0], (0.1, 0.2, 0.3)),
                                5: (1.0, [0, 0, 0], (0.1, 0.1, 0.1))})
    tol_f, tol_m = 0.03, 0.005
    worst_f = worst_m = largest_m = 0.0
    for k in range(1, len(steps) - 1):
        rows = {int(r[0]): r for r in jnt[k]}
        F = {lab: rows[lab][7:10] for lab in rows}
        M = {lab: rows[lab][10:13] for lab in rows}
        line = col(mul(kin[k][1][1], euler123((0.5, 0., 0.))), 2)
        arm4 = dyn.arm(k, 4)
        checks_f = (
            (F[2], dyn.force(k, 2), "axial rotation F = load on node 2"),
            (scale(-1.0, add(F[4], F[5])), dyn.force(k, 3),
             "distance + in plane F = minus the load on node 3"),
            (F[6], dyn.force(k, 4), "cardano hinge F = load on node 4"),
            (add(scale(-1.0, F[8]), scale(rows[8][13], line)), dyn.force(k, 5),
             "in line: -F + F3 u = load on node 5"),
        )
        checks_m = (
            (M[2], dyn.moment(k, 2), "axial rotation M = couple on node 2"),
            (scale(-1.0, M[3]), dyn.moment(k, 3), "drive hinge M = minus the couple on node 3"),
            (add(M[6], scale(-1.0, M[7]), scale(-1.0, cross(arm4, F[6]))), dyn.moment(k, 4),
             "cardano hinge M - angular velocity M = couple on node 4 about its centre"),
            (add(M[9], M[10]), dyn.moment(k, 5),
             "cardano rotation + gimbal M = couple on node 5"),
        )
        for got, ref, what in checks_f:
            near_abs(got, ref, tol_f, "step %d: %s" % (k, what))
            worst_f = max(worst_f, max(abs(a - b) for a, b in zip(got, ref)))
        for got, ref, what in checks_m:
            near_abs(got, ref, tol_m, "step %d: %s" % (k, what))
            worst_m = max(worst_m, max(abs(a - b) for a, b in zip(got, ref)))
        largest_m = max(largest_m, max(abs(x) for lab in (2, 3, 6, 7, 9, 10) for x in M[lab]))
        near(M[4] + M[5] + M[8], [0.0] * 9, 1e-12, "step %d: distance, in plane, in line M" % k)
    check(largest_m > 0.1, "the couples stayed below 0.1 N m: a weak test")
    print("loads: every joint's F and M equal Newton-Euler on the bodies (largest differences "
          "%.2g N, %.2g N m; largest couple %.3g N m)" % (worst_f, worst_m, largest_m))


def more_case(args):
    os.makedirs(args.work_dir, exist_ok=True)
    deck = os.path.join(args.work_dir, "more.mbd")
    axis = col(euler123((0.3, 0.2, 0.)), 2)
    with open(deck, "w") as f:
        f.write(MORE % {"netcdf": "output results: netcdf;" if args.with_netcdf else "",
                        "w2": ", ".join("%.17g" % (2.0 * x) for x in axis)})
    prefix = os.path.join(args.work_dir, "more")
    run([args.mbstep, "run", deck, "-o", prefix, "--quiet"])
    steps = output_steps(prefix)
    check(len(steps) > 10, "fewer than 10 output steps")
    mov = blocks(prefix + ".mov", len(steps))
    jnt = blocks(prefix + ".jnt", len(steps))
    pos = {}
    tol = 2e-4
    counts = {1: 13, 2: 20, 3: 19, 4: 17, 5: 13, 6: 16, 7: 17, 8: 15, 9: 16, 10: 18}
    slid, tilt = [], []
    for k, (_, t, _) in enumerate(steps):
        n = nodes_of(mov[k])
        for row in mov[k]:
            pos[int(row[0])] = row[1:4]
        rows = {int(r[0]): r for r in jnt[k]}
        check(sorted(rows) == sorted(counts), "step %d: joint labels %r" % (k, sorted(rows)))
        for lab, row in rows.items():
            check(len(row) == counts[lab], "joint %d: %d columns, expected %d" %
                  (lab, len(row), counts[lab]))
        eye = euler123((0., 0., 0.))
        # axial rotation: node b's hinge frame, Euler 321 of Rj_a^T Rj_b, Omega(t), Omega.
        rh = euler123((0.3, 0.2, 0.))
        r, rja, rjb = rows[2], mul(n[1][0], rh), mul(n[2][0], rh)
        near(r[1:4], mulv(tr(rjb), r[7:10]), tol, "axial rotation f")
        near(r[4:7], mulv(tr(rjb), r[10:13]), tol, "axial rotation m")
        near(r[13:16], [math.degrees(x) for x in angles321(mul(tr(rja), rjb))], 1e-3,
             "axial rotation E321")
        near([r[16]], [2.0], 1e-12, "axial rotation Omega(t)")
        w = [b - a for a, b in zip(n[1][1], n[2][1])]
        near(r[17:20], mulv(tr(rjb), w), tol, "axial rotation Omega")
        near([r[19]], [2.0], 1e-4, "axial rotation Omega about the axis")
        # drive hinge: node 1's frame, Euler 123 of R_1^T R_3 = those of the imposed rotation.
        r = rows[3]
        near(r[1:4] + r[7:10], [0.0] * 6, 1e-9, "drive hinge f, F")
        near(r[4:7], mulv(tr(n[1][0]), r[10:13]), tol, "drive hinge m")
        near(r[16:19], [0., 0., 0.5 * t], 1e-9, "drive hinge Theta")
        near(r[13:16], [math.degrees(x) for x in angles123(rz(0.5 * t))], 1e-3,
             "drive hinge E = the imposed rotation's")
        near(r[13:16], [math.degrees(x) for x in angles123(mul(tr(n[1][0]), n[3][0]))], 1e-3,
             "drive hinge E")
        # distance: the multiplier per unit length, the unit direction, the length.
        r = rows[4]
        d = [b - a for a, b in zip(pos[1], pos[3])]
        near(r[13:16], [x / r[16] for x in d], tol, "distance direction")
        near([r[16]], [1.0], 1e-12, "distance length")
        near([r[1]], [dot(r[7:10], d) / dot(d, d)], tol, "distance f")
        near(r[2:4], [0.0, 0.0], 1e-12, "distance f_2, f_3")
        # in plane: the normal force as f_1.
        r = rows[5]
        near([r[1]], [dot(r[7:10], col(n[1][0], 1))], tol, "in plane f")
        near(r[2:4], [0.0, 0.0], 1e-12, "in plane f_2, f_3")
        # cardano hinge: node 1's hinge frame, (v . M, 0, 0), Euler 123 of Rj_b^T Rj_a.
        r = rows[6]
        v = cross(col(n[4][0], 1), col(n[1][0], 2))
        near(r[1:4], mulv(tr(n[1][0]), r[7:10]), tol, "cardano hinge f")
        near(r[4:7], [dot(v, r[10:13]), 0.0, 0.0], tol, "cardano hinge m")
        near(r[13:16], [math.degrees(x) for x in angles123(mul(tr(n[4][0]), n[1][0]))], 1e-3,
             "cardano hinge E")
        # angular velocity: the direction R n, Omega(t) = t, and w . R n = Omega(t).
        r = rows[7]
        u = col(n[4][0], 2)
        near(r[13:16], u, tol, "angular velocity direction")
        near([r[16]], [t], 1e-9, "angular velocity Omega(t)")
        near([dot(n[4][1], u)], [t], 1e-4, "angular velocity w . R n")
        near(r[4:7], [dot(u, r[10:13]), 0.0, 0.0], tol, "angular velocity m")
        # in line: the line frame, then the friction force and coefficient (|fc| <= mu).
        r = rows[8]
        rl = mul(n[1][0], euler123((0.5, 0., 0.)))
        near(r[1:4], mulv(tr(rl), r[7:10]), tol, "in line f")
        check(abs(r[14]) <= 0.2 + 1e-12, "in line friction coefficient %g" % r[14])
        slid.append(dot([b - a for a, b in zip(pos[1], pos[5])], col(rl, 2)))
        # cardano rotation: no force, (v . M, 0, 0), rotation vector of R_5^T R_1.
        r = rows[9]
        v = cross(col(n[5][0], 1), col(n[1][0], 2))
        near(r[1:4] + r[7:10], [0.0] * 6, 1e-12, "cardano rotation f, F")
        near(r[4:7], [dot(v, r[10:13]), 0.0, 0.0], tol, "cardano rotation m")
        near(r[13:16], rotvec(mul(tr(n[5][0]), n[1][0])), 1e-4, "cardano rotation Phi")
        # gimbal rotation: the couple in node 1's frame (not its hinge frame); MBDyn's gimbal
        # angles: R_1^T R_5 = Ry(theta) Rx(phi) Ry(theta), |theta| <= pi/2; Euler 123 of it.
        r = rows[10]
        near(r[4:7], mulv(tr(n[1][0]), r[10:13]), tol, "gimbal m")
        rel = mul(tr(n[1][0]), n[5][0])
        theta, phi = r[13], r[14]
        check(abs(theta) <= math.pi / 2 + 1e-9, "gimbal theta %g beyond pi/2" % theta)
        back = mul(mul(ry(theta), rx(phi)), ry(theta))
        near([x for row_ in back for x in row_], [x for row_ in rel for x in row_], 1e-4,
             "gimbal Ry(theta) Rx(phi) Ry(theta) = R_1^T R_5")
        near(r[15:18], [math.degrees(x) for x in angles123(rel)], 1e-3, "gimbal E")
        tilt.append(abs(theta) + abs(phi))
    check(abs(slid[-1] - slid[0]) > 1e-3, "the in line joint did not slide")
    check(max(tilt) > 1e-3, "the gimbal did not tilt (%g): a weak test" % max(tilt))
    more_loads_check(steps, mov, jnt)
    print("more: %d steps, every joint's columns equal the quantities from the .mov" %
          len(steps))
    if args.with_netcdf:
        more_netcdf_check(prefix, jnt, mov)


def cols(first, n=3):
    return lambda row, k: row[first:first + n]


def line_axis(mov_step):
    return col(mul(nodes_of(mov_step)[1][0], euler123((0.5, 0., 0.))), 2)


# label: (type, [(name, units, NetCDF type, description, values from the .jnt row and the
# .mov step)]) after f, m, F, M.
MORE_EXTRA = {
    1: ("clamp", []),
    2: ("axial rotation",
        [("E", "deg", "Vec3", "global orientation Euler angles (321) (E_X, E_Y, E_Z)", cols(13)),
         ("Omega", "Angular velocity", "Vec3", "local relative angular velocity (x, y, z)",
          cols(17))]),
    3: ("Drive Hinge", [("Theta", "radian", "Vec3", "Relative orientation", cols(16))]),
    4: ("distance",
        [("V", "-", "Vec3", "constrained distance direction unit vector (x, y, z)", cols(13)),
         ("d", "Length", "doublereal", "constrained distance magnitude", cols(16, 1))]),
    5: ("in plane", []),
    6: ("cardano hinge", []),
    7: ("Angular velocity",
        [("dOmega", "Angular velocity", "doublereal", "magnitude imposed angular velocity",
          cols(16, 1)),
         ("w", "-", "Vec3", "direction of imposed angular velocity", cols(13))]),
    8: ("inline",
        [("FF", "Force", "Vec3", "friction force (x, y, z)",
          lambda row, mv: scale(row[13], line_axis(mv))),
         ("fc", "-", "doublereal", "friction coefficient", cols(14, 1))]),
    9: ("cardano rotation",
        [("Phi", "radian", "Vec3", "global orientation vector (Phi_X, Phi_Y, Phi_Z)", cols(13))]),
    10: ("gimbal rotation",
         [("Theta", "radian", "doublereal", "relative angle Theta", cols(13, 1)),
          ("Phi", "radian", "doublereal", "relative angle Phi", cols(14, 1))]),
}


def more_netcdf_check(prefix, jnt, mov):
    ds = open_netcdf(prefix)
    if ds is None:
        return
    checked = 0
    for lab, (kind, extra) in MORE_EXTRA.items():
        base = "elem.joint.%d" % lab
        got = ds.variables[base].getncattr("type")
        check(got == kind, "%s type %r, expected %r" % (base, got, kind))
        names = [v for v in ds.variables if v.startswith(base + ".")]
        want = [base + "." + x for x in ("f", "m", "F", "M")] + [base + "." + e[0] for e in extra]
        check(names == want, "%s variables %r, expected %r" % (base, names, want))
        for name, units, vtype, desc, values in extra:
            v = ds.variables[base + "." + name]
            got = (v.getncattr("units"), v.getncattr("type"), v.getncattr("description"))
            check(got == (units, vtype, desc), "%s.%s attributes %r" % (base, name, got))
            dims = ("time",) if vtype == "doublereal" else ("time", "Vec3")
            check(v.dimensions == dims, "%s.%s dimensions %r" % (base, name, v.dimensions))
            for k in range(len(jnt)):
                row = {int(r[0]): r for r in jnt[k]}[lab]
                rec = v[k]
                got = [float(rec)] if vtype == "doublereal" else list(rec)
                near(got, values(row, mov[k]), 1e-5, "%s.%s record %d" % (base, name, k))
                checked += len(got)
    ds.close()
    print("NetCDF: %d extra values equal the .jnt columns record by record" % checked)


SPRINGS = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.3; time step: 1e-3;
    method: ms, 0.6; tolerance: 1e-10; max iterations: 20; end: initial value;
begin: control data; structural nodes: 3; rigid bodies: 3; joints: 4; gravity;
%(netcdf)s
end: control data;
begin: nodes;
    structural: 1, dynamic, null, eye, null, null;
    structural: 2, dynamic, 0.1, 0., -1., eye, null, null;
    structural: 3, dynamic, null, eye, null, 1., 2., 0.5;
end: nodes;
begin: elements;
    body: 1, 1, 1., null, diag, 0.1, 0.1, 0.1;
    body: 2, 2, 1., null, diag, 0.1, 0.1, 0.1;
    body: 3, 3, 1., 0.2, 0., -0.3, diag, 0.1, 0.2, 0.3;
    joint: 1, clamp, 1, node, node;
    joint: 2, rod, 1, 2, from nodes, linear viscoelastic, 500., 5.;
    joint: 3, spherical hinge, 1, position, null, 3, position, null;
    joint: 4, deformable hinge, 1, hinge, euler123, 0.2, 0.1, 0.3, 3, hinge, euler123, 0.2, 0.1,
        0.3, linear viscoelastic isotropic, 20., 0.5, orientation description, euler313;
    gravity: uniform, 0., 0., -1., 9.81;
end: elements;
"""


def angles313(r):
    """Euler angles 313 (radians) of r = Rz(a1) Rx(a2) Rz(a3)."""
    a2 = math.acos(max(-1.0, min(1.0, r[2][2])))
    a1 = math.atan2(r[0][2], -r[1][2])
    a3 = math.atan2(r[2][0], r[2][1])
    return [a1, a2, a3]


def springs_case(args):
    os.makedirs(args.work_dir, exist_ok=True)
    deck = os.path.join(args.work_dir, "springs.mbd")
    with open(deck, "w") as f:
        f.write(SPRINGS % {"netcdf": "output results: netcdf;" if args.with_netcdf else ""})
    prefix = os.path.join(args.work_dir, "springs")
    run([args.mbstep, "run", deck, "-o", prefix, "--quiet"])
    steps = output_steps(prefix)
    check(len(steps) > 10, "fewer than 10 output steps")
    mov = blocks(prefix + ".mov", len(steps))
    jnt = blocks(prefix + ".jnt", len(steps))
    tol = 2e-4
    rh = euler123((0.2, 0.1, 0.3))
    length, rate = [], []
    for k in range(len(steps)):
        n = nodes_of(mov[k])
        pos = {int(row[0]): row[1:4] for row in mov[k]}
        rows = {int(r[0]): r for r in jnt[k]}
        r = rows[2]
        check(len(r) == 18, "rod: %d columns, expected 18" % len(r))
        d = [b - a for a, b in zip(pos[1], pos[2])]
        l = math.sqrt(dot(d, d))
        near([r[13]], [l], 1e-5, "rod length")
        near(r[14:17], [x / l for x in d], tol, "rod direction")
        near(r[7:10], [r[1] * x / l for x in d], tol, "rod F = T d / l")
        near(r[2:7] + r[10:13], [0.0] * 8, 1e-9, "rod f_2, f_3, m, M")
        length.append(r[13])
        rate.append(r[17])
        r = rows[4]
        check(len(r) == 19, "deformable hinge: %d columns, expected 19" % len(r))
        rja, rjb = mul(n[1][0], rh), mul(n[3][0], rh)
        near(r[1:4] + r[7:10], [0.0] * 6, 1e-12, "deformable hinge f, F")
        near(r[4:7], mulv(tr(rja), r[10:13]), tol, "deformable hinge m")
        near(r[13:16], [math.degrees(x) for x in angles313(mul(tr(rja), rjb))], 1e-3,
             "deformable hinge E313")
        w = [b - a for a, b in zip(n[1][1], n[3][1])]
        near(r[16:19], mulv(tr(rja), w), tol, "deformable hinge relative angular velocity")
    times = [t for (_, t, _) in steps]
    check(max(length) - min(length) > 1e-4, "the rod did not stretch")
    for k in range(5, len(times) - 5):
        fd = (length[k + 5] - length[k - 5]) / (times[k + 5] - times[k - 5])
        # the length column's six digits (1e-5 here) over 10 ms, and the truncation error
        check(abs(fd - rate[k]) <= 2e-3 + 2e-2 * abs(rate[k]),
              "step %d: rod length rate %g, column %g" % (k, fd, rate[k]))
    print("springs: %d steps, the rod's and the deformable hinge's columns equal the quantities "
          "from the .mov" % len(steps))
    # Loads against Newton-Euler: the rod writes the load on node 1 (minus that on node 2),
    # spherical hinge 3 the load on node 3, the deformable hinge the couple on node 1.
    kin = [kin_of(mov[k]) for k in range(len(steps))]
    dyn = Dynamics(kin, times, {2: (1.0, [0, 0, 0], (0.1, 0.1, 0.1)),
                                3: (1.0, [0.2, 0.0, -0.3], (0.1, 0.2, 0.3))})
    worst = 0.0
    for k in range(1, len(steps) - 1):
        rows = {int(r[0]): r for r in jnt[k]}
        F3 = rows[3][7:10]
        got_ref = (
            (scale(-1.0, rows[2][7:10]), dyn.force(k, 2), "rod F = minus the load on node 2",
             0.05),
            (F3, dyn.force(k, 3), "spherical hinge F = load on node 3", 0.05),
            (add(scale(-1.0, rows[4][10:13]), scale(-1.0, cross(dyn.arm(k, 3), F3))),
             dyn.moment(k, 3), "deformable hinge M = minus the couple on node 3", 0.02),
        )
        for got, ref, what, tol_ in got_ref:
            near_abs(got, ref, tol_, "step %d: %s" % (k, what))
            worst = max(worst, max(abs(a - b) for a, b in zip(got, ref)))
    print("loads: the rod's, the spherical hinge's and the deformable hinge's F and M equal "
          "Newton-Euler on the bodies (largest difference %.2g)" % worst)
    if not args.with_netcdf:
        return
    ds = open_netcdf(prefix)
    if ds is None:
        return
    for lab, extra in ((2, ["l", "lP", "v"]), (4, [])):
        base = "elem.joint.%d" % lab
        names = [v for v in ds.variables if v.startswith(base + ".")]
        want = [base + "." + x for x in ["f", "m", "F", "M"] + extra]
        check(names == want, "%s variables %r, expected %r" % (base, names, want))
    v = ds.variables["elem.joint.2.v"]
    check(v.getncattr("description") == "direction unit vector", "rod v description")
    for name, units, desc in (("l", "Length", "length of the element"),
                              ("lP", "Velocity", "lengthening velocity of the element")):
        var = ds.variables["elem.joint.2." + name]
        got = (var.getncattr("units"), var.getncattr("type"), var.getncattr("description"),
               var.dimensions)
        check(got == (units, "doublereal", desc, ("time",)), "rod %s attributes %r" % (name, got))
    for k in range(len(jnt)):
        row = {int(r[0]): r for r in jnt[k]}[2]
        near([float(ds.variables["elem.joint.2.l"][k]), float(ds.variables["elem.joint.2.lP"][k])],
             [row[13], row[17]], 1e-5, "elem.joint.2.l, lP record %d" % k)
    for k in range(len(jnt)):
        row = {int(r[0]): r for r in jnt[k]}[2]
        near(list(v[k]), row[14:17], 1e-5, "elem.joint.2.v record %d" % k)
        near(list(ds.variables["elem.joint.2.M"][k]), row[10:13], 1e-5, "rod M record %d" % k)
    ds.close()
    print("NetCDF: the rod's v equals the .jnt's direction record by record")


def matrix_case(args):
    """The first deck with `default orientation: orientation matrix` in control data and a
    gimbal rotation, a total pin joint and a prismatic joint added: the joints that name no
    orientation description take it (as MBDyn's ReadOptionalOrientationDescription), one that
    names one keeps its own."""
    os.makedirs(args.work_dir, exist_ok=True)
    deck = os.path.join(args.work_dir, "matrix.mbd")
    text = DECK % {"netcdf": "output results: netcdf;" if args.with_netcdf else ""}
    text = text.replace("structural nodes: 3; rigid bodies: 3; joints: 3; gravity;",
                        "structural nodes: 4; rigid bodies: 4; joints: 6; gravity;\n"
                        "    default orientation: orientation matrix;")
    text = text.replace("orientation description, euler123;", "orientation description, euler321;")
    text = text.replace(",\n        orientation description, orientation vector;",
                        ";\n    joint: 4, gimbal rotation, 2, 3;\n"
                        "    joint: 5, total pin joint, 3, position, null, position, null;\n"
                        "    joint: 6, prismatic, 3, 4;")
    text = text.replace("    structural: 3, dynamic, 2., 0.5, 0., eye, null, null;\n",
                        "    structural: 3, dynamic, 2., 0.5, 0., eye, null, null;\n"
                        "    structural: 4, dynamic, 2., 1., 0., eye, null, null;\n")
    text = text.replace("    body: 3, 3, 0.5, null, diag, 0.05, 0.05, 0.05;\n",
                        "    body: 3, 3, 0.5, null, diag, 0.05, 0.05, 0.05;\n"
                        "    body: 4, 4, 0.3, null, diag, 0.01, 0.02, 0.03;\n")
    check(text.count("orientation description") == 1 and "gimbal" in text and
          "structural: 4" in text and "body: 4" in text, "deck edit")
    with open(deck, "w") as f:
        f.write(text)
    prefix = os.path.join(args.work_dir, "matrix")
    run([args.mbstep, "run", deck, "-o", prefix, "--quiet"])
    steps = output_steps(prefix)
    mov = blocks(prefix + ".mov", len(steps))
    jnt = blocks(prefix + ".jnt", len(steps))
    check(all(len(r) == 19 for r in mov[0]), ".mov rows are not label, x, R (9), v, w")
    counts = {1: 19, 2: 19, 3: 22, 4: 24, 5: 25, 6: 13}
    times = [t for (_, t, _) in steps]
    kin = [kin_of(mov[k], matrix=True) for k in range(len(steps))]
    dyn = Dynamics(kin, times, {4: (0.3, [0, 0, 0], (0.01, 0.02, 0.03))})
    largest = 0.0
    for k in range(len(steps)):
        n = kin_of(mov[k], matrix=True)
        rows = {int(r[0]): r for r in jnt[k]}
        for lab, row in rows.items():
            check(len(row) == counts[lab], "joint %d: %d columns, expected %d" %
                  (lab, len(row), counts[lab]))
        ra, rb = (euler123(x) for x in RH[2])
        rel = mul(tr(mul(n[1][1], ra)), mul(n[2][1], rb))
        near(rows[2][13:16], [math.degrees(x) for x in angles321(rel)], 1e-3,
             "revolute hinge keeps its euler321")
        ra, rb = (euler123(x) for x in RH[3])
        rel = mul(tr(mul(n[2][1], ra)), mul(n[3][1], rb))
        near(rows[3][13:22], [x for r in rel for x in r], 2e-5, "spherical hinge matrix rows")
        rel = mul(tr(n[2][1]), n[3][1])
        near(rows[4][15:24], [x for r in rel for x in r], 2e-5, "gimbal matrix rows")
        # A total pin joint with no constraint carries nothing; the prismatic joint writes the
        # couple on node 4 (MBDyn's PrismaticJoint), which Newton-Euler gives (body 4 alone).
        near(rows[5][1:13] + rows[6][1:4] + rows[6][7:10], [0.0] * 18, 1e-12,
             "total pin joint, prismatic F")
        if 0 < k < len(steps) - 1:
            near_abs(rows[6][10:13], dyn.moment(k, 4), 1e-3, "step %d: prismatic M" % k)
            near(rows[6][4:7], mulv(tr(n[3][1]), rows[6][10:13]), 2e-4, "prismatic m")
            largest = max(largest, max(abs(x) for x in rows[6][10:13]))
    check(largest > 1e-3, "the prismatic couple stayed below 1e-3 N m: a weak test")
    print("matrix: %d steps, the joints without a description write the matrix row by row" %
          len(steps))
    if not args.with_netcdf:
        return
    ds = open_netcdf(prefix)
    if ds is None:
        return
    v = ds.variables["elem.joint.3.R"]
    got = (v.getncattr("units"), v.getncattr("type"), v.getncattr("description"), v.dimensions)
    want = ("-", "Mat3x3", "relative orientation orientation matrix (R11, R21, R31, R12, R22, "
            "R32, R13, R23, R33)", ("time", "Vec3", "Vec3"))
    check(got == want, "elem.joint.3.R attributes %r" % (got,))
    check("elem.joint.2.E" in ds.variables and "elem.joint.2.R" not in ds.variables,
          "the revolute hinge's euler321 variable")
    for lab, kind in ((5, "totalpin"), (6, "Prismatic")):  # their OutputPrepare_int names
        got = ds.variables["elem.joint.%d" % lab].getncattr("type")
        check(got == kind, "elem.joint.%d type %r, expected %r" % (lab, got, kind))
    for k in range(len(jnt)):
        row = {int(r[0]): r for r in jnt[k]}[3]
        rec = v[k]  # stored column by column: rec[j][i] = R(i, j)
        near([float(rec[j][i]) for i in range(3) for j in range(3)], row[13:22], 1e-6,
             "elem.joint.3.R record %d" % k)
    ds.close()
    print("NetCDF: the spherical hinge's R holds the .jnt matrix column by column")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=["joints", "more", "springs", "friction", "matrix"])
    p.add_argument("--mbstep", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--with-netcdf", choices=["ON", "OFF"], required=True)
    args = p.parse_args()
    args.with_netcdf = args.with_netcdf == "ON"
    {"joints": joints_case, "more": more_case, "springs": springs_case,
     "friction": friction_case, "matrix": matrix_case}[args.case](args)


if __name__ == "__main__":
    main()
