#!/usr/bin/python3
"""ctest test_peers_smoke: the peers benchmark's pieces on Den Hartog's case, in seconds.

- the exact reference (exact_element.py over mpmath) against Den Hartog's
  closed form: reversals at k pi / omega_n, turning points x0 - (2k) F / k_s
  alternating in sign, rest at the first turning point inside the static band;
- every cached reference is current (its configuration's digest matches), so
  docs/benchmarks.md cannot be built on a reference of an old configuration;
- the SciPy event loop (DOP853), Siconos time stepping and stickslip in-process
  reproduce the exact switch sequence, within what their tolerance or step
  allows (bounds argued below).
Exits 77 (ctest: skipped) when SciPy, Siconos or mpmath is missing
(benchmarks/peers/setup installs them).
"""
import math
import os
import sys

try:
    import mpmath as mp
    import scipy  # noqa: F401
    import siconos.kernel  # noqa: F401
except ImportError as e:
    print(f'SKIP: {e.name} missing (benchmarks/peers/setup installs the peers)')
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as cs  # noqa: E402
import peers  # noqa: E402
import reference as rf  # noqa: E402
import scipy_loop  # noqa: E402
import siconos_ts  # noqa: E402
import stickslip as ss  # noqa: E402
import stickslip_runs as sr  # noqa: E402

failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


case = cs.load_all(ss, ['den_hartog'])[0]
ref = rf.compute(case)

# Closed form (examples/den_hartog.yaml): omega_n = 10 rad/s, 2F/k = 0.02 m
# (exact in doubles), x0 = the double nearest 0.105 m; compared in the
# reference's own 45 digits, where 1e-30 leaves 15 digits for its root finding
# (tol 1e-40) and series truncation (< 1e-35 per step).
events, xf, vf = ref['text']
wn, step, x0 = 10, mp.mpf(2) / 100, mp.mpf(0.105)
kinds = ['reversal'] * 4 + ['stick']
check([e[0] for e in events] == kinds, 'reference: 4 reversals, then stick')
for i, (kind, t, x) in enumerate(events):
    ti, xi = (i + 1) * mp.pi / wn, (-1) ** (i + 1) * (x0 - (i + 1) * step)
    check(abs(t - ti) < 1e-30 and abs(x - xi) < 1e-30,
          f'reference {kind} {i + 1}: t - k pi / 10 = {mp.nstr(t - ti, 3)} s, x - x_k = {mp.nstr(x - xi, 3)} m')
check(abs(xf + (x0 - 5 * step)) < 1e-30 and vf == 0, "reference: rests at -(x0 - 5 (2F/k)) = -0.005 m")

for c in cs.load_all(ss):
    check(rf.read(c) is not None, f'cached reference of {c.name} matches {c.path}')

el = case.element(math)
# DOP853 at rtol 1e-10: local error ~1e-10 relative on |x| ~ 0.1 m, |v| ~ 1 m/s
# over 5 segments; an event time moves by dv / |a| with |a| >= 2.5 m/s^2:
# 1e-8 s leaves a factor of ~20 over what it reaches (7.5e-11 s at 1e-9).
err, n, n_ref, same = peers.event_error(scipy_loop.run(case, el, 'DOP853', 1e-10, 1e-13)[0], ref)
check(same and err < 1e-8, f'scipy DOP853 rtol 1e-10: same switches, max event error {err:.2e} s < 1e-8 s')

# Moreau-Jean on steps of h: every switch is seen in the step after it
# happens, so the error is below 2 h for each (no drift over 5 switches).
h = 1e-3
err, n, n_ref, same = peers.event_error(siconos_ts.run(case, el, h)[0], ref)
check(same and err < 2 * h, f'Siconos h = {h:g}: same switches, max event error {err:.2e} s < 2 h')

# stickslip at rtol 1e-10 (atol 1e-13): CVODE's root location to ~1e-10 s.
cpu, events, final = sr.InProcess(case, 1e-10, 1e-13)()
err, n, n_ref, same = peers.event_error(events, ref)
check(same and err < 1e-8, f'stickslip rtol 1e-10: same switches, max event error {err:.2e} s < 1e-8 s')

print(f'{len(failures)} failed' if failures else 'all passed')
sys.exit(1 if failures else 0)
