#!/usr/bin/python3
"""bench_chain_compare - two bench_chain executables, interleaved.

Runs OLD and NEW (two builds of benchmarks/bench_chain.c, e.g. a scratch
Release build of an older commit and this tree's) alternately, ROUNDS
times each, so that a machine whose load drifts weighs on both alike.  A
round gives each build four invocations: one run of every size (1 1 1),
then K2, K10 or K50 runs of one size (K2 1 1, 1 K10 1, 1 1 K50).  The CPU
time (user + system) of a size's extra invocation less that of the first,
divided by K - 1, is the CPU cost of one run of that size: a figure that
other processes on a shared machine disturb far less than the wall time
(they take the cores, not this process's instructions).  The wall time per
run that bench_chain itself prints (median of its K runs) is shown too.

Prints per build and size the median over the rounds of both costs, the
events, the costs per event, the exponent p of cost per run ~ N^p fitted
over N = 2, 10, 50 (least squares on log-log, as bench_chain's own), and
NEW/OLD of the cost per event at each size.

    benchmarks/bench_chain_compare.py OLD NEW [--rounds R] [--k K2,K10,K50] (default 5 rounds, K 301,21,3)

A benchmark, never a test.  Standard library only.
"""
import argparse
import math
import re
import resource
import statistics
import subprocess
import sys

SIZES = (2, 10, 50)
LINE = re.compile(r"N =\s*(\d+) bodies.*?:\s*([0-9.]+) us/run.*?(\d+) events,\s*(\d+) steps")


def run_once(exe, runs):
    """One invocation: {N: (us per run, events, steps)} and its CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([exe] + [str(r) for r in runs], check=True, capture_output=True,
                         text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    sizes = {}
    for m in LINE.finditer(out):
        sizes[int(m.group(1))] = (float(m.group(2)), int(m.group(3)), int(m.group(4)))
    if len(sizes) != 3:
        sys.exit("bench_chain_compare: %s printed no three sizes:\n%s" % (exe, out))
    return sizes, cpu


def slope(ns, ys):
    """Least-squares slope of log y against log n."""
    lx = [math.log(n) for n in ns]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--k", default="301,21,3", help="runs of the extra invocations, N = 2, 10, 50")
    a = ap.parse_args()
    ks = [int(k) for k in a.k.split(",")]
    builds = (("old", a.old), ("new", a.new))
    cpu = {w: {n: [] for n in SIZES} for w, _ in builds}
    wall = {w: {n: [] for n in SIZES} for w, _ in builds}
    events = {}
    for r in range(a.rounds):
        for which, exe in builds:
            base, c0 = run_once(exe, [1, 1, 1])
            for i, n in enumerate(SIZES):
                runs = [1, 1, 1]
                runs[i] = ks[i]
                sizes, c = run_once(exe, runs)
                cpu[which][n].append(1e6 * (c - c0) / (ks[i] - 1))
                wall[which][n].append(sizes[n][0])
                events[which, n] = sizes[n][1]
            print("round %d %s: CPU per run %s" % (r + 1, which, ", ".join(
                "N=%d %.0f us" % (n, cpu[which][n][-1]) for n in SIZES)), flush=True)
    per_event = {}
    for which, exe in builds:
        print("%s (%s):" % (which, exe))
        for kind, data in (("cpu", cpu), ("wall", wall)):
            med = [statistics.median(data[which][n]) for n in SIZES]
            per_event[which, kind] = [m / max(events[which, n], 1) for m, n in zip(med, SIZES)]
            for n, m, pe in zip(SIZES, med, per_event[which, kind]):
                print("  N = %2d: %-4s %12.1f us/run (median of %d rounds), %6d events, %8.1f us/event"
                      % (n, kind, m, a.rounds, events[which, n], pe))
            print("  %s cost per run ~ N^%.2f" % (kind, slope(SIZES, med)))
    for kind in ("cpu", "wall"):
        print("cost per event new/old (%s): %s" % (kind, ", ".join(
            "N = %d: %.3f" % (n, w / o) for n, o, w in
            zip(SIZES, per_event["old", kind], per_event["new", kind]))))


if __name__ == "__main__":
    main()
