#!/usr/bin/python3
"""`stickslip plot STUDY.h5 --z COLUMN`: the parameter map of a study file.

A 3 x 2 grid over den_hartog.yaml with one invalid friction level: the heat
map's cells are the file's column at the variants' (x, y), the failed
variants are the red crosses, the line for one key is the column against
that key in order; three keys give a scatter matrix; unknown keys and
columns are one-line errors with exit 2."""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import stickslip_plot as sp  # noqa: E402

BIN = os.environ["STICKSLIP_BIN"]
BASE = os.path.join(ROOT, "examples", "den_hartog.yaml")


def sweep(d, name, vary):
    study, out = os.path.join(d, name + ".yaml"), os.path.join(d, name + ".h5")
    with open(study, "w") as f:
        f.write(f"base: {BASE}\nvary:\n" + "".join(f"  {k}: {{values: {v}}}\n" for k, v in vary))
    subprocess.run([BIN, "sweep", study, "-o", out, "-q", "-j", "1"], check=False,
                   stderr=subprocess.DEVNULL)  # exit 3 and its list: the invalid variants
    return out


def plot(*args):
    return subprocess.run([BIN, "plot", *args], capture_output=True, text=True)


def crosses(ax):
    """(x, y) of the failed-variant markers."""
    return [tuple(p) for ln in ax.get_lines() if ln.get_marker() == "x"
            for p in np.column_stack([ln.get_xdata(), ln.get_ydata()])]


