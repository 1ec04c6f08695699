"""A careful reviewer's misuses of every public function: each raises the
documented error (an ss.Error subclass, or a TypeError naming the argument),
never an AttributeError from inside the package, and never writes a file
it was not asked for or replaces one it read."""
import hashlib
import os
import shutil

import numpy as np
import pytest

import stickslip as ss

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BELT = os.path.join(SRC, "examples", "belt_stick_slip.yaml")
CHEAP = {"element": {"mass": 1.0, "spring": {"stiffness": 100.0}},
         "friction": {"law": "coulomb", "dynamic": 1.0, "static": 1.5},
         "inputs": {"base_motion": {"type": "sine", "amplitude": 0.05, "frequency": 2.0}},
         "simulation": {"t_end": 0.2, "output_step": 0.01}}


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture
def cfg():
    return ss.Config.from_dict(CHEAP)


@pytest.fixture
def result(cfg):
    return ss.run(cfg)


def test_run_of_a_path_loads_it(tmp_path):
    """ss.run("x.yaml") is ss.run(ss.load("x.yaml")), to the bit."""
    a, b = ss.run(BELT), ss.run(ss.load(BELT))
    assert a.x.tobytes() == b.x.tobytes() and a.events.tobytes() == b.events.tobytes()
    import pathlib
    assert ss.run(pathlib.Path(BELT)).t.tobytes() == b.t.tobytes()
    assert ss.run(CHEAP).x.tobytes() == ss.run(ss.Config.from_dict(CHEAP)).x.tobytes()
    with pytest.raises(ss.InputError, match="cannot open .*missing.yaml: No such file"):
        ss.run(str(tmp_path / "missing.yaml"))
    with pytest.raises(ss.InputError, match="is a directory, not a configuration file"):
        ss.run(str(tmp_path))


