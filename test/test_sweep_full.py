#!/usr/bin/python3
"""`store: full`: each variant's whole result under /runs/NNNNNN.

- A variant's /runs/NNNNNN equals the file of a single `stickslip run` of
  that configuration: every dataset of /trajectory and /events byte for
  byte, /config as text, every /stats attribute but the wall time, the
  root attributes but the creation time; an invalid variant has none.
- `--jobs 1` and `--jobs 2` write the same /runs and /study/summary.
- --resume of a file whose last rows were not declared done (their groups
  left half written, as a study killed between a flush of the results and
  that of the counts leaves them) replaces those groups; a study killed
  with SIGKILL mid-way and resumed equals the uninterrupted one."""

import os
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ["STICKSLIP_BIN"]
BASE = os.path.join(HERE, "..", "examples", "janecek_chirp.yaml")
# The study killed mid-way: short runs (2000 samples), so that its files
# stay small (they stick all along: the chirp's first events come later).
T_END = ["--set", "simulation.t_end=2"]


def sweep(*args):
    return subprocess.run([BIN, "sweep", *args], capture_output=True, text=True)


def values(obj):
    """A dataset's content: strings by value, numbers by their bytes."""
    x = np.asarray(obj[()])
    return x.tolist() if x.dtype.kind == "O" else (x.dtype.str, x.shape, x.tobytes())


def attrs(obj, skip=()):
    return {k: np.asarray(v).tolist() for k, v in obj.attrs.items() if k not in skip}


def same_result(ga, gb, where):
    """Two results in the single-run layout (a file's root or /runs/NNNNNN)
    equal: datasets to the byte, attributes but the times."""
    assert attrs(ga, ["created_utc"]) == attrs(gb, ["created_utc"]), where
    assert attrs(ga["stats"], ["wall_seconds"]) == attrs(gb["stats"], ["wall_seconds"]), where
    items_a, items_b = [], []
    ga.visititems(lambda n, o: items_a.append(n))
    gb.visititems(lambda n, o: items_b.append(n))
    assert sorted(items_a) == sorted(items_b), (where, items_a, items_b)
    for n in items_a:
        if isinstance(ga[n], h5py.Dataset):
            assert values(ga[n]) == values(gb[n]), f"{where}/{n} differs"
            assert attrs(ga[n]) == attrs(gb[n]), f"{where}/{n} attributes differ"


