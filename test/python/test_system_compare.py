"""ss.compare of a system's results: the numbers of `stickslip compare
REF.h5 CAND.h5 -o` (one code in the library, api/compare.c), for
the reference read from its file or given as its configuration."""
import json
import os
import shutil
import subprocess

import pytest

import stickslip as ss

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STICKSLIP_BIN") or os.path.join(ROOT, "build", "debug", "stickslip")
SERVO = os.path.join(ROOT, "examples", "servo_backlash.yaml")


def cli(*args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The servo with backlash, and a run of it at rtol 1e-6 (real errors
    in every column, the same events)."""
    import h5py

    d = tmp_path_factory.mktemp("syscmp")
    ref, lo, mm = str(d / "ref.h5"), str(d / "lo.h5"), str(d / "mm.h5")
    cli("run", SERVO, "-o", ref, "--quiet")
    cli("run", SERVO, "-o", lo, "--quiet", "--set", "simulation.rtol=1e-6")
    shutil.copyfile(ref, mm)
    with h5py.File(mm, "a") as f:
        f["trajectory/x"][...] = f["trajectory/x"][:] + 1e-3
    return d, ref, lo, mm


@pytest.mark.parametrize("cand", ["lo", "mm"])
def test_the_numbers_of_the_command(files, cand):
    d, ref, lo, mm = files
    path = {"lo": lo, "mm": mm}[cand]
    out = str(d / f"{cand}.json")
    cli("compare", ref, path, "-o", out)
    with open(out, encoding="utf-8") as f:
        want = json.load(f)
    del want["units"]
    # The reference as the file ss.read gives, and as its configuration;
    # the candidate as a path and as its SystemResult.
    assert ss.compare(ss.read(ref), path) == want
    assert ss.compare(ss.load(SERVO), ss.read(path)) == want
    if cand == "mm":
        assert [b["max_abs_error_v"] for b in want["bodies"]] == [0.0, 0.0, 0.0]
        assert all(abs(b["max_abs_error_x"] - 1e-3) < 1e-15 for b in want["bodies"])
    else:
        assert all(0 < b["max_abs_error_x"] < 1e-4 for b in want["bodies"])


def test_event_window_and_misuse(files):
    d, ref, lo, mm = files
    rep = ss.compare(ss.read(ref), lo, event_window=1e-9)
    assert rep["event_window"] == 1e-9
    with pytest.raises(TypeError, match="compared with a result file"):
        ss.compare(ss.read(ref), lo, [0.0, 1.0])
    with pytest.raises(ss.InputError, match="not the result of a system of bodies"):
        ss.compare(ss.read(ref), SERVO)
    element = ss.load(os.path.join(ROOT, "examples", "den_hartog.yaml"))
    with pytest.raises(ss.InputError, match="ref is the one element"):
        ss.compare(element, lo)
