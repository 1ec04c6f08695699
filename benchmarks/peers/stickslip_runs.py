"""stickslip itself, in-process (the Python package over libstickslip) and as a process.

Both run the case's own configuration with simulation.rtol and .atol set, and
one output sample at t_end (the events and the final state are what is
compared; the samples between would only add output cost).
"""
import csv
import os
import resource
import subprocess
import time

import stickslip as ss


def settings(case, rtol, atol, method=None):
    s = {'simulation.rtol': rtol, 'simulation.atol': atol, 'simulation.output_step': case.t_end}
    if method:  # before rtol: the method sets rtol's range (erk8 goes to 1e-15)
        s = {'simulation.method': method, **s}
    return s


class InProcess:
    """ss.run on a prepared Config: CPU time of this process around the call."""

    def __init__(self, case, rtol, atol, method=None):
        self.cfg = ss.load(case.abspath)
        for k, v in settings(case, rtol, atol, method).items():
            self.cfg[k] = v

    def __call__(self):
        t0 = time.process_time()
        r = ss.run(self.cfg)
        cpu = time.process_time() - t0
        events = [(str(e['kind']), float(e['t']), float(e['x'])) for e in r.events]
        return cpu, events, (float(r.x[-1]), float(r.v[-1]))


class Process:
    """`stickslip run CONFIG -o OUT.h5 --csv PREFIX --set ... --quiet`: the
    child's CPU time (user + system, from its rusage), HDF5 and CSV written."""

    def __init__(self, case, rtol, atol, exe, tmpdir):
        self.prefix = os.path.join(tmpdir, case.name)
        self.argv = [exe, 'run', case.abspath, '-o', self.prefix + '.h5', '--csv', self.prefix, '--quiet']
        for k, v in settings(case, rtol, atol).items():
            self.argv += ['--set', f'{k}={v!r}']

    def __call__(self):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(self.argv, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        with open(self.prefix + '_events.csv') as f:
            events = [(row['kind'], float(row['t [s]']), float(row['x [m]'])) for row in csv.DictReader(f)]
        with open(self.prefix + '_trajectory.csv') as f:
            last = list(csv.DictReader(f))[-1]
        return cpu, events, (float(last['x [m]']), float(last['v [m/s]']))
