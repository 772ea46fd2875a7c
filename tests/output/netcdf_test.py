#!/usr/bin/python3
"""`mbstep run --netcdf` on the heavy top example, read back with Unidata's netCDF.

Cases:
  heavy_top  runs examples/heavy-top (shortened with --final-time) with --netcdf and checks,
      with python3-netcdf4: the dimensions (time = the number of output steps, Vec1, Vec3), the
      variables and their attributes as MBDyn writes them (run.step, time, run.timestep;
      node.struct.1 and its X, E, XP, Omega; elem.joint.1, a spherical pin, and its f, m, F, M,
      E), run.step and time equal the .out's output steps and times, and at the first, a
      middle and the last step the node's values equal the .mov's columns and the joint's the
      .jnt's (to the printed digits): f = F (MBDyn's pin writes the global force as the local
      one), and E (the .jnt's columns 14-16) equals the node's Euler angles 123 of the .mov.
  ncdump     the same run's header as ncdump -h prints it (netcdf-bin): the dimensions, every
      variable with its shape and its units, type and description attributes.
  refused    `output results: netcdf;` and `run --netcdf` when this mbstep was built without
      NetCDF: refused with file:line:column and "built without NetCDF", and exit status 2;
      when it was built with NetCDF, both are accepted (the other cases check the file).
A case whose tool is missing (python3-netcdf4, ncdump) prints SKIP with the reason and exits
with 77 (CTest's SKIP_RETURN_CODE).
"""
import argparse
import os
import shutil
from output_case import blocks, check, output_steps, run, skip


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


# MBDyn's variables and attributes (mbdyn/base/dataman2.cc DataManager::OutputPrepare,
# mbdyn/struct/strnode.cc StructNode::OutputPrepare, mbdyn/base/output.cc CreateRotationVar,
# mbdyn/struct/joint.cc Joint::OutputPrepare_int), units as MBDyn writes them without
# `output units`.
EXPECTED = {
    "run.step": (("time",), "Dimensionless", "integer", "time step index"),
    "time": (("time",), "Time", "doublereal", "simulation time"),
    "run.timestep": (("time",), "Time", "doublereal", "integration time step"),
    "node.struct.1.X": (("time", "Vec3"), "Length", "Vec3", "global position vector (X, Y, Z)"),
    "node.struct.1.E": (("time", "Vec3"), "deg", "Vec3",
                        "global orientation Euler angles (123) (E_X, E_Y, E_Z)"),
    "node.struct.1.XP": (("time", "Vec3"), "Velocity", "Vec3",
                         "global velocity vector (v_X, v_Y, v_Z)"),
    "node.struct.1.Omega": (("time", "Vec3"), "Angular velocity", "Vec3",
                            "global angular velocity vector (omega_X, omega_Y, omega_Z)"),
    "elem.joint.1.f": (("time", "Vec3"), "Force", "Vec3", "local reaction force (fx, fy, fz)"),
    "elem.joint.1.m": (("time", "Vec3"), "Moment", "Vec3", "local reaction moment (mx, my, mz)"),
    "elem.joint.1.F": (("time", "Vec3"), "Force", "Vec3", "global reaction force (FX, FY, FZ)"),
    "elem.joint.1.M": (("time", "Vec3"), "Moment", "Vec3",
                       "global reaction moment (MX, MY, MZ)"),
    # mbdyn/struct/spherj.cc PinJoint::OutputPrepare: "E", "node orientation (E123)"; MBDyn's
    # units attribute says "rad" for values in degrees, mbstep's says "deg".
    "elem.joint.1.E": (("time", "Vec3"), "deg", "Vec3", "node orientation (E123)"),
}
KINDS = {"node.struct.1": "dynamic", "elem.joint.1": "spherical pin"}


def heavy_top_run(args):
    os.makedirs(args.work_dir, exist_ok=True)
    prefix = os.path.join(args.work_dir, "heavy-top")
    run([args.mbstep, "run", os.path.join(args.source_dir, "examples/heavy-top/heavy-top.mbd"),
         "--netcdf", "--final-time", "0.05", "-o", prefix, "--quiet"])
    check(os.path.exists(prefix + ".nc"), "no " + prefix + ".nc")
    return prefix