# (call, the exception, the start of its message)
TYPE_MISUSES = [
    (lambda c, r: ss.run(None), "cfg: expected a stickslip.Config, the path of a YAML configuration or a dict, got None"),
    (lambda c, r: ss.run(3), "cfg: expected a stickslip.Config, the path of a YAML configuration or a dict, got int"),
    (lambda c, r: ss.run(c, output_step="a"), "output_step: expected a number, got str"),
    (lambda c, r: ss.run(c, output_step=True), "output_step: expected a number, got bool"),
    (lambda c, r: ss.run(c, cancel=1), "cancel: expected a stickslip.Cancel, got int"),
    (lambda c, r: ss.load(None), "path: expected a file path (str or os.PathLike), got None"),
    (lambda c, r: ss.read(3), "path: expected a file path (str or os.PathLike), got int"),
    (lambda c, r: c[None], "key: expected a str (a dotted path such as 'friction.dynamic'), got None"),
    (lambda c, r: c.__setitem__(3, 1.0), "key: expected a str"),
    (lambda c, r: c.__setitem__("friction.dynamic", object()), "friction.dynamic: cannot set a value of type object"),
    (lambda c, r: c.update([("friction.dynamic", 1.0)]), "assignments: expected a dict {key: value}, got list"),
    (lambda c, r: ss.Config.from_yaml(None), "text: expected a str, got None"),
    (lambda c, r: ss.Config.from_yaml(b"a: 1"), "text: expected a str, got bytes"),
    (lambda c, r: ss.Config.from_dict([1]), "d: expected a dict (the YAML file's structure), got list"),
    (lambda c, r: ss.Config.from_dict({}, base_dir=3), "base_dir: expected a file path"),
    (lambda c, r: ss.Config.from_dict({"inputs": {"forces": [1.0, {2.0}]}}),
     "d['inputs.forces.1']: cannot write a value of type set as YAML"),
    (lambda c, r: ss.Config("x.yaml"), "Config() is made by ss.load(path)"),
    (lambda c, r: c.write(None), "path: expected a file path (str or os.PathLike), got None"),
    (lambda c, r: r.save(None), "path: expected a file path (str or os.PathLike), got None"),
    (lambda c, r: r.save("x.h5", format=5), "format: expected a str, got int"),
    (lambda c, r: r.group(None), "group: expected a str"),
    (lambda c, r: ss.sweep(c, None), "vary: expected a dict {key: array of values}, got None"),
    (lambda c, r: ss.sweep(c, [1.0, 2.0]), "vary: expected a dict {key: array of values}, got list"),
    (lambda c, r: ss.sweep(c, {3: [1.0]}), "vary: a key must be a str"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": None}), "vary['friction.dynamic']: expected an array of values (one per variant), got None"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": [1.0, None]}), "vary['friction.dynamic'][1]: expected a number or str, got None"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": [1.0]}, jobs="2"), "jobs: expected an int, got str"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": [1.0]}, jobs=2.0), "jobs: expected an int, got float"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": [1.0]}, cancel=True), "cancel: expected a stickslip.Cancel, got bool"),
    (lambda c, r: ss.sweep(None, {"friction.dynamic": [1.0]}), "cfg: expected a stickslip.Config"),
    (lambda c, r: ss.compare(None, r.t, r.x, r.v), "result: expected a stickslip.Result (or its Config), got None"),
    (lambda c, r: ss.compare(r, None, r.x, r.v), "t: expected an array of numbers, got None"),
    (lambda c, r: ss.compare(r, r.t, "abc", r.v), "x: expected an array of numbers, got str"),
    (lambda c, r: ss.compare(r, r.t, r.x, [object()] * len(r.t)), "v: expected an array of numbers, got list"),
    (lambda c, r: ss.compare(r, r.t, r.x, r.v, event_window="a"), "event_window: expected a number, got str"),
    # One step where a list of them is due: the argument named, not Python's
    # "'float' object is not iterable" from inside the package.
    (lambda c, r: ss.converge(c, 1e-3, scheme="karnopp"), "steps: expected a list of numbers, got float"),
    (lambda c, r: ss.converge(c, np.float64(1e-3), scheme="karnopp"), "steps: expected a list of numbers, got float64"),
    (lambda c, r: ss.converge(c, np.array(1e-3), scheme="karnopp"), "steps: expected a list of numbers, got ndarray"),
]


@pytest.mark.parametrize("call,message", TYPE_MISUSES, ids=[m.split(":")[0] + str(i) for i, (_, m) in enumerate(TYPE_MISUSES)])
def test_wrong_types_are_type_errors_naming_the_argument(cfg, result, call, message):
    with pytest.raises(TypeError) as e:
        call(cfg, result)
    assert str(e.value).startswith(message)


