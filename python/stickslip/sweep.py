"""ss.sweep: many variants of one configuration, run in threads.

Each variant is a copy of the configuration with the varied keys set, run
into a summary only (stsl_run with STSL_OUTPUT_NONE): no trajectory is kept.
The threads spend their time inside the C call, where cffi has released the
GIL, so `jobs` threads run the variants in parallel.
"""
import concurrent.futures
import os
from collections.abc import Mapping

import numpy as np

from . import _args, _progress
from . import _names as _vocab
from ._core import (CancelledError, InputError, _cancellable, _config, _forwarding, _new_err,
                    _own_cancel, _pandas, _raise)
from ._lib import ffi, lib

# The most worker threads, as `stickslip sweep --jobs`.
MAX_JOBS = 1024


class Sweep:
    """The variants (`parameters`) and what each run did (`summary`), both
    numpy structured arrays with one row per variant; `messages` holds why a
    variant did not complete ("" when it did).  `complete` and `n_runs`:
    whether every variant of the study ran, and how many it has (a study
    file of `stickslip sweep` read by ss.read may be unfinished: the rows
    are those done)."""

    def __init__(self, parameters, summary, messages, units, complete=True, n_runs=None):
        self.parameters = parameters
        self.summary = summary
        self.messages = messages
        self.units = units  # of the summary's columns ("" for counts and flags)
        self.complete = complete
        self.n_runs = len(parameters) if n_runs is None else n_runs
        self.path = None  # the study file it was read from (ss.read, ss.study with output)

    def to_pandas(self):
        """One pandas DataFrame, a row per variant: the parameters' columns,
        then the summary's (units in df.attrs["units"]).  Needs pandas, an
        optional dependency (ImportError naming it when absent)."""
        pd = _pandas("Sweep.to_pandas()")

        left = pd.DataFrame.from_records(self.parameters)
        right = pd.DataFrame.from_records(self.summary)
        df = pd.concat([left, right], axis=1)
        df.attrs["units"] = dict(self.units)
        return df

    def __len__(self):
        return len(self.parameters)


def is_study_file(path):
    """True for an HDF5 file with a /study group (`stickslip sweep -o`)."""
    groups = _args.hdf5_groups(path)
    return groups is not None and "study" in groups