def same_study(a, b):
    """Two full-store study files: the summary (wall time aside), the
    counts and every /runs/NNNNNN equal."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for k in ["n_runs", "n_done", "n_failed", "complete", "store"]:
            assert fa["study"].attrs[k] == fb["study"].attrs[k], k
        sa, sb = fa["study/summary"], fb["study/summary"]
        assert list(sa) == list(sb)
        for name in sa:
            if name != "wall_seconds":
                assert values(sa[name]) == values(sb[name]), f"summary/{name} differs"
        assert list(fa["runs"]) == list(fb["runs"]), (list(fa["runs"]), list(fb["runs"]))
        for name in fa["runs"]:
            same_result(fa["runs"][name], fb["runs"][name], f"/runs/{name}")


def n_done(path):
    try:
        with h5py.File(path, "r") as f:
            return int(f["study"].attrs["n_done"])
    except (OSError, KeyError):
        return -1


# A study started with this environment runs only its first HOLD variants,
# writes and flushes them, and then waits for a signal as though it were
# still running (api/sweep.h): so the signal lands mid-study however fast
# the machine is, and the file holds exactly HOLD rows.
HOLD = 7


def held_env():
    return dict(os.environ, STICKSLIP_TEST_SWEEP_HOLD=str(HOLD))


def signal_when_held(p, out, sig, target=None):
    """Send `sig` to the process `p` (started with held_env()) writing the
    study file `out`, or to the process target() names, once the file
    declares its HOLD rows done; wait for `p` to end.  Returns its stderr
    (None unless piped); asserts that it was stopped mid-study with exactly
    HOLD rows.  No time limit: the process holds until signalled, and an
    early end fails at once."""
    while n_done(out) < HOLD:
        assert p.poll() is None, ("ended before its hold", p.returncode, p.communicate())
        time.sleep(0.01)
    if target:
        os.kill(target(), sig)
    else:
        p.send_signal(sig)
    _, err = p.communicate()
    with h5py.File(out, "r") as f:
        st = f["study"].attrs
        assert st["complete"] == 0 and st["n_done"] == HOLD < st["n_runs"], dict(st)
    return err


# Six variants, two of them invalid (friction.dynamic -1: rows 2 and 3 have
# no result); variant 4 is (18, 0.03).
FULL_STUDY = ("vary:\n  friction.dynamic: {values: [12, -1, 18]}\n"
              "  inputs.base_motion.amplitude: {values: [0.03, 0.06]}\nstore: full\n")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def check_equals_run(d, study, h5):
    """Variant 4 = (18, 0.03) against `stickslip run` of the recorded base."""
    base = os.path.join(d, "base.yaml")
    with h5py.File(h5, "r") as f:
        write(base, f["study/base_config"][()].decode())
        v = [f["study/parameters"][k][4] for k in ["friction.dynamic",
                                                   "inputs.base_motion.amplitude"]]
        assert list(f["runs"]) == ["000000", "000001", "000004", "000005"], list(f["runs"])
    one = os.path.join(d, "one.h5")
    p = subprocess.run([BIN, "run", base, "-o", one, "-q",
                        "--set", f"friction.dynamic={float(v[0])!r}",
                        "--set", f"inputs.base_motion.amplitude={float(v[1])!r}"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with h5py.File(h5, "r") as f, h5py.File(one, "r") as g:
        run = f["runs/000004"]
        same_result(run, g, "/runs/000004")
        assert run.attrs["complete"] == 1 and len(run["events"]) > 5
        # The summary row is this result's: final state to the bit.
        x = run["trajectory/x"][()]
        assert f["study/summary/x_final"][4].tobytes() == x[-1].tobytes()
        assert f["study/summary/events_stick"][4] == sum(
            e == b"stick" for e in run["events"]["kind"])


def check_resume_half_written(d, study, ref):
    """Rows 3.. not declared done; /runs/000004 half written; resume."""
    cut = os.path.join(d, "cut.h5")
    with open(ref, "rb") as src, open(cut, "wb") as dst:
        dst.write(src.read())
    with h5py.File(cut, "r+") as f:
        st = f["study"]
        st.attrs.modify("n_done", np.int64(3))
        st.attrs.modify("n_failed", np.int64(1))  # row 2
        st.attrs.modify("complete", np.int32(0))
        del f["runs/000004/trajectory/x"]  # half written
        f["runs/000005"].attrs.modify("complete", np.int32(0))
    p = sweep(study, "-o", cut, "--resume", "-j", "2")
    assert p.returncode == 3, p.stderr  # the two invalid variants
    assert "6 done (3 in" in p.stdout, p.stdout
    same_study(cut, ref)


def check_kill9_resume(d, base_text):
    study = os.path.join(d, "long.yaml")
    write(study, base_text + "vary:\n  friction.dynamic: {linspace: [10, 25, 60]}\n"
          "  inputs.base_motion.amplitude: {linspace: [0.02, 0.08, 5]}\nstore: full\n")
    out, ref = os.path.join(d, "killed.h5"), os.path.join(d, "long_ref.h5")
    p = subprocess.Popen([BIN, "sweep", study, "-o", out, "-j", "1", *T_END],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=held_env())
    signal_when_held(p, out, signal.SIGKILL)
    assert p.returncode == -signal.SIGKILL, p.returncode
    p = sweep(study, "-o", out, "--resume", "-j", "2", "-q", *T_END)
    assert p.returncode == 0, p.stderr
    p = sweep(study, "-o", ref, "-q", *T_END)
    assert p.returncode == 0, p.stderr
    same_study(out, ref)


def main():
    os.environ["HDF5_USE_FILE_LOCKING"] = "FALSE"  # n_done() reads a file being written
    with tempfile.TemporaryDirectory() as d:
        base_text = f"base: {BASE}\n"
        study = os.path.join(d, "full.yaml")
        write(study, base_text + FULL_STUDY)
        one, two = os.path.join(d, "j1.h5"), os.path.join(d, "j2.h5")
        for out, jobs in [(one, "1"), (two, "2")]:
            p = sweep(study, "-o", out, "-q", "-j", jobs)
            assert p.returncode == 3, p.stderr
        same_study(one, two)
        info = subprocess.run([BIN, "info", one], capture_output=True, text=True).stdout
        assert "4 results under /runs/NNNNNN" in info, info
        check_equals_run(d, study, one)
        check_resume_half_written(d, study, one)
        check_kill9_resume(d, base_text)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
