"""The result file of a system of bodies (issue 14), read with h5py.

    from stickslip.system import read_system
    r = read_system("results/servo.h5")
    r.x                      # samples x bodies
    r.names["x"]             # ['motor', 'load']
    r.column("v", "load")    # one member's values
    r.events["subject"]      # the contact or stop each event is about
    r.stuck_intervals("clutch")

A system's /trajectory holds 2-D datasets (samples x members) with a
`names` attribute: x, v, a per body; friction, slip_velocity, contact_mode
per contact; stop_reaction, stop_mode per stop; 1-D x_base, v_base.  It has
no scalar `mode` (that is how it is told from the element's file), and its
/events rows carry `index` and `subject` (its name; `name` in files of
earlier versions, read as well).

The MAT result of a system (`stickslip run -o OUT.mat`, the same groups
as fields of the struct `trajectory`, their members in the struct `names`)
is read with scipy.io.loadmat (Debian's python3-scipy) into the same
SystemResult.

This module imports only numpy and h5py or scipy (not the C library), so
that `stickslip plot` (python/stickslip_plot.py, installed beside it)
reads systems with the same code; `stickslip.read` returns its
SystemResult for a system's file.
"""
import os

import numpy as np

# Deflate compresses at most 1032:1; a dataset stored through a filter that
# claims more than this many times the file's size is not data the file
# holds (the rule of io/h5_bounds.c and stickslip_plot.py).
FILTER_RATIO = 1100


class SystemFileError(ValueError):
    """The file is not the result of a system in the layout (one line)."""


def _text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def _names(attr):
    """`names`: one comma-separated string or an array of strings."""
    if isinstance(attr, (str, bytes)):
        return [s.strip() for s in _text(attr).split(",")] if _text(attr) else []
    return [_text(s) for s in np.asarray(attr).ravel()]


def value_names(text):
    """'0 STUCK, 1 SLIP_POS, ...' (or bare names in order) as a list."""
    out = {}
    for k, item in enumerate(s.strip() for s in _text(text).split(",")):
        num, _, name = item.partition(" ")
        if num.lstrip("-").isdigit() and name:
            out[int(num)] = name.strip()
        elif item:
            out[k] = item
    return [out.get(i, "?") for i in range(max(out) + 1)] if out else []


def is_system_file(f):
    """True for an open h5py File holding a system's result."""
    tr = f.get("trajectory")
    return tr is not None and "mode" not in tr and "x" in tr and tr["x"].ndim == 2


def _read(ds, path):
    """ds[:] after checking its extent against the file size (a crafted
    file of a few kB may claim 10^9 rows)."""
    need = ds.size * ds.dtype.itemsize
    room = os.path.getsize(path) * (FILTER_RATIO if ds.id.get_create_plist().get_nfilters() else 1)
    if need > room:
        raise SystemFileError(f"{path}: dataset {ds.name} claims {ds.size} values, more than the file "
                              f"of {os.path.getsize(path)} bytes can hold: a damaged or crafted file")
    return ds[()]


EVENT_DTYPE = [("t", "f8"), ("kind", "U24"), ("index", "i4"), ("subject", "U64")]


