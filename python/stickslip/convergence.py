"""ss.converge: the convergence study of `stickslip converge` in the
process (stsl_converge of the C API: a built-in fixed-step scheme or an
FMI 2.0 FMU at several steps against the exact reference), and the table
of `stickslip converge --h5` (the group /convergence) read back with h5py:
what ss.read gives for such a file.  Both are a Convergence."""
import math
import numbers
import os
from collections.abc import Mapping

import numpy as np

from . import _args
from ._errors import InputError

# The datasets, in the order `stickslip converge` prints them.
COLUMNS = ("step", "max_abs_error_x", "rms_error_x", "max_abs_error_v", "final_error_x",
           "wall_seconds", "rhs_evals", "events")
# Deflate compresses at most 1032:1 (the readers' rule for claimed sizes).
FILTER_RATIO = 1100


class Convergence:
    """A fixed-step scheme's errors and costs per step against the exact
    reference: `columns` (name -> 1-D array, one row per step: step,
    max_abs_error_x, rms_error_x, max_abs_error_v, final_error_x,
    wall_seconds, rhs_evals, events; from ss.converge also events_missed,
    events_spurious, max_event_time_error, the friction, stuck-time and
    dissipated-energy errors, and a system's columns per body and contact)
    with their `units`, the `scheme`, the fitted `order`, the observed
    order of each error column (`orders`), the reference's cost
    (`reference`: wall_seconds, rhs_evals, steps, events) and the study's
    configuration (`config`, YAML text).  Columns are attributes too:
    c.step, c.max_abs_error_x."""

    def __init__(self, path, columns, units, scheme, order, reference, config, orders=None):
        self.path, self.columns, self.units = path, columns, units
        self.scheme, self.order, self.reference, self.config = scheme, order, reference, config
        self.orders = orders if orders is not None else {"max_abs_error_x": order}

    def to_pandas(self):
        """The columns as a pandas DataFrame, one row per step."""
        import pandas as pd

        return pd.DataFrame(self.columns)

    def __getattr__(self, name):
        cols = self.__dict__.get("columns", {})
        if name in cols:
            return cols[name]
        raise AttributeError(name)

    def __len__(self):
        return len(self.columns["step"])

    def __repr__(self):
        return f"<stickslip.Convergence {self.scheme}, {len(self)} steps, order {self.order:.3g}>"


def _text(v):
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def is_convergence_file(path):
    """True for a regular HDF5 file with a /convergence group and no result."""
    groups = _args.hdf5_groups(path)
    return groups is not None and "convergence" in groups and "trajectory" not in groups


def read_convergence(path):
    """The Convergence of a file of `stickslip converge --h5` (every column
    it holds); InputError
    naming the file and the dataset when it is not as written."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            g = f["convergence"]
            size = os.path.getsize(path)
            columns, units = {}, {}
            # The columns every file has, then the ones it adds (the
            # element's friction and energy errors, a system's per body
            # and contact), in name order.
            extra = [n for n in g if n not in COLUMNS and isinstance(g[n], h5py.Dataset)]
            for name in COLUMNS + tuple(extra):
                d = g[name]
                room = size * (FILTER_RATIO if d.id.get_create_plist().get_nfilters() else 1)
                if d.ndim != 1 or d.size * d.dtype.itemsize > room:
                    raise InputError(f"{path}: /convergence/{name} is not a 1-D dataset the file can hold")
                columns[name] = d[()]
                units[name] = _text(d.attrs.get("units", ""))
            if len({len(c) for c in columns.values()}) != 1:
                raise InputError(f"{path}: the /convergence datasets differ in length")
            reference = {k: g.attrs[f"reference_{k}"].item()
                         for k in ("wall_seconds", "rhs_evals", "steps", "events")
                         if f"reference_{k}" in g.attrs}
            return Convergence(path, columns, units, _text(g.attrs.get("scheme", "")),
                               float(np.asarray(g.attrs.get("order", np.nan))), reference,
                               _text(g.attrs.get("config", "")))
    except (KeyError, ValueError, TypeError, OSError) as exc:
        raise InputError(f"{path}: not a table of `stickslip converge --h5`: {exc}") from None


# Columns that count (int64, as in the file).
_COUNTS = ("rhs_evals", "events", "events_missed", "events_spurious")
# Columns that are not errors (no order).
_NOT_ERRORS = ("step", "wall_seconds", "rhs_evals", "events", "events_missed", "events_spurious",
               "stuck_iou", "order")


def _assignments(value, name, sep="="):
    """NAME=VALUE strings from a dict (values as exact text: repr of a
    float reads back to the same double) or an iterable of such strings."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        out = []
        for k, v in value.items():
            k = _args.text(k, f"{name} key")
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif isinstance(v, numbers.Real):
                v = repr(float(v)) if not isinstance(v, numbers.Integral) else str(int(v))
            else:
                v = _args.text(v, f"{name}[{k!r}]")
            out.append(f"{k}{sep}{v}")
        return out
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name}: expected a dict or a list of 'NAME=VALUE' strings, got "
                        f"{_args.type_name(value)}")
    return [_args.text(v, name) for v in value]


