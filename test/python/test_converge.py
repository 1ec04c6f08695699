"""ss.converge: the study of `stickslip converge` in the process, through
stsl_converge.  The suite's FMUs (cmake/test_fmus.cmake) are the
candidates: the co-simulation Karnopp FMU against the command's built-in
karnopp scheme, and the model-exchange FMU of a smooth law integrated by
explicit Euler and RK4."""
import csv
import os
import re
import subprocess

import numpy as np
import pytest

import stickslip as ss

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CLI = os.environ.get("STICKSLIP_BIN", "stickslip")
JANECEK = os.path.join(SRC, "examples", "janecek_chirp.yaml")
FMUS = os.path.join(os.environ.get("STSL_BUILD_DIR", ""), "fmus")
# The Janecek example's element as the FMU's parameters (its YAML).
JANECEK_SET = {"m": 100, "k": 8882.643960980423, "c": 200, "F_D": 18, "F_S": 26}
# The CSV's columns that are not the candidate's cost.
TABLE = ("step", "max_abs_error_x", "rms_error_x", "max_abs_error_v", "final_error_x", "events",
         "events_missed", "events_spurious")

needs_fmus = pytest.mark.skipif(not os.path.exists(os.path.join(FMUS, "karnopp.fmu")),
                                reason="the suite's test FMUs are not built")


