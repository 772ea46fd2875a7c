"""What the output test scripts share (vtk_series_test.py, netcdf_test.py, mbdyn_log_test.py):
the SKIP exit code CTest knows (SKIP_RETURN_CODE 77), failing with a message, running a
command, and reading a run's text files."""
import subprocess
import sys

SKIP = 77


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(SKIP)


def check(cond, message):
    if not cond:
        print("FAIL: " + message)
        sys.exit(1)


def run(cmd, expect=0):
    """Runs cmd, fails unless it exits with `expect`; returns its output."""
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != expect:
        print(r.stdout)
        check(False, "exit status %d, expected %d" % (r.returncode, expect))
    return r.stdout


def output_steps(prefix):
    """(step, time, dt) of the .out lines whose output flag is 1."""
    rows = []
    with open(prefix + ".out") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 9 and fields[0] == "Step" and fields[8] == "1":
                rows.append((int(fields[1]), float(fields[2]), float(fields[3])))
    return rows


def blocks(path, nsteps):
    """The label-first lines of a file as nsteps equal blocks of float lists."""
    with open(path) as f:
        rows = [[float(x) for x in line.split()] for line in f if line.strip()]
    check(nsteps > 0 and len(rows) % nsteps == 0,
          "%s: %d lines for %d output steps" % (path, len(rows), nsteps))
    n = len(rows) // nsteps
    return [rows[k * n:(k + 1) * n] for k in range(nsteps)]