class SystemResult:
    """A system's result: t, groups (name -> array; 2-D samples x members
    for the grouped datasets), names (group -> member names), units,
    value_names (integer groups -> names of their values), events (t, kind,
    index, subject; index -1 and subject '' for none), complete, message,
    config (YAML text), stats.  Groups are attributes too: r.x, r.friction."""

    def __init__(self, path, t, groups, names, units, long_names, value_names, events, complete,
                 message, config, stats):
        self.path, self.t, self.groups, self.names = path, t, groups, names
        self.units, self.long_names, self.value_names = units, long_names, value_names
        self.events, self.complete, self.message = events, complete, message
        self.config, self.stats = config, stats

    def __getattr__(self, name):
        groups = self.__dict__.get("groups", {})
        if name in groups:
            return groups[name]
        raise AttributeError(name)

    @property
    def bodies(self):
        """The bodies' names, in the order of the x group's columns."""
        return list(self.names.get("x", []))

    @property
    def contacts(self):
        """The contacts' names (the contact_mode group's members)."""
        return list(self.names.get("contact_mode", self.names.get("friction", [])))

    @property
    def stops(self):
        """The end stops' names (the stop_mode group's members)."""
        return list(self.names.get("stop_mode", self.names.get("stop_reaction", [])))

    def column(self, group, member):
        """Values of one member of a group (KeyError naming the members)."""
        names = self.names.get(group)
        if names is None:
            raise KeyError(f"{group}: not a group of {self.path} (groups: {', '.join(self.names)})")
        if member not in names:
            raise KeyError(f"{group}: no member '{member}' (members: {', '.join(names)})")
        return self.groups[group][:, names.index(member)]

    def mode_is(self, group, member, value):
        """Per sample: member's integer value is the one named `value`."""
        vals = self.value_names.get(group, [])
        return self.column(group, member) == vals.index(value) if value in vals else \
            np.zeros(len(self.t), bool)

    def intervals(self, mask, t=None):
        """(start, end) times over which mask holds (over the times t, the
        file's by default): sample i's state holds until sample i + 1, so an
        event instant's two rows (before, after) open and close intervals
        exactly at the event."""
        t = self.t if t is None else t
        d = np.diff(np.concatenate(([0], np.asarray(mask, dtype=np.int8), [0])))
        starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        out = [(t[a], t[min(b, len(t) - 1)]) for a, b in zip(starts, ends)]
        return [(a, b) for a, b in out if b > a]

    def stuck_intervals(self, contact):
        """The (start, end) times the contact spends STUCK."""
        return self.intervals(self.mode_is("contact_mode", contact, "STUCK"))

    def __repr__(self):
        state = "complete" if self.complete else f"incomplete: {self.message}"
        return (f"<stickslip.SystemResult {len(self.t)} samples, bodies {self.bodies}, contacts "
                f"{self.contacts}, stops {self.stops}, {len(self.events)} events, {state}>")


def _subject_member(have):
    """The events' member with the subject's name: `subject`, or `name` in
    files written before the names were made one."""
    return next((k for k in ("subject", "name") if k in have), None)


def _events(f, path):
    if "events" not in f:
        raise SystemFileError(f"{path}: missing dataset /events")
    rows = _read(f["events"], path)
    out = np.zeros(len(rows), dtype=EVENT_DTYPE)
    have = rows.dtype.names or ()
    for k in ("t", "kind"):
        if k not in have:
            raise SystemFileError(f"{path}: /events has no member {k}")
    out["t"] = rows["t"]
    out["kind"] = [bytes(k).rstrip(b"\0").decode("ascii", "replace") for k in rows["kind"]]
    out["index"] = rows["index"] if "index" in have else -1
    subject = _subject_member(have)
    if subject:
        out["subject"] = [_text(n) for n in rows[subject]]
    return out


def is_mat_file(path):
    """True when `path` is a regular file that begins with MATLAB's text
    header (a MAT v5 file)."""
    if not os.path.isfile(path):  # opening a FIFO would wait for a writer
        return False
    try:
        with open(path, "rb") as f:
            return f.read(6) == b"MATLAB"
    except OSError:
        return False


def _mtext(a):
    """A char array of loadmat as a str ('' for an empty one)."""
    a = np.asarray(a)
    return "" if a.size == 0 else str(a.ravel()[0])


def _mcell(a):
    """A cell array of char as a list of str."""
    return [_mtext(c) for c in np.asarray(a, dtype=object).ravel()]


def _mstruct(m, name, path, required=True):
    v = m.get(name)
    if v is None or v.dtype.names is None or v.size != 1:
        if not required:
            return None
        raise SystemFileError(f"{path}: not the MAT result of a system: no 1 x 1 struct '{name}'")
    return v.ravel()[0]


def loadmat(path):
    """The variables of a MAT result (scipy.io.loadmat), checked to be
    stickslip's; SystemFileError with a one-line reason."""
    try:
        import scipy.io
    except ImportError:
        raise SystemFileError(f"{path}: reading a MAT result needs scipy (python3-scipy)") from None
    try:
        m = scipy.io.loadmat(path)
    except (ValueError, TypeError, OSError, NotImplementedError) as exc:
        raise SystemFileError(f"{path}: cannot read the MAT file: {exc}") from None
    if _mtext(m.get("program", "")) != "stickslip":
        raise SystemFileError(f"{path}: not a stickslip result (variable program is not 'stickslip')")
    return m


