"""One vocabulary: docs/names.md lists the library's names table
(stsl_names), and every name the files (HDF5, MAT, CSV, study file) and
the package (columns, events, stats, sweep summary) hold is in it, in the
right place.  The files are written by the command, the independent
source of their names; the table is checked against them, not against
itself."""
import csv
import json
import os
import re
import subprocess
import warnings

import h5py
import numpy as np
import pytest

import stickslip as ss
from stickslip._lib import ffi, lib

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CLI = os.environ.get("STICKSLIP_BIN", "stickslip")
JANECEK = os.path.join(SRC, "examples", "janecek_chirp.yaml")
STOPS = os.path.join(SRC, "examples", "dv_end_stops.yaml")
SYSTEM = os.path.join(SRC, "examples", "servo_two_mass.yaml")
TABLE = ss.names()


def cli(*args):
    p = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p


def docs_table():
    """The rows of docs/names.md's first table, as the library's dicts."""
    rows, text = [], open(os.path.join(SRC, "docs", "names.md"), encoding="utf-8").read()
    section = text.split("## The table", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and line.startswith("| `"):
            rows.append(dict(zip(("name", "unit", "where", "meaning"), [cells[0].strip("`")] + cells[1:])))
    return rows


def test_the_docs_table_is_the_librarys():
    assert docs_table() == TABLE
    names = [e["name"] for e in TABLE]
    assert len(names) == len(set(names)), "a name twice"


def scope(where):
    """The table's names for one place, as regular expressions."""
    out = []
    for e in TABLE:
        if where in [w.strip() for w in e["where"].split(",")]:
            out.append(re.compile(re.sub(r"<[a-zA-Z]+>", ".+", re.escape(e["name"]).replace(r"\<", "<")
                                         .replace(r"\>", ">")) + r"\Z"))
    return out


def unknown(names, where):
    """The names not in the table's `where` (a system's GROUP[MEMBER] by
    its group)."""
    pats = scope(where)
    return [n for n in names if not any(p.match(re.sub(r"\[.*\]$", "", n)) for p in pats)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("names")
    out = {}
    for name, cfg, extra in (("janecek", JANECEK, ["--set", "simulation.verify=on"]), ("stops", STOPS, []),
                             ("system", SYSTEM, [])):
        cli("run", cfg, "-o", str(d / f"{name}.h5"), *extra)
        cli("run", cfg, "-o", str(d / f"{name}.mat"), *extra)
        cli("run", cfg, "--csv", str(d / name), *extra)
        out[name] = d / name
    study = d / "study.yaml"
    study.write_text(f"base: {json.dumps(STOPS)}\nvary: {{friction.dynamic: {{values: [1.0, 2.0]}}}}\n")
    cli("sweep", str(study), "-o", str(d / "study.h5"), "--jobs", "1")
    sysstudy = d / "system_study.yaml"
    sysstudy.write_text(f"base: {json.dumps(SYSTEM)}\nvary: {{simulation.t_end: {{values: [0.5, 1.0]}}}}\n")
    cli("sweep", str(sysstudy), "-o", str(d / "system_study.h5"), "--jobs", "1")
    out["study"], out["system_study"] = d / "study.h5", d / "system_study.h5"
    return out


@pytest.mark.parametrize("name", ["janecek", "stops", "system"])
def test_result_files_use_the_table(files, name):
    with h5py.File(f"{files[name]}.h5", "r") as f:
        traj = list(f["trajectory"].keys())
        events = list(f["events"].dtype.names)
        stats = list(f["stats"].attrs.keys()) + [k for k in ("complete", "message") if k in f.attrs]
    assert unknown(traj, "trajectory") == []
    assert unknown(events, "events") == []
    assert unknown(stats, "stats") == []
    if name == "janecek":  # the verified run's names are there to be checked
        assert "estimated_error_x" in stats
    for which in ("trajectory", "events"):
        with open(f"{files[name]}_{which}.csv", encoding="utf-8") as f:
            header = [re.sub(r" \[.*\]$", "", h) for h in next(csv.reader(f))]
        assert unknown(header, which) == []


def test_mat_files_use_the_table(files):
    import scipy.io

    for name in ("janecek", "stops", "system"):
        m = scipy.io.loadmat(f"{files[name]}.mat")
        for which in ("trajectory", "events", "stats"):
            assert unknown(list(m[which].dtype.names), which) == [], (name, which)


@pytest.mark.parametrize("study", ["study", "system_study"])
def test_study_files_use_the_table(files, study):
    with h5py.File(files[study], "r") as f:
        cols = list(f["study/summary"].keys())
    assert unknown(cols, "study") == []
    if study == "system_study":
        assert any(c.startswith("x_final.") for c in cols)


def test_the_package_uses_the_files_names(files):
    """The package's names are the files': a Result's columns and event
    fields are the HDF5 file's, every stats key is in the table, and the
    summary of ss.sweep holds every column of the study file under the same
    name (and its extra columns are in the table too)."""
    r = ss.run(STOPS)
    with h5py.File(f"{files['stops']}.h5", "r") as f:
        assert set(f["trajectory"].keys()) == {"t", "mode", *r.columns}
        assert r.events.dtype.names == f["events"].dtype.names
    assert unknown(list(r.stats), "stats") == []
    assert unknown(list(ss.run(JANECEK, output_step=0).stats), "stats") == []
    s = ss.sweep(STOPS, {"friction.dynamic": [1.0, 2.0]}, progress=False)
    st = ss.read(files["study"])
    assert unknown(list(s.summary.dtype.names), "study") == []
    assert set(st.summary.dtype.names) <= set(s.summary.dtype.names)
    for c in st.summary.dtype.names:
        if c != "wall_seconds":  # the only column that differs between two runs
            np.testing.assert_array_equal(s.summary[c], st.summary[c], err_msg=c)
            assert s.units[c] == st.units[c], c


def test_stat_takes_the_files_names():
    """stsl_result_stat answers to the names of the files and, still, the
    former ones, with the same values as r.stats."""
    cfg = ss.load(JANECEK)
    cfg["simulation.verify"] = "on"
    r = ss.run(cfg, output_step=0)
    out, err = ffi.new("stsl_result **"), ffi.new("stsl_err *")
    assert lib.stsl_run_result(cfg._h, out, err) == 0
    v = ffi.new("double *")
    try:
        for new, old in (("time_STUCK", "mode_time.STUCK"), ("events_stick", "events.stick"),
                         ("estimated_error_x", "err_x")):
            assert lib.stsl_result_stat(out[0], new.encode(), v, err) == 0, new
            got = v[0]
            assert lib.stsl_result_stat(out[0], old.encode(), v, err) == 0, old
            assert got == v[0] == r.stats[new]
    finally:
        lib.stsl_result_free(out[0])


def test_former_python_names_still_answer_with_a_warning():
    r = ss.run(STOPS)
    s = ss.sweep(STOPS, {"friction.dynamic": [1.0, 2.0]}, progress=False)
    cases = [(lambda: s.summary["final_x"], s.summary["x_final"]),
             (lambda: s.summary["n_events"], s.summary["events"]),
             (lambda: s.summary["complete"], s.summary["status"] == 0),
             (lambda: r.events["x_before"], r.events["x"]),
             (lambda: r.events["x_after"], r.events["x"]),
             (lambda: r.events["friction_after"], r.events["friction"]),
             (lambda: r.stats["events.stick"], r.stats["events_stick"]),
             (lambda: r.stats["mode_time.STUCK"], r.stats["time_STUCK"])]
    for old, new in cases:
        with pytest.warns(DeprecationWarning, match="docs/names.md"):
            got = old()
        np.testing.assert_array_equal(got, new)
    with pytest.warns(DeprecationWarning, match="friction_before"):
        fb = r.events["friction_before"]
    assert len(fb) == len(r.events)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new names warn of nothing
        s.summary["x_final"], r.events["x"], r.stats["time_STUCK"]
    with pytest.raises(KeyError):
        r.stats["events.nonsense"]
