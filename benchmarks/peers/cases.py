"""The four cases of the peers benchmark, read from their stickslip configs.

Each case's parameters come from the effective configuration stickslip itself
reads (stickslip.load(...).to_yaml()), so the peers, the exact reference and
stickslip integrate the same doubles.  `element(case, M)` builds the element
of test/reference/exact_element.py over the math namespace M (math for the
float peers, mpmath for the reference).
"""
import math
import os
import sys

import mpmath as mp
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'test', 'reference'))
import exact_element as ex  # noqa: E402

CASES = [
    ('janecek', 'examples/janecek_chirp.yaml'),
    ('den_hartog', 'examples/den_hartog.yaml'),
    ('belt', 'examples/belt_stick_slip.yaml'),
    ('dalla_vedova', 'benchmarks/peers/dalla_vedova_cycle.yaml'),
]

SIGNALS = {
    'constant': (ex.Constant, ('value',)),
    'ramp': (ex.Ramp, ('start_time', 'slope', 'initial')),
    'step': (ex.Step, ('time', 'before', 'after')),
    'sine': (ex.Sine, ('amplitude', 'frequency', 'phase', 'offset')),
    'janecek_chirp': (ex.JanecekChirp, ('amplitude', 'f_max', 't_max')),
}


class Case:
    def __init__(self, name, path, ss):
        self.name, self.path = name, path
        self.abspath = os.path.join(ROOT, path)
        self.config_yaml = ss.load(self.abspath).to_yaml()
        self.cfg = yaml.safe_load(self.config_yaml)
        sim = self.cfg['simulation']
        self.t_end = float(sim['t_end'])
        self.x0 = float(self.cfg['initial']['position'])
        self.v0 = float(self.cfg['initial']['velocity'])

    def num(self, M, v):
        return mp.mpf(float(v)) if M is mp else float(v)

    def signal(self, M, spec):
        cls, keys = SIGNALS[spec['type']]
        return cls(M, *[self.num(M, spec[k]) for k in keys])

    def element(self, M):
        c, n = self.cfg, lambda v: self.num(M, v)
        el, fr, inp = c['element'], c['friction'], c['inputs']
        if fr['law'] != 'coulomb':
            raise ValueError(f'{self.path}: the peers model the coulomb law only')
        spring = el.get('spring', {})
        stops = c.get('end_stops', {})
        return ex.Element(
            M, n(el['mass']), n(spring.get('stiffness', 0)), n(el.get('damper', {}).get('coefficient', 0)),
            n(spring.get('free_position', 0)), n(fr['dynamic']), n(self.static_ratio(fr)),
            n(fr['efficiency_opposing']), n(fr['efficiency_aiding']),
            self.signal(M, inp['active_force']), self.signal(M, inp['load']),
            self.signal(M, inp['base_motion']),
            self.signal(M, inp['anchor_motion']) if 'anchor_motion' in inp else None,
            n(stops.get('min', -math.inf)), n(stops.get('max', math.inf)))

    @staticmethod
    def static_ratio(fr):
        """The ratio stickslip uses: the double static / dynamic when the
        configuration gives the static level as a force, else static_ratio
        (1 when absent)."""
        if 'static' in fr:
            return float(fr['static']) / float(fr['dynamic'])
        return float(fr.get('static_ratio', 1.0))

    def stuck_max_step(self):
        """The step bound of a constant state (SPEC §1.2): 1/20 of the fastest
        input's period, the bound stickslip uses, so no peer steps over a
        breakaway that comes and goes within one step."""
        h = math.inf
        for spec in self.cfg['inputs'].values():
            f = {'sine': spec.get('frequency'), 'janecek_chirp': spec.get('f_max')}.get(spec['type'])
            if f:
                h = min(h, 1.0 / (20.0 * float(f)))
        return h


def load_all(ss, names=None):
    return [Case(n, p, ss) for n, p in CASES if names is None or n in names]
