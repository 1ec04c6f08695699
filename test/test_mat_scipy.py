#!/usr/bin/python3
"""`stickslip run -o OUT.mat` read by scipy.io.loadmat (as a Python user
loads a MAT file, default options): every rotational example's units keep
their characters ("N·m", not bytes), the YAML text reads back as the HDF5
result's /config, and the trajectory and
events hold exactly the HDF5 result's numbers.  The unit strings come from
the HDF5 file of the same run (one table, models/element.c), plus the
literal torque unit so that both files cannot be wrong the same way.

Exit 77 (ctest: skipped) when scipy is not installed."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")
sys.path.insert(0, EXAMPLES)
try:
    import scipy.io
except ImportError:
    print("scipy is not installed: test skipped")
    sys.exit(77)
import numpy as np  # noqa: E402
import read_result  # noqa: E402

BIN = os.environ["STICKSLIP_BIN"]
ROTATIONAL = ["20sim_scvs.yaml", "simscape_rotational.yaml"]


def text(a):
    """A loadmat char array as str (an empty one loads as shape (0,) or (1, 0))."""
    return "".join(a.ravel()) if a.size else ""


def check(example, d):
    h5, mat = os.path.join(d, "r.h5"), os.path.join(d, "r.mat")
    for out in (h5, mat):
        subprocess.run([BIN, "run", os.path.join(EXAMPLES, example), "-o", out, "-q"], check=True)
    r = read_result.read(h5)
    m = scipy.io.loadmat(mat)  # raised "buffer is too small" on N·m before
    units = m["units"][0, 0]
    assert text(units["friction"]) == "N\u00b7m", (example, text(units["friction"]))
    assert text(units["x"]) == "rad", example
    for name, unit in r["units"].items():
        assert text(units[name]) == unit, (example, name, text(units[name]), unit)
    assert text(m["config"]) == r["config"], example
    assert text(m["program"]) == "stickslip" and m["complete"][0, 0] == 1, example
    tr = m["trajectory"][0, 0]
    for name, col in r["trajectory"].items():
        got = tr[name].ravel()
        # Exact: the MAT file stores the same doubles (and int8 modes).
        assert got.shape == col.shape and np.array_equal(got, col), (example, name)
    ev = m["events"][0, 0]
    kinds = [text(k) for k in ev["kind"].ravel()]
    assert kinds == [e["kind"] for e in r["events"]], example
    assert np.array_equal(ev["t"].ravel(), [e["t"] for e in r["events"]]), example
    print(f"{example}: {len(r['trajectory']['t'])} samples, {len(kinds)} events, "
          f"friction [{text(units['friction'])}], x(end) = {tr['x'].ravel()[-1]!r}")


def main():
    with tempfile.TemporaryDirectory() as d:
        for example in ROTATIONAL:
            check(example, d)
    print("ok")


if __name__ == "__main__":
    main()