def cli_table(tmp_path, *args):
    out = tmp_path / "cli.csv"
    p = subprocess.run([CLI, "converge", *args, "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    names = [h.split(" [")[0] for h in rows[0]]
    return {n: np.array([float(r[i]) for r in rows[1:]]) for i, n in enumerate(names)}


@needs_fmus
def test_karnopp_fmu_is_the_karnopp_scheme(tmp_path):
    """The FMU does the scheme's operations in the scheme's order on the
    same inputs (tests/test_fmu.c argues it), so Python's table of the FMU
    equals `converge --scheme karnopp`'s CSV number for number: the CSV's
    17 significant digits read back to the same doubles, bound 0."""
    steps = [2e-3, 1e-3, 5e-4]
    c = ss.converge(JANECEK, fmu=os.path.join(FMUS, "karnopp.fmu"), fmu_set=JANECEK_SET,
                    steps=steps)
    want = cli_table(tmp_path, JANECEK, "--scheme", "karnopp", "--steps", "2e-3,1e-3,5e-4")
    assert c.scheme == "fmu " + os.path.join(FMUS, "karnopp.fmu")
    assert len(c) == 3 and list(c.step) == steps
    for name in TABLE:
        assert c.columns[name].tolist() == want[name].tolist(), name
    assert float(f"{c.order:.6g}") == want["order"][0]  # the CSV's 6 digits
    assert c.units["max_abs_error_x"] == "m" and c.units["max_abs_error_v"] == "m/s"
    # The same study with the built-in scheme in Python: the command's numbers too.
    k = ss.converge(JANECEK, scheme="karnopp", steps=steps)
    for name in TABLE:
        assert k.columns[name].tolist() == want[name].tolist(), name
    # Both runs see the reference's events: at the finer steps none missed.
    assert c.events_missed[1:].tolist() == [0, 0]
    assert c.reference["events"] > 0 and c.reference["steps"] > 0
    # Stuck times: an FMU has no modes, so its samples are stuck where |v| is
    # within 1e-6 of its largest (the rule its events come from), the
    # scheme's where its mode is STUCK.  The scheme sets v = 0 exactly when
    # it sticks, so the two differ only at samples that slip slower than
    # that threshold (about 0.1 % of the stuck time here); a candidate whose
    # samples all read as stuck would give 0.59.
    for a, b in zip(c.stuck_iou.tolist(), k.stuck_iou.tolist()):
        assert abs(a - b) < 5e-3


@needs_fmus
@pytest.mark.parametrize("scheme,order", [("euler", 1.0), ("rk4", 4.0)])
def test_model_exchange_order(tmp_path, scheme, order):
    """The model-exchange FMU of 20-sim's CV law, integrated by stickslip's
    explicit Euler or RK4: its observed order is the scheme's within 0.25,
    as tests/test_fmu.c argues (a smooth right-hand side, h times the
    largest rate <= 0.1: the asymptotic regime; the reference's error at
    rtol 1e-12 far below the smallest error)."""
    cfg = ss.Config.from_yaml(
        "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
        "friction: {law: 20sim_cv, tc: 1.0, slope: 10.0, d: 0.5}\n"
        "inputs:\n  active_force: {type: sine, amplitude: 5.0, frequency: 1.0}\n"
        "simulation: {t_end: 2.0, output_step: 0.001, rtol: 1.0e-12}\n")
    c = ss.converge(cfg, fmu=os.path.join(FMUS, "smooth_me.fmu"), fmu_scheme=scheme,
                    fmu_set={"k": 100, "tc": 1, "slope": 10, "d": 0.5},
                    steps=[1e-2, 5e-3, 2.5e-3], output=tmp_path / "me.csv")
    assert abs(c.order - order) <= 0.25
    assert abs(c.orders["max_abs_error_v"] - order) <= 0.25
    # The file the command would write: its order column is this order.
    with open(tmp_path / "me.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert float(rows[1][rows[0].index("order")]) == float(f"{c.order:.6g}")


@needs_fmus
def test_fmu_errors():
    """Bad arguments name what is wrong, as the command's messages do."""
    with pytest.raises(ss.InputError, match="scheme and fmu exclude each other"):
        ss.converge(JANECEK, scheme="karnopp", fmu=os.path.join(FMUS, "karnopp.fmu"),
                    steps=[1e-3, 5e-4])
    with pytest.raises(ss.InputError, match="unknown variable 'nope'"):
        ss.converge(JANECEK, fmu=os.path.join(FMUS, "karnopp.fmu"), fmu_set={"nope": 1},
                    steps=[1e-3, 5e-4])
    with pytest.raises(ss.InputError, match="at least two distinct steps"):
        ss.converge(JANECEK, scheme="karnopp", steps=[1e-3, 1e-3])
    with pytest.raises(ss.InputError, match="steps: 20 is longer than t_end = 9.5 s"):
        ss.converge(JANECEK, scheme="karnopp", steps=[1e-3, 20.0])
    with pytest.raises(ss.SolverError, match="at step 0.001: .*fmi2DoStep at t = 0.5 s"):
        ss.converge(JANECEK, fmu=os.path.join(FMUS, "step_error.fmu"), fmu_set=JANECEK_SET,
                    steps=[1e-3, 5e-4])
    with pytest.raises(TypeError, match="steps"):
        ss.converge(JANECEK, scheme="karnopp", steps="1e-3,5e-4")
    for bad in (0, -1.0, "1s"):
        with pytest.raises((ss.InputError, TypeError), match="fmu_timeout"):
            ss.converge(JANECEK, fmu=os.path.join(FMUS, "karnopp.fmu"), fmu_set=JANECEK_SET,
                        steps=[1e-3, 5e-4], fmu_timeout=bad)


@needs_fmus
def test_fmu_timeout():
    """The suite's hanging FMU never returns from fmi2DoStep once t >= 0.5 s,
    so a 1 s limit must end the study there.  The limit is wall time: on a
    machine so loaded that the FMU made no call for a second before 0.5 s
    an earlier call would be stopped, so only what holds under any load is
    asserted (a SolverError naming a call, a time <= 0.5 s and the limit)."""
    with pytest.raises(ss.SolverError) as e:
        ss.converge(JANECEK, fmu=os.path.join(FMUS, "hang.fmu"), fmu_set=JANECEK_SET,
                    steps=[1e-3, 5e-4], fmu_timeout=1)
    m = re.search(r"did not return from fmi2\w+ at t = (\S+) s within 1 s", str(e.value))
    assert m and float(m.group(1)) <= 0.5, str(e.value)


def test_missing_module(monkeypatch, tmp_path):
    """The FMU support is loaded only for an FMU: a scheme's study runs
    without it, an FMU's names the module it could not load (a FileError,
    the command's exit 1)."""
    monkeypatch.setenv("STICKSLIP_FMU_MODULE", "/nonexistent/stickslip_fmu.so")
    c = ss.converge(JANECEK, scheme="karnopp", steps=[2e-3, 1e-3])
    assert len(c) == 2
    with pytest.raises(ss.FileError, match="cannot load the FMU module /nonexistent/"):
        ss.converge(JANECEK, fmu=tmp_path / "m.fmu", steps=[2e-3, 1e-3])
