"""ss.compare: the metrics of `stickslip compare` for arrays in Python.

The metrics (re-running the reference at the candidate's times, stuck-time
IoU, event matching, dissipated energy) are defined once, in the library's
models/validation and the command's compare; the C API does not export them
yet, so this runs the command on a temporary reference file and a CSV of the
arrays (written with 17 significant digits: every double exactly) and
returns its JSON report as a dict.
"""
import json
import os
import subprocess
import tempfile

import numpy as np

from ._core import FileError, InputError, SolverError


def _program():
    # STICKSLIP_BIN overrides the command found at build or install time.
    path = os.environ.get("STICKSLIP_BIN")
    if path:
        return path
    from ._libpath import PROGRAM

    return PROGRAM


def compare(result, t, x, v, friction=None, event_window=None, stuck_velocity=None):
    """Judge the candidate trajectory (t, x, v[, friction]) against the
    exact `result`; returns the report of `stickslip compare -o` as a dict
    (max_abs_error_x, rms_error_v, stuck_iou, events_matched, ...)."""
    cols = {"t": t, "x": x, "v": v}
    if friction is not None:
        cols["friction"] = friction
    arrays = [np.asarray(a, dtype=np.float64).ravel() for a in cols.values()]
    if len({len(a) for a in arrays}) != 1:
        raise InputError("compare: t, x, v (and friction) must have the same length")
    with tempfile.TemporaryDirectory(prefix="stickslip_compare_") as d:
        ref, cand, report = (os.path.join(d, n) for n in ("ref.h5", "cand.csv", "report.json"))
        result.save(ref)
        np.savetxt(cand, np.column_stack(arrays), fmt="%.17g", delimiter=",",
                   header=",".join(cols), comments="")
        cmd = [_program(), "compare", ref, cand, "-o", report]
        if event_window is not None:
            cmd += ["--event-window", repr(float(event_window))]
        if stuck_velocity is not None:
            cmd += ["--stuck-velocity", repr(float(stuck_velocity))]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            message = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "compare failed"
            error = {2: InputError, 3: SolverError}.get(p.returncode, FileError)
            raise error(message.replace(cand, "<candidate>"))
        with open(report, encoding="utf-8") as f:
            return json.load(f)
