"""Every file stickslip writes is read back by every reader: a MAT result
by ss.read (the run to the last bit, as from HDF5), by `stickslip info`
(the tables of the HDF5 file of the same run) and by `stickslip plot`'s
loader (the dict of the HDF5 file); a system's MAT file as its HDF5 file;
a `converge --h5` file by info (the numbers converge printed);
examples/read_result.py on a system's file (its stuck times those of
ss.read's stuck intervals)."""
import glob
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import stickslip as ss
from test_stickslip import assert_read_equals_run, assert_system_read_equals_run

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CLI = os.environ.get("STICKSLIP_BIN", "stickslip")
EXAMPLES = sorted(glob.glob(os.path.join(SRC, "examples", "*.yaml")))
SERVO = os.path.join(SRC, "examples", "servo_backlash.yaml")
JANECEK = os.path.join(SRC, "examples", "janecek_chirp.yaml")


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("example", EXAMPLES, ids=os.path.basename)
def test_mat_result_reads_as_the_run(tmp_path, example):
    """The command's MAT file read by ss.read is ss.run's Result to the
    last bit (samples, events before and after, stats, units, config), as
    its HDF5 file is; a system's reads as the SystemResult of its HDF5
    file, group for group, and equals the run."""
    mat, h5 = tmp_path / "r.mat", tmp_path / "r.h5"
    for out in (mat, h5):
        p = cli("run", example, "-o", str(out), "--quiet")
        assert p.returncode == 0, p.stderr
    r, back = ss.run(example), ss.read(mat)
    if isinstance(back, ss.SystemResult):
        assert_system_read_equals_run(r, back)
        other = ss.read(h5)
        assert back.names == other.names and back.units == other.units
        assert back.value_names == other.value_names and back.config == other.config
        for g in other.groups:
            assert back.groups[g].dtype == other.groups[g].dtype, g
            assert back.groups[g].tobytes() == other.groups[g].tobytes(), g
        assert back.events.tobytes() == other.events.tobytes()
        back.stats.pop("wall_seconds"), other.stats.pop("wall_seconds")
        assert back.stats == other.stats and back.complete == other.complete
        return
    assert_read_equals_run(r, back)
    assert back.config.to_yaml() == r.config.to_yaml()


def test_incomplete_mat_result_reads_as_the_partial_run(tmp_path):
    out = tmp_path / "inc.mat"
    p = cli("run", JANECEK, "--set", "simulation.max_events=3", "-o", str(out), "--quiet")
    assert p.returncode == 3
    cfg = ss.load(JANECEK)
    cfg["simulation.max_events"] = 3
    with pytest.raises(ss.SolverError) as e:
        ss.run(cfg)
    r, back = e.value.result, ss.read(out)
    assert not back.complete and back.message == r.message
    assert back.t.tobytes() == r.t.tobytes() and back.events.tobytes() == r.events.tobytes()


def info_lines(path):
    """`stickslip info` without the lines that name the file, its creation
    time and wall clock (each run's own) and the long names (not in MAT)."""
    p = cli("info", str(path), "-n", "-1")
    assert p.returncode == 0, p.stderr
    skip = ("File:", "Program:", "Quantities:", "Statistics:")
    return [line for line in p.stdout.splitlines() if not line.startswith(skip)]


@pytest.mark.parametrize("example", [JANECEK, SERVO], ids=os.path.basename)
def test_info_of_a_mat_result_is_that_of_its_hdf5_file(tmp_path, example):
    mat, h5 = tmp_path / "r.mat", tmp_path / "r.h5"
    for out in (mat, h5):
        assert cli("run", example, "-o", str(out), "--quiet").returncode == 0
    lines = info_lines(mat)
    assert lines == info_lines(h5)
    assert len(lines) > 20 and any(line.startswith("Events:") for line in lines)


def test_info_of_a_converge_file_prints_the_numbers_converge_printed(tmp_path):
    out = tmp_path / "conv.h5"
    p = cli("converge", JANECEK, "--scheme", "karnopp", "--steps", "2e-3,1e-3,5e-4", "--h5",
            str(out))
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines() if line[:12].strip()[:1].isdigit()]
    assert len(rows) == 3
    q = cli("info", str(out))
    assert q.returncode == 0, q.stderr
    got = [line.split() for line in q.stdout.splitlines() if line[:12].strip()[:1].isdigit()]
    # step, the four errors and RHS evaluations in the same format; the
    # converge table's wall time is printed with the same %.4g; its missed
    # and invented events are not in the file.
    assert [g[:8] for g in got] == [r[:8] for r in rows]
    order = [line for line in p.stdout.splitlines() if line.startswith("fitted order")][0]
    assert order.split(":")[-1] in q.stdout
    # Added to a result file: the result's summary, then the table.
    res = tmp_path / "res.h5"
    assert cli("run", JANECEK, "-o", str(res), "--quiet").returncode == 0
    assert cli("converge", JANECEK, "--scheme", "karnopp", "--steps", "2e-3,1e-3", "--h5",
               str(res)).returncode == 0
    q = cli("info", str(res))
    assert q.returncode == 0 and q.stdout.index("Events:") < q.stdout.index("Convergence: scheme karnopp")