VALUE_MISUSES = [
    (lambda c, r: ss.run(c, output_step=-1), "output_step: must be >= 0 (got -1)"),
    (lambda c, r: ss.run(c, output_step=float("nan")), "output_step: must be finite (got nan)"),
    (lambda c, r: ss.load(""), "path: an empty file name"),
    (lambda c, r: ss.load("a\0b.yaml"), "path: a file name with a NUL byte"),
    (lambda c, r: c.__setitem__("friction.dynamic", None), "friction.dynamic: expected a number >= 0 (got 'null')"),
    (lambda c, r: c.__setitem__("friction.dynamic=1", 1), "key: 'friction.dynamic=1' is not a key"),
    (lambda c, r: ss.Config.from_yaml("a: [\n"), "<string>:2: invalid YAML"),
    (lambda c, r: r.save("out.txt"), "out.txt: unknown output format '.txt' (name the file .h5, .mat or .csv"),
    (lambda c, r: r.save("out"), "out: unknown output format ''"),
    (lambda c, r: r.save("out.h5", format="hdf"), "format: expected one of h5, mat, csv (got 'hdf')"),
    (lambda c, r: ss.sweep(c, {}), "vary: no keys to vary"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": 1.0}), "vary['friction.dynamic']: expected a 1-D array of values (one per variant), got shape ()"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": [[1.0, 2.0], [3.0, 4.0]]}), "vary['friction.dynamic']: expected a 1-D array of values (one per variant), got shape (2, 2) (ravel a grid)"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": []}), "vary['friction.dynamic']: no values"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": [1.0], "element.mass": [1.0, 2.0]}), "vary: every array must have the same length (one row per variant; friction.dynamic: 1, element.mass: 2)"),
    (lambda c, r: ss.sweep(c, {"no.such": [1.0]}), "no: unknown key"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": [1.0]}, jobs=-1), "jobs: must be in [1, 1024] (got -1)"),
    (lambda c, r: ss.sweep(c, {"friction.dynamic": [1.0]}, jobs=0), "jobs: must be in [1, 1024] (got 0)"),
    (lambda c, r: ss.compare(r, r.t, r.x[:-1], r.v), "compare: t, x, v (and friction) must have the same length (t: 23, x: 22, v: 23)"),
    (lambda c, r: ss.compare(r, np.c_[r.t, r.t], r.x, r.v), "t: expected a 1-D array, got shape (23, 2)"),
    (lambda c, r: ss.compare(r, r.t, r.x, r.v, event_window=-1), "event_window: must be >= 0 (got -1)"),
    (lambda c, r: ss.compare(r, r.t, r.x, r.v, stuck_velocity=-1e-3), "stuck_velocity: must be >= 0 (got -0.001)"),
]


@pytest.mark.parametrize("call,message", VALUE_MISUSES, ids=[m.split(":")[0] + str(i) for i, (_, m) in enumerate(VALUE_MISUSES)])
def test_wrong_values_are_input_errors_naming_them(cfg, result, call, message):
    with pytest.raises(ss.InputError) as e:
        call(cfg, result)
    assert str(e.value).startswith(message), str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, ss.Error)


def test_a_column_vector_is_a_candidate_column(result):
    """A column vector (n x 1) is one array, not a guess: the same report."""
    r = result
    flat = ss.compare(r, r.t, r.x + 1e-3, r.v)
    column = ss.compare(r, r.t[:, None], (r.x + 1e-3)[:, None], r.v)
    assert flat == column


def test_missing_and_wrong_files_are_input_errors(tmp_path):
    with pytest.raises(ss.InputError, match="No such file or directory"):
        ss.load(tmp_path / "none.yaml")
    with pytest.raises(ss.InputError) as e:
        ss.read(tmp_path)
    assert str(e.value) == f"{tmp_path}: is a directory, not a result file"
    with pytest.raises(ss.InputError) as e:
        ss.read(BELT)
    assert str(e.value) == f"{BELT}: not an HDF5 file"


def test_errors_are_the_packages():
    for cls in (ss.Error, ss.InputError, ss.FileError, ss.SolverError, ss.CancelledError):
        assert cls.__module__ == "stickslip"
    assert issubclass(ss.InputError, ValueError) and issubclass(ss.FileError, OSError)
    assert issubclass(ss.SolverError, RuntimeError)


