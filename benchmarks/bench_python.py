#!/usr/bin/python3
"""Overhead of ss.run over the C run, Janecek case (examples/janecek_chirp.yaml).

Times, median of N repetitions each, the same run three ways:
  C       stsl_run_result + stsl_result_free called directly (cffi's call
          costs ~1 µs: this is the C run);
  ss.run  the whole Python call: config copy, run, columns and events into
          numpy, C result freed;
  summary stsl_run with STSL_OUTPUT_NONE (what ss.sweep does per variant).

    PYTHONPATH=build/release/python /usr/bin/python3 benchmarks/bench_python.py [N]
"""
import os
import statistics
import sys
import time

import stickslip as ss
from stickslip._lib import ffi, lib

N = int(sys.argv[1]) if len(sys.argv) > 1 else 30
cfg = ss.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                           "janecek_chirp.yaml"))


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


def median_ms(f):
    f()  # warm up
    times = []
    for _ in range(N):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


c = median_ms(c_run)
p = median_ms(py_run)
s = median_ms(c_summary)
print(f"Janecek, {N} runs each, median wall time:")
print(f"  C stsl_run_result     {c:8.3f} ms")
print(f"  ss.run                {p:8.3f} ms   overhead {p - c:+.3f} ms ({(p / c - 1) * 100:+.1f} %)")
print(f"  C stsl_run (summary)  {s:8.3f} ms")