def heavy_top_case(args):
    try:
        import netCDF4
    except ImportError as e:
        skip("python3-netcdf4 is not installed (Debian: python3-netcdf4): %s" % e)
    prefix = heavy_top_run(args)
    steps = output_steps(prefix)
    check(len(steps) >= 3, "fewer than 3 output steps")
    mov = blocks(prefix + ".mov", len(steps))
    jnt = blocks(prefix + ".jnt", len(steps))
    ds = netCDF4.Dataset(prefix + ".nc")
    ds.set_auto_mask(False)
    check(ds.data_model == "NETCDF3_CLASSIC", "format " + ds.data_model)
    dims = {name: (len(d), d.isunlimited()) for name, d in ds.dimensions.items()}
    check(dims == {"time": (len(steps), True), "Vec1": (1, False), "Vec3": (3, False)},
          "dimensions %r" % dims)
    names = list(ds.variables)
    check(set(names) == set(EXPECTED) | set(KINDS), "variables %r" % names)
    check(names[:3] == ["run.step", "time", "run.timestep"], "first variables %r" % names[:3])
    for name, (shape, units, typ, desc) in EXPECTED.items():
        v = ds.variables[name]
        check(v.dimensions == shape, "%s: dimensions %r" % (name, v.dimensions))
        check(v.ncattrs() == ["units", "type", "description"], "%s: %r" % (name, v.ncattrs()))
        got = (v.getncattr("units"), v.getncattr("type"), v.getncattr("description"))
        check(got == (units, typ, desc), "%s: attributes %r" % (name, got))
    for name, kind in KINDS.items():
        v = ds.variables[name]
        check(v.dimensions == ("Vec1",) and v.dtype.str.endswith("S1"),
              "%s: %r %r" % (name, v.dimensions, v.dtype))
        check(v.getncattr("type") == kind, "%s: type %r" % (name, v.getncattr("type")))
    check(ds.variables["run.step"].dtype.str.endswith("i4"), "run.step is not an int")
    # Every record: the .out's output steps, times and step sizes.
    step = ds.variables["run.step"][:]
    time = ds.variables["time"][:]
    dt = ds.variables["run.timestep"][:]
    rel = 1e-5  # the .out's and .mov's six digits
    for k, (n, t, h) in enumerate(steps):
        check(step[k] == n, "record %d: run.step %d, .out step %d" % (k, step[k], n))
        check(close(time[k], t, rel), "record %d: time %r, .out %r" % (k, time[k], t))
        check(close(dt[k], h, rel), "record %d: run.timestep %r, .out %r" % (k, dt[k], h))
    # Three steps: the .mov's and the .jnt's columns.
    checked = 0
    for k in sorted({0, len(steps) // 2, len(steps) - 1}):
        row = mov[k][0]
        check(int(row[0]) == 1, ".mov label %r" % row[0])
        for var, cols in (("X", row[1:4]), ("E", row[4:7]), ("XP", row[7:10]),
                          ("Omega", row[10:13])):
            got = ds.variables["node.struct.1." + var][k]
            for c in range(3):
                check(close(got[c], cols[c], rel) or abs(got[c] - cols[c]) < 1e-9,
                      "step %d: node.struct.1.%s[%d] = %r, .mov %r" % (k, var, c, got[c],
                                                                       cols[c]))
                checked += 1
        row = jnt[k][0]
        check(int(row[0]) == 1, ".jnt label %r" % row[0])
        check(len(row) == 16, ".jnt columns %d, expected 16" % len(row))
        scale = max(abs(x) for x in row[1:13])
        for c in range(3):
            check(abs(row[1 + c] - row[7 + c]) <= rel * max(abs(row[7 + c]), 1e-3 * scale),
                  "step %d: the pin's local force %r differs from the global %r" %
                  (k, row[1:4], row[7:10]))
            check(abs(row[13 + c] - mov[k][0][4 + c]) <= 1e-4 * max(abs(mov[k][0][4 + c]), 1.),
                  "step %d: .jnt E %r, .mov E %r" % (k, row[13:16], mov[k][0][4:7]))
        for j, var in enumerate(("f", "m", "F", "M", "E")):
            got = ds.variables["elem.joint.1." + var][k]
            for c in range(3):
                ref = row[1 + 3 * j + c]
                tol = rel * max(abs(ref), 1e-3 * scale if var != "E" else 1.0)
                check(abs(got[c] - ref) <= tol,
                      "step %d: elem.joint.1.%s[%d] = %r, .jnt %r" % (k, var, c, got[c], ref))
                checked += 1
    ds.close()
    print("heavy top: %d records, the .out's steps and times; %d values equal the .mov's and "
          ".jnt's columns" % (len(steps), checked))


def ncdump_case(args):
    ncdump = shutil.which("ncdump")
    if not ncdump:
        skip("ncdump is not installed (Debian: netcdf-bin)")
    prefix = heavy_top_run(args)
    nsteps = len(output_steps(prefix))
    header = run([ncdump, "-h", prefix + ".nc"])
    check(header.startswith("netcdf heavy-top {"), "header: " + header[:40])
    check("time = UNLIMITED ; // (%d currently)" % nsteps in header, "time dimension")
    check("Vec1 = 1 ;" in header and "Vec3 = 3 ;" in header, "Vec1/Vec3 dimensions")
    for name, (shape, units, typ, desc) in EXPECTED.items():
        decl = "%s %s(%s) ;" % ("int" if name == "run.step" else "double", name, ", ".join(shape))
        check(decl in header, "no declaration " + decl)
        for attr, value in (("units", units), ("type", typ), ("description", desc)):
            line = '%s:%s = "%s" ;' % (name, attr, value)
            check(line in header, "no attribute line " + line)
    for name, kind in KINDS.items():
        check("char %s(Vec1) ;" % name in header, "no declaration of " + name)
        check('%s:type = "%s" ;' % (name, kind) in header, "no type of " + name)
    print("ncdump -h: %d records, %d variables with MBDyn's attributes" %
          (nsteps, len(EXPECTED) + len(KINDS)))


DECK = """begin: data; problem: initial value; end: data;
begin: initial value; initial time: 0.; final time: 0.01; time step: 1e-3;
    method: ms, 0.6; tolerance: 1e-9; end: initial value;
begin: control data; structural nodes: 1; rigid bodies: 1;
output results: netcdf;
end: control data;
begin: nodes; structural: 1, dynamic, null, eye, null, null; end: nodes;
begin: elements; body: 1, 1, 1., null, eye; end: elements;
"""


def refused_case(args):
    os.makedirs(args.work_dir, exist_ok=True)
    deck = os.path.join(args.work_dir, "netcdf.mbd")
    with open(deck, "w") as f:
        f.write(DECK)
    prefix = os.path.join(args.work_dir, "netcdf")
    if os.path.exists(prefix + ".nc"):
        os.remove(prefix + ".nc")
    if args.with_netcdf:
        run([args.mbstep, "run", deck, "-o", prefix, "--quiet"])
        check(os.path.exists(prefix + ".nc"), "output results: netcdf wrote no .nc")
        run([args.mbstep, "run", deck, "-o", prefix + "-cli", "--netcdf", "--quiet"])
        check(os.path.exists(prefix + "-cli.nc"), "--netcdf wrote no .nc")
        print("built with NetCDF: output results: netcdf and --netcdf write the .nc")
        return
    out = run([args.mbstep, "run", deck, "-o", prefix, "--quiet"], expect=1)
    check("%s:5:17:" % deck in out, "no file:line:column in: " + out)
    check("built without NetCDF" in out, "no reason in: " + out)
    check(not os.path.exists(prefix + ".nc"), "a .nc was written")
    plain = os.path.join(args.source_dir, "examples/heavy-top/heavy-top.mbd")
    out = run([args.mbstep, "run", plain, "--netcdf", "-o", prefix, "--quiet"], expect=2)
    check("built without NetCDF" in out, "--netcdf: no reason in: " + out)
    print("built without NetCDF: the deck and --netcdf are refused with the reason")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=["heavy_top", "ncdump", "refused"])
    p.add_argument("--mbstep", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--with-netcdf", choices=["ON", "OFF"], required=True,
                   help="whether this mbstep was built with NetCDF (CMake MBSTEP_HAVE_NETCDF)")
    args = p.parse_args()
    args.with_netcdf = args.with_netcdf == "ON"
    {"heavy_top": heavy_top_case, "ncdump": ncdump_case, "refused": refused_case}[args.case](args)


if __name__ == "__main__":
    main()