def test_save_never_replaces_an_input(tmp_path):
    """Result.save refuses a path that is the configuration it ran, a table
    file the configuration reads, or the file it was read from, and leaves
    each byte for byte as it was."""
    conf = tmp_path / "belt.yaml"
    shutil.copy(BELT, conf)
    table = tmp_path / "base.csv"
    table.write_text("t,x\n0,0\n1,0.001\n5,0.002\n")
    r = ss.run(conf)
    before = digest(conf)
    with pytest.raises(ss.InputError) as e:
        r.save(conf, format="h5")
    assert str(e.value) == (f"output {conf} is the input {conf} (the same file): it would be "
                            "overwritten; choose another output")
    assert digest(conf) == before
    # A hard link is the same file under another name.
    os.link(conf, tmp_path / "link.h5")
    with pytest.raises(ss.InputError, match="is the input"):
        r.save(tmp_path / "link.h5")
    assert digest(conf) == before
    c = ss.load(conf)
    c["inputs.base_motion"] = f"{{type: table, file: {table}}}"
    kept = digest(table)
    with pytest.raises(ss.InputError, match="is the input"):
        ss.run(c).save(table, format="mat")
    # The CSV prefix base writes base_trajectory.csv: the table, here.
    shutil.copy(table, tmp_path / "base_trajectory.csv")
    c["inputs.base_motion"] = f"{{type: table, file: {tmp_path / 'base_trajectory.csv'}}}"
    with pytest.raises(ss.InputError, match="is the input"):
        ss.run(c).save(tmp_path / "base.csv")
    assert digest(table) == kept and digest(tmp_path / "base_trajectory.csv") == kept
    assert not (tmp_path / "base_events.csv").exists()
    saved = tmp_path / "r.h5"
    r.save(saved)
    back = ss.read(saved)
    kept = digest(saved)
    with pytest.raises(ss.InputError, match="is the input"):
        back.save(saved)
    assert digest(saved) == kept


def test_save_may_write_the_configurations_own_output_file(tmp_path, monkeypatch):
    """output.file names where `stickslip run` writes the result, not an
    input: r.save of that name (the file the command wrote before, say) was
    refused as "the input".  The file saved reads back as the run."""
    monkeypatch.chdir(tmp_path)
    cfg = ss.Config.from_dict({**CHEAP, "output": {"file": "results/cheap.h5"}})
    r = ss.run(cfg, progress=False)
    assert r.save("results/cheap.h5") == ["results/cheap.h5"]
    assert r.save("results/cheap.h5") == ["results/cheap.h5"]  # there now: replaced
    assert ss.read("results/cheap.h5").x.tobytes() == r.x.tobytes()


def test_save_follows_the_extension(tmp_path, result):
    """.h5 is HDF5, .mat a MAT v5 file, .csv the two CSV files of `run
    --csv`; the format argument names the format of a name whose extension
    says none, and an extension that says another format is refused (as
    `run -o x.mat --format h5` is: an HDF5 file named .mat would mislead)."""
    assert result.save(tmp_path / "r.h5") == [str(tmp_path / "r.h5")]
    assert result.save(tmp_path / "r.MAT") == [str(tmp_path / "r.MAT")]
    assert result.save(tmp_path / "r.csv") == [str(tmp_path / "r_trajectory.csv"),
                                               str(tmp_path / "r_events.csv")]
    assert result.save(tmp_path / "h5_named.out", format="h5") == [str(tmp_path / "h5_named.out")]
    with pytest.raises(ss.InputError, match="the name says MAT"):
        result.save(tmp_path / "h5_named.mat", format="h5")
    with open(tmp_path / "r.h5", "rb") as f:
        assert f.read(8) == b"\x89HDF\r\n\x1a\n"
    with open(tmp_path / "h5_named.out", "rb") as f:
        assert f.read(8) == b"\x89HDF\r\n\x1a\n"
    with open(tmp_path / "r.MAT", "rb") as f:
        head = f.read(128)
    assert head.startswith(b"MATLAB 5.0 MAT-file") and head[126:128] == b"IM"
    rows = (tmp_path / "r_trajectory.csv").read_text().splitlines()
    assert rows[0].startswith("t [s],") and len(rows) == 1 + len(result.t)
    assert not (tmp_path / "r.csv").exists() and sorted(os.listdir(tmp_path)) == sorted(
        ["r.h5", "r.MAT", "r_trajectory.csv", "r_events.csv", "h5_named.out"])
    # Each reads back as the run, told by its content, not its name.
    for name in ("r.h5", "r.MAT", "h5_named.out"):
        back = ss.read(tmp_path / name)
        assert back.x.tobytes() == result.x.tobytes(), name
        assert back.events.tobytes() == result.events.tobytes(), name


