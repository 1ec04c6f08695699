"""Stacked boxes pushed at the bottom against an exact reference built here,
independently of the engine (SPEC §4; the one-engine plan's W5).

A stack of N boxes (N = 2 .. 6): b0 on the ground, each b_i riding on
b_(i-1) (Coulomb contacts, static above dynamic), all at rest; a push
P = k t on b0.  Within a phase (each contact stuck or slipping) every force
is affine in t: the push, the slipping contacts' dynamic levels, and so the
clusters' accelerations (bodies joined by stuck contacts; the one holding
b0 at rest while b0's contact sticks) and the stuck contacts' forces (what
the bodies above a contact in its cluster need).  So the relative
velocities are quadratics in t and the events of a phase are roots in
closed form: a stuck contact's force reaching its static level (linear), a
slipping contact's relative velocity reaching 0 (quadratic).  They are
found here with mpmath at 40 digits.  At an event every contact at w = 0
is decided by SPEC §4 by brute force over all 3^k combinations (not the
engine's level-by-level search): consistent when every stuck force is in
its band and every slip at w = 0 accelerates its way (a margin of exactly
0 judged by its time derivative); among them the fewest changes among the
contacts that reached nothing, then the most stuck among those that did.
The parameters are chosen so that no tie is left for the names to decide
(the reference fails if one is).

The engine's events (without `ambiguous`, a report about the choice, not a
change) must be the reference's: the same kinds and contacts in the same
order (simultaneous ones as a set), each time within 1e-8 s.  The bound:
an event time is off by its guard's error over the guard's rate.  The
stuck forces here depend on t alone (the push and constant levels), so a
breakaway is located to the root finder's tolerance; a stick's guard is a
relative velocity, integrated with rtol 1e-10 on velocities below 10 m/s
(<= 1e-9 m/s), reached at relative accelerations >= 0.1 m/s^2 here: <= 1e-8
s (observed: 5e-10 s).  A wrong decision instead moves an event by the
time scale of the push (~0.1 s) or changes its kind or contact.
"""
import os
import subprocess
import sys
import tempfile

import h5py
import mpmath as mp

mp.mp.dps = 40
STUCK, POS, NEG = 0, 1, 2
EPS = mp.mpf("1e-30")  # a margin this small is a zero (40 digits)


