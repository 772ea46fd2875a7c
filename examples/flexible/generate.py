#!/usr/bin/env python3
"""Writes mbstep's decks of the three flexible-multibody benchmarks of Bauchau et al.

Bauchau, Betsch, Cardona, Gerstmayr, Jonker, Masarati, Sonneville, "Validation of flexible
multibody dynamics beam formulations using benchmark problems", Multibody Syst Dyn 37 (2016)
29-48, as run with every LMS/SS/ESDIRK method by Zhang, Masarati et al., "multistep,
single-step and multistage methods in MBDyn" (sections 5.2-5.4; their Tables 3-5 restate the
section data below):

  examples/four-bar-flexible/deck.mbd   flexible four-bar mechanism with an assembly defect
  examples/lateral-buckling/deck.mbd    crank-actuated thin beam that buckles laterally
  examples/rotating-shaft/deck.mbd      shaft with an unbalanced disk spun through resonance

Every bar, beam and shaft is a chain of N three-node `beam3` elements (equally spaced nodes,
2N + 1 per member) with a `linear viscoelastic generic, diag` section law (EA, GA2, GA3, GJ,
EI2, EI3; no damping). The beam element has no inertia: each node carries a `body` for the
piece of the member around it, i.e. the length from the midpoint to its left neighbour to the
midpoint to its right one (l = L/(2N) inside, l/2 at the member's ends, whose centre of mass
then lies l/4 from the end node towards the member), with
    mass m l,  inertia about its centre of mass  diag(J11 l, J22 l + m l^3/12, J33 l + m l^3/12)
(m, J11, J22, J33 per unit length, axis 1 along the member; m l^3/12 is the rotary inertia of
the piece as a slender rod).

usage: generate.py [--only NAME] [--outdir DIR] [--method TEXT] [--time-step H]
                   [--final-time T] [--tolerance TOL] [--mbdyn-lumping]

Without --outdir the decks are written into examples/<name>/deck.mbd (the committed decks are
the output with no options). --mbdyn-lumping reproduces the lumping formulas of MBDyn's own
decks of these benchmarks (tests/benchmarks/*/..._gen.m in MBDyn's repository), for cross-checks
against them only; it differs from the rule above by: four-bar, every node's mass and inertia
divided by 3 (MBDyn's script divides by twice the element count of all three bars, 15, not of
the bar, 5) and the end pieces' m l^3/12 term halved; lateral buckling, the end pieces' m l^3/12
term halved; rotating shaft, the end pieces' centre of mass l/8 instead of l/4 from the end
node, the shaft's m and J from its tube geometry instead of the table's rounded values, and the
disk's transverse inertia m (r^2/4 + t^2/12) instead of the published m r^2/4.
"""
import argparse
import math
import os
import sys
from dataclasses import dataclass


@dataclass
class Section:
    """Beam section data per unit length (axis 1 along the beam)."""

    EA: float   # axial stiffness, N
    GA2: float  # shear stiffness along axis 2, N
    GA3: float  # shear stiffness along axis 3, N
    GJ: float   # torsional stiffness, N m^2
    EI2: float  # bending stiffness about axis 2, N m^2
    EI3: float  # bending stiffness about axis 3, N m^2
    m: float    # mass, kg/m
    J11: float  # polar mass moment of inertia, kg m
    J22: float  # mass moment of inertia about axis 2, kg m
    J33: float  # mass moment of inertia about axis 3, kg m


# Four-bar mechanism, Table 3 of Zhang, Masarati et al. (Bauchau et al. 2016): bars A-B and B-C
# share one section, bar C-D is the smaller one.
FOUR_BAR_AB_BC = Section(EA=52.992e6, GA2=16.8803e6, GA3=16.8803e6, GJ=733.488, EI2=1130.50,
                         EI3=1130.50, m=1.9968, J11=85.1968e-6, J22=42.5984e-6, J33=42.5984e-6)
FOUR_BAR_CD = Section(EA=13.248e6, GA2=4.22008e6, GA3=4.22008e6, GJ=45.843, EI2=70.656,
                      EI3=70.656, m=0.4992, J11=5.3248e-6, J22=2.6624e-6, J33=2.6624e-6)

