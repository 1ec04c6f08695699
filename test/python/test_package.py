"""The package as a Python user meets it: ss.study of a study YAML against
`stickslip sweep` of the same file, jobs defaulting to the cores, progress
(callbacks and the text bar), to_pandas with pandas optional, and a
docstring on every public name."""
import concurrent.futures
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import stickslip as ss
from test_stickslip import CHEAP  # a cheap model: 0.5 s, a handful of events

sweep_module = sys.modules["stickslip.sweep"]  # ss.sweep is the function
CLI = os.environ.get("STICKSLIP_BIN", "stickslip")


def write_study(tmp_path, vary=None, extra=""):
    """A 3 x 2 grid study over CHEAP (JSON is YAML's flow style)."""
    base = tmp_path / "base.yaml"
    base.write_text(json.dumps(CHEAP))
    vary = vary or {"friction.dynamic": {"values": [0.5, 1.0, 1.4]},
                    "inputs.base_motion.amplitude": {"values": [0.02, 0.05]}}
    study = tmp_path / "study.yaml"
    study.write_text(f"base: base.yaml\nvary: {json.dumps(vary)}\ncombine: grid\n{extra}")
    return study


def same_rows(a, b):
    """Every summary column but the wall clock's equal (NaN == NaN)."""
    names = [n for n in a.summary.dtype.names if n != "wall_seconds"]
    assert names == [n for n in b.summary.dtype.names if n != "wall_seconds"]
    for n in names:
        np.testing.assert_array_equal(a.summary[n], b.summary[n], err_msg=n)
    np.testing.assert_array_equal(a.parameters, b.parameters)
    assert a.messages == b.messages


# ---- ss.study ------------------------------------------------------------------


