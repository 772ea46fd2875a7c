#!/usr/bin/python3
"""Method sweeps on the flexible benchmarks of Bauchau et al. (2016) as in Zhang, Masarati et al.

The three flexible-multibody benchmarks of Bauchau, Betsch, Cardona, Gerstmayr, Jonker, Masarati,
Sonneville, Multibody Syst Dyn 37 (2016) 29-48 (four-bar mechanism, lateral buckling, rotating
shaft), run with every LMS/SS/ESDIRK method as in section 5 of Zhang, Masarati et al.,
"multistep, single-step and multistage methods in MBDyn" (Figs. 13-27). The deck is either
mbstep's example (examples/four-bar-flexible, lateral-buckling, rotating-shaft) or MBDyn's
own `_int` deck of the benchmark (tests/benchmarks/<name>/<name>_int in MBDyn's repository);
the benchmark is recognized from the deck's path (or --benchmark).

Sub-commands:

  sweep DECK        every method of the paper (second order at rho_inf 0 and 0.6, MSSTH(3-5)
                    at 0, the three ESDIRKs) with h = (implicit stages per step) x BASE, BASE =
                    the paper's Delta t/n (four-bar 4e-3, lateral buckling and rotating shaft
                    1e-3; --base-step), so every method does the same number of implicit
                    stages. Writes SCRATCH/sweep.csv (deck, method, rho_inf, h, completed or
                    the failure message, steps, Newton iterations per step and per stage, wall
                    and CPU seconds), SCRATCH/<run>-signals.csv (the sensor signals), and with
                    --figures DIR one PNG per sensor signal, three panels as the paper's figures
                    ((a) second order rho_inf 0, (b) second order rho_inf 0.6, (c) higher order
                    rho_inf 0; four-bar: also a zoom on the first snap-through); with --readme
                    FILE the markdown table replaces the block between `<!-- BEGIN sweep -->`
                    and `<!-- END sweep -->` (--block NAME for another). The table adds the
                    four-bar's high-frequency content of omega1_C (RMS over [0, 12] s of the
                    signal minus its 0.05-s moving average) and the lateral buckling's RMS of
                    omega1 over [0.4, 0.8] s (the free vibration a method keeps).
  compare A B       runs decks A and B with the same --method and --time-step and prints, per
                    sensor signal, the largest difference over the benchmark's window (table).
  convergence DECK  rotating shaft (Figs. 25-27): u3, v3, a3 at mid-span at t = 2.5 s for each
                    method at halved steps against a reference run (default DIRK54 with a step
                    half the finest Delta t/n), least-squares slopes against the declared
                    orders (SCRATCH/convergence.csv, convergence.png, --readme block
                    `convergence`); finished runs are reused from SCRATCH (--rerun).
  plot              redraws the figures from SCRATCH/sweep.csv and the saved signals.

Sensor signals (as MBDyn's extraction scripts of the benchmarks define them; node and element
labels are those of both decks):
  four-bar:         theta_C, the Euler 3-1-2 angle theta (about x) of node 2010 (bar B-C at C) in
                    degrees, from the node's orientation in the benchmark's axes (x along B-C,
                    z normal to the mechanism's plane; the deck's y is the benchmark's -z), in
                    which it is the identity at rest: the twist of bar B-C at C after its
                    in-plane rotation; omega1_C, node 2010's angular velocity about x; F1_AB,
                    the axial force at the middle of bar A-B (mean of beam 1003's two points,
                    MBDyn's fourbar.sh). Figs. 14-16.
  lateral buckling: theta, the Euler 3-1-2 angle theta (about x) at mid-span (node 1005) in
                    degrees; omega1, its angular velocity about x; F3, the shear force along
                    axis 3 at mid-span (mean of beam 1003's two points). Figs. 18-20.
  rotating shaft:   u3, v3 of the mid-span node 16 along z; a3 = dv3/dt by central differences
                    of the output (the .mov has no accelerations). Figs. 22-24.

Runs are serial (`mbstep run DECK --method M --time-step H -o SCRATCH/RUN --quiet` from the
deck's folder, niced); each run's large output files are deleted once its signals are saved
(--keep keeps them). Needs python3-matplotlib for the figures (hence /usr/bin/python3).
"""
import argparse
import csv
import math
import os
import re
import resource
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MBSTEP = os.path.join(REPO, "build", "bin", "mbstep")
DEG = 180.0 / math.pi

# --------------------------------------------------------------------------------------------
# Methods of the paper's section 5 (its Table 1), in its order: (label, keyword) of the
# second-order methods, run at rho_inf 0 and 0.6; (label, keyword, rho_inf or None for a method
# without the parameter) of the higher-order ones. The groups are the panels of its figures.
SECOND_ORDER = [("LMS2", "ms"), ("LMS3", "ms3"), ("LMS4", "ms4"), ("SS2", "ss2"), ("SS3", "ss3"),
                ("SS4", "ss4"), ("Bathe", "Bathe"), ("MSSTC(3)", "msstc3"),
                ("MSSTC(4)", "msstc4"), ("MSSTC(5)", "msstc5")]
HIGHER_ORDER = [("MSSTH(3)", "mssth3", 0.0), ("MSSTH(4)", "mssth4", 0.0),
                ("MSSTH(5)", "mssth5", 0.0), ("ESDIRK3(2)4L[2]SA", "DIRK33", None),
                ("ESDIRK3(2)5L[2]SA", "DIRK43", None), ("ESDIRK4(3)6L[2]SA2", "DIRK54", None)]
GROUPS = ["second order, rho_inf = 0", "second order, rho_inf = 0.6",
          "higher order, rho_inf = 0"]


def paper_methods():
    out = []
    for rho, group in ((0.0, 0), (0.6, 1)):
        out += [dict(label=l, keyword=k, rho=rho, group=group) for l, k in SECOND_ORDER]
    out += [dict(label=l, keyword=k, rho=r, group=2) for l, k, r in HIGHER_ORDER]
    return out


