#!/usr/bin/python3
"""D9 of issue 14: the two-mass servo (examples/servo_two_mass.yaml) in
Siconos' Moreau-Jean time stepping against stickslip's event-driven result.

Not a test, a measurement: for a falling sequence of fixed steps h it runs
Siconos and prints one row per h: the largest |x_motor - x_stickslip| and
|x_load - x_stickslip| over a common output grid, the largest stick and
slip-onset (breakaway) time errors over all contacts, and the wall time.
stickslip runs the same YAML once at rtol 1e-10 (`stickslip run`, its HDF5
read with h5py: /trajectory/x is samples x bodies with a `names` attribute,
/events has `t`, `kind` and the contact's `index`; docs/hdf5-layout.md).

    /usr/bin/python3 benchmarks/siconos_servo.py [--exe build/release/stickslip]
        [--config examples/servo_two_mass.yaml] [--steps 1e-3,1e-4]
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
V_STUCK = 1e-9  # rad/s: a stuck step's w is exact to ~1e-15; a slipping step ends with |w| ~ |a| h >> 1e-9
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
        self.rotational = doc.get("domain") == "rotational"

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


def scipy_reference(sv, grid, rtol=1e-12):
    """An independent event-driven solution (SciPy's solve_ivp, DOP853, one
    segment per mode, switches at terminal events located to ~4 eps by
    SciPy's root finder), to cross-check stickslip's result, or to stand in
    for it (--against scipy).  Contacts to a fixed end only (each pins its
    body while stuck, so the stick tests do not couple): the servo's case.
    Positions on `grid`, events {contact: [(kind, t)]}."""
    from scipy.integrate import solve_ivp
    n = len(sv.mass)
    owner = []
    for c, (hrow, _, _) in enumerate(sv.contacts):
        if np.count_nonzero(hrow) != 1 or hrow.max() != 1.0:
            raise ValueError("the SciPy loop models contacts to a fixed end only")
        owner.append(int(np.argmax(hrow)))

    def force(t, x, v):  # every force on the bodies but friction
        return sv.torque(t) - sv.K @ x - sv.C @ v

    x, v, t = sv.q0.copy(), sv.v0.copy(), 0.0
    modes = [int(np.sign(v[b])) for b in owner]
    for c, b in enumerate(owner):  # at rest: stuck unless the force exceeds the static level
        f = force(0.0, x, v)[b]
        if modes[c] == 0 and abs(f) > sv.contacts[c][2]:
            modes[c] = int(np.sign(f))
    events = {c: [] for c in range(len(owner))}
    out = np.empty((len(grid), n))
    done = 0
    while t < sv.t_end:
        m = list(modes)
        pinned = [owner[c] for c in range(len(m)) if m[c] == 0]

        def rhs(tt, y, m=m, pinned=pinned):
            xx, vv = y[:n], y[n:]
            a = force(tt, xx, vv)
            for c, b in enumerate(owner):
                a[b] -= m[c] * sv.contacts[c][1]
            a /= sv.mass
            a[pinned] = 0.0
            return np.concatenate([vv, a])

        evs = []
        for c, b in enumerate(owner):
            if m[c]:
                e = (lambda tt, y, b=b: y[n + b])
                e.direction = -m[c]
                evs.append(e)
            else:
                for s in (1, -1):
                    e = (lambda tt, y, b=b, s=s, fs=sv.contacts[c][2]: s * force(tt, y[:n], y[n:])[b] - fs)
                    e.direction = 1
                    evs.append(e)
        for e in evs:
            e.terminal = True
        sol = solve_ivp(rhs, (t, sv.t_end), np.concatenate([x, v]), method="DOP853", rtol=rtol,
                        atol=rtol * 1e-3, events=evs, dense_output=True,
                        max_step=0.05 * min(1.0 / s["frequency"] for s in sv.forces.values() if "frequency" in s)
                        if any("frequency" in s for s in sv.forces.values()) else np.inf)
        t_new = sol.t[-1]
        while done < len(grid) and grid[done] <= t_new:
            out[done] = sol.sol(grid[done])[:n]
            done += 1
        x, v, t = sol.y[:n, -1].copy(), sol.y[n:, -1].copy(), t_new
        if sol.status != 1:
            break
        i = next(j for j, te in enumerate(sol.t_events) if len(te))
        # which contact fired, and how
        k = 0
        for c in range(len(m)):
            span = 1 if m[c] else 2
            if k <= i < k + span:
                b = owner[c]
                if m[c]:  # slip velocity reached 0: stick test
                    v[b] = 0.0
                    f = force(t, x, v)[b]
                    if abs(f) <= sv.contacts[c][2]:
                        modes[c] = 0
                        events[c].append(("stick", t))
                    else:
                        modes[c] = int(np.sign(f))
                        events[c].append(("reversal", t))
                else:
                    modes[c] = 1 if i == k else -1
                    events[c].append(("breakaway", t))
            k += span
    if done < len(grid):
        out[done:] = np.concatenate([x])
    return out, events


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


BEGIN = "<!-- siconos_servo:begin (written by benchmarks/siconos_servo.py --write) -->"
END = "<!-- siconos_servo:end -->"
DOC = os.path.join(ROOT, "docs", "benchmarks.md")
KEEP = "<!-- sections below are not generated: benchmarks/peers/run keeps them -->"
HEADING = "## Two-mass servo: Siconos time stepping against stickslip"


def write_doc(lines):
    """Replace the block between BEGIN and END in docs/benchmarks.md, or
    append it below KEEP, the line below which benchmarks/peers/run keeps
    what the file holds when it regenerates the file."""
    with open(DOC) as f:
        text = f.read()
    block = BEGIN + "\n" + "\n".join(lines) + "\n" + END
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        if KEEP not in text:
            text = text.rstrip("\n") + "\n\n" + KEEP + "\n"
        text = text.rstrip("\n") + "\n\n" + HEADING + "\n\n" + block + "\n"
    with open(DOC, "w") as f:
        f.write(text)


def max_event_diff(a, b):
    """Largest |t_a - t_b| over all events, matched in sequence per contact;
    None when the kind sequences differ."""
    worst = 0.0
    for c in set(a) | set(b):
        ea, eb = a.get(c, []), b.get(c, [])
        if [k for k, _ in ea] != [k for k, _ in eb]:
            return None
        worst = max([worst] + [abs(ta - tb) for (_, ta), (_, tb) in zip(ea, eb)])
    return worst


def say_cross_check(say, sv, x_ref, ev_ref, x_sp, ev_sp, wall):
    """One line: how far stickslip's result is from the SciPy loop's."""
    unit = "rad" if sv.rotational else "m"
    dt = max_event_diff(ev_ref, ev_sp)
    dx = np.max(np.abs(x_ref - x_sp), axis=0)
    n_sp = sum(len(e) for e in ev_sp.values())
    say(f"Cross-check, an independent SciPy event loop (DOP853, rtol 1e-12, {n_sp} events, {wall:.2f} s): "
        + ("event sequence differs" if dt is None else f"same events, largest time difference {dt:.1e} s")
        + ", positions within " + ", ".join(f"{e:.1e} {unit} ({b})" for e, b in zip(dx, sv.names)) + ".")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default=os.path.join(ROOT, "examples", "servo_two_mass.yaml"))
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "release", "stickslip"))
    ap.add_argument("--steps", default="1e-3,5e-4,2e-4,1e-4,5e-5,2e-5,1e-5",
                    help="Siconos steps, s, comma-separated; each must divide --grid")
    ap.add_argument("--grid", type=float, default=1e-3, help="common output grid, s")
    ap.add_argument("--result", help="an existing stickslip result (HDF5) of the same YAML on --grid")
    ap.add_argument("--against", choices=("stickslip", "scipy"), default="stickslip",
                    help="the reference: stickslip's result (and the SciPy loop as a cross-check of it), "
                    "or the SciPy loop alone")
    ap.add_argument("--write", action="store_true", help="also put the table into docs/benchmarks.md")
    ap.add_argument("--exe-label", help="where the stickslip binary comes from, for the record "
                    "(default: its path relative to the repository)")
    a = ap.parse_args()

    sv = Servo(a.config)
    n = int(round(sv.t_end / a.grid))
    grid = np.arange(n + 1) * a.grid
    steps = [float(s) for s in a.steps.split(",")]
    for h in steps:
        r = a.grid / h
        if abs(r - round(r)) > 1e-9 * r:
            sys.exit(f"--steps: {h} does not divide the grid {a.grid}")
    unit = "rad" if sv.rotational else "m"
    cfg = os.path.relpath(a.config, ROOT)
    lines = []

    def say(line=""):
        print(line, flush=True)
        lines.append(line)

    deb = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-siconos"], capture_output=True,
                         text=True).stdout.strip() or "?"
    head_rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    say(f"Measured by `/usr/bin/python3 benchmarks/siconos_servo.py{' --against scipy' if a.against == 'scipy' else ''}` "
        f"on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} (commit {head_rev}; Debian python3-siconos "
        f"{deb}, a shared 2-core machine, load {os.getloadavg()[0]:.1f}: "
        "wall times are noisy). The two-mass servo of `examples/servo_two_mass.yaml` as one "
        "LagrangianLinearTIDS, each Coulomb contact a RelayNSL on its slip velocity with bounds "
        "friction x h, MoreauJeanOSI (theta 1/2), static and dynamic levels set per step from the "
        "previous step's mode (the script's docstring says why and how).")
    say()
    t0 = time.perf_counter()
    try:
        x_sp, ev_sp = scipy_reference(sv, grid)
    except ValueError as e:
        if a.against == "scipy":
            sys.exit(f"{cfg}: --against scipy: {e}")
        x_sp = None
    w_sp = time.perf_counter() - t0
    if a.against == "scipy":
        n_sp = sum(len(e) for e in ev_sp.values())
        x_ref, ev_ref = x_sp, ev_sp
        say(f"Reference: the SciPy event loop of `benchmarks/siconos_servo.py` (DOP853, rtol 1e-12) on `{cfg}`: "
            f"{n_sp} stick/breakaway/reversal events, {w_sp:.2f} s wall.")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            if a.result:
                path, wall = a.result, float("nan")
            else:
                path, wall = stickslip_result(a.exe, a.config, a.grid, tmp)
            x_ref, ev_ref = read_result(path, sv.names, grid)
        n_ev = sum(len(e) for e in ev_ref.values())
        label = a.exe_label or ("`" + os.path.relpath(a.exe, ROOT) + "`")
        say(f"Reference: stickslip ({label}) on `{cfg}` at rtol 1e-10 (`stickslip run`, one process): "
            f"{n_ev} stick/breakaway/reversal events, {wall:.3f} s wall.")
        if x_sp is None:
            say("No cross-check: the SciPy loop models contacts to a fixed end only.")
        else:
            say_cross_check(say, sv, x_ref, ev_ref, x_sp, ev_sp, w_sp)
    say()
    say(f"Siconos Moreau-Jean at step h against it (positions on the {a.grid:g} s grid; event times per "
        "contact matched in sequence, in brackets the counts Siconos vs reference when they differ):")
    say()
    head = ["h [s]"] + [f"max abs x_{b} error [{unit}]" for b in sv.names] + \
        ["stick onset error [s]", "slip onset error [s]", "Siconos wall [s]"]
    say("| " + " | ".join(head) + " |")
    say("|" + "---|" * len(head))
    fit = []  # (h, position errors) of the steps whose event counts match
    for h in steps:
        x, ev, w = siconos_run(sv, h, grid)
        err = np.max(np.abs(x - x_ref), axis=0)
        st, br = onset_errors(ev, ev_ref, "stick"), onset_errors(ev, ev_ref, "breakaway")
        if st[1] == st[2] and br[1] == br[2]:
            fit.append((h, err))
        cells = [f"{h:g}"] + [f"{e:.3e}" for e in err] + [_cell(st), _cell(br), f"{w:.2f}"]
        say("| " + " | ".join(cells) + " |")
    if len(fit) >= 2:
        lh = np.log([h for h, _ in fit])
        orders = [np.polyfit(lh, np.log([e[j] for _, e in fit]), 1)[0] for j in range(len(sv.names))]
        say()
        say(f"Observed order in h of the position errors (least-squares slope over the {len(fit)} steps with "
            "the reference's event counts): " + ", ".join(f"{o:.2f} ({b})" for o, b in zip(orders, sv.names))
            + "; Moreau-Jean is of order one.")
    if a.write:
        write_doc(lines)


if __name__ == "__main__":
    main()