READ_FIFO = """
import sys
import stickslip as ss
for p in sys.argv[1:]:
    try:
        ss.read(p)
    except ss.InputError as e:
        print(e)
"""


def test_fifos_and_devices_are_refused_not_waited_on(tmp_path):
    """Opening a FIFO for reading waits for a writer: the readers refuse
    it (and devices) first.  Run in a child so that a reader that waits
    shows as a failure (the limit is a hang guard, far beyond any run)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cli_bin = os.environ.get("STICKSLIP_BIN", "stickslip")
    import subprocess
    import sys

    want = "not a regular file (a FIFO, socket or device), not a result file"
    for args in (["info", str(fifo)], ["plot", str(fifo)]):
        p = subprocess.run([cli_bin, *args], capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and f"{fifo}: {want}" in p.stderr, p.stderr
    p = subprocess.run([sys.executable, "-c", READ_FIFO, str(fifo), "/dev/null"],
                       capture_output=True, text=True, timeout=120)
    assert p.stdout.splitlines() == [f"{fifo}: {want}", f"/dev/null: {want}"], p.stderr


def test_numpy_scalars_are_the_python_values(cfg):
    """A numpy bool, int or float (what indexing an array gives) sets the
    text its Python value sets, alone or in a list or dict: np.bool_ was a
    TypeError whose message listed bool among the types taken.  What
    Python's value gives (the library's value or message) is the
    independent expectation."""
    def outcome(v):
        try:
            cfg["friction.dynamic"] = v
            return cfg["friction.dynamic"]
        except ss.Error as e:
            return type(e), str(e)

    for np_value, py_value in ((np.bool_(True), True), (np.int32(2), 2), (np.float32(0.5), 0.5)):
        assert outcome(np_value) == outcome(py_value)
        assert outcome([np_value]) == outcome([py_value])
        assert outcome({"a": np_value}) == outcome({"a": py_value})
    with pytest.raises(ss.InputError, match="simulation.verify: must be one of: off, on, strict"):
        cfg["simulation.verify"] = np.bool_(True)
    with pytest.raises(ss.InputError, match="friction.dynamic: expected a number >= 0 .got 'true'"):
        ss.sweep(cfg, {"friction.dynamic": np.array([True])}, progress=False)


def test_copy_module_copies_are_independent(cfg):
    """copy.copy(cfg) shared the C configuration (a key set on the copy
    changed the original) and copy.deepcopy(cfg), deepcopy of a Result,
    failed inside cffi; both are cfg.copy() now."""
    import copy

    for make in (copy.copy, copy.deepcopy):
        c = make(cfg)
        c["friction.dynamic"] = 0.25
        assert (cfg["friction.dynamic"], c["friction.dynamic"]) == (1, 0.25)
    r = ss.run(cfg, progress=False)
    d = copy.deepcopy(r)
    d.config["friction.dynamic"] = 0.25
    d.x[0] = 99.0
    assert r.config["friction.dynamic"] == 1 and r.x[0] != 99.0
    assert d.t.tobytes() == r.t.tobytes()


def test_pickled_config_and_result_are_the_same(cfg):
    """pickle (multiprocessing, joblib, a notebook's cache) of a Config or a
    Result failed inside cffi ("cannot pickle '_cffi_backend.__CDataGCP'
    object"); the pickle now carries the effective YAML: the same
    configuration (to_yaml) and a run of it equal to the bit."""
    import pickle

    cfg["friction.dynamic"] = 1.25
    back = pickle.loads(pickle.dumps(cfg))
    assert back.to_yaml() == cfg.to_yaml()
    r = ss.run(cfg, progress=False)
    assert ss.run(back, progress=False).x.tobytes() == r.x.tobytes()
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.x.tobytes() == r.x.tobytes() and r2.events.tobytes() == r.events.tobytes()
    assert r2.config.to_yaml() == r.config.to_yaml()