def method_arg(m):
    return m["keyword"] if m["rho"] is None else f"{m['keyword']}, {m['rho']:g}"


def method_name(m):
    return m["label"] if m["rho"] is None else f"{m['label']} ({m['rho']:g})"


def run_tag(m, h=None):
    s = m["keyword"].lower() + ("" if m["rho"] is None else f"_rho{m['rho']:g}")
    return s if h is None else f"{s}_h{h:.6g}"


# --------------------------------------------------------------------------------------------
# The registry: implicit stages per step and declared order of each method, read from
# `mbstep plugins --markdown` (one source of truth for names).
def registry(mbstep):
    text = subprocess.run([mbstep, "plugins", "--markdown"], capture_output=True, text=True,
                          check=True).stdout
    info = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].startswith("`"):
            continue
        key = cells[0].strip("`").lower()
        m = re.match(r"(\d+) implicit stages", cells[2])
        stages = int(m.group(1)) if m else 1
        try:
            order = int(cells[3].split()[0])
        except ValueError:
            order = None
        info[key] = dict(stages=stages, order=order)
    return info


# --------------------------------------------------------------------------------------------
# Output readers (MBDyn layouts as mbstep writes them).
def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return [[1, 0, 0], [0, c, -s], [0, s, c]]


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, 0, s], [0, 1, 0], [-s, 0, c]]


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, -s, 0], [s, c, 0], [0, 0, 1]]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def rotation(params, kind):
    """R from the three orientation numbers of a .mov line (degrees for Euler angles)."""
    if kind == "orientation vector":
        th = math.sqrt(sum(p * p for p in params))
        if th < 1e-300:
            return [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]
        n = [p / th for p in params]
        c, s, v = math.cos(th), math.sin(th), 1 - math.cos(th)
        x, y, z = n
        return [[c + x * x * v, x * y * v - z * s, x * z * v + y * s],
                [y * x * v + z * s, c + y * y * v, y * z * v - x * s],
                [z * x * v - y * s, z * y * v + x * s, c + z * z * v]]
    a = [p / DEG for p in params]
    if kind == "euler313":
        return matmul(matmul(rot_z(a[0]), rot_x(a[1])), rot_z(a[2]))
    if kind == "euler321":
        return matmul(matmul(rot_z(a[2]), rot_y(a[1])), rot_x(a[0]))
    return matmul(matmul(rot_x(a[0]), rot_y(a[1])), rot_z(a[2]))  # euler123, MBDyn's default


def deck_orientation(deck):
    """The deck's `default orientation` (MBDyn's default: euler123)."""
    with open(deck) as f:
        text = "\n".join(line.split("#")[0] for line in f)
    m = re.search(r"default\s+orientation\s*:\s*([a-z0-9 ]+?)\s*;", text)
    return m.group(1) if m else "euler123"


def read_times(prefix):
    """Times of the output records (the .out rows with Out = 1)."""
    times = []
    with open(prefix + ".out") as f:
        for line in f:
            p = line.split()
            if p and p[0] == "Step" and p[-1] == "1":
                times.append(float(p[2]))
    return times


def read_records(path, labels):
    """label -> list of the rows (floats after the label) of an MBDyn-layout output file."""
    out = {label: [] for label in labels}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            head = line[:12].split(None, 1)
            if not head:
                continue
            try:
                label = int(head[0])
            except ValueError:
                continue
            if label in out:
                out[label].append([float(v) for v in line.split()[1:]])
    return out


class Node:
    """x, R, v, w of one .mov row (13 columns: 3 orientation numbers; 19: the matrix)."""

    def __init__(self, row, kind):
        self.x = row[0:3]
        if len(row) == 18:
            self.R = [row[3:6], row[6:9], row[9:12]]
            self.v, self.w = row[12:15], row[15:18]
        else:
            self.R = rotation(row[3:6], kind)
            self.v, self.w = row[6:9], row[9:12]


def euler312_theta(R):
    """The angle theta (about axis 1) of the Euler 3-1-2 sequence [Bauchau, Flexible
    Multibody Dynamics, eq. (4.78)], as MBDyn's benchmark scripts extract it:
    psi = atan2(-R31, R33), theta = atan2(R32, -R31 sin psi + R33 cos psi)."""
    psi = math.atan2(-R[2][0], R[2][2])
    return math.atan2(R[2][1], -R[2][0] * math.sin(psi) + R[2][2] * math.cos(psi))


def central_derivative(t, y):
    d = []
    n = len(y)
    for i in range(n):
        a, b = max(i - 1, 0), min(i + 1, n - 1)
        d.append((y[b] - y[a]) / (t[b] - t[a]) if b > a else float("nan"))
    return d


# --------------------------------------------------------------------------------------------
# The benchmarks: sensor signals, time window, base step Delta t/n, figure numbers.
# The four-bar deck's axes (x, y, z) are the benchmark's (x, -z, y) (MBDyn's fourbar.sh maps
# them as (x, z, -y)): rows of P_WB below turn deck components into the benchmark's.
FOUR_BAR_P = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]


def four_bar_signals(t, mov, act):
    c = mov[2010]
    f = act[1003]
    n = min(len(t), len(c), len(f))
    return {
        "theta_C": [euler312_theta(matmul(FOUR_BAR_P, c[i].R)) * DEG for i in range(n)],
        "omega1_C": [c[i].w[0] for i in range(n)],
        "F1_AB": [(f[i][0] + f[i][6]) / 2 for i in range(n)],
    }


def lateral_buckling_signals(t, mov, act):
    c = mov[1005]
    f = act[1003]
    n = min(len(t), len(c), len(f))
    return {
        "theta": [euler312_theta(c[i].R) * DEG for i in range(n)],
        "omega1": [c[i].w[0] for i in range(n)],
        "F3": [(f[i][2] + f[i][8]) / 2 for i in range(n)],
    }


