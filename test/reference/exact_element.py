"""The single element of SPEC §1 solved exactly, piecewise, independent of stickslip.

One definition of the element's forces for the independent references: the
signals and forces below are written once over a math namespace `M` (the
`math` module for the float peers of benchmarks/peers, `mpmath` for the
reference), and `solve` integrates them at high precision.

In slip the element is linear with analytic forcing,
    m x'' + c x' + k x = G(t) = F_n(t, 0, 0) - s F_D(s, t),
where F_D depends on |F_R| through a branch that is fixed between two sign
changes of the load.  Each slip stretch is integrated by Taylor series (every
signal gives its own series; the recurrence of the linear ODE gives x's),
NT terms per step of H s, so the truncation (terms ~ (omega H)^n / n!, omega
<= 20 rad/s in the cases here) is below 10^-35 per step.  Velocity zeros and
load sign changes are bracketed on ten sub-samples per step (5 ms) and
refined to full precision; stuck, x is constant and the breakaway guards
    +-F_n(t, x, 0) - F_S(+-1, t)
are analytic in t, scanned every HS s (an excursion hidden between two
samples is below |g''| HS^2 / 8; every local maximum of a guard closer than
1 N to zero is refined by a maximum search anyway) and refined.  Decisions at
v = 0 are SPEC §1.2's.  End stops are not modelled: reaching one raises.

Used by test/reference/janecek_events.py and benchmarks/peers/reference.py.
"""
import math

import mpmath as mp

H = mp.mpf('0.05')
SUBSAMPLES = 10
HS = mp.mpf('0.001')
NT = 60


def dseries(a):
    """Taylor coefficients of the derivative of the series a."""
    return [(j + 1) * a[j + 1] for j in range(len(a) - 1)]


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


class Constant:
    breaks = ()

    def __init__(self, M, value):
        self.M, self.c = M, value

    def value(self, t):
        return self.c

    def d1(self, t):
        return 0 * t

    def d2(self, t):
        return 0 * t

    def series(self, t0, n):
        return [mp.mpf(self.c)] + [mp.mpf(0)] * (n - 1)


class Ramp:
    """initial until start_time, then rising at slope (a time event at start_time > 0)."""

    def __init__(self, M, start_time, slope, initial):
        self.M, self.t0, self.k, self.c = M, start_time, slope, initial
        self.breaks = (start_time,) if start_time > 0 else ()

    def value(self, t):
        return self.c + (self.k * (t - self.t0) if t >= self.t0 else 0 * t)

    def d1(self, t):
        return self.k if t >= self.t0 else 0 * t

    def d2(self, t):
        return 0 * t

    def series(self, t0, n):
        on = t0 >= self.t0
        return [mp.mpf(self.value(t0)), mp.mpf(self.k if on else 0)] + [mp.mpf(0)] * (n - 2)


class Step:
    def __init__(self, M, time, before, after):
        self.M, self.t0, self.a, self.b = M, time, before, after
        self.breaks = (time,)

    def value(self, t):
        return self.b if t >= self.t0 else self.a

    def d1(self, t):
        return 0 * t

    def d2(self, t):
        return 0 * t

    def series(self, t0, n):
        return [mp.mpf(self.value(t0))] + [mp.mpf(0)] * (n - 1)


class Sine:
    """offset + amplitude sin(2 pi frequency t + phase)."""
    breaks = ()

    def __init__(self, M, amplitude, frequency, phase=0, offset=0):
        self.M, self.a, self.ph, self.off = M, amplitude, phase, offset
        self.w = 2 * M.pi * frequency

    def value(self, t):
        return self.off + self.a * self.M.sin(self.w * t + self.ph)

    def d1(self, t):
        return self.a * self.w * self.M.cos(self.w * t + self.ph)

    def d2(self, t):
        return -self.a * self.w * self.w * self.M.sin(self.w * t + self.ph)

    def series(self, t0, n):
        a, w = mp.mpf(self.a), mp.mpf(self.w)
        p = w * t0 + self.ph
        out = [a * w**j / mp.factorial(j) * mp.sin(p + j * mp.pi / 2) for j in range(n)]
        out[0] += self.off
        return out


