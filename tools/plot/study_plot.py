#!/usr/bin/python3
"""Plots of a study written by `mbstep study convergence|work-precision ... --output PREFIX`.

Two figures in the style of the convergence and work-precision diagrams of the Lie group paper
(Figs. 3, 5, 11, 13 of `lie-group-vs-classical-formulations`) and of the half-implicit paper
(Fig. 2): PREFIX-error.png, the error at the final time against h on log-log axes, one line per
method and formulation, the least-squares slope in the legend and a dotted triangle of each
declared order; PREFIX-work.png, the error against the work of each run (log-log): its CPU
time (the minimum over `mbstep study --repeat N` runs), its Newton iterations or its
factorizations (--work). The y axis names the quantity and the norm of the CSV's `quantity`.

Usage:
    mbstep study convergence deck.mbd --methods "ms, 0.6" "implicit euler" --steps ... -o out/s
    tools/plot/study_plot.py out/s.csv [--output out/s] [--kind convergence] [--title TEXT]
        [--work cpu_seconds|newton_iterations|factorizations]
The slopes are read from PREFIX-slopes.csv when present (else fitted here the same way).
Needs only Debian's python3-matplotlib (tools/ci/install-deps.sh), hence /usr/bin/python3.
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = ["o", "s", "^", "v", "D", "<", ">", "p", "h", "*"]

# The y label of each --error quantity: what is measured, with its norm and unit.
QUANTITY_LABELS = {
    "position": r"$\max_{nodes} \|x - x_{ref}\|_2$ (m)",
    "velocity": r"$\max_{nodes} \|v - v_{ref}\|_2$ (m/s)",
    "orientation": r"$\max_{nodes} \angle(R^T R_{ref})$ (rad)",
    "angular-velocity": r"$\max_{nodes} \|\omega - \omega_{ref}\|_2$ (rad/s)",
}

WORK_LABELS = {
    "cpu_seconds": "CPU time per run (s)",
    "newton_iterations": "Newton iterations per run",
    "factorizations": "factorizations per run",
}


def error_label(rows):
    """The y label: 'error at the final time: <quantity, norm>' (max over several)."""
    names = rows[0].get("quantity", "position").split("+") if rows else ["position"]
    parts = [QUANTITY_LABELS.get(n, n) for n in names]
    head = "error at the final time"
    return head + ("\n" if len(parts) > 1 else ": ") + (
        parts[0] if len(parts) == 1 else "max of " + ", ".join(parts))


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fit(hs, es):
    if len(hs) < 2:
        return float("nan")
    x = [math.log(h) for h in hs]
    y = [math.log(e) for e in es]
    n = len(x)
    sx, sy = sum(x), sum(y)
    sxx = sum(a * a for a in x)
    sxy = sum(a * b for a, b in zip(x, y))
    den = n * sxx - sx * sx
    return (n * sxy - sx * sy) / den if den > 0 else float("nan")


def series_of(rows, slopes, work="cpu_seconds"):
    """{(method, formulation): dict(h, error, work, slope, order)} in the CSV's order."""
    out = {}
    for r in rows:
        key = (r["method"], r["formulation"])
        s = out.setdefault(key, {"h": [], "error": [], "work": []})
        if r["status"] != "ok" or not r["error"] or float(r["error"]) <= 0.0:
            continue
        s["h"].append(float(r["h"]))
        s["error"].append(float(r["error"]))
        s["work"].append(float(r[work]) if r.get(work) else 0.0)
    for key, s in out.items():
        known = slopes.get(key)
        s["slope"] = known[0] if known and known[0] is not None else fit(s["h"], s["error"])
        s["order"] = known[1] if known else None
    return out


def read_slopes(path):
    slopes = {}
    if not os.path.exists(path):
        return slopes
    for r in read_rows(path):
        slope = float(r["fitted_slope"]) if r["fitted_slope"] else None
        order = int(r["declared_order"]) if r["declared_order"] else None
        slopes[(r["method"], r["formulation"])] = (slope, order)
    return slopes


def label_of(key, formulations):
    method, formulation = key
    return method if len(formulations) == 1 else "%s @ %s" % (method, formulation)


def plot_error(series, title, ylabel, path):
    fig, ax = plt.subplots(figsize=(6.0, 4.6))
    formulations = {k[1] for k in series}
    for i, (key, s) in enumerate(series.items()):
        if not s["h"]:
            continue
        slope = s["slope"]
        label = label_of(key, formulations)
        label += " (slope %.2f)" % slope if math.isfinite(slope) else ""
        line, = ax.loglog(s["h"], s["error"], "-" + MARKERS[i % len(MARKERS)], label=label,
                          linewidth=1.3, markersize=5)
        if s["order"] and len(s["h"]) >= 2:  # a triangle of the declared order below the line
            h1, h0 = min(s["h"]), max(s["h"])
            e1 = min(s["error"]) * 0.5
            hm = math.sqrt(h0 * h1)
            em = e1 * (hm / h1) ** s["order"]
            ax.loglog([h1, hm, hm, h1], [e1, e1, em, e1], ":", color=line.get_color(),
                      linewidth=0.9)
            ax.annotate(str(s["order"]), (hm, math.sqrt(e1 * em)), fontsize=7,
                        color=line.get_color(), xytext=(3, 0), textcoords="offset points")
    ax.set_xlabel(r"step size $h$ (s)")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "convergence")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_work(series, title, ylabel, work, path):
    fig, ax = plt.subplots(figsize=(6.0, 4.6))
    formulations = {k[1] for k in series}
    for i, (key, s) in enumerate(series.items()):
        pts = [(c, e) for c, e in zip(s["work"], s["error"]) if c > 0]
        if not pts:
            continue
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "-" + MARKERS[i % len(MARKERS)],
                  label=label_of(key, formulations), linewidth=1.3, markersize=5)
    ax.set_xlabel(WORK_LABELS[work])
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or "work-precision")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv", help="PREFIX.csv written by mbstep study --output PREFIX")
    p.add_argument("--output", "-o", help="PNG prefix (default: the CSV's PREFIX)")
    p.add_argument("--kind", default="convergence", choices=["convergence", "work-precision"],
                   help="the study's kind (only the titles differ; both figures are drawn)")
    p.add_argument("--title", default="", help="figure title prefix")
    p.add_argument("--work", default="cpu_seconds", choices=sorted(WORK_LABELS),
                   help="x axis of the work figure (a column of the CSV)")
    a = p.parse_args(argv)
    prefix = a.output or os.path.splitext(a.csv)[0]
    rows = read_rows(a.csv)
    if not rows:
        sys.exit("study_plot.py: no runs in " + a.csv)
    slopes = read_slopes(os.path.splitext(a.csv)[0] + "-slopes.csv")
    series = series_of(rows, slopes, a.work)
    title = a.title + ": " if a.title else ""
    ylabel = error_label(rows)
    plot_error(series, title + "error vs step size", ylabel, prefix + "-error.png")
    print(prefix + "-error.png")
    plot_work(series, title + "error vs " + WORK_LABELS[a.work].split(" per ")[0], ylabel,
              a.work, prefix + "-work.png")
    print(prefix + "-work.png")


if __name__ == "__main__":
    main(sys.argv[1:])