def rotating_shaft_signals(t, mov, act):
    c = mov[16]
    n = min(len(t), len(c))
    v3 = [c[i].v[2] for i in range(n)]
    return {
        "u3": [c[i].x[2] for i in range(n)],
        "v3": v3,
        "a3": central_derivative(t[:n], v3),
    }


BENCHMARKS = {
    "four-bar": dict(
        patterns=("fourbar", "four-bar"), nodes=[2010], act=[1003], signals=four_bar_signals,
        window=(0.0, 12.0), base_step=4e-3, figures="Figs. 14-16",
        noise=("omega1_C", 0.05), zoom=(2.4, 3.4),
        units={"theta_C": "theta at C (deg)", "omega1_C": "omega_1 at C (rad/s)",
               "F1_AB": "F_1 at mid bar A-B (N)"}),
    "lateral-buckling": dict(
        patterns=("lateralbuckling", "lateral-buckling"), nodes=[1005], act=[1003],
        signals=lateral_buckling_signals, window=(0.0, 0.8), base_step=1e-3,
        figures="Figs. 18-20", late=("omega1", 0.4, 0.8),
        units={"theta": "theta at mid-span (deg)", "omega1": "omega_1 at mid-span (rad/s)",
               "F3": "F_3 at mid-span (N)"}),
    "rotating-shaft": dict(
        patterns=("rotatingshaft", "rotating-shaft"), nodes=[16], act=[],
        signals=rotating_shaft_signals, window=(0.0, 2.5), base_step=1e-3,
        figures="Figs. 22-24",
        units={"u3": "u_3 at mid-span (m)", "v3": "v_3 at mid-span (m/s)",
               "a3": "a_3 at mid-span (m/s^2)"}),
}


def detect_benchmark(deck, given):
    if given:
        return given
    low = os.path.abspath(deck).lower()
    for name, b in BENCHMARKS.items():
        if any(p in low for p in b["patterns"]):
            return name
    sys.exit(f"sweep.py: cannot tell the benchmark of {deck}; give --benchmark")


def extract(prefix, deck, bench):
    """time + signals of a run (complete or partial)."""
    b = BENCHMARKS[bench]
    kind = deck_orientation(deck)
    t = read_times(prefix)
    mov = {k: [Node(r, kind) for r in rows]
           for k, rows in read_records(prefix + ".mov", b["nodes"]).items()}
    act = read_records(prefix + ".act", b["act"])
    sig = b["signals"](t, mov, act)
    n = min(len(v) for v in sig.values()) if sig else 0
    return t[:n], {k: v[:n] for k, v in sig.items()}


def save_signals(path, t, sig):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["time"] + list(sig))
        for i, ti in enumerate(t):
            w.writerow([repr(ti)] + [repr(sig[k][i]) for k in sig])