def main():
    with tempfile.TemporaryDirectory() as d:
        two = sweep(d, "two", [("element.mass", "[1, 2, 3]"), ("friction.dynamic", "[0.5, -1]")])
        with h5py.File(two) as f:
            z = f["study/summary/dissipated_energy"][()]
            status = f["study/summary/status"][()]
        assert list(status) == [0, 1] * 3, status
        s = sp.load_study(two)
        fig = sp.study_figure(s, two, z="dissipated_energy")
        ax = fig.axes[0]
        # rows: friction -1, 0.5 (ascending); columns: mass 1, 2, 3
        mesh = np.ma.filled(ax.collections[0].get_array(), np.nan).reshape(2, 3)
        assert np.array_equal(mesh[1], z[0::2]), (mesh, z)  # friction 0.5: the file's values
        assert np.isnan(mesh[0]).all(), mesh  # the invalid row is blank ...
        assert sorted(crosses(ax)) == [(1.0, -1.0), (2.0, -1.0), (3.0, -1.0)], crosses(ax)  # ... and crossed
        # Every axis carries its unit: the keys' from docs/configuration.md
        # (mass kg, friction level N), the column's from the file.
        assert (ax.get_xlabel(), ax.get_ylabel()) == ("element.mass [kg]", "friction.dynamic [N]"), \
            (ax.get_xlabel(), ax.get_ylabel())
        assert fig.axes[1].get_ylabel() == "dissipated_energy [J]", fig.axes[1].get_ylabel()
        fig = sp.study_figure(s, two, x="element.mass", z="dissipated_energy")
        ln = fig.axes[0].get_lines()[0]
        assert list(ln.get_xdata()) == [1, 2, 3] and np.array_equal(ln.get_ydata(), z[0::2])
        assert fig.axes[0].get_xlabel() == "element.mass [kg]", fig.axes[0].get_xlabel()
        # The same key in a rotational model: an inertia.
        assert sp.parameter_units("element.mass", "rotational") == "kg·m²"
        assert sp.parameter_units("inputs.base_motion.amplitude") == "m"
        assert sp.parameter_units("inputs.load.frequency") == "Hz"
        assert sp.parameter_units("inputs.base_motion.slope") == "m/s"  # a ramp's rate

        # A count (events_reversal: 6, 4, 3 for the valid variants) gets a
        # discrete colour bar: one colour per integer from 3 to 6, boundaries
        # at the half-integers, a tick on each integer.
        with h5py.File(two) as f:
            rev = f["study/summary/events_reversal"][()][status == 0]
            steps = f["study/summary/steps"][()][status == 0]
        assert sorted(rev) == [3, 4, 6], rev
        fig = sp.study_figure(s, two, z="events_reversal")
        mesh = fig.axes[0].collections[0]
        assert list(mesh.norm.boundaries) == [2.5, 3.5, 4.5, 5.5, 6.5], mesh.norm.boundaries
        assert list(mesh.colorbar.get_ticks()) == [3, 4, 5, 6], mesh.colorbar.get_ticks()
        # A count has no unit in the file: its colour bar reads [-], as a
        # dimensionless key does.
        assert mesh.colorbar.ax.get_ylabel() == "events_reversal [-]", mesh.colorbar.ax.get_ylabel()
        # A wide count (steps, hundreds apart) takes an odd step: ticks still
        # integers, round, inside the range and never more than COUNT_TICKS.
        assert steps.max() - steps.min() > 24, steps
        mesh = sp.study_figure(s, two, z="steps").axes[0].collections[0]
        ticks = mesh.colorbar.get_ticks()
        assert 2 <= len(ticks) <= sp.COUNT_TICKS and all(float(t).is_integer() for t in ticks), ticks
        assert steps.min() <= ticks[0] and ticks[-1] <= steps.max(), (ticks, steps)
        # The ticks of a count's colour bar against hand-counted ones: a
        # narrow range gets every integer up to COUNT_TICKS of them, a wider
        # one the multiples of 2, 5, 10, ... that keep them at most that
        # many (22 integers 0 .. 21: 0, 5, ..., 20 and not one tick each).
        def ticks_of(lo, hi):
            return [int(t) for t in sp.count_ticks(lo, hi)]
        assert ticks_of(3, 6) == [3, 4, 5, 6]
        assert ticks_of(0, 10) == list(range(11))
        assert ticks_of(0, 21) == [0, 5, 10, 15, 20], ticks_of(0, 21)
        assert ticks_of(1, 12) == [2, 4, 6, 8, 10, 12], ticks_of(1, 12)
        assert ticks_of(7, 7) == [7]
        assert ticks_of(310, 544) == [350, 400, 450, 500], ticks_of(310, 544)
        # ... while the colours stay one per integer: 22 bins for 0 .. 21.
        fake = {"integer": {"n"}}
        kw, t = sp._color_args(fake, "n", np.arange(22.0))
        assert list(kw["norm"].boundaries) == [i - 0.5 for i in range(23)], kw["norm"].boundaries
        assert [int(x) for x in t] == [0, 5, 10, 15, 20], t
        # A ratio without a unit is [-] on a line's y axis too; a column with
        # a unit keeps it.
        fig = sp.study_figure(s, two, x="element.mass", z="stuck_fraction")
        assert fig.axes[0].get_ylabel() == "stuck_fraction [-]", fig.axes[0].get_ylabel()
        assert sp._column_label(s, "t_reached") == "t_reached [s]"
        # A float column keeps a continuous colour bar.
        fig = sp.study_figure(s, two, z="dissipated_energy")
        assert not hasattr(fig.axes[0].collections[0].norm, "boundaries")

        three = sweep(d, "three", [("element.mass", "[1, 2]"), ("friction.dynamic", "[0.5, 1]"),
                                   ("element.spring.stiffness", "[50, 100]")])
        fig = sp.study_figure(sp.load_study(three), three, z="stuck_fraction")
        assert len([a for a in fig.axes if a.axison]) == 3 + 3 + 1, fig.axes  # 3 diag, 3 below, colorbar

        # A system's keys address contacts and stops by index: the axes
        # name each, by its `name:` or the two ends it joins.
        sysyaml = os.path.join(d, "pair.yaml")
        with open(sysyaml, "w") as f:
            f.write("bodies: {a: {mass: 1.0}, b: {mass: 2.0}}\n"
                    "contacts:\n"
                    "  - {body: a, law: coulomb, dynamic: 1.0}\n"
                    "  - {name: grip, between: [a, b], law: coulomb, dynamic: 2.0}\n"
                    "inputs: {forces: {a: {type: constant, value: 5.0}}}\n"
                    "simulation: {t_end: 0.1}\n")
        pair = os.path.join(d, "pair_study.yaml")
        with open(pair, "w") as f:
            f.write(f"base: {sysyaml}\nvary:\n  contacts.0.dynamic: {{values: [0.5, 1]}}\n"
                    "  contacts.1.dynamic: {values: [2, 3]}\n")
        pair_h5 = os.path.join(d, "pair.h5")
        subprocess.run([BIN, "sweep", pair, "-o", pair_h5, "-q", "-j", "1"], check=True)
        ax = sp.study_figure(sp.load_study(pair_h5), pair_h5, z="steps").axes[0]
        assert (ax.get_xlabel(), ax.get_ylabel()) == ("contacts.0.dynamic (a/base) [N]",
                                                      "contacts.1.dynamic (grip) [N]"), \
            (ax.get_xlabel(), ax.get_ylabel())

        png = os.path.join(d, "map.png")
        p = plot(two, "--z", "dissipated_energy", "-o", png)
        assert p.returncode == 0 and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", p.stderr
        p = plot(two, "--z", "nonsense", "-o", png)
        assert p.returncode == 2 and p.stderr.count("\n") == 1, p
        assert p.stderr.startswith(f"stickslip plot: error: {two}: no summary column 'nonsense' (one of: "), p.stderr
        p = plot(two, "--x", "element.nope", "--z", "steps", "-o", png)
        assert p.returncode == 2 and p.stderr == (f"stickslip plot: error: {two}: 'element.nope' is not a "
                                                  "varied key of the study (varied: element.mass, "
                                                  "friction.dynamic)\n"), p.stderr
        p = plot(two, "-o", png)
        assert p.returncode == 2 and "a study needs --z COLUMN" in p.stderr, p.stderr
    print("ok")


if __name__ == "__main__":
    main()
