#!/usr/bin/python3
"""Exact references of the peers benchmark's cases, cached under reference/.

Each case is solved by test/reference/exact_element.py (mpmath, 45 digits,
piecewise Taylor series, switches refined by root finding) from the doubles
of its effective stickslip configuration.  The cache file holds the events
(kind, t, x after) and the state at t_end to 25 digits, with the SHA-256 of
the effective configuration it was computed from: benchmarks/peers/run
recomputes a reference whose configuration changed.

Regenerate all:  PYTHONPATH=build/release/python /usr/bin/python3 benchmarks/peers/reference.py [CASE...]
"""
import hashlib
import os
import sys

import mpmath as mp

import cases as cs

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'reference')
DIGITS = 25


def digest(case):
    return hashlib.sha256(case.config_yaml.encode()).hexdigest()


def path(case):
    return os.path.join(DIR, case.name + '.txt')


def compute(case):
    mp.mp.dps = 45
    solver = cs.ex.Solver(case.element(mp), case.t_end, case.x0, case.v0)
    events = solver.run()
    x, v = solver.final
    return {'events': [(k, float(t), float(xe)) for k, t, xe in events],
            'final': (float(x), float(v)), 'text': (events, x, v)}


def write(case, ref):
    events, x, v = ref['text']
    with open(path(case), 'w') as f:
        f.write(f'# exact reference of {case.path} (benchmarks/peers/reference.py:\n'
                f'# mpmath 45 digits, piecewise Taylor series, switches by root finding)\n')
        f.write(f'config_sha256 {digest(case)}\n')
        for kind, t, xe in events:
            f.write(f'event {kind} {mp.nstr(t, DIGITS)} {mp.nstr(xe, DIGITS)}\n')
        f.write(f'final {mp.nstr(mp.mpf(case.t_end), DIGITS)} {mp.nstr(x, DIGITS)} {mp.nstr(v, DIGITS)}\n')


def read(case):
    """The cached reference, or None when it is missing or stale."""
    try:
        with open(path(case)) as f:
            lines = [ln.split() for ln in f if not ln.startswith('#')]
    except FileNotFoundError:
        return None
    if lines[0] != ['config_sha256', digest(case)]:
        return None
    events = [(w[1], float(w[2]), float(w[3])) for w in lines if w[0] == 'event']
    fin = [w for w in lines if w[0] == 'final'][0]
    return {'events': events, 'final': (float(fin[2]), float(fin[3]))}


def get(case, log=print):
    ref = read(case)
    if ref is None:
        log(f'reference: computing {case.name} (cache missing or stale)')
        ref = compute(case)
        write(case, ref)
    return ref


def main(argv):
    import stickslip as ss
    os.makedirs(DIR, exist_ok=True)
    for case in cs.load_all(ss, argv or None):
        ref = compute(case)
        write(case, ref)
        print(f'{case.name}: {len(ref["events"])} events, final x = {ref["final"][0]:.17g}')


if __name__ == '__main__':
    main(sys.argv[1:])
