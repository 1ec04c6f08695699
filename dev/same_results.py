#!/usr/bin/python3
"""same_results - do two builds of stickslip give the same result files?

A developer's check for refactoring stages (dev/one-engine-plan.md): run
every examples/*.yaml with two `stickslip` executables (e.g. a scratch build
of an older commit and the working tree's) and compare the result files bit
for bit: every dataset and attribute, except the creation time and the
wall-clock seconds, which no two runs share.  Not a test: the suite cannot
depend on an old build.

Usage: dev/same_results.py OLD_STICKSLIP NEW_STICKSLIP [-- RUN_OPTION...]
  e.g. dev/same_results.py /tmp/base/build/debug/stickslip build/debug/stickslip -- --verify
Prints one line per example (IDENTICAL, or the datasets that differ) and
exits 1 when any differs or a run's exit codes differ.  Needs h5py.
"""
import glob
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

VARYING = {"created_utc", "created", "wall_seconds", "reference_wall_seconds"}


def canon(x):
    """Bytes that are equal exactly when the values are bit for bit."""
    x = np.asarray(x)
    if x.dtype == object or (x.dtype.names and any(x.dtype[n] == object for n in x.dtype.names)):
        return repr(x.tolist()).encode()  # variable-length strings: compare the text
    return x.tobytes()


def contents(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and os.path.basename(name) not in VARYING:
                out[name] = canon(obj[()])
            for k in obj.attrs:
                if k not in VARYING:
                    out[name + "@" + k] = canon(obj.attrs[k])
        f.visititems(visit)
        for k in f.attrs:
            if k not in VARYING:
                out["@" + k] = canon(f.attrs[k])
    return out


def run(exe, config, out, options):
    cmd = [exe, "run", config, "-o", out, "-q"] + options
    return subprocess.run(cmd, cwd=os.path.dirname(config), capture_output=True).returncode


def main(argv):
    options = argv[argv.index("--") + 1:] if "--" in argv else []
    args = argv[:argv.index("--")] if "--" in argv else argv
    if len(args) != 2:
        sys.exit(__doc__)
    exes = [os.path.abspath(a) for a in args]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for config in sorted(glob.glob(os.path.join(root, "examples", "*.yaml"))):
            name = os.path.splitext(os.path.basename(config))[0]
            files = [os.path.join(tmp, f"{name}.{i}.h5") for i in range(2)]
            codes = [run(e, config, f, options) for e, f in zip(exes, files)]
            if codes[0] != codes[1]:
                print(f"{name}: exit codes {codes[0]} and {codes[1]}")
                differ += 1
                continue
            if not all(os.path.exists(f) for f in files):
                print(f"{name}: no result (exit {codes[0]}) from either")
                continue
            a, b = contents(files[0]), contents(files[1])
            bad = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
            print(f"{name}: " + ("IDENTICAL" if not bad else "DIFFERS in " + ", ".join(bad)))
            differ += bool(bad)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
