"""pytest tests of the Python package (issue 12), run by ctest with the
package and library of the build tree (PYTHONPATH, STICKSLIP_BIN)."""
import ast
import glob
import json
import os
import subprocess
import threading
import time

import h5py
import numpy as np
import pytest

import stickslip as ss

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
JANECEK = os.path.join(SRC, "examples", "janecek_chirp.yaml")
CLI = os.environ.get("STICKSLIP_BIN", "stickslip")

# A cheap run (a few hundred samples, a handful of events) for the loops.
CHEAP = {
    "domain": "translational",
    "element": {"mass": 1.0, "spring": {"stiffness": 100.0, "free_position": 0.0},
                "damper": {"coefficient": 0.5}},
    "friction": {"law": "coulomb", "dynamic": 1.0, "static": 1.5},
    "inputs": {"base_motion": {"type": "sine", "amplitude": 0.05, "frequency": 2.0}},
    "initial": {"position": 0.0, "velocity": 0.0},
    "simulation": {"t_end": 0.5, "output_step": 0.01},
}


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def test_version():
    assert ss.__version__.count(".") == 2
    assert cli("--version").stdout.strip().endswith(ss.__version__)


def test_run_equals_cli_hdf5_bit_for_bit(tmp_path):
    out = tmp_path / "cli.h5"
    assert cli("run", JANECEK, "-o", str(out), "--quiet").returncode == 0
    r = ss.run(ss.load(JANECEK), output_step=1e-3)
    assert r.complete and r.message == ""
    saved = tmp_path / "py.h5"
    r.save(saved)
    for path in (out, saved):
        with h5py.File(path, "r") as f:
            tr = f["trajectory"]
            # Equality of the bytes, not closeness: the same run.
            assert np.array_equal(tr["t"][:], r.t)
            for c in ("x", "v", "a", "friction"):
                assert np.array_equal(tr[c][:], getattr(r, c)), c
            assert np.array_equal(tr["mode"][:], r.mode)
            assert r.mode.dtype == np.int8 and r.x.dtype == np.float64
            ev = f["events"][:]
            assert np.array_equal(ev["t"], r.events["t"])
            assert [k.decode() for k in ev["kind"]] == list(r.events["kind"])
            assert np.array_equal(ev["v_before"], r.events["v_before"])
    back = ss.read(saved)
    for name in ("t", "x", "v", "friction", "mode"):
        assert np.array_equal(getattr(back, name), getattr(r, name)), name
    assert back.complete and back.units["x"] == r.units["x"]
    assert np.array_equal(back.events["t"], r.events["t"])
    assert list(back.events["mode_after"]) == list(r.events["mode_after"])
    assert back.config.to_yaml() == r.config.to_yaml()
    assert r.units["x"] == "m" and r.units["t"] == "s"
    assert r.stats["events"] == len(r.events) and r.stats["steps"] > 0


# Run in a fresh interpreter: that h5py is never imported is only seen there.
READ_WITHOUT_H5PY = r"""
import math, subprocess, sys
import numpy as np
import stickslip as ss
cli, config, path = sys.argv[1:4]
assert subprocess.run([cli, "run", config, "-o", path, "--quiet"]).returncode == 0
back, r = ss.read(path), ss.run(ss.load(config))
for name in ["t", "mode"] + list(r.columns):
    a, b = getattr(r, name), getattr(back, name)
    assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name
assert r.events.dtype == back.events.dtype and r.events.tobytes() == back.events.tobytes()
# wall_seconds is each run's own clock; the file does not keep the energy.
assert math.isnan(back.stats.pop("dissipated_energy")) and r.stats.pop("dissipated_energy") > 0
back.stats.pop("wall_seconds"), r.stats.pop("wall_seconds")
assert back.stats == r.stats, (back.stats, r.stats)
assert back.units == r.units and back.mode_names == r.mode_names
assert (back.complete, back.message) == (r.complete, r.message)
assert back.config.to_yaml() == r.config.to_yaml()
assert "h5py" not in sys.modules
print(len(r.t), len(r.events))
"""


