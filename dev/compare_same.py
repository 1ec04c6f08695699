#!/usr/bin/python3
"""compare_same - does `stickslip compare` print and write the same with two builds?

A developer's check for refactoring `compare` (dev/one-engine-plan.md): the
inputs are made once with OLD (every example's result as HDF5, MAT and CSV;
a copy with every position shifted by 1 mm; fixed-step and coarse-rtol
candidates; candidates shifted in time), then a set of `compare` commands
runs with OLD and with NEW, each in its own directory, and their exit codes,
stdout, stderr and JSON reports are compared byte for byte.  Not a test: the
suite cannot depend on an old build.

Usage: dev/compare_same.py OLD_STICKSLIP NEW_STICKSLIP [EXAMPLE...]
With build/debug/fmus (the test FMUs) present, `compare --fmu` runs too.
Prints one line per command that differs (or IDENTICAL) and exits 1 when
any differs.  Needs h5py (Debian's python3).
"""
import csv
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def is_system(config):
    with open(config) as f:
        return any(line.startswith("bodies:") for line in f)


def shifted_copy(src, dst, dx=0.0, dt=0.0):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        tr = f["trajectory"]
        if dx:
            tr["x"][...] = tr["x"][()] + dx
        if dt:
            tr["t"][...] = tr["t"][()] + dt


def failing_copy(src, dst):
    """A copy whose /config allows 2 events: its re-run fails (exit 3)."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        c = re.sub(r"max_events: *\d+", "max_events: 2", f["config"][()].decode())
        del f["config"]
        f["config"] = c.encode()


def shifted_csv(src, dst, dt):
    with open(src) as f, open(dst, "w", newline="") as g:
        r, w = csv.reader(f), csv.writer(g)
        head = next(r)
        w.writerow(head)
        for row in r:
            row[0] = repr(float(row[0]) + dt)
            w.writerow(row)


def make_inputs(old, name, config, d):
    """Inputs for one example in d; returns the list of compare argument lists."""
    ref = os.path.join(d, name + ".h5")
    rc, _, err = sh([old, "run", config, "-o", ref, "-q", "--csv", os.path.join(d, name)], ROOT)
    if rc:
        print(f"{name}: reference run failed ({rc}): {err.decode()[:200]}")
        return []
    t_end = float(h5py.File(ref, "r")["trajectory"]["t"][-1])
    p = "../in/" + name
    cmds = [[p + ".h5", p + ".h5"], [p + ".h5", p + ".h5", "-o", "r.json"]]
    shifted_copy(ref, os.path.join(d, name + "_dx.h5"), dx=1e-3)
    cmds.append([p + ".h5", p + "_dx.h5", "-o", "r.json"])
    failing_copy(ref, os.path.join(d, name + "_fail.h5"))
    cmds.append([p + "_fail.h5", p + ".h5", "-o", "r.json"])
    if is_system(config):
        cmds += [[p + ".h5", p + "_trajectory.csv"], [p + ".h5", p + ".h5", "--columns", "t,x,v"],
                 [p + ".h5", p + ".h5", "--stuck-velocity", "1e-3"],
                 [p + ".h5", p + ".h5", "--event-window", "1e-4", "-o", "r.json"]]
        return cmds
    sh([old, "run", config, "-o", ref[:-3] + ".mat", "-q"], ROOT)
    mat = ["--columns", "t=trajectory.t,x=trajectory.x,v=trajectory.v,friction=trajectory.friction"]
    cmds += [[p + ".h5", p + ".mat"], [p + ".h5", p + ".mat"] + mat,
             [p + ".h5", p + "_trajectory.csv", "-o", "r.json"],
             [p + ".h5", p + "_trajectory.csv", "--columns", "t,x,v,friction", "-o", "r.json"],
             [p + ".h5", p + "_trajectory.csv", "--columns", "t,x,nope"],
             [p + ".h5", p + "_trajectory.csv", "--stuck-velocity", "1e-3", "--event-window", "1e-3"]]
    # Fixed-step candidates (hybrid laws only for two of them) and a coarse rtol.
    variants = {"karnopp": ["--set", "simulation.scheme=karnopp"],
                "fsh": ["--set", "simulation.scheme=fixed_step_hybrid"],
                "rk4": ["--set", "simulation.scheme=smooth_rk4"],
                "rtol": ["--set", "simulation.rtol=1e-4"]}
    for v, opts in variants.items():
        if v != "rtol":
            opts = opts + ["--set", f"simulation.step={t_end / 4000!r}"]
        out = os.path.join(d, f"{name}_{v}")
        rc, _, _ = sh([old, "run", config, "-o", out + ".h5", "-q", "--csv", out] + opts, ROOT)
        if rc:
            continue
        sh([old, "run", config, "-o", out + ".mat", "-q"] + opts, ROOT)
        q = f"../in/{name}_{v}"
        cmds += [[p + ".h5", q + ".h5", "-o", "r.json"], [p + ".h5", q + ".mat"] + mat,
                 [p + ".h5", q + "_trajectory.csv", "-o", "r.json"],
                 [p + ".h5", q + "_trajectory.csv", "--columns", "t,x,v,friction"],
                 [p + ".h5", q + "_trajectory.csv", "--stuck-velocity", "1e-2"]]
    # Time ranges: half outside (points dropped), wholly outside (an error).
    shifted_csv(os.path.join(d, name + "_trajectory.csv"), os.path.join(d, name + "_half.csv"),
                t_end / 2)
    shifted_csv(os.path.join(d, name + "_trajectory.csv"), os.path.join(d, name + "_out.csv"),
                2 * t_end + 1)
    shifted_copy(ref, os.path.join(d, name + "_dt.h5"), dt=t_end / 3)
    cmds += [[p + ".h5", p + "_half.csv", "-o", "r.json"], [p + ".h5", p + "_out.csv"],
             [p + ".h5", p + "_dt.h5", "-o", "r.json"], [p + ".h5", p + "_missing.csv"]]
    return cmds


TWO_BODY = """bodies:
  a: {mass: 1.0}
  b: {mass: 0.5}