def test_study_is_the_commands_study(tmp_path):
    """ss.study writes the file `stickslip sweep` writes: the same rows
    (the command's file is the independent value), whatever the jobs."""
    study = write_study(tmp_path)
    p = subprocess.run([CLI, "sweep", str(study), "-o", str(tmp_path / "cli.h5"), "--jobs", "1"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    s = ss.study(study, output=tmp_path / "py.h5", jobs=2, progress=False)
    assert s.complete and len(s) == s.n_runs == 6
    assert s.path == str(tmp_path / "py.h5")
    same_rows(s, ss.read(tmp_path / "cli.h5"))
    same_rows(s, ss.read(tmp_path / "py.h5"))
    # Without output: the same rows from a temporary file, not kept.
    t = ss.study(str(study), progress=False)
    assert t.path is None
    same_rows(s, t)


def test_study_refuses_a_bad_key_and_writes_nothing(tmp_path):
    study = write_study(tmp_path, vary={"friction.dynamc": {"values": [1.0, 2.0]}})
    with pytest.raises(ss.InputError, match="friction.dynamc"):
        ss.study(study, output=tmp_path / "s.h5", progress=False)
    assert not (tmp_path / "s.h5").exists()
    with pytest.raises(TypeError, match="resume: expected a bool"):
        ss.study(study, resume=1)


def test_study_cancelled_then_resumed(tmp_path):
    """A Cancel set before the study starts: each worker finishes at most
    the variant it claimed, so with one job at most 1 of 6 rows is done;
    the file is left incomplete and resume=True completes it with the rows
    of an uninterrupted run."""
    study = write_study(tmp_path)
    cancel = ss.Cancel()
    cancel.set()
    with pytest.raises(ss.CancelledError) as e:
        ss.study(study, output=tmp_path / "s.h5", jobs=1, cancel=cancel, progress=False)
    part = e.value.result
    assert not part.complete and len(part) <= 1 and part.n_runs == 6
    whole = ss.study(study, output=tmp_path / "s.h5", resume=True, progress=False)
    assert whole.complete
    same_rows(whole, ss.study(study, progress=False))


def test_study_progress_reaches_the_end(tmp_path):
    calls = []
    s = ss.study(write_study(tmp_path), progress=lambda done, total: calls.append((done, total)))
    # The library reports after rows are written and once at the end.
    assert calls and calls[-1] == (6, 6) and len(s) == 6
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


# ---- jobs --------------------------------------------------------------------------


def test_jobs_default_to_the_cores(monkeypatch):
    """ss.cores() is the affinity mask's count (what `stickslip sweep`
    uses), and ss.sweep without jobs starts that many threads."""
    assert ss.cores() == len(os.sched_getaffinity(0))
    seen = []
    real = concurrent.futures.ThreadPoolExecutor

    def recording(max_workers):
        seen.append(max_workers)
        return real(max_workers=max_workers)

    monkeypatch.setattr(sweep_module.concurrent.futures, "ThreadPoolExecutor", recording)
    ss.sweep(CHEAP, {"friction.dynamic": [1.0, 1.2]}, progress=False)
    ss.sweep(CHEAP, {"friction.dynamic": [1.0, 1.2]}, jobs=1, progress=False)
    assert seen == [ss.cores(), 1]


# ---- progress ---------------------------------------------------------------------


def test_sweep_progress_callback_counts_every_variant():
    calls = []
    ss.sweep(CHEAP, {"friction.dynamic": np.linspace(0.5, 1.4, 7)}, jobs=2,
             progress=lambda done, total: calls.append((done, total)))
    assert calls == [(k, 7) for k in range(1, 8)]


def test_run_progress_callback_ends_at_t_end():
    """The library reports now and then (wall time); the package always
    reports the end: the last call is (t_end, t_end) for a complete run,
    and the times never go back or past t_end."""
    calls = []
    r = ss.run(CHEAP, progress=lambda t, t_end: calls.append((t, t_end)))
    assert r.complete and calls[-1] == (0.5, 0.5)
    ts = [t for t, _ in calls]
    assert ts == sorted(ts) and all(0.0 <= t <= 0.5 for t in ts)


def test_an_error_in_the_callback_is_raised():
    def bad(done, total):
        raise ValueError("callback failed")

    with pytest.raises(ValueError, match="callback failed"):
        ss.run(CHEAP, progress=bad)
    with pytest.raises(ValueError, match="callback failed"):
        ss.sweep(CHEAP, {"friction.dynamic": [1.0, 1.2]}, progress=bad)
    with pytest.raises(TypeError, match="progress: expected None, True, False or a callable"):
        ss.run(CHEAP, progress="yes")


def test_ctrl_c_stops_a_sweep_and_a_study_and_keeps_the_rows(tmp_path):
    """Ctrl-C (a KeyboardInterrupt in the progress callback, where a
    notebook's interrupt lands between reports) raises KeyboardInterrupt,
    not a CancelledError or a half-written file: a study's file holds the
    rows done (the study runs on while the report travels to this thread,
    so how many is the machine's business: not asserted) and resume=True
    completes it with an uninterrupted study's rows."""
    def ctrl_c(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ss.sweep(CHEAP, {"friction.dynamic": np.linspace(0.5, 1.4, 6)}, jobs=1, progress=ctrl_c)
    study = write_study(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        ss.study(study, output=tmp_path / "s.h5", jobs=1, progress=ctrl_c)
    part = ss.read(tmp_path / "s.h5")
    assert part.n_runs == 6 and 1 <= len(part) <= 6 and part.complete == (len(part) == 6)
    whole = part if part.complete else ss.study(study, output=tmp_path / "s.h5", resume=True,
                                                progress=False)
    same_rows(whole, ss.study(study, progress=False))


def test_ctrl_c_leaves_the_callers_cancel_unset(tmp_path):
    """A Ctrl-C stops the sweep or study given a Cancel, but only the
    caller's set() sets that Cancel: the next sweep, study and run with it
    run to their end (with rows equal to those of calls without one), and
    once set by the caller it still stops a run at once."""
    def ctrl_c(done, total):
        raise KeyboardInterrupt

    vary = {"friction.dynamic": np.linspace(0.5, 1.4, 6)}
    cancel = ss.Cancel()
    with pytest.raises(KeyboardInterrupt):
        ss.sweep(CHEAP, vary, jobs=1, cancel=cancel, progress=ctrl_c)
    assert not cancel.is_set()
    same_rows(ss.sweep(CHEAP, vary, jobs=1, cancel=cancel, progress=False),
              ss.sweep(CHEAP, vary, jobs=1, progress=False))
    study = write_study(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        ss.study(study, output=tmp_path / "s.h5", jobs=1, cancel=cancel, progress=ctrl_c)
    assert not cancel.is_set()
    same_rows(ss.study(study, jobs=1, cancel=cancel, progress=False), ss.study(study, progress=False))
    assert ss.run(CHEAP, cancel=cancel, progress=False).complete
    cancel.set()
    with pytest.raises(ss.CancelledError, match="^run cancelled at t = 0 s"):
        ss.run(CHEAP, cancel=cancel, progress=False)
    assert cancel.is_set()


def test_a_failed_write_leaves_a_clean_exit(tmp_path):
    """A study whose file cannot be written (a file-size limit; Python
    ignores SIGXFSZ, so the write fails with EFBIG) raises FileError naming
    the cause and leaves no file; the interpreter then exits normally.
    The package does not call stsl_process_setup (a library's user keeps
    HDF5's exit handler), and that handler segfaulted on the file whose
    write had failed.  In a child interpreter: the limit is the process's."""
    import resource

    study = write_study(tmp_path, extra="store: full\n")
    out = tmp_path / "s.h5"
    code = ("import sys, stickslip as ss\n"
            "try:\n"
            f"    ss.study({str(study)!r}, output={str(out)!r}, jobs=1, progress=False)\n"
            "except ss.FileError as e:\n"
            "    print(e)\n"
            "    sys.exit(0)\n"
            "sys.exit(5)\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=limit)
    assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)  # -11 before
    assert "File too large; the unfinished study file is removed" in p.stdout, p.stdout
    assert not out.exists()


def test_the_bar(capsys):
    """progress=True draws the bar in place (carriage returns) and ends
    the line; progress=None under pytest (stdout not a terminal, no
    notebook) prints nothing."""
    ss.sweep(CHEAP, {"friction.dynamic": [1.0, 1.1, 1.2, 1.3]}, jobs=1, progress=True)
    out = capsys.readouterr().out
    assert out.startswith("\rsweep [") and out.count("\r") == 4
    assert out.endswith("] 100%  4/4 variants\n")
    ss.run(CHEAP, progress=True)
    assert capsys.readouterr().out.endswith(f"\rrun [{'#' * 30}] 100%  t = 0.5 of 0.5\n")
    ss.sweep(CHEAP, {"friction.dynamic": [1.0, 1.1]})
    ss.run(CHEAP)
    assert capsys.readouterr().out == ""


# ---- pandas ------------------------------------------------------------------------


def test_result_to_pandas():
    pd = pytest.importorskip("pandas")
    r = ss.run(CHEAP)
    df = r.to_pandas()
    assert list(df.columns) == ["t", "mode"] + list(r.columns)
    np.testing.assert_array_equal(df["t"].to_numpy(), r.t)
    np.testing.assert_array_equal(df["x"].to_numpy(), r.x)
    assert list(df["mode"].astype(str)) == [r.mode_names[m] for m in r.mode]
    assert df.attrs["units"]["x"] == "m" and df.attrs["units"]["t"] == "s"
    ev = r.to_pandas(events=True)
    assert len(ev) == len(r.events) and list(ev["kind"]) == list(r.events["kind"])
    assert isinstance(ev, pd.DataFrame)


def test_sweep_to_pandas(tmp_path):
    pytest.importorskip("pandas")
    s = ss.study(write_study(tmp_path), progress=False)
    df = s.to_pandas()
    assert len(df) == 6
    assert list(df.columns) == list(s.parameters.dtype.names) + list(s.summary.dtype.names)
    np.testing.assert_array_equal(df["x_final"].to_numpy(), s.summary["x_final"])
    assert df.attrs["units"]["x_final"] == "m"


def test_to_pandas_without_pandas_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    r = ss.run(CHEAP)
    with pytest.raises(ImportError, match=r"Result.to_pandas\(\) needs pandas.*pip install pandas"):
        r.to_pandas()
    s = ss.sweep(CHEAP, {"friction.dynamic": [1.0]}, progress=False)
    with pytest.raises(ImportError, match=r"Sweep.to_pandas\(\) needs pandas"):
        s.to_pandas()


# ---- docstrings --------------------------------------------------------------------


def public_objects():
    for name in ss.__all__:
        obj = getattr(ss, name)
        if name.startswith("__") or not (inspect.isclass(obj) or callable(obj)):
            continue
        yield name, obj
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if callable(member) or isinstance(member, property):
                    yield f"{name}.{attr}", member


def test_every_public_name_has_a_docstring():
    missing = [name for name, obj in public_objects() if not (obj.__doc__ or "").strip()]
    assert missing == []
