#!/usr/bin/python3
"""bench_mpi.py - what `mpirun -n K stickslip-mpi sweep --jobs 1` gains over
`stickslip sweep --jobs 1` on one machine.

One study of Janecek variants (friction.dynamic x base amplitude, summary
only) run by each command in turn, ROUNDS times interleaved (so that a
change of the machine's load hits every command alike), each into a fresh
file.  Per command: the median wall time, the median CPU time (user +
system of the command and its children: mpirun and every rank), and the
throughput against `stickslip sweep --jobs 1` (its median wall time over
the command's), and against the median CPU time of `stickslip sweep --jobs
1` (which runs its variants one after another in one thread, its writing
thread aside at ~10 us a row, so no machine runs it in much less wall time
than that: on a loaded machine this is about a lower bound of the speed-up
an idle one would show).  The load average (uptime)
is printed before every round: figures taken beside other work say so.  The files of every command are
compared with the first `--jobs 1` file, every summary column but the wall
time bit for bit.

usage: benchmarks/bench_mpi.py [--build DIR] [--rounds N] [--per-axis N] [--ranks K,...]
                               [--other DIR]
  (default: build/release if built, else build/debug; 5 rounds; 100 x 100 =
  10,000 variants, ~15 s of CPU: mpirun's start-up, ~0.3 s, is then small;
  mpirun -n 2).  --other DIR: also `mpirun -n 2` of another build's
  stickslip-mpi (an earlier version, to compare).
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd):
    c0, t0 = child_cpu(), time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t1, c1 = time.monotonic(), child_cpu()
    if p.returncode:
        sys.exit(f"bench_mpi: {' '.join(cmd)} exited {p.returncode}: {p.stderr}")
    return t1 - t0, c1 - c0


def summary(path):
    with h5py.File(path, "r") as f:
        s = f["study/summary"]
        return {k: np.asarray(s[k][()]).tobytes() for k in s if k != "wall_seconds"}


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = os.path.join(ROOT, "build", "release")
    if not os.path.isfile(os.path.join(default, "stickslip-mpi")):
        default = os.path.join(ROOT, "build", "debug")
    ap.add_argument("--build", default=default)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--per-axis", type=int, default=100)
    ap.add_argument("--ranks", default="2")
    ap.add_argument("--other", default="")
    a = ap.parse_args()
    cli, mpi = os.path.join(a.build, "stickslip"), os.path.join(a.build, "stickslip-mpi")
    mpirun = shutil.which("mpirun")
    if not mpirun or not os.path.isfile(mpi):
        sys.exit("bench_mpi: needs mpirun and stickslip-mpi")
    n = a.per_axis * a.per_axis
    with tempfile.TemporaryDirectory() as d:
        study = os.path.join(d, "study.yaml")
        with open(study, "w") as f:
            f.write(f"base: {ROOT}/examples/janecek_chirp.yaml\n"
                    "vary:\n"
                    f"  friction.dynamic: {{linspace: [10, 25, {a.per_axis}]}}\n"
                    f"  inputs.base_motion.amplitude: {{linspace: [0.02, 0.08, {a.per_axis}]}}\n")
        cmds = {"sweep --jobs 1": [cli, "sweep", study, "-q", "-j", "1"],
                "sweep --jobs 2": [cli, "sweep", study, "-q", "-j", "2"]}
        for k in a.ranks.split(","):
            cmds[f"mpirun -n {k} --jobs 1"] = [mpirun, "-q", "--allow-run-as-root",
                                               "--oversubscribe", "-n", k, mpi, "sweep", study,
                                               "-q", "-j", "1"]
        if a.other:
            cmds["mpirun -n 2 (other)"] = [mpirun, "-q", "--allow-run-as-root", "--oversubscribe",
                                           "-n", "2", os.path.join(a.other, "stickslip-mpi"),
                                           "sweep", study, "-q", "-j", "1"]
        wall = {k: [] for k in cmds}
        cpu = {k: [] for k in cmds}
        ref = None
        print(f"{n} Janecek variants, summary only; {a.build}")
        for r in range(a.rounds):
            print(f"round {r + 1}: load {load()}", flush=True)
            for k, cmd in cmds.items():
                out = os.path.join(d, f"r{r}.h5")
                w, c = timed(cmd + ["-o", out])
                wall[k].append(w)
                cpu[k].append(c)
                s = summary(out)
                ref = ref or s
                if s != ref:
                    sys.exit(f"bench_mpi: {k} wrote a different summary")
                os.remove(out)
                print(f"  {k:24} {w:7.2f} s wall  {c:7.2f} s CPU", flush=True)
        print(f"load after: {load()}")
        base = statistics.median(wall["sweep --jobs 1"])
        base_cpu = statistics.median(cpu["sweep --jobs 1"])
        print(f"\n{'command':24} {'wall (median)':>14} {'CPU (median)':>13} {'variants/s':>11}"
              f" {'x jobs 1':>9} {'x jobs 1 CPU':>13}")
        for k in cmds:
            w, c = statistics.median(wall[k]), statistics.median(cpu[k])
            print(f"{k:24} {w:12.2f} s {c:11.2f} s {n / w:11.0f} {base / w:9.2f}"
                  f" {base_cpu / w:13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
