"""stickslip: exact dry-friction simulation from Python.

    import stickslip as ss
    cfg = ss.load("examples/janecek_chirp.yaml")
    cfg["friction.dynamic"] = 20.0
    r = ss.run(cfg, output_step=1e-3)
    r.t, r.x, r.v, r.friction, r.mode, r.events, r.stats

A binding (cffi, ABI mode) of the C API in stickslip.h; README, "Python".
"""
from ._core import (Cancel, CancelledError, Config, Error, FileError, InputError, Result,
                    SolverError, load, read, run, version)
from .compare import compare
from .sweep import Sweep, sweep
from .system import SystemResult

__version__ = version()

__all__ = ["Cancel", "CancelledError", "compare", "Config", "Error", "FileError", "InputError", "Result", "SolverError", "Sweep", "SystemResult", "load",
           "read", "run", "sweep", "__version__"]
