#!/usr/bin/python3
"""Overhead of ss.run over the C run, Janecek case (examples/janecek_chirp.yaml).

Times the same run three ways, interleaved, N rounds (min and median of
the wall time, and the median of the calling thread's CPU time, which a
machine busy with other processes disturbs far less):
  C       stsl_run_result + stsl_result_free called directly (cffi's call
          costs ~1 µs: this is the C run);
  ss.run  the whole Python call: config copy, run, columns and events into
          numpy, C result freed;
  summary stsl_run with STSL_OUTPUT_NONE (what ss.sweep does per variant).

    PYTHONPATH=build/release/python /usr/bin/python3 benchmarks/bench_python.py [N] [CONFIG]

CONFIG (default the Janecek example) chooses another case, e.g. one with
many events, where the events' conversion weighs more.
"""
import os
import statistics
import sys
import time

import stickslip as ss
from stickslip._lib import ffi, lib

N = int(sys.argv[1]) if len(sys.argv) > 1 else 30
CONFIG = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "examples", "janecek_chirp.yaml")
cfg = ss.load(CONFIG)


def c_run():
    out = ffi.new("stsl_result **")
    err = ffi.new("stsl_err *")
    if lib.stsl_run_result(cfg._h, out, err) != 0:
        raise SystemExit(ffi.string(err.message).decode())
    lib.stsl_result_free(out[0])


def c_summary():
    s = ffi.new("stsl_summary *")
    err = ffi.new("stsl_err *")
    lib.stsl_run(cfg._h, lib.STSL_OUTPUT_NONE, ffi.NULL, s, err)


def py_run():
    ss.run(cfg)


def measure(fs):
    """Times of each function, interleaved (one of each per round) so that
    a change of machine load hits all alike: wall min, wall median and CPU
    (thread) median, in ms."""
    wall = {f: [] for f in fs}
    cpu = {f: [] for f in fs}
    for f in fs:
        f()  # warm up
    for _ in range(N):
        for f in fs:
            c0, t0 = time.thread_time(), time.perf_counter()
            f()
            wall[f].append(time.perf_counter() - t0)
            cpu[f].append(time.thread_time() - c0)
    return {f: (min(wall[f]) * 1e3, statistics.median(wall[f]) * 1e3,
                statistics.median(cpu[f]) * 1e3) for f in fs}


m = measure([c_run, py_run, c_summary])
(c, cm, cc), (p, pm, pc), (s, sm, sc) = m[c_run], m[py_run], m[c_summary]
print(f"{os.path.basename(CONFIG)} ({len(ss.run(cfg).events)} events), {N} rounds; "
      "wall min / wall median / CPU median:")
print(f"  C stsl_run_result     {c:8.3f} / {cm:8.3f} / {cc:8.3f} ms")
print(f"  ss.run                {p:8.3f} / {pm:8.3f} / {pc:8.3f} ms")
print(f"  C stsl_run (summary)  {s:8.3f} / {sm:8.3f} / {sc:8.3f} ms")
print(f"  overhead of ss.run: wall min {p - c:+.3f} ms ({(p / c - 1) * 100:+.1f} %), "
      f"CPU median {pc - cc:+.3f} ms ({(pc / cc - 1) * 100:+.1f} %)")
