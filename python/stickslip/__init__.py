"""stickslip: exact dry-friction simulation from Python.

    import stickslip as ss
    cfg = ss.load("examples/janecek_chirp.yaml")
    cfg["friction.dynamic"] = 20.0
    r = ss.run(cfg, output_step=1e-3)
    r.t, r.x, r.v, r.friction, r.mode, r.events, r.stats
    r.save("out.mat")           # .h5, .mat or .csv, by the extension
    r.to_pandas()               # a DataFrame (pandas, optional)
    s = ss.sweep(cfg, {"friction.dynamic": [10, 15, 20]})   # threads: every core
    s = ss.study("examples/studies/janecek.yaml", output="janecek.h5")
    ss.read("janecek.h5")       # a run's, a study's or a convergence file
    c = ss.converge(cfg, scheme="karnopp", steps=[2e-3, 1e-3])  # or fmu="model.fmu"

Long runs, sweeps and studies show a text progress bar in a terminal or a
notebook; progress=callback(done, total) reports to your code instead.

Errors (docs/python.md): every failure is an ss.Error, by its cause
    ss.InputError   a bad configuration, key, value, argument or input file
                    (also a ValueError; the command's exit code 2)
    ss.FileError    a file could not be written (also an OSError; exit code 1)
    ss.SolverError  the run failed on the way (exit code 3); .result is the
                    partial Result
    ss.CancelledError  stopped by a Cancel; .result is what it reached
and an argument of the wrong type (None for a path, a number for a key) is
a TypeError naming the argument.

A binding (cffi, ABI mode) of the C API in stickslip.h; docs/python.md.
"""
from ._core import (Cancel, CancelledError, Config, Error, FileError, InputError, Result,
                    SolverError, load, read, run, version)
from ._names import names
from .compare import compare
from .convergence import Convergence, converge
from .sweep import Sweep, cores, study, sweep
from .system import SystemResult

__version__ = version()

# The errors are the package's (stickslip.InputError in tracebacks).
for _cls in (Error, InputError, FileError, SolverError, CancelledError):
    _cls.__module__ = __name__
del _cls

__all__ = ["Cancel", "CancelledError", "compare", "Config", "converge", "Convergence", "Error", "FileError", "InputError", "Result", "SolverError", "Sweep", "SystemResult", "cores", "load", "names",
           "read", "run", "study", "sweep", "__version__"]
