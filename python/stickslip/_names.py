"""The one vocabulary (docs/names.md): the library's names table, and the
package's former spellings, still taken for one release with a
DeprecationWarning naming the new one."""
import warnings

import numpy as np

from ._lib import ffi, lib


def names():
    """The names table of the library (stsl_names): a list of dicts with
    name, unit, where and meaning, one per quantity; <kind>, <MODE>,
    <column>, <body>, <contact> stand for each of the model's."""
    table = ffi.new("const stsl_name **")
    n = lib.stsl_names(table)
    return [{k: ffi.string(getattr(table[0][i], k)).decode() for k in ("name", "unit", "where", "meaning")}
            for i in range(n)]


def _warn(old, new):
    warnings.warn(f"'{old}' is now '{new}' (the name the files use, docs/names.md); "
                  f"'{old}' goes in the next release", DeprecationWarning, stacklevel=3)


class Table(np.ndarray):
    """A numpy structured array that still answers to its former field
    names (table["final_x"]), with a DeprecationWarning: `_renamed` maps an
    old name to (new name, function of the new column) for the full table;
    a slice of it answers to the new names only."""

    def __array_finalize__(self, obj):
        self._renamed = {}
        self._kept = {}

    def __getitem__(self, key):
        if isinstance(key, str) and self.dtype.names and key not in self.dtype.names:
            if key in self._renamed:
                new, fn = self._renamed[key]
                _warn(key, new)
                return fn(np.asarray(self)[new])
            if key in self._kept:  # a former field without a file name
                _warn(key, self._kept[key][0])
                return self._kept[key][1]
        return super().__getitem__(key)


def table(array, renamed=None, kept=None):
    """`array` as a Table with its former names: renamed {old: (new, fn)},
    kept {old: (hint, values)} for a field the files do not hold."""
    t = array.view(Table)
    t._renamed = dict(renamed or {})
    t._kept = dict(kept or {})
    return t


def same(x):
    return x


class Stats(dict):
    """The statistics dict, answering to the former keys ("events.stick",
    "mode_time.STUCK", "err_x") with a DeprecationWarning."""

    def __missing__(self, key):
        if isinstance(key, str):
            new = former_stat(key)
            if new is not None and new in self:
                _warn(key, new)
                return self[new]
        raise KeyError(key)


_FORMER_STATS = {"err_event_time": "estimated_error_event_time", "err_x": "estimated_error_x",
                 "err_v": "estimated_error_v"}


def former_stat(key):
    """The name of a former statistics key, or None."""
    if key.startswith("events."):
        return "events_" + key[7:]
    if key.startswith("mode_time."):
        return "time_" + key[10:]
    return _FORMER_STATS.get(key)