class JanecekChirp:
    """amplitude sin(k t^2), k = pi f_max / t_max (Janecek's base z1)."""
    breaks = ()

    def __init__(self, M, amplitude, f_max, t_max):
        self.M, self.a = M, amplitude
        self.k = M.pi * f_max / t_max

    def value(self, t):
        return self.a * self.M.sin(self.k * t * t)

    def d1(self, t):
        return 2 * self.a * self.k * t * self.M.cos(self.k * t * t)

    def d2(self, t):
        k, ph = self.k, self.k * t * t
        return self.a * (2 * k * self.M.cos(ph) - 4 * k * k * t * t * self.M.sin(ph))

    def series(self, t0, n):
        """sin and cos of the phase by their recurrences in the phase's derivative."""
        kw = self.k
        ph = kw * t0 * t0
        p = [2 * kw * t0, 2 * kw]  # coefficients of the phase's derivative
        s = [mp.sin(ph)] + [mp.mpf(0)] * (n - 1)
        c = [mp.cos(ph)] + [mp.mpf(0)] * (n - 1)
        for i in range(n - 1):
            ds = p[0] * c[i] + (p[1] * c[i - 1] if i >= 1 else 0)
            dc = -(p[0] * s[i] + (p[1] * s[i - 1] if i >= 1 else 0))
            s[i + 1] = ds / (i + 1)
            c[i + 1] = dc / (i + 1)
        return [self.a * v for v in s]


class Element:
    """Masses, springs, levels and signals of SPEC §1 over the namespace M.

    anchor is None when the spring and damper tie the element to its base."""

    def __init__(self, M, m, k, c, x_s, f_dj, fsd, eto, eta, active, load, base, anchor=None,
                 x_min=-math.inf, x_max=math.inf):
        self.M, self.m, self.k, self.c, self.x_s = M, m, k, c, x_s
        self.f_dj, self.fsd, self.eto, self.eta = f_dj, fsd, eto, eta
        self.active, self.load, self.base, self.anchor = active, load, base, anchor
        self.x_min, self.x_max = x_min, x_max
        sigs = [active, load, base] + ([anchor] if anchor else [])
        self.breaks = sorted({b for s in sigs for b in s.breaks})

    def forcing(self, t):
        """F_n(t, 0, 0): everything but the element's own spring and damper terms."""
        f = self.active.value(t) + self.load.value(t) - self.m * self.base.d2(t)
        if self.anchor is None:
            return f + self.k * self.x_s
        return (f - self.k * (self.base.value(t) - self.anchor.value(t) - self.x_s)
                - self.c * (self.base.d1(t) - self.anchor.d1(t)))

    def fn(self, t, x, v):
        return self.forcing(t) - self.k * x - self.c * v

    def level_coef(self, s, fr_sign):
        """F_D(s) = F_DJ + coef |F_R| on the load's branch (SPEC §1.1)."""
        if s * fr_sign < 0:
            return 1 / self.eto - 1
        if s * fr_sign > 0:
            return 1 - self.eta
        return 0 * s

    def fd(self, s, t):
        fr = self.load.value(t)
        sign = (fr > 0) - (fr < 0)
        return self.f_dj + self.level_coef(s, sign) * abs(fr)

    def fs(self, s, t):
        return self.fsd * self.fd(s, t)

    def initial_mode(self, x0, v0):
        if v0 != 0:
            return 1 if v0 > 0 else -1
        f = self.fn(0 * x0, x0, 0 * x0)
        if f > self.fs(1, 0 * x0):
            return 1
        if -f > self.fs(-1, 0 * x0):
            return -1
        return 0

    def forcing_series(self, t0, n):
        """Taylor coefficients of forcing(t) about t0 (n terms)."""
        base = self.base.series(t0, n + 2)
        f = [a + b - self.m * d for a, b, d in
             zip(self.active.series(t0, n), self.load.series(t0, n), dseries(dseries(base)))]
        if self.anchor is None:
            f[0] += self.k * self.x_s
            return f
        anc = self.anchor.series(t0, n + 1)
        rel = [b - a for b, a in zip(base, anc)]
        drel = dseries(rel)
        f = [fj - self.k * rel[j] - self.c * drel[j] for j, fj in enumerate(f)]
        f[0] += self.k * self.x_s
        return f


def refine(f, a, b):
    return mp.findroot(f, (a, b), solver='anderson', tol=mp.mpf(10) ** -40)


