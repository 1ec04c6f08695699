"""The table of `stickslip converge --h5` (the group /convergence) read
back with h5py: what ss.read gives for such a file."""
import os

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
    wall_seconds, rhs_evals, events) with their `units`, the `scheme`, the
    fitted `order`, the reference's cost (`reference`: wall_seconds,
    rhs_evals, steps, events) and the study's configuration (`config`,
    YAML text).  Columns are attributes too: c.step, c.max_abs_error_x."""

    def __init__(self, path, columns, units, scheme, order, reference, config):
        self.path, self.columns, self.units = path, columns, units
        self.scheme, self.order, self.reference, self.config = scheme, order, reference, config

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
    """The Convergence of a file of `stickslip converge --h5`; InputError
    naming the file and the dataset when it is not as written."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            g = f["convergence"]
            size = os.path.getsize(path)
            columns, units = {}, {}
            for name in COLUMNS:
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