# Lateral buckling, Table 4: the thin beam (stiff about axis 2, weak about axis 3), the link and
# the crank; polar inertia J11 = J22 + J33.
LB_BEAM = Section(EA=73.0e6, GA2=5.025e6, GA3=23.40e6, GJ=877.2, EI2=60830.0, EI3=608.3,
                  m=2.68, J11=2233e-6 + 22.33e-6, J22=2233e-6, J33=22.33e-6)
LB_LINK = Section(EA=33.02e6, GA2=10.81e6, GA3=10.81e6, GJ=914.5, EI2=1189.0, EI3=1189.0,
                  m=1.212, J11=2 * 43.65e-6, J22=43.65e-6, J33=43.65e-6)
LB_CRANK = Section(EA=132.1e6, GA2=43.22e6, GA3=43.22e6, GJ=14630.0, EI2=19020.0, EI3=19020.0,
                   m=4.85, J11=2 * 698.3e-6, J22=698.3e-6, J33=698.3e-6)

# Rotating shaft, Table 5: a steel tube (outer radius 0.05 m, inner 0.045 m).
SHAFT = Section(EA=313.4e6, GA2=60.5e6, GA3=60.5e6, GJ=272.7e3, EI2=354.5e3, EI3=354.5e3,
                m=11.64, J11=2 * 13.17e-3, J22=13.17e-3, J33=13.17e-3)
SHAFT_TUBE = dict(rho=7800.0, r_out=0.05, r_in=0.045)
# The unbalanced disk (section 5.4): mass, radius, thickness, offset of its centre of mass
# from the shaft axis (along z), inertia about its centre of mass (published: m r^2/2, m r^2/4).
DISK = dict(m=70.573, r=0.24, t=0.05, d=0.05, J=(2.0325, 1.0163, 1.0163))


def num(x):
    """A real for the deck, 12 significant digits."""
    if x == 0.0:
        return "0."
    s = f"{x:.12g}"
    return s if ("e" in s or "." in s) else s + "."


@dataclass
class Lump:
    mass: float
    offset: float  # centre of mass along the member's axis 1, from the node
    J: tuple       # inertia about the centre of mass, member frame


def lumps(length, n_elements, sec, mbdyn=None):
    """The 2N + 1 lumped bodies of a member (module docstring); `mbdyn` selects the variant of
    MBDyn's scripts (None, 'bars', 'shaft'; --mbdyn-lumping), where 'bars' takes the divisor
    of the element count as an argument: ('bars', divisor)."""
    n_nodes = 2 * n_elements + 1
    dl = length / (2 * n_elements)
    out = []
    for i in range(n_nodes):
        end = i in (0, n_nodes - 1)
        sign = 1.0 if i == 0 else -1.0
        f = 0.5 if end else 1.0
        if mbdyn is None:
            piece = f * dl
            m_piece = sec.m * piece
            cm = sign * piece / 2 if end else 0.0
            rot = m_piece * piece ** 2 / 12
            J = (sec.J11 * piece, sec.J22 * piece + rot, sec.J33 * piece + rot)
        elif mbdyn[0] == "bars":
            # fourbar_gen.m / lateralbuckling_gen.m: DMF m L/(2 NB), (DMF m/12)(DMF L/(2 NB))^3
            nb = mbdyn[1]
            ell = length / (2 * nb)
            m_piece = f * sec.m * ell
            cm = sign * 0.25 * ell if end else 0.0
            rot = (f * sec.m / 12) * (f * ell) ** 3
            J = (f * sec.J11 * ell, f * sec.J22 * ell + rot, f * sec.J33 * ell + rot)
        else:
            # rotatingshaft_gen.m: DL halved at the ends, DX = DL/4 of the halved DL
            piece = f * dl
            m_piece = sec.m * piece
            cm = sign * piece / 4 if end else 0.0
            rot = m_piece * piece ** 2 / 12
            J = (sec.J11 * piece, sec.J22 * piece + rot, sec.J33 * piece + rot)
        out.append(Lump(m_piece, cm, J))
    return out