class Solver:
    """Exact run of an Element (built over mpmath) from (x0, v0) to t_end."""

    def __init__(self, el, t_end, x0, v0):
        self.el, self.t_end = el, mp.mpf(t_end)
        self.x0, self.v0 = mp.mpf(x0), mp.mpf(v0)
        self.events = []

    def next_break(self, t):
        return min([b for b in self.el.breaks if b > t] + [self.t_end])

    def slip_series(self, t0, x0, v0, s, fr_sign):
        el = self.el
        g = el.forcing_series(t0, NT)
        fr = el.load.series(t0, NT)
        coef = el.level_coef(s, fr_sign)
        g = [gj - s * coef * fr_sign * frj for gj, frj in zip(g, fr)]
        g[0] -= s * el.f_dj
        X = [mp.mpf(0)] * NT
        X[0], X[1] = x0, v0
        m, c, k = el.m, el.c, el.k
        for n in range(NT - 2):
            X[n + 2] = (g[n] / m - c / m * (n + 1) * X[n + 1] - k / m * X[n]) / ((n + 1) * (n + 2))
        return X, fr

    def load_sign(self, t):
        """The load's sign just after t (right after one of its zeros too)."""
        fr = self.el.load.series(t, 3)
        v = poly(fr, mp.mpf(10) ** -20)
        return (v > 0) - (v < 0)

    def slip(self, t0, x0, v0, s):
        """Slip in direction s from (t0, x0, v0) until v = 0 (or t_end).

        Returns (t, x) of the velocity zero or None; records load reversals."""
        t, x, v = t0, x0, v0
        fresh = True  # the series starts at an event: its conditions hold from u > 0
        while t < self.t_end:
            fr_sign = self.load_sign(t)
            X, fr = self.slip_series(t, x, v, s, fr_sign)
            h = min(H, self.next_break(t) - t)
            conds = [lambda w: s * dpoly(X, w)]
            if fr_sign != 0:
                conds.append(lambda w: fr_sign * poly(fr, w))
            prev_u = mp.mpf(0)
            hit = None
            for j in range(1, SUBSAMPLES + 1):
                u = h * j / SUBSAMPLES
                for i, cond in enumerate(conds):
                    if cond(u) <= 0:
                        lo = prev_u if (prev_u > 0 or not fresh) else mp.mpf(10) ** -30
                        uz = refine(cond, lo, u)
                        if hit is None or uz < hit[0]:
                            hit = (uz, i)
                if hit is not None:
                    break
                prev_u = u
            if hit is not None:
                uz, i = hit
                xz = poly(X, uz)
                if not self.el.x_min < xz < self.el.x_max:
                    raise NotImplementedError('end stop reached at t = %s' % mp.nstr(t + uz, 10))
                if i == 0:
                    return t + uz, xz
                self.events.append(('load_reversal', t + uz, xz))
                t, x, v, fresh = t + uz, xz, dpoly(X, uz), True
                continue
            x, v = poly(X, h), dpoly(X, h)
            if not self.el.x_min < x < self.el.x_max:
                raise NotImplementedError('end stop reached before t = %s' % mp.nstr(t + h, 10))
            t += h
            fresh = t in self.el.breaks
        self.final = (x, v)
        return None

    def stuck(self, t0, x):
        """Stuck from t0 at x: first time a breakaway guard reaches 0, and the direction."""
        el = self.el
        g = [lambda t: el.fn(t, x, 0) - el.fs(1, t), lambda t: -el.fn(t, x, 0) - el.fs(-1, t)]
        t, prev = t0, None
        ga = [gi(t0) for gi in g]
        while t < self.t_end:
            tb = min(t + HS, self.next_break(t))
            gb = [gi(tb) for gi in g]
            for i in (0, 1):
                if ga[i] < 0 <= gb[i]:
                    if tb in el.breaks and g[i](tb - mp.mpf(10) ** -30) < 0:
                        return tb, (+1 if i == 0 else -1)  # a jump of an input
                    return refine(g[i], t, tb), (+1 if i == 0 else -1)
                if prev is not None and prev[i] < ga[i] > gb[i] and ga[i] > -1:
                    # a local maximum close to zero: is a crossing hidden in it?
                    tm = mp.findroot(lambda w: mp.diff(g[i], w), t)
                    if t - HS < tm < tb and g[i](tm) >= 0:
                        return refine(g[i], t - HS, tm), (+1 if i == 0 else -1)
            prev, ga, t = ga, gb, tb
        self.final = (x, mp.mpf(0))
        return None, None

    def run(self):
        """Events [(kind, t, x after)] and self.final = (x, v) at t_end."""
        el = self.el
        t, x, mode = mp.mpf(0), self.x0, el.initial_mode(self.x0, self.v0)
        v = self.v0
        while True:
            if mode == 0:
                tb, s = self.stuck(t, x)
                if tb is None:
                    break
                self.events.append(('breakaway', tb, x))
                t, mode, v = tb, s, mp.mpf(0)
            else:
                hit = self.slip(t, x, v, mode)
                if hit is None:
                    break
                tz, xz = hit
                f = el.fn(tz, xz, 0)
                if -el.fs(-1, tz) <= f <= el.fs(1, tz):
                    self.events.append(('stick', tz, xz))
                    mode = 0
                else:
                    s = 1 if f > 0 else -1
                    assert s == -mode, 'tangency at v = 0 with the slip continuing'
                    self.events.append(('reversal', tz, xz))
                    mode = s
                t, x, v = tz, xz, mp.mpf(0)
        return self.events
