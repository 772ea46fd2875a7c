#!/usr/bin/python3
"""`mbstep run --vtk` read back by VTK's own XML reader (Debian's python3-vtk9), and
`mbstep plot` read back from its data dump.

Cases:
  heavy_top, slider_crank, beam   run the example with --vtk (shortened with --final-time) and
      check, with vtkXMLUnstructuredGridReader on the files the .pvd lists: the .pvd's times
      are the .out's output times, at the first, a middle and the last step the points are the
      .mov's positions and velocities (the same digits), one point per node, one vertex cell
      per node, every joint of the .jnt has a cell whose force and moment are the .jnt's global
      columns, every beam of the .act has one line cell per evaluation point whose force and
      moment have the norms of the .act's section force and moment.
  render      renders the last step of the heavy top and of the slider-crank offscreen (ParaView's
      pvbatch or pvpython and its PVD reader when installed, else VTK; under xvfb-run when there is no X
      display) and checks that the PNG has the model's pixels at the nodes where the .mov puts
      them (and, for the one-point heavy top, nowhere else).
  plot        plots two heavy-top runs (two step sizes) with `mbstep plot` and checks the PNG
      and that the plotted series are the .mov's columns at the .out's times.
A case that cannot run here (no python3-vtk9, no matplotlib, no display and no xvfb-run)
prints SKIP with the reason and exits with 77 (CTest's SKIP_RETURN_CODE).
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from output_case import blocks, check, output_steps, run, skip


def precision_of(prefix):
    """Relative tolerance of the printed numbers: the .mov's digits."""
    digits = 6
    with open(prefix + ".mov") as f:
        for tok in f.readline().split()[1:]:
            mant = tok.lower().split("e")[0].lstrip("-").replace(".", "").lstrip("0")
            digits = max(digits, len(mant))
    return 10.0 ** (1 - digits)


def close(a, b, rel, absolute=0.0):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + absolute


def read_vtu(path):
    from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
    from vtkmodules.util.numpy_support import vtk_to_numpy

    r = vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    check(r.GetErrorCode() == 0, "VTK's reader failed on " + path)
    g = r.GetOutput()
    pd, cd = g.GetPointData(), g.GetCellData()
    arrays = {}
    for data, kind in ((pd, "point"), (cd, "cell")):
        for i in range(data.GetNumberOfArrays()):
            arrays[kind + ":" + data.GetArrayName(i)] = vtk_to_numpy(data.GetArray(i))
    cells = []
    for c in range(g.GetNumberOfCells()):
        ids = g.GetCell(c).GetPointIds()
        cells.append((g.GetCellType(c), [ids.GetId(i) for i in range(ids.GetNumberOfIds())]))
    points = vtk_to_numpy(g.GetPoints().GetData()) if g.GetNumberOfPoints() else []
    return g.GetNumberOfPoints(), points, cells, arrays


