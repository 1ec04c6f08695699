"""ss.sweep: many variants of one configuration, run in threads.

Each variant is a copy of the configuration with the varied keys set, run
into a summary only (stsl_run with STSL_OUTPUT_NONE): no trajectory is kept.
The threads spend their time inside the C call, where cffi has released the
GIL, so `jobs` threads run the variants in parallel.
"""
import concurrent.futures
from collections.abc import Mapping

import numpy as np

from ._core import Cancel, CancelledError, InputError, _cancellable, _new_err, _raise
from ._lib import ffi, lib


class Sweep:
    """The variants (`parameters`) and what each run did (`summary`), both
    numpy structured arrays with one row per variant; `messages` holds why a
    variant did not complete ("" when it did)."""

    def __init__(self, parameters, summary, messages, units):
        self.parameters = parameters
        self.summary = summary
        self.messages = messages
        self.units = units  # of the summary's columns ("" for counts and flags)

    def to_pandas(self):
        """One DataFrame: the parameters' columns, then the summary's."""
        import pandas as pd

        left = pd.DataFrame.from_records(self.parameters)
        right = pd.DataFrame.from_records(self.summary)
        return pd.concat([left, right], axis=1)

    def __len__(self):
        return len(self.parameters)


def _variants(vary):
    """vary as keys, flat value arrays and the number of variants, or why not."""
    if not isinstance(vary, Mapping):
        raise TypeError("sweep: vary must be a mapping {key path: array of values}, "
                        f"e.g. {{'friction.dynamic': [1, 2]}} (got a {type(vary).__name__})")
    if not vary:
        raise InputError("sweep: vary is empty: give at least one {key path: array of values}")
    keys = list(vary)
    for k in keys:
        if not isinstance(k, str):
            raise TypeError(f"sweep: vary's keys are key paths such as 'friction.dynamic' (got {k!r})")
    values = [np.asarray(vary[k]).ravel() for k in keys]
    n = {len(v) for v in values}
    if len(n) != 1:
        got = ", ".join(f"{k}: {len(v)}" for k, v in zip(keys, values))
        raise InputError("sweep: every array in vary must have the same length (one row per "
                         f"variant); got {got}")
    if 0 in n:
        raise InputError("sweep: the arrays in vary are empty: no variants to run")
    return keys, values, n.pop()


def _fields(s):
    """The summary's columns, named from the first run's names, with their
    units from the run's summary (the model's table)."""
    time, energy = ffi.string(s.time_units).decode(), ffi.string(s.energy_units).decode()
    # wall_seconds is the clock's, in seconds whatever the model's time unit.
    fields = [("complete", ""), ("t_reached", time), ("n_events", ""),
              ("dissipated_energy", energy), ("steps", ""), ("wall_seconds", "s")]
    for i in range(s.n_kinds):
        k = ffi.string(s.kind_names[i]).decode()
        fields += [(f"events_{k}", ""), (f"first_{k}", time), (f"last_{k}", time)]
    for i in range(s.n_modes):
        fields.append(("time_" + ffi.string(s.mode_names[i]).decode(), time))
    for i in range(s.n_cols):
        c, unit = ffi.string(s.col_names[i]).decode(), ffi.string(s.col_units[i]).decode()
        fields += [(f"final_{c}", unit), (f"max_abs_{c}", unit)]
    return fields


def _row(s):
    row = [bool(s.complete), s.t_reached, s.n_events, s.dissipated_energy, s.steps,
           s.wall_seconds]
    for i in range(s.n_kinds):
        row += [s.events[i], s.first_event_time[i], s.last_event_time[i]]
    row += [s.mode_time[i] for i in range(s.n_modes)]
    for i in range(s.n_cols):
        row += [s.final[i], s.max_abs[i]]
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
    dtype = [(f, "?" if f == "complete" else ("i8" if f.startswith(("events_", "n_", "steps")) else "f8"))
             for f, _ in fields]
    summary = np.array([tuple(d[1]) for d in rows], dtype=dtype)
    return Sweep(parameters, summary, [d[2] for d in rows], dict(fields))


def sweep(cfg, vary, jobs=1, cancel=None):
    """Run one variant per index of the arrays in `vary` ({key: array});
    all arrays have one length (for a grid, pass np.meshgrid(...) arrays
    raveled).  A variant whose value is refused raises InputError before
    anything is lost; a variant that fails in the solver is a row with
    complete = False and its message in `messages`.  Setting `cancel` (a
    Cancel) stops the variants running and starts no more: CancelledError,
    whose `result` is the Sweep of the variants that ran.  Ctrl-C (a
    KeyboardInterrupt while waiting) stops them the same way and is
    raised again once they have stopped."""
    keys, values, n = _variants(vary)
    for k, v in zip(keys, values):  # refuse a bad value before running anything
        probe = cfg.copy()
        for x in np.unique(v):
            probe[k] = x
    cancel = cancel if cancel is not None else Cancel()
    base = _cancellable(cfg, cancel)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, int(jobs)))
    try:
        done = list(pool.map(lambda i: _run_one(base, keys, values, i, cancel), range(n)))
    except KeyboardInterrupt:
        cancel.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    result = _collect(keys, values, done)
    if cancel.is_set():
        raise CancelledError(f"sweep cancelled: {len(result)} of {n} variants ran",
                             lib.STSL_RC_CANCELLED, result)
    return result