def read_study(path):
    """The Sweep of a study file: the rows done, in variant order; the
    summary has the file's columns (status, t_reached, events_KIND, ...),
    their units from the file (docs/hdf5-layout.md)."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            st = f["study"]
            n = int(st.attrs["n_done"])
            size = os.path.getsize(path)
            keys = list(st["parameters"].keys())  # creation order: the study's
            for d in list(st["parameters"].values()) + list(st["summary"].values()):
                if min(n, d.shape[0]) * d.dtype.itemsize > size * 1100:  # compressed at most 1032:1
                    raise InputError(f"{path}: {d.name} claims more rows than the file can hold")
            params = [(k, st["parameters"][k][:n]) for k in keys]
            cols = [(k, d[:n]) for k, d in st["summary"].items() if k != "message"]
            messages = list(st["summary"]["message"].asstr()[:n]) if "message" in st["summary"] else [""] * n
            units = {k: str(d.attrs.get("units", "")) for k, d in st["summary"].items() if k != "message"}
            complete, n_runs = int(st.attrs["complete"]) == 1, int(st.attrs["n_runs"])
    except (KeyError, ValueError, TypeError, OSError) as exc:
        raise InputError(f"{path}: not a study file in the layout of `stickslip sweep`: {exc}",
                         lib.STSL_RC_INPUT) from None
    def table(pairs):
        out = np.zeros(n, dtype=[(k, v.dtype) for k, v in pairs])
        for k, v in pairs:
            out[k] = v
        return out
    result = Sweep(table(params), table(cols), messages, units, complete, n_runs)
    result.path = os.path.abspath(path)
    return result


def _variants(vary):
    """The keys and their 1-D arrays of values; TypeError or InputError
    naming the key for anything else (a scalar, a grid not raveled, no
    values, arrays of different lengths)."""
    if not isinstance(vary, Mapping):
        raise TypeError(f"vary: expected a dict {{key: array of values}}, got {_args.type_name(vary)}")
    if not vary:
        raise InputError("vary: no keys to vary (give {key: array of values})")
    keys, values = list(vary), []
    for k in keys:
        if not isinstance(k, str):
            raise TypeError(f"vary: a key must be a str ('friction.dynamic'), got {_args.type_name(k)}")
        if isinstance(vary[k], (str, bytes, Mapping)) or vary[k] is None:
            raise TypeError(f"vary['{k}']: expected an array of values (one per variant), got "
                            f"{_args.type_name(vary[k])}")
        v = np.asarray(vary[k])
        if v.ndim != 1:
            raise InputError(f"vary['{k}']: expected a 1-D array of values (one per variant), got "
                             f"shape {v.shape}" + (" (ravel a grid)" if v.ndim > 1 else ""))
        if len(v) == 0:
            raise InputError(f"vary['{k}']: no values")
        if v.dtype == object:  # mixed or odd types: each value must be one the keys take
            for i, x in enumerate(v):
                if x is None or isinstance(x, (bytes, Mapping, list, tuple, set)):
                    raise TypeError(f"vary['{k}'][{i}]: expected a number or str, got "
                                    f"{_args.type_name(x)}")
        values.append(v)
    n = {len(v) for v in values}
    if len(n) != 1:
        lengths = ", ".join(f"{k}: {len(v)}" for k, v in zip(keys, values))
        raise InputError(f"vary: every array must have the same length (one row per variant; {lengths})")
    return keys, values, n.pop()


def _fields(s):
    """The summary's columns by the study file's names (docs/names.md),
    from the first run's names, with their units from the run's summary
    (the model's table)."""
    time, energy = ffi.string(s.time_units).decode(), ffi.string(s.energy_units).decode()
    fields = [("status", ""), ("t_reached", time), ("events", "")]
    kinds = [ffi.string(s.kind_names[i]).decode() for i in range(s.n_kinds)]
    fields += [(f"events_{k}", "") for k in kinds]
    fields += [(f"{w}_{k}", time) for k in kinds for w in ("first", "last")]
    fields += [("time_" + ffi.string(s.mode_names[i]).decode(), time) for i in range(s.n_modes)]
    fields += [("stuck_fraction", ""), ("stop_contact_time", time)]
    for i in range(s.n_cols):
        c, unit = ffi.string(s.col_names[i]).decode(), ffi.string(s.col_units[i]).decode()
        fields += [(f"{c}_final", unit), (f"max_abs_{c}", unit)]
    # wall_seconds is the clock's, in seconds whatever the model's time unit.
    fields += [("dissipated_energy", energy), ("steps", ""), ("rhs_evals", ""), ("wall_seconds", "s")]
    return fields


def _mode_time(s, *modes):
    """The time in the named modes; NaN when the model has none of them
    (a system's contacts have their own modes), as the study file has it."""
    names = [ffi.string(s.mode_names[i]).decode() for i in range(s.n_modes)]
    if not any(m in names for m in modes):
        return float("nan")
    return sum(s.mode_time[names.index(m)] for m in modes if m in names)


def _row(s):
    stuck = _mode_time(s, "STUCK")
    row = [0 if s.complete else 2, s.t_reached, s.n_events]
    row += [s.events[i] for i in range(s.n_kinds)]
    for i in range(s.n_kinds):
        row += [s.first_event_time[i], s.last_event_time[i]]
    row += [s.mode_time[i] for i in range(s.n_modes)]
    row += [stuck / s.t_reached if s.t_reached > 0 else float("nan"),
            _mode_time(s, "STOP_LOW", "STOP_HIGH")]
    for i in range(s.n_cols):
        row += [s.final[i], s.max_abs[i]]
    row += [s.dissipated_energy, s.steps, s.rhs_evals, s.wall_seconds]
    return row


def _run_one(cfg, keys, values, i, cancel):
    if cancel.is_set():
        return None  # not started
    c = cfg.copy()  # shares cfg's cancel flag
    for k, v in zip(keys, values):
        c[k] = v[i]
    s = ffi.new("stsl_summary *")
    err = _new_err()
    rc = lib.stsl_run(c._h, lib.STSL_OUTPUT_NONE, ffi.NULL, s, err)
    if rc != 0 and int(err.code) in (lib.STSL_RC_INPUT, lib.STSL_RC_IO, lib.STSL_RC_NOMEM):
        _raise(err)
    message = ffi.string(s.message).decode() if not s.complete else ""
    return _fields(s), _row(s), message


def _collect(keys, values, done):
    """The Sweep of the variants that ran (all of them unless cancelled)."""
    ran = [i for i, d in enumerate(done) if d is not None]
    parameters = np.zeros(len(ran), dtype=[(k, v.dtype) for k, v in zip(keys, values)])
    for k, v in zip(keys, values):
        parameters[k] = v[ran]
    rows = [done[i] for i in ran]
    fields = rows[0][0] if rows else []
    dtype = [(f, _dtype(f)) for f, _ in fields]
    summary = np.array([tuple(d[1]) for d in rows], dtype=dtype)
    return Sweep(parameters, _summary_table(summary), [d[2] for d in rows], dict(fields))


def _dtype(field):
    if field == "status":
        return "i1"  # as the study file's
    if field.startswith("events") or field in ("steps", "rhs_evals"):
        return "i8"
    return "f8"


def _summary_table(summary):
    """The summary, answering to its former names with a warning:
    complete (now status == 0), n_events (events), final_COL (COL_final)."""
    renamed = {"complete": ("status", lambda s: s == 0), "n_events": ("events", _vocab.same)}
    for f in summary.dtype.names or ():
        if f.endswith("_final"):
            renamed["final_" + f[:-6]] = (f, _vocab.same)
    return _vocab.table(summary, renamed)


def cores():
    """The cores this process may run on (its CPU affinity, as `stickslip
    sweep` counts them), at least 1: the default number of jobs."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return os.cpu_count() or 1


def _jobs(jobs):
    return cores() if jobs is None else _args.integer(jobs, "jobs", 1, MAX_JOBS)


def sweep(cfg, vary, jobs=None, cancel=None, progress=None):
    """Run one variant per index of the arrays in `vary` ({key: array})
    and return a Sweep (one summary row per variant).

    All arrays have one length (for a grid, pass np.meshgrid(...) arrays
    raveled).  A variant whose value is refused raises InputError before
    anything is lost; a variant that fails in the solver is a row with
    status 2 and its message in `messages`.  The summary's columns are the
    study file's names (docs/names.md): status, t_reached, events,
    events_KIND, first_KIND, last_KIND, time_MODE, stuck_fraction,
    stop_contact_time, COL_final, max_abs_COL, dissipated_energy, steps,
    rhs_evals, wall_seconds.  Setting `cancel` (a
    Cancel) stops the variants running and starts no more: CancelledError,
    whose `result` is the Sweep of the variants that ran.  Ctrl-C (a
    KeyboardInterrupt while waiting) stops them the same way and is
    raised again once they have stopped.

    cfg: a Config, a YAML file's path or a dict (as for ss.run).
    jobs: threads, a whole number in [1, 1024]; None (the default) for
    the cores this process may use, as `stickslip sweep`.
    progress: None (a text bar when stdout is a terminal or a notebook),
    True / False (a bar always / never), or a callable progress(done,
    total) called in this thread as variants finish."""
    cfg = _config(cfg)
    keys, values, n = _variants(vary)
    jobs = _jobs(jobs)
    reporter = _progress.Reporter(progress, "sweep", "variants")
    for k, v in zip(keys, values):  # refuse a bad value before running anything
        probe = cfg.copy()
        for x in (v if v.dtype == object else np.unique(v)):
            probe[k] = x
    stop = _own_cancel(cancel)  # set by `cancel` and by Ctrl-C, which leaves `cancel` as it was
    base = _cancellable(cfg, stop)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    done, n_failed = [None] * n, 0
    try:
        with _forwarding(cancel, stop):
            futures = {pool.submit(_run_one, base, keys, values, i, stop): i for i in range(n)}
            for count, f in enumerate(concurrent.futures.as_completed(futures), 1):
                row = done[futures[f]] = f.result()
                n_failed += row is not None and row[2] != ""
                reporter.report(count, n, n_failed)
    except BaseException:  # Ctrl-C, a refused variant, the callback's error
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        reporter.close()
        raise
    pool.shutdown(wait=True)
    reporter.close()
    result = _collect(keys, values, done)
    if stop.is_set():
        raise CancelledError(f"sweep cancelled: {len(result)} of {n} variants ran",
                             lib.STSL_RC_CANCELLED, result)
    return result


def study(path, output=None, jobs=None, resume=False, cancel=None, progress=None):
    """Run a study file (YAML: a base configuration and the keys to vary,
    docs/studies.md) as `stickslip sweep PATH -o OUTPUT` does, and return
    its Sweep as ss.read(OUTPUT) gives it (needs h5py).

    output: the HDF5 study file to write (kept: `stickslip info`, `plot`
    and ss.read take it); None runs into a temporary file, removed once
    read.  resume=True continues an unfinished `output` of the same study.
    jobs: threads, None (the default) for the cores this process may use.
    cancel (a Cancel) or Ctrl-C stops the study: the running variants
    finish and their rows are written, `output` is left incomplete (resume
    continues it); CancelledError, whose `result` is the Sweep of the rows
    done (Ctrl-C raises KeyboardInterrupt instead).  progress: as for
    ss.sweep, reported in this thread.  A bad study, base or key is an
    InputError and writes nothing; a variant that fails is a row."""
    import queue
    import tempfile
    import threading

    path = _args.path(path, "path")
    jobs = _jobs(jobs)
    if not isinstance(resume, bool):
        raise TypeError(f"resume: expected a bool, got {_args.type_name(resume)}")
    stop = _own_cancel(cancel)  # set by `cancel` and by Ctrl-C, which leaves `cancel` as it was
    reporter = _progress.Reporter(progress, "study", "variants")
    tmp = tempfile.TemporaryDirectory(prefix="stickslip-study-") if output is None else None
    out = os.path.join(tmp.name, "study.h5") if tmp else _args.path(output, "output")
    events = queue.Queue()  # progress tuples from the running thread, then its outcome

    @ffi.callback("void(void *, long, long, long)")
    def on_progress(ctx, n_done, n_runs, n_failed):
        events.put((n_done, n_runs, n_failed))

    def work():
        err = _new_err()
        rc = lib.stsl_study_run(_args.cpath(path), _args.cpath(out), jobs, int(resume),
                                on_progress if reporter.active else ffi.NULL, ffi.NULL,
                                stop._flag, ffi.NULL, err)
        events.put(("end", rc, err))

    thread = threading.Thread(target=work, name="stickslip-study", daemon=True)
    try:
        with _forwarding(cancel, stop):
            thread.start()
            interrupted = None
            while True:
                try:
                    item = events.get()
                except KeyboardInterrupt as exc:  # stop the variants, keep what is done
                    interrupted = exc
                    stop.set()
                    continue
                if item[0] == "end":
                    break
                try:
                    reporter.report(*item)
                except BaseException as exc:  # Ctrl-C in the callback, or its own error
                    interrupted = interrupted or exc
                    stop.set()
            thread.join()
        reporter.close()
        _, rc, err = item
        if rc != 0:
            _raise(err)
        result = read_study(out)
        result.path = None if tmp else out
        if interrupted is not None:
            raise interrupted
        if not result.complete:
            raise CancelledError(f"study cancelled: {len(result)} of {result.n_runs} variants ran",
                                 lib.STSL_RC_CANCELLED, result)
        return result
    finally:
        if tmp:
            tmp.cleanup()
