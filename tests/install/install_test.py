#!/usr/bin/env python3
"""Install test: cmake --install of the current build tree into a temporary prefix, build
examples/out-of-tree-integrator against the installed package, and run the installed `mbstep`:

  1. the installed binary finds the installed core (relative RPATH) and the installed plugins
     (<prefix>/lib/mbstep) with MBSTEP_PLUGIN_PATH unset;
  2. with MBSTEP_PLUGIN_PATH = the example's build directory, `mbstep plugins` lists `my bdf2`
     and `mbstep run` completes the example deck with it;
  3. its trajectory equals the built-in `bdf` (LMS2 at rho_inf = 0: same coefficients, same
     predictor) on the same deck: in every .mov row, each of position, orientation matrix,
     velocity and angular velocity within 1e-12 relative to its norm (at least 1). The two
     differ by round-off only (b1 = 0 exactly in `my bdf2`, ~1e-17 from LMS2's variable-step
     formula); over 500 steps of a top spinning at 150 rad/s it stays below ~2e-13 of each norm.
     Euler angles are not compared: the spin phase (75 rad here) makes their round-off
     relative to the printed, wrapped angle meaningless.
  4. examples/out-of-tree-element built the same way: `mbstep plugins` lists `joint: my
     spring`, and its oscillator deck (a 1 kg body on a 100 N/m spring released from 0.1 m,
     trapezoidal rule, h = 1e-3, 1 s) follows x(t) = A cos(10 t) within 1e-5 m (the rule's
     phase lag amounts to 6.6e-6 m at most), with one Newton iteration per step (the equations are
     linear: a wrong K or C of the element needs more).
  5. the same deck through MBDyn's statements, `module load:` of the plugin file (no
     MBSTEP_PLUGIN_PATH) and `user defined: 2, my spring, ...`, writes the same .mov.
  6. the example's other two methods: `my ss2, 0.6` (SingleStep<2>) writes the same .mov as
     the built-in `ss2, 0.6` byte for byte (same gammas, same template); `my sdirk2`
     (StageN<2>, Alexander's SDIRK2, stage order 1) is second order on the linear oscillator
     (`mbstep analyze`: period error slope 2 +- 0.2 at small h/T, spectral radius < 1e-3 at
     h/T = 1000: L-stable) and first order on the heavy top, an index-3 problem (`mbstep study
     convergence`, final position error, slope 1 +- 0.2), where `Bathe, 0` (same cost, stage
     order 2) keeps order 2 +- 0.2: the order reduction that the stage order governs.
  7. the example's Newmark-type method `my wbz` (Wood-Bossak-Zienkiewicz on SecondOrderStep,
     alpha_f = 0): at rho_inf = 1 it is Newmark's average acceleration rule, the coefficient
     set of `hht, 0, arnold bruls` in the same form, so both write the same .mov byte for byte
     (lie group and euler parameters, to t = 0.15: undamped, the index-3 heavy top stops near
     t = 0.18 under both); `hht, 0` (the same rule with the Newton iteration on (a, lambda))
     agrees within 1e-7 in every .mov column (the two iterations stop at different points
     inside the Newton tolerance); `mbstep analyze "my wbz"`: spectral radius rho_inf = 0.9
     +- 1e-3 at h/T = 1000, period error slope 2 +- 0.2; heavy top, final position error
     against `generalized alpha, 0.8` at h = 1.25e-5 on the Lie group: slope 2 +- 0.2.
"""
import argparse
import csv
import math
import glob
import os
import shutil
import subprocess
import sys

TOLERANCE = 1e-12


def run(cmd, env=None, what=None):
    """Runs cmd; on failure prints its output and exits non-zero. Returns stdout."""
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        sys.exit(f"FAILED ({p.returncode}): {what or ' '.join(cmd)}")
    return p.stdout


def fail(msg):
    sys.exit("FAILED: " + msg)


