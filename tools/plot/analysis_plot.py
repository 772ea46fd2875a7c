#!/usr/bin/python3
"""Plots of the linear analysis written by `mbstep analyze ... --output PREFIX`.

Reproduces the layout of Figures 2-7 of Zhang, Masarati et al. (multistep, single-step and
multistage methods in MBDyn, section 4): one PNG per quantity -- percentage amplitude decay
AD(%) (100 x the numerical damping ratio), percentage period elongation PE(%) (the relative
period error) and the spectral radius -- against h/(nT) on a log axis (n = implicit stages per
step, so that methods compare at equal cost; n = 1 for the second-order and explicit methods),
several methods overlaid: first-order, explicit Runge-Kutta and second-order (Newmark family)
alike. Tunable methods get one panel per rho_inf value; methods without rho_inf appear in every
panel (Figures 5-7 put the L-stable ESDIRKs next to MSSTH at rho_inf = 0).

Usage:
    mbstep analyze ms2 ms3 ms4 Bathe "generalized alpha" --rho 0,0.6 -o out/tunable --no-plot
    tools/plot/analysis_plot.py out/tunable-index.csv [--output out/tunable]
        [--accuracy-max 1.0] [--title TEXT]
writes out/tunable-AD.png, out/tunable-PE.png and out/tunable-spectral_radius.png (which
`mbstep analyze -o PREFIX` does itself unless --no-plot).
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

QUANTITIES = [
    # (column, file suffix, y label, restricted to the accuracy range)
    ("AD_percent", "AD", "AD (%)", True),
    ("PE_percent", "PE", "PE (%)", True),
    ("spectral_radius", "spectral_radius", r"spectral radius $\rho$", False),
]


NUMERIC = ("h_over_T", "Omega", "spectral_radius", "AD_percent", "PE_percent")


def read_curve(path):
    cols = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            for k in NUMERIC:
                cols.setdefault(k, []).append(float(row[k]))
    return cols


def read_index(path):
    base = os.path.dirname(os.path.abspath(path))
    curves = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            data = read_curve(os.path.join(base, row["file"]))
            curves.append({
                "method": row["method"],
                "rho": float(row["rho_inf"]) if row["rho_inf"] else None,
                "tunable": row["tunable"] == "1",
                "stages": int(row["stages"]),
                "data": data,
            })
    return curves


def panels_of(curves):
    """Distinct rho_inf of the tunable curves (one panel each), or one panel."""
    rhos = sorted({c["rho"] for c in curves if c["tunable"]})
    return rhos if rhos else [None]


def plot(curves, column, ylabel, accuracy_max, title, path):
    panels = panels_of(curves)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    styles = ["-", "--", "-.", ":"]
    for ax, rho in zip(axes[0], panels):
        k = 0
        for c in curves:
            if c["tunable"] and rho is not None and c["rho"] != rho:
                continue
            x = c["data"]["h_over_T"]
            y = c["data"][column]
            if accuracy_max is not None:
                pts = [(a, b) for a, b in zip(x, y) if a <= accuracy_max and math.isfinite(b)]
                x, y = [p[0] for p in pts], [p[1] for p in pts]
            label = c["method"] if c["stages"] == 1 else "%s (n = %d)" % (c["method"], c["stages"])
            ax.semilogx(x, y, styles[(k // 10) % len(styles)], label=label, linewidth=1.4)
            k += 1
        ax.set_xlabel(r"$\Delta t / (nT)$")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        if rho is not None:
            ax.set_title(r"$\rho_\infty$ = %g" % rho)
        if column == "spectral_radius":
            ax.set_ylim(-0.02, 1.05)
        elif all(abs(v) < 1e-8 for line in ax.get_lines() for v in line.get_ydata()):
            ax.set_ylim(-1.0, 1.0)  # zero to round-off (e.g. AD of the trapezoidal rule)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("index", help="PREFIX-index.csv written by mbstep analyze --output PREFIX")
    p.add_argument("--output", "-o", help="PNG prefix (default: the index's PREFIX)")
    p.add_argument("--accuracy-max", type=float, default=1.0,
                   help="largest h/(nT) shown for AD and PE (default 1; the spectral radius "
                        "uses the whole grid)")
    p.add_argument("--title", default="", help="figure title")
    a = p.parse_args(argv)
    prefix = a.output or (a.index[:-len("-index.csv")] if a.index.endswith("-index.csv")
                          else os.path.splitext(a.index)[0])
    curves = read_index(a.index)
    if not curves:
        sys.exit("analysis_plot.py: no curves in " + a.index)
    for column, suffix, ylabel, accuracy in QUANTITIES:
        path = "%s-%s.png" % (prefix, suffix)
        plot(curves, column, ylabel, a.accuracy_max if accuracy else None, a.title, path)
        print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
