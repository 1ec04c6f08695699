#!/usr/bin/python3
"""Plot a stickslip result file (HDF5, layout in docs/hdf5-layout.md).

Run by `stickslip plot RESULT.h5 ...` (or directly with /usr/bin/python3);
importable for tests and scripts:

    import stickslip_plot as sp
    res = sp.load_result("results/janecek_chirp.h5")
    sp.render(res, "all", "janecek.png")

Figures (Janecek et al. 2011 numbering):
  time    x (and x_base, x + x_base with base motion) and v against time,
          STUCK and stop-contact intervals shaded, events marked by kind
          (Fig. 6: base and mass position with the state borders);
  forces  dry friction, non-friction net force, stop reaction, and the static
          limits as a band (Fig. 7; with --t0/--t1 the zoom of Fig. 8);
  loop    dry friction against relative velocity (Fig. 9);
  phase   phase portrait x-v;
  all     the four panels in one 2x2 figure.

Exit codes: 0 written (also for an incomplete result: a warning goes to
stderr and the title says INCOMPLETE), 2 bad input (missing, non-HDF5 or
non-stickslip file, bad option, empty time window, missing Python
packages), 1 the output could not be written.
"""

import argparse
import math
import os
import re
import sys
import textwrap

PROG = "stickslip plot"
KINDS = ("time", "forces", "loop", "phase", "all", "work")
FORMATS = (".png", ".pdf", ".svg")

try:  # reported by main() as a clear one-line error, not a traceback
    import numpy as np
    import h5py
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.collections import PolyCollection

    IMPORT_ERROR = None
except ImportError as exc:  # pragma: no cover - depends on the machine
    IMPORT_ERROR = exc

# Shading of the frozen modes (mode number -> label, colour).
SHADES = {
    "STUCK": ("STUCK (locked)", "#9ecae1"),
    "STOP": ("on an end stop", "#fdae6b"),
    "CONTACT": ("in a compliant stop", "#fdd0a2"),
}
# Event markers: Janecek marks the borders between basic states with circles.
EVENT_STYLE = {
    "stick": ("o", "#1f77b4"),
    "breakaway": ("^", "#d62728"),
    "reversal": ("s", "#2ca02c"),
    "impact": ("X", "#9467bd"),
    "stop_contact": ("D", "#8c564b"),
    "stop_release": ("v", "#e377c2"),
    "load_reversal": ("P", "#7f7f7f"),
    "input_step": ("*", "#bcbd22"),
    "contact_begin": (">", "#17becf"),
    "contact_end": ("<", "#e6550d"),
    "ambiguous": ("h", "#000000"),
}
LINE_COLORS = {
    "x": "#1f77b4",
    "x_base": "#7f7f7f",
    "x_abs": "#ff7f0e",
    "v": "#2ca02c",
    "friction": "#d62728",
    "net_force": "#1f77b4",
    "stop_reaction": "#8c564b",
}


class PlotError(Exception):
    """Bad input: reported as `stickslip plot: error: ...`, exit code 2."""


# ---- reading -------------------------------------------------------------------


def _attr_str(obj, name, default=""):
    v = obj.attrs.get(name, default)
    if v is None:
        return None
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    return str(v)


# Deflate compresses at most 1032:1; a dataset stored through a filter that
# claims more than this many times the file's size is not data the file
# holds (the same rule as io/result/h5_bounds.c).
FILTER_RATIO = 1100


def _read(ds, path):
    """ds[:] after checking the dataset's extent against the file size: a
    crafted file of a few kB may claim 10^9 rows."""
    need = ds.size * ds.dtype.itemsize
    room = os.path.getsize(path) * (FILTER_RATIO if ds.id.get_create_plist().get_nfilters() else 1)
    if need > room:
        raise PlotError(f"{path}: dataset {ds.name} claims {ds.size} rows, more than the file of "
                        f"{os.path.getsize(path)} bytes can hold: a damaged or crafted file")
    return ds[:]


# ---- a system's file, and MAT files (scipy.io.loadmat) --------------------------


def _text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def _member_names(attr):
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


def _subject_member(have):
    """The events' member with the subject's name: `subject`, or `name` in
    files written before the names were made one."""
    return next((k for k in ("subject", "name") if k in have), None)


def _events(f, path):
    if "events" not in f:
        raise PlotError(f"{path}: missing dataset /events")
    rows = _read(f["events"], path)
    out = np.zeros(len(rows), dtype=_system_view().EVENT_DTYPE)
    have = rows.dtype.names or ()
    for k in ("t", "kind"):
        if k not in have:
            raise PlotError(f"{path}: /events has no member {k}")
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


def _mstruct(m, name, path, required=True, what="the MAT result of a system"):
    v = m.get(name)
    if v is None or v.dtype.names is None or v.size != 1:
        if not required:
            return None
        raise PlotError(f"{path}: not {what}: no 1 x 1 struct '{name}'")
    return v.ravel()[0]


def loadmat(path):
    """The variables of a MAT result (scipy.io.loadmat), checked to be
    stickslip's; PlotError with a one-line reason."""
    try:
        import scipy.io
    except ImportError:
        raise PlotError(f"{path}: reading a MAT result needs scipy (python3-scipy)") from None
    try:
        m = scipy.io.loadmat(path)
    except (ValueError, TypeError, OSError, NotImplementedError) as exc:
        raise PlotError(f"{path}: cannot read the MAT file: {exc}") from None
    if _mtext(m.get("program", "")) != "stickslip":
        raise PlotError(f"{path}: not a stickslip result (variable program is not 'stickslip')")
    return m


