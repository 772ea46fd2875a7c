#!/usr/bin/python3
"""Time histories of runs written by `mbstep run` (`mbstep plot`, docs/DESIGN.md, "Input and output").

The times of the output steps come from the run's own PREFIX.out: its `Step n t dt ... Out`
lines whose last column is 1 are the steps written to the .mov, .jnt and .act, in order (MBDyn's
layout: the .mov has no time column). The .csv has its own time column.

Usage:
    run_plot.py PREFIX... (--node L [--what position|rotation|velocity|omega] | --csv COLUMN |
                --joint L [--what force|moment|global-force|global-moment]) [-o PNG]
                [--data-out CSV]
Several prefixes are overlaid, one line per run in each component's panel. --data-out writes
the plotted series (run, time, one column per component) as read from the files.
Needs only Debian's python3-matplotlib (tools/ci/install-deps.sh), hence /usr/bin/python3.
"""
import argparse
import csv
import os
import sys


def fail(message):
    print("mbstep plot: " + message, file=sys.stderr)
    sys.exit(1)


def output_times(prefix):
    """The times of the output steps: the .out's Step lines whose Out column is 1."""
    path = prefix + ".out"
    if not os.path.exists(path):
        fail(path + " not found (the times of the output steps are read from it)")
    times = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 9 and fields[0] == "Step" and fields[8] == "1":
                times.append(fields[2])
    return times


def labelled_rows(path, label):
    """The rows of `label` in a label-first file (.mov, .jnt), as lists of strings."""
    if not os.path.exists(path):
        fail(path + " not found")
    rows = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == label:
                rows.append(fields[1:])
    return rows


def node_series(prefix, label, what):
    rows = labelled_rows(prefix + ".mov", label)
    if not rows:
        fail("node %s is not in %s.mov" % (label, prefix))
    n = len(rows[0])
    if n not in (12, 18):
        fail("%s.mov: node %s has %d columns, expected 12 or 18" % (prefix, label, n))
    k = n - 9  # orientation columns: 3 (angles, rotation vector) or 9 (matrix)
    columns = {
        "position": (0, ["x", "y", "z"]),
        "rotation": (3, ["o%d" % (i + 1) for i in range(k)] if k == 3
                     else ["R%d%d" % (i // 3 + 1, i % 3 + 1) for i in range(9)]),
        "velocity": (3 + k, ["vx", "vy", "vz"]),
        "omega": (6 + k, ["wx", "wy", "wz"]),
    }
    first, names = columns[what]
    return names, [r[first:first + len(names)] for r in rows], "node %s %s" % (label, what)


def joint_series(prefix, label, what):
    rows = labelled_rows(prefix + ".jnt", label)
    if not rows:
        fail("joint %s is not in %s.jnt" % (label, prefix))
    first, names = {
        "force": (0, ["f1", "f2", "f3"]),
        "moment": (3, ["m1", "m2", "m3"]),
        "global-force": (6, ["Fx", "Fy", "Fz"]),
        "global-moment": (9, ["Mx", "My", "Mz"]),
    }[what]
    if len(rows[0]) < first + 3:
        fail("%s.jnt: joint %s has %d columns" % (prefix, label, len(rows[0])))
    return names, [r[first:first + 3] for r in rows], "joint %s %s" % (label, what)


def csv_series(prefix, column):
    path = prefix + ".csv"
    if not os.path.exists(path):
        fail(path + " not found")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if column not in (reader.fieldnames or []):
            fail("%s has no column '%s'; columns: %s" % (path, column,
                                                         ", ".join(reader.fieldnames or [])))
        rows = list(reader)
    return [r["time"] for r in rows], [[r[column]] for r in rows]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("prefix", nargs="+")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--node")
    g.add_argument("--csv")
    g.add_argument("--joint")
    p.add_argument("--what")
    p.add_argument("-o", "--output")
    p.add_argument("--data-out")
    a = p.parse_args()

    what = a.what
    if a.node is not None:
        what = what or "position"
        if what not in ("position", "rotation", "velocity", "omega"):
            fail("--what %s: a node's is position, rotation, velocity or omega" % what)
    elif a.joint is not None:
        what = what or "force"
        if what not in ("force", "moment", "global-force", "global-moment"):
            fail("--what %s: a joint's is force, moment, global-force or global-moment" % what)
    elif what is not None:
        fail("--what applies to --node and --joint")

    runs = []  # (prefix, times, component names, values, title)
    for prefix in a.prefix:
        if a.csv is not None:
            times, values = csv_series(prefix, a.csv)
            names, title = [a.csv], a.csv
        else:
            times = output_times(prefix)
            if a.node is not None:
                names, values, title = node_series(prefix, a.node, what)
            else:
                names, values, title = joint_series(prefix, a.joint, what)
            if len(times) != len(values):
                # A run stopped while its files were written: the steps both hold.
                print("mbstep plot: warning: %s: %d output times in the .out, %d rows; "
                      "plotting %d" % (prefix, len(times), len(values),
                                       min(len(times), len(values))), file=sys.stderr)
                n = min(len(times), len(values))
                times, values = times[:n], values[:n]
        runs.append((prefix, times, names, values, title))

    names = runs[0][2]
    for r in runs[1:]:
        if r[2] != names:
            fail("%s and %s have different columns (%s / %s)" % (runs[0][0], r[0],
                                                                 " ".join(names), " ".join(r[2])))
    title = runs[0][4]
    if a.data_out:
        with open(a.data_out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["run", "time"] + names)
            for prefix, times, _, values, _ in runs:
                for t, v in zip(times, values):
                    w.writerow([prefix, t] + v)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(names)
    cols = 3 if n == 9 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, sharex=True, squeeze=False,
                             figsize=(6.4 * cols if cols > 1 else 7.0, 1.0 + 2.2 * rows))
    for k, name in enumerate(names):
        ax = axes[k // cols][k % cols]
        for prefix, times, _, values, _ in runs:
            ax.plot([float(t) for t in times], [float(v[k]) for v in values],
                    label=os.path.basename(prefix) if len(runs) > 1 else None)
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    if len(runs) > 1:
        axes[0][0].legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    out = a.output or (a.prefix[0] + "-" + title.replace(" ", "-") + ".png")
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
