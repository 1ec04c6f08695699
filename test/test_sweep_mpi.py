#!/usr/bin/python3
"""`mpirun stickslip-mpi sweep` writes the same study file as `stickslip
sweep --jobs 1`: every summary column (the wall time aside), the
parameters, the event table and the counts equal bit for bit, with one
worker rank and with two (whose chunks arrive out of order and must be
written in variant order), a failed variant's message included; with
store: full every /runs/NNNNNN too; a bad study ends with exit 2 and no
file.  Resuming under MPI: a study stopped by Ctrl-C (SIGINT) to mpirun
is left incomplete by rank 0, and one killed with SIGKILL in a threaded
run is cut back to its last flush (both held after 7 variants, so that
the signal lands mid-study whatever the machine's speed:
STICKSLIP_TEST_SWEEP_HOLD); `mpirun -n 2 stickslip-mpi sweep
--resume` ends either with the summary of the uninterrupted study.
Exit 77 (skipped) without mpirun."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile

from test_sweep_full import FULL_STUDY, HOLD, held_env, same_study, signal_when_held

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ["STICKSLIP_BIN"]
MPI_BIN = os.environ["STICKSLIP_MPI_BIN"]
BASE = os.path.join(HERE, "..", "examples", "janecek_chirp.yaml")
MPIRUN = shutil.which("mpirun")
ATTRS = ["n_runs", "n_done", "n_failed", "n_event_rows", "complete", "store", "combine"]


def mpirun(n, *args):
    return subprocess.run([MPIRUN, "--allow-run-as-root", "--oversubscribe", "-n", str(n),
                           MPI_BIN, "sweep", *args], capture_output=True, text=True)


def same(a, b, path):
    """Every dataset under `path` equal byte for byte (NaN payloads too)."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        ga, gb = fa[path], fb[path]
        if isinstance(ga, h5py.Dataset):  # a table (/study/events)
            ga, gb = {"": ga}, {"": gb}
        assert sorted(ga) == sorted(gb), (sorted(ga), sorted(gb))
        for name in ga:
            if name == "wall_seconds":
                continue
            x, y = np.asarray(ga[name][()]), np.asarray(gb[name][()])
            # Strings (object arrays) by value; numbers by their bytes.
            eq = x.tolist() == y.tolist() if x.dtype.kind == "O" else x.tobytes() == y.tobytes()
            assert x.shape == y.shape and eq, f"{path}/{name} differs"
        for k in ATTRS:
            if k in fa["study"].attrs or k in fb["study"].attrs:
                assert fa["study"].attrs[k] == fb["study"].attrs[k], k
        for k in ["study_yaml", "base_config"]:
            assert fa["study"][k][()] == fb["study"][k][()], k


def check_resume(d):
    study = os.path.join(d, "long.yaml")
    with open(study, "w") as f:
        f.write(f"base: {BASE}\n"
                "vary:\n"
                "  friction.dynamic: {linspace: [10, 25, 100]}\n"
                "  inputs.base_motion.amplitude: {linspace: [0.02, 0.08, 10]}\n")
    ref = os.path.join(d, "long_ref.h5")
    p = subprocess.run([BIN, "sweep", study, "-o", ref, "-q", "-j", "2"])
    assert p.returncode == 0
    # Ctrl-C to mpirun: it passes the signal on; rank 0 stops handing out
    # chunks, writes what came back, flushes and says how to resume.
    out = os.path.join(d, "sigint.h5")
    p = subprocess.Popen([MPIRUN, "--allow-run-as-root", "--oversubscribe", "-n", "3", MPI_BIN,
                          "sweep", study, "-o", out, "-j", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=held_env())
    err = signal_when_held(p, out, signal.SIGINT)
    assert p.returncode != 0
    assert f"interrupted: {HOLD} of 1000 variants done" in err and "--resume" in err, err
    # A threaded study killed with SIGKILL: the file as of its last flush.
    cut = os.path.join(d, "killed.h5")
    p = subprocess.Popen([BIN, "sweep", study, "-o", cut, "-j", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=held_env())
    signal_when_held(p, cut, signal.SIGKILL)
    assert p.returncode == -signal.SIGKILL, p.returncode
    for path in [out, cut]:
        p = mpirun(2, study, "-o", path, "--resume", "-j", "2")
        assert p.returncode == 0, (p.returncode, p.stderr)
        assert f"1000 variants, 1000 done ({1000 - HOLD} in" in p.stdout, p.stdout
        same(ref, path, "study/summary")


def main():
    if not MPIRUN:
        print("mpirun is not installed (Debian: openmpi-bin): skipped")
        return 77
    os.environ["HDF5_USE_FILE_LOCKING"] = "FALSE"  # n_done() reads a file being written
    with tempfile.TemporaryDirectory() as d:
        study = os.path.join(d, "s.yaml")
        with open(study, "w") as f:
            # friction.dynamic -1 is invalid: a row with its message.
            f.write(f"base: {BASE}\n"
                    "vary:\n"
                    "  friction.dynamic: {values: [10, -1, 15, 20, 25]}\n"
                    "  inputs.base_motion.amplitude: {linspace: [0.02, 0.08, 6]}\n"
                    "store: events\n")
        ref = os.path.join(d, "ref.h5")
        rc = subprocess.run([BIN, "sweep", study, "-o", ref, "-q", "-j", "1"]).returncode
        assert rc == 3, rc  # the six invalid variants
        for n, jobs in [(2, "1"), (3, "2")]:
            out = os.path.join(d, f"mpi{n}.h5")
            p = mpirun(n, study, "-o", out, "-q", "-j", jobs)
            assert p.returncode == 3, (p.returncode, p.stderr)
            assert "6 variants failed" in p.stderr, p.stderr
            for path in ["study/summary", "study/parameters", "study/events"]:
                same(ref, out, path)
        full = os.path.join(d, "full.yaml")
        with open(full, "w") as f:
            f.write(f"base: {BASE}\n" + FULL_STUDY)
        ref_full, mpi_full = os.path.join(d, "full_ref.h5"), os.path.join(d, "full_mpi.h5")
        assert subprocess.run([BIN, "sweep", full, "-o", ref_full, "-q", "-j", "1"]).returncode == 3
        p = mpirun(3, full, "-o", mpi_full, "-q", "-j", "1")
        assert p.returncode == 3, (p.returncode, p.stderr)
        same_study(ref_full, mpi_full)
        check_resume(d)
        bad = os.path.join(d, "bad.yaml")
        with open(bad, "w") as f:
            f.write(f"base: {BASE}\nvary:\n  friction.nonsense: {{values: [1, 2]}}\n")
        out = os.path.join(d, "bad.h5")
        p = mpirun(2, bad, "-o", out)
        assert p.returncode == 2, (p.returncode, p.stderr)
        assert "friction.nonsense: not a key of the base configuration" in p.stderr, p.stderr
        assert not os.path.exists(out)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
