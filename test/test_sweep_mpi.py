#!/usr/bin/python3
"""`mpirun stickslip-mpi sweep` writes the same study file as `stickslip
sweep --jobs 1`: every summary column (the wall time aside), the
parameters, the event table and the counts equal bit for bit, with two
ranks and with three (every rank computes; chunks arrive out of order and
must be written in variant order), a failed variant's message included;
with store: full every /runs/NNNNNN too.  It behaves as the plain command
(check_like_plain): the same exit codes and messages, once, named
stickslip-mpi.  Stopping and resuming under MPI (check_resume): SIGINT to
mpirun, SIGINT to rank 0, SIGKILL of rank 1 (a lost rank), and SIGKILL of
a threaded run, each once the study holds after 7 variants (so that the
signal lands mid-study whatever the machine's speed:
STICKSLIP_TEST_SWEEP_HOLD); `mpirun -n 2 stickslip-mpi sweep --resume`
ends each with the summary of the uninterrupted study.
Exit 77 (skipped) without mpirun."""

import os
import resource
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
FSIZE = 64 * 1024  # bytes: the file of the 30-variant study (with events) is ~150 kB
ATTRS = ["n_runs", "n_done", "n_failed", "n_event_rows", "complete", "store", "combine"]


def mpirun(n, *args, prefix=()):
    """`mpirun -q` (mpirun's own notices left out): only the program speaks."""
    return subprocess.run([MPIRUN, "-q", "--allow-run-as-root", "--oversubscribe", "-n", str(n),
                           *prefix, MPI_BIN, "sweep", *args], capture_output=True, text=True)


def plain(*args, **kw):
    return subprocess.run([BIN, "sweep", *args], capture_output=True, text=True, **kw)


def as_mpi(stderr):
    """The plain command's messages as stickslip-mpi words them."""
    return stderr.replace("stickslip sweep: ", "stickslip-mpi sweep: ")


def one_error(stderr):
    """The one error message of stickslip-mpi, from rank 0 alone."""
    assert stderr.count("error: ") == 1 and "stickslip sweep:" not in stderr, stderr
    return stderr[stderr.index("stickslip-mpi sweep: error: "):]


def limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE, FSIZE))


def check_like_plain(d, study, ref_err):
    """stickslip-mpi says what `stickslip sweep` says, once, with its own
    name, and exits with the same code: a usage error and a bad study (2),
    failed variants (3), an output that cannot be created (1), a file-size limit
    (SIGXFSZ ignored, as the plain command does: 1 with the cause) and a
    full disk (1 with the cause)."""
    bad = os.path.join(d, "bad.yaml")
    with open(bad, "w") as f:
        f.write(f"base: {BASE}\nvary:\n  friction.nonsense: {{values: [1, 2]}}\n")
    nodir = os.path.join(d, "ref.h5", "x.h5")  # under a file: ENOTDIR
    for args in [[study, "--bogus"], [bad, "-o", os.path.join(d, "bad.h5")], [study, "-o", nodir]]:
        want = plain(*args)
        got = mpirun(3, *args)
        assert got.returncode == want.returncode in (1, 2), (got.returncode, want.returncode)
        assert got.stderr == as_mpi(want.stderr), (got.stderr, want.stderr)
        one_error(got.stderr)
    assert not os.path.exists(os.path.join(d, "bad.h5"))
    got = mpirun(3, study, "-o", os.path.join(d, "failed.h5"), "-q", "-j", "1")
    assert got.returncode == 3 and got.stderr == as_mpi(ref_err), (got.stderr, ref_err)
    # A file-size limit below the study file's size, on the ranks only
    # (mpirun's own shared-memory store needs more): the first flush fails.
    big = os.path.join(d, "big.h5")
    want = plain(study, "-o", big, "-q", preexec_fn=limit_file_size)
    # A study begun in the call that fails to write leaves nothing under
    # its name (docs/output-files.md), under MPI as in the plain command.
    assert not os.path.exists(big)
    got = mpirun(3, study, "-o", big, "-q",
                 prefix=["sh", "-c", f"ulimit -f {FSIZE // 1024}; exec \"$0\" \"$@\""])
    assert want.returncode == got.returncode == 1, (want.returncode, got.returncode, got.stderr)
    msg = one_error(got.stderr)
    assert msg.startswith(f"stickslip-mpi sweep: error: {big}: ") and "File too large" in msg, msg
    assert not os.path.exists(big)
    # A full disk: the same exit code as the plain command, the device named.
    want = plain(study, "-o", "/dev/full", "-q")
    got = mpirun(3, study, "-o", "/dev/full", "-q")
    assert got.returncode == want.returncode != 0, (got.returncode, want.returncode)
    assert one_error(got.stderr).startswith("stickslip-mpi sweep: error: /dev/full"), got.stderr
    check_full_disk(d, study)