def read_mov(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append([float(v) for v in line.split()])
                except ValueError:
                    fail(f"{path}:{n}: not a numeric .mov line: {line.strip()}")
    return rows


def main():
    ap = argparse.ArgumentParser()
    for a in ("build-dir", "source-dir", "work-dir", "cmake", "generator", "cxx"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--cxx-flags", default="")
    ap.add_argument("--build-type", default="")
    args = ap.parse_args()

    work = args.work_dir
    prefix = os.path.join(work, "prefix")
    out = os.path.join(work, "run")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(out)

    # 1. Install, then look only at the prefix.
    run([args.cmake, "--install", args.build_dir, "--prefix", prefix], what="cmake --install")
    mbstep = os.path.join(prefix, "bin", "mbstep")
    configs = glob.glob(os.path.join(prefix, "lib*", "**", "mbstepConfig.cmake"), recursive=True)
    cores = glob.glob(os.path.join(prefix, "lib*", "**", "libmbstep_core.so"), recursive=True)
    plugins = glob.glob(os.path.join(prefix, "lib*", "**", "mbstep", "libmbstep_*.so"),
                        recursive=True)
    for what, found in (("bin/mbstep", os.path.isfile(mbstep)), ("mbstepConfig.cmake", configs),
                        ("libmbstep_core.so", cores), ("plugins in lib/mbstep", plugins),
                        ("headers", os.path.isfile(os.path.join(
                            prefix, "include", "mbstep", "integrator", "step_n.hpp")))):
        if not found:
            fail(f"{what} not installed under {prefix}")

    env = dict(os.environ)
    env.pop("MBSTEP_PLUGIN_PATH", None)
    env.pop("LD_LIBRARY_PATH", None)
    if shutil.which("ldd"):
        deps = run(["ldd", mbstep], env=env, what="ldd bin/mbstep")
        line = next((l for l in deps.splitlines() if "libmbstep_core.so" in l), "")
        resolved = line.split("=>")[1].split()[0] if "=>" in line else ""
        if not os.path.realpath(resolved).startswith(os.path.realpath(prefix) + os.sep):
            fail("installed mbstep does not find libmbstep_core.so in the prefix: " + line)
    # The installed plugin folder's index, written by the installed tool: every installed
    # plugin listed with the size it has there, so that a run opens only what its deck names.
    folder = os.path.dirname(plugins[0])
    index_path = os.path.join(folder, "mbstep-plugins.index")
    if not os.path.isfile(index_path):
        fail(f"no plugin index {index_path} after cmake --install")
    with open(index_path) as f:
        index = f.read().splitlines()
    if not index or not index[0].startswith("mbstep plugin index, ABI "):
        fail(f"{index_path}: unexpected header {index[:1]}")
    listed = {l.split("\t")[1]: int(l.split("\t")[2]) for l in index if l.startswith("plugin\t")}
    for p in plugins:
        name = os.path.basename(p)
        if listed.get(name) != os.path.getsize(p):
            fail(f"{index_path} lists {name} with size {listed.get(name)}, "
                 f"the installed file has {os.path.getsize(p)}")
    listing = run([mbstep, "plugins"], env=env, what="installed mbstep plugins")
    for name in ("cgr", "bdf", "ms3", "spherical pin"):
        if name not in listing:
            fail(f"installed `mbstep plugins` (no MBSTEP_PLUGIN_PATH) lacks '{name}':\n{listing}")

    # 1b. The NetCDF writer is a module loaded on demand (core/netcdf/): installed next to the
    # plugins when the build has it, found there by the installed core, and not linked into
    # the executable.
    if os.path.isfile(os.path.join(args.build_dir, "lib", "mbstep", "mbstep-netcdf.so")):
        modules = glob.glob(os.path.join(prefix, "lib*", "**", "mbstep", "mbstep-netcdf.so"),
                            recursive=True)
        if not modules:
            fail(f"mbstep-netcdf.so not installed under {prefix}")
        if shutil.which("ldd") and "libnetcdf" in run(["ldd", mbstep], env=env, what="ldd"):
            fail("the installed mbstep links libnetcdf: it should load mbstep-netcdf.so instead")
        nc = os.path.join(out, "top-netcdf")
        run([mbstep, "run", os.path.join(args.source_dir, "examples", "heavy-top",
                                         "heavy-top.mbd"),
             "--final-time", "0.01", "--netcdf", "-o", nc, "--quiet"], env=env,
            what="installed mbstep run --netcdf")
        with open(nc + ".nc", "rb") as f:
            if f.read(4) != b"CDF\x01":
                fail(nc + ".nc is not a netCDF classic file")

    def build_example(name, listed):
        """Builds examples/<name> against the install; MBSTEP_PLUGIN_PATH then points at it
        and `mbstep plugins` must list `listed`. Returns the example's source folder."""
        source = os.path.join(args.source_dir, "examples", name)
        build = os.path.join(work, name)
        configure = [args.cmake, "-S", source, "-B", build, "-G", args.generator,
                     "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_CXX_COMPILER=" + args.cxx,
                     "-DCMAKE_CXX_FLAGS=" + args.cxx_flags]
        if args.build_type:
            configure.append("-DCMAKE_BUILD_TYPE=" + args.build_type)
        run(configure, env=env, what=f"configure {name} against the install")
        run([args.cmake, "--build", build], env=env, what=f"build {name}")
        env["MBSTEP_PLUGIN_PATH"] = build
        listing = run([mbstep, "plugins"], env=env, what=f"mbstep plugins with {name}")
        if listed not in listing:
            fail(f"`mbstep plugins` does not list '{listed}':\n" + listing)
        return source

    # 2. Build the example against the installed package and load it by name.
    example = build_example("out-of-tree-integrator", "my bdf2")

    deck = os.path.join(example, "heavy-top-my-bdf2.mbd")
    mine, builtin = os.path.join(out, "my"), os.path.join(out, "bdf")
    run([mbstep, "run", deck, "-o", mine, "--quiet"], env=env, what="mbstep run (my bdf2)")
    run([mbstep, "run", deck, "--method", "bdf", "-o", builtin, "--quiet"], env=env,
        what="mbstep run --method bdf")

    # 3. Same trajectory as the built-in bdf.
    a, b = read_mov(mine + ".mov"), read_mov(builtin + ".mov")
    if len(a) < 500 or len(a) != len(b):
        fail(f".mov rows: my bdf2 {len(a)}, bdf {len(b)} (expected >= 500 and equal)")
    # .mov row with `default orientation: orientation matrix`: label, x(3), R(9), v(3), w(3).
    blocks = (("position", 1, 4), ("orientation", 4, 13), ("velocity", 13, 16),
              ("angular velocity", 16, 19))
    worst, where = 0.0, ""
    for i, (ra, rb) in enumerate(zip(a, b)):
        if len(ra) != 19 or len(rb) != 19:
            fail(f".mov row {i + 1}: {len(ra)} and {len(rb)} columns, expected 19")
        for name, lo, hi in blocks:
            da = sum((x - y) ** 2 for x, y in zip(ra[lo:hi], rb[lo:hi])) ** 0.5
            scale = max(1.0, sum(x * x for x in ra[lo:hi]) ** 0.5)
            if da / scale > worst:
                worst, where = da / scale, f"{name}, row {i + 1}"
    print(f"my bdf2 vs bdf: {len(a)} .mov rows, largest relative difference {worst:.3e} ({where})")
    if worst > TOLERANCE:
        fail(f"my bdf2 and bdf differ by {worst:.3e} > {TOLERANCE}")
    # 4. The out-of-tree element.
    element = build_example("out-of-tree-element", "joint: my spring")
    osc = os.path.join(out, "osc")
    run([mbstep, "run", os.path.join(element, "oscillator.mbd"), "-o", osc, "--quiet"], env=env,
        what="mbstep run oscillator.mbd (my spring)")
    times, iterations = [], []
    with open(osc + ".out") as f:
        for line in f:
            if line.startswith("Step "):  # Step Time TStep NIter ...
                cols = line.split()
                times.append(float(cols[2]))
                iterations.append(int(cols[4]))
    body = [r for r in read_mov(osc + ".mov") if int(r[0]) == 2]
    if len(times) != 1001 or len(body) != len(times):
        fail(f"oscillator: {len(times)} steps in .out, {len(body)} rows of node 2 in .mov "
             "(expected 1001 each)")
    worst = max(abs(r[1] - 0.1 * math.cos(10.0 * t)) for r, t in zip(body, times))
    print(f"my spring: largest |x - A cos(omega t)| {worst:.3e} m over {len(times)} outputs; "
          f"Newton iterations per step {min(iterations[1:])}..{max(iterations[1:])}")
    if worst > 1e-5:
        fail(f"my spring oscillator deviates from A cos(omega t) by {worst:.3e} m > 1e-5")
    if max(iterations[1:]) != 1:
        fail(f"my spring oscillator: up to {max(iterations[1:])} Newton iterations per step, "
             "expected 1 (linear equations with an exact Jacobian)")
    # 5. MBDyn's way to the same element: `module load:` of the plugin file (not on the plugin
    #    path) and `user defined:`; the same trajectory bit for bit.
    env.pop("MBSTEP_PLUGIN_PATH", None)
    with open(os.path.join(element, "oscillator.mbd")) as f:
        text = f.read()
    plugin = os.path.join(work, "out-of-tree-element", "libmbstep_my_spring.so")
    text = ('module load: "' + plugin + '";\n' +
            text.replace("joints: 2;", "joints: 1;\n    user defined elements: 1;")
                .replace("joint: 2, my spring,", "user defined: 2, my spring,"))
    if text.count("user defined") != 2:
        fail("could not rewrite oscillator.mbd for `module load:`")
    module_deck = os.path.join(out, "oscillator-module.mbd")
    with open(module_deck, "w") as f:
        f.write(text)
    via_module = os.path.join(out, "osc-module")
    run([mbstep, "run", module_deck, "-o", via_module, "--quiet"], env=env,
        what="mbstep run with module load: and user defined:")
    with open(osc + ".mov") as a, open(via_module + ".mov") as b:
        if a.read() != b.read():
            fail("`module load:` + `user defined:` gives another trajectory than `joint:`")
    print("module load + user defined: the same .mov")
    # 6. SingleStep<2> and StageN<2> written out of tree.
    env["MBSTEP_PLUGIN_PATH"] = os.path.join(work, "out-of-tree-integrator")
    for method, builtin_method in (("my ss2, 0.6", "ss2, 0.6"),):
        mine, builtin = os.path.join(out, "my-ss2"), os.path.join(out, "ss2")
        run([mbstep, "run", deck, "--method", method, "-o", mine, "--quiet"], env=env,
            what=f"mbstep run --method '{method}'")
        run([mbstep, "run", deck, "--method", builtin_method, "-o", builtin, "--quiet"],
            env=env, what=f"mbstep run --method '{builtin_method}'")
        with open(mine + ".mov") as a, open(builtin + ".mov") as b:
            if a.read() != b.read():
                fail(f"`{method}` and `{builtin_method}` write different .mov files")
    print("my ss2, 0.6: the same .mov as ss2, 0.6")
    analysis = os.path.join(out, "sdirk2")
    run([mbstep, "analyze", "my sdirk2", "--no-plot", "-o", analysis], env=env,
        what="mbstep analyze 'my sdirk2'")
    with open(analysis + "-my-sdirk2.csv") as f:
        header = f.readline().strip().split(",")
        rows = [dict(zip(header, line.strip().split(","))) for line in f if line.strip()]
    pe = [(float(r["h_over_T"]), abs(float(r["PE_percent"]))) for r in rows[:6]]
    pe_slope = math.log(pe[-1][1] / pe[0][1]) / math.log(pe[-1][0] / pe[0][0])
    rho_inf = float(rows[-1]["spectral_radius"])
    print(f"my sdirk2 on the oscillator: period error slope {pe_slope:.3f}, spectral radius "
          f"{rho_inf:.2e} at h/T = {float(rows[-1]['h_over_T']):g}")
    if abs(pe_slope - 2.0) > 0.2 or rho_inf > 1e-3:
        fail(f"my sdirk2: period error slope {pe_slope} (expected 2 +- 0.2), spectral radius "
             f"{rho_inf} at the largest step (expected < 1e-3)")
    study = os.path.join(out, "stage-order")
    steps = ["1e-3", "5e-4", "2.5e-4", "1.25e-4"]
    run([mbstep, "study", "convergence", deck, "--methods", "my sdirk2", "Bathe, 0",
         "--steps", *steps, "--reference", "Bathe, 0:1.25e-5", "--error", "position",
         "--no-plot", "-o", study], env=env, what="mbstep study convergence (stage order)")
    errors = {}
    with open(study + ".csv") as f:
        header = next(csv.reader(f))
        for r in csv.reader(f):
            row = dict(zip(header, r))
            errors.setdefault(row["method"], []).append(
                (float(row["h"]), float(row["error_position"])))
    for method, expected in (("my sdirk2", 1.0), ("Bathe, 0", 2.0)):
        pts = errors.get(method, [])
        if len(pts) != len(steps):
            fail(f"study: {len(pts)} points for '{method}', expected {len(steps)}")
        xs = [math.log(h) for h, _ in pts]
        ys = [math.log(e) for _, e in pts]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) /
                 sum((x - mx) ** 2 for x in xs))
        print(f"heavy top (index 3), final position error: {method} slope {slope:.3f}")
        if abs(slope - expected) > 0.2:
            fail(f"'{method}' on the heavy top: position slope {slope:.3f}, expected "
                 f"{expected} +- 0.2")
    # 7. SecondOrderStep written out of tree: `my wbz`.
    short = ["--final-time", "0.15", "--quiet"]
    for formulation in ("lie group", "euler parameters"):
        mine, builtin = os.path.join(out, "my-wbz-1"), os.path.join(out, "hht-0-ab")
        run([mbstep, "run", deck, "--method", "my wbz, 1", "--formulation", formulation,
             "-o", mine, *short], env=env, what=f"mbstep run 'my wbz, 1' on {formulation}")
        run([mbstep, "run", deck, "--method", "hht, 0, arnold bruls", "--formulation",
             formulation, "-o", builtin, *short], env=env,
            what=f"mbstep run 'hht, 0, arnold bruls' on {formulation}")
        with open(mine + ".mov") as a, open(builtin + ".mov") as b:
            if a.read() != b.read():
                fail(f"`my wbz, 1` and `hht, 0, arnold bruls` write different .mov files on "
                     f"{formulation}")
    print("my wbz, 1: the same .mov as hht, 0, arnold bruls (lie group, euler parameters)")
    paper = os.path.join(out, "hht-0")
    run([mbstep, "run", deck, "--method", "hht, 0", "--formulation", "euler parameters", "-o",
         paper, *short], env=env, what="mbstep run 'hht, 0'")
    a, b = read_mov(mine + ".mov"), read_mov(paper + ".mov")
    if len(a) != len(b) or len(a) < 150:
        fail(f".mov rows: my wbz, 1 {len(a)}, hht, 0 {len(b)} (expected >= 150 and equal)")
    worst = max(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb))
    print(f"my wbz, 1 vs hht, 0 on euler parameters: largest .mov difference {worst:.3e}")
    if worst > 1e-7:
        fail(f"my wbz, 1 and hht, 0 differ by {worst:.3e} > 1e-7")
    analysis = os.path.join(out, "wbz")
    run([mbstep, "analyze", "my wbz", "--rho", "0.9", "--no-plot", "-o", analysis], env=env,
        what="mbstep analyze 'my wbz'")
    with open(analysis + "-my-wbz-rho0.9.csv") as f:
        header = f.readline().strip().split(",")
        rows = [dict(zip(header, line.strip().split(","))) for line in f if line.strip()]
    pe = [(float(r["h_over_T"]), abs(float(r["PE_percent"]))) for r in rows[:6]]
    pe_slope = math.log(pe[-1][1] / pe[0][1]) / math.log(pe[-1][0] / pe[0][0])
    rho_inf = float(rows[-1]["spectral_radius"])
    print(f"my wbz, 0.9 on the oscillator: period error slope {pe_slope:.3f}, spectral radius "
          f"{rho_inf:.6f} at h/T = {float(rows[-1]['h_over_T']):g}")
    if abs(pe_slope - 2.0) > 0.2 or abs(rho_inf - 0.9) > 1e-3:
        fail(f"my wbz: period error slope {pe_slope} (expected 2 +- 0.2), spectral radius "
             f"{rho_inf} at the largest step (expected 0.9 +- 1e-3)")
    study = os.path.join(out, "wbz-order")
    run([mbstep, "study", "convergence", deck, "--methods", "my wbz, 0.8@lie group",
         "--steps", *steps, "--reference", "generalized alpha, 0.8@lie group:1.25e-5",
         "--error", "position", "--no-plot", "-o", study], env=env,
        what="mbstep study convergence (my wbz)")
    with open(study + "-slopes.csv") as f:
        slopes = list(csv.DictReader(f))
    if len(slopes) != 1:
        fail(f"study: {len(slopes)} slope rows for 'my wbz, 0.8', expected 1")
    slope = float(slopes[0]["fitted_slope"])
    print(f"heavy top (index 3), final position error: my wbz, 0.8 slope {slope:.3f}")
    if abs(slope - 2.0) > 0.2:
        fail(f"'my wbz, 0.8' on the heavy top: position slope {slope:.3f}, expected 2 +- 0.2")
    print("install test passed")


if __name__ == "__main__":
    main()
