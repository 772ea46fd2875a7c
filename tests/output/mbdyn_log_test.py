#!/usr/bin/python3
"""The model lines of the .log in MBDyn's layout, read as Blendyn reads them.

Blendyn (the Blender add-on for MBDyn) reads PREFIX.log row by row, split on single spaces with
the spaces after a separator skipped (Python's csv reader, delimiter ' ', skipinitialspace);
the keyword of a row is its first words up to one ending in ':' (at most the first four
words); a row whose keyword scan reaches its last word or the fourth is skipped, and so is a
keyword it has no reader for; it stops at `Symbol table:` or at the end of the file. An empty
row, or an empty word met by the keyword scan (a row beginning with a space, a word before the
keyword followed by two separators), stops its import with an error. Its readers take fixed
positions: `structural node: label x y z {euler123 a1 a2 a3 (degrees) | phi v | mat R}`, and
per element the node labels and offsets (sphjlib.py, revjlib.py, totjlib.py, bodylib.py,
beamlib.py, ...).

Cases (each runs an example for a few steps):
  heavy_top, slider_crank, beam   check that every row passes Blendyn's rules, that each
      element row has the length Blendyn's reader indexes and names nodes of the .log, the
      rows field by field against the deck's data (labels, positions, orientations, masses,
      joint offsets and frames, total joint flags), and rebuild the model from the .log alone
      with the .mov's first block: the nodes' positions and orientations are the .mov's at
      the initial time, and every joint point seen from its two nodes is one point.
"""
import argparse
import csv
import math
import os
from output_case import check, run


# --- small 3x3 algebra (row-major lists) -------------------------------------------------------

