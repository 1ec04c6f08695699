#!/usr/bin/python3
"""D9 of issue 14: the two-mass servo (examples/systems/servo_two_mass.yaml) in
Siconos' Moreau-Jean time stepping against stickslip's event-driven result.

Not a test, a measurement: for a falling sequence of fixed steps h it runs
Siconos and prints one row per h: the largest |x_motor - x_stickslip| and
|x_load - x_stickslip| over a common output grid, the largest stick and
slip-onset (breakaway) time errors over all contacts, and the wall time.
stickslip runs the same YAML once at rtol 1e-10 (`stickslip run`, its HDF5
read with h5py: /trajectory/x is samples x bodies with a `names` attribute,
/events has `t`, `kind` and the contact's `index`; docs/hdf5-layout.md).

    /usr/bin/python3 benchmarks/siconos_servo.py [--exe build/release/stickslip]
        [--config examples/systems/servo_two_mass.yaml] [--steps 1e-3,1e-4]
        [--result FILE.h5]   # compare against an existing result instead

The Siconos model (parameters read from the YAML, so both integrate the same
doubles): one LagrangianLinearTIDS, M q'' + C q' + K q = f(t) + sum_c H_c^T r_c,
with q the bodies' absolute angles, K and C from the couplings (to another
body, or to ground), f the bodies' input torques.  Each Coulomb contact c is a
RelayNSL on its slip velocity w_c = H_c q' (H_c = e_A - e_B; B ground: e_A):
at velocity level Moreau-Jean's unknown is the impulse over the step, so the
relay's bounds are the friction levels times h.  MoreauJeanOSI(theta = 1/2),
one Relay one-step problem for all contacts together (Siconos' default
solver, Cao-Ferris' pivoting AVI: exact, not iterative).

Two details make this work; both are documented here because
benchmarks/peers once concluded that the Lagrangian form fails:
- MoreauJeanOSI puts an interaction in the velocity-level problem only while
  its position-level output y = H q + e is predicted <= 0 (a unilateral
  contact's gap).  A relay on friction has no gap; with e = 0 it acts only
  where H q <= 0, a friction force that depends on the sign of the position.
  A constant offset e = -1e6 (far below any position here) keeps every
  contact active; the velocity output H q' does not see e.
- Siconos' relay has one pair of bounds, not a static and a dynamic level.
  As in benchmarks/peers/siconos_ts.py, the bounds are set before each step
  from the previous step: +-F_S h after a stuck step (|w| <= V_STUCK),
  +-F_D h after a slipping one.

Events are read off the step sequence per contact: the first step in a new
mode is the event's time (stick, breakaway, reversal; a stick lasting one
step and leaving the other way is the reversal it is).  The scheme is of
order one in h: positions and event times err by O(h).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THETA = 0.5
OFFSET = -1e6   # rad: keeps every relay in MoreauJeanOSI's active set (see above)
V_STUCK = 1e-9  # rad/s: the relay's w is exact to ~1e-15 rad/s, slip velocities here are >= 1e-5
FIXED = ("ground", "base")


class Servo:
    """The system of a YAML: matrices, contacts, input torques (sine or
    constant signals; what the servo and clutch examples use)."""

    def __init__(self, path):
        with open(path) as f:
            doc = yaml.safe_load(f)
        if "bodies" not in doc:
            sys.exit(f"{path}: not a system (no `bodies`)")
        if doc.get("stops") or doc.get("inputs", {}).get("base_motion") or doc.get("inputs", {}).get("anchor_motion"):
            sys.exit(f"{path}: stops and base/anchor motion are not modelled here")
        self.names = list(doc["bodies"])
        n = len(self.names)
        idx = {b: i for i, b in enumerate(self.names)}
        body = doc["bodies"]
        self.mass = np.array([body[b].get("inertia", body[b].get("mass")) for b in self.names], float)
        self.q0 = np.array([body[b].get("position", 0.0) for b in self.names], float)
        self.v0 = np.array([body[b].get("velocity", 0.0) for b in self.names], float)
        self.K, self.C = np.zeros((n, n)), np.zeros((n, n))
        self.f_free = np.zeros(n)  # K times the free lengths
        for cp in doc.get("couplings", []):
            a, b = cp["between"]
            h = np.zeros(n)
            h[idx[a]] = 1.0
            if b not in FIXED:
                h[idx[b]] = -1.0
            k, c = cp.get("stiffness", 0.0), cp.get("damping", 0.0)
            self.K += k * np.outer(h, h)
            self.C += c * np.outer(h, h)
            self.f_free += k * cp.get("free_length", 0.0) * h
        self.contacts = []  # (H row, F_D, F_S)
        for i, ct in enumerate(doc.get("contacts", [])):
            if ct.get("law", "coulomb") != "coulomb":
                sys.exit(f"{path}: contacts.{i}: only coulomb contacts are modelled here")
            a, b = (ct["body"], "base") if "body" in ct else ct["between"]
            h = np.zeros(n)
            h[idx[a]] = 1.0
            if b not in FIXED:
                h[idx[b]] = -1.0
            fd = ct["dynamic"]
            fs = ct.get("static", fd * ct.get("static_ratio", 1.0))
            self.contacts.append((h, fd, fs))
        self.forces = {idx[b]: sig for b, sig in doc.get("inputs", {}).get("forces", {}).items()}
        for b, sig in self.forces.items():
            if sig["type"] not in ("sine", "constant"):
                sys.exit(f"{path}: inputs.forces.{self.names[b]}: only sine and constant signals are modelled here")
        self.t_end = doc["simulation"]["t_end"]

    def torque(self, t):
        f = self.f_free.copy()
        for b, s in self.forces.items():
            if s["type"] == "constant":
                f[b] += s["value"]
            else:
                f[b] += s.get("offset", 0.0) + s["amplitude"] * np.sin(2 * np.pi * s["frequency"] * t + s.get("phase", 0.0))
        return f


def _mode(w):
    return 0 if abs(w) <= V_STUCK else (1 if w > 0 else -1)


def siconos_run(sv, h, grid):
    """Moreau-Jean at step h: positions at the times of `grid` (multiples of h),
    events {contact: [(kind, t)]}, wall time."""
    import siconos.kernel as sk
    t0 = time.perf_counter()
    ds = sk.LagrangianLinearTIDS(sv.q0, sv.v0, np.diag(sv.mass))
    ds.setKPtr(sv.K)
    ds.setCPtr(sv.C)
    nsds = sk.NonSmoothDynamicalSystem(0.0, sv.t_end)
    nsds.insertDynamicalSystem(ds)
    nsls = []
    for hrow, fd, fs in sv.contacts:
        nsl = sk.RelayNSL(1, -fs * h, fs * h)
        rel = sk.LagrangianLinearTIR(hrow.reshape(1, -1), np.array([OFFSET]))
        inter = sk.Interaction(nsl, rel)
        nsds.link(inter, ds)
        nsls.append(nsl)
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, h), sk.MoreauJeanOSI(THETA), sk.Relay())

    n_grid = len(grid)
    stride = int(round((grid[1] - grid[0]) / h)) if n_grid > 1 else 1
    x = np.empty((n_grid, len(sv.mass)))
    x[0] = sv.q0
    modes = [_mode(hrow @ sv.v0) for hrow, _, _ in sv.contacts]
    last_slip = list(modes)
    events = {c: [] for c in range(len(sv.contacts))}
    f_prev, step, t = sv.torque(0.0), 0, 0.0
    while sim.hasNextEvent():
        tn = sim.nextTime()
        f_next = sv.torque(tn)
        ds.setFExtPtr((1 - THETA) * f_prev + THETA * f_next)
        for c, (hrow, fd, fs) in enumerate(sv.contacts):
            lev = fs if modes[c] == 0 else fd
            nsls[c].setLb(-lev * h)
            nsls[c].setUb(lev * h)
        sim.computeOneStep()
        step += 1
        v = np.array(ds.velocity())
        for c, (hrow, _, _) in enumerate(sv.contacts):
            new = _mode(hrow @ v)
            if new != modes[c]:
                ev = events[c]
                if modes[c] == 0 and ev and ev[-1] == ("stick", t) and new != last_slip[c]:
                    ev[-1] = ("reversal", t)  # stuck for one step only
                elif new == 0:
                    ev.append(("stick", tn))
                elif modes[c] == 0:
                    ev.append(("breakaway", tn))
                else:
                    ev.append(("reversal", tn))
                last_slip[c] = modes[c] if modes[c] else last_slip[c]
                modes[c] = new
        if step % stride == 0 and step // stride < n_grid:
            x[step // stride] = ds.q()
        f_prev, t = f_next, tn
        sim.nextStep()
    return x, events, time.perf_counter() - t0


def _names(attr):
    """A `names` attribute: an array of strings, or one comma-separated string."""
    if isinstance(attr, (bytes, str)):
        attr = (attr.decode() if isinstance(attr, bytes) else attr).split(",")
    return [(a.decode() if isinstance(a, bytes) else str(a)).strip() for a in attr]


def read_result(path, bodies, grid):
    """stickslip's HDF5 (mb-interfaces section 3): positions of `bodies` on
    `grid` (the output samples at those times; an event instant's two rows
    are skipped since they are off the grid) and events {contact: [(kind, t)]}."""
    with h5py.File(path, "r") as f:
        if not f.attrs.get("complete", 1):
            sys.exit(f"{path}: incomplete run: {f.attrs.get('message')}")
        t = f["trajectory/t"][()]
        xd = f["trajectory/x"]
        names = _names(xd.attrs["names"])
        x = xd[()]
        ev = f["events"][()] if "events" in f else []
    cols = [names.index(b) for b in bodies]
    dt = grid[1] - grid[0]
    k = np.rint(t / dt)
    on = np.abs(t - k * dt) <= 1e-9 * dt
    pick = {}
    for i in np.nonzero(on)[0]:
        pick.setdefault(int(k[i]), i)  # first row of a grid time
    missing = [j for j in range(len(grid)) if j not in pick]
    if missing:
        sys.exit(f"{path}: no sample at t = {grid[missing[0]]} (run it with output_step {dt})")
    xs = x[[pick[j] for j in range(len(grid))]][:, cols]
    events = {}
    for row in ev:
        kind = row["kind"].decode().rstrip("\0") if isinstance(row["kind"], bytes) else str(row["kind"])
        if kind in ("stick", "breakaway", "reversal"):
            events.setdefault(int(row["index"]), []).append((kind, float(row["t"])))
    return xs, events


def onset_errors(ours, ref, kind):
    """Largest |t_siconos - t_stickslip| over the events of one kind, matched
    in sequence per contact, and the two counts.  When a contact's counts
    differ, each of stickslip's events is matched to the nearest of Siconos'
    of its kind and contact instead (as benchmarks/peers does)."""
    worst, n_ours, n_ref = 0.0, 0, 0
    for c in set(ours) | set(ref):
        a = [t for k, t in ours.get(c, []) if k == kind]
        b = [t for k, t in ref.get(c, []) if k == kind]
        n_ours, n_ref = n_ours + len(a), n_ref + len(b)
        if len(a) == len(b):
            pairs = zip(a, b)
        elif a:
            pairs = [(min(a, key=lambda ta: abs(ta - tb)), tb) for tb in b]
        else:
            pairs, worst = [], float("inf")
        for ta, tb in pairs:
            worst = max(worst, abs(ta - tb))
    return worst, n_ours, n_ref


def _cell(err):
    worst, n_ours, n_ref = err
    return f"{worst:.2e}" + ("" if n_ours == n_ref else f" ({n_ours} vs {n_ref})")


def stickslip_result(exe, cfg, dt, tmp):
    out = os.path.join(tmp, "servo.h5")
    argv = [exe, "run", cfg, "-o", out, "--quiet", "--set", "simulation.rtol=1e-10",
            "--set", f"simulation.output_step={dt!r}"]
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode:
        sys.exit(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.strip()}")
    return out, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default=os.path.join(ROOT, "examples", "systems", "servo_two_mass.yaml"))
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "release", "stickslip"))
    ap.add_argument("--steps", default="1e-3,5e-4,2e-4,1e-4,5e-5,2e-5,1e-5",
                    help="Siconos steps, s, comma-separated; each must divide --grid")
    ap.add_argument("--grid", type=float, default=1e-3, help="common output grid, s")
    ap.add_argument("--result", help="an existing stickslip result (HDF5) of the same YAML on --grid")
    a = ap.parse_args()

    sv = Servo(a.config)
    n = int(round(sv.t_end / a.grid))
    grid = np.arange(n + 1) * a.grid
    steps = [float(s) for s in a.steps.split(",")]
    for h in steps:
        r = a.grid / h
        if abs(r - round(r)) > 1e-9 * r:
            sys.exit(f"--steps: {h} does not divide the grid {a.grid}")

    with tempfile.TemporaryDirectory() as tmp:
        if a.result:
            path, wall = a.result, float("nan")
        else:
            path, wall = stickslip_result(a.exe, a.config, a.grid, tmp)
        x_ref, ev_ref = read_result(path, sv.names, grid)
    n_ev = sum(len(e) for e in ev_ref.values())
    print(f"{os.path.relpath(a.config, ROOT)}: stickslip at rtol 1e-10: {n_ev} stick/breakaway/reversal events, "
          f"{wall:.3f} s wall (process)")
    print(f"errors against it over the {a.grid:g} s grid and the events of every contact:\n")
    head = ["h [s]"] + [f"max abs x_{b} error [rad]" for b in sv.names] + \
        ["stick onset error [s]", "slip onset error [s]", "Siconos wall [s]"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for h in steps:
        x, ev, w = siconos_run(sv, h, grid)
        err = np.max(np.abs(x - x_ref), axis=0)
        cells = [f"{h:g}"] + [f"{e:.3e}" for e in err] + \
            [_cell(onset_errors(ev, ev_ref, "stick")), _cell(onset_errors(ev, ev_ref, "breakaway")), f"{w:.2f}"]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
