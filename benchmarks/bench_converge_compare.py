#!/usr/bin/python3
"""bench_converge_compare - `stickslip converge` of two builds, interleaved.

Runs OLD and NEW (two `stickslip` executables, e.g. a scratch Release build
of an older commit and this tree's) alternately on the fixed-step cases
below, ROUNDS times each, so that a machine whose load drifts weighs on
both alike, and prints per case the median CPU time (user + system) of a
whole `converge` and NEW/OLD.  CPU time, not wall time: other processes on
a shared machine take the cores, not this process's instructions.  The
cases are the element's examples with the scheme each one is usually
validated with (examples/validate_fixed_step.md for the first), and two
systems (--systems).  Every case runs from examples/, as a user would.

    benchmarks/bench_converge_compare.py OLD NEW [--rounds R] [--systems] (default 5 rounds)

A benchmark, never a test.  Standard library only.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
ELEMENT = [("janecek_chirp.yaml", "karnopp", "2e-3,1e-3,5e-4,2e-4,1e-4"),
           ("den_hartog.yaml", "fixed_step_hybrid", "1e-3,5e-4,2e-4,1e-4"),
           ("belt_stick_slip.yaml", "smooth_rk4", "1e-3,5e-4,2e-4,1e-4")]
SYSTEMS = [("servo_two_mass.yaml", "karnopp", "1e-4,5e-5"),
           ("servo_backlash.yaml", "smooth_rk4", "1e-5,5e-6")]


def cpu_seconds(exe, case):
    """CPU seconds of one `converge` of case (config, scheme, steps)."""
    config, scheme, steps = case
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([exe, "converge", config, "--scheme", scheme, "--steps", steps], cwd=EXAMPLES,
                   check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs=2, metavar="EXE", help="the OLD, then the NEW stickslip")
    ap.add_argument("--systems", action="store_true", help="also the two systems")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    exes = [os.path.abspath(e) for e in a.builds]
    cases = ELEMENT + (SYSTEMS if a.systems else [])
    cpu = {(c, e): [] for c in cases for e in exes}
    for _ in range(a.rounds):
        for c in cases:
            for e in exes:
                cpu[(c, e)].append(cpu_seconds(e, c))
    print(f"{'config':24s} {'scheme':18s} {'OLD s':>8s} {'NEW s':>8s} {'NEW/OLD':>8s}"
          f"   (median CPU of {a.rounds} interleaved rounds)")
    for c in cases:
        old, new = (statistics.median(cpu[(c, e)]) for e in exes)
        print(f"{c[0]:24s} {c[1]:18s} {old:8.3f} {new:8.3f} {new / old:8.2f}")
    with open("/proc/loadavg") as f:
        print("load average:", " ".join(f.read().split()[:3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
