"""Configurations, runs and results over the C API (include/stickslip.h)."""
import contextlib
import json
import math
import os
import re
import threading
from collections.abc import Mapping

import numpy as np

from . import _args, _progress
from . import _names as _vocab
from ._errors import CancelledError, Error, FileError, InputError, SolverError
from ._lib import ffi, lib


class Cancel:
    """A flag that stops the runs given it (ss.run(..., cancel=c),
    ss.sweep(..., cancel=c)) at their next solver step once set, from any
    thread: c.set().  Only c.set() sets it: a Ctrl-C that stops a run
    leaves c as it was, for the next run."""

    def __init__(self):
        self._flag = ffi.new("int *")
        # The flags of the calls running with this Cancel (each call has its
        # own, which its Ctrl-C sets): set() sets them too.  Reentrant: a
        # signal handler of the caller's may call set() inside _forwarding.
        self._lock = threading.RLock()
        self._calls = []

    def set(self):
        """Set the flag: the runs watching it stop at their next step."""
        with self._lock:
            lib.stsl_cancel_request(self._flag)  # atomic: a run reads it in another thread
            for call in self._calls:
                call.set()

    def is_set(self):
        """True once set()."""
        return lib.stsl_cancel_requested(self._flag) != 0


def _own_cancel(cancel, ctrl_c=True):
    """A call's own Cancel, which its runs watch and its Ctrl-C sets (never
    the caller's `cancel`, which the next call reads); None when the call
    has neither a `cancel` nor a way to see Ctrl-C (ctrl_c false)."""
    if cancel is not None and not isinstance(cancel, Cancel):
        raise TypeError(f"cancel: expected a stickslip.Cancel, got {_args.type_name(cancel)}")
    return Cancel() if cancel is not None or ctrl_c else None


@contextlib.contextmanager
def _forwarding(cancel, call):
    """While the block runs, setting `cancel` (the caller's Cancel, or None)
    sets `call` (the call's own Cancel) too, at once if it is set already."""
    if cancel is None:
        yield
        return
    with cancel._lock:
        cancel._calls.append(call)
        if cancel.is_set():
            call.set()
    try:
        yield
    finally:
        with cancel._lock:
            cancel._calls.remove(call)


def _raise(err, result=None):
    code = int(err.code)
    message = ffi.string(err.message).decode()
    if code == lib.STSL_RC_INPUT:
        raise InputError(message, code)
    if code == lib.STSL_RC_IO:
        raise FileError(message, code)
    if code == lib.STSL_RC_NOMEM:
        raise MemoryError(message)
    if code == lib.STSL_RC_CANCELLED:
        raise CancelledError(message, code, result)
    raise SolverError(message, code, result)


def _pandas(what):
    """pandas, imported on demand: an optional dependency, named when absent."""
    try:
        import pandas
    except ImportError:
        raise ImportError(f"{what} needs pandas, an optional dependency of stickslip: "
                          "pip install pandas (Debian: apt install python3-pandas)") from None
    return pandas


def _new_err():
    return ffi.new("stsl_err *")


def _yaml(value):
    """One line of YAML for a Python value (JSON is YAML's flow style)."""
    if isinstance(value, (bool, np.bool_)):  # np.bool_ is no int: test it here
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, np.integer, np.floating)):
        # repr() of a float is the shortest text that reads back to the
        # same double, so the C side gets the value to the last bit.
        return repr(float(value)) if isinstance(value, (float, np.floating)) else str(int(value))
    return json.dumps(value, default=_json_default)