def test_plot_reads_a_mat_result_as_its_hdf5_file(tmp_path):
    sp = module("stickslip_plot_under_test", os.path.join(SRC, "python", "stickslip_plot.py"))
    for example in (JANECEK, SERVO):
        mat, h5 = tmp_path / "r.mat", tmp_path / "r.h5"
        for out in (mat, h5):
            assert cli("run", example, "-o", str(out), "--quiet").returncode == 0
        a, b = sp.load_result(str(mat)), sp.load_result(str(h5))
        assert a["t"].tobytes() == b["t"].tobytes() and a["config"] == b["config"]
        assert a["units"] == b["units"] and a["complete"] == b["complete"]
        if "system" in b:
            assert a["events"] == b["events"]
            for g, v in b["system"].groups.items():
                assert a["system"].groups[g].tobytes() == v.tobytes(), g
        else:
            assert a["mode"].tobytes() == b["mode"].tobytes()
            assert sorted(a["cols"]) == sorted(b["cols"])
            for c, v in b["cols"].items():
                assert a["cols"][c].tobytes() == v.tobytes(), c
            assert a["mode_names"] == b["mode_names"]
            for ea, eb in zip(a["events"], b["events"], strict=True):
                for k in eb:  # NaN (a value the event has not) equals NaN here
                    assert ea[k] == eb[k] or (ea[k] != ea[k] and eb[k] != eb[k]), k
        png = tmp_path / "r.png"
        p = cli("plot", str(mat), "-o", str(png))
        assert p.returncode == 0, p.stderr
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_read_result_example_reads_a_system(tmp_path):
    """examples/read_result.py on a system's file: the members per group of
    ss.read, and each contact's time in STUCK equal to the length of
    ss.read's stuck intervals (sample i's mode holds until sample i + 1)."""
    rr = module("read_result_under_test", os.path.join(SRC, "examples", "read_result.py"))
    out = tmp_path / "servo.h5"
    assert cli("run", SERVO, "-o", str(out), "--quiet").returncode == 0
    r, back = rr.read(str(out)), ss.read(out)
    assert r["system"] and r["mode_names"] == {}
    assert r["names"] == back.names
    assert r["value_names"]["contact_mode"] == dict(enumerate(back.value_names["contact_mode"]))
    assert r["trajectory"]["x"].tobytes() == back.x.tobytes()
    assert [e["subject"] for e in r["events"]] == list(back.events["subject"])
    p = subprocess.run([sys.executable, os.path.join(SRC, "examples", "read_result.py"), str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for c in back.contacts:
        stuck = sum(b - a for a, b in back.stuck_intervals(c))
        line = [x for x in p.stdout.splitlines() if x.strip().startswith(c + " ")][0]
        shown = float(line.split("STUCK ")[1].split()[0])
        # %.6g of the same sum, added in another order: 6 digits agree.
        assert shown == pytest.approx(stuck, rel=1e-5), c
    assert f"events:   {len(back.events)}" in p.stdout


def test_a_mat_file_that_is_not_a_result_is_refused(tmp_path):
    import scipy.io

    other = tmp_path / "other.mat"
    scipy.io.savemat(other, {"x": np.arange(3.0)})
    with pytest.raises(ss.InputError) as e:
        ss.read(other)
    assert str(e.value).startswith(f"{other}: not a stickslip result: no variable 'program'")
    p = cli("info", str(other))
    assert p.returncode == 2 and str(e.value) in p.stderr
    good = tmp_path / "r.mat"
    assert cli("run", JANECEK, "-o", str(good), "--quiet").returncode == 0
    cut = tmp_path / "cut.mat"
    cut.write_bytes(good.read_bytes()[:4000])
    with pytest.raises(ss.InputError) as e:
        ss.read(cut)
    assert str(e.value).startswith(f"{cut}: ")
    assert cli("info", str(cut)).returncode == 2


@pytest.mark.parametrize("example", EXAMPLES, ids=os.path.basename)
def test_bulk_events_equal_the_per_event_accessors(example):
    """ss.run's events come from one stsl_result_events call; they are what
    stsl_result_event, stsl_result_event_value and stsl_result_event_subject
    give event by event (the definition they replace), to the bit."""
    from stickslip._lib import ffi, lib

    cfg = ss.load(example)
    out, err = ffi.new("stsl_result **"), ffi.new("stsl_err *")
    lib.stsl_run_result(cfg._h, out, err)
    h = out[0]
    try:
        r = ss.Result._from_handle(cfg, h)
        n = lib.stsl_result_n_events(h)
        assert len(r.events) == n  # (a smooth law has none)
        ev = ffi.new("stsl_event *")
        for i in range(n):
            assert lib.stsl_result_event(h, i, ev, err) == 0
            e = r.events[i]
            assert e["t"] == ev.t
            assert (e["kind"], e["mode_before"], e["mode_after"]) == tuple(
                ffi.string(p).decode() for p in (ev.kind, ev.mode_before, ev.mode_after))
            # The fields of the file's /events: x before, v both sides,
            # net_force and friction after.
            for field, c, after in (("x", "x", 0), ("v_before", "v", 0), ("v_after", "v", 1),
                                    ("net_force", "net_force", 1), ("friction", "friction", 1)):
                want = np.float64(lib.stsl_result_event_value(h, i, c.encode(), after))
                assert e[field].tobytes() == want.tobytes(), (i, field)
            if hasattr(r, "subjects"):
                p = lib.stsl_result_event_subject(h, i)
                assert r.subjects[i] == ("" if p == ffi.NULL else ffi.string(p).decode())
        # Bad arguments are refused, not read through.
        assert lib.stsl_result_events(ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL,
                                      ffi.NULL, 0, ffi.NULL, err) == lib.STSL_RC_INPUT
        assert lib.stsl_result_events(h, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL,
                                      ffi.NULL, 2, ffi.NULL, err) == lib.STSL_RC_INPUT
    finally:
        lib.stsl_result_free(h)


STUDY = """base:
  element: {mass: 1.0, spring: {stiffness: 100.0, free_position: 0.0}, damper: {coefficient: 0.5}}
  friction: {law: coulomb, dynamic: 1.0, static: 1.5}
  inputs: {base_motion: {type: sine, amplitude: 0.05, frequency: 2.0}}
  simulation: {t_end: 2.0, output_step: 0.0}
vary:
  friction.dynamic: {values: [0.6, 0.9, 1.2]}
"""


def test_read_of_a_study_file_gives_its_sweep(tmp_path):
    """ss.read of `stickslip sweep`'s file: the Sweep of its rows, each
    row's counts those of ss.run of that variant."""
    study, out = tmp_path / "s.yaml", tmp_path / "s.h5"
    study.write_text(STUDY)
    p = cli("sweep", str(study), "-o", str(out), "--jobs", "1")
    assert p.returncode == 0, p.stderr
    s = ss.read(out)
    assert isinstance(s, ss.Sweep) and len(s) == 3 and s.complete and s.n_runs == 3
    assert list(s.parameters["friction.dynamic"]) == [0.6, 0.9, 1.2]
    assert s.units["t_reached"] == "s" and s.messages == ["", "", ""]
    base = ss.Config.from_yaml(STUDY.split("vary:")[0].replace("\n  ", "\n")[len("base:\n"):])
    for i, f in enumerate(s.parameters["friction.dynamic"]):
        c = base.copy()
        c["friction.dynamic"] = float(f)
        r = ss.run(c)
        assert s.summary["events_stick"][i] == list(r.events["kind"]).count("stick")
        assert s.summary["t_reached"][i] == r.t[-1]


def test_read_of_a_convergence_file_gives_its_table(tmp_path):
    """ss.read of a converge --h5 file: the numbers converge printed (the
    same values through %.6g), the scheme, the fitted order."""
    out = tmp_path / "conv.h5"
    p = cli("converge", JANECEK, "--scheme", "karnopp", "--steps", "2e-3,1e-3", "--h5", str(out))
    assert p.returncode == 0, p.stderr
    c = ss.read(out)
    assert isinstance(c, ss.Convergence) and len(c) == 2 and c.scheme == "karnopp"
    rows = [line.split() for line in p.stdout.splitlines() if line[:12].strip()[:1].isdigit()]
    for i, row in enumerate(rows):
        assert [f"{c.step[i]:.4g}", f"{c.max_abs_error_x[i]:.6g}", f"{c.rms_error_x[i]:.6g}",
                f"{c.max_abs_error_v[i]:.6g}", f"{c.final_error_x[i]:.6g}"] == row[:5]
        assert (int(row[6]), int(row[7])) == (c.rhs_evals[i], c.events[i])
    order = [line for line in p.stdout.splitlines() if line.startswith("fitted order")][0]
    assert f"{c.order:.3f}" == order.split(":")[-1].strip()
    assert c.units["max_abs_error_x"] == "m" and c.units["step"] == "s"
    assert c.reference["events"] == 13  # the Janecek case's events
    # The columns the file adds come back too, as ss.converge computed them
    # (the same doubles: the file stores them unchanged).
    c2 = ss.converge(JANECEK, scheme="karnopp", steps=[2e-3, 1e-3])
    for name, unit in (("max_abs_error_friction", "N"), ("rms_error_friction", "N"),
                       ("dissipated_energy_error", "J")):
        assert np.array_equal(c.columns[name], c2.columns[name]), name
        assert c.units[name] == unit
    # The C reader (stsl_result_read) says what the file is.
    from stickslip._lib import ffi, lib

    r, err = ffi.new("stsl_result **"), ffi.new("stsl_err *")
    assert lib.stsl_result_read(str(out).encode(), r, ffi.NULL, err) == lib.STSL_RC_INPUT
    assert ffi.string(err.message).decode() == (
        f"{out}: a convergence table (stickslip converge --h5), not the result of a run "
        "(`stickslip info` prints it)")