def write_member(w, name, first_node, first_beam, ref, law, length, n_elements, sec, mbdyn):
    """Bodies, section law and beam3 elements of one member whose nodes first_node + i sit at
    s_i = i L/(2N) along axis 1 of reference `ref` (node frames = the reference's axes)."""
    w(f"# {name}: {n_elements} beam3, nodes {first_node}..{first_node + 2 * n_elements}; "
      f"m = {num(sec.m)} kg/m, J = diag({num(sec.J11)}, {num(sec.J22)}, {num(sec.J33)}) kg m")
    for i, lump in enumerate(lumps(length, n_elements, sec, mbdyn)):
        node = first_node + i
        w(f"body: {node}, {node}, {num(lump.mass)}, reference, node, {num(lump.offset)}, 0., 0., "
          f"diag, {num(lump.J[0])}, {num(lump.J[1])}, {num(lump.J[2])};")
    w(f"constitutive law: {law}, 6, linear viscoelastic generic, diag,")
    w(f"    {num(sec.EA)}, {num(sec.GA2)}, {num(sec.GA3)}, {num(sec.GJ)}, {num(sec.EI2)}, "
      f"{num(sec.EI3)}, proportional, 0.;")
    for k in range(n_elements):
        a = first_node + 2 * k
        w(f"beam3: {first_beam + k},")
        for j in range(3):
            w(f"    {a + j}, position, reference, node, null,")
        w(f"    reference, {ref}, eye, reference, {law},")
        w("    same, same;")


def member_nodes(w, first_node, ref, length, n_elements):
    for i in range(2 * n_elements + 1):
        s = i * length / (2 * n_elements)
        w(f"structural: {first_node + i}, dynamic, reference, {ref}, {num(s)}, 0., 0., "
          f"reference, {ref}, eye, reference, {ref}, null, reference, {ref}, null;")


def header(w, lines):
    for line in lines:
        w(f"# {line}" if line else "#")
    w("#")
    w("# Generated by examples/flexible/generate.py (edit the generator, not this file).")
    w("")
    w("begin: data;")
    w("    problem: initial value;")
    w("end: data;")
    w("")


def initial_value(w, t0, tf, h, method, tol):
    w("begin: initial value;")
    w(f"    initial time: {t0};")
    w(f"    final time: {tf};")
    w(f"    time step: {h};")
    w(f"    method: {method};")
    w(f"    tolerance: {tol};")
    w("    max iterations: 50;")
    w("    linear solver: klu, ordering, colamd;")
    w("end: initial value;")
    w("")