def _json_default(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    raise TypeError(f"cannot turn {type(value).__name__} into YAML")


def _unwritable(value, path=""):
    """The dotted path and value of the first item json cannot write."""
    items = value.items() if isinstance(value, Mapping) else \
        enumerate(value) if isinstance(value, (list, tuple)) else None
    if items is None:
        try:
            json.dumps(value, default=_json_default)
        except TypeError:
            return path, value
        return None
    for k, v in items:
        found = _unwritable(v, f"{path}.{k}" if path else str(k))
        if found:
            return found
    return None


def _from_yaml_line(text):
    """A number key comes back as a float, a quoted string as its text
    (without the quotes the emitter put around a file name), anything else
    as its YAML text."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            # JSON's escapes are YAML's double-quoted ones but \xHH (\u00HH)
            value = json.loads(re.sub(r"(?<!\\)((?:\\\\)*)\\x([0-9A-Fa-f]{2})", r"\1\\u00\2", text))
        except ValueError:
            value = None  # an escape only YAML has: the text as it is
        if isinstance(value, str):
            return value
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    if text in ("true", "false"):
        return text == "true"
    return text


class Config:
    """A validated configuration: every key holds a value (defaults filled).

    Keys are dotted paths ("friction.dynamic"); setting one runs the same
    checks as `stickslip run --set`, at once.
    """

    def __init__(self, handle, source=None):
        if not isinstance(handle, ffi.CData) or ffi.typeof(handle) != ffi.typeof("stsl_cfg *"):
            raise TypeError("Config() is made by ss.load(path), Config.from_yaml(text) or "
                            f"Config.from_dict(d), not from {_args.type_name(handle)}")
        self._h = ffi.gc(handle, lib.stsl_cfg_free)
        self._source = source  # the file it was loaded from (an input no save may replace)

    @classmethod
    def from_yaml(cls, text, base_dir=None):
        """Parse YAML text; base_dir resolves relative table files (default:
        the current directory)."""
        text = _args.text(text, "text")
        base = _args.path(base_dir, "base_dir") if base_dir is not None else None
        err = _new_err()
        h = lib.stsl_cfg_parse(text.encode(), _args.cpath(base) if base else ffi.NULL, err)
        if h == ffi.NULL:
            _raise(err)
        return cls(h)

    @classmethod
    def from_dict(cls, d, base_dir=None):
        """A configuration from nested dicts (the YAML file's structure)."""
        if not isinstance(d, Mapping):
            raise TypeError(f"d: expected a dict (the YAML file's structure), got {_args.type_name(d)}")
        try:
            text = json.dumps(d, default=_json_default)
        except TypeError:
            where, value = _unwritable(d)
            raise TypeError(f"d['{where}']: cannot write a value of type {_args.type_name(value)} "
                            "as YAML (numbers, str, bool, lists and dicts of them)") from None
        return cls.from_yaml(text, base_dir)

    def copy(self):
        """An independent copy (it shares only a Cancel flag given to runs)."""
        err = _new_err()
        h = lib.stsl_cfg_clone(self._h, err)
        if h == ffi.NULL:
            _raise(err)
        return Config(h, self._source)

    # copy.copy would share the C configuration and copy.deepcopy fail in
    # cffi: both are copy().
    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        """pickle: the effective YAML (table files are absolute in it)."""
        return _unpickle_config, (self.to_yaml(), self._source)

    def __getitem__(self, key):
        err = _new_err()
        s = lib.stsl_cfg_get(self._h, _key(key), err)
        if s == ffi.NULL:
            raise KeyError(ffi.string(err.message).decode())
        try:
            return _from_yaml_line(ffi.string(s).decode())
        finally:
            lib.stsl_free(s)

    def __setitem__(self, key, value):
        err = _new_err()
        if lib.stsl_cfg_set(self._h, _key(key), _value(key, value), err) != 0:
            _raise(err)

    def update(self, assignments):
        """Set several keys at once, for keys only valid together
        (simulation.scheme and simulation.step)."""
        if not isinstance(assignments, Mapping):
            raise TypeError(f"assignments: expected a dict {{key: value}}, got "
                            f"{_args.type_name(assignments)}")
        texts = [ffi.new("char[]", _key(k) + b"=" + _value(k, v)) for k, v in assignments.items()]
        arr = ffi.new("const char *[]", texts)
        err = _new_err()
        if lib.stsl_cfg_set_all(self._h, arr, len(texts), err) != 0:
            _raise(err)

    def to_yaml(self):
        """The effective configuration (every key, defaults filled) as YAML text."""
        err = _new_err()
        s = lib.stsl_cfg_to_yaml(self._h, err)
        if s == ffi.NULL:
            _raise(err)
        try:
            return ffi.string(s).decode()
        finally:
            lib.stsl_free(s)

    def write(self, path):
        """Write the effective configuration (to_yaml()) to the file `path`:
        the file it was loaded from (written back) or another, never one
        of its table files nor a result (.h5, .mat), table (.csv) or report
        (.json): InputError."""
        path = _args.path(path, "path")
        err = _new_err()
        if lib.stsl_cfg_write(self._h, _args.cpath(path), err) != 0:
            _raise(err)

    def __repr__(self):
        return f"<stickslip.Config\n{self.to_yaml()}>"


def _unpickle_config(text, source):
    c = Config.from_yaml(text)
    c._source = source
    return c


def _key(key):
    """A key as the library's bytes; TypeError for anything but a str."""
    if not isinstance(key, str):
        raise TypeError(f"key: expected a str (a dotted path such as 'friction.dynamic'), got "
                        f"{_args.type_name(key)}")
    if "\0" in key or "=" in key:
        raise InputError(f"key: {key!r} is not a key (no NUL or '=' in a dotted path)")
    return key.encode()


def _value(key, value):
    """A value as one line of YAML bytes; TypeError naming the key for a
    type YAML cannot hold."""
    try:
        text = _yaml(value)
    except TypeError:
        raise TypeError(f"{key}: cannot set a value of type {_args.type_name(value)} "
                        "(numbers, str, bool, lists and dicts of them)") from None
    if "\0" in text:
        raise InputError(f"{key}: a NUL byte in the value")
    return text.encode()


def load(path):
    """Load and validate a YAML configuration file."""
    path = _args.path(path, "path")
    err = _new_err()
    h = lib.stsl_cfg_load(_args.cpath(path), err)
    if h == ffi.NULL:
        _raise(err)
    return Config(h, os.path.abspath(path))


def _config(cfg, name="cfg"):
    """The Config a function is given: a Config, the path of a YAML file
    (loaded) or a dict of the file's structure; TypeError for anything
    else (YAML text goes through Config.from_yaml: a str is a path)."""
    if isinstance(cfg, Config):
        return cfg
    if isinstance(cfg, (str, bytes, os.PathLike)):
        return load(cfg)
    if isinstance(cfg, Mapping):
        return Config.from_dict(cfg)
    raise TypeError(f"{name}: expected a stickslip.Config, the path of a YAML configuration or a "
                    f"dict, got {_args.type_name(cfg)}")


def _with(cfg, output_step):
    step = _args.number(output_step, "output_step", minimum=0.0)
    if step is None:
        return cfg
    c = cfg.copy()
    c["simulation.output_step"] = step
    return c


def _summary_stats(s):
    """The statistics of a stsl_summary as a dict, by the names of the
    files (docs/names.md); the former keys still answer, with a warning."""
    stats = _vocab.Stats({
        "steps": s.steps,
        "rhs_evals": s.rhs_evals,
        "guard_evals": s.guard_evals,
        "segments": s.segments,
        "jac_evals": s.jac_evals,
        "events": s.n_events,
        "wall_seconds": s.wall_seconds,
        "t_reached": s.t_reached,
        "dissipated_energy": s.dissipated_energy,
        "complete": bool(s.complete),
    })
    if s.verify:  # simulation.verify: the run's own error estimate (docs/numerics.md)
        stats.update(verify=s.verify, verify_rtol=s.verify_rtol,
                     estimated_error_event_time=s.err_event_time, estimated_error_x=s.err_x,
                     estimated_error_v=s.err_v, verify_message=ffi.string(s.verify_message).decode())
    for i in range(s.n_kinds):
        stats["events_" + ffi.string(s.kind_names[i]).decode()] = s.events[i]
    for i in range(s.n_modes):
        stats["time_" + ffi.string(s.mode_names[i]).decode()] = s.mode_time[i]
    return stats


# The values of an event the library is asked for, before and after, and
# the fields they fill: the members of the file's /events (docs/names.md).
_EVENT_VALUES = ("x", "v", "friction", "net_force")
# Mode and kind names fit 23 characters (the file readers keep as many; the
# longest, CONTACT_HIGH_SLIP_POS, has 21, which U16 cut short).
_EVENT_DTYPE = [("t", "f8"), ("kind", "U24"), ("mode_before", "U24"), ("mode_after", "U24"),
                ("x", "f8"), ("v_before", "f8"), ("v_after", "f8"), ("net_force", "f8"),
                ("friction", "f8")]
# (field, value, 0 before / 1 after)
_EVENT_FIELDS = (("x", 0, 0), ("v_before", 1, 0), ("v_after", 1, 1), ("net_force", 3, 1),
                 ("friction", 2, 1))
# The former fields: x is continuous (x_before = x_after = x), friction
# after is the file's friction; friction just before has no file name.
_EVENT_RENAMED = {"x_before": ("x", _vocab.same), "x_after": ("x", _vocab.same),
                  "friction_after": ("friction", _vocab.same)}


class Result:
    """A run in memory: samples as numpy arrays, events, statistics.

    The arrays are copies owned by numpy (the C result is freed at once).
    Output columns are attributes (r.x, r.v, r.a, r.friction, ...) and in
    r.columns; r.mode holds mode numbers, named by r.mode_names.  A run of a
    system of bodies has the columns GROUP[MEMBER] ("x[motor]"):
    r.group("x") is samples x bodies, r.members("x") their names, and
    r.subjects the contact or stop of each event ("" for none).
    """

    def __init__(self, t, mode, columns, mode_names, events, stats, complete, message, units, cfg,
                 source=None):
        self.t, self.mode, self.columns = t, mode, columns
        self.mode_names, self.events, self.stats = mode_names, events, stats
        self.complete, self.message, self.units = complete, message, units
        self._cfg = cfg
        self._source = source  # the file ss.read read it from

    @classmethod
    def _from_handle(cls, cfg, handle, source=None):
        s = lib.stsl_result_summary(handle)
        n = lib.stsl_result_n_samples(handle)
        names = [ffi.string(s.col_names[i]).decode() for i in range(s.n_cols)]
        grouped = _grouped(handle)
        if grouped:  # a system: every GROUP[MEMBER] column, not the summary's first 16
            names = [ffi.string(lib.stsl_result_column_name(handle, i)).decode()
                     for i in range(lib.stsl_result_n_columns(handle))]
        columns = {name: _column(handle, name, n) for name in names}
        mode_names = _names(s.mode_names, s.n_modes)
        events, subjects = _events(handle, _names(s.kind_names, s.n_kinds), mode_names)
        r = cls(_column(handle, "t", n), _column(handle, "mode", n).astype(np.int8), columns,
                mode_names, events, _summary_stats(s), bool(s.complete),
                ffi.string(s.message).decode(), _units(s), cfg, source)
        if grouped:
            r.subjects = subjects
        return r

    def members(self, group):
        """A system's member names of a group ("x": the bodies, "friction":
        the contacts), from its GROUP[MEMBER] columns."""
        if not isinstance(group, str):
            raise TypeError(f"group: expected a str ('x', 'friction', ...), got {_args.type_name(group)}")
        return [k[len(group) + 1:-1] for k in self.columns if k.startswith(group + "[")]

    def group(self, group):
        """A system's group as samples x members (the order of members())."""
        names = self.members(group)  # TypeError for a group that is not a str
        if not names:
            raise KeyError(f"{group}: no such group (columns: {', '.join(self.columns)})")
        return np.column_stack([self.columns[f"{group}[{m}]"] for m in names])

    def __getattr__(self, name):
        cols = self.__dict__.get("columns", {})
        if name in cols:
            return cols[name]
        raise AttributeError(name)

    @property
    def config(self):
        """The run's configuration (a Config)."""
        return self._cfg

    def to_pandas(self, events=False):
        """The samples as a pandas DataFrame: t, mode (by name, a
        categorical), then every column; with events=True the events
        instead (self.events, one row each).  Units in df.attrs["units"].
        Needs pandas, an optional dependency (ImportError naming it when
        absent)."""
        pd = _pandas("Result.to_pandas()")
        if events:
            df = pd.DataFrame.from_records(self.events)
            if hasattr(self, "subjects"):
                df["subject"] = self.subjects
        else:
            names = np.array(self.mode_names + ["none"])
            modes = names[np.where((self.mode >= 0) & (self.mode < len(self.mode_names)),
                                   self.mode, len(self.mode_names))]
            df = pd.DataFrame({"t": self.t,
                               "mode": pd.Categorical(modes, categories=list(dict.fromkeys(names)))})
            for name, values in self.columns.items():
                df[name] = values
        df.attrs["units"] = dict(self.units)
        return df

    def save(self, path, format=None):
        """Write the run to `path` in the format its extension names, as
        `stickslip run -o` writes it: .h5 (HDF5, docs/hdf5-layout.md), .mat
        (MAT v5 for MATLAB and Octave), .csv (PATH without .csv as the
        prefix of the two files of `stickslip run --csv`: PREFIX_trajectory.csv
        and PREFIX_events.csv).  format ("h5", "mat" or "csv") names the
        format of a path whose extension names none; an unknown extension
        without it, or an extension naming another format, is an
        InputError, as is a
        path that is one of the run's inputs (its configuration file, its
        table files, the file it was read from).  Returns the files written.

        The run is repeated into the file: a run is deterministic, so the
        file holds these very samples (the tests check it bit for bit), and
        the library's writers stay the one definition of each layout."""
        path = _args.path(path, "path")
        fmt = _save_format(path, format)
        target, files = (_csv_prefix(path), None) if fmt == "csv" else (path, [path])
        files = files or [f"{target}_trajectory.csv", f"{target}_events.csv"]
        _check_not_inputs(files, self._inputs())
        err = _new_err()
        rc = lib.stsl_run(self._cfg._h, _SAVE_OUTPUT[fmt], _args.cpath(target), ffi.NULL, err)
        if rc != 0 and int(err.code) in (lib.STSL_RC_INPUT, lib.STSL_RC_IO, lib.STSL_RC_NOMEM):
            _raise(err)
        return files

    def _inputs(self):
        """The files this run came from: its configuration's, the table files
        the configuration names, the result file it was read from."""
        files = [self._cfg._source, self._source]
        # The top-level output entry's file is where the command writes
        # the result, not an input: not one of the names searched.
        text = re.sub(r"^output:.*(?:\n[ \t]+.*)*", "", self._cfg.to_yaml(), flags=re.M)
        for m in re.finditer(r'\bfile: ("(?:[^"\\]|\\.)*"|[^,}\s]+)', text):
            name = m.group(1)
            files.append(json.loads(name) if name.startswith('"') else name)
        return [f for f in files if f]

    def __repr__(self):
        state = "complete" if self.complete else f"incomplete: {self.message}"
        return f"<stickslip.Result {len(self.t)} samples, {len(self.events)} events, {state}>"


# The output formats by extension (the table of `stickslip run -o`).
_SAVE_FORMATS = {".h5": "h5", ".mat": "mat", ".csv": "csv"}
_SAVE_OUTPUT = {"h5": lib.STSL_OUTPUT_HDF5, "mat": lib.STSL_OUTPUT_MAT, "csv": lib.STSL_OUTPUT_CSV}


def _save_format(path, format):
    if format is not None:
        if not isinstance(format, str):
            raise TypeError(f"format: expected a str, got {_args.type_name(format)}")
        if format not in _SAVE_OUTPUT:
            raise InputError(f"format: expected one of {', '.join(_SAVE_OUTPUT)} (got {format!r})")
        return format
    ext = os.path.splitext(path)[1].lower()
    if ext not in _SAVE_FORMATS:
        raise InputError(f"{path}: unknown output format '{ext}' (name the file .h5, .mat or .csv, "
                         "or give format='h5', 'mat' or 'csv')")
    return _SAVE_FORMATS[ext]


def _csv_prefix(path):
    return path[:-4] if path.lower().endswith(".csv") else path


def _check_not_inputs(outputs, inputs):
    """InputError when an output is one of the inputs (same device and
    inode), with the message of the command's own check."""
    for out in outputs:
        try:
            so = os.stat(out)
        except OSError:
            continue  # nothing there yet: no input can be it
        for inp in inputs:
            try:
                si = os.stat(inp)
            except OSError:
                continue
            if (so.st_dev, so.st_ino) == (si.st_dev, si.st_ino):
                raise InputError(f"output {out} is the input {inp} (the same file): it would be "
                                 "overwritten; choose another output", lib.STSL_RC_INPUT)


def _units(s):
    """The units of t, mode, every column and the dissipated energy, as the
    library's summary states them (the model's one table)."""
    units = {"t": ffi.string(s.time_units).decode(), "mode": ""}
    for i in range(s.n_cols):
        units[ffi.string(s.col_names[i]).decode()] = ffi.string(s.col_units[i]).decode()
    units["dissipated_energy"] = ffi.string(s.energy_units).decode()
    return units


def _column(handle, name, n):
    p = lib.stsl_result_column(handle, name.encode())
    if p == ffi.NULL:
        return np.empty(0)
    return np.frombuffer(ffi.buffer(p, n * 8), dtype=np.float64).copy()


def _names(ptrs, n):
    return [ffi.string(ptrs[i]).decode() for i in range(n)]


def _ptr(ctype, a):
    return ffi.cast(ctype, ffi.from_buffer(a))


# The column names stsl_result_events is asked for (kept alive here).
_EVENT_COL_TEXTS = [ffi.new("char[]", c.encode()) for c in _EVENT_VALUES]
_EVENT_COLS = ffi.new("const char *[]", _EVENT_COL_TEXTS)


def _events(handle, kind_names, mode_names):
    """The events as a structured array and their subjects' names ("" for
    none), from one call (stsl_result_events) and numpy's indexing."""
    n = lib.stsl_result_n_events(handle)
    out = np.zeros(n, dtype=_EVENT_DTYPE)
    if n == 0:
        return _event_table(out, np.zeros(0)), []
    t = np.empty(n)
    ints = np.empty((4, n), dtype=np.intc)  # kind, mode_before, mode_after, subject
    values = np.empty((len(_EVENT_VALUES), 2, n))
    err = _new_err()
    if lib.stsl_result_events(handle, _ptr("double *", t), *(_ptr("int *", row) for row in ints),
                              _EVENT_COLS, len(_EVENT_VALUES), _ptr("double *", values),
                              err) != 0:
        _raise(err)
    # Index -1 (no such kind or mode) takes the last entry: "none", as
    # stsl_result_event names it.
    kinds = np.array(kind_names + ["none"])
    modes = np.array(mode_names + ["none"])
    out["t"] = t
    out["kind"] = kinds[ints[0]]
    out["mode_before"] = modes[ints[1]]
    out["mode_after"] = modes[ints[2]]
    for field, k, side in _EVENT_FIELDS:
        out[field] = values[k][side]
    out = _event_table(out, values[2][0])
    # A subject's name once per subject, not once per event.
    subject = ints[3].tolist()
    names = {0: ""}
    for i, j in enumerate(subject):
        if j not in names:
            names[j] = _subject(handle, i)
    return out, [names[j] for j in subject]


def _event_table(out, friction_before):
    return _vocab.table(out, _EVENT_RENAMED,
                        {"friction_before": ("friction (just after) or the trajectory's row before "
                                             "the event", friction_before)})


def _cancellable(cfg, cancel):
    """A copy of cfg whose runs watch `cancel`'s flag (cfg itself without one)."""
    if cancel is None:
        return cfg
    c = cfg.copy()
    lib.stsl_cfg_set_cancel(c._h, cancel._flag)
    c._cancel = cancel  # the flag lives as long as the configuration that reads it
    return c


def run(cfg, output_step=None, cancel=None, progress=None):
    """Run `cfg` from t = 0 and return a Result.

    output_step overrides simulation.output_step for this run only.  A run
    that fails on the way raises SolverError whose `result` is the partial
    Result; one stopped by `cancel` (a Cancel, set from another thread)
    raises CancelledError, with the partial Result too.  cfg is a Config,
    the path of a YAML file (loaded as ss.load does) or a dict of the file's
    structure (Config.from_dict).

    progress: None (a text bar when stdout is a terminal or a notebook, for
    a run long enough to report: about twice a second), True or False (a
    bar always or never), or a callable progress(t, t_end), called in this
    thread as the run advances and once at its end.  With progress on,
    Ctrl-C stops the run at its next step and raises KeyboardInterrupt; an
    exception of the callback stops it too and is raised."""
    base = _with(_config(cfg), output_step)
    reporter = _progress.Reporter(progress, "run")
    stop = _own_cancel(cancel, reporter.active)  # how the callback stops the run on Ctrl-C
    cfg = _cancellable(base, stop)
    raised = []
    if reporter.active:
        t_end = float(cfg["simulation.t_end"])

        @ffi.callback("void(void *, double, double)")
        def on_progress(ctx, t, t_end):
            try:
                reporter.report(t, t_end)
            except BaseException as exc:  # Ctrl-C lands here: stop the run, raise it after
                raised.append(exc)
                stop.set()

        lib.stsl_cfg_set_progress(cfg._h, on_progress, ffi.NULL)
    out = ffi.new("stsl_result **")
    err = _new_err()
    with _forwarding(cancel, stop):
        rc = lib.stsl_run_result(cfg._h, out, err)
    if stop is not None:
        lib.stsl_cfg_set_cancel(cfg._h, ffi.NULL)  # the Result's copy must not watch it
    lib.stsl_cfg_set_progress(cfg._h, ffi.NULL, ffi.NULL)
    if out[0] == ffi.NULL:
        reporter.close()
        _raise(err)
    try:
        result = Result._from_handle(cfg.copy(), out[0])
    finally:
        lib.stsl_result_free(out[0])
    if reporter.active:
        if not raised:
            reporter.report(result.stats["t_reached"], t_end)
        reporter.close()
    if raised:
        raise raised[0]
    if rc != 0:
        _raise(err, result)
    return result


def read(path):
    """A Result from a file written by `stickslip run -o` or Result.save()
    (HDF5 or MAT): the Result ss.run gives for that run (stsl_result_read;
    no h5py).  A study file of `stickslip sweep` gives its Sweep, a table
    of `stickslip converge --h5` its Convergence (both read with h5py).  The
    file does not hold the dissipated energy: stats["dissipated_energy"] is
    NaN.  A system's file (several bodies) gives a stickslip.SystemResult,
    read the same way: 2-D arrays with the names of their bodies, contacts
    and stops, events with their subject."""
    path = _args.path(path, "path")
    out = ffi.new("stsl_result **")
    cfg = ffi.new("stsl_cfg **")
    err = _new_err()
    if lib.stsl_result_read(_args.cpath(path), out, cfg, err) != 0:
        # h5py only for a study or a convergence table
        from .convergence import is_convergence_file, read_convergence
        from .sweep import is_study_file, read_study

        if int(err.code) == lib.STSL_RC_INPUT and is_study_file(path):
            return read_study(path)
        if int(err.code) == lib.STSL_RC_INPUT and is_convergence_file(path):
            return read_convergence(path)
        _raise(err)
    config = Config(cfg[0])
    try:
        if _grouped(out[0]):
            return _system_result(out[0], config, str(path))
        return Result._from_handle(config, out[0], os.path.abspath(path))
    finally:
        lib.stsl_result_free(out[0])


def _subject(handle, i):
    p = lib.stsl_result_event_subject(handle, i)
    return "" if p == ffi.NULL else ffi.string(p).decode()


def _grouped(handle):
    """A system's result: its columns are GROUP[MEMBER] (stickslip.h)."""
    n = lib.stsl_result_n_columns(handle)
    return any("[" in ffi.string(lib.stsl_result_column_name(handle, i)).decode() for i in range(n))


def _system_result(handle, cfg, path):
    """The SystemResult (stickslip.system) of a system's result the library
    read: its GROUP[MEMBER] columns as the file's groups, samples x members
    (integer for a mode group), with their units and value names."""
    from .system import EVENT_DTYPE, SystemResult

    n, s = lib.stsl_result_n_samples(handle), lib.stsl_result_summary(handle)
    attr = lambda i, a: ffi.string(lib.stsl_result_column_attr(handle, i, a)).decode()  # noqa: E731
    groups, names, units, long_names, values = {}, {}, {"t": ffi.string(s.time_units).decode()}, {}, {}
    for i in range(lib.stsl_result_n_columns(handle)):
        flat = ffi.string(lib.stsl_result_column_name(handle, i)).decode()
        group, _, member = flat.partition("[")
        col = _column(handle, flat, n)
        if attr(i, b"value_names"):
            values[group], col = attr(i, b"value_names").split(","), col.astype(int)
        if member:
            names.setdefault(group, []).append(member[:-1])
        groups[group] = groups.get(group, []) + [col] if member else col
        units[group], long_names[group] = attr(i, b"units"), attr(i, b"long_name")
    for g in names:
        groups[g] = np.column_stack(groups[g])
    table, subjects = _events(handle, _names(s.kind_names, s.n_kinds), _names(s.mode_names, s.n_modes))
    order = names.get("contact_mode", []) + names.get("stop_mode", [])  # the subjects' numbering
    events = np.zeros(len(table), dtype=EVENT_DTYPE)
    events["t"], events["kind"], events["subject"] = table["t"], table["kind"], subjects
    events["index"] = [order.index(x) if x in order else -1 for x in subjects]
    stats = _summary_stats(s)
    if math.isnan(stats["dissipated_energy"]):  # the file's /stats does not hold it
        del stats["dissipated_energy"]
    return SystemResult(path, _column(handle, "t", n), groups, names, units, long_names, values, events,
                        bool(s.complete), ffi.string(s.message).decode(), cfg.to_yaml(), stats)


def version():
    """The library's version (the same text as `stickslip --version`)."""
    return ffi.string(lib.stsl_lib_version()).decode()


# Errors raised by this module; defined in _errors.
__all__ = ["Cancel", "CancelledError", "Config", "Result", "Error", "InputError", "FileError",
           "SolverError", "load", "read", "run", "version"]