class Stack:
    def __init__(self, masses, dyn, ratio, slope, t_end):
        self.m = [mp.mpf(x) for x in masses]
        self.fd = [mp.mpf(x) for x in dyn]
        self.fs = [mp.mpf(x) * mp.mpf(r) for x, r in zip(dyn, ratio)]
        self.k = mp.mpf(slope)
        self.t_end = mp.mpf(t_end)
        self.n = len(masses)
        self.src = (masses, dyn, ratio, slope, t_end)

    # ---- one phase: forces, accelerations, stuck forces at time t -------
    def applied(self, st, t):
        """Forces on every box but the stuck contacts' (push, slip levels)."""
        f = [mp.mpf(0)] * self.n
        f[0] += self.k * t
        for i in range(self.n):
            if st[i] == STUCK:
                continue
            s = 1 if st[i] == POS else -1
            f[i] -= s * self.fd[i]
            if i > 0:
                f[i - 1] += s * self.fd[i]
        return f

    def solve(self, st, t):
        """Accelerations a[i] and stuck forces lam[i] (on b_i) at t."""
        f = self.applied(st, t)
        a = [None] * self.n
        lam = [None] * self.n
        i = 0
        while i < self.n:  # a cluster: b_i .. b_j joined by stuck contacts i+1..j
            j = i
            while j + 1 < self.n and st[j + 1] == STUCK:
                j += 1
            grounded = i == 0 and st[0] == STUCK
            acc = mp.mpf(0) if grounded else sum(f[i:j + 1]) / sum(self.m[i:j + 1])
            for b in range(i, j + 1):
                a[b] = acc
            for c in range(i if grounded else i + 1, j + 1):  # the bodies above c in it
                lam[c] = sum(self.m[b] * acc - f[b] for b in range(c, j + 1))
            i = j + 1
        return a, lam

    def rel(self, a, i):
        return a[i] - (a[i - 1] if i > 0 else 0)

    # ---- the decision at an event (SPEC §4, brute force) ----------------
    def consistent(self, st, t, zero):
        a, lam = self.solve(st, t)
        a1, lam1 = self.solve(st, t + 1)  # everything is affine in t: slopes
        for i in zero:
            if st[i] == STUCK:
                margin = abs(lam[i]) - self.fs[i]
                rate = (abs(lam1[i]) - abs(lam[i]))
                if margin > EPS or (abs(margin) <= EPS and rate > 0):
                    return False
            else:
                s = 1 if st[i] == POS else -1
                ra, rate = s * self.rel(a, i), s * (self.rel(a1, i) - self.rel(a, i))
                if ra < -EPS or (abs(ra) <= EPS and not rate > 0):
                    return False
        return True

    def decide(self, st, t, zero, reached):
        best, key_best, ties = None, None, 0
        for code in range(3 ** len(zero)):
            cand = list(st)
            for i in zero:
                cand[i] = code % 3
                code //= 3
            if not self.consistent(cand, t, zero):
                continue
            changes = sum(cand[i] != st[i] for i in zero if i not in reached)
            stuck = sum(cand[i] == STUCK for i in zero if i in reached)
            key = (changes, -stuck)
            if key_best is None or key < key_best:
                best, key_best, ties = cand, key, 0
            elif key == key_best:
                ties += 1
        if best is None:
            raise RuntimeError("no consistent combination at t = %s" % t)
        if ties:
            raise RuntimeError("a tie the names would decide at t = %s: change the parameters" % t)
        return best

    # ---- the run -------------------------------------------------------------
    def run(self):
        n = self.n
        v = [mp.mpf(0)] * n
        st = self.decide([STUCK] * n, mp.mpf(0), list(range(n)), set(range(n)))
        t = mp.mpf(0)
        events = []
        while True:
            a, lam = self.solve(st, t)
            a1, lam1 = self.solve(st, t + 1)
            cands = []  # (time, contact)
            for i in range(n):
                if st[i] == STUCK:
                    d = lam1[i] - lam[i]
                    for edge in (self.fs[i], -self.fs[i]):
                        if d != 0:
                            tau = (edge - lam[i]) / d
                            if tau > EPS:
                                cands.append((t + tau, i))
                else:  # w = w0 + A tau + B tau^2 / 2
                    w0 = v[i] - (v[i - 1] if i > 0 else 0)
                    A, B = self.rel(a, i), self.rel(a1, i) - self.rel(a, i)
                    roots = [mp.mpf(-w0) / A] if B == 0 and A != 0 else []
                    if B != 0:
                        disc = A * A - 2 * B * w0
                        if disc >= 0:
                            roots = [(-A + sg * mp.sqrt(disc)) / B for sg in (1, -1)]
                    for tau in roots:
                        if tau > EPS:
                            cands.append((t + tau, i))
            t_next = min([c[0] for c in cands], default=self.t_end)
            if t_next >= self.t_end:
                return events
            tau = t_next - t
            for b in range(n):
                v[b] += a[b] * tau + (a1[b] - a[b]) * tau * tau / 2
            reached = {i for (te, i) in cands if te - t_next <= EPS}
            for i in reached:  # a slip that reached w = 0 is at 0 exactly
                if st[i] != STUCK:
                    v[i] = v[i - 1] if i > 0 else mp.mpf(0)
            zero = [i for i in range(n)
                    if st[i] == STUCK or abs(v[i] - (v[i - 1] if i > 0 else 0)) <= EPS]
            new = self.decide(st, t_next, zero, reached)
            for i in range(n):
                if new[i] != st[i]:
                    kind = ("stick" if new[i] == STUCK else "breakaway" if st[i] == STUCK
                            else "reversal")
                    events.append((t_next, kind, i))
            st, t = new, t_next

    def yaml(self):
        masses, dyn, ratio, slope, t_end = self.src
        out = ["bodies:"]
        out += ["  b%d: {mass: %s}" % (i, m) for i, m in enumerate(masses)]
        out.append("contacts:")
        out.append("  - {body: b0, law: coulomb, dynamic: %s, static_ratio: %s}" % (dyn[0], ratio[0]))
        for i in range(1, self.n):
            out.append("  - {between: [b%d, b%d], law: coulomb, dynamic: %s, static_ratio: %s}"
                       % (i, i - 1, dyn[i], ratio[i]))
        out.append("inputs: {forces: {b0: {type: ramp, slope: %s}}}" % slope)
        out.append("simulation: {t_end: %s, output_step: 0.05, rtol: 1e-10}" % t_end)
        return "\n".join(out) + "\n"