def _timeout(value):
    """fmu_timeout: None (the command's default, 600 s), a number of
    seconds > 0, or "none" (no limit), as --fmu-timeout takes them."""
    if value is None:
        return 0.0
    if isinstance(value, str) and value == "none":
        return float("inf")
    x = _args.number(value, "fmu_timeout")
    if not x > 0.0:
        raise _args.InputError(f"fmu_timeout: must be > 0 s or \"none\" (got {value!r})")
    return x


def _steps(steps):
    if steps is None or isinstance(steps, (str, bytes)):
        raise TypeError(f"steps: expected a list of numbers, got {_args.type_name(steps)}")
    try:
        steps = list(steps)
    except TypeError:  # one number (or a 0-d array) where a list of them is due
        raise TypeError(f"steps: expected a list of numbers, got {_args.type_name(steps)}") from None
    return [_args.number(h, "steps", allow_none=False) for h in steps]


def converge(cfg, steps, scheme=None, fmu=None, fmu_scheme=None, fmu_set=None, fmu_input=None,
             fmu_output=None, fmu_timeout=None, output=None, h5=None):
    """The convergence study of `stickslip converge`: the candidate run at
    each of `steps` (s) against the exact event-driven reference of `cfg`
    (a Config, a YAML path or a dict), errors at every step point, events
    matched as ss.compare matches them.  The candidate is a built-in
    fixed-step `scheme` ("karnopp", "fixed_step_hybrid", "smooth_rk4") or
    the FMI 2.0 FMU at the path `fmu` (docs/fmu.md): a co-simulation FMU,
    or with fmu_scheme="euler" or "rk4" a model-exchange FMU integrated by
    that scheme; fmu_set={"m": 100, ...} sets its parameters,
    fmu_input={"F_drive": "active_force"} feeds an input a signal,
    fmu_output={"x": "pos"} says which output is x, v or friction;
    fmu_timeout (s, default 600; "none": no limit) ends the study with a
    SolverError when one call into the FMU has not returned by then.
    output= writes the table as CSV and h5= the HDF5 group /convergence,
    the command's files.  Returns a Convergence (path None)."""
    from ._core import _config, _new_err, _raise
    from ._lib import ffi, lib

    cfg = _config(cfg)
    hs = _steps(steps)
    keep = []  # the C strings live until the call returns

    def cstr(v):
        if v is None:
            return ffi.NULL
        keep.append(ffi.new("char[]", v if isinstance(v, bytes) else v.encode()))
        return keep[-1]

    def clist(items):
        arr = ffi.new("const char *[]", [cstr(v) for v in items] or [ffi.NULL])
        keep.append(arr)
        return arr, len(items)

    o = ffi.new("stsl_converge_opts *")
    o.scheme = cstr(_args.text(scheme, "scheme") if scheme is not None else None)
    o.fmu = cstr(_args.cpath(_args.path(fmu, "fmu")) if fmu is not None else None)
    o.fmu_scheme = cstr(_args.text(fmu_scheme, "fmu_scheme") if fmu_scheme is not None else None)
    o.fmu_inputs, o.n_fmu_inputs = clist(_assignments(fmu_input, "fmu_input"))
    o.fmu_outputs, o.n_fmu_outputs = clist(_assignments(fmu_output, "fmu_output"))
    o.fmu_sets, o.n_fmu_sets = clist(_assignments(fmu_set, "fmu_set"))
    o.fmu_timeout = _timeout(fmu_timeout)
    steps_c = ffi.new("double[]", hs or [0.0])
    o.steps, o.n_steps = steps_c, len(hs)
    o.csv = cstr(_args.cpath(_args.path(output, "output")) if output is not None else None)
    o.h5 = cstr(_args.cpath(_args.path(h5, "h5")) if h5 is not None else None)
    out = ffi.new("stsl_convergence **")
    err = _new_err()
    rc = lib.stsl_converge(cfg._h, o, out, err)
    c = out[0]
    try:
        if rc != 0:
            _raise(err)
        return _table(c, cfg, ffi, lib)
    finally:
        lib.stsl_convergence_free(c)


def _table(c, cfg, ffi, lib):
    n = lib.stsl_convergence_n_steps(c)
    columns, units, orders = {}, {}, {}
    for i in range(lib.stsl_convergence_n_columns(c)):
        name = ffi.string(lib.stsl_convergence_column_name(c, i)).decode()
        values = np.frombuffer(ffi.buffer(lib.stsl_convergence_column(c, name.encode()), 8 * n),
                               dtype=np.float64).copy()
        columns[name] = values.astype(np.int64) if name in _COUNTS else values
        units[name] = ffi.string(lib.stsl_convergence_column_units(c, name.encode())).decode()
        base = name.split(".", 1)[0]
        if base not in _NOT_ERRORS:
            orders[name] = float(lib.stsl_convergence_order(c, name.encode(), ffi.NULL))
    reference, value = {}, ffi.new("double *")
    for k in ("wall_seconds", "rhs_evals", "steps", "events"):
        lib.stsl_convergence_reference(c, k.encode(), value, ffi.NULL)
        reference[k] = float(value[0]) if k == "wall_seconds" else int(value[0])
    order = orders.get("max_abs_error_x", math.nan)
    scheme = ffi.string(lib.stsl_convergence_scheme(c)).decode()
    return Convergence(None, columns, units, scheme, order, reference, cfg.to_yaml(), orders)
