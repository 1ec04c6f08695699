"""A small result file of a system of bodies, written with h5py in the layout
of dev/multibody-plan.md / mb-interfaces section 3 (the writer of the
engine's runs is io/result/h5_sink.c), for the tests of the tools that read
systems (test_plot_system.py).  Every number in it is known here, so the
tests can assert what `info`, `plot` and `compare` report.

The system: bodies motor and load, contacts "contacts.0" (motor against the
ground) and "clutch" (motor against load), one stop "backlash".  Sampled
every 0.01 s on [0, 1]; each event instant appears twice (before, after).

  contact 0:  stuck on [0, 0.2) and [0.5, 0.7), slipping + elsewhere
  clutch:     stuck on [0.3, 0.6), slipping - elsewhere
  backlash:   in contact HIGH on [0.4, 0.45), OPEN elsewhere
  events:     0.2 breakaway contacts.0, 0.3 stick clutch, 0.4 impact backlash,
              0.4 stop_contact backlash, 0.45 stop_release backlash,
              0.5 stick contacts.0, 0.6 breakaway clutch, 0.7 breakaway contacts.0
"""
import h5py
import numpy as np

BODIES = ["motor", "load"]
CONTACTS = ["contacts.0", "clutch"]
STOPS = ["backlash"]
CONTACT_MODES = ["STUCK", "SLIP_POS", "SLIP_NEG", "SMOOTH"]
STOP_MODES = ["OPEN", "LOW", "HIGH"]
KINDS = ["stick", "breakaway", "reversal", "impact", "stop_contact", "stop_release", "load_reversal",
         "input_step", "contact_begin", "contact_end", "ambiguous"]
# (t, kind, subject index into CONTACTS + STOPS)
EVENTS = [(0.2, "breakaway", 0), (0.3, "stick", 1), (0.4, "impact", 2), (0.4, "stop_contact", 2),
          (0.45, "stop_release", 2), (0.5, "stick", 0), (0.6, "breakaway", 1), (0.7, "breakaway", 0)]
STUCK = {0: [(0.0, 0.2), (0.5, 0.7)], 1: [(0.3, 0.6)]}
STOP_HIGH = [(0.4, 0.45)]
CONFIG = """# stickslip effective configuration
domain: translational
bodies:
  motor: {mass: 1.0}
  load: {mass: 2.0}
contacts:
  - {body: motor, law: coulomb, dynamic: 1.0}
  - {between: [motor, load], law: coulomb, dynamic: 0.5}
stops:
  - {between: [motor, load], min: -0.01, max: 0.01, model: rigid, restitution: 0.0}
simulation: {t_end: 1.0, output_step: 0.01}
"""


def _inside(t, spans, after):
    """1 where t lies in one of the half-open spans [a, b); at an event
    instant the row before (after = False) still has the old state; the
    first sample (t = 0, no event) starts inside a span from 0."""
    m = np.zeros(len(t), bool)
    for a, b in spans:
        m |= ((t > a) | ((t == a) & (after | (a == 0.0)))) & ((t < b) | ((t == b) & ~after))
    return m


def rows():
    """Sample times and, per row, whether it is the 'after' row of an event."""
    grid = np.round(np.arange(0, 101) * 0.01, 12)
    ev = sorted({e[0] for e in EVENTS})
    t, after = [], []
    for x in grid:
        if any(abs(x - e) < 1e-12 for e in ev):
            t += [x, x]
            after += [False, True]
        else:
            t.append(x)
            after.append(False)
    return np.array(t), np.array(after)