# --------------------------------------------------------------------------------------------
def four_bar(o):
    n = 5
    L1, L2, L3 = 0.12, 0.24, 0.12
    theta = 5.0  # deg, the assembly defect at C
    out = []
    w = out.append
    header(w, [
        "Flexible four-bar mechanism with an assembly defect (Bauchau et al. 2016; Zhang,",
        "Masarati et al., section 5.2).",
        "",
        "Bars A-B (crank, 0.12 m), B-C (0.24 m), C-D (0.12 m), 5 beam3 each, joined to each other",
        "and to the ground by revolute joints; the mechanism starts as a square in the x-z plane",
        "(A at the origin, B = (0, 0, L1), C = (L2, 0, L3), D = (L2, 0, 0)); hinge axes along y",
        "except the one at C, turned by 5 deg about z (the defect that would lock rigid bars).",
        "The crank turns at OMEGA = 0.6 rad/s about +y from t0 = -2T (T = 2 pi/OMEGA) on, so two",
        "turns pass before the benchmark's window [0, 12] s; every node starts with the rigid",
        "mechanism's velocity.",
        "Member frames (node frames): axis 1 along the bar from its first node, axis 3 along -y.",
    ])
    w("set: const real OMEGA = 0.6;              # crank speed, rad/s")
    w("set: const real T = 2.*pi/OMEGA;          # crank period, s")
    w(f"set: const real L1 = {num(L1)};             # bar A-B, m")
    w(f"set: const real L2 = {num(L2)};             # bar B-C, m")
    w(f"set: const real L3 = {num(L3)};             # bar C-D, m")
    w(f"set: const real DEFECT = {num(theta)}*pi/180.; # hinge axis at C turned about z, rad")
    w("")
    initial_value(w, "-2.*T", o.final_time or "12.", o.time_step or "8e-3",
                  o.method or "Bathe, 0.", o.tolerance or "1e-6")
    w("begin: control data;")
    w(f"    structural nodes: {3 * (2 * n + 1)};")
    w(f"    rigid bodies: {3 * (2 * n + 1)};")
    w(f"    beams: {3 * n};")
    w("    joints: 4;")
    w("    default orientation: orientation matrix;")
    w("    output precision: 16;")
    w("end: control data;")
    w("")
    w("# Bar A-B from A: axis 1 = +z, axis 2 = -x; turns about +y at OMEGA.")
    w("reference: 1,")
    w("    reference, global, null,")
    w("    reference, global, 1, 0., 0., 1., 2, -1., 0., 0.,")
    w("    reference, global, null,")
    w("    reference, global, 0., OMEGA, 0.;")
    w("# Bar B-C from B: axis 1 = +x, axis 2 = +z; translates with B.")
    w("reference: 2,")
    w("    reference, global, 0., 0., L1,")
    w("    reference, global, 1, 1., 0., 0., 2, 0., 0., 1.,")
    w("    reference, global, OMEGA*L1, 0., 0.,")
    w("    reference, global, null;")
    w("# Bar C-D from C: axis 1 = -z, axis 2 = +x; turns about D at OMEGA.")
    w("reference: 3,")
    w("    reference, global, L2, 0., L3,")
    w("    reference, global, 1, 0., 0., -1., 2, 1., 0., 0.,")
    w("    reference, global, OMEGA*L3, 0., 0.,")
    w("    reference, global, 0., OMEGA, 0.;")
    w("# The hinge at C: bar B-C's frame at C turned by DEFECT about its axis 2 (global z).")
    w("reference: 23,")
    w("    reference, 2, L2, 0., 0.,")
    w("    reference, 2, 2, 0., 1., 0., 3, sin(DEFECT), 0., cos(DEFECT),")
    w("    reference, 2, null,")
    w("    reference, 2, null;")
    w("")
    w("begin: nodes;")
    member_nodes(w, 1000, 1, L1, n)
    member_nodes(w, 2000, 2, L2, n)
    member_nodes(w, 3000, 3, L3, n)
    w("end: nodes;")
    w("")
    w("begin: elements;")
    w("# A: the crank's angle about axis 3 (-y) is -OMEGA t; 4 pi = 2 turns at t0.")
    w("joint: 1, total pin joint,")
    w("    1000,")
    w("        position, reference, 1, null,")
    w("        position orientation, reference, 1, eye,")
    w("        rotation orientation, reference, 1, eye,")
    w("    position, reference, 1, null,")
    w("    position orientation, reference, 1, eye,")
    w("    rotation orientation, reference, 1, eye,")
    w("    position constraint, 1, 1, 1, null,")
    w("    orientation constraint, 1, 1, 1, 0., 0., 1., linear, 0., -OMEGA;")
    for label, na, ra, nb, rb, pos, orient in (
            (12, 1010, 1, 2000, 2, "reference, 2, null", "reference, 2, eye"),
            (23, 2010, 2, 3000, 3, "reference, 2, L2, 0., 0.", "reference, 23, eye")):
        w(f"# {'B' if label == 12 else 'C'}: revolute joint about axis 3 of "
          f"{'the bars (-y)' if label == 12 else 'reference 23'}.")
        w(f"joint: {label}, total joint,")
        for node in (na, nb):
            w(f"    {node},")
            w(f"        position, {pos},")
            w("        position orientation, reference, 2, eye,")
            w(f"        rotation orientation, {orient},")
        w("    position constraint, 1, 1, 1, null,")
        w("    orientation constraint, 1, 1, 0, null;")
    w("# D: bar C-D hinged to the ground about axis 3 (-y).")
    w("joint: 4, total pin joint,")
    w("    3010,")
    w("        position, reference, 3, L3, 0., 0.,")
    w("        position orientation, reference, 3, eye,")
    w("        rotation orientation, reference, 3, eye,")
    w("    position, reference, 3, L3, 0., 0.,")
    w("    position orientation, reference, 3, eye,")
    w("    rotation orientation, reference, 3, eye,")
    w("    position constraint, 1, 1, 1, null,")
    w("    orientation constraint, 1, 1, 0, null;")
    w("")
    mb = ("bars", 3 * n) if o.mbdyn_lumping else None
    write_member(w, "Bar A-B", 1000, 1001, 1, 1, L1, n, FOUR_BAR_AB_BC, mb)
    write_member(w, "Bar B-C", 2000, 2001, 2, 2, L2, n, FOUR_BAR_AB_BC, mb)
    write_member(w, "Bar C-D", 3000, 3001, 3, 3, L3, n, FOUR_BAR_CD, mb)
    w("end: elements;")
    return out