def engine_events(binary, stack, tmp):
    cfg, res = os.path.join(tmp, "stack.yaml"), os.path.join(tmp, "stack.h5")
    with open(cfg, "w") as f:
        f.write(stack.yaml())
    subprocess.run([binary, "run", "-q", cfg, "-o", res], check=True)
    with h5py.File(res, "r") as f:  # kind and the subject's name per event
        out = [(float(e["t"]), e["kind"].decode(), int(e["subject"].decode().split(".")[1]))
               for e in f["events"][()] if e["kind"] != b"ambiguous"]
    return out


# Stacks of 2 .. 6 boxes: masses and levels varied so that contacts break
# away one after another down the stack and slipping ones stick again.
STACKS = [
    ([1, 1.5], [6, 2], [1.2, 1.3], 2, 6),
    ([2, 1.25, 1], [15, 3, 1.5], [1.1, 1.25, 1.1], 2, 12.5),
    ([2, 1, 1.25, 2], [10, 3, 1.5, 1], [1.1, 1.5, 1.25, 1.1], 2, 11),
    ([1.5, 2, 1, 2, 1.25], [12, 4, 3, 2, 3], [1.25, 2, 1.25, 1.1, 1.1], 2, 15),
    ([2, 1.5, 1.25, 2, 1, 1.5], [10, 4, 5, 2.5, 1, 3], [1.25, 2, 1.25, 1.5, 1.25, 1.25], 2, 16.5),
]


def main():
    binary = os.environ["STICKSLIP_BIN"]
    kinds_seen = set()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for spec in STACKS:
            stack = Stack(*spec)
            ref = stack.run()
            got = engine_events(binary, stack, tmp)
            print("N = %d: %d events (%s)" % (stack.n, len(ref),
                                              ", ".join("%s %d at %.6f" % (k, i, float(t))
                                                        for t, k, i in ref)))
            assert len(got) == len(ref), (stack.n, got, ref)
            j = 0
            while j < len(ref):  # simultaneous events as a set
                k = j
                while k < len(ref) and ref[k][0] - ref[j][0] <= EPS:
                    k += 1
                want = sorted((kd, i) for _, kd, i in ref[j:k])
                have = sorted((kd, i) for _, kd, i in got[j:k])
                assert want == have, (stack.n, j, want, have)
                for e in range(j, k):
                    assert abs(got[e][0] - float(ref[e][0])) <= 1e-8, (stack.n, got[e], ref[e])
                    worst = max(worst, abs(got[e][0] - float(ref[e][0])))
                    kinds_seen.add(ref[e][1])
                j = k
    assert kinds_seen >= {"breakaway", "stick"}, kinds_seen
    print("ok: largest event time difference %.3g s" % worst)


if __name__ == "__main__":
    sys.exit(main())