def series_case(args, name, deck, final_time):
    try:
        import vtkmodules.vtkIOXML  # noqa: F401
    except ImportError as e:
        skip("VTK's python bindings are not installed (Debian: python3-vtk9): %s" % e)
    os.makedirs(args.work_dir, exist_ok=True)
    prefix = os.path.join(args.work_dir, name)
    run([args.mbstep, "run", os.path.join(args.source_dir, deck), "--vtk", "--final-time",
         str(final_time), "-o", prefix, "--quiet"])
    rel = precision_of(prefix)
    times = [t for _, t, _ in output_steps(prefix)]
    check(len(times) >= 3, "fewer than 3 output steps")
    # The .pvd: well-formed XML, one DataSet per output step, the .out's times.
    root = ET.parse(prefix + ".pvd").getroot()
    check(root.tag == "VTKFile" and root.get("type") == "Collection", "not a Collection")
    sets = root.find("Collection").findall("DataSet")
    check(len(sets) == len(times), "%d DataSets, %d output steps in the .out" % (len(sets),
                                                                                len(times)))
    for ds, t in zip(sets, times):
        check(close(float(ds.get("timestep")), t, rel, 1e-12),
              "timestep %s, .out time %r" % (ds.get("timestep"), t))
    mov = blocks(prefix + ".mov", len(times))
    jnt = blocks(prefix + ".jnt", len(times)) if os.path.exists(prefix + ".jnt") else None
    act = blocks(prefix + ".act", len(times)) if os.path.exists(prefix + ".act") else None
    ncols = len(mov[0][0])
    vcol = 4 + (ncols - 10)  # label, x(3), orientation (3 or 9), v(3), w(3)
    folder = os.path.dirname(prefix + ".pvd")
    checked_joints = checked_beams = 0
    for k in sorted({0, len(times) // 2, len(times) - 1}):
        path = os.path.join(folder, sets[k].get("file"))
        npts, pts, cells, arr = read_vtu(path)
        labels = [int(x) for x in arr["point:label"]]
        check(npts == len(mov[k]), "%s: %d points, %d nodes in the .mov" % (path, npts,
                                                                           len(mov[k])))
        for row in mov[k]:
            i = labels.index(int(row[0]))
            for c in range(3):
                check(pts[i][c] == row[1 + c] or close(pts[i][c], row[1 + c], rel, 1e-300),
                      "%s: node %d x[%d] = %r, .mov %r" % (path, row[0], c, pts[i][c],
                                                           row[1 + c]))
                v = arr["point:velocity"][i][c]
                check(close(v, row[vcol + c], rel, 1e-300),
                      "%s: node %d v[%d] = %r, .mov %r" % (path, row[0], c, v, row[vcol + c]))
            # The axes are the columns of a rotation matrix.
            e = [arr["point:axis_%d" % j][i] for j in (1, 2, 3)]
            det = (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                   e[1][0] * (e[0][1] * e[2][2] - e[0][2] * e[2][1]) +
                   e[2][0] * (e[0][1] * e[1][2] - e[0][2] * e[1][1]))
            check(abs(det - 1.0) < 1e-4, "%s: node %d axes' determinant %r" % (path, row[0], det))
        kinds = arr["cell:kind"]
        clabels = arr["cell:label"]
        vertices = [c for c, kd in zip(cells, kinds) if kd == 0]
        check(len(vertices) == npts and all(t == 1 and len(p) == 1 for t, p in vertices),
              "%s: not one vertex cell per node" % path)
        F, M = arr["cell:force"], arr["cell:moment"]
        tol = lambda ref: 1e-5 * max(1.0, max(abs(x) for x in ref))  # noqa: E731
        for row in jnt[k] if jnt else []:
            found = [j for j in range(len(cells)) if kinds[j] == 2 and clabels[j] == int(row[0])
                     and all(abs(F[j][c] - row[7 + c]) <= tol(row[7:10]) for c in range(3))
                     and all(abs(M[j][c] - row[10 + c]) <= tol(row[10:13]) for c in range(3))]
            check(found, "%s: no cell of joint %d with the .jnt's force %s and moment %s"
                  % (path, row[0], row[7:10], row[10:13]))
            checked_joints += 1
        for row in act[k] if act else []:
            label = int(row[0])
            points = (len(row) - 1) // 6
            lines = [j for j in range(len(cells)) if kinds[j] == 3 and clabels[j] == label
                     and cells[j][0] == 3]
            for p in range(points):
                fs = math.sqrt(sum(x * x for x in row[1 + 6 * p:4 + 6 * p]))
                ms = math.sqrt(sum(x * x for x in row[4 + 6 * p:7 + 6 * p]))
                match = [j for j in lines
                         if abs(math.sqrt(sum(x * x for x in F[j])) - fs) <= 1e-5 * max(1.0, fs)
                         and abs(math.sqrt(sum(x * x for x in M[j])) - ms) <= 1e-5 * max(1.0, ms)]
                check(match, "%s: beam %d point %d: no line cell with |F| = %r, |M| = %r"
                      % (path, label, p + 1, fs, ms))
                checked_beams += 1
    print("%s: %d output steps, times and points as the .out and .mov; %d joint and %d beam "
          "point checks" % (name, len(times), checked_joints, checked_beams))
    return checked_joints, checked_beams


RENDER = r'''
import sys
import vtk
pvd_vtu, png, size, scale = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
r = vtk.vtkXMLUnstructuredGridReader()
r.SetFileName(pvd_vtu)
r.Update()
g = r.GetOutput()
m = vtk.vtkDataSetMapper()
m.SetInputData(g)
m.ScalarVisibilityOff()
a = vtk.vtkActor()
a.SetMapper(m)
a.GetProperty().SetColor(1.0, 0.0, 0.0)
a.GetProperty().SetPointSize(9)
a.GetProperty().SetRenderPointsAsSpheres(False)
ren = vtk.vtkRenderer()
ren.SetBackground(1.0, 1.0, 1.0)
ren.AddActor(a)
# Looking down -z at the plane z = z_node, the origin and the node both in view.
cam = ren.GetActiveCamera()
cam.ParallelProjectionOn()
cam.SetPosition(0.0, 0.0, 10.0)
cam.SetFocalPoint(0.0, 0.0, 0.0)
cam.SetViewUp(0.0, 1.0, 0.0)
cam.SetParallelScale(scale)
ren.ResetCameraClippingRange()
w = vtk.vtkRenderWindow()
w.SetOffScreenRendering(1)
w.AddRenderer(ren)
w.SetSize(size, size)
w.Render()
f = vtk.vtkWindowToImageFilter()
f.SetInput(w)
f.Update()
wr = vtk.vtkPNGWriter()
wr.SetFileName(png)
wr.SetInputConnection(f.GetOutputPort())
wr.Write()
'''


PVRENDER = r'''
import sys
from paraview.simple import (GetActiveViewOrCreate, GetAnimationScene, PVDReader,
                             SaveScreenshot, Show)
pvd, png, size, scale = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
reader = PVDReader(FileName=pvd)
times = list(reader.TimestepValues)
view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [size, size]
try:
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
view.Background = [1.0, 1.0, 1.0]
view.OrientationAxesVisibility = 0
view.ViewTime = times[-1]
d = Show(reader, view)
d.ColorArrayName = ["POINTS", ""]
d.AmbientColor = d.DiffuseColor = [1.0, 0.0, 0.0]
d.Ambient, d.Diffuse, d.Specular = 1.0, 0.0, 0.0
d.PointSize = 9
view.CameraPosition = [0.0, 0.0, 10.0]
view.CameraFocalPoint = [0.0, 0.0, 0.0]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.CameraParallelProjection = 1
view.CameraParallelScale = scale
SaveScreenshot(png, view, ImageResolution=[size, size])
print("paraview: %d time steps, rendered t = %r" % (len(times), times[-1]))
'''


def render_case(args):
    try:
        import vtkmodules.vtkIOXML  # noqa: F401
    except ImportError as e:
        skip("VTK's python bindings are not installed (Debian: python3-vtk9): %s" % e)
    os.makedirs(args.work_dir, exist_ok=True)
    xvfb = None
    if not os.environ.get("DISPLAY"):
        xvfb = shutil.which("xvfb-run")
        if not xvfb:
            skip("no X display and no xvfb-run (Debian: xvfb): Debian's VTK renders through "
                 "X (vtkXOpenGLRenderWindow), offscreen included")
    # The heavy top is one point (its node, body and pin): every red pixel is at the node. The
    # slider-crank's three nodes are joined by its joints' lines: a red pixel at every node.
    for name, deck, scale, single in (("render-top", "examples/heavy-top/heavy-top.mbd", 1.5,
                                       True),
                                      ("render-crank", "examples/slider-crank/deck.mbd", 0.35,
                                       False)):
        render_one(args, xvfb, name, deck, scale, single)


def render_one(args, xvfb, name, deck, scale, single):
    prefix = os.path.join(args.work_dir, name)
    run([args.mbstep, "run", os.path.join(args.source_dir, deck), "--vtk", "--final-time",
         "0.3", "-o", prefix, "--quiet"])
    sets = ET.parse(prefix + ".pvd").getroot().find("Collection").findall("DataSet")
    vtu = os.path.join(args.work_dir, sets[-1].get("file"))
    nodes = blocks(prefix + ".mov", len(sets))[-1]
    png = prefix + ".png"
    if os.path.exists(png):
        os.remove(png)
    size = 300
    # ParaView's own PVD reader at the series' last time when pvbatch or pvpython is installed
    # (Debian's paraview has pvbatch), then VTK's XML reader on the last step's file.
    renderers = []
    pvpython = shutil.which("pvbatch") or shutil.which("pvpython")
    if pvpython:
        renderers.append((pvpython, PVRENDER, [pvpython, "--force-offscreen-rendering"],
                          prefix + ".pvd"))
    renderers.append(("VTK", RENDER, [sys.executable], vtu))
    # A renderer gets three attempts: Xvfb started by `xvfb-run -a` next to other X servers
    # sometimes refuses the first connection ("bad X server connection").
    failures = []
    done = False
    for who, text, launcher, source in renderers:
        script = os.path.join(args.work_dir, "render-%d.py" % len(failures))
        with open(script, "w") as f:
            f.write(text)
        cmd = launcher + [script, source, png, str(size), str(scale)]
        if xvfb:
            cmd = [xvfb, "-a", "-s", "-screen 0 640x480x24"] + cmd
        for attempt in range(3):
            print("+ " + " ".join(cmd), flush=True)
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode == 0 and os.path.exists(png):
                print(r.stdout.strip())
                print("%s: rendered by %s" % (name, who))
                done = True
                break
            lines = [x for x in r.stdout.splitlines() if "ERR" in x or "Error" in x]
            failures.append("%s: exit status %d%s" % (who, r.returncode,
                                                      (": " + lines[0]) if lines else ""))
            print(failures[-1])
        if done:
            break
    if not done:
        skip("no renderer could draw offscreen here (%s)" % "; ".join(failures))
    from vtkmodules.vtkIOImage import vtkPNGReader
    from vtkmodules.util.numpy_support import vtk_to_numpy

    rd = vtkPNGReader()
    rd.SetFileName(png)
    rd.Update()
    img = rd.GetOutput()
    nx, ny, _ = img.GetDimensions()
    check((nx, ny) == (size, size), "image %dx%d" % (nx, ny))
    px = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(ny, nx, -1)
    red = [(i, j) for j in range(ny) for i in range(nx)
           if px[j][i][0] > 200 and px[j][i][1] < 80 and px[j][i][2] < 80]
    check(red, "%s: no red pixel: the model is not in the picture" % name)
    # Parallel projection along z: pixel = centre + coordinate / scale * size / 2 (VTK's image
    # rows start at the bottom).
    where = []
    for node in nodes:
        pi = size / 2 + node[1] / scale * size / 2
        pj = size / 2 + node[2] / scale * size / 2
        where.append((pi, pj))
        near = [p for p in red if abs(p[0] - pi) <= 6 and abs(p[1] - pj) <= 6]
        check(near, "%s: no red pixel within 6 px of node %d at (%.1f, %.1f) px; red pixels "
              "span x %d..%d, y %d..%d" % (name, node[0], pi, pj, min(p[0] for p in red),
                                           max(p[0] for p in red), min(p[1] for p in red),
                                           max(p[1] for p in red)))
    if single:
        pi, pj = where[0]
        far = [p for p in red if abs(p[0] - pi) > 12 or abs(p[1] - pj) > 12]
        check(not far, "%s: %d red pixels away from the node (the model is one point)"
              % (name, len(far)))
    print("%s: %d red pixels, at every node (%s px)" % (
        name, len(red), ", ".join("(%.0f, %.0f)" % w for w in where)))


def plot_case(args):
    if subprocess.run([sys.executable, "-c", "import matplotlib"],
                      stderr=subprocess.DEVNULL).returncode != 0:
        skip("matplotlib is not installed for %s (Debian: python3-matplotlib)" % sys.executable)
    os.makedirs(args.work_dir, exist_ok=True)
    deck = os.path.join(args.source_dir, "examples/heavy-top/heavy-top.mbd")
    prefixes = []
    for h in ("1e-3", "2e-3"):
        prefix = os.path.join(args.work_dir, "plot-top-" + h)
        run([args.mbstep, "run", deck, "--final-time", "0.1", "--time-step", h, "-o", prefix,
             "--quiet"])
        prefixes.append(prefix)
    env = dict(os.environ, MBSTEP_PYTHON=sys.executable)
    for what, first in (("position", 1), ("omega", None)):
        png = os.path.join(args.work_dir, "plot-%s.png" % what)
        data = os.path.join(args.work_dir, "plot-%s.csv" % what)
        for p in (png, data):
            if os.path.exists(p):
                os.remove(p)
        cmd = [args.mbstep, "plot"] + prefixes + ["--node", "1", "--what", what, "-o", png,
                                                  "--data-out", data]
        print("+ " + " ".join(cmd), flush=True)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=env)
        print(r.stdout)
        check(r.returncode == 0, "mbstep plot: exit status %d" % r.returncode)
        check(os.path.exists(png) and os.path.getsize(png) > 10000,
              "%s missing or under 10 kB" % png)
        with open(png, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", png + " is not a PNG")
        with open(data, newline="") as f:
            rows = list(csv.DictReader(f))
        for prefix in prefixes:
            times = [t for _, t, _ in output_steps(prefix)]
            mov = blocks(prefix + ".mov", len(times))
            mine = [r for r in rows if r["run"] == prefix]
            check(len(mine) == len(times), "%s: %d plotted rows, %d output steps"
                  % (prefix, len(mine), len(times)))
            ncols = len(mov[0][0])
            col = first if first is not None else ncols - 3
            names = [n for n in rows[0].keys() if n not in ("run", "time")]
            check(len(names) == 3, "columns %s" % names)
            for k, row in enumerate(mine):
                check(float(row["time"]) == times[k], "time %s, .out %r" % (row["time"],
                                                                           times[k]))
                for c, n in enumerate(names):
                    check(float(row[n]) == mov[k][0][col + c],
                          "%s step %d %s = %s, .mov %r" % (prefix, k, n, row[n],
                                                           mov[k][0][col + c]))
        # The two runs differ in their step counts: both are in the data.
        check(len(rows) == sum(len(output_steps(p)) for p in prefixes), "row count")
    # Bad input: a node that is not in the run, an unknown option, an unknown quantity.
    r = subprocess.run([args.mbstep, "plot", prefixes[0], "--node", "99", "-o",
                        os.path.join(args.work_dir, "bad.png")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    check(r.returncode == 1 and "node 99" in r.stdout, "node 99: %d %s" % (r.returncode,
                                                                           r.stdout))
    r = subprocess.run([args.mbstep, "plot", prefixes[0], "--nodes", "1"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    check(r.returncode == 2, "--nodes: exit status %d" % r.returncode)
    r = subprocess.run([args.mbstep, "plot", prefixes[0], "--node", "1", "--what", "speed"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    check(r.returncode == 2 and "omega" in r.stdout, "--what speed: %d %s" % (r.returncode,
                                                                              r.stdout))
    print("plot: PNGs written, plotted series equal to the .mov columns at the .out times")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--mbstep", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--work-dir", required=True)
    a = p.parse_args()
    if a.case == "heavy_top":
        j, _ = series_case(a, "heavy-top", "examples/heavy-top/heavy-top.mbd", 0.2)
        check(j > 0, "no joint checked")
    elif a.case == "slider_crank":
        j, _ = series_case(a, "slider-crank", "examples/slider-crank/deck.mbd", 0.2)
        check(j > 0, "no joint checked")
    elif a.case == "beam":
        j, b = series_case(a, "lateral-buckling", "examples/lateral-buckling/deck.mbd", 0.05)
        check(j > 0 and b > 0, "no joint or beam checked")
    elif a.case == "render":
        render_case(a)
    elif a.case == "plot":
        plot_case(a)
    else:
        check(False, "unknown case " + a.case)
    print("PASS")


if __name__ == "__main__":
    main()