def data():
    """The trajectory's arrays."""
    t, after = rows()
    x = np.stack([np.sin(2 * np.pi * t), 0.5 * t ** 2], axis=1)
    v = np.stack([2 * np.pi * np.cos(2 * np.pi * t), t], axis=1)
    a = np.stack([-(2 * np.pi) ** 2 * np.sin(2 * np.pi * t), np.ones_like(t)], axis=1)
    cm = np.empty((len(t), 2), np.int8)
    cm[:, 0] = np.where(_inside(t, STUCK[0], after), 0, 1)
    cm[:, 1] = np.where(_inside(t, STUCK[1], after), 0, 2)
    fr = np.stack([np.where(cm[:, 0] == 0, 0.8 * np.cos(7 * t), 1.0),
                   np.where(cm[:, 1] == 0, 0.3 * t, -0.5)], axis=1)
    fr[np.argmin(np.abs(t - 0.55)), 0] = -1.5  # the largest |friction| of contact 0: 1.5
    sm = np.where(_inside(t, STOP_HIGH, after), 2, 0).astype(np.int8)[:, None]
    sr = np.where(sm[:, 0] == 2, 3.0, 0.0)[:, None]
    return {"t": t, "x": x, "v": v, "a": a, "friction": fr, "slip_velocity": np.stack([v[:, 0], v[:, 0] - v[:, 1]], axis=1),
            "contact_mode": cm, "stop_reaction": sr, "stop_mode": sm, "x_base": 0 * t, "v_base": 0 * t}


def write(path, complete=True, subject="subject"):
    """Write the system result to `path` (complete = False: marked
    incomplete, with a message; subject = "name": the events' member as
    earlier versions named it)."""
    bodies, contacts, events = BODIES, CONTACTS, EVENTS
    d = data()
    subjects = contacts + STOPS
    groups = {  # name: (units, long_name, members, value names)
        "x": ("m", "position", bodies, None),
        "v": ("m/s", "velocity", bodies, None),
        "a": ("m/s^2", "acceleration", bodies, None),
        "friction": ("N", "friction force", contacts, None),
        "slip_velocity": ("m/s", "slip velocity", contacts, None),
        "contact_mode": ("", "contact mode", contacts, CONTACT_MODES),
        "stop_reaction": ("N", "stop reaction", STOPS, None),
        "stop_mode": ("", "stop mode", STOPS, STOP_MODES),
    }
    with h5py.File(path, "w", track_order=True) as f:
        f.attrs["program"] = "stickslip"
        f.attrs["version"] = "0.1.0"
        f.attrs["created_utc"] = "2026-11-23T07:00:00Z"
        f.attrs["complete"] = np.int32(1 if complete else 0)
        f.attrs["message"] = "" if complete else "stopped by a test"
        f["config"] = CONFIG
        tr = f.create_group("trajectory", track_order=True)
        tr["t"] = d["t"]
        tr["t"].attrs.update({"units": "s", "long_name": "time"})
        for name, (units, long_name, members, values) in groups.items():
            ds = tr.create_dataset(name, data=d[name])
            ds.attrs["units"] = units
            ds.attrs["long_name"] = long_name
            ds.attrs["names"] = np.array(members, dtype=h5py.string_dtype())
            if values:
                ds.attrs["mode_names"] = ", ".join(f"{i} {n}" for i, n in enumerate(values))
        for name in ("x_base", "v_base"):
            tr[name] = d[name]
            tr[name].attrs.update({"units": "m" if name == "x_base" else "m/s", "long_name": name})
        dt = np.dtype([("t", "<f8"), ("kind", "S16"), ("mode_before", "i1"), ("mode_after", "i1"),
                       ("x", "<f8"), ("v_before", "<f8"), ("v_after", "<f8"), ("net_force", "<f8"),
                       ("friction", "<f8"), ("index", "<i4"), (subject, h5py.string_dtype())])
        ev = np.zeros(len(events), dt)
        for i, (t, kind, subj) in enumerate(events):
            ev[i] = (t, kind.encode(), 0, 0, np.nan, np.nan, np.nan, np.nan, np.nan, subj,
                     subjects[subj] if subj >= 0 else "")
        e = f.create_dataset("events", data=ev, maxshape=(None,))
        e.attrs["kind_names"] = ",".join(KINDS)
        e.attrs["subject_names"] = np.array(subjects, dtype=h5py.string_dtype())
        e.attrs["units"] = "t [s]"
        st = f.create_group("stats")
        for k, v in {"steps": 100, "rhs_evals": 300, "guard_evals": 200, "events": len(events),
                     "segments": len(events) + 1}.items():
            st.attrs[k] = np.int64(v)
        st.attrs["jac_evals"] = np.int64(0)
        st.attrs["wall_seconds"] = 0.01
    return path
