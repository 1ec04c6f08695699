"""Siconos 4.4 (Debian's python3-siconos) event-capturing time stepping of the element.

The element as a first-order linear system z = (x, v),
    z' = A z + b(t) + B lambda,   A = [[0, 1], [-k/m, -c/m]],  b = (0, F_n(t, 0, 0) / m),
with dry friction lambda (a force, B = (0, 1/m)) tied to the velocity y = v by
a relay: lambda in [lb, ub], lambda = lb when v > 0, ub when v < 0 (RelayNSL,
one-step problem Relay), integrated by EulerMoreauOSI (theta = 1/2) on the
fixed step h: Moreau-Jean's scheme for first-order systems, which solves the
friction as an inclusion in every step instead of locating switches.  (The
Lagrangian form, LagrangianLinearTIDS with MoreauJeanOSI and the same relay,
did not reproduce Den Hartog's closed form: it oscillated on past the rest
at pi/2 s; NewtonImpactFrictionNSL is contact friction under a normal
impulse, 2-D or 3-D, not a 1-D friction of a given level.)

Siconos' friction laws are convex: a relay has one pair of bounds, not a
static and a dynamic level.  The step loop therefore sets the bounds before
every step from the previous step's state, as a user of time stepping does:
-F_S(+1), F_S(-1) after a stuck step (v = 0), -F_D(+1), F_D(-1) after a
slipping one, at the step's end time (the load-dependent levels of Dalla
Vedova follow the load that way).  b is the theta-weighted mean of its
values at the step's two ends.  Events are read off the step sequence: the
first step of a new mode (stuck: |v| <= V_STUCK) is the event's time; a
stick that lasts a single step and leaves the other way (the scheme can land
on v = 0 in the step where v changes sign) is read as the reversal it is.
"""
import numpy as np
import siconos.kernel as sk

THETA = 0.5
V_STUCK = 1e-10  # m/s: the relay's solution is exact to ~1e-16 m/s, slip velocities here are >= 1e-6


def _mode(v):
    return 0 if abs(v) <= V_STUCK else (1 if v > 0 else -1)


def run(case, el, h):
    """Events [(kind, t, x)] and the final (x, v) at the last step (t_end)."""
    m, k, c = el.m, el.k, el.c
    t_end = case.t_end
    ds = sk.FirstOrderLinearDS(np.array([case.x0, case.v0]), np.array([[0.0, 1.0], [-k / m, -c / m]]))
    ds.setbPtr(np.array([0.0, el.forcing(0.0) / m]))
    rel = sk.FirstOrderLinearTIR(np.array([[0.0, 1.0]]), np.array([[0.0], [1.0 / m]]))
    nsl = sk.RelayNSL(1, -el.fs(1, 0.0), el.fs(-1, 0.0))
    inter = sk.Interaction(nsl, rel)
    nsds = sk.NonSmoothDynamicalSystem(0.0, t_end)
    nsds.insertDynamicalSystem(ds)
    nsds.link(inter, ds)
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, h), sk.EulerMoreauOSI(THETA), sk.Relay())

    events = []
    t, x, v = 0.0, case.x0, case.v0
    mode = el.initial_mode(case.x0, case.v0)
    last_slip = mode
    f_prev = el.forcing(0.0)
    while sim.hasNextEvent():
        tn = sim.nextTime()
        f_next = el.forcing(tn)
        ds.setbPtr(np.array([0.0, ((1 - THETA) * f_prev + THETA * f_next) / m]))
        lev = el.fs if mode == 0 else el.fd
        nsl.setLb(-lev(1, tn))
        nsl.setUb(lev(-1, tn))
        sim.computeOneStep()
        x, v = ds.x()
        new = _mode(v)
        if new != mode:
            if mode == 0 and events and events[-1][0] == 'stick' and events[-1][1] == t and new != last_slip:
                events[-1] = ('reversal', t, events[-1][2])  # stuck for one step only
            elif new == 0:
                events.append(('stick', tn, x))
            elif mode == 0:
                events.append(('breakaway', tn, x))
            else:
                events.append(('reversal', tn, x))
            last_slip = mode if mode else last_slip
            mode = new
        f_prev, t = f_next, tn
        sim.nextStep()
    return events, (float(x), float(v))