# --------------------------------------------------------------------------------------------
def lateral_buckling(o):
    nb, nl, nc = 5, 1, 1
    L, Ll, Lc, d = 1.0, 0.25, 0.05, 0.1e-3
    out = []
    w = out.append
    header(w, [
        "Lateral buckling of a thin beam driven by a crank-link mechanism (Bauchau et al. 2016;",
        "Zhang, Masarati et al., section 5.3).",
        "",
        "A 1 m beam (5 beam3; stiff in the x-z plane, weak about z) is clamped at R = origin and",
        "lies along +x; its tip T carries, rigidly, point C = T + (0, D, 0) (D = 0.1 mm: the",
        "imperfection), joined by a spherical joint to a 0.25 m link (1 beam3) hanging to",
        "B = C - (0, 0, 0.25); a revolute joint about y joins the link to a 0.05 m crank (1 beam3)",
        "that turns about y at G = B - (0.05, 0, 0). The crank's angle rises as",
        "pi/2 (1 - cos(pi t/T)) to pi at t = T = 0.4 s (eq. (24)) and stays there: it pulls the",
        "beam tip 0.1 m towards R, the beam buckles laterally and then oscillates freely.",
        "Member frames (node frames): axis 1 along the member from its first node; beam axis 2",
        "= +y, link axis 1 = -z, crank axis 1 = -x, link and crank axis 2 = +y.",
    ])
    w("set: const real T = 0.4;                  # crank rise time, s")
    w(f"set: const real L = {num(L)};               # beam, m")
    w(f"set: const real LL = {num(Ll)};             # link, m")
    w(f"set: const real LC = {num(Lc)};             # crank, m")
    w(f"set: const real D = {num(d)};           # offset of the link's plane, m")
    w("")
    initial_value(w, "0.", o.final_time or "2.*T", o.time_step or "1e-3",
                  o.method or "ms4, 0.6", o.tolerance or "1e-4")
    w("begin: control data;")
    nn = (2 * nb + 1) + (2 * nl + 1) + (2 * nc + 1)
    w(f"    structural nodes: {nn};")
    w(f"    rigid bodies: {nn};")
    w(f"    beams: {nb + nl + nc};")
    w("    joints: 4;")
    w("    default orientation: orientation matrix;")
    w("    output precision: 16;")
    w("end: control data;")
    w("")
    w("reference: 100, reference, global, null, reference, global, eye,")
    w("    reference, global, null, reference, global, null;                    # R, the clamp")
    w("reference: 300, reference, global, L, D, 0., reference, global, eye,")
    w("    reference, global, null, reference, global, null;                    # C")
    w("reference: 400, reference, global, L, D, -LL, reference, global, eye,")
    w("    reference, global, null, reference, global, null;                    # B")
    w("reference: 500, reference, global, L - LC, D, -LL, reference, global, eye,")
    w("    reference, global, null, reference, global, null;                    # G")
    w("reference: 1000, reference, 100, null, reference, 100, eye,")
    w("    reference, 100, null, reference, 100, null;                          # beam, from R")
    w("reference: 2000, reference, 300, null,")
    w("    reference, 300, 1, 0., 0., -1., 2, 0., 1., 0.,")
    w("    reference, 300, null, reference, 300, null;                          # link, from C")
    w("reference: 3000, reference, 400, null,")
    w("    reference, 400, 1, -1., 0., 0., 2, 0., 1., 0.,")
    w("    reference, 400, null, reference, 400, null;                          # crank, from B")
    w("")
    w("begin: nodes;")
    member_nodes(w, 1000, 1000, L, nb)
    member_nodes(w, 2000, 2000, Ll, nl)
    member_nodes(w, 3000, 3000, Lc, nc)
    w("end: nodes;")
    w("")
    w("begin: elements;")
    w("joint: 100, clamp, 1000, node, node;")
    w("# C: spherical joint between the beam's tip (arm (0, D, 0)) and the link.")
    w("joint: 300, spherical hinge,")
    w(f"    {1000 + 2 * nb}, position, reference, 300, null,")
    w("    2000, position, reference, 300, null;")
    w("# B: revolute joint about y between the link and the crank.")
    w("joint: 400, revolute hinge,")
    for node in (2000 + 2 * nl, 3000):
        w(f"    {node}, position, reference, 400, null,")
        w(f"        orientation, reference, 400, 3, 0., 1., 0., 1, 1., 0., 0."
          f"{',' if node != 3000 else ';'}")
    w("# G: the crank turned about -y by pi/2 (1 - cos(pi t/T)), then held at pi.")
    w("joint: 500, total pin joint,")
    w(f"    {3000 + 2 * nc},")
    w("        position, reference, 500, null,")
    w("        position orientation, reference, 500, eye,")
    w("        rotation orientation, reference, 500, eye,")
    w("    position, reference, 500, null,")
    w("    position orientation, reference, 500, eye,")
    w("    rotation orientation, reference, 500, eye,")
    w("    position constraint, 1, 1, 1, null,")
    w("    orientation constraint, 1, 1, 1,")
    w("        0., -1., 0., cosine, 0., pi/T, pi/2., half, 0.;")
    w("")
    if o.mbdyn_lumping:
        mbs = [("bars", nb), ("bars", nl), ("bars", nc)]
    else:
        mbs = [None, None, None]
    write_member(w, "Beam", 1000, 1001, 1000, 1, L, nb, LB_BEAM, mbs[0])
    write_member(w, "Link", 2000, 2001, 2000, 2, Ll, nl, LB_LINK, mbs[1])
    write_member(w, "Crank", 3000, 3001, 3000, 3, Lc, nc, LB_CRANK, mbs[2])
    w("end: elements;")
    return out