couplings:
  - {between: [a, b], stiffness: 100.0}
contacts:
  - {body: a, name: guide, law: coulomb, dynamic: 1.0, static_ratio: 1.5}
inputs:
  forces:
    b: {type: sine, amplitude: 3.0, frequency: 1.0}
simulation: {t_end: 2.0, output_step: 0.001}
"""


def fmu_cases(old, d):
    """`compare --fmu` of the element (Janecek's chirp against the Karnopp
    FMU, as test_fmu) and of a system (test/fmu/two_body_system.h)."""
    fmus = os.path.join(ROOT, "build", "debug", "fmus")
    if not os.path.isdir(fmus):
        return []
    sets = ["--fmu-set", "m=100", "--fmu-set", "k=8882.643960980423", "--fmu-set", "c=200",
            "--fmu-set", "F_D=18", "--fmu-set", "F_S=26"]
    sh([old, "run", os.path.join(ROOT, "examples", "janecek_chirp.yaml"), "-o",
        os.path.join(d, "jc.h5"), "-q"], ROOT)
    with open(os.path.join(d, "two.yaml"), "w") as f:
        f.write(TWO_BODY)
    sh([old, "run", os.path.join(d, "two.yaml"), "-o", os.path.join(d, "two.h5"), "-q"], ROOT)
    k, two = os.path.join(fmus, "karnopp.fmu"), os.path.join(fmus, "two_body.fmu")
    return [["../in/jc.h5", "--fmu", k, "--step", "1e-3", "-o", "r.json"] + sets,
            ["../in/jc.h5", "--fmu", k, "--step", "2e-3", "--stuck-velocity", "1e-3"] + sets,
            ["../in/jc.h5", "--fmu", os.path.join(fmus, "step_error.fmu"), "--step", "1e-3"],
            ["../in/two.h5", "--fmu", two, "--fmu-input", "F=bodies.b.force", "--step", "1e-3",
             "-o", "r.json"],
            ["../in/two.h5", "--fmu", k, "--step", "1e-3"]]


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    old, new = (os.path.abspath(a) for a in argv[:2])
    names = argv[2:]
    configs = sorted(glob.glob(os.path.join(ROOT, "examples", "*.yaml")))
    if names:
        configs = [c for c in configs if os.path.basename(c)[:-5] in names]
    top = tempfile.mkdtemp(prefix="compare_same_")
    d_in, d_old, d_new = (os.path.join(top, s) for s in ("in", "old", "new"))
    for d in (d_in, d_old, d_new):
        os.makedirs(d)
    cmds = []
    for c in configs:
        cmds += make_inputs(old, os.path.basename(c)[:-5], c, d_in)
    # An element's reference with a system's candidate and the reverse.
    if os.path.exists(os.path.join(d_in, "servo_backlash.h5")) and \
            os.path.exists(os.path.join(d_in, "den_hartog.h5")):
        cmds += [["../in/den_hartog.h5", "../in/servo_backlash.h5"],
                 ["../in/servo_backlash.h5", "../in/den_hartog.h5"],
                 # A report that cannot be written (exit 1), one that would be an input.
                 ["../in/den_hartog.h5", "../in/den_hartog.h5", "-o", "no/r.json"],
                 ["../in/servo_backlash.h5", "../in/servo_backlash.h5", "-o", "no/r.json"],
                 ["../in/den_hartog.h5", "../in/den_hartog_trajectory.csv", "-o",
                  "../in/den_hartog_trajectory.csv"]]
    cmds += fmu_cases(old, d_in)
    bad = 0
    for args in cmds:
        res = []
        for exe, d in ((old, d_old), (new, d_new)):
            if os.path.exists(os.path.join(d, "r.json")):
                os.remove(os.path.join(d, "r.json"))
            rc, out, err = sh([exe, "compare"] + args, d)
            js = open(os.path.join(d, "r.json"), "rb").read() if "-o" in args and \
                os.path.exists(os.path.join(d, "r.json")) else None
            res.append((rc, out, err, js))
        line = " ".join(args)
        if res[0] == res[1]:
            print(f"IDENTICAL (exit {res[0][0]}) {line}")
            continue
        bad += 1
        what = [k for k, a, b in zip(("exit", "stdout", "stderr", "json"), res[0], res[1]) if a != b]
        print(f"DIFFERS in {', '.join(what)}: {line}")
        for k, a, b in zip(("exit", "stdout", "stderr", "json"), res[0], res[1]):
            if a != b and k != "exit":
                for la, lb in zip((a or b"").splitlines(), (b or b"").splitlines()):
                    if la != lb:
                        print(f"   old {k}: {la.decode()}\n   new {k}: {lb.decode()}")
                        break
    print(f"{len(cmds)} commands, {bad} differ; inputs in {top}")
    if not bad:
        shutil.rmtree(top)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
