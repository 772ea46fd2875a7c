#!/usr/bin/env python3
"""Accuracy of mbstep on MBDyn's own rigid-body test decks (docs/verification.md).

Runs each deck as written (method, tolerance, solver) at its time step h0 and at h0/2, h0/4
with the default formulation, `cgr` and `mbdyn cgr` (MBDyn's correction composed with the
prediction), and compares the final node poses with a reference computed by mbstep at h0/100
(DIRK54 on `cgr`, tolerance 1e-10; 6barmech: `ms, 0.6` at 8e-5 with full Newton, since its
mechanism passes near singular configurations that stop the smaller-step references).
Prints a Markdown table: worst node position error, worst node rotation error (degrees), and
for realgimbal the error of the hub's rotation relative to the shaft (the gimbal's tilt).

Usage: tools/verify/mbdyn_decks.py MBDYN_TESTS_DIR [BUILD_DIR]
MBDYN_TESTS_DIR holds MBDyn's decks as MBDyn's source tree names them (spintop/spintop, ...).
"""
import math
import os
import shutil
import subprocess
import sys
import tempfile

# deck, time step as written, orientation columns of its .mov
DECKS = [("spintop", 1e-2, "euler123"), ("realgimbal", 1e-2, "vector"),
         ("6barmech", 8e-3, "euler123"), ("chain15", 1e-3, "euler123"),
         ("srscm", 4e-3, "euler123")]
VARIANTS = [("default", []), ("cgr", ["--formulation", "cgr"]),
            ("mbdyn cgr", ["--formulation", "mbdyn cgr"]),
            ("cgr rotation vector", ["--formulation", "cgr rotation vector"])]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def transpose(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


def rot_euler123(deg):
    x, y, z = (math.radians(v) for v in deg)
    rx = [[1, 0, 0], [0, math.cos(x), -math.sin(x)], [0, math.sin(x), math.cos(x)]]
    ry = [[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]]
    rz = [[math.cos(z), -math.sin(z), 0], [math.sin(z), math.cos(z), 0], [0, 0, 1]]
    return matmul(matmul(rx, ry), rz)


def rot_vector(p):
    th = math.sqrt(sum(v * v for v in p))
    if th == 0.0:
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    k = [v / th for v in p]
    kx = [[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]]
    kk = matmul(kx, kx)
    s, c = math.sin(th), 1.0 - math.cos(th)
    return [[(1.0 if i == j else 0.0) + s * kx[i][j] + c * kk[i][j] for j in range(3)]
            for i in range(3)]


def angle_deg(a, b):
    d = matmul(transpose(a), b)
    t = (d[0][0] + d[1][1] + d[2][2] - 1.0) / 2.0
    return math.degrees(math.acos(max(-1.0, min(1.0, t))))


def last_poses(mov, orientation):
    """Label -> (position, rotation matrix) of the last time step of a .mov file."""
    lines = [ln.split() for ln in open(mov) if ln.strip()]
    out = {}
    for v in reversed(lines):
        label = int(v[0])
        if label in out:
            break
        vals = [float(x) for x in v[1:7]]
        rot = rot_vector(vals[3:6]) if orientation == "vector" else rot_euler123(vals[3:6])
        out[label] = (vals[0:3], rot)
    return out


def run(mbstep, deck, prefix, args):
    r = subprocess.run([mbstep, "run", deck, "-q", "-o", prefix] + args,
                       capture_output=True, text=True)
    lines = (r.stdout + r.stderr).strip().splitlines()
    if r.returncode != 0:
        raise RuntimeError(f"{deck} {' '.join(args)}: {lines[-1] if lines else r.returncode}")
    return next((ln for ln in lines if "completed" in ln), "")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tests = os.path.abspath(sys.argv[1])
    build = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "build")
    mbstep = os.path.join(build, "bin", "mbstep")
    work = tempfile.mkdtemp(prefix="mbstep-verify-")
    try:
        print("| deck | h | formulation | position error | rotation error (deg) | iterations/step |")
        print("|---|---|---|---|---|---|")
        for name, h0, orientation in DECKS:
            folder = os.path.join(work, name)
            shutil.copytree(os.path.join(tests, name), folder)
            deck = os.path.join(folder, name)
            ref = os.path.join(folder, "ref")
            if name == "6barmech":
                text = open(deck).read().replace("newton raphson, modified, 5;", "newton raphson;")
                open(deck + "-full", "w").write(text)
                run(mbstep, deck + "-full", ref,
                    ["--formulation", "cgr", "--time-step", "8e-5", "--tolerance", "1e-10"])
            else:
                run(mbstep, deck, ref, ["--method", "DIRK54", "--formulation", "cgr",
                                        "--time-step", repr(h0 / 100), "--tolerance", "1e-10"])
            reference = last_poses(ref + ".mov", orientation)
            for k in (1, 2, 4):
                h = h0 / k
                for label, args in VARIANTS:
                    out = os.path.join(folder, "run")
                    summary = run(mbstep, deck, out, args + ["--time-step", repr(h)])
                    poses = last_poses(out + ".mov", orientation)
                    ep = max(math.dist(reference[n][0], poses[n][0]) for n in reference)
                    er = max(angle_deg(reference[n][1], poses[n][1]) for n in reference)
                    rot = f"{er:.4g}"
                    if name == "realgimbal":  # hub (3) relative to the shaft (2)
                        rel_ref = matmul(transpose(reference[2][1]), reference[3][1])
                        rel = matmul(transpose(poses[2][1]), poses[3][1])
                        rot += f" (tilt {angle_deg(rel_ref, rel):.4g})"
                    it = summary.split("(")[1].split(" per step")[0] if "per step" in summary else "-"
                    print(f"| {name} | {h:g} | {label} | {ep:.4e} | {rot} | {it} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
