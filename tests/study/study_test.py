#!/usr/bin/env python3
"""Tests of `mbstep study` (tools/mbstep/study.cpp; docs/DESIGN.md, "Studies"), one case per
CTest entry:

  orientation  the free rigid body (examples/free-rigid-body): orientation (geodesic angle) and
               angular-velocity errors with slopes within 0.2 of the declared orders, a .mov
               reference read in the deck's orientation form, --error all, --repeat, --work.
  convergence  the 3-D pendulum (examples/pendulum) to t = 1 s with `ms, 0.6` (order 2) and
               `implicit euler` (order 1) at h = 4, 2, 1, 0.5 ms against the default reference
               (DIRK54 at h_min / 4): 8 well-formed rows, all `ok`, steps = T / h, errors
               decreasing; the fitted slopes of PREFIX-slopes.csv within 0.2 of the declared
               orders and equal to a least-squares fit of the CSV's own errors; the local orders
               within 0.2; the plots written when /usr/bin/python3 has matplotlib.
  reference    --reference-file: the .mov of `mbstep run --method DIRK54 --time-step 1.25e-4`
               (6 digits) gives the errors of the default reference within 5e-6 (implicit euler,
               errors ~1e-3), and a CSV reference written from that .mov's last rows the same.
  threads      --threads 2 gives the rows of --threads 1, bit for bit (every column but
               cpu_seconds), for 3 methods x 4 steps + the reference.
  mpi          `mpirun -np 2 mbstep study ...` gives the rows of the single-process study, bit
               for bit (registered only when CMake found MPI).
  failed_run   a Newton failure (`ms, 0.6` at h = 0.25 s) and a method that refuses the model
               (`rk44`: constraints) are rows with status `failed: <message>`, the other rows
               keep their errors, and the study exits 0.
  bad_input    unknown method, no steps, no methods, unreadable reference file, a step that does
               not divide the time span, bad --threads, --error, --repeat, --work: exit code
               != 0, a message naming the problem, and no CSV written.
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys

DECK = "examples/pendulum/pendulum.mbd"
STEPS = ["4e-3", "2e-3", "1e-3", "5e-4"]


def fail(msg):
    sys.exit("FAILED: " + msg)


def run(cmd, env=None, expect_ok=True):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if expect_ok and p.returncode != 0:
        sys.stdout.write(p.stdout + p.stderr)
        fail(f"exit {p.returncode}: {' '.join(cmd)}")
    return p


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def without_cpu(rs):
    return [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rs]


def fit(hs, es):
    x = [math.log(h) for h in hs]
    y = [math.log(e) for e in es]
    n = len(x)
    sx, sy = sum(x), sum(y)
    sxx = sum(a * a for a in x)
    sxy = sum(a * b for a, b in zip(x, y))
    return (n * sxy - sx * sy) / (n * sxx - sx * sx)


def study(a, prefix, methods, extra=(), steps=STEPS, launcher=(), env=None):
    cmd = list(launcher) + [a.mbstep, "study", "convergence", os.path.join(a.source_dir, DECK),
                            "--methods", *methods, "--steps", *steps, "--final-time", "1",
                            "-o", prefix, *extra]
    return run(cmd, env=env)


def case_convergence(a):
    prefix = os.path.join(a.work_dir, "conv")
    plot = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                          stderr=subprocess.DEVNULL).returncode == 0
    study(a, prefix, ["ms, 0.6", "implicit euler"], [] if plot else ["--no-plot"])
    header = open(prefix + ".csv").readline().strip()
    expected = ("method,formulation,h,steps,quantity,error,order,error_position,error_velocity,"
                "error_orientation,error_angular_velocity,newton_iterations,factorizations,"
                "cpu_seconds,status")
    if header != expected:
        fail(f"CSV header {header!r}")
    rs = rows(prefix + ".csv")
    if len(rs) != 8:
        fail(f"{len(rs)} rows, expected 8 (2 methods x 4 steps)")
    declared = {"ms, 0.6": 2, "implicit euler": 1}
    slopes = {r["method"]: r for r in rows(prefix + "-slopes.csv")}
    for method, order in declared.items():
        mine = [r for r in rs if r["method"] == method]
        if [float(r["h"]) for r in mine] != [float(h) for h in STEPS]:
            fail(f"{method}: steps {[r['h'] for r in mine]}")
        for r in mine:
            if r["status"] != "ok" or r["formulation"] != "cgr velocity unscaled":
                fail(f"{method}: row {r}")
            if int(r["steps"]) != round(1.0 / float(r["h"])):
                fail(f"{method}: {r['steps']} steps at h = {r['h']}")
            if int(r["newton_iterations"]) < int(r["steps"]) or float(r["cpu_seconds"]) <= 0:
                fail(f"{method}: iterations/cpu of {r}")
        errors = [float(r["error"]) for r in mine]
        if any(e2 >= e1 for e1, e2 in zip(errors, errors[1:])):
            fail(f"{method}: errors not decreasing {errors}")
        if mine[0]["order"] != "":
            fail(f"{method}: local order on the first row")
        local = [float(r["order"]) for r in mine[1:]]
        if any(abs(p - order) > 0.2 for p in local):
            fail(f"{method}: local orders {local}, declared {order}")
        s = slopes[method]
        fitted = float(s["fitted_slope"])
        if int(s["declared_order"]) != order or int(s["points"]) != 4:
            fail(f"{method}: slopes row {s}")
        if abs(fitted - order) > 0.2:
            fail(f"{method}: fitted slope {fitted}, declared order {order}")
        mine_fit = fit([float(r["h"]) for r in mine], errors)
        if abs(mine_fit - fitted) > 1e-5:
            fail(f"{method}: slope file {fitted} vs fit of the CSV {mine_fit}")
        print(f"{method}: errors {errors}, local orders {local}, fitted slope {fitted}")
    for suffix in ("-error.png", "-work.png"):
        exists = os.path.exists(prefix + suffix) and os.path.getsize(prefix + suffix) > 1000
        if plot and not exists:
            fail(f"{prefix + suffix} not written")
    print("plots", "checked" if plot else "skipped (no matplotlib in /usr/bin/python3)")


def case_reference(a):
    ref = os.path.join(a.work_dir, "ref")
    run([a.mbstep, "run", os.path.join(a.source_dir, DECK), "--method", "DIRK54", "--time-step",
         "1.25e-4", "--final-time", "1", "-o", ref, "--quiet"])
    base = os.path.join(a.work_dir, "ref-default")
    study(a, base, ["implicit euler"], ["--no-plot"])
    from_mov = os.path.join(a.work_dir, "ref-mov")
    study(a, from_mov, ["implicit euler"], ["--no-plot", "--reference-file", ref + ".mov"])
    # A CSV reference from the .mov's last row of each node.
    last = {}
    for line in open(ref + ".mov"):
        f = line.split()
        last[f[0]] = f[1:4]
    with open(ref + ".csv", "w") as out:
        out.write("label,x,y,z\n")
        for label, x in last.items():
            out.write(",".join([label] + x) + "\n")
    from_csv = os.path.join(a.work_dir, "ref-csv")
    study(a, from_csv, ["implicit euler"], ["--no-plot", "--reference-file", ref + ".csv"])
    e0 = [float(r["error"]) for r in rows(base + ".csv")]
    e1 = [float(r["error"]) for r in rows(from_mov + ".csv")]
    e2 = [float(r["error"]) for r in rows(from_csv + ".csv")]
    if len(e0) != 4 or any(abs(x - y) > 5e-6 for x, y in zip(e0, e1)):
        fail(f"errors with the .mov reference {e1} vs the default reference {e0}")
    if e1 != e2:
        fail(f"errors with the CSV reference {e2} vs the .mov reference {e1}")
    print(f"default reference {e0}; .mov reference {e1}")


ROTATION_DECK = "examples/free-rigid-body/deck.mbd"
ROTATION_STEPS = ["4e-3", "2e-3", "1e-3", "5e-4"]


def case_orientation(a):
    """The free rigid body (no translation: position error 0): orientation (geodesic angle)
    and angular-velocity errors converge at the declared orders; a .mov reference (its euler123
    columns, as the deck writes them) gives the errors of the default reference run; --repeat
    keeps the minimum CPU time; --work iterations plots against the Newton iterations."""
    prefix = os.path.join(a.work_dir, "rot")
    plot = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                          stderr=subprocess.DEVNULL).returncode == 0
    methods = ["ms, 0.6", "implicit euler", "generalized alpha, 0.6@lie group"]
    declared = {"ms, 0.6": 2, "implicit euler": 1, "generalized alpha, 0.6": 2}
    cmd = [a.mbstep, "study", "convergence", os.path.join(a.source_dir, ROTATION_DECK),
           "--methods", *methods, "--steps", *ROTATION_STEPS, "--final-time", "0.2",
           "--error", "orientation", "--repeat", "2", "--work", "iterations", "-o", prefix]
    out = run(cmd + ([] if plot else ["--no-plot"])).stdout
    rs = rows(prefix + ".csv")
    slopes = {r["method"]: r for r in rows(prefix + "-slopes.csv")}
    for method, order in declared.items():
        mine = [r for r in rs if r["method"] == method]
        if len(mine) != 4 or any(r["status"] != "ok" or r["quantity"] != "orientation"
                                 for r in mine):
            fail(f"{method}: rows {mine}")
        if any(float(r["error_position"]) != 0.0 for r in mine):
            fail(f"{method}: a free rigid body at rest in translation has position error 0")
        hs = [float(r["h"]) for r in mine]
        for col in ("error_orientation", "error_angular_velocity"):
            es = [float(r[col]) for r in mine]
            slope = fit(hs, es)
            print(f"{method}: {col} {es}, slope {slope:.3f} (declared order {order})")
            if abs(slope - order) > 0.2:
                fail(f"{method}: {col} slope {slope}, declared order {order}")
        if [float(r["error"]) for r in mine] != [float(r["error_orientation"]) for r in mine]:
            fail(f"{method}: error is not the orientation error")
        fitted = float(slopes[method]["fitted_slope"])
        if abs(fitted - order) > 0.2:
            fail(f"{method}: fitted slope {fitted}, declared order {order}")
    if "fitted slope -" in out:
        fail("a series without a fitted slope:\n" + out)
    for suffix in ("-error.png", "-work.png"):
        exists = os.path.exists(prefix + suffix) and os.path.getsize(prefix + suffix) > 1000
        if plot and not exists:
            fail(f"{prefix + suffix} not written")
    # The .mov reference: euler123 angles in degrees with 6 significant digits.
    ref = os.path.join(a.work_dir, "rot-ref")
    run([a.mbstep, "run", os.path.join(a.source_dir, ROTATION_DECK), "--method", "DIRK54",
         "--formulation", "cgr", "--time-step", "1.25e-4", "--final-time", "0.2", "-o", ref,
         "--quiet"])
    from_mov = os.path.join(a.work_dir, "rot-mov")
    run([a.mbstep, "study", "convergence", os.path.join(a.source_dir, ROTATION_DECK),
         "--methods", "implicit euler", "--steps", *ROTATION_STEPS, "--final-time", "0.2",
         "--error", "all", "--no-plot", "--reference-file", ref + ".mov", "-o", from_mov])
    e0 = [r for r in rs if r["method"] == "implicit euler"]
    e1 = rows(from_mov + ".csv")
    for col, tol in (("error_orientation", 1e-5), ("error_angular_velocity", 1e-4)):
        x0 = [float(r[col]) for r in e0]
        x1 = [float(r[col]) for r in e1]
        if any(abs(x - y) > tol * max(1.0, y) for x, y in zip(x0, x1)):
            fail(f"{col}: .mov reference {x1} vs default reference {x0}")
        print(f"{col}: default reference {x0}, .mov reference {x1}")
    # --error all: the max of the four.
    for r in e1:
        four = max(float(r[c]) for c in ("error_position", "error_velocity",
                                          "error_orientation", "error_angular_velocity"))
        if float(r["error"]) != four:
            fail(f"--error all: {r}")
    # A CSV reference has no orientation: refused for --error orientation.
    with open(ref + "-last.csv", "w") as f:
        f.write("label,x,y,z\n1,0,0,0\n")
    p = run([a.mbstep, "study", "convergence", os.path.join(a.source_dir, ROTATION_DECK),
             "--methods", "implicit euler", "--steps", "1e-3", "--final-time", "0.2",
             "--error", "orientation", "--no-plot", "--reference-file", ref + "-last.csv",
             "-o", from_mov + "-bad"], expect_ok=False)
    if p.returncode == 0 or "needs a .mov" not in p.stderr:
        fail("a CSV reference accepted for --error orientation: " + p.stderr)
    print("plots", "checked" if plot else "skipped (no matplotlib in /usr/bin/python3)")


METHODS3 = ["ms, 0.6", "implicit euler", "generalized alpha, 0.9@lie group"]


def case_threads(a):
    p1 = os.path.join(a.work_dir, "t1")
    p2 = os.path.join(a.work_dir, "t2")
    study(a, p1, METHODS3, ["--no-plot", "--threads", "1"])
    study(a, p2, METHODS3, ["--no-plot", "--threads", "2"])
    r1, r2 = without_cpu(rows(p1 + ".csv")), without_cpu(rows(p2 + ".csv"))
    if len(r1) != 12 or r1 != r2:
        fail(f"--threads 2 rows differ from --threads 1:\n{r1}\n{r2}")
    if open(p1 + "-slopes.csv").read() != open(p2 + "-slopes.csv").read():
        fail("slopes differ between --threads 1 and 2")
    print(f"{len(r1)} rows identical")


def case_mpi(a):
    if not a.mpiexec:
        fail("no --mpiexec")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    # Under the asan-ubsan preset: OpenMPI's components (dlclose'd at MPI_Finalize) leave strdup'ed
    # strings that LeakSanitizer reports from "<unknown module>" frames, which no suppression can
    # name; leak checking is switched off for the mpirun-launched processes only (the same study
    # runs leak-checked in the single-process cases). Without a sanitizer the option is inert.
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    p1 = os.path.join(a.work_dir, "mpi1")
    pk = os.path.join(a.work_dir, "mpi2")
    study(a, p1, METHODS3, ["--no-plot"])
    if os.path.exists(pk + ".csv"):
        os.remove(pk + ".csv")
    study(a, pk, METHODS3, ["--no-plot"], env=env,
          launcher=[a.mpiexec, "-np", "2", "--oversubscribe"])
    r1, rk = without_cpu(rows(p1 + ".csv")), without_cpu(rows(pk + ".csv"))
    if len(r1) != 12 or r1 != rk:
        fail(f"mpirun -np 2 rows differ from the single process:\n{r1}\n{rk}")
    print(f"{len(r1)} rows identical under mpirun -np 2")


def case_failed_run(a):
    prefix = os.path.join(a.work_dir, "failed")
    p = study(a, prefix, ["ms, 0.6", "rk44"], ["--no-plot"], steps=["0.25", "1e-3"])
    rs = {(r["method"], float(r["h"])): r for r in rows(prefix + ".csv")}
    if len(rs) != 4:
        fail(f"{len(rs)} rows, expected 4")
    newton = rs[("ms, 0.6", 0.25)]
    if not newton["status"].startswith("failed: Newton failed at step ") or newton["error"]:
        fail(f"Newton failure row {newton}")
    ok = rs[("ms, 0.6", 1e-3)]
    if ok["status"] != "ok" or not 1e-7 < float(ok["error"]) < 1e-5 or ok["steps"] != "1000":
        fail(f"ok row {ok}")
    for h in (0.25, 1e-3):
        r = rs[("rk44", h)]
        if not r["status"].startswith("failed: integrator 'rk44'") or "constraint" not in r[
                "status"] or r["steps"] != "0" or r["newton_iterations"] != "":
            fail(f"rk44 row {r}")
    print(p.stdout.strip())


def case_bad_input(a):
    deck = os.path.join(a.source_dir, DECK)
    prefix = os.path.join(a.work_dir, "bad")
    cases = [
        (["--methods", "no such method", "--steps", "1e-3"], "no such method"),
        (["--methods", "ms, 0.6"], "no step sizes"),
        (["--steps", "1e-3"], "no methods"),
        (["--methods", "ms, 0.6", "--steps", "1e-3", "--reference-file",
          os.path.join(a.work_dir, "missing.mov")], "cannot read reference file"),
        (["--methods", "ms, 0.6", "--steps", "3e-3"], "does not divide"),
        (["--methods", "ms, 0.6", "--steps", "abc"], "not a number"),
        (["--methods", "ms, 0.6@no such formulation", "--steps", "1e-3"], "unknown formulation"),
        (["--methods", "ms, 0.6", "--steps", "1e-3", "--threads", "0"], "--threads"),
        (["--methods", "ms, 0.6", "--steps", "1e-3", "--error", "torque"], "--error 'torque'"),
        (["--methods", "ms, 0.6", "--steps", "1e-3", "--repeat", "0"], "--repeat"),
        (["--methods", "ms, 0.6", "--steps", "1e-3", "--work", "energy"], "--work 'energy'"),
    ]
    for args, message in cases:
        for f in (prefix + ".csv", prefix + "-slopes.csv"):
            if os.path.exists(f):
                os.remove(f)
        p = run([a.mbstep, "study", "convergence", deck, "--final-time", "1", "-o", prefix,
                 *args], expect_ok=False)
        if p.returncode == 0:
            fail(f"{args}: exit code 0")
        if message not in p.stderr:
            fail(f"{args}: stderr {p.stderr!r} does not say {message!r}")
        if os.path.exists(prefix + ".csv") or os.path.exists(prefix + "-slopes.csv"):
            fail(f"{args}: a CSV was written")
        print(f"{args[:2]} -> exit {p.returncode}: {p.stderr.splitlines()[0]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["convergence", "orientation", "reference", "threads", "mpi",
                                     "failed_run", "bad_input"])
    ap.add_argument("--mbstep", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--mpiexec", default="")
    a = ap.parse_args()
    a.work_dir = os.path.join(a.work_dir, a.case)
    shutil.rmtree(a.work_dir, ignore_errors=True)
    os.makedirs(a.work_dir)
    globals()["case_" + a.case](a)
    print("PASSED")


if __name__ == "__main__":
    main()