def test_read_of_a_cli_file_is_the_run_without_h5py(tmp_path):
    p = subprocess.run(["/usr/bin/python3", "-c", READ_WITHOUT_H5PY, CLI, JANECEK,
                        str(tmp_path / "cli.h5")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    samples, events = map(int, p.stdout.split())
    assert samples > 9000 and events > 10


@pytest.mark.parametrize("example", sorted(glob.glob(os.path.join(SRC, "examples", "*.yaml"))),
                         ids=os.path.basename)
def test_read_equals_run_for_every_example(tmp_path, example):
    """Every model the examples have (hybrid laws, smooth laws, LuGre's z,
    rigid and compliant stops, rotational): the file the command writes
    reads back as ss.run's Result, to the last bit."""
    out = tmp_path / "r.h5"
    p = cli("run", example, "-o", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    r, back = ss.run(ss.load(example)), ss.read(out)
    if hasattr(back, "groups"):  # a system's file reads as a SystemResult
        return assert_system_read_equals_run(r, back)
    assert_read_equals_run(r, back)


def assert_read_equals_run(r, back):
    """An element's file read back against ss.run's Result, to the last bit."""
    for name in ["t", "mode"] + list(r.columns):
        assert getattr(r, name).tobytes() == getattr(back, name).tobytes(), name
    assert r.events.tobytes() == back.events.tobytes()
    for d in (r.stats, back.stats):  # the clock's, and not in the file
        d.pop("wall_seconds"), d.pop("dissipated_energy")
    assert r.stats == back.stats and r.units == back.units and r.mode_names == back.mode_names


def assert_system_read_equals_run(r, back):
    """A system's file (stickslip.system.SystemResult: samples x members
    groups) against ss.run's Result (GROUP[MEMBER] columns): every group
    with its members, sample for sample, and the events with their subjects.
    The mode groups are int8 in the file and doubles in the Result: equal
    values, not equal bytes."""
    assert r.t.tobytes() == back.t.tobytes()
    assert sorted(back.groups) == sorted({c.split("[")[0] for c in r.columns})
    for g, values in back.groups.items():
        if values.ndim == 1:
            assert r.columns[g].tobytes() == values.tobytes(), g
            continue
        assert r.members(g) == list(back.names[g]), g
        mine = r.group(g)
        if values.dtype.kind == "f":
            assert mine.tobytes() == values.tobytes(), g
        else:
            assert np.array_equal(mine, values), g
    assert r.events["t"].tobytes() == back.events["t"].tobytes()
    assert list(r.events["kind"]) == list(back.events["kind"])
    assert list(r.subjects) == list(back.events["subject"])
    assert back.complete == 1


def test_read_refuses_wrong_files(tmp_path):
    missing = tmp_path / "missing.h5"
    with pytest.raises(ss.InputError) as e:
        ss.read(missing)
    assert str(e.value) == f"{missing}: cannot open: No such file or directory"
    text = tmp_path / "text.h5"
    text.write_text("not hdf5\n")
    with pytest.raises(ss.InputError) as e:
        ss.read(text)
    assert str(e.value) == f"{text}: not an HDF5 file"


def test_units_are_the_models_in_both_domains(tmp_path):
    r = ss.run(ss.Config.from_dict(CHEAP))
    assert r.units == {"t": "s", "mode": "", "x": "m", "v": "m/s", "a": "m/s^2", "friction": "N",
                       "net_force": "N", "stop_reaction": "N", "x_base": "m", "v_base": "m/s",
                       "dissipated_energy": "J"}
    rot = dict(CHEAP, domain="rotational")
    rot["element"] = dict(CHEAP["element"])
    rot["element"]["inertia"] = rot["element"].pop("mass")
    r = ss.run(ss.Config.from_dict(rot))
    assert (r.units["x"], r.units["v"], r.units["friction"]) == ("rad", "rad/s", "N·m")
    # The file's units attributes are the same table.
    r.save(tmp_path / "rot.h5")
    assert ss.read(tmp_path / "rot.h5").units == r.units


def test_config_roundtrip_and_set():
    cfg = ss.load(JANECEK)
    assert cfg["friction.dynamic"] == 18.0
    cfg["friction.dynamic"] = 20.0
    assert cfg["friction.dynamic"] == 20.0
    again = ss.Config.from_yaml(cfg.to_yaml())
    assert again.to_yaml() == cfg.to_yaml()
    d = ss.Config.from_dict(CHEAP)
    assert d["element.mass"] == 1.0 and d["friction.law"] == "coulomb"


def test_a_string_key_reads_as_its_text_not_its_quoted_yaml(tmp_path):
    """cfg["output.file"] gave '"results/janecek_chirp.h5"', quotes and
    all (the effective YAML's double-quoted scalar), a name no open() or
    h5py takes.  The expected values are the texts the example file and
    this test wrote; a name that looks like a number stays a str."""
    cfg = ss.load(JANECEK)
    assert cfg["output.file"] == "results/janecek_chirp.h5"
    for name in ("20", "true", 'a "quoted" name.h5', "tab\there.h5", "résultat.h5"):
        cfg["output.file"] = json.dumps(name)  # YAML's double-quoted form
        assert cfg["output.file"] == name
    table = tmp_path / "force.csv"
    table.write_text("t,F\n0,0\n1,1\n")
    cfg["inputs.active_force"] = {"type": "table", "file": str(table)}
    assert cfg["inputs.active_force.file"] == str(table)
    assert cfg["friction.law"] == "coulomb" and cfg["friction.dynamic"] == 18.0


def test_set_out_of_range_refused_with_the_cli_message():
    cfg = ss.load(JANECEK)
    with pytest.raises(ss.InputError) as e:
        cfg["friction.dynamic"] = -1
    assert str(e.value) == "friction.dynamic: must be >= 0 (got -1)"
    assert cfg["friction.dynamic"] == 18.0  # unchanged
    p = cli("check", JANECEK, "--set", "friction.dynamic=-1")
    assert p.returncode == 2 and str(e.value) in p.stderr


def test_update_names_the_assignment_not_an_option():
    """Config.update's message names the assignment as given, not a --set
    option the caller never typed; the command's names its option."""
    cfg = ss.load(JANECEK)
    with pytest.raises(ss.InputError) as e:
        cfg.update({"simulation.scheme": "karnopp", "simulation.step": 0})
    assert str(e.value) == "set 'simulation.step=0': simulation.step: must be > 0 (got 0)"
    p = cli("check", JANECEK, "--set", "simulation.scheme=karnopp", "--set", "simulation.step=0")
    assert p.returncode == 2
    assert p.stderr == "stickslip: error: --set simulation.step=0: simulation.step: must be > 0 (got 0)\n"


def test_set_dynamic_keeps_the_files_static_force(tmp_path):
    """Janecek's file gives static: 26 (N): cfg["friction.dynamic"] keeps that
    force, as `stickslip run FILE --set friction.dynamic=...` does, and a
    dynamic level above it is refused with the CLI's message."""
    cfg = ss.load(JANECEK)
    cfg["friction.dynamic"] = 12
    assert cfg["friction.static"] == 26.0
    assert "  static: 26\n" in cfg.to_yaml()
    p = cli("run", JANECEK, "-o", str(tmp_path / "one.h5"), "-q", "--set", "friction.dynamic=12")
    assert p.returncode == 0, p.stderr
    one, r = ss.read(tmp_path / "one.h5"), ss.run(cfg)
    assert np.array_equal(one.t, r.t) and np.array_equal(one.x, r.x) and np.array_equal(one.v, r.v)
    with pytest.raises(ss.InputError) as e:
        cfg["friction.dynamic"] = 30
    assert str(e.value) == "friction.static: must be >= 30 (got 26)"
    assert cfg["friction.dynamic"] == 12.0  # unchanged
    p = cli("check", JANECEK, "--set", "friction.dynamic=30")
    assert p.returncode == 2 and "friction.static: must be >= 30 (got 26" in p.stderr


def test_unknown_key_and_missing_file():
    cfg = ss.load(JANECEK)
    with pytest.raises(KeyError):
        cfg["friction.no_such_key"]
    with pytest.raises(ss.InputError) as e:
        cfg["friction.no_such_key"] = 1
    assert "friction.no_such_key" in str(e.value)
    with pytest.raises(ss.InputError) as e:
        ss.load("/nonexistent/x.yaml")
    p = cli("check", "/nonexistent/x.yaml")
    assert p.returncode == 2 and p.stderr.strip() == "stickslip: error: " + str(e.value)


def test_save_where_no_file_can_be_is_a_file_error(tmp_path):
    blocker = tmp_path / "plain_file"
    blocker.write_text("")
    target = blocker / "out.h5"  # a directory that is a file: nothing can create it
    r = ss.run(ss.Config.from_dict(CHEAP))
    with pytest.raises(ss.FileError) as e:
        r.save(target)
    assert str(target) in str(e.value)
    p = cli("run", JANECEK, "-o", str(target), "--quiet")
    assert p.returncode == 1 and str(e.value).split(":")[0] in p.stderr


def test_save_creates_missing_directories_as_the_cli_does(tmp_path):
    r = ss.run(ss.Config.from_dict(CHEAP))
    target = tmp_path / "new" / "sub" / "out.h5"
    r.save(target)
    back = ss.read(target)
    assert back.t.tobytes() == r.t.tobytes() and back.x.tobytes() == r.x.tobytes()
    cli_target = tmp_path / "cli_new" / "sub" / "out.h5"
    assert cli("run", JANECEK, "-o", str(cli_target), "--quiet").returncode == 0
    assert cli_target.is_file()


def test_bad_yaml_names_line():
    with pytest.raises(ss.InputError) as e:
        ss.Config.from_yaml("element: {mass: -3}\n")
    assert str(e.value).startswith("<string>")
    assert "element.mass" in str(e.value)


def test_solver_failure_carries_partial_result(tmp_path):
    cfg = ss.load(JANECEK)
    cfg["simulation.max_events"] = 3
    with pytest.raises(ss.SolverError) as e:
        ss.run(cfg)
    r = e.value.result
    assert r is not None and not r.complete and r.message == str(e.value)
    # The events up to and including the one that went past the limit.
    assert len(r.events) == 4 and r.t[-1] < 9.5 and len(r.t) > 0
    out = tmp_path / "me.h5"
    p = cli("run", JANECEK, "--set", "simulation.max_events=3", "-o", str(out), "--quiet")
    # The command's exit code 3 and its message, word for word.
    assert p.returncode == 3 and p.stderr.startswith(f"stickslip: error: {e.value}\n")
    assert str(e.value).startswith("more than simulation.max_events = 3 events at t = ")
    # The file the command wrote holds the same partial run.
    back = ss.read(out)
    assert not back.complete and back.message == r.message
    assert back.t.tobytes() == r.t.tobytes() and back.events.tobytes() == r.events.tobytes()


def test_cancelled_run_raises_with_the_partial_result():
    cfg = ss.Config.from_dict(CHEAP)
    cfg["simulation.t_end"] = 1e5  # minutes of stick-slip: only the cancel ends it
    cancel = ss.Cancel()
    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    with pytest.raises(ss.CancelledError) as e:
        ss.run(cfg, cancel=cancel)
    timer.join()
    r = e.value.result
    assert e.value.code == ss._lib.lib.STSL_RC_CANCELLED
    assert str(e.value).startswith("run cancelled at t = ") and r.message == str(e.value)
    assert not r.complete and 0 < r.t[-1] < 1e5 and len(r.events) > 0
    assert not isinstance(e.value, ss.SolverError)
    # The configuration keeps no flag: it runs (shortened) to its end again.
    cfg["simulation.t_end"] = 0.5
    assert ss.run(cfg).complete and r.config["simulation.t_end"] == 1e5


def test_cancelled_sweep_raises_with_the_variants_that_ran():
    cfg = ss.Config.from_dict(CHEAP)
    cfg["simulation.output_step"] = 0.0  # a summary needs no grid; 1e7 s of one is refused
    # Four short variants (milliseconds), then ones only a cancel ends (hours):
    # the cancel 0.5 s in finds the four done, two running and the rest not started.
    t_end = np.array([0.5] * 4 + [1e7] * 996)
    cancel = ss.Cancel()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    with pytest.raises(ss.CancelledError) as e:
        ss.sweep(cfg, vary={"simulation.t_end": t_end}, jobs=2, cancel=cancel)
    timer.join()
    s = e.value.result
    assert str(e.value) == "sweep cancelled: 6 of 1000 variants ran"
    assert np.array_equal(s.parameters["simulation.t_end"], t_end[:6])
    assert list(s.summary["status"]) == [0] * 4 + [2] * 2
    assert s.messages[:4] == [""] * 4
    assert all(m.startswith("run cancelled at t = ") for m in s.messages[4:])


def test_sweep_rows_equal_single_runs():
    cfg = ss.Config.from_dict(CHEAP)
    values = np.linspace(0.5, 1.4, 6)
    s = ss.sweep(cfg, vary={"friction.dynamic": values}, jobs=2)
    assert len(s) == 6 and np.array_equal(s.parameters["friction.dynamic"], values)
    assert list(s.units) == list(s.summary.dtype.names)
    assert (s.units["x_final"], s.units["max_abs_v"], s.units["first_stick"]) == ("m", "m/s", "s")
    assert s.units["dissipated_energy"] == "J" and s.units["events_stick"] == ""
    for i, v in enumerate(values):
        c = cfg.copy()
        c["friction.dynamic"] = v
        r = ss.run(c)
        assert s.summary["x_final"][i] == r.x[-1]
        assert s.summary["events"][i] == len(r.events)
    with pytest.raises(ss.InputError):
        ss.sweep(cfg, vary={"friction.dynamic": [1.0, -2.0]})


def _counter():
    """A thread that counts and, every 1000 counts, notes the time."""
    state = {"n": 0, "stop": False, "times": []}

    def work():
        while not state["stop"]:
            state["n"] += 1
            if state["n"] % 1000 == 0:
                state["times"].append(time.perf_counter())

    th = threading.Thread(target=work)
    th.start()
    return state, th


def test_gil_released_during_run():
    cfg = ss.Config.from_dict(CHEAP)
    cfg["simulation.t_end"] = 300.0  # 1200 stick-slip cycles: ~0.5 s in one C call
    cfg["simulation.output_step"] = 1.0
    state, th = _counter()
    try:
        time.sleep(0.05)
        err = ss._lib.ffi.new("stsl_err *")
        t0 = time.perf_counter()
        rc = ss._lib.lib.stsl_run(cfg._h, ss._lib.lib.STSL_OUTPUT_NONE, ss._lib.ffi.NULL,
                                  ss._lib.ffi.NULL, err)
        t1 = time.perf_counter()
    finally:
        state["stop"] = True
        th.join()
    assert rc == 0 and t1 - t0 > 0.1
    # One C call.  With the GIL held (checked with ctypes.PyDLL, which keeps
    # it: a gap as long as the call) the counting thread stops for the whole
    # call; released, it notes the time every ~1 ms all through it.  Half the
    # call leaves room for the scheduler of a loaded 2-core machine.
    marks = [t0] + [t for t in state["times"] if t0 < t < t1] + [t1]
    gap = max(b - a for a, b in zip(marks, marks[1:]))
    assert gap < 0.5 * (t1 - t0), f"the other thread stood still for {gap:.3f} of {t1 - t0:.3f} s"


def test_sweep_vary_misuse_says_what_vary_is():
    """vary as a list, an empty mapping, unequal or empty arrays: a message
    about vary (a list raised TypeError from indexing it; an empty mapping
    the 'same length' message)."""
    cfg = ss.Config.from_dict(CHEAP)
    with pytest.raises(TypeError, match=r"vary: expected a dict \{key: array of values\}, got list"):
        ss.sweep(cfg, vary=["friction.dynamic", [1.0, 2.0]])
    with pytest.raises(ss.InputError, match="vary: no keys to vary"):
        ss.sweep(cfg, vary={})
    with pytest.raises(ss.InputError, match=r"same length .*friction.dynamic: 2, element.mass: 1"):
        ss.sweep(cfg, vary={"friction.dynamic": [1.0, 2.0], "element.mass": [1.0]})
    with pytest.raises(ss.InputError, match=r"vary\['friction.dynamic'\]: no values"):
        ss.sweep(cfg, vary={"friction.dynamic": []})


def test_gil_released_during_sweep():
    cfg = ss.Config.from_dict(CHEAP)
    state, th = _counter()
    try:
        time.sleep(0.05)
        n0 = state["n"]
        ss.sweep(cfg, vary={"friction.dynamic": np.linspace(0.5, 1.4, 40)}, jobs=2)
        n1 = state["n"]
    finally:
        state["stop"] = True
        th.join()
    assert n1 - n0 > 1000


def _rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif("STSL_SANITIZED" in os.environ,
                    reason="ASan keeps freed blocks in quarantine: RSS is no leak measure there")
def test_memory_flat_over_10000_runs():
    cfg = ss.Config.from_dict(CHEAP)
    cfg["simulation.t_end"] = 0.05
    for _ in range(500):  # allocator pools and caches settle first
        ss.run(cfg)
    before = _rss_kib()
    for _ in range(10000):
        ss.run(cfg)
    grown = _rss_kib() - before
    # A leak of even 100 bytes per run would grow RSS by ~1 MiB over 10,000
    # runs; allocator noise is a few hundred KiB.
    assert grown < 1024, f"RSS grew by {grown} KiB over 10,000 runs"


@pytest.mark.skipif("STSL_BUILD_DIR" not in os.environ, reason="needs the build tree (ctest sets it)")
def test_cmake_install_gives_an_importable_package(tmp_path):
    p = subprocess.run(["cmake", "--install", os.environ["STSL_BUILD_DIR"], "--prefix",
                        str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("STICKSLIP_LIB", "PYTHONPATH")}
    env["PYTHONPATH"] = str(tmp_path / os.environ["STSL_PY_SITEDIR"])
    code = ("import stickslip, stickslip._libpath as l; "
            "print(stickslip.__version__, stickslip.__file__, l.LIBRARY)")
    p = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    version, package, library = p.stdout.split()
    assert version == ss.__version__
    assert package.startswith(str(tmp_path)) and library.startswith(str(tmp_path))
    # Into the configured prefix (the README's plain `cmake --install`) the
    # package lands where /usr/bin/python3 looks without a PYTHONPATH.
    site = os.path.join(os.environ["STSL_INSTALL_PREFIX"], os.environ["STSL_PY_SITEDIR"])
    env.pop("PYTHONPATH")
    p = subprocess.run(["/usr/bin/python3", "-c", "import sys; print(repr(sys.path))"], env=env,
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert site in ast.literal_eval(p.stdout), (site, p.stdout)


def test_compare_metrics_of_a_shifted_position():
    r = ss.run(ss.load(JANECEK))
    rep = ss.compare(r, r.t, r.x + 1e-3, r.v)
    # A constant offset of x is its max, RMS and final error; each x + 1e-3
    # is rounded once (|x| < 0.1: an ulp is < 2e-17), so 1e-15 is loose.
    for key in ("max_abs_error_x", "rms_error_x", "final_error_x"):
        assert abs(rep[key] - 1e-3) < 1e-15, key
    # v untouched: the reference re-run at the candidate's own times gives
    # the same velocities, the same stuck intervals and the same events.
    assert rep["max_abs_error_v"] == 0 and rep["stuck_iou"] == 1
    assert rep["events_missed"] == 0 and rep["events_spurious"] == 0
    assert rep["events_matched"] == len(r.events) and rep["n_points"] == len(r.t)
    assert rep["units"] == {"t": "s", "x": "m", "v": "m/s", "energy": "J"}
    t = r.t.copy()
    t[[5, 6]] = t[[6, 5]]
    with pytest.raises(ss.InputError) as e:
        ss.compare(r, t, r.x, r.v)
    # %.17g, as the command's messages print times.
    assert str(e.value) == (f"candidate: t[6] = {t[6]:.17g} goes back from {t[5]:.17g} "
                            "(time must increase)")
    with pytest.raises(ss.InputError) as e:
        ss.compare(r, r.t, np.where(r.t > 1, np.nan, r.x), r.v)
    assert str(e.value).startswith("candidate: x[") and "is not finite (nan)" in str(e.value)
    with pytest.raises(ss.InputError) as e:
        ss.compare(r, r.t + 100, r.x, r.v)
    assert str(e.value) == "candidate: fewer than two distinct times within the reference's [0, 9.5] s"
    with pytest.raises(ss.InputError):
        ss.compare(r, r.t, r.x[:-1], r.v)


@pytest.mark.parametrize("with_friction", [True, False])
def test_compare_equals_the_command(tmp_path, with_friction):
    """The numbers of ss.compare are those of `stickslip compare -o` for the
    same reference file and candidate: a Karnopp run of the Janecek case,
    written as CSV with 17 significant digits (every double exactly)."""
    ref = tmp_path / "ref.h5"
    assert cli("run", JANECEK, "-o", str(ref), "--quiet").returncode == 0
    cfg = ss.load(JANECEK)
    cfg.update({"simulation.scheme": "karnopp", "simulation.step": 1e-4})
    cand = ss.run(cfg)
    cols = {"t": cand.t, "x": cand.x, "v": cand.v}
    if with_friction:
        cols["friction"] = cand.friction
    csv = tmp_path / "cand.csv"
    np.savetxt(csv, np.column_stack(list(cols.values())), fmt="%.17g", delimiter=",",
               header=",".join(cols), comments="")
    report = tmp_path / "report.json"
    p = cli("compare", str(ref), str(csv), "-o", str(report))
    assert p.returncode == 0, p.stderr
    with open(report, encoding="utf-8") as f:
        want = json.load(f)
    got = ss.compare(ss.read(ref), *cols.values())
    assert 0 < got["events_matched"] and 0 < got["max_abs_error_x"] < 1e-3
    for key, value in got.items():
        assert value == want[key], key  # exact: the same code on the same doubles


def test_verify_states_the_error():
    """simulation.verify: the estimate (the run again at rtol/100) in stats;
    at rtol 1e-8 the Janecek event times are off by 7e-9 s (README
    "Numerics"): an estimate between 1e-10 and 1e-6 s can only be that."""
    cfg = ss.load(JANECEK)
    cfg["simulation.rtol"] = 1e-8
    cfg["simulation.atol"] = "auto"
    cfg["simulation.verify"] = "on"
    r = ss.run(cfg, output_step=0)
    assert r.stats["verify"] == 1 and r.stats["verify_rtol"] == 1e-10
    assert 1e-10 < r.stats["estimated_error_event_time"] < 1e-6
    assert r.stats["verify_message"] == ""
    assert "verify" not in ss.run(ss.load(JANECEK), output_step=0).stats
