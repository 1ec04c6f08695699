"""ss.compare: the metrics of `stickslip compare` for arrays in Python, and
for a system's result file.

The metrics (re-running the reference at the candidate's times, stuck-time
IoU, event matching, dissipated energy) are defined once, in the library
(api/compare.c over run/validation); this calls
stsl_compare() or stsl_compare_system() in the process, with the GIL
released while the reference runs again.
"""
import math
import os

import numpy as np

from . import _args
from ._core import Config, InputError, Result, _new_err, _raise
from ._lib import ffi, lib
from .system import SystemResult

# The members of stsl_compare_metrics, named as in the command's JSON report.
_COUNTS = ("n_points", "points_dropped", "events_matched", "events_missed", "events_spurious",
           "events_ignored_reference", "events_ignored_candidate")
_VALUES = ("t_first", "t_last", "max_abs_error_x", "rms_error_x", "final_error_x",
           "max_abs_error_v", "rms_error_v", "final_error_v", "stuck_iou",
           "stuck_time_reference", "stuck_time_candidate", "stuck_velocity",
           "max_event_time_error", "event_window", "dissipated_energy_reference",
           "dissipated_energy_candidate", "dissipated_energy_difference")


def _array(a, name):
    """A 1-D array of doubles (a column vector counts as one); TypeError or
    InputError naming the argument otherwise."""
    if a is None or isinstance(a, (str, bytes)):
        raise TypeError(f"{name}: expected an array of numbers, got {_args.type_name(a)}")
    try:
        v = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected an array of numbers, got {_args.type_name(a)}") from None
    if v.ndim != 1 and sum(d > 1 for d in v.shape) > 1:
        raise InputError(f"{name}: expected a 1-D array, got shape {v.shape}")
    return np.ascontiguousarray(v.ravel())


def _reference(result):
    """The configuration to re-run: a Result's, a Config, or the /config of
    a system's file read by ss.read (its tables beside the file)."""
    if isinstance(result, Result):
        return result.config
    if isinstance(result, Config):
        return result
    if isinstance(result, SystemResult):
        return Config.from_yaml(result.config, os.path.dirname(os.path.abspath(result.path)))
    raise TypeError(f"result: expected a stickslip.Result (or its Config), got "
                    f"{_args.type_name(result)}")


def _number(v):
    v = float(v)
    return None if math.isnan(v) else v


def _events(e):
    return {"events_matched": int(e.events_matched), "events_missed": int(e.events_missed),
            "events_spurious": int(e.events_spurious),
            "max_event_time_error": _number(e.max_event_time_error)}


def _compare_system(cfg, candidate, event_window):
    """A system's result file against the re-run of `cfg`: the report of
    `stickslip compare REF.h5 CAND.h5 -o` as a dict, without units."""
    path = candidate.path if isinstance(candidate, SystemResult) else _args.path(candidate, "candidate")
    window = _args.number(event_window, "event_window", minimum=0.0)
    out = ffi.new("stsl_compare_system_report *")
    err = _new_err()
    if lib.stsl_compare_system(cfg._h, _args.cpath(path), math.nan if window is None else window,
                               out, err) != 0:
        _raise(err)
    try:
        name = lambda m: ffi.string(m.name).decode()  # noqa: E731
        bodies = [{"name": name(b), **{k: float(getattr(b, k)) for k in (
            "max_abs_error_x", "rms_error_x", "final_error_x", "max_abs_error_v", "rms_error_v",
            "final_error_v")}} for b in (out.bodies[i] for i in range(out.n_bodies))]
        contacts = [{"name": name(c), **{k: _number(getattr(c, k)) for k in (
            "stuck_time_reference", "stuck_time_candidate", "stuck_iou",
            "dissipated_energy_reference", "dissipated_energy_candidate", "max_abs_error_friction",
            "rms_error_friction", "final_error_friction", "max_abs_error_slip_velocity",
            "rms_error_slip_velocity", "final_error_slip_velocity")}, **_events(c.events)}
            for c in (out.contacts[i] for i in range(out.n_contacts))]
        stops = [{"name": name(s), **_events(s.events)} for s in (out.stops[i] for i in range(out.n_stops))]
        return {"kind": "system", "n_points": int(out.n_points),
                "points_dropped": int(out.points_dropped), "t_first": float(out.t_first),
                "t_last": float(out.t_last), "event_window": float(out.event_window),
                "bodies": bodies, "contacts": contacts, "stops": stops}
    finally:
        lib.stsl_compare_system_free(out)


def compare(result, t, x=None, v=None, friction=None, event_window=None, stuck_velocity=None):
    """Judge the candidate trajectory (t, x, v[, friction]) against the
    exact run of `result`'s configuration; returns the report of
    `stickslip compare -o` as a dict, without its file names and event
    lists: max_abs_error_x, rms_error_v, stuck_iou, events_matched, ...
    (max_event_time_error is None without matched events, null there), the
    rules used (energy_method, candidate_stuck_rule, ...) and "units".

    For a system of bodies the candidate is a system's result file (its
    path, or the SystemResult ss.read gives): compare(result, "cand.h5")
    returns the report of `stickslip compare REF.h5 cand.h5 -o` (kind
    "system": per body the x and v errors, per contact the stuck times as
    `info` counts them, their IoU, events and energies, per stop its
    events), without units."""
    cfg = _reference(result)
    if isinstance(t, (str, os.PathLike, SystemResult)):
        if x is not None or v is not None or friction is not None or stuck_velocity is not None:
            raise TypeError("compare: a system's result is compared with a result file: "
                            "compare(result, candidate[, event_window=...])")
        return _compare_system(cfg, t, event_window)
    names = ("t", "x", "v") + (("friction",) if friction is not None else ())
    arrays = [_array(a, k) for a, k in zip((t, x, v, friction), names)]
    if len({len(a) for a in arrays}) != 1:
        lengths = ", ".join(f"{k}: {len(a)}" for k, a in zip(names, arrays))
        raise InputError(f"compare: t, x, v (and friction) must have the same length ({lengths})")
    ptrs = [ffi.cast("const double *", ffi.from_buffer(a)) for a in arrays]
    if friction is None:
        ptrs.append(ffi.NULL)
    out = ffi.new("stsl_compare_metrics *")
    err = _new_err()
    window = _args.number(event_window, "event_window", minimum=0.0)
    stuck = _args.number(stuck_velocity, "stuck_velocity", minimum=0.0)
    window = math.nan if window is None else window
    stuck = math.nan if stuck is None else stuck
    if lib.stsl_compare(cfg._h, *ptrs, len(arrays[0]), stuck, window, out, err) != 0:
        _raise(err)
    report = {k: int(getattr(out, k)) for k in _COUNTS}
    for k in _VALUES:
        value = float(getattr(out, k))
        report[k] = None if math.isnan(value) else value
    for k in ("energy_method", "candidate_stuck_rule", "candidate_events_source"):
        report[k] = ffi.string(getattr(out, k)).decode()
    report["units"] = {k: ffi.string(getattr(out, f"{k}_units")).decode()
                       for k in ("t", "x", "v", "energy")}
    return report