def _read_system_mat(path):
    """A SystemResult from the MAT result of a system (scipy.io.loadmat)."""
    m = loadmat(path)
    if "names" not in m:
        raise PlotError(f"{path}: not the MAT result of a system of bodies (no 'names')")
    tr, units_s, names_s = (_mstruct(m, k, path) for k in ("trajectory", "units", "names"))
    vnames_s = _mstruct(m, "value_names", path, required=False)
    t = np.asarray(tr["t"], dtype=float).ravel()
    groups, names, units, vnames = {}, {}, {"t": _mtext(units_s["t"])}, {}
    for name in tr.dtype.names:
        if name == "t":
            continue
        data = np.asarray(tr[name])
        if data.ndim != 2 or data.shape[0] != len(t):
            raise PlotError(f"{path}: trajectory.{name} is {data.shape}, t has {len(t)} rows")
        units[name] = _mtext(units_s[name]) if name in units_s.dtype.names else ""
        if name in names_s.dtype.names:
            names[name] = _mcell(names_s[name])
            if len(names[name]) != data.shape[1]:
                raise PlotError(f"{path}: names.{name} does not name the {data.shape[1]} "
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
    events = np.zeros(len(et), dtype=_system_view().EVENT_DTYPE)
    events["t"] = et
    events["kind"] = _mcell(ev["kind"]) if len(et) else []
    events["index"] = np.asarray(ev["index"]).ravel() if len(et) else []
    subject = _subject_member(ev.dtype.names or ())
    events["subject"] = _mcell(ev[subject]) if len(et) and subject else []
    st = _mstruct(m, "stats", path)
    stats = {k: np.asarray(st[k]).ravel()[0].item() for k in st.dtype.names}
    return _system_view().SystemResult(path, t, groups, names, units, {k: "" for k in groups}, vnames, events,
                        float(np.asarray(m["complete"]).ravel()[0]) == 1, _mtext(m["message"]),
                        _mtext(m["config"]), stats)


def read_system(path):
    """A SystemResult (python/stickslip/system.py) from a file (HDF5, or
    MAT: _read_system_mat);
    PlotError with a one-line reason."""
    if is_mat_file(path):
        return _read_system_mat(path)
    import h5py

    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        raise PlotError(f"{path}: cannot open: {exc}") from None
    with f:
        if _text(f.attrs.get("program", "")) != "stickslip" or not is_system_file(f):
            raise PlotError(f"{path}: not the result of a system of bodies (no 2-D /trajectory/x)")
        tr = f["trajectory"]
        t = np.asarray(_read(tr["t"], path), dtype=float)
        groups, names, units, long_names, vnames = {}, {}, {"t": _text(tr["t"].attrs.get("units", "s"))}, {}, {}
        for name, ds in tr.items():
            if name == "t":
                continue
            data = _read(ds, path)
            if data.shape[0] != len(t):
                raise PlotError(f"{path}: /trajectory/{name} has {data.shape[0]} rows, t {len(t)}")
            units[name] = _text(ds.attrs.get("units", ""))
            long_names[name] = _text(ds.attrs.get("long_name", ""))
            if "mode_names" in ds.attrs:
                vnames[name] = value_names(ds.attrs["mode_names"])
                groups[name] = np.asarray(data, dtype=int)
            else:
                groups[name] = np.asarray(data, dtype=float)
            if data.ndim == 2:
                names[name] = _member_names(ds.attrs.get("names", ""))
                if len(names[name]) != data.shape[1]:
                    raise PlotError(f"{path}: /trajectory/{name}: attribute names does not name "
                                          f"its {data.shape[1]} columns")
        stats = {k: (v.item() if hasattr(v, "item") else v) for k, v in f["stats"].attrs.items()} \
            if "stats" in f else {}
        return _system_view().SystemResult(path, t, groups, names, units, long_names, vnames, _events(f, path),
                            int(f.attrs.get("complete", 0)) == 1, _text(f.attrs.get("message", "")),
                            f["config"].asstr()[()] if "config" in f else "", stats)


def load_result(path):
    """Read a result file into a dict.

    Keys: path, complete (bool), message, version, config (YAML text),
    t, cols (name -> array), units (name -> str), mode (int array),
    mode_names (number -> name), events (list of dicts with t, kind,
    mode_before, mode_after, x, v_before, v_after, net_force, friction).
    Raises PlotError with a one-line reason when the file is unusable."""
    if not os.path.exists(path):
        raise PlotError(f"{path}: no such file")
    if os.path.isdir(path):
        raise PlotError(f"{path}: is a directory, not a result file")
    if not os.path.isfile(path):  # opening a FIFO would wait for a writer
        raise PlotError(f"{path}: not a regular file (a FIFO, socket or device), not a result file")
    if is_mat_file(path):
        return load_mat_result(path)
    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        reason = "not an HDF5 file" if not h5py.is_hdf5(path) else str(exc).split("(")[0].strip()
        raise PlotError(f"{path}: cannot open: {reason}") from None
    if _attr_str(f, "program") == "stickslip" and is_system_file(f):
        f.close()
        return load_system(path)
    with f:
        try:
            if _attr_str(f, "program") != "stickslip":
                raise PlotError(f"{path}: not a stickslip result (root attribute program is not 'stickslip')")
            tr = f["trajectory"]
            t = np.asarray(_read(tr["t"], path), dtype=float)
            mode = np.asarray(_read(tr["mode"], path), dtype=int)
            cols, units = {}, {"t": _attr_str(tr["t"], "units", "s")}
            for name in tr:
                if name in ("t", "mode"):
                    continue
                cols[name] = np.asarray(_read(tr[name], path), dtype=float)
                units[name] = _attr_str(tr[name], "units")
            mode_names = {}
            for item in _attr_str(tr["mode"], "mode_names").split(","):
                num, _, name = item.strip().partition(" ")
                if num.lstrip("-").isdigit():
                    mode_names[int(num)] = name.strip()
            events = []
            for row in _read(f["events"], path):
                ev = {k: row[k] for k in row.dtype.names}
                ev["kind"] = bytes(ev["kind"]).rstrip(b"\0").decode("ascii", "replace")
                for k in ("mode_before", "mode_after"):
                    ev[k] = int(ev[k])
                for k in ("t", "x", "v_before", "v_after", "net_force", "friction"):
                    ev[k] = float(ev[k])
                events.append(ev)
            config = f["config"].asstr()[()] if "config" in f else ""
            res = {
                "path": path,
                "complete": int(f.attrs.get("complete", 0)) == 1,
                "message": _attr_str(f, "message"),
                "version": _attr_str(f, "version"),
                "config": config,
                "t": t,
                "cols": cols,
                "units": units,
                "mode": mode,
                "mode_names": mode_names,
                "events": events,
            }
        except PlotError:
            raise
        except (KeyError, ValueError, TypeError, OSError) as exc:
            raise PlotError(f"{path}: not a stickslip result (layout of docs/hdf5-layout.md): {exc}") from None
    for need in ("x", "v"):
        if need not in res["cols"]:
            raise PlotError(f"{path}: not a stickslip result: /trajectory/{need} is missing")
    if any(len(c) != len(t) for c in res["cols"].values()) or len(mode) != len(t):
        raise PlotError(f"{path}: damaged result: trajectory datasets differ in length")
    if len(t) == 0:
        raise PlotError(f"{path}: the result has no samples")
    return res


def load_mat_result(path):
    """The dict of load_result from a MAT result (`stickslip run -o
    OUT.mat`), read with scipy.io.loadmat; a system's goes to load_system."""
    m = loadmat(path)
    if "names" in m:
        return load_system(path)
    tr, un, ev = (_mstruct(m, k, path, what="a stickslip MAT result")
                  for k in ("trajectory", "units", "events"))
    t = np.asarray(tr["t"], dtype=float).ravel()
    cols = {k: np.asarray(tr[k], dtype=float).ravel() for k in tr.dtype.names if k not in ("t", "mode")}
    units = {k: _mtext(un[k]) for k in un.dtype.names if k != "mode"}
    mode = np.asarray(tr["mode"], dtype=int).ravel() if "mode" in tr.dtype.names else None
    n_ev = np.asarray(ev["t"]).size
    events = []
    for i in range(n_ev):
        e = {k: float(np.asarray(ev[k]).ravel()[i]) for k in
             ("t", "x", "v_before", "v_after", "net_force", "friction")}
        e["kind"] = _mcell(ev["kind"])[i]
        e["mode_before"] = int(np.asarray(ev["mode_before"]).ravel()[i])
        e["mode_after"] = int(np.asarray(ev["mode_after"]).ravel()[i])
        events.append(e)
    res = {"path": path, "complete": float(np.asarray(m["complete"]).ravel()[0]) == 1,
           "message": _mtext(m["message"]), "version": _mtext(m["version"]),
           "config": _mtext(m["config"]), "t": t, "cols": cols, "units": units,
           "mode": mode, "mode_names": dict(enumerate(_mcell(m["mode_names"]))),
           "events": events}
    if mode is None or "x" not in cols or "v" not in cols:
        raise PlotError(f"{path}: not a stickslip result: trajectory.mode, x or v is missing")
    if any(len(c) != len(t) for c in cols.values()) or len(mode) != len(t):
        raise PlotError(f"{path}: damaged result: trajectory fields differ in length")
    if len(t) == 0:
        raise PlotError(f"{path}: the result has no samples")
    return res


# ---- the configuration and the static limits ---------------------------------------


def _parse_config(text):
    """The effective configuration as nested dicts (yaml when available,
    else the subset stickslip writes: block mappings of scalars and
    one-line {k: v, ...} flow mappings)."""
    try:
        import yaml

        data = yaml.safe_load(text)
        return data if isinstance(data, dict) else {}
    except ImportError:
        return _parse_config_subset(text)
    except Exception:  # a damaged /config must not stop the plot
        return {}


def _scalar(s):
    s = s.strip().strip('"')
    try:
        return float(s) if re.fullmatch(r"[-+0-9.eE]+|[-+]?inf|nan", s) else s
    except ValueError:
        return s


def _parse_config_subset(text):
    root, stack = {}, [(-1, None)]
    stack[0] = (-1, root)
    for raw in text.splitlines():
        line = raw.split(" #")[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        key, _, val = line.strip().partition(":")
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        val = val.strip()
        if not val:
            parent[key] = {}
            stack.append((indent, parent[key]))
        elif val.startswith("{") and val.endswith("}"):
            d = {}
            for item in val[1:-1].split(","):
                k, _, v = item.partition(":")
                if k.strip():
                    d[k.strip()] = _scalar(v)
            parent[key] = d
        else:
            parent[key] = _scalar(val)
    return root


def _num(d, key, default):
    try:
        return float(d.get(key, default))
    except (TypeError, ValueError, AttributeError):
        return default


def static_limits(res):
    """The static friction limits to draw as a band.

    Returns (low, high, label): the band is low <= F_f <= high.  With a
    constant load (zero included) the limits are constant and computed from
    /config with SPEC 1.1: high = F_S(+1), low = -F_S(-1).  With a varying
    load they change with it; the file does not store the load, so the band
    is the envelope of friction over the STUCK samples (label says so).
    Returns None when neither is available."""
    cfg = _parse_config(res.get("config", ""))
    fr = cfg.get("friction", {}) if isinstance(cfg, dict) else {}
    load = (cfg.get("inputs", {}) or {}).get("load", {"type": "constant", "value": 0.0}) if cfg else None
    if isinstance(fr, dict) and "dynamic" in fr and isinstance(load, dict) and load.get("type") == "constant":
        fdj = _num(fr, "dynamic", 0.0)
        # The static level as the file gave it: a force, or a ratio (1 by default).
        fsd = _num(fr, "static", 0.0) / fdj if "static" in fr else _num(fr, "static_ratio", 1.0)
        eto = _num(fr, "efficiency_opposing", 1.0)
        eta = _num(fr, "efficiency_aiding", 1.0)
        fr_load = _num(load, "value", 0.0)

        def f_d(s):
            if fr_load == 0.0:
                return fdj
            if s * fr_load < 0:  # the load opposes the direction s
                return fdj + (1.0 / eto - 1.0) * abs(fr_load)
            return fdj + (1.0 - eta) * abs(fr_load)

        hi, lo = fsd * f_d(+1), -fsd * f_d(-1)
        if fr_load == 0.0:
            label = f"static limits ±{hi:.4g}"
        else:
            label = f"static limits [{lo:.4g}, {hi:.4g}] (load {fr_load:.4g})"
        return lo, hi, label
    fric = res["cols"].get("friction")
    stuck = np.isin(res["mode"], _stuck_modes(res))
    if fric is not None and stuck.any():
        return float(fric[stuck].min()), float(fric[stuck].max()), "friction range while STUCK (load varies)"
    return None


# ---- drawing -------------------------------------------------------------------------


def _names(res):
    cfg = _parse_config(res.get("config", ""))
    rot = isinstance(cfg, dict) and cfg.get("domain") == "rotational"
    return {
        "x": "angle" if rot else "position",
        "v": "angular velocity" if rot else "velocity",
        "F": "torque" if rot else "force",
    }


def _label(name, unit):
    return f"{name} [{unit}]" if unit else name


def _window(res, t0, t1):
    t = res["t"]
    lo = -math.inf if t0 is None else t0
    hi = math.inf if t1 is None else t1
    sel = (t >= lo) & (t <= hi)
    if not sel.any():
        raise PlotError(f"no samples between --t0 {t0} and --t1 {t1} (the result spans {t[0]:g} .. {t[-1]:g})")
    evs = [e for e in res["events"] if lo <= e["t"] <= hi]
    return sel, evs


def _has_base(res):
    xb = res["cols"].get("x_base")
    return xb is not None and bool(np.any(xb != 0.0))


def _modes_named(res, test):
    return [k for k, n in res["mode_names"].items() if test(n)]


def _stuck_modes(res):
    """STUCK (0) and, with compliant stops, stuck while pressed into one."""
    return [0] + _modes_named(res, lambda n: n.startswith("CONTACT_") and n.endswith("_STUCK"))


def _stop_modes(res):
    return _modes_named(res, lambda n: n.startswith("STOP"))


def _runs(t, mask):
    """(start, end) times of the runs of consecutive True samples."""
    if not mask.any():
        return []
    m = mask.astype(np.int8)
    d = np.diff(np.concatenate(([0], m, [0])))
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1) - 1
    return [(t[a], t[b]) for a, b in zip(starts, ends)]


def _shade(ax, res, sel, used):
    """Shade STUCK and stop-contact intervals: one collection per class,
    spanning the axes' height, not counted in the data limits."""
    t, mode = res["t"][sel], res["mode"][sel]
    # Stuck inside a compliant stop (CONTACT_*_STUCK) is shaded both ways.
    classes = [("STUCK", np.isin(mode, _stuck_modes(res)))]
    stops = _stop_modes(res)
    if stops:
        classes.append(("STOP", np.isin(mode, stops)))
    contacts = _modes_named(res, lambda n: n.startswith("CONTACT_"))
    if contacts:
        classes.append(("CONTACT", np.isin(mode, contacts)))
    for cls, mask in classes:
        runs = _runs(t, mask)
        if runs:
            rects = [[(a, 0), (a, 1), (b, 1), (b, 0)] for a, b in runs]
            coll = PolyCollection(rects, transform=ax.get_xaxis_transform(), facecolors=SHADES[cls][1],
                                  alpha=0.45, linewidths=0, zorder=0)
            ax.add_collection(coll, autolim=False)
            used.add(cls)


def _mark_events(ax, evs, xkey, ykey, used, ycol=None, res=None):
    """Mark events by kind.  ykey is an event member, or None with ycol a
    trajectory column read at the event time (sample just after)."""
    for kind in EVENT_STYLE:
        sel = [e for e in evs if e["kind"] == kind]
        if not sel:
            continue
        xs = [e[xkey] for e in sel]
        if ykey is not None:
            ys = [e[ykey] for e in sel]
        else:
            t = res["t"]
            idx = np.clip(np.searchsorted(t, xs, side="right") - 1, 0, len(t) - 1)
            ys = res["cols"][ycol][idx]
        marker, color = EVENT_STYLE[kind]
        ax.plot(xs, ys, linestyle="none", marker=marker, markersize=6, markerfacecolor="none",
                markeredgecolor=color, markeredgewidth=1.4, zorder=5)
        used.add(kind)


def _time_axes(fig, spec, res, sel, evs, used, names):
    t, c, u = res["t"][sel], res["cols"], res["units"]
    base = _has_base(res)
    rows = 3 if base else 2
    gs = spec.subgridspec(rows, 1, hspace=0.08)
    axes = [fig.add_subplot(gs[0])]
    for i in range(1, rows):
        axes.append(fig.add_subplot(gs[i], sharex=axes[0]))
    row = 0
    if base:
        ax = axes[0]
        ax.plot(t, c["x_base"][sel], color=LINE_COLORS["x_base"], lw=1.0, label="x_base (base)")
        ax.plot(t, c["x"][sel] + c["x_base"][sel], color=LINE_COLORS["x_abs"], lw=1.2,
                label="x + x_base (element)")
        ax.set_ylabel(_label("absolute", u["x"]))
        _mark_events(ax, evs, "t", None, used, ycol="x_abs", res=_with_abs(res))
        row = 1
    ax = axes[row]
    ax.plot(t, c["x"][sel], color=LINE_COLORS["x"], lw=1.2, label="x (relative)" if base else "x")
    ax.set_ylabel(_label(names["x"], u["x"]))
    _mark_events(ax, evs, "t", "x", used)
    ax = axes[row + 1]
    ax.plot(t, c["v"][sel], color=LINE_COLORS["v"], lw=1.2, label="v (relative)" if base else "v")
    ax.axhline(0.0, color="black", lw=0.6)
    ax.set_ylabel(_label(names["v"], u["v"]))
    _mark_events(ax, evs, "t", "v_after", used)
    for a in axes:
        _shade(a, res, sel, used)
        a.grid(True, alpha=0.3)
        a.legend(loc="upper left", fontsize="small")
        a.set_xlim(t[0], t[-1])
    for a in axes[:-1]:
        a.tick_params(labelbottom=False)
    axes[-1].set_xlabel(_label("time", u["t"]))
    axes[0].set_title("time histories")
    fig.align_ylabels(axes)
    return axes


def _with_abs(res):
    r = dict(res)
    r["cols"] = dict(res["cols"])
    r["cols"]["x_abs"] = res["cols"]["x"] + res["cols"]["x_base"]
    return r


def _forces_axes(fig, spec, res, sel, evs, used, names):
    ax = fig.add_subplot(spec)
    t, c, u = res["t"][sel], res["cols"], res["units"]
    lim = static_limits(res)
    if lim is not None:
        lo, hi, label = lim
        ax.axhspan(lo, hi, color="#d9d9d9", alpha=0.5, zorder=0.5, label=label)
        ax.axhline(lo, color="#969696", lw=0.8, ls="--", zorder=0.6)
        ax.axhline(hi, color="#969696", lw=0.8, ls="--", zorder=0.6)
    if "net_force" in c:
        ax.plot(t, c["net_force"][sel], color=LINE_COLORS["net_force"], lw=1.0,
                label="net force F_n (non-friction)")
    if "friction" in c:
        ax.plot(t, c["friction"][sel], color=LINE_COLORS["friction"], lw=1.4, label="dry friction F_f")
        _mark_events(ax, evs, "t", "friction", used)
    if "stop_reaction" in c and np.any(c["stop_reaction"][sel] != 0.0):
        ax.plot(t, c["stop_reaction"][sel], color=LINE_COLORS["stop_reaction"], lw=1.0,
                label="stop reaction |R| (magnitude)")
    funit = u.get("friction", u.get("net_force", ""))
    _shade(ax, res, sel, used)
    ax.set_xlim(t[0], t[-1])
    ax.set_xlabel(_label("time", u["t"]))
    ax.set_ylabel(_label(names["F"], funit))
    ax.set_title("forces")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return [ax]


def _broken(res, sel, *names):
    """Columns restricted to sel, with a NaN row inserted wherever the
    velocity jumps at an event (an impact): a curve in the x-v or F-v plane
    must not draw a line across the jump."""
    t, v = res["t"][sel], res["cols"]["v"][sel]
    cols = [res["cols"][n][sel] for n in names]
    jumps = np.flatnonzero((t[1:] == t[:-1]) & (v[1:] != v[:-1])) + 1
    if len(jumps) == 0:
        return cols
    return [np.insert(c, jumps, np.nan) for c in cols]


def _loop_axes(fig, spec, res, sel, evs, used, names):
    ax = fig.add_subplot(spec)
    c, u = res["cols"], res["units"]
    lim = static_limits(res)
    if lim is not None:
        lo, hi, label = lim
        ax.axhline(lo, color="#969696", lw=0.8, ls="--")
        ax.axhline(hi, color="#969696", lw=0.8, ls="--", label=label)
    if "friction" in c:
        vv, ff = _broken(res, sel, "v", "friction")
        ax.plot(vv, ff, color=LINE_COLORS["friction"], lw=1.2, label="dry friction F_f")
        _mark_events(ax, evs, "v_after", "friction", used)
    ax.axvline(0.0, color="#525252", lw=0.6, zorder=0.8)
    ax.set_xlabel(_label("relative " + names["v"], u["v"]))
    ax.set_ylabel(_label("dry friction", u.get("friction", "")))
    ax.set_title("friction against velocity")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return [ax]


def _phase_axes(fig, spec, res, sel, evs, used, names):
    ax = fig.add_subplot(spec)
    c, u = res["cols"], res["units"]
    xx, vv = _broken(res, sel, "x", "v")
    ax.plot(xx, vv, color=LINE_COLORS["x"], lw=1.2, label="trajectory")
    ax.plot(c["x"][sel][:1], c["v"][sel][:1], linestyle="none", marker="o", color="black",
            markersize=4, label="start")
    _mark_events(ax, evs, "x", "v_before", used)
    ax.axhline(0.0, color="black", lw=0.6)
    ax.set_xlabel(_label(names["x"] + " x", u["x"]))
    ax.set_ylabel(_label(names["v"] + " v", u["v"]))
    ax.set_title("phase portrait")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return [ax]


PANELS = {"time": _time_axes, "forces": _forces_axes, "loop": _loop_axes, "phase": _phase_axes}
SIZES = {"time": (10, 7), "forces": (10, 5.5), "loop": (7.5, 6), "phase": (7.5, 6), "all": (14, 9.5)}


def _summary(res):
    counts = {}
    for e in res["events"]:
        counts[e["kind"]] = counts.get(e["kind"], 0) + 1
    parts = ", ".join(f"{n} {k}" for k, n in counts.items())
    return f"{len(res['events'])} events" + (f" ({parts})" if parts else "")


def figure(res, what="all", t0=None, t1=None):
    """Build the matplotlib Figure for one plot kind (see KINDS): the first
    page of a system's figures (see figures())."""
    figs = figures(res, what, t0, t1)
    for f in figs[1:]:
        plt.close(f)
    return figs[0]


def figures(res, what="all", t0=None, t1=None):
    """The pages of one plot kind: one figure for a single element, one per
    page of at most BODIES_PER_PAGE bodies for a system."""
    if what not in KINDS:
        raise PlotError(f"unknown plot kind '{what}' (choose from {', '.join(KINDS)})")
    if t0 is not None and t1 is not None and not t1 > t0:
        raise PlotError(f"--t1 ({t1:g}) must be greater than --t0 ({t0:g})")
    sel, evs = _window(res, t0, t1)
    if "system" in res:
        # The bodies' panels alone end in their velocity axes: room for them.
        right_in = 0.9 if what == "time" else 0.25
        return [_decorate(fig, res, handles, sel, t0, t1, right_in=right_in, page=label)
                for fig, handles, label in _system_figures(res, what, sel, evs)]
    return [_single_figure(res, what, sel, evs, t0, t1)]


def _single_figure(res, what, sel, evs, t0, t1):
    names = _names(res)
    fig = plt.figure(figsize=SIZES[what])
    used = set()
    if what == "all":
        gs = fig.add_gridspec(2, 2, hspace=0.28, wspace=0.2)
        for spec, kind in zip((gs[0, 0], gs[0, 1], gs[1, 0], gs[1, 1]), ("time", "forces", "loop", "phase")):
            PANELS[kind](fig, spec, res, sel, evs, used, names)
    else:
        gs = fig.add_gridspec(1, 1)
        PANELS[what](fig, gs[0], res, sel, evs, used, names)
    # One legend for the shading and the event kinds, below the panels.
    handles = [Patch(facecolor=SHADES[c][1], alpha=0.45, label=SHADES[c][0]) for c in SHADES if c in used]
    for kind, (marker, color) in EVENT_STYLE.items():
        if kind in used:
            handles.append(Line2D([], [], linestyle="none", marker=marker, markerfacecolor="none",
                                  markeredgecolor=color, markeredgewidth=1.4, label=f"event: {kind}"))
    return _decorate(fig, res, handles, sel, t0, t1)


def _legend_columns(handles, width):
    """Columns of the legend below the panels: 5 on a wide figure, 3 on a
    narrow one, fewer when the longest label would push the legend past
    the figure's edges (a column: the handle and gap, 0.55 in, and about
    0.085 in a character at the legend's size)."""
    longest = max((len(h.get_label()) for h in handles), default=0)
    fit = int((width - 0.3) // (0.55 + 0.085 * longest))
    return max(1, min(5 if width >= 10 else 3, fit))


def _decorate(fig, res, handles, sel, t0, t1, right_in=0.25, page=""):
    """The title (events, window, page, INCOMPLETE), the margins (right_in
    inches on the right) and one legend of `handles` below the panels."""
    title = f"{os.path.basename(res['path'])}: {_summary(res)}"
    if t0 is not None or t1 is not None:
        t = res["t"][sel]
        title += f", window {t[0]:g} .. {t[-1]:g} {res['units']['t']}"
    if page:
        title += f"\n{page}"
    if not res["complete"]:
        msg = res["message"] or "no reason recorded"
        if len(msg) > 160:
            msg = msg[:157] + "..."
        wrap = int(fig.get_size_inches()[0] * 9)
        title = "\n".join(textwrap.wrap(f"INCOMPLETE: {msg}", wrap)) + "\n" + title
    fig.suptitle(title, color="black" if res["complete"] else "#b2182b", fontsize="large")
    # Margins in inches, so that small and large figures keep the same look.
    width, height = fig.get_size_inches()
    ncol = _legend_columns(handles, width)
    rows = math.ceil(len(handles) / ncol)
    # Below the title: room for the first panel's own title (0.3 in).
    top_in = 0.25 + 0.28 * (title.count("\n") + 1) + 0.35
    bottom_in = 0.6 + 0.28 * rows
    fig.subplots_adjust(left=0.8 / width, right=1 - right_in / width, top=1 - top_in / height,
                        bottom=bottom_in / height)
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=ncol, frameon=False, fontsize="medium",
                   bbox_to_anchor=(0.5, 0.05 / height))
    return fig


# ---- systems of bodies -------------------------------------------------------------

# Shading of each contact's stuck intervals: one light colour per contact on
# a page (a page holds at most BODIES_PER_PAGE bodies, so at most a dozen
# contacts in practice: twelve distinct colours).
CONTACT_COLORS = ("#9ecae1", "#fdae6b", "#a1d99b", "#bcbddc", "#fc9272", "#c7e9c0", "#fdd0a2",
                  "#dadaeb", "#d9d9d9", "#f2cfe6", "#c9b99b", "#b8e3e0")
# The bodies' own colours (position line, phase curve): tab10 holds ten
# distinct colours, more than a page's bodies.
BODY_CMAP = "tab10"
# Light enough to read the lines through, dark enough to see on a screen.
SHADE_ALPHA = 0.35
# Bodies per page: six panels of ~1.9 in stay readable on a screen or an A4
# page; more bodies go to further pages (PNG/SVG: NAME-1.png, NAME-2.png ...;
# PDF: one file with a page each).
BODIES_PER_PAGE = 6
_SYSTEM_VIEW = []


def _system_view():
    """python/stickslip/system.py, the package's SystemResult (the groups of
    a system's file), loaded by path (it lies beside this script in the
    source tree and where both are installed): the package itself needs the
    C library, that module only numpy."""
    if not _SYSTEM_VIEW:
        import importlib.util

        where = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stickslip", "system.py")
        spec = importlib.util.spec_from_file_location("stickslip_system_view", where)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _SYSTEM_VIEW.append(mod)
    return _SYSTEM_VIEW[0]


def load_system(path):
    """A system's result as the dict figure() takes: path, complete,
    message, t, units, events (dicts with t, kind, index, subject) and
    system (its SystemResult)."""
    r = read_system(path)
    if len(r.t) == 0:
        raise PlotError(f"{path}: the result has no samples")
    events = [{"t": float(e["t"]), "kind": str(e["kind"]), "index": int(e["index"]),
               "subject": str(e["subject"])} for e in r.events]
    return {"path": path, "complete": r.complete, "message": r.message, "config": r.config, "t": r.t,
            "units": r.units, "events": events, "system": r}


def _ends(cfg, section, i):
    """The bodies entry i of contacts/stops acts on, from the configuration
    ({body: b} or {between: [a, b]}); None when unknown."""
    items = cfg.get(section) if isinstance(cfg, dict) else None
    if not isinstance(items, list) or not 0 <= i < len(items) or not isinstance(items[i], dict):
        return None
    e = items[i]
    return [e["body"]] if "body" in e else list(e.get("between", [])) or None


def _entry(config, section, i):
    """Entry i of a configuration's contacts or stops ({} when unknown)."""
    items = _parse_config(config).get(section)
    ok = isinstance(items, list) and 0 <= i < len(items) and isinstance(items[i], dict)
    return items[i] if ok else {}


def _joins(e):
    """The two ends a contact or stop entry joins, 'b01/base' (`body: A` is
    A against the base), or "" when the entry does not say."""
    ends = [e["body"], "base"] if "body" in e else list(e.get("between", []))
    return "/".join(str(x) for x in ends) if len(ends) == 2 else ""


def member_label(res, section, name):
    """A contact's or stop's name in legends: its `name:`, or else its key
    path with the two ends it joins, `contacts.0 (b01/base)`: a chain's
    legend of twelve `contacts.N` did not say which block each shades."""
    r = res["system"]
    members = r.contacts if section == "contacts" else r.stops
    i = members.index(name) if name in members else -1
    if name != f"{section}.{i}":
        return name
    ends = _joins(_entry(res.get("config", ""), section, i))
    return f"{name} ({ends})" if ends else name


def _acts_on(res, subject_index):
    """Bodies a subject (contacts, then stops) acts on; every body when
    the configuration does not say."""
    r = res["system"]
    cfg = _parse_config(res.get("config", ""))
    nc = len(r.contacts)
    ends = _ends(cfg, "contacts", subject_index) if subject_index < nc else \
        _ends(cfg, "stops", subject_index - nc)
    bodies = [b for b in (ends or []) if b in r.bodies]
    return bodies or r.bodies


def system_pages(res):
    """The bodies split into pages of at most BODIES_PER_PAGE, as even as
    possible (12 bodies: 6 + 6; 13: 5 + 4 + 4), each page with the contacts
    and stops acting on its bodies: [{"bodies", "contacts", "stops"}]."""
    r = res["system"]
    n = len(r.bodies)
    k = max(1, math.ceil(n / BODIES_PER_PAGE))
    pages = []
    for part in np.array_split(np.arange(n), k):
        bodies = [r.bodies[i] for i in part]
        on = lambda i: any(b in bodies for b in _acts_on(res, i))  # noqa: E731
        pages.append({"bodies": bodies,
                      "contacts": [c for i, c in enumerate(r.contacts) if on(i)],
                      "stops": [s for i, s in enumerate(r.stops) if on(len(r.contacts) + i)]})
    return pages


def _body_color(page, body):
    return plt.get_cmap(BODY_CMAP)(page["bodies"].index(body) % 10)


def _contact_color(page, name):
    return CONTACT_COLORS[page["contacts"].index(name) % len(CONTACT_COLORS)]


def _shade_contacts(ax, res, body, sel, used, page):
    """Each contact's stuck intervals on the panel of a body it acts on: one
    collection per contact (label 'stuck: NAME'), in the contact's colour,
    light and below the lines (zorder 0, the lines draw at 2)."""
    r = res["system"]
    t = r.t[sel]
    for c, name in enumerate(r.contacts):
        if body not in _acts_on(res, c):
            continue
        stuck = r.mode_is("contact_mode", name, "STUCK")[sel]
        runs = r.intervals(stuck, t)
        if not runs:
            continue
        rects = [[(a, 0), (a, 1), (b, 1), (b, 0)] for a, b in runs]
        coll = PolyCollection(rects, transform=ax.get_xaxis_transform(), facecolors=_contact_color(page, name),
                              alpha=SHADE_ALPHA, linewidths=0, zorder=0,
                              label=f"stuck: {member_label(res, 'contacts', name)}")
        ax.add_collection(coll, autolim=False)
        used.add(("stuck", name))


def _mark_system_events(ax, res, body, evs, group, used):
    """Events about a contact or stop acting on `body` (events about none:
    every body), by kind, at the body's value of `group` at the event."""
    r = res["system"]
    col = r.column(group, body)
    for kind, (marker, color) in EVENT_STYLE.items():
        ts = [e["t"] for e in evs if e["kind"] == kind and
              (e["index"] < 0 or body in _acts_on(res, e["index"]))]
        if not ts:
            continue
        idx = np.clip(np.searchsorted(r.t, ts, side="right") - 1, 0, len(r.t) - 1)
        ax.plot(ts, col[idx], linestyle="none", marker=marker, markersize=6, markerfacecolor="none",
                markeredgecolor=color, markeredgewidth=1.4, zorder=5, label=f"event: {kind}")
        used.add(kind)


def _body_axes(fig, spec, res, sel, evs, used, page):
    """One panel per body of the page: position (left axis, in the body's
    colour) and velocity (right axis, thin grey), its contacts' stuck
    intervals shaded, events marked on the position."""
    r = res["system"]
    t, u = r.t[sel], r.units
    # hspace leaves room for each panel's title above it.
    gs = spec.subgridspec(len(page["bodies"]), 1, hspace=0.32)
    axes = []
    for i, body in enumerate(page["bodies"]):
        ax = fig.add_subplot(gs[i], sharex=axes[0] if axes else None)
        color = _body_color(page, body)
        ax.plot(t, r.column("x", body)[sel], color=color, lw=1.3, label=f"x {body}", zorder=3)
        ax.set_ylabel(_label(f"{body}: x", u.get("x", "")), color=color)
        if "v" in r.names:
            tw = ax.twinx()
            tw.plot(t, r.column("v", body)[sel], color="#737373", lw=0.7, label=f"v {body}")
            tw.set_ylabel(_label("v", u.get("v", "")), color="#737373")
        # The shading lies on the panel below its lines (zorder 0); the
        # velocity's twin axes draw after the panel, so a thin grey line.
        _mark_system_events(ax, res, body, evs, "x", used)
        _shade_contacts(ax, res, body, sel, used, page)
        ax.grid(True, alpha=0.3)
        ax.set_xlim(t[0], t[-1])
        ax.set_title(body, loc="left", fontsize="medium")
        axes.append(ax)
    for a in axes[:-1]:
        a.tick_params(labelbottom=False)
    axes[-1].set_xlabel(_label("time", u["t"]))
    return axes


def _curves(ax, members, xs, ys, label, color):
    """One curve per member (a contact or a body) in its page colour."""
    for name in members:
        ax.plot(xs(name), ys(name), lw=1.2, label=label(name), color=color(name))


def _finish(ax, xlabel, ylabel, title):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small", ncol=2 if len(ax.get_lines()) > 4 else 1)
    return [ax]


def _contact_line_color(page):
    """Contacts' curves: tab10 in the page's contact order (distinct up to ten)."""
    return lambda n: plt.get_cmap(BODY_CMAP)(page["contacts"].index(n) % 10)


def _system_forces_axes(fig, spec, res, sel, evs, used, page):
    r, ax = res["system"], fig.add_subplot(spec)
    if "friction" in r.names:
        _curves(ax, page["contacts"], lambda n: r.t[sel], lambda n: r.column("friction", n)[sel],
                lambda n: f"friction {member_label(res, 'contacts', n)}", _contact_line_color(page))
    for name in page["stops"]:
        if name in r.names.get("stop_reaction", []):
            ax.plot(r.t[sel], r.column("stop_reaction", name)[sel], lw=1.0, ls="--",
                    label=f"stop reaction {member_label(res, 'stops', name)}",
                    color=LINE_COLORS["stop_reaction"])
    ax.set_xlim(r.t[sel][0], r.t[sel][-1])
    return _finish(ax, _label("time", r.units["t"]), _label("force", r.units.get("friction", "")),
                   "forces per contact and stop")


def _system_loop_axes(fig, spec, res, sel, evs, used, page):
    r, ax = res["system"], fig.add_subplot(spec)
    if "friction" in r.names and "slip_velocity" in r.names:
        _curves(ax, page["contacts"], lambda n: r.column("slip_velocity", n)[sel],
                lambda n: r.column("friction", n)[sel], lambda n: member_label(res, "contacts", n),
                _contact_line_color(page))
    ax.axvline(0.0, color="#525252", lw=0.6, zorder=0.8)
    return _finish(ax, _label("slip velocity", r.units.get("slip_velocity", "")),
                   _label("friction", r.units.get("friction", "")), "friction against slip velocity")


def _system_phase_axes(fig, spec, res, sel, evs, used, page):
    r, ax = res["system"], fig.add_subplot(spec)
    _curves(ax, page["bodies"], lambda n: r.column("x", n)[sel], lambda n: r.column("v", n)[sel], str,
            lambda n: _body_color(page, n))
    ax.axhline(0.0, color="black", lw=0.6)
    return _finish(ax, _label("x", r.units.get("x", "")), _label("v", r.units.get("v", "")), "phase portraits")


SYSTEM_PANELS = {"time": _body_axes, "forces": _system_forces_axes, "loop": _system_loop_axes,
                 "phase": _system_phase_axes}


def _system_figures(res, what, sel, evs):
    """A figure per page of bodies (system_pages): time: one panel per body;
    forces, loop, phase: one panel with a curve per contact or body of the
    page; all: the bodies' panels beside the other three.  Returns
    [(figure, legend handles, page label or "")]."""
    if what == "work":
        raise PlotError(f"{res['path']}: no /convergence group (write one with `stickslip converge --h5`)")
    pages = system_pages(res)
    out = []
    for k, page in enumerate(pages):
        n = len(page["bodies"])
        used = set()
        if what == "all":
            fig = plt.figure(figsize=(14, max(9.5, 1.9 * n + 2.4)))
            gs = fig.add_gridspec(3, 2, hspace=0.4, wspace=0.25, width_ratios=(1.4, 1))
            SYSTEM_PANELS["time"](fig, gs[:, 0], res, sel, evs, used, page)
            for row, kind in enumerate(("forces", "loop", "phase")):
                SYSTEM_PANELS[kind](fig, gs[row, 1], res, sel, evs, used, page)
        else:
            size = (10, max(4.5, 1.9 * n + 2.4)) if what == "time" else SIZES[what]
            fig = plt.figure(figsize=size)
            SYSTEM_PANELS[what](fig, fig.add_gridspec(1, 1)[0], res, sel, evs, used, page)
        handles = [Patch(facecolor=_contact_color(page, name), alpha=SHADE_ALPHA,
                         label=f"stuck: {member_label(res, 'contacts', name)}")
                   for name in page["contacts"] if ("stuck", name) in used]
        for kind, (marker, color) in EVENT_STYLE.items():
            if kind in used:
                handles.append(Line2D([], [], linestyle="none", marker=marker, markerfacecolor="none",
                                      markeredgecolor=color, markeredgewidth=1.4, label=f"event: {kind}"))
        b = page["bodies"]
        label = "" if len(pages) == 1 else \
            f"page {k + 1} of {len(pages)}: bodies {b[0]}" + (f" .. {b[-1]}" if len(b) > 1 else "")
        out.append((fig, handles, label))
    return out


# ---- work-precision (the /convergence group of `stickslip converge --h5`) -----------


def load_convergence(path):
    """The /convergence group as a dict, or None when the file has none."""
    try:
        f = h5py.File(path, "r")
    except OSError:
        return None
    with f:
        if "convergence" not in f:
            return None
        g = f["convergence"]
        try:
            conv = {k: np.asarray(_read(g[k], path), dtype=float) for k in
                    ("step", "max_abs_error_x", "rms_error_x", "wall_seconds", "rhs_evals")}
            conv["x_units"] = _attr_str(g["max_abs_error_x"], "units", "m")
            conv["scheme"] = _attr_str(g, "scheme")
            conv["order"] = float(g.attrs.get("order", float("nan")))
            conv["ref_wall"] = float(g.attrs.get("reference_wall_seconds", float("nan")))
            conv["ref_rhs"] = float(g.attrs.get("reference_rhs_evals", float("nan")))
        except (KeyError, ValueError, TypeError) as exc:
            raise PlotError(f"{path}: damaged /convergence group: {exc}") from None
    if len(conv["step"]) == 0:
        raise PlotError(f"{path}: the /convergence group has no rows")
    return conv


def work_figure(conv, path):
    """Error against step (with the fitted order) and against cost (RHS
    evaluations, wall time), the exact reference's cost marked: the
    work-precision diagram of a fixed-step scheme."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.8))
    h, ex, rx = conv["step"], conv["max_abs_error_x"], conv["rms_error_x"]
    xu = conv["x_units"]
    a1.loglog(h, ex, "o-", label="max |x error|")
    a1.loglog(h, rx, "s--", label="RMS x error")
    if np.isfinite(conv["order"]) and np.all(ex > 0):
        k = len(h) // 2
        a1.loglog(h, ex[k] * (h / h[k]) ** conv["order"], ":", color="gray",
                  label=f"fitted order {conv['order']:.2f}")
    a1.set_xlabel(_label("step", "s"))
    a1.set_ylabel(_label("error", xu))
    a1.set_title(f"{conv['scheme']}: error against step")
    a1.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize="small")
    a2.loglog(conv["rhs_evals"], ex, "o-", label=f"{conv['scheme']}: max |x error|")
    if np.isfinite(conv["ref_rhs"]):
        a2.axvline(conv["ref_rhs"], color="C3", ls="--",
                   label=f"event-driven reference: {conv['ref_rhs']:.0f} RHS evaluations")
    a2.set_xlabel("cost [RHS (force) evaluations]")
    a2.set_ylabel(_label("max |x error|", xu))
    a2.set_title("work-precision")
    a2.grid(True, which="both", alpha=0.3)
    a2.legend(fontsize="small")
    fig.suptitle(f"{os.path.basename(path)}: convergence against the exact reference")
    fig.tight_layout()
    return fig


# ---- study files (`stickslip sweep`) -------------------------------------------


def load_study(path):
    """Read what a parameter map needs from a study file: keys (the varied
    keys, in the study's order), params (key -> array), columns (summary
    column name -> array, `message` left out), units, status, n_done."""
    with h5py.File(path, "r") as f:
        st = f["study"]
        n = int(st.attrs["n_done"])
        keys = list(st["parameters"].keys())  # creation order (tracked by the writer)
        params = {k: np.asarray(st["parameters"][k][:n], dtype=float) for k in keys}
        cols, units = {}, {}
        for name, d in st["summary"].items():
            if name != "message":
                cols[name] = np.asarray(d[:n], dtype=float)
                units[name] = d.attrs.get("units", "")
                units[name] = units[name].decode() if isinstance(units[name], bytes) else units[name]
        # Counts (events_*, steps): integer datasets, drawn with a discrete colour bar.
        integer = {name for name, d in st["summary"].items() if d.dtype.kind in "iu"}
        base = st["base_config"][()] if "base_config" in st else b""
        base = base.decode("utf-8", "replace") if isinstance(base, bytes) else str(base)
        m = re.search(r"^domain:\s*(\w+)", base, re.M)
        domain = m.group(1) if m else "translational"
        key_units = {k: _attr_str(st["parameters"][k], "units", None) for k in keys}
        key_units = {k: (u if u not in (None, "None") else parameter_units(k, domain)) for k, u in key_units.items()}
        return {"keys": keys, "params": params, "columns": cols, "units": units, "integer": integer,
                "key_units": key_units, "domain": domain, "base_config": base,
                "status": np.asarray(st["summary"]["status"][:n]), "n_done": n,
                "n_runs": int(st.attrs["n_runs"]), "complete": int(st.attrs["complete"]) == 1}


# Units of a configuration key by its last name (translational, rotational),
# as docs/configuration.md lists them; "-" for a dimensionless key.  A study
# file names its varied keys, not their units: the plot finds them here.
KEY_UNITS = {
    "mass": ("kg", "kg·m²"), "inertia": ("kg·m²", "kg·m²"),
    "stiffness": ("N/m", "N·m/rad"), "coefficient": ("N·s/m", "N·m·s/rad"), "damping": ("N·s/m", "N·m·s/rad"),
    "free_position": ("m", "rad"), "free_length": ("m", "rad"),
    "dynamic": ("N", "N·m"), "static": ("N", "N·m"), "static_ratio": ("-", "-"),
    "efficiency_opposing": ("-", "-"), "efficiency_aiding": ("-", "-"),
    "stribeck_velocity": ("m/s", "rad/s"), "stribeck_exponent": ("-", "-"),
    "breakaway": ("N", "N·m"), "coulomb": ("N", "N·m"), "breakaway_velocity": ("m/s", "rad/s"),
    "viscous": ("N·s/m", "N·m·s/rad"), "tc": ("N", "N·m"), "tst": ("N", "N·m"), "slope": ("s/m", "s/rad"),
    "d": ("N·s/m", "N·m·s/rad"), "v_st": ("m/s", "rad/s"), "sigma0": ("N/m", "N·m/rad"),
    "sigma1": ("N·s/m", "N·m·s/rad"), "min": ("m", "rad"), "max": ("m", "rad"), "restitution": ("-", "-"),
    "position": ("m", "rad"), "velocity": ("m/s", "rad/s"),
    "frequency": ("Hz", "Hz"), "f0": ("Hz", "Hz"), "f1": ("Hz", "Hz"), "phase": ("rad", "rad"),
    "t_end": ("s", "s"), "rtol": ("-", "-"), "output_step": ("s", "s"), "step": ("s", "s"),
}
# A signal's level (amplitude, offset, value ...) has the unit of its input.
SIGNAL_UNITS = {"active_force": ("N", "N·m"), "load": ("N", "N·m"), "base_motion": ("m", "rad"),
                "anchor_motion": ("m", "rad")}
SIGNAL_TIMES = ("t0", "t1", "start", "start_time", "end_time", "duration", "period", "delay", "time")


def parameter_units(key, domain="translational"):
    """The unit of a varied configuration key ("" when not known)."""
    parts = key.split(".")
    rot = 1 if domain == "rotational" else 0
    if len(parts) >= 3 and parts[0] == "inputs" and parts[1] in SIGNAL_UNITS:
        leaf = parts[-1]
        if leaf in ("frequency", "f0", "f1", "phase"):
            return KEY_UNITS[leaf][rot]
        if leaf in SIGNAL_TIMES:
            return "s"
        level = SIGNAL_UNITS[parts[1]][rot]
        return level + "/s" if leaf in ("slope", "rate") else level
    return KEY_UNITS.get(parts[-1], ("", ""))[rot]


def _key_label(s, key):
    """A varied key with its unit; a key of a system's contact or stop also
    names it, by its `name:` or the ends it joins: `contacts.5.static
    (b06/base) [N]` (keys address contacts and stops by index only)."""
    u = s.get("key_units", {}).get(key, "")
    m = re.match(r"^(contacts|stops)\.(\d+)\.", key)
    if m:
        e = _entry(s.get("base_config", ""), m.group(1), int(m.group(2)))
        who = str(e["name"]) if "name" in e else _joins(e)
        key = f"{key} ({who})" if who else key
    return _label(key, u)


def _column_label(s, z):
    """A summary column with its unit; a count or a ratio (the file gives no
    unit) reads `[-]`, as a dimensionless key does, so that no axis of a map
    is left without one."""
    return _label(z, s["units"].get(z, "") or "-")


# At most this many ticks on a count's colour bar: the 22 integers of a
# narrow range, one tick each, ran into each other at the default size.
COUNT_TICKS = 11


def count_ticks(lo, hi):
    """Integer ticks within [lo, hi] at a round spacing (1, 2, 5, 10, 20,
    ...), at most COUNT_TICKS of them."""
    loc = matplotlib.ticker.MaxNLocator(nbins=COUNT_TICKS - 1, integer=True, steps=[1, 2, 5, 10])
    t = loc.tick_values(lo, hi)
    return t[(t >= lo) & (t <= hi)]


def _color_args(s, z, v):
    """cmap/norm keywords and colour-bar ticks for column z: a count gets one
    colour per integer (boundaries at the half-integers; a wide range takes
    an odd step, bins centred on integers) and round integer ticks
    (count_ticks)."""
    finite = v[np.isfinite(v)]
    if z not in s.get("integer", ()) or finite.size == 0:
        return {"cmap": "viridis"}, None
    lo, hi = int(finite.min()), int(finite.max())
    step = 1 if hi - lo < 24 else 2 * math.ceil((hi - lo + 1) / 48) + 1
    bounds = np.arange(lo - 0.5 * step, hi + step, step)
    if bounds.size < 2:
        bounds = np.array([lo - 0.5, lo + 0.5])
    cmap = plt.get_cmap("viridis", bounds.size - 1)
    return {"cmap": cmap, "norm": matplotlib.colors.BoundaryNorm(bounds, cmap.N)}, count_ticks(lo, hi)


def is_study(path):
    try:
        with h5py.File(path, "r") as f:
            return "study" in f
    except OSError:
        return False


def _study_axes(s, path, x, y, z):
    """The keys to draw against (checked) and the z column name."""
    cols = sorted(c for c in s["columns"] if c != "status")
    if z is None:
        raise PlotError(f"{path}: a study needs --z COLUMN (one of: {', '.join(cols)})")
    if z not in s["columns"]:
        raise PlotError(f"{path}: no summary column '{z}' (one of: {', '.join(cols)})")
    for k in (x, y):
        if k is not None and k not in s["keys"]:
            raise PlotError(f"{path}: '{k}' is not a varied key of the study (varied: {', '.join(s['keys'])})")
    if y is not None and x is None:
        raise PlotError("--y needs --x")
    if x is not None:
        return [x] if y is None else [x, y]
    return list(s["keys"])


def _log_if_wide(ax, which, v):
    """A logarithmic axis for a key spanning two decades or more (a logspace)."""
    v = v[np.isfinite(v)]
    if v.size and v.min() > 0 and v.max() / v.min() >= 100:
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")


def _mark_failed(ax, xs, ys, failed):
    if failed.any():
        ax.plot(xs[failed], ys[failed], "x", color="red", ms=7, mew=1.5, ls="none",
                label=f"failed or invalid ({int(failed.sum())})")
        ax.legend(fontsize="small", loc="best")


def _line(ax, s, key, z):
    x, v, failed = s["params"][key], s["columns"][z], s["status"] != 0
    order = np.argsort(x[~failed], kind="stable")
    ax.plot(x[~failed][order], v[~failed][order], "o-", ms=3, color="C0")
    base = np.nanmin(v[~failed]) if (~failed).any() and np.isfinite(v[~failed]).any() else 0.0
    _mark_failed(ax, x, np.full(x.shape, base), failed)
    ax.set_xlabel(_key_label(s, key))
    ax.set_ylabel(_column_label(s, z))
    _log_if_wide(ax, "x", x)
    ax.grid(True, alpha=0.3)


def _grid(x, y):
    """The (x, y) grid the variants fill, or None when they do not fill one."""
    ux, uy = np.unique(x), np.unique(y)
    if ux.size * uy.size != x.size:
        return None
    pairs = set(zip(x.tolist(), y.tolist()))
    return (ux, uy) if len(pairs) == x.size else None


def _heat(fig, ax, s, kx, ky, z):
    x, y, v, failed = s["params"][kx], s["params"][ky], s["columns"][z].copy(), s["status"] != 0
    v[failed] = np.nan
    g = _grid(x, y)
    if g is not None:  # a full grid: one cell per variant
        ux, uy = g
        img = np.full((uy.size, ux.size), np.nan)
        img[np.searchsorted(uy, y), np.searchsorted(ux, x)] = v
        kw, ticks = _color_args(s, z, img)
        m = ax.pcolormesh(ux, uy, img, shading="nearest", **kw)
    else:  # a sample: one coloured point per variant
        kw, ticks = _color_args(s, z, v[~failed])
        m = ax.scatter(x[~failed], y[~failed], c=v[~failed], s=18, **kw)
    fig.colorbar(m, ax=ax, label=_column_label(s, z), ticks=ticks)
    _mark_failed(ax, x, y, failed)
    ax.set_xlabel(_key_label(s, kx))
    ax.set_ylabel(_key_label(s, ky))
    _log_if_wide(ax, "x", x)
    _log_if_wide(ax, "y", y)


def _matrix(fig, s, keys, z):
    """Key i against key j coloured by z below the diagonal; z against key i on it."""
    n = len(keys)
    axes = fig.subplots(n, n, squeeze=False)
    v, failed = s["columns"][z], s["status"] != 0
    m = None
    kw, ticks = _color_args(s, z, v[~failed])
    for i, ki in enumerate(keys):
        for j, kj in enumerate(keys):
            ax = axes[i][j]
            if i == j:
                _line(ax, s, ki, z)
            elif i > j:
                m = ax.scatter(s["params"][kj][~failed], s["params"][ki][~failed], c=v[~failed],
                               s=8, **kw)
                _mark_failed(ax, s["params"][kj], s["params"][ki], failed)
                ax.set_xlabel(_key_label(s, kj))
                ax.set_ylabel(_key_label(s, ki))
            else:
                ax.axis("off")
    if m is not None:
        fig.colorbar(m, ax=axes, label=_column_label(s, z), ticks=ticks)


def study_figure(s, path, x=None, y=None, z=None):
    """A parameter map of summary column z: a line for one key, a heat map
    for two, a scatter matrix for more; failed variants marked with a red x."""
    keys = _study_axes(s, path, x, y, z)
    if s["n_done"] == 0:
        raise PlotError(f"{path}: no variant has run yet")
    if len(keys) <= 2:
        fig, ax = plt.subplots(figsize=(7, 5))
        (_line(ax, s, keys[0], z) if len(keys) == 1 else _heat(fig, ax, s, keys[0], keys[1], z))
    else:
        fig = plt.figure(figsize=(3.2 * len(keys), 3.0 * len(keys)))
        _matrix(fig, s, keys, z)
    state = "" if s["complete"] else f", INCOMPLETE ({s['n_done']} of {s['n_runs']})"
    fig.suptitle(f"{os.path.basename(path)}: {z}{state}")
    if len(keys) <= 2:
        fig.tight_layout()
    return fig


META = {
    ".png": {"Software": None},
    ".pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    ".svg": {"Creator": None, "Date": None},
}


def save(fig, out, dpi=100):
    """Write the figure; same input gives the same bytes (no timestamps,
    no software version, fixed SVG ids)."""
    ext = os.path.splitext(out)[1].lower()
    with matplotlib.rc_context({"svg.hashsalt": "stickslip"}):
        fig.savefig(out, dpi=dpi, metadata=META[ext])
    plt.close(fig)


def page_paths(out, n):
    """Where n pages go: `out` itself for one page or a PDF (one file, a page
    each); NAME-1.png, NAME-2.png ... (or .svg) for more."""
    if n == 1 or os.path.splitext(out)[1].lower() == ".pdf":
        return [out]
    root, ext = os.path.splitext(out)
    return [f"{root}-{k}{ext}" for k in range(1, n + 1)]


def save_pages(figs, out, dpi=100):
    """Write the pages (see page_paths) and return the files written."""
    paths = page_paths(out, len(figs))
    if len(figs) > 1 and len(paths) == 1:
        from matplotlib.backends.backend_pdf import PdfPages

        with PdfPages(out, metadata=META[".pdf"]) as pdf:
            for fig in figs:
                pdf.savefig(fig)
                plt.close(fig)
        return paths
    for fig, path in zip(figs, paths):
        save(fig, path, dpi)
    return paths


def render(res, what, out, t0=None, t1=None, dpi=100):
    """Draw plot kind `what` of a loaded result into `out` (.png, .pdf, .svg;
    a system of many bodies: its pages, see page_paths); returns the files."""
    if os.path.splitext(out)[1].lower() not in FORMATS:
        raise PlotError(f"{out}: unsupported output format (use {', '.join(FORMATS)})")
    return save_pages(figures(res, what, t0, t1), out, dpi)


def _groups(path):
    with h5py.File(path, "r") as f:
        return set(f.keys())


def default_output(path):
    root, ext = os.path.splitext(path)
    return (root if ext.lower() in (".h5", ".mat") else path) + ".png"


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Plot a stickslip result file: time histories with locked/stop intervals shaded "
        "and events marked, forces with the static limits, friction against velocity, phase portrait.",
        epilog="Exit codes: 0 written (an incomplete result is plotted with INCOMPLETE in the title "
        "and a warning), 2 bad input, 1 the output could not be written.",
    )
    p.add_argument("result", metavar="RESULT.h5",
                   help="result file written by `stickslip run` (.h5 or .mat), a study file of "
                   "`stickslip sweep`, or a file of `stickslip converge --h5`")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="output .png, .pdf or .svg (default: RESULT with .h5 or .mat replaced by .png); "
                   f"a system of more than {BODIES_PER_PAGE} bodies draws a page per group of bodies: "
                   "one page each in a .pdf, FILE-1.png, FILE-2.png ... otherwise (the files "
                   "written are printed)")
    p.add_argument("--what", choices=KINDS, default="all",
                   help="time: x, v; forces: friction, net force, stop reaction; loop: friction-velocity; "
                   "phase: x-v; all: the four as a 2x2 figure (default); work: the work-precision "
                   "diagram of a /convergence group (`stickslip converge --h5`; the default for a "
                   "file that has only that group)")
    p.add_argument("--t0", type=float, metavar="T", help="start of the time window (zoom)")
    p.add_argument("--t1", type=float, metavar="T", help="end of the time window")
    p.add_argument("--dpi", type=int, default=100, metavar="N", help="resolution of PNG output (default 100)")
    p.add_argument("--x", metavar="KEY", help="study file: the varied key along x")
    p.add_argument("--y", metavar="KEY", help="study file: the varied key along y (a heat map)")
    p.add_argument("--z", metavar="COLUMN", help="study file: the summary column to map "
                   "(a line for one varied key, a heat map for two, a scatter matrix for more)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)  # exits 2 on a bad option
    try:
        if IMPORT_ERROR is not None:
            raise PlotError(f"{sys.executable} lacks {IMPORT_ERROR.name or IMPORT_ERROR}: install python3-matplotlib "
                            "and python3-h5py (scripts/setup does)")
        if not 10 <= args.dpi <= 1200:
            raise PlotError(f"--dpi {args.dpi}: out of range (10 .. 1200)")
        out = args.output or default_output(args.result)
        if os.path.splitext(out)[1].lower() not in FORMATS:
            raise PlotError(f"{out}: unsupported output format (use {', '.join(FORMATS)})")
        conv = load_convergence(args.result) if os.path.isfile(args.result) else None
        if os.path.isfile(args.result) and is_study(args.result):
            figs = [study_figure(load_study(args.result), args.result, args.x, args.y, args.z)]
        elif args.what == "work" or (conv is not None and "trajectory" not in _groups(args.result)):
            if conv is None:
                raise PlotError(f"{args.result}: no /convergence group (write one with "
                                "`stickslip converge --h5`)")
            figs = [work_figure(conv, args.result)]
        else:
            res = load_result(args.result)
            if not res["complete"]:
                print(f"{PROG}: warning: {args.result} is incomplete: {res['message']}", file=sys.stderr)
            figs = figures(res, args.what, args.t0, args.t1)
    except PlotError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"{PROG}: error: {args.result}: out of memory reading it", file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback: one line naming the file and the cause
        print(f"{PROG}: error: {args.result}: cannot plot: {type(exc).__name__}: {exc}".splitlines()[0],
              file=sys.stderr)
        return 2
    try:
        written = save_pages(figs, out, args.dpi)
    except OSError as exc:
        print(f"{PROG}: error: {out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # e.g. matplotlib on absurd data: one line, no traceback
        print(f"{PROG}: error: {out}: cannot draw: {type(exc).__name__}: {exc}".splitlines()[0],
              file=sys.stderr)
        return 1
    print("\n".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