def _read_system_mat(path):
    """A SystemResult from the MAT result of a system (scipy.io.loadmat)."""
    m = loadmat(path)
    if "names" not in m:
        raise SystemFileError(f"{path}: not the MAT result of a system of bodies (no 'names')")
    tr, units_s, names_s = (_mstruct(m, k, path) for k in ("trajectory", "units", "names"))
    vnames_s = _mstruct(m, "value_names", path, required=False)
    t = np.asarray(tr["t"], dtype=float).ravel()
    groups, names, units, vnames = {}, {}, {"t": _mtext(units_s["t"])}, {}
    for name in tr.dtype.names:
        if name == "t":
            continue
        data = np.asarray(tr[name])
        if data.ndim != 2 or data.shape[0] != len(t):
            raise SystemFileError(f"{path}: trajectory.{name} is {data.shape}, t has {len(t)} rows")
        units[name] = _mtext(units_s[name]) if name in units_s.dtype.names else ""
        if name in names_s.dtype.names:
            names[name] = _mcell(names_s[name])
            if len(names[name]) != data.shape[1]:
                raise SystemFileError(f"{path}: names.{name} does not name the {data.shape[1]} "
                                      f"columns of trajectory.{name}")
        else:
            data = data.ravel()
        if vnames_s is not None and name in vnames_s.dtype.names:
            vnames[name] = _mcell(vnames_s[name])
            groups[name] = np.asarray(data, dtype=int)
        else:
            groups[name] = np.asarray(data, dtype=float)
    ev = _mstruct(m, "events", path)
    et = np.asarray(ev["t"], dtype=float).ravel()
    events = np.zeros(len(et), dtype=EVENT_DTYPE)
    events["t"] = et
    events["kind"] = _mcell(ev["kind"]) if len(et) else []
    events["index"] = np.asarray(ev["index"]).ravel() if len(et) else []
    subject = _subject_member(ev.dtype.names or ())
    events["subject"] = _mcell(ev[subject]) if len(et) and subject else []
    st = _mstruct(m, "stats", path)
    stats = {k: np.asarray(st[k]).ravel()[0].item() for k in st.dtype.names}
    return SystemResult(path, t, groups, names, units, {k: "" for k in groups}, vnames, events,
                        float(np.asarray(m["complete"]).ravel()[0]) == 1, _mtext(m["message"]),
                        _mtext(m["config"]), stats)


def read_system(path):
    """A SystemResult from a file (HDF5, or MAT: _read_system_mat);
    SystemFileError with a one-line reason."""
    if is_mat_file(path):
        return _read_system_mat(path)
    import h5py

    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        raise SystemFileError(f"{path}: cannot open: {exc}") from None
    with f:
        if _text(f.attrs.get("program", "")) != "stickslip" or not is_system_file(f):
            raise SystemFileError(f"{path}: not the result of a system of bodies (no 2-D /trajectory/x)")
        tr = f["trajectory"]
        t = np.asarray(_read(tr["t"], path), dtype=float)
        groups, names, units, long_names, vnames = {}, {}, {"t": _text(tr["t"].attrs.get("units", "s"))}, {}, {}
        for name, ds in tr.items():
            if name == "t":
                continue
            data = _read(ds, path)
            if data.shape[0] != len(t):
                raise SystemFileError(f"{path}: /trajectory/{name} has {data.shape[0]} rows, t {len(t)}")
            units[name] = _text(ds.attrs.get("units", ""))
            long_names[name] = _text(ds.attrs.get("long_name", ""))
            if "mode_names" in ds.attrs:
                vnames[name] = value_names(ds.attrs["mode_names"])
                groups[name] = np.asarray(data, dtype=int)
            else:
                groups[name] = np.asarray(data, dtype=float)
            if data.ndim == 2:
                names[name] = _names(ds.attrs.get("names", ""))
                if len(names[name]) != data.shape[1]:
                    raise SystemFileError(f"{path}: /trajectory/{name}: attribute names does not name "
                                          f"its {data.shape[1]} columns")
        stats = {k: (v.item() if hasattr(v, "item") else v) for k, v in f["stats"].attrs.items()} \
            if "stats" in f else {}
        return SystemResult(path, t, groups, names, units, long_names, vnames, _events(f, path),
                            int(f.attrs.get("complete", 0)) == 1, _text(f.attrs.get("message", "")),
                            f["config"].asstr()[()] if "config" in f else "", stats)


def is_system(path):
    """True when `path` is a stickslip result of a system (False for any
    other file, or none)."""
    if is_mat_file(path):
        try:
            import scipy.io

            return {"names", "trajectory"} <= {n for n, _, _ in scipy.io.whosmat(path)}
        except (ImportError, ValueError, OSError):
            return False
    try:
        import h5py

        with h5py.File(path, "r") as f:
            return is_system_file(f)
    except (OSError, ImportError):
        return False