def load_signals(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    names = rows[0][1:]
    t = [float(r[0]) for r in rows[1:]]
    sig = {k: [float(r[j + 1]) for r in rows[1:]] for j, k in enumerate(names)}
    return t, sig


# --------------------------------------------------------------------------------------------
def run(mbstep, deck, method, h, prefix, extra=(), nice=True):
    """One `mbstep run`; returns completed, message, steps, iterations, wall, cpu."""
    cmd = ([] if not nice else ["nice", "-n", "10"]) + [
        mbstep, "run", os.path.basename(deck), "--method", method, "--time-step", repr(h),
        "-o", prefix, "--quiet"] + list(extra)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=os.path.dirname(os.path.abspath(deck)), capture_output=True,
                       text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = (p.stdout + p.stderr).strip()
    res = dict(completed=p.returncode == 0, message="", steps=0, iterations=0, wall=wall,
               cpu=cpu, final_time=float("nan"))
    m = re.search(r"(completed|stopped) at t = (\S+) after (\d+) steps.*?; (\d+) Newton "
                  r"iterations", text, re.S)
    if m:
        res.update(final_time=float(m.group(2)), steps=int(m.group(3)),
                   iterations=int(m.group(4)))
    if p.returncode != 0:
        lines = [ln for ln in text.splitlines() if ln.strip() and "%]" not in ln]
        res["message"] = lines[-1] if lines else f"exit status {p.returncode}"
        if not m and os.path.exists(prefix + ".out"):  # steps and iterations from the .out
            rows = [ln.split() for ln in open(prefix + ".out") if ln.startswith("Step")]
            res["steps"] = max(len(rows) - 1, 0)
            res["iterations"] = sum(int(r[4]) for r in rows[1:])
            res["final_time"] = float(rows[-1][2]) if rows else float("nan")
    return res


def cleanup(prefix):
    for ext in ("mov", "out", "log", "csv", "jnt", "act"):
        path = f"{prefix}.{ext}"
        if os.path.exists(path):
            os.remove(path)


SWEEP_FIELDS = ["deck", "method", "keyword", "rho_inf", "group", "stages", "h", "completed",
                "final_time", "steps", "iterations", "iterations_per_step",
                "iterations_per_stage", "wall_s", "cpu_s", "signals"]


def hf_rms(t, sig, b):
    """High-frequency content of the benchmark's `noise` signal: the RMS over the window of the
    signal minus its centred moving average over `width` seconds (None for a run that did not
    reach the window's end)."""
    name, width = b["noise"]
    lo, hi = b["window"]
    if not t or t[-1] < hi - 1e-9:
        return None
    x = sig[name]
    acc, n = 0.0, 0
    j0 = j1 = 0
    total = 0.0
    for i, ti in enumerate(t):
        while j1 < len(t) and t[j1] <= ti + width / 2:
            total += x[j1]
            j1 += 1
        while t[j0] < ti - width / 2:
            total -= x[j0]
            j0 += 1
        if lo <= ti <= hi and ti - width / 2 >= t[0] and ti + width / 2 <= t[-1]:
            acc += (x[i] - total / (j1 - j0)) ** 2
            n += 1
    return math.sqrt(acc / n) if n else None


def deck_label(deck):
    """The deck's path relative to the repository when inside it, else its file name."""
    rel = os.path.relpath(deck, REPO)
    return os.path.basename(deck) if rel.startswith("..") else rel


def cmd_sweep(a):
    deck = os.path.abspath(a.deck)
    bench = detect_benchmark(deck, a.benchmark)
    b = BENCHMARKS[bench]
    reg = registry(a.mbstep)
    base = a.base_step or b["base_step"]
    os.makedirs(a.scratch, exist_ok=True)
    methods = paper_methods()
    if a.methods:
        wanted = {x.lower() for x in a.methods}
        methods = [m for m in methods if run_tag(m) in wanted or m["keyword"].lower() in wanted]
    rows = []
    for m in methods:
        stages = reg.get(m["keyword"].lower(), {}).get("stages", 1)
        h = stages * base
        tag = run_tag(m)
        prefix = os.path.join(a.scratch, tag)
        print(f"{method_name(m):28s} h = {h:g} ...", end=" ", flush=True)
        r = run(a.mbstep, deck, method_arg(m), h, prefix)
        t, sig = extract(prefix, deck, bench)
        sig_path = prefix + "-signals.csv"
        save_signals(sig_path, t, sig)
        if not a.keep:
            cleanup(prefix)
        status = "completed" if r["completed"] else r["message"]
        print(f"{status[:70]} ({r['wall']:.1f} s)")
        rows.append(dict(
            deck=deck_label(deck), method=method_name(m), keyword=m["keyword"],
            rho_inf="" if m["rho"] is None else f"{m['rho']:g}", group=m["group"],
            stages=stages, h=f"{h:g}", completed="yes" if r["completed"] else r["message"],
            final_time=f"{r['final_time']:.6g}", steps=r["steps"], iterations=r["iterations"],
            iterations_per_step=f"{r['iterations'] / max(r['steps'], 1):.3f}",
            iterations_per_stage=f"{r['iterations'] / max(r['steps'] * stages, 1):.3f}",
            wall_s=f"{r['wall']:.2f}", cpu_s=f"{r['cpu']:.2f}",
            signals=os.path.basename(sig_path)))
    with open(os.path.join(a.scratch, "sweep.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=SWEEP_FIELDS)
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {os.path.join(a.scratch, 'sweep.csv')}")
    finish_sweep(a, bench, rows)


def late_rms(t, sig, b):
    """RMS of the benchmark's `late` signal over its interval (None for a run that did not
    reach the interval's end): how much of the free vibration a method keeps."""
    name, lo, hi = b["late"]
    if not t or t[-1] < hi - 1e-9:
        return None
    x = [v for ti, v in zip(t, sig[name]) if lo - 1e-9 <= ti <= hi + 1e-9]
    return math.sqrt(sum(v * v for v in x) / len(x))


def finish_sweep(a, bench, rows):
    b = BENCHMARKS[bench]
    for r in rows:  # the metrics of the table, from the saved signals
        t, sig = load_signals(os.path.join(a.scratch, r["signals"]))
        for key, fn in (("noise", hf_rms), ("late", late_rms)):
            if key in b:
                v = fn(t, sig, b)
                r[key] = "-" if v is None else f"{v:.3g}"
    figs = []
    if a.figures:
        figs = plot_sweep(a, bench, rows)
    table = sweep_markdown(rows, bench, a, figs)
    with open(os.path.join(a.scratch, "sweep.md"), "w") as f:
        f.write(table)
    if a.readme:
        replace_block(a.readme, a.block, table)
    else:
        print(table)


def sweep_markdown(rows, bench, a, figs):
    b = BENCHMARKS[bench]
    extra = [k for k in ("noise", "late") if k in b]
    head = ("| method | rho_inf | h | completed | steps | Newton it./step | it./stage | "
            "wall (s) | CPU (s) |")
    if "noise" in b:
        head += f" HF rms of {b['noise'][0]} |"
    if "late" in b:
        head += f" rms of {b['late'][0]} on [{b['late'][1]:g}, {b['late'][2]:g}] s |"
    lines = [head, "|---" * head.count(" | ") + "|---|"]
    for r in rows:
        done = r["completed"] if r["completed"] == "yes" else (
            f"**no**: {r['completed']}".replace("|", "/"))
        line = (f"| {r['method'].split(' (')[0]} | {r['rho_inf'] or '-'} | {r['h']} | "
                f"{done} | {r['steps']} | {r['iterations_per_step']} | "
                f"{r['iterations_per_stage']} | {r['wall_s']} | {r['cpu_s']} |")
        for k in extra:
            line += f" {r.get(k, '-')} |"
        lines.append(line)
    out = "\n".join(lines) + "\n"
    if figs:
        out += "\n" + "\n".join(f"![{name}]({os.path.basename(path)})" for name, path in figs)
        out += "\n"
    return out


def replace_block(path, name, text):
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    with open(path) as f:
        content = f.read()
    if begin not in content or end not in content:
        sys.exit(f"sweep.py: {path} has no {begin} ... {end} block")
    head, rest = content.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + text + end + tail)
    print(f"updated {path} ({name})")


# --------------------------------------------------------------------------------------------
STYLES = ["-", "--", "-.", ":"]


def plt_module():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_png(fig, path, dpi):
    """PNG with an adaptive 256-colour palette (a quarter of the RGBA file's size)."""
    fig.savefig(path, dpi=dpi)
    try:
        from PIL import Image
        im = Image.open(path).convert("RGB")
        im.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    except Exception:  # noqa: BLE001 - keep the matplotlib file when Pillow is missing
        pass


def plot_sweep(a, bench, rows):
    plt = plt_module()
    b = BENCHMARKS[bench]
    lo, hi = b["window"]
    data = {}
    for r in rows:
        t, sig = load_signals(os.path.join(a.scratch, r["signals"]))
        keep = [i for i, ti in enumerate(t) if lo - 1e-9 <= ti <= hi + 1e-9]
        data[r["method"] + r["rho_inf"]] = (r, [t[i] for i in keep],
                                            {k: [v[i] for i in keep] for k, v in sig.items()})
    os.makedirs(a.figures, exist_ok=True)
    figs = []
    jobs = [(name, lo, hi, "") for name in b["units"]]
    if "zoom" in b:
        jobs += [(b["noise"][0], b["zoom"][0], b["zoom"][1], "-zoom")]
    for name, lo, hi, suffix in jobs:
        fig, axes = plt.subplots(3, 1, figsize=(9, 9.6), sharex=True)
        for g, ax in enumerate(axes):
            k = 0
            for key, (r, t, sig) in data.items():
                if int(r["group"]) != g or name not in sig:
                    continue
                label = r["method"].split(" (")[0]
                if r["completed"] != "yes":
                    label += f" (failed at t = {float(r['final_time']):.4g})"
                keep = [i for i, ti in enumerate(t) if lo - 1e-9 <= ti <= hi + 1e-9]
                ax.plot([t[i] for i in keep], [sig[name][i] for i in keep],
                        STYLES[k // 10 % 4] if k < 6 else "--", color=f"C{k % 10}", lw=0.8,
                        label=label)
                k += 1
            ax.set_title(f"({'abc'[g]}) {GROUPS[g]}", fontsize=10)
            ax.set_ylabel(b["units"][name], fontsize=9)
            ax.grid(True, lw=0.3)
            ax.tick_params(labelsize=8)
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        axes[-1].set_xlabel("time (s)", fontsize=9)
        axes[-1].set_xlim(lo, hi)
        fig.suptitle(f"{bench}: {b['units'][name]}, Delta t/n = "
                     f"{a.base_step or b['base_step']:g} s", fontsize=10)
        fig.tight_layout()
        path = os.path.join(a.figures, f"{a.prefix}{name}{suffix}.png")
        save_png(fig, path, a.dpi)
        plt.close(fig)
        figs.append((name + suffix, path))
        print(f"wrote {path} ({os.path.getsize(path) // 1024} kB)")
    return figs


def cmd_plot(a):
    with open(os.path.join(a.scratch, "sweep.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    bench = a.benchmark or detect_benchmark(rows[0]["deck"], None)
    finish_sweep(a, bench, rows)


# --------------------------------------------------------------------------------------------
def cmd_compare(a):
    decks = [os.path.abspath(a.deck_a), os.path.abspath(a.deck_b)]
    bench = detect_benchmark(decks[0], a.benchmark)
    b = BENCHMARKS[bench]
    os.makedirs(a.scratch, exist_ok=True)
    res = []
    for k, deck in enumerate(decks):
        prefix = os.path.join(a.scratch, f"compare{k}")
        r = run(a.mbstep, deck, a.method, a.time_step, prefix)
        t, sig = extract(prefix, deck, bench)
        if not a.keep:
            cleanup(prefix)
        print(f"{deck}: {'completed' if r['completed'] else r['message']}, {r['steps']} steps, "
              f"{r['iterations'] / max(r['steps'], 1):.2f} it./step, {r['wall']:.1f} s")
        res.append((t, sig))
    (ta, sa), (tb, sb) = res
    lo, hi = b["window"]
    n = min(len(ta), len(tb))
    dt = max(abs(ta[i] - tb[i]) for i in range(n))
    idx = [i for i in range(n) if lo - 1e-9 <= ta[i] <= hi + 1e-9]
    print(f"\n{n} common records, largest time difference {dt:.3g} s; window [{lo:g}, {hi:g}] s")
    print("| signal | max abs (A) | max abs (B) | max abs(A - B) | relative | rms(A - B)/rms(A) |")
    print("|---|---|---|---|---|---|")
    for k in sa:
        xa = [sa[k][i] for i in idx]
        xb = [sb[k][i] for i in idx]
        d = [x - y for x, y in zip(xa, xb)]
        mx = max(abs(x) for x in xa)
        rms = math.sqrt(sum(x * x for x in d) / len(d)) / max(
            math.sqrt(sum(x * x for x in xa) / len(xa)), 1e-300)
        md = max(abs(x) for x in d)
        print(f"| {k} | {mx:.4g} | {max(abs(x) for x in xb):.4g} | {md:.3g} | "
              f"{md / max(mx, 1e-300):.2e} | {rms:.2e} |")


# --------------------------------------------------------------------------------------------
# Convergence (Figs. 25-27).
def prepare_convergence_deck(deck, scratch, tag):
    """A copy of the deck in SCRATCH writing only node 16's records (includes made absolute)."""
    with open(deck) as f:
        text = f.read()
    here = os.path.dirname(deck)
    text = re.sub(r'(include\s*:\s*")([^"]+)(")',
                  lambda m: m.group(1) + os.path.join(here, m.group(2)) + m.group(3), text)
    text, n = re.subn(r"(begin:\s*control data\s*;)", r"\1\n    default output: none;", text,
                      count=1)
    text, m = re.subn(r"(structural:\s*16\s*,[^;]*?)\s*;", r"\1, output, yes;", text, count=1)
    if not (n and m):
        sys.exit("sweep.py: cannot find the control data block or node 16 in " + deck)
    path = os.path.join(scratch, f"conv-{tag}.mbd")
    with open(path, "w") as f:
        f.write(text)
    return path


# Sixth-order central difference: dy/dt(t_i) = sum_k c_k y(t_i + k h)/h + O(h^6).
STENCIL = {-3: -1 / 60, -2: 3 / 20, -1: -3 / 4, 1: 3 / 4, 2: -3 / 20, 3: 1 / 60}


def index_of(t, when, tol=1e-9):
    i = min(range(len(t)), key=lambda j: abs(t[j] - when))
    return i if abs(t[i] - when) <= tol else None


def stencil(t, y, when, h):
    """The difference above at `when` over the records of t spaced h apart (None if missing)."""
    acc = 0.0
    for k, c in STENCIL.items():
        i = index_of(t, when + k * h)
        if i is None:
            return None
        acc += c * y[i]
    return acc / h


def fit_slope(hs, es):
    pts = [(math.log(h), math.log(e)) for h, e in zip(hs, es) if e > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


# The methods of Figs. 25-27: the second-order ones at both rho_inf and the higher-order ones.
CONV_METHODS = [f"{k}, {r:g}" for r in (0.0, 0.6) for _, k in SECOND_ORDER] + [
    k if r is None else f"{k}, {r:g}" for _, k, r in HIGHER_ORDER]


def parse_method(text):
    parts = [p.strip() for p in text.split(",")]
    kw = parts[0]
    rho = float(parts[1]) if len(parts) > 1 else None
    label = {k.lower(): l for l, k in SECOND_ORDER}.get(kw.lower())
    if label is None:
        label = {k.lower(): l for l, k, _ in HIGHER_ORDER}.get(kw.lower(), kw)
    return dict(label=label, keyword=kw, rho=rho, group=0)


def cmd_convergence(a):
    """Delta t/n = span/(N0 2^k), k < levels (span = at - initial time): every method's step
    h = n Delta t/n lands on `at` exactly when N0 is a multiple of every stage count n (840 and
    1680 are multiples of 1..8). The reference takes h_ref = (finest Delta t/n)/2^j, which
    divides every method's h, so its records hold v3 at t = at + k h for every method's
    difference formula."""
    deck = os.path.abspath(a.deck)
    if detect_benchmark(deck, a.benchmark) != "rotating-shaft":
        sys.exit("sweep.py: convergence is defined for the rotating shaft")
    reg = registry(a.mbstep)
    os.makedirs(a.scratch, exist_ok=True)
    span = a.at - a.initial_time
    extra = ["--tolerance", repr(a.tolerance), "--final-time"]

    def one(m, nsteps, past=None):
        """A run of nsteps to `at`, continued by `past` (default 3.5 h) for the differences."""
        h = span / nsteps
        tag = run_tag(m, h)
        prefix = os.path.join(a.scratch, "conv-" + tag)
        sig_path = prefix + "-signals.csv"
        if os.path.exists(sig_path) and not a.rerun:
            with open(prefix + "-run.txt") as f:
                r = eval(f.read())  # noqa: S307 - our own repr of a dict of numbers/strings
        else:
            cdeck = prepare_convergence_deck(deck, a.scratch, tag)
            try:  # three records past `at` for the difference formula
                r = run(a.mbstep, cdeck, method_arg(m), h, prefix,
                        extra + [repr(a.at + (past or 3.5 * h))])
            finally:
                os.remove(cdeck)
            t, sig = extract(prefix, deck, "rotating-shaft")
            save_signals(sig_path, t, sig)
            with open(prefix + "-run.txt", "w") as f:
                f.write(repr(r))
            cleanup(prefix)
        print(f"  {method_name(m):24s} h = {h:.6g} ({nsteps} steps): "
              f"{'completed' if r['completed'] else r['message'][:60]}, {r['cpu']:.1f} s CPU",
              flush=True)
        return dict(h=h, run=r, signals=sig_path)

    n0 = a.substeps
    ref_m = parse_method(a.reference)
    ref_steps = n0 * 2 ** (a.levels - 1 + a.reference_factor)
    methods = [parse_method(m) for m in a.methods]
    # the reference runs past `at` by the largest difference stencil of all runs
    h_max = max(reg.get(m["keyword"].lower(), {}).get("stages", 1) for m in methods) * span / n0
    print(f"reference {method_name(ref_m)}: {ref_steps} steps and {ref_steps // 2} steps")
    ref = one(ref_m, ref_steps, 3.5 * max(h_max, 2 * span / ref_steps))
    check = one(ref_m, ref_steps // 2)
    results = {}
    for m in methods:
        stages = reg.get(m["keyword"].lower(), {}).get("stages", 1)
        if n0 % stages:
            sys.exit(f"sweep.py: --substeps {n0} is not a multiple of {stages} stages")
        res = []
        for k in range(a.levels):
            r = one(m, n0 * 2 ** k // stages)
            r.update(dtn=span / (n0 * 2 ** k), stages=stages)
            res.append(r)
        results[method_name(m)] = res
    write_convergence(a, reg, methods, results, ref, check, ref_m)


def conv_errors(a, ref_t, ref_sig, scale, r):
    """Errors of u3, v3, a3 at t = at divided by the reference's largest |value| on [0, at];
    a3 as the difference formula of v3 over the run's own h, minus the same formula over the
    reference's records (its truncation error cancels)."""
    if not r["run"]["completed"]:
        return None
    t, sig = load_signals(r["signals"])
    i, j = index_of(t, a.at), index_of(ref_t, a.at)
    if i is None or j is None:
        return None
    d_num = stencil(t, sig["v3"], a.at, r["h"])
    d_ref = stencil(ref_t, ref_sig["v3"], a.at, r["h"])
    if d_num is None or d_ref is None:
        return None
    return dict(u3=abs(sig["u3"][i] - ref_sig["u3"][j]) / scale["u3"],
                v3=abs(sig["v3"][i] - ref_sig["v3"][j]) / scale["v3"],
                a3=abs(d_num - d_ref) / scale["a3"])


def re_errors(a, ref_t, ref_sig, r):
    """The relative errors RE(x) = sqrt(sum_j (x(t_j) - x_j)^2 / sum_j x(t_j)^2) of Zhang et
    al.'s eq. (26) over the run's records t_j in [0, at], the reference standing for the exact
    x(t_j); a3 by the difference formula over the run's step for both, as in conv_errors."""
    if not r["run"]["completed"]:
        return None
    t, sig = load_signals(r["signals"])
    h_ref = ref_t[1] - ref_t[0]
    h = r["h"]
    num = {k: 0.0 for k in ("u3", "v3", "a3")}
    den = dict(num)
    for i, ti in enumerate(t):
        if ti < -1e-9 or ti > a.at + 1e-9 or i < 3 or i + 3 >= len(t):
            continue
        j = round((ti - ref_t[0]) / h_ref)
        m = round(h / h_ref)
        if j - 3 * m < 0 or j + 3 * m >= len(ref_t) or abs(ref_t[j] - ti) > 1e-9:
            return None
        for k in ("u3", "v3"):
            num[k] += (sig[k][i] - ref_sig[k][j]) ** 2
            den[k] += ref_sig[k][j] ** 2
        d_num = sum(c * sig["v3"][i + k] for k, c in STENCIL.items()) / h
        d_ref = sum(c * ref_sig["v3"][j + k * m] for k, c in STENCIL.items()) / h
        num["a3"] += (d_num - d_ref) ** 2
        den["a3"] += d_ref ** 2
    return {k: math.sqrt(num[k] / den[k]) for k in num}


def write_convergence(a, reg, methods, results, ref, check, ref_m):
    q = ("u3", "v3", "a3")
    ref_t, ref_sig = load_signals(ref["signals"])
    win = [i for i, ti in enumerate(ref_t) if 0.0 <= ti <= a.at + 1e-9]
    scale = {k: max(abs(ref_sig[k][i]) for i in win) for k in q}
    j = index_of(ref_t, a.at)
    ref_val = {k: ref_sig[k][j] for k in q}
    chk = conv_errors(a, ref_t, ref_sig, scale, dict(check, h=check["h"]))
    rows = []
    for m in methods:
        name = method_name(m)
        order = reg.get(m["keyword"].lower(), {}).get("order")
        res = results[name]
        for r in res:
            r["err"] = conv_errors(a, ref_t, ref_sig, scale, r)
            r["re"] = re_errors(a, ref_t, ref_sig, r)
        ok = [r for r in res if r["err"]]
        row = dict(method=name, keyword=m["keyword"],
                   rho_inf="" if m["rho"] is None else f"{m['rho']:g}", declared_order=order,
                   stages=res[0]["stages"], dtn=" ".join(f"{r['dtn']:.4g}" for r in res))
        for k in q:
            hs = [r["dtn"] for r in ok]
            es = [r["err"][k] for r in ok]
            row[f"slope_{k}"] = f"{fit_slope(hs, es):.2f}"
            row[f"last_slope_{k}"] = (f"{math.log(es[-2] / es[-1]) / math.log(2):.2f}"
                                      if len(es) > 1 and es[-1] > 0 else "nan")
            row[f"errors_{k}"] = " ".join(f"{e:.3e}" for e in es)
            res_re = [r for r in ok if r["re"]]
            row[f"re_slope_{k}"] = f"{fit_slope([r['dtn'] for r in res_re], [r['re'][k] for r in res_re]):.2f}"
            row[f"re_{k}"] = " ".join(f"{r['re'][k]:.3e}" for r in res_re)
        row["iterations_per_stage"] = " ".join(
            f"{r['run']['iterations'] / max(r['run']['steps'] * r['stages'], 1):.2f}" for r in res)
        row["cpu_s"] = f"{sum(r['run']['cpu'] for r in res):.1f}"
        row["failed"] = " ".join(f"{r['dtn']:.4g}: {r['run']['message']}" for r in res
                                 if not r["err"])
        rows.append(row)
    path = os.path.join(a.scratch, "convergence.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {path}")
    md = ["| method | order | slopes at t = 2.5 s: u3 / v3 / a3 | last halving | error at the "
          "finest step: u3, v3, a3 | slopes of RE (eq. 26): u3 / v3 / a3 | CPU (s) |",
          "|---|---|---|---|---|---|---|"]
    for r in rows:
        fin = ", ".join(r[f"errors_{k}"].split()[-1] if r[f"errors_{k}"] else "-" for k in q)
        fail = f" (failed at Delta t/n = {r['failed']})".replace("|", "/") if r["failed"] else ""
        md.append(f"| {r['method']}{fail} | {r['declared_order']} | {r['slope_u3']} / "
                  f"{r['slope_v3']} / {r['slope_a3']} | {r['last_slope_u3']} / "
                  f"{r['last_slope_v3']} / {r['last_slope_a3']} | {fin} | {r['re_slope_u3']} / "
                  f"{r['re_slope_v3']} / {r['re_slope_a3']} | {r['cpu_s']} |")
    text = "\n".join(md) + "\n"
    text += (f"\nDelta t/n = {rows[0]['dtn'].replace(' ', ', ')} s. Reference: "
             f"{method_name(ref_m)} with h = {ref['h']:.4g} s (u3 = {ref_val['u3']:.10g} m, "
             f"v3 = {ref_val['v3']:.10g} m/s at t = {a.at:g} s); errors are divided by the "
             f"reference's largest |u3|, |v3|, |a3| on [0, {a.at:g}] s ({scale['u3']:.4g} m, "
             f"{scale['v3']:.4g} m/s, {scale['a3']:.4g} m/s^2). The same errors of the "
             f"reference's run at twice its step: {chk['u3']:.1e}, {chk['v3']:.1e}, "
             f"{chk['a3']:.1e}. Newton tolerance {a.tolerance:g}.\n")
    if a.figures:
        path = plot_convergence(a, methods, results, chk, "err", "convergence.png",
                                f"error at t = {a.at:g} s / max |reference|")
        path_re = plot_convergence(a, methods, results, None, "re", "convergence-re.png",
                                   "RE, eq. (26), on [0, 2.5] s")
        text += (f"\n![convergence]({os.path.basename(path)})\n"
                 f"\n![convergence, RE]({os.path.basename(path_re)})\n")
    with open(os.path.join(a.scratch, "convergence.md"), "w") as f:
        f.write(text)
    if a.readme:
        replace_block(a.readme, "convergence", text)
    else:
        print(text)


MARKERS = ["o", "s", "^", "v", "D", "<", ">", "p", "h", "*", "X", "P"]


def plot_convergence(a, methods, results, chk, key, name, ylabel):
    plt = plt_module()
    fig, axes = plt.subplots(2, 3, figsize=(13, 8.6), sharex=True)
    for j, k in enumerate(("u3", "v3", "a3")):
        for row in range(2):
            ax = axes[row][j]
            i = 0
            for m in methods:
                second = m["keyword"].lower() in {kw.lower() for _, kw in SECOND_ORDER}
                if second != (row == 0):
                    continue
                res = [r for r in results[method_name(m)] if r[key]]
                hs = [r["dtn"] for r in res]
                es = [r[key][k] for r in res]
                ax.loglog(hs, es, STYLES[i // 10 % 4] + MARKERS[i % len(MARKERS)],
                          color=f"C{i % 10}", ms=4, lw=0.9,
                          label=f"{method_name(m)}: {fit_slope(hs, es):.2f}")
                i += 1
            if chk:
                ax.axhline(chk[k], color="k", lw=0.6, ls=":", label="reference at 2 h_ref")
            ax.set_title(f"({'ab'[row]}) {'second' if row == 0 else 'higher'}-order methods: "
                         f"{k}", fontsize=9)
            ax.grid(True, which="both", lw=0.3)
            ax.tick_params(labelsize=8)
            ax.legend(fontsize=6, title="slope", title_fontsize=6.5, ncol=2)
            ticks = sorted({r["dtn"] for res in results.values() for r in res})
            ax.set_xticks(ticks, [f"{x:.3g}" for x in ticks], minor=False)
            ax.set_xticks([], minor=True)
            if row == 1:
                ax.set_xlabel("Delta t / n (s)", fontsize=9)
            if j == 0:
                ax.set_ylabel(ylabel, fontsize=9)
    fig.suptitle("rotating shaft: convergence at mid-span (cf. Figs. 25-27)", fontsize=10)
    fig.tight_layout()
    os.makedirs(a.figures, exist_ok=True)
    path = os.path.join(a.figures, name)
    save_png(fig, path, a.dpi)
    plt.close(fig)
    print(f"wrote {path} ({os.path.getsize(path) // 1024} kB)")
    return path


# --------------------------------------------------------------------------------------------
def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[1:]))
    p.add_argument("--mbstep", default=DEFAULT_MBSTEP)
    p.add_argument("--scratch", default=os.path.join(REPO, "build", "flexible-sweep"),
                   help="folder of the runs' output (default build/flexible-sweep)")
    p.add_argument("--benchmark", choices=sorted(BENCHMARKS))
    p.add_argument("--keep", action="store_true", help="keep the runs' output files")
    p.add_argument("--dpi", type=int, default=72)
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("sweep")
    s.add_argument("deck")
    s.add_argument("--base-step", type=float, help="Delta t/n (s); h = stages x this")
    s.add_argument("--methods", nargs="*", help="subset: keywords or tags like ms3_rho0.6")
    s.add_argument("--figures", help="folder of the PNGs")
    s.add_argument("--prefix", default="", help="PNG file name prefix")
    s.add_argument("--readme", help="README whose sweep block to replace")
    s.add_argument("--block", default="sweep", help="name of the README block (sweep)")

    s = sub.add_parser("plot")
    s.add_argument("--base-step", type=float)
    s.add_argument("--figures", help="folder of the PNGs")
    s.add_argument("--prefix", default="")
    s.add_argument("--readme")
    s.add_argument("--block", default="sweep")

    s = sub.add_parser("compare")
    s.add_argument("deck_a")
    s.add_argument("deck_b")
    s.add_argument("--method", required=True)
    s.add_argument("--time-step", type=float, required=True)

    s = sub.add_parser("convergence")
    s.add_argument("deck")
    s.add_argument("--methods", nargs="*", default=CONV_METHODS)
    s.add_argument("--at", type=float, default=2.5, help="time of the comparison (s)")
    s.add_argument("--initial-time", type=float, default=-1.0, help="the deck's initial time")
    s.add_argument("--substeps", type=int, default=1680,
                   help="implicit stages over the run at the coarsest level (a multiple of "
                        "every method's stage count)")
    s.add_argument("--levels", type=int, default=4, help="number of halvings")
    s.add_argument("--reference", default="DIRK54")
    s.add_argument("--reference-factor", type=int, default=1,
                   help="the reference's step is the finest Delta t/n / 2^this")
    s.add_argument("--tolerance", type=float, default=5e-5,
                   help="Newton residual tolerance (the force residual's round-off floor is "
                        "about 1e-5 N on this model)")
    s.add_argument("--rerun", action="store_true", help="ignore saved runs in SCRATCH")
    s.add_argument("--figures")
    s.add_argument("--readme")

    a = p.parse_args()
    a.mbstep = os.path.abspath(a.mbstep)
    a.scratch = os.path.abspath(a.scratch)
    {"sweep": cmd_sweep, "plot": cmd_plot, "compare": cmd_compare,
     "convergence": cmd_convergence}[a.cmd](a)


if __name__ == "__main__":
    main()