# --------------------------------------------------------------------------------------------
def rotating_shaft(o):
    n = 16
    L = 6.0
    sec = SHAFT
    disk_J = DISK["J"]
    if o.mbdyn_lumping:
        rho, ro, ri = SHAFT_TUBE["rho"], SHAFT_TUBE["r_out"], SHAFT_TUBE["r_in"]
        jxx = math.pi / 4 * rho * (ro ** 4 - ri ** 4)
        sec = Section(**{**sec.__dict__, "m": math.pi * rho * (ro ** 2 - ri ** 2),
                         "J11": 2 * jxx, "J22": jxx, "J33": jxx})
        md, rd, td = DISK["m"], DISK["r"], DISK["t"]
        jt = md * (rd ** 2 / 4 + td ** 2 / 12)
        disk_J = (md * rd ** 2 / 2, jt, jt)
    out = []
    w = out.append
    header(w, [
        "Rotating shaft with an unbalanced disk (Bauchau et al. 2016; Zhang, Masarati et al.,",
        "section 5.4).",
        "",
        "A 6 m steel tube along x (16 beam3, nodes 0..32, mid-span node 16) between a revolute",
        "joint at R = origin and a cylindrical joint at T = (6, 0, 0); a rigid disk (70.573 kg)",
        "on node 16 with its centre of mass 0.05 m off the axis along z. From t0 = TG = -1 s",
        "gravity (9.81 m/s^2 along -z) ramps in over [TG, TG/2] while a viscous rod (1e4 N s/m)",
        "from below damps the mid-span's sag until TG/4; from t = 0 the angular velocity at R",
        "follows eq. (25): 0.8 OMEGA reached at T1 = 0.5 s, 1.2 OMEGA at T3 = 1.25 s",
        "(OMEGA = 60 rad/s), crossing the shaft's first bending frequency.",
    ])
    w("set: real TG = -1.;                       # start of the settling phase, s")
    w("set: const real L = 6.;                   # shaft, m")
    w("set: const real OMEGA = 60.;              # rad/s")
    w("set: const real A1 = 0.8;")
    w("set: const real A2 = 1.2;")
    w("set: const real T0 = 0.;")
    w("set: const real T1 = 0.5;")
    w("set: const real T2 = 1.;")
    w("set: const real T3 = 1.25;")
    w("")
    initial_value(w, "TG", o.final_time or "2.*T3", o.time_step or "5e-3",
                  o.method or "dirk54", o.tolerance or "1e-4")
    w("begin: control data;")
    w(f"    structural nodes: {2 * n + 2};")
    w(f"    rigid bodies: {2 * n + 2};")
    w(f"    beams: {n};")
    w("    joints: 4;")
    w("    gravity;")
    w("    default orientation: orientation matrix;")
    w("    output precision: 16;")
    w("end: control data;")
    w("")
    w("reference: 1, reference, global, null, reference, global, eye,")
    w("    reference, global, null, reference, global, null;                    # R, the shaft")
    w("reference: 2, reference, global, L, 0., 0., reference, global, eye,")
    w("    reference, global, null, reference, global, null;                    # T")
    w("")
    w("begin: nodes;")
    w("structural: 999, static, reference, 1, null, reference, 1, eye,")
    w("    reference, 1, null, reference, 1, null;                              # the ground")
    member_nodes(w, 0, 1, L, n)
    w("end: nodes;")
    w("")
    w("begin: elements;")
    w("joint: 999, clamp, 999, node, node;")
    w("# Settling: a viscous rod from 1 m below the mid-span, removed at TG/4.")
    w("driven: 998, string, \"Time < TG/4\",")
    w("joint: 998, rod,")
    w("    999, position, reference, 1, L/2, 0., -1.,")
    w(f"    {n}, position, reference, 1, L/2, 0., 0.,")
    w("    from nodes, linear viscous isotropic, 1e4;")
    w("# R: revolute joint whose angular velocity about x follows eq. (25).")
    w("joint: 0, total joint,")
    for node in (999, 0):
        w(f"    {node},")
        w("        position, reference, 1, null,")
        w("        position orientation, reference, 1, eye,")
        w("        rotation orientation, reference, 1, eye,")
    w("    position constraint, 1, 1, 1, null,")
    w("    orientation constraint, angular velocity, 1, 1,")
    w("        1., 0., 0., array, 2,")
    w("            cosine, T0, pi/T1, A1*OMEGA/2., half, 0.,")
    w("            cosine, T2, pi/(T3 - T2), (A2 - A1)*OMEGA/2., half, 0.;")
    w("# T: cylindrical joint (free to slide along and turn about x).")
    w(f"joint: {2 * n}, total joint,")
    for node in (999, 2 * n):
        w(f"    {node},")
        w("        position, reference, 2, null,")
        w("        position orientation, reference, 2, eye,")
        w("        rotation orientation, reference, 2, eye,")
    w("    position constraint, 0, 1, 1, null,")
    w("    orientation constraint, 0, 1, 1, null;")
    w("")
    write_member(w, "Shaft", 0, 1, 1, 1, L, n, sec, ("shaft",) if o.mbdyn_lumping else None)
    w(f"# The disk on the mid-span node, centre of mass {num(DISK['d'])} m along z.")
    w(f"body: 1000, {n}, {num(DISK['m'])}, reference, node, 0., 0., {num(DISK['d'])}, "
      f"diag, {num(disk_J[0])}, {num(disk_J[1])}, {num(disk_J[2])};")
    w("gravity: uniform, 0., 0., -1., cosine, TG, pi/(-TG/2.), 9.81/2., half, 0.;")
    w("end: elements;")
    return out


DECKS = {
    "four-bar-flexible": four_bar,
    "lateral-buckling": lateral_buckling,
    "rotating-shaft": rotating_shaft,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", choices=sorted(DECKS), action="append",
                   help="write only this deck (repeatable)")
    p.add_argument("--outdir", help="write DIR/<name>/deck.mbd instead of examples/<name>/")
    p.add_argument("--method", help="method line, e.g. 'ms3, 0.6' (default: the deck's)")
    p.add_argument("--time-step")
    p.add_argument("--final-time")
    p.add_argument("--tolerance")
    p.add_argument("--mbdyn-lumping", action="store_true",
                   help="MBDyn's own decks' lumping formulas (cross-checks only; docstring)")
    o = p.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    base = o.outdir or root
    for name in o.only or sorted(DECKS):
        text = "\n".join(DECKS[name](o)) + "\n"
        folder = os.path.join(base, name)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "deck.mbd")
        with open(path, "w") as f:
            f.write(text)
        print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