def matmul(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def matvec(A, v):
    return [sum(A[i][k] * v[k] for k in range(3)) for i in range(3)]


def transpose(A):
    return [[A[j][i] for j in range(3)] for i in range(3)]


def rot(axis, a):
    c, s = math.cos(a), math.sin(a)
    if axis == 0:
        return [[1, 0, 0], [0, c, -s], [0, s, c]]
    if axis == 1:
        return [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    return [[c, -s, 0], [s, c, 0], [0, 0, 1]]


def euler123(a):
    """MBDyn's euler123 (degrees): R = Rx(a1) Ry(a2) Rz(a3)."""
    r = [math.radians(x) for x in a]
    return matmul(matmul(rot(0, r[0]), rot(1, r[1])), rot(2, r[2]))


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def two_vectors(i, a, j, b):
    """MBDyn's `i, a, j, b` orientation: axis i along a, axis j in the plane of a and b."""
    n = math.sqrt(sum(x * x for x in a))
    e = [None, None, None]
    e[i - 1] = [x / n for x in a]
    d = sum(x * y for x, y in zip(b, e[i - 1]))
    w = [x - d * y for x, y in zip(b, e[i - 1])]
    n = math.sqrt(sum(x * x for x in w))
    e[j - 1] = [x / n for x in w]
    k = 6 - i - j
    e[k - 1] = cross(e[i - 1], e[j - 1]) if (j - i) % 3 == 1 else cross(e[j - 1], e[i - 1])
    return [[e[c][r] for c in range(3)] for r in range(3)]  # the axes are the columns


I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def same(values, expected, tol, what):
    flat_v = [x for row in values for x in row] if isinstance(values[0], list) else values
    flat_e = [x for row in expected for x in row] if isinstance(expected[0], list) else expected
    check(len(flat_v) == len(flat_e), "%s: %d values, expected %d" % (what, len(flat_v),
                                                                          len(flat_e)))
    for k, (x, y) in enumerate(zip(flat_v, flat_e)):
        check(close(x, y, tol), "%s: value %d is %r, expected %r" % (what, k + 1, x, y))


# --- Blendyn's rules ---------------------------------------------------------------------------

# Element rows Blendyn reads: the positions of the node labels and the row length its reader
# indexes (the last index + 1).
TWO_NODE_28 = ["sphericalhinge", "sphericalpin", "revolutehinge", "revolutepin", "cardanohinge",
               "cardanopin", "cardanorotation", "gimbalrotation", "axialrotation", "prismatic",
               "inline", "inplane", "clamp", "deformablehinge"]
LAYOUT = {k: ([2, 15], 28) for k in TWO_NODE_28}
LAYOUT.update({
    "totaljoint": ([2, 24], 58), "totalpinjoint": ([2], 57), "body": ([2], 16),
    "beam3": ([2, 6, 10], 14), "beam2": ([2, 6], 10), "rod": ([2, 6], 10),
    "distance": ([2, 6], 10),
    "structural absolute force": ([4], 8), "structural follower force": ([4], 8),
    "structural absolute couple": ([4], 8), "structural follower couple": ([4], 8),
})


def read_log(path):
    """The .log as Blendyn reads it: nodes {label: (x, R)} and elements {(type, label): row}."""
    nodes, elements = {}, {}
    with open(path) as f:
        for n, rw in enumerate(csv.reader(f, delimiter=" ", skipinitialspace=True), 1):
            where = "%s:%d" % (path, n)
            check(len(rw) > 0, where + ": empty line (Blendyn's import stops on it)")
            entry, ii = rw[0], 0
            check(rw[0] != "", where + ": the row begins with a space")
            while rw[ii][-1] != ":" and ii < min(3, len(rw) - 1):
                ii += 1
                check(rw[ii] != "", where + ": an empty word in the keyword scan")
                entry += " " + rw[ii]
            if entry[:-1] == "Symbol table":
                break
            if ii == min(3, len(rw) - 1):
                continue  # not an element row
            kind = entry[:-1]
            if kind == "structural node":
                label = int(rw[2])
                x = [float(v) for v in rw[3:6]]
                if rw[6] == "mat":
                    R = [[float(rw[7 + 3 * i + j]) for j in range(3)] for i in range(3)]
                else:
                    check(rw[6] == "euler123", where + ": orientation " + rw[6])
                    R = euler123([float(v) for v in rw[7:10]])
                check(label not in nodes, where + ": node %d twice" % label)
                nodes[label] = (x, R, rw)
            elif kind in LAYOUT:
                label = int(rw[3] if kind.startswith("structural") else rw[1])
                node_at, length = LAYOUT[kind]
                check(len(rw) == length, "%s: %s row of %d words, Blendyn reads %d" %
                      (where, kind, len(rw), length))
                elements[(kind, label)] = rw
    for (kind, label), rw in elements.items():
        for k in LAYOUT[kind][0]:
            check(int(rw[k]) in nodes, "%s %d: node %s is not in the .log" % (kind, label, rw[k]))
    return nodes, elements


def floats(rw, first, count):
    return [float(v) for v in rw[first:first + count]]


def mat(rw, first):
    v = floats(rw, first, 9)
    return [v[0:3], v[3:6], v[6:9]]


def first_mov_block(prefix, labels):
    rows = {}
    with open(prefix + ".mov") as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            label = int(w[0])
            if label in rows:
                break
            rows[label] = [float(v) for v in w[1:]]
    check(set(labels) <= set(rows), ".mov's first block lacks nodes of the .log")
    return rows


def rebuild(prefix, nodes, elements, tol):
    """Nodes against the .mov at the initial time; joint points from both nodes coincide."""
    mov = first_mov_block(prefix, nodes)
    for label, (x, R, rw) in nodes.items():
        same(x, mov[label][0:3], tol, "node %d position vs .mov" % label)
        if rw[6] == "mat":
            same(R, [mov[label][3:6], mov[label][6:9], mov[label][9:12]], tol,
                 "node %d orientation vs .mov" % label)
        else:
            same(R, euler123(mov[label][3:6]), tol, "node %d orientation vs .mov" % label)
    points = 0
    for (kind, label), rw in elements.items():
        if kind in ("sphericalhinge", "revolutehinge", "cardanohinge"):
            (x1, R1, _), (x2, R2, _) = nodes[int(rw[2])], nodes[int(rw[15])]
            p1 = [a + b for a, b in zip(x1, matvec(R1, floats(rw, 3, 3)))]
            p2 = [a + b for a, b in zip(x2, matvec(R2, floats(rw, 16, 3)))]
            same(p1, p2, tol, "%s %d: joint point from node 1 and node 2" % (kind, label))
            points += 1
        elif kind == "totalpinjoint":
            x, R, _ = nodes[int(rw[2])]
            p = [a + b for a, b in zip(x, matvec(R, floats(rw, 3, 3)))]
            d = matvec(transpose(mat(rw, 27)), [a - b for a, b in zip(p, floats(rw, 24, 3))])
            for i in range(3):
                if rw[45 + i] == "1":
                    check(abs(d[i]) <= tol, "%s %d: constrained position component %d is %r" %
                          (kind, label, i + 1, d[i]))
            points += 1
    return points


# --- cases -------------------------------------------------------------------------------------

def run_case(args, name, deck, steps_time):
    prefix = os.path.join(args.work_dir, name)
    os.makedirs(args.work_dir, exist_ok=True)
    run([args.mbstep, "run", os.path.join(args.source_dir, deck), "--final-time",
         str(steps_time), "-o", prefix, "--quiet"])
    nodes, elements = read_log(prefix + ".log")
    return prefix, nodes, elements


def element(elements, kind, label):
    check((kind, label) in elements, "no %s %d in the .log" % (kind, label))
    return elements[(kind, label)]


def heavy_top(args):
    prefix, nodes, elements = run_case(args, "heavy-top", "examples/heavy-top/heavy-top.mbd",
                                       0.01)
    check(sorted(nodes) == [1], "nodes %r" % sorted(nodes))
    same(nodes[1][0], [0, 1, 0], 1e-12, "node 1 position")
    same(nodes[1][1], I3, 1e-12, "node 1 orientation")
    b = element(elements, "body", 1)
    check(b[2] == "1", "body 1 on node " + b[2])
    same(floats(b, 3, 13), [15, 0, 0, 0, 0.234375, 0, 0, 0, 0.46875, 0, 0, 0, 0.234375], 1e-6,
         "body 1")
    j = element(elements, "sphericalpin", 1)
    check(j[2] == "1" and j[15] == "1", "sphericalpin 1 nodes")
    same(floats(j, 3, 3) + floats(j, 16, 3), [0, -1, 0, 0, -1, 0], 1e-12, "sphericalpin offsets")
    same(mat(j, 6), I3, 1e-12, "sphericalpin frame")
    check(len(elements) == 2, "elements %r (gravity writes no row)" % sorted(elements))
    points = rebuild(prefix, nodes, elements, 1e-5)
    # The pin's point from the .log's node row and offset: the deck's ground point, the origin
    # (MBDyn's sphericalpin row does not carry it).
    x, R, _ = nodes[1]
    same([a + b for a, b in zip(x, matvec(R, floats(j, 3, 3)))], [0, 0, 0], 1e-12,
         "sphericalpin 1 point")
    return points + 1


def slider_crank(args):
    prefix, nodes, elements = run_case(args, "slider-crank", "examples/slider-crank/deck.mbd",
                                       0.01)
    check(sorted(nodes) == [1, 2, 3], "nodes %r" % sorted(nodes))
    R1 = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    R3 = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
    same(nodes[1][0], [0, 0.1, 0.12], 1e-6, "node 1 position")
    same(nodes[1][1], R1, 1e-5, "node 1 orientation")
    same(nodes[2][0], [0.1, 0.05, 0.1], 1e-6, "node 2 position")
    same(nodes[2][1], two_vectors(1, [2, -1, -2], 2, [0, 2, -1]), 1e-5, "node 2 orientation")
    same(nodes[3][0], [0.2, 0, 0], 1e-6, "node 3 position")
    same(nodes[3][1], R3, 1e-5, "node 3 orientation")
    for label, m, J in ((1, 1.2, (1e-4, 1e-5, 1e-4)), (2, 0.5, (4e-3, 4e-4, 4e-3)),
                        (3, 2.0, (1e-4, 1e-4, 1e-4))):
        b = element(elements, "body", label)
        check(int(b[2]) == label, "body %d node" % label)
        same(floats(b, 3, 13), [m, 0, 0, 0, J[0], 0, 0, 0, J[1], 0, 0, 0, J[2]], 1e-6,
             "body %d" % label)
    t = element(elements, "totalpinjoint", 1)
    check(t[2] == "1", "totalpinjoint 1 node")
    same(floats(t, 3, 3), [0, 0, 0], 1e-12, "totalpinjoint 1 node offset")
    same(mat(t, 6), I3, 1e-12, "totalpinjoint 1 position orientation")
    same(mat(t, 15), I3, 1e-12, "totalpinjoint 1 rotation orientation")
    same(floats(t, 24, 3), [0, 0.1, 0.12], 1e-6, "totalpinjoint 1 ground point")
    same(mat(t, 27), I3, 1e-12, "totalpinjoint 1 ground position orientation")
    same(mat(t, 36), R1, 1e-6, "totalpinjoint 1 ground rotation orientation")
    check(t[45:57] == "1 1 1 0 0 0 1 1 1 0 0 0".split(), "totalpinjoint 1 flags %r" % t[45:])
    s = element(elements, "sphericalhinge", 2)
    check(s[2] == "2" and s[15] == "1", "sphericalhinge 2 nodes")
    same(floats(s, 3, 3) + floats(s, 16, 3), [-0.15, 0, 0, 0, 0.08, 0], 1e-12,
         "sphericalhinge 2 offsets")
    c = element(elements, "cardanohinge", 3)
    check(c[2] == "2" and c[15] == "3", "cardanohinge 3 nodes")
    same(floats(c, 3, 3) + floats(c, 16, 3), [0.15, 0, 0, 0, 0, 0], 1e-12,
         "cardanohinge 3 offsets")
    same(mat(c, 6), two_vectors(3, [0, 1, 0], 1, [1, 0, 0]), 1e-6, "cardanohinge 3 frame 1")
    same(mat(c, 19), two_vectors(2, [0, 0, 1], 1, [1, 0, 0]), 1e-6, "cardanohinge 3 frame 2")
    t = element(elements, "totalpinjoint", 4)
    check(t[2] == "3", "totalpinjoint 4 node")
    same(mat(t, 36), R3, 1e-6, "totalpinjoint 4 ground rotation orientation")
    check(t[45:57] == "0 1 1 0 0 0 1 1 1 0 0 0".split(), "totalpinjoint 4 flags %r" % t[45:])
    check(len(elements) == 7, "elements %r" % sorted(elements))
    return rebuild(prefix, nodes, elements, 1e-5)


def beam(args):
    prefix, nodes, elements = run_case(args, "lateral-buckling",
                                       "examples/lateral-buckling/deck.mbd", 0.005)
    check(len(nodes) == 17, "%d nodes" % len(nodes))
    check(all(rw[6] == "mat" for _, _, rw in nodes.values()),
          "`default orientation: orientation matrix` gives `mat` node rows")
    same(nodes[1001][0], [0.1, 0, 0], 1e-12, "node 1001 position")
    beams = sorted(label for kind, label in elements if kind == "beam3")
    check(len(beams) == 7, "beam3 rows %r" % beams)
    b = element(elements, "beam3", 1001)
    check([b[2], b[6], b[10]] == ["1000", "1001", "1002"], "beam3 1001 nodes %r" % b)
    same(floats(b, 3, 3) + floats(b, 7, 3) + floats(b, 11, 3), [0] * 9, 1e-12,
         "beam3 1001 offsets")
    # Consecutive beams of the beam share their end node.
    b2 = element(elements, "beam3", 1002)
    check(b2[2] == b[10], "beam3 1002 starts at beam3 1001's third node")
    # MBDyn writes the inertia about the node: the deck's (about the centre of mass, 0.025 m
    # along x) plus m (|c|^2 I - c c^T).
    body = element(elements, "body", 1000)
    mc2 = 0.134 * 0.025**2
    same(floats(body, 3, 13), [0.134, 0.025, 0, 0, 0.0001127665, 0, 0, 0,
                               0.000139566666667 + mc2, 0, 0, 0, 2.90331666667e-05 + mc2], 1e-9,
         "body 1000")
    element(elements, "clamp", 100)
    element(elements, "sphericalhinge", 300)
    element(elements, "revolutehinge", 400)
    element(elements, "totalpinjoint", 500)
    return rebuild(prefix, nodes, elements, 1e-9)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--mbstep", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--work-dir", required=True)
    a = p.parse_args()
    cases = {"heavy_top": heavy_top, "slider_crank": slider_crank, "beam": beam}
    check(a.case in cases, "unknown case " + a.case)
    points = cases[a.case](a)
    print("%s: .log rows pass Blendyn's rules, fields as the deck, %d joint points rebuilt" %
          (a.case, points))
    print("PASS")


if __name__ == "__main__":
    main()
