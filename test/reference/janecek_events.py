#!/usr/bin/python3
"""Janecek chirp (SPEC §3) event times to ~25 digits, independent of stickslip.

The element is piecewise linear: in slip,
    x'' + (c/m) x' + (k/m) x = -z1''(t) - s F_KIN / m,   s = +1 (SLIP_POS), -1 (SLIP_NEG),
with the base z1 = A sin(k_w t^2); stuck, x is constant and the guards
    F_n(t) = -k x_stuck - m z1''(t)  against  +-F_STAT
are analytic in t.  Slip is integrated by Taylor series (the right-hand side
is entire: z1's series follows from sin/cos recurrences in the phase), 60
terms per step of 0.05 s at 45 digits, so truncation is below 1e-35 per step.
Velocity zeros and guard crossings are bracketed on sub-samples (5 ms in
slip, 1 ms when stuck, where an excursion hidden between two samples would
be below m |z1''''| h^2 / 8 < 5e-4 N; every local maximum of a guard closer
than 1 N to zero is refined by golden-section search anyway) and refined to
full precision.  Decisions at v = 0 are SPEC §1.2's: |F_n| <= F_STAT sticks,
else slip reverses.

Rerun (Debian's python3-mpmath):  /usr/bin/python3 test/reference/janecek_events.py
It prints one line per event: kind, t, x after the event (m), to 22 digits.
"""
import mpmath as mp

mp.mp.dps = 45
M = mp.mpf(100)
C = mp.mpf(200)
K = M * (2 * mp.pi * mp.mpf('1.5')) ** 2
FS = mp.mpf(26)
FD = mp.mpf(18)
A = mp.mpf('0.05')
KW = mp.pi * mp.mpf('0.825') / mp.mpf('9.5')
T_END = mp.mpf('9.5')
H = mp.mpf('0.05')
NT = 60


def z1_series(t0, n):
    """Taylor coefficients of sin(k_w t^2) about t0 (n terms)."""
    ph = KW * t0 * t0
    p = [2 * KW * t0, 2 * KW]  # coefficients of the phase's derivative
    s = [mp.sin(ph)] + [mp.mpf(0)] * (n - 1)
    c = [mp.cos(ph)] + [mp.mpf(0)] * (n - 1)
    for i in range(n - 1):
        ds = p[0] * c[i] + (p[1] * c[i - 1] if i >= 1 else 0)
        dc = -(p[0] * s[i] + (p[1] * s[i - 1] if i >= 1 else 0))
        s[i + 1] = ds / (i + 1)
        c[i + 1] = dc / (i + 1)
    return [A * v for v in s]


def z1dd(t):
    ph = KW * t * t
    return A * (2 * KW * mp.cos(ph) - 4 * KW * KW * t * t * mp.sin(ph))


def slip_series(t0, x0, v0, s):
    z = z1_series(t0, NT + 2)
    X = [mp.mpf(0)] * NT
    X[0], X[1] = x0, v0
    for n in range(NT - 2):
        g = -(n + 1) * (n + 2) * z[n + 2] - (s * FD / M if n == 0 else 0)
        X[n + 2] = (g - C / M * (n + 1) * X[n + 1] - K / M * X[n]) / ((n + 1) * (n + 2))
    return X


def poly(X, u):
    r = mp.mpf(0)
    for a in reversed(X):
        r = r * u + a
    return r


def dpoly(X, u):
    r = mp.mpf(0)
    for n in range(len(X) - 1, 0, -1):
        r = r * u + n * X[n]
    return r


def fn(t, x, v):
    return -K * x - C * v - M * z1dd(t)


def refine(f, a, b):
    return mp.findroot(f, (a, b), solver='anderson', tol=mp.mpf(10) ** -40)


def slip(t0, x0, s, events):
    """Slip from rest at t0 in direction s until v = 0 (or t_end)."""
    t = t0
    x, v = x0, mp.mpf(0)
    while t < T_END:
        X = slip_series(t, x, v, s)
        h = min(H, T_END - t)
        prev_u = mp.mpf(0)
        for j in range(1, 11):
            u = h * j / 10
            if s * dpoly(X, u) <= 0:
                lo = prev_u if (prev_u > 0 or t > t0) else mp.mpf(10) ** -30
                uz = refine(lambda w: dpoly(X, w), lo, u)
                return t + uz, poly(X, uz)
            prev_u = u
        x, v = poly(X, h), dpoly(X, h)
        t += h
    return None, None


def stuck(t0, x, events):
    """Stuck from t0 at x: first time |F_n| reaches F_STAT, and the direction."""
    hs = mp.mpf('0.001')
    g = [lambda t: fn(t, x, 0) - FS, lambda t: -fn(t, x, 0) - FS]
    t, prev = t0, None
    ga = [gi(t0) for gi in g]
    while t < T_END:
        tb = min(t + hs, T_END)
        gb = [gi(tb) for gi in g]
        for i in (0, 1):
            if ga[i] < 0 <= gb[i]:
                return refine(g[i], t, tb), (+1 if i == 0 else -1)
            if prev is not None and prev[i] < ga[i] > gb[i] and ga[i] > -1:
                # a local maximum close to zero: is a crossing hidden in it?
                tm = mp.findroot(lambda w: mp.diff(g[i], w), t)
                if t - hs < tm < tb and g[i](tm) >= 0:
                    return refine(g[i], t - hs, tm), (+1 if i == 0 else -1)
        prev, ga, t = ga, gb, tb
    return None, None


def main():
    events = []
    t, x, mode = mp.mpf(0), mp.mpf(0), 0  # starts locked (|m z1''(0)| = 2.7 N)
    assert abs(fn(t, x, 0)) < FS
    while True:
        if mode == 0:
            tb, s = stuck(t, x, events)
            if tb is None:
                break
            events.append(('breakaway', tb, x))
            t, mode = tb, s
        else:
            tz, xz = slip(t, x, mode, events)
            if tz is None:
                break
            f = fn(tz, xz, 0)
            if abs(f) <= FS:
                events.append(('stick', tz, xz))
                mode = 0
            else:
                s = 1 if f > 0 else -1
                assert s == -mode
                events.append(('reversal', tz, xz))
                mode = s
            t, x = tz, xz
    for kind, te, xe in events:
        print(kind, mp.nstr(te, 22), mp.nstr(xe, 22))


if __name__ == '__main__':
    main()
