#!/usr/bin/python3
"""bench_chain_compare - two bench_chain executables, interleaved.

Runs OLD and NEW (two builds of benchmarks/bench_chain.c, e.g. a scratch
Release build of an older commit and this tree's) alternately, ROUNDS
times each (OLD, NEW, OLD, NEW, ...), each invocation with the same run
counts per size, so that a machine whose load drifts weighs on both
alike.  Prints per build and size the median over the rounds of the
invocations' median cost per run, the events, the cost per event, the
exponent p of cost per run ~ N^p fitted over N = 2, 10, 50 (least squares
on log-log, as bench_chain's own), and NEW/OLD of the cost per event at
each size; also each build's median CPU time per invocation (user + system
of the child: less disturbed by other processes than the wall time).

    benchmarks/bench_chain_compare.py OLD NEW [--rounds R] [--runs R2,R10,R50]

A benchmark, never a test.  Standard library only.
"""
import argparse
import math
import re
import resource
import statistics
import subprocess
import sys

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
    ap.add_argument("--runs", default="5,3,1", help="runs per invocation for N = 2, 10, 50")
    a = ap.parse_args()
    runs = [int(r) for r in a.runs.split(",")]
    res = {"old": [], "new": []}
    cpu = {"old": [], "new": []}
    for r in range(a.rounds):
        for which, exe in (("old", a.old), ("new", a.new)):
            sizes, c = run_once(exe, runs)
            res[which].append(sizes)
            cpu[which].append(c)
            print("round %d %s: %s, cpu %.2f s" % (r + 1, which, ", ".join(
                "N=%d %.0f us" % (n, sizes[n][0]) for n in sorted(sizes)), c), flush=True)
    ns = sorted(res["old"][0])
    per_event = {}
    for which in ("old", "new"):
        med = [statistics.median(s[n][0] for s in res[which]) for n in ns]
        events = [res[which][-1][n][1] for n in ns]
        per_event[which] = [m / max(e, 1) for m, e in zip(med, events)]
        print("%s (%s):" % (which, a.old if which == "old" else a.new))
        for n, m, e, pe in zip(ns, med, events, per_event[which]):
            print("  N = %2d: %12.1f us/run (median of %d rounds), %6d events, %8.1f us/event"
                  % (n, m, a.rounds, e, pe))
        print("  cost per run ~ N^%.2f; median CPU per invocation %.2f s"
              % (slope(ns, med), statistics.median(cpu[which])))
    for n, o, w in zip(ns, per_event["old"], per_event["new"]):
        print("cost per event new/old at N = %2d: %.3f" % (n, w / o))


if __name__ == "__main__":
    main()
