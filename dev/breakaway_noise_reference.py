#!/usr/bin/python3
"""Independent reference for a breakaway from a moving base with zero relative
acceleration, integrated in absolute positions (diagnosis, not a test).

Body a on a sine base (contact a-base), springs a-ground and a-b, a sine force
on b; the coupling a-b makes the engine integrate absolute positions.  As YAML
(add `simulation: {t_end: 3}`), the Stribeck case:

  bodies: {a: {mass: 1.33}, b: {mass: 0.82}}
  couplings: [{between: [a, ground], stiffness: 97.4}, {between: [a, b], stiffness: 74.0}]
  contacts: [{between: [a, base], law: stribeck, dynamic: 1.23, static_ratio: 1.15,
              stribeck_velocity: 0.025}]
  inputs: {base_motion: {type: sine, amplitude: 0.129, frequency: 0.81},
           forces: {b: {type: sine, amplitude: 2.65, frequency: 0.97}}}

and the Coulomb case with static = dynamic (`--coulomb`): masses 1.05, 0.66,
stiffnesses 68.9, 111.9, coulomb dynamic 1.72 static_ratio 1.0, base 0.098 m at
1.08 Hz, force 0.57 N at 1.27 Hz.

Here a is integrated relative to the base (r = x_a - x_base, w = v_a - v_base:
w is a state, exactly 0 at a breakaway), b absolutely; scipy's DOP853 at
rtol 1e-13 with its event location.  Prints the events and, at the first
breakaway, the slip's w'' (j), the base's jerk and what they give over a first
step h of the engine: the true w(h) = j h^2 / 2 against the interpolation error
of a linear velocity polynomial over h, |jerk| h^2 / 8, of the same order.
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp

if "--coulomb" in sys.argv:
    ma, mb, k1, k2, A, fB, FB, fF, FD, FS, vs = 1.05, 0.66, 68.9, 111.9, 0.098, 1.08, 0.57, 1.27, 1.72, 1.72, 1.0
else:
    ma, mb, k1, k2, A, fB, FB, fF, FD, vs = 1.33, 0.82, 97.4, 74.0, 0.129, 0.81, 2.65, 0.97, 1.23, 0.025
    FS = FD * 1.15
W, WF = 2 * np.pi * fB, 2 * np.pi * fF
x_base = lambda t: A * np.sin(W * t)
v_base = lambda t: A * W * np.cos(W * t)
a_base = lambda t: -A * W * W * np.sin(W * t)
TOL = dict(method="DOP853", rtol=1e-13, atol=1e-16)


def spring_a(t, y):
    xa = y[0] + x_base(t)
    return -k1 * xa + k2 * (y[2] - xa)


def stuck_force(t, y):  # the friction on a that keeps it on the base
    return ma * a_base(t) - spring_a(t, y)


def rhs(s):  # s: slip direction of w, 0 stuck
    def f(t, y):
        fr = stuck_force(t, y) if s == 0 else -s * (FD + (FS - FD) * np.exp(-((y[1] / vs) ** 2)))
        aa = (spring_a(t, y) + fr) / ma
        xa = y[0] + x_base(t)
        vb = (-k2 * (y[2] - xa) + FB * np.sin(WF * t)) / mb
        return [0.0 if s == 0 else y[1], 0.0 if s == 0 else aa - a_base(t), y[3], vb]

    return f


t, y = 0.0, [0.0, -v_base(0.0), 0.0, 0.0]
s, events, first = (-1 if y[1] < 0 else 1), [], None
while t < 3.0:
    if s == 0:
        up = lambda t, y: stuck_force(t, y) - FS
        dn = lambda t, y: -stuck_force(t, y) - FS
        up.terminal = dn.terminal = True
        up.direction = dn.direction = 1
        sol = solve_ivp(rhs(0), (t, 3.0), y, events=[up, dn], **TOL)
    else:
        zero = lambda t, y: y[1]
        zero.terminal, zero.direction = True, -s
        sol = solve_ivp(rhs(s), (t, 3.0), y, events=[zero], **TOL)
    t, y = sol.t[-1], list(sol.y[:, -1])
    if sol.status != 1:
        break
    if s == 0:
        s = -1 if len(sol.t_events[0]) else 1  # a lags the base when the force needed exceeds +F_S
        events.append((t, "breakaway", stuck_force(t, y)))
        if first is None:
            first = (t, list(y))
    else:
        y[1] = 0.0
        L = stuck_force(t, y)
        s = 0 if abs(L) <= FS else (-1 if L > FS else 1)
        events.append((t, "stick" if s == 0 else "reversal", L))
for e in events:
    print("%.12f  %-9s  stuck force %+.6f N" % e)
if first:
    tb, yb = first
    d = solve_ivp(rhs(0), (tb, tb + 1e-7), yb, **TOL)
    j = -(stuck_force(tb + 1e-7, d.y[:, -1]) - stuck_force(tb, yb)) / 1e-7 / ma
    jb = -A * W**3 * np.cos(W * tb)
    h = 1.36e-6
    print("first breakaway %.12f s: v_base %.4f m/s, w'' = %.4g m/s^3, base jerk %.4g m/s^3" % (tb, v_base(tb), j, jb))
    print("over h = %.3g s: true w(h) = %.3g m/s, |jerk| h^2/8 = %.3g m/s" % (h, abs(j) * h * h / 2, abs(jb) * h * h / 8))
