#!/usr/bin/python3
"""Janecek chirp (SPEC §3) event times to ~25 digits, independent of stickslip.

The element is piecewise linear: in slip,
    x'' + (c/m) x' + (k/m) x = -z1''(t) - s F_KIN / m,   s = +1 (SLIP_POS), -1 (SLIP_NEG),
with the base z1 = A sin(k_w t^2); stuck, x is constant and the guards
    F_n(t) = -k x_stuck - m z1''(t)  against  +-F_STAT
are analytic in t.  exact_element.py (beside this file) integrates slip by
Taylor series (z1's series follows from sin/cos recurrences in the phase), 60
terms per step of 0.05 s at 45 digits, so truncation is below 1e-35 per step.
Velocity zeros and guard crossings are bracketed on sub-samples (5 ms in
slip, 1 ms when stuck, where an excursion hidden between two samples would
be below m |z1''''| h^2 / 8 < 5e-4 N; every local maximum of a guard closer
than 1 N to zero is refined by golden-section search anyway) and refined to
full precision.  Decisions at v = 0 are SPEC §1.2's: |F_n| <= F_STAT sticks,
else slip reverses.  The parameters are the paper's exact values (k_S =
m (2 pi 1.5 Hz)^2), not the config's rounded doubles.

Rerun (Debian's python3-mpmath):  /usr/bin/python3 test/reference/janecek_events.py
It prints one line per event: kind, t, x after the event (m), to 22 digits.
"""
import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exact_element as ex  # noqa: E402

mp.mp.dps = 45
M = mp.mpf(100)
C = mp.mpf(200)
K = M * (2 * mp.pi * mp.mpf('1.5')) ** 2
FS = mp.mpf(26)
FD = mp.mpf(18)
A = mp.mpf('0.05')
T_END = mp.mpf('9.5')


def element():
    zero = ex.Constant(mp, mp.mpf(0))
    base = ex.JanecekChirp(mp, A, mp.mpf('0.825'), T_END)
    return ex.Element(mp, M, K, C, mp.mpf(0), FD, FS / FD, mp.mpf(1), mp.mpf(1), zero, zero, base)


def main():
    events = ex.Solver(element(), T_END, 0, 0).run()
    for kind, te, xe in events:
        print(kind, mp.nstr(te, 22), mp.nstr(xe, 22))


if __name__ == '__main__':
    main()