def check_full_disk(d, study):
    """A disk that fills mid-study (a 64 kB tmpfs; only where the test may
    mount one, as root): exit 1 and one message with the cause, as the plain
    command."""
    tiny = os.path.join(d, "tiny")
    os.mkdir(tiny)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                                            tiny], capture_output=True).returncode:
        print("no tmpfs mounted (not root): full disk checked with /dev/full only")
        return
    try:
        for cmd in [lambda o: plain(study, "-o", o, "-q"), lambda o: mpirun(3, study, "-o", o, "-q")]:
            out = os.path.join(tiny, "s.h5")
            p = cmd(out)
            assert p.returncode == 1 and p.stderr.count("error: ") == 1, (p.returncode, p.stderr)
            assert "No space left on device" in p.stderr, p.stderr
            assert not os.path.exists(out)  # nothing left under the name
    finally:
        subprocess.run(["umount", tiny], check=True)




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


def rank_pid(mpirun_pid, rank):
    """The pid of MPI rank `rank` started by the mpirun `mpirun_pid`."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if ppid == mpirun_pid and f"OMPI_COMM_WORLD_RANK={rank}".encode() in env:
            return int(pid)
    raise AssertionError(f"no rank {rank} under mpirun {mpirun_pid}")


def ours(stderr):
    """The program's lines (an aborting mpirun may add its own, e.g.
    libevent's '[warn] Epoll MOD(1) on fd 24 failed')."""
    return [line for line in stderr.splitlines() if line.startswith("stickslip")]


def held_mpirun(study, out):
    return subprocess.Popen([MPIRUN, "-q", "--allow-run-as-root", "--oversubscribe", "-n", "3",
                             MPI_BIN, "sweep", study, "-o", out, "-j", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=held_env())


def check_resume(d):
    """Each study stopped after its first HOLD variants (held there until
    signalled, test_sweep_full.held_env), then resumed under MPI."""
    n = 200
    study = os.path.join(d, "long.yaml")
    with open(study, "w") as f:
        f.write(f"base: {BASE}\n"
                "vary:\n"
                "  friction.dynamic: {linspace: [10, 25, 20]}\n"
                "  inputs.base_motion.amplitude: {linspace: [0.02, 0.08, 10]}\n")
    ref = os.path.join(d, "long_ref.h5")
    p = subprocess.run([BIN, "sweep", study, "-o", ref, "-q", "-j", "2"])
    assert p.returncode == 0
    interrupted = (f"stickslip-mpi sweep: interrupted: {HOLD} of {n} variants done; continue "
                   f"with stickslip-mpi sweep {study} -o {{}} --resume")
    # Ctrl-C to mpirun: it passes SIGTERM on to the ranks; rank 0 stops
    # handing out chunks, writes what came back, flushes and says how to
    # resume, once.  OpenMPI 4's mpirun itself then exits 1 whatever its
    # ranks return (its own abort path).
    out = os.path.join(d, "sigint.h5")
    p = held_mpirun(study, out)
    err = signal_when_held(p, out, signal.SIGINT)
    assert p.returncode == 1, p.returncode
    assert ours(err) == [interrupted.format(out)], err
    # Ctrl-C to rank 0 alone (a batch system signalling the ranks): exit 130,
    # as `stickslip sweep`.
    out0 = os.path.join(d, "sigint0.h5")
    p = held_mpirun(study, out0)
    err = signal_when_held(p, out0, signal.SIGINT, lambda: rank_pid(p.pid, 0))
    assert p.returncode == 130, (p.returncode, err)
    assert ours(err) == [interrupted.format(out0)], err
    # A lost rank (SIGKILL to rank 1) ends the job (OpenMPI 4 has no fault
    # tolerance: mpirun stops the others and exits with the lost rank's
    # 128 + 9) and leaves the file that --resume completes.
    lost = os.path.join(d, "lost.h5")
    p = held_mpirun(study, lost)
    signal_when_held(p, lost, signal.SIGKILL, lambda: rank_pid(p.pid, 1))
    assert p.returncode == 128 + signal.SIGKILL, p.returncode
    # A threaded study killed with SIGKILL: the file as of its last flush.
    cut = os.path.join(d, "killed.h5")
    p = subprocess.Popen([BIN, "sweep", study, "-o", cut, "-j", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=held_env())
    signal_when_held(p, cut, signal.SIGKILL)
    assert p.returncode == -signal.SIGKILL, p.returncode
    for path in [out, out0, lost, cut]:
        p = mpirun(2, study, "-o", path, "--resume", "-j", "2")
        assert p.returncode == 0, (p.returncode, p.stderr)
        assert f"{n} variants, {n} done ({n - HOLD} in" in p.stdout, p.stdout
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
        p = plain(study, "-o", ref, "-q", "-j", "1")
        assert p.returncode == 3 and "6 variants failed" in p.stderr, p.stderr
        ref_err = p.stderr  # the six invalid variants
        for n, jobs in [(2, "1"), (3, "2")]:
            out = os.path.join(d, f"mpi{n}.h5")
            p = mpirun(n, study, "-o", out, "-q", "-j", jobs)
            assert p.returncode == 3, (p.returncode, p.stderr)
            assert p.stderr == as_mpi(ref_err), (p.stderr, ref_err)
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
        check_like_plain(d, study, ref_err)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
