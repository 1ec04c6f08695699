#!/usr/bin/python3
"""ctest test_system_tools: `stickslip info`, `compare` and `plot` on the
result of a system of bodies (issue 14 stage 7).

The files are written by test/system_result.py in the layout of systems
(2-D /trajectory groups with `names`, events with their subject), so every
number the tools report is known: stuck intervals, event counts, the largest
friction.  The binary comes from $STICKSLIP_BIN (set by CMake), else
build/debug."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test"))

import numpy as np  # noqa: E402

import system_result as sr  # noqa: E402

BIN = os.environ.get("STICKSLIP_BIN") or os.path.join(ROOT, "build", "debug", "stickslip")
TMP = None


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=TMP)


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="test_system_tools_")


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def table_row(text, first):
    """The fields of the table row whose first field is `first`."""
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == first:
            return f
    raise AssertionError(f"no row '{first}' in:\n{text}")


class Info(unittest.TestCase):
    def check(self, path):
        p = run("info", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertIn("Status:      complete", out)
        self.assertIn("Samples:     108", out)  # 101 grid points + 7 event instants twice
        self.assertIn("Bodies:      2", out)
        # motor: x = sin(2 pi t): final sin(2 pi) ~ 0, range [-1, 1]; load: x = t^2/2.
        motor, load = table_row(out, "motor"), table_row(out, "load")
        self.assertAlmostEqual(float(motor[1]), 0.0, delta=1e-12)
        self.assertAlmostEqual(float(motor[2]), 2 * np.pi, places=7)
        self.assertEqual((float(motor[3]), float(motor[4])), (-1.0, 1.0))
        self.assertEqual([float(v) for v in load[1:5]], [0.5, 1.0, 0.0, 0.5])
        # contact 0 stuck on [0, 0.2) and [0.5, 0.7): 0.4 s of 1 s, 1 stick, 2
        # breakaways, largest |friction| 1.5 (the one sample set to -1.5).
        c0, clutch = table_row(out, "contacts.0"), table_row(out, "clutch")
        self.assertAlmostEqual(float(c0[1]), 0.4, places=12)
        self.assertEqual(c0[2:], ["40.00", "1", "2", "1.5"])
        self.assertAlmostEqual(float(clutch[1]), 0.3, places=12)
        self.assertEqual(clutch[2:], ["30.00", "1", "1", "0.5"])
        # backlash: one contact (stop_contact), one impact, 0.05 s on the stop.
        bl = table_row(out, "backlash")
        self.assertEqual(bl[1:3], ["1", "1"])
        self.assertAlmostEqual(float(bl[3]), 0.05, places=12)
        self.assertIn("Events:      8", out)
        counts = re.findall(r"^  (\w+) +(\S+) +(\d+)$", out, re.M)
        self.assertIn(("breakaway", "contacts.0", "2"), counts)
        self.assertIn(("stick", "clutch", "1"), counts)
        self.assertIn(("impact", "backlash", "1"), counts)
        self.assertEqual(sum(int(c[2]) for c in counts), 8)
        rows = [ln.split() for ln in out.splitlines() if re.match(r"^ +0\.\d+ +[a-z_]+ +\S+$", ln)]
        self.assertEqual([(float(r[0]), r[1], r[2]) for r in rows],
                         [(t, k, (sr.CONTACTS + sr.STOPS)[s]) for t, k, s in sr.EVENTS])

    def test_tables(self):
        self.check(sr.write(os.path.join(TMP, "sys.h5")))

    def test_events_limit_and_incomplete(self):
        path = sr.write(os.path.join(TMP, "inc.h5"), complete=False)
        p = run("info", path, "--events", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Status:      INCOMPLETE: stopped by a test", p.stdout)
        self.assertIn("... 5 more", p.stdout)

    def test_a_group_without_names_is_refused(self):
        path = sr.write(os.path.join(TMP, "nonames.h5"))
        import h5py
        with h5py.File(path, "a") as f:
            del f["trajectory/friction"].attrs["names"]
        p = run("info", path)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.strip(), f"stickslip: error: {path}: /trajectory/friction: no attribute "
                         "'names' with one name per column (2)")


class Compare(unittest.TestCase):
    """Two systems' results member by member: x[body], v[body], contacts, stops."""

    def compare(self, ref, cand, *extra, code=0):
        out = os.path.join(TMP, "report.json")
        p = run("compare", ref, cand, "-o", out, *extra)
        self.assertEqual(p.returncode, code, p.stderr)
        if code:
            return p
        import json
        with open(out, encoding="utf-8") as f:
            return p, json.load(f)

    def test_identical_files_agree_exactly(self):
        ref = sr.write(os.path.join(TMP, "ref.h5"))
        p, rep = self.compare(ref, ref)
        self.assertEqual(rep["n_points"], 108)
        self.assertEqual([b["name"] for b in rep["bodies"]], sr.BODIES)
        for b in rep["bodies"]:
            for k, v in b.items():
                if k != "name":
                    self.assertEqual(v, 0.0, (b["name"], k))
        for c, want in zip(rep["contacts"], (0.4, 0.3)):
            self.assertAlmostEqual(c["stuck_time_reference"], want, places=12)
            self.assertEqual(c["stuck_time_reference"], c["stuck_time_candidate"])
            self.assertEqual(c["stuck_iou"], 1.0)
            self.assertEqual(c["dissipated_energy_reference"], c["dissipated_energy_candidate"])
            self.assertEqual((c["events_missed"], c["events_spurious"]), (0, 0))
        self.assertEqual([c["events_matched"] for c in rep["contacts"]], [3, 2])
        self.assertEqual(rep["stops"], [{"name": "backlash", "events_matched": 3, "events_missed": 0,
                                         "events_spurious": 0, "max_event_time_error": 0.0}])
        self.assertIn("x[motor]", p.stdout)
        self.assertIn("v[load]", p.stdout)

    def test_errors_per_column_are_the_closed_form(self):
        """The candidate's load moves 1.1 times as far: x error 0.05 t^2,
        v error 0.1 t; the motor's columns are equal."""
        ref, cand = sr.write(os.path.join(TMP, "ref.h5")), sr.write(os.path.join(TMP, "c11.h5"), scale=1.1)
        _, rep = self.compare(ref, cand)
        motor, load = rep["bodies"]
        self.assertEqual((motor["max_abs_error_x"], motor["max_abs_error_v"]), (0.0, 0.0))
        # 1.1 * 0.5 - 0.5 and 1.1 - 1 in doubles: a few ulps of 0.05 and 0.1.
        self.assertAlmostEqual(load["max_abs_error_x"], 0.05, delta=1e-15)
        self.assertAlmostEqual(load["final_error_x"], 0.05, delta=1e-15)
        self.assertAlmostEqual(load["max_abs_error_v"], 0.1, delta=1e-15)
        # Time-weighted RMS by the trapezoidal rule on the file's rows ...
        t = sr.rows()[0]
        ex = 0.05 * t ** 2
        self.assertAlmostEqual(load["rms_error_x"], np.sqrt(np.trapz(ex ** 2, t)), delta=1e-15)
        # ... close to the integral's closed form sqrt(0.05^2 / 5): the rule's
        # error is h^2/12 [f']_0^1 = 8e-8 on 5e-4 at h = 0.01 (below 1e-4 relative).
        self.assertLess(abs(load["rms_error_x"] / np.sqrt(0.05 ** 2 / 5) - 1), 1e-4)
        # Stuck intervals and events are the same: only the clutch's energy
        # differs (its slip velocity is the motor's minus the load's).
        self.assertEqual([c["stuck_iou"] for c in rep["contacts"]], [1.0, 1.0])
        c0, clutch = rep["contacts"]
        self.assertEqual(c0["dissipated_energy_reference"], c0["dissipated_energy_candidate"])
        self.assertNotEqual(clutch["dissipated_energy_reference"], clutch["dissipated_energy_candidate"])

    def test_between_reference_samples_values_are_linear(self):
        """A candidate sampled half a step off the reference's grid, with the
        exact values there: the motor's x = sin(2 pi t) from the reference is
        linear between samples, off by at most h^2/8 max|x''| = 4.93e-4."""
        ref = sr.write(os.path.join(TMP, "ref.h5"))
        cand = sr.write(os.path.join(TMP, "shift.h5"), shift=0.005)
        _, rep = self.compare(ref, cand)
        err = rep["bodies"][0]["max_abs_error_x"]
        self.assertGreater(err, 1e-4)
        self.assertLessEqual(err, 0.01 ** 2 / 8 * (2 * np.pi) ** 2)
        # t^2 / 2 of the load: interpolation error h^2/8 x'' = 1.25e-5 exactly.
        self.assertAlmostEqual(rep["bodies"][1]["max_abs_error_x"], 0.01 ** 2 / 8, delta=1e-12)

    def test_events_per_subject(self):
        ref = sr.write(os.path.join(TMP, "ref.h5"))
        events = [e for e in sr.EVENTS if e != (0.7, "breakaway", 0)]  # one missed
        events = [(0.31, k, s) if (t, k, s) == (0.3, "stick", 1) else (t, k, s) for t, k, s in events]
        cand = sr.write(os.path.join(TMP, "ev.h5"), events=events)
        _, rep = self.compare(ref, cand)
        c0, clutch = rep["contacts"]
        self.assertEqual((c0["events_matched"], c0["events_missed"], c0["events_spurious"]), (2, 1, 0))
        self.assertEqual((clutch["events_matched"], clutch["events_missed"]), (2, 0))
        self.assertAlmostEqual(clutch["max_event_time_error"], 0.01, delta=1e-15)
        # A window below the shift: the stick is missed and spurious.
        _, rep = self.compare(ref, cand, "--event-window", "0.005")
        clutch = rep["contacts"][1]
        self.assertEqual((clutch["events_matched"], clutch["events_missed"], clutch["events_spurious"]),
                         (1, 1, 1))

    def test_different_names_are_refused(self):
        ref = sr.write(os.path.join(TMP, "ref.h5"))
        gear = sr.write(os.path.join(TMP, "gear.h5"), bodies=["motor", "gear"])
        p = self.compare(ref, gear, code=2)
        self.assertEqual(p.stderr.strip(), f"stickslip compare: error: {ref} and {gear} have different "
                         f"bodies: only in {ref}: load; only in {gear}: gear")
        brake = sr.write(os.path.join(TMP, "brake.h5"), contacts=["contacts.0", "brake"])
        p = self.compare(ref, brake, code=2)
        self.assertEqual(p.stderr.strip(), f"stickslip compare: error: {ref} and {brake} have different "
                         f"contacts: only in {ref}: clutch; only in {brake}: brake")

    def test_a_system_against_an_element_is_refused(self):
        ref = sr.write(os.path.join(TMP, "ref.h5"))
        element = os.path.join(TMP, "element.h5")
        p = run("run", os.path.join(ROOT, "examples", "den_hartog.yaml"), "-o", element, "--quiet")
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.compare(ref, element, code=2)
        self.assertEqual(p.stderr.strip(), f"stickslip compare: error: {ref}: the result of a system of "
                         f"bodies; {element} is not: compare a system's result with another of the same "
                         "system")
        p = self.compare(ref, ref, "--columns", "t,x,v", code=2)
        self.assertIn("--columns t,x,v: not for systems' results", p.stderr)


class Plot(unittest.TestCase):
    """What is drawn: one panel per body, each contact's stuck intervals
    shaded on the bodies it acts on, events marked where they belong."""

    @classmethod
    def setUpClass(cls):
        import matplotlib

        matplotlib.use("Agg")
        import stickslip_plot as sp

        cls.sp = sp
        cls.path = sr.write(os.path.join(TMP, "plot.h5"))

    def panels(self, fig):
        """Body name -> its panel (the axes titled on the left)."""
        return {a.get_title(loc="left"): a for a in fig.axes if a.get_title(loc="left")}

    def spans(self, ax, contact):
        """The shaded intervals of one contact on a panel: [(t0, t1), ...]."""
        colls = [c for c in ax.collections if c.get_label() == f"stuck: {contact}"]
        if not colls:
            return []
        self.assertEqual(len(colls), 1)
        return [(float(p.vertices[0, 0]), float(p.vertices[2, 0])) for p in colls[0].get_paths()]

    def test_one_panel_per_body_shaded_per_contact(self):
        res = self.sp.load_result(self.path)
        fig = self.sp.figure(res, "time")
        panels = self.panels(fig)
        self.assertEqual(list(panels), sr.BODIES)
        motor, load = panels["motor"], panels["load"]
        # contacts.0 holds the motor against the ground: shaded on the motor
        # only; the clutch joins motor and load: shaded on both.
        self.assertEqual(self.spans(motor, "contacts.0"), sr.STUCK[0])
        self.assertEqual(self.spans(load, "contacts.0"), [])
        self.assertEqual(self.spans(motor, "clutch"), sr.STUCK[1])
        self.assertEqual(self.spans(load, "clutch"), sr.STUCK[1])
        colors = {c.get_label(): tuple(c.get_facecolor()[0]) for c in motor.collections}
        self.assertNotEqual(colors["stuck: contacts.0"], colors["stuck: clutch"])
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        self.assertEqual(labels[:2], ["stuck: contacts.0", "stuck: clutch"])
        for kind in ("stick", "breakaway", "impact", "stop_contact", "stop_release"):
            self.assertIn(f"event: {kind}", labels)
        # Position on the left axis, velocity on the right, with the file's units.
        self.assertEqual(motor.get_ylabel(), "motor: x [m]")
        self.assertEqual([ln.get_label() for ln in motor.get_lines()][0], "x motor")
        # Breakaways on the motor: contacts.0 at 0.2 and 0.7, the clutch at 0.6;
        # on the load only the clutch's, at the load's position then.
        brk = {n: [ln for ln in p.get_lines() if ln.get_label() == "event: breakaway"][0]
               for n, p in panels.items()}
        self.assertEqual(sorted(brk["motor"].get_xdata()), [0.2, 0.6, 0.7])
        self.assertEqual(list(brk["load"].get_xdata()), [0.6])
        self.assertAlmostEqual(brk["load"].get_ydata()[0], 0.5 * 0.6 ** 2, places=12)

    def test_window_clips_the_shading(self):
        res = self.sp.load_result(self.path)
        fig = self.sp.figure(res, "time", t0=0.1, t1=0.55)
        motor = self.panels(fig)["motor"]
        self.assertEqual(self.spans(motor, "contacts.0"), [(0.1, 0.2), (0.5, 0.55)])
        self.assertEqual(self.spans(motor, "clutch"), [(0.3, 0.55)])
        self.assertIn("window 0.1 .. 0.55 s", fig._suptitle.get_text())

    def test_other_kinds_draw_one_curve_per_member(self):
        res = self.sp.load_result(self.path)
        forces = self.sp.figure(res, "forces").axes[0]
        self.assertEqual([ln.get_label() for ln in forces.get_lines()],
                         ["friction contacts.0", "friction clutch", "stop reaction backlash"])
        phase = self.sp.figure(res, "phase").axes[0]
        self.assertEqual([ln.get_label() for ln in phase.get_lines()][:2], sr.BODIES)
        loop = self.sp.figure(res, "loop").axes[0]
        self.assertEqual([ln.get_label() for ln in loop.get_lines()][:2], sr.CONTACTS)
        fig = self.sp.figure(res, "all")
        self.assertEqual(list(self.panels(fig)), sr.BODIES)
        self.assertEqual({a.get_title() for a in fig.axes} - {""},
                         {"forces per contact and stop", "friction against slip velocity", "phase portraits"})

    def test_command_writes_the_figure(self):
        out = os.path.join(TMP, "sys.png")
        p = run("plot", self.path, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), out)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        inc = sr.write(os.path.join(TMP, "plot_inc.h5"), complete=False)
        p = run("plot", inc, "-o", out, "--what", "time")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("stickslip plot: warning:", p.stderr)
        self.assertTrue(self.sp.figure(self.sp.load_result(inc), "time")._suptitle.get_text()
                        .startswith("INCOMPLETE: stopped by a test"))


# Two bodies, no coupling: a (1 kg) pushed by 2 N against dynamic friction
# 1 N (static 1.5 N) slides from rest, x_a = t^2 / 2 and v_a = t; b (2 kg)
# pushed by 0.5 N against a static level of 1.5 N stays stuck.
TWO = """bodies: {a: {mass: 1.0}, b: {mass: 2.0}}
contacts:
  - {body: a, law: coulomb, dynamic: 1.0, static_ratio: 1.5}
  - {body: b, law: coulomb, dynamic: 1.0, static_ratio: 1.5}
inputs: {forces: {a: {type: constant, value: 2.0}, b: {type: constant, value: 0.5}}}
simulation: {t_end: 1.0, output_step: 0.01}
"""


class RealRuns(unittest.TestCase):
    """The tools on runs of the engine (stsl_run_system), against closed forms."""

    @classmethod
    def setUpClass(cls):
        cls.cfg = os.path.join(TMP, "two.yaml")
        with open(cls.cfg, "w", encoding="utf-8") as f:
            f.write(TWO)
        cls.ref, cls.lo = os.path.join(TMP, "two.h5"), os.path.join(TMP, "two_lo.h5")
        for out, rtol in ((cls.ref, "1e-10"), (cls.lo, "1e-6")):
            p = run("run", cls.cfg, "-o", out, "--set", f"simulation.rtol={rtol}", "--quiet")
            assert p.returncode == 0, p.stderr

    def test_info(self):
        p = run("info", self.ref)
        self.assertEqual(p.returncode, 0, p.stderr)
        a, b = table_row(p.stdout, "a"), table_row(p.stdout, "b")
        # CVODE at rtol 1e-10 integrates a quadratic: 1e-9 is far above its error.
        self.assertAlmostEqual(float(a[1]), 0.5, delta=1e-9)
        self.assertAlmostEqual(float(a[2]), 1.0, delta=1e-9)
        self.assertEqual([float(v) for v in b[1:5]], [0.0, 0.0, 0.0, 0.0])
        c0, c1 = table_row(p.stdout, "contacts.0"), table_row(p.stdout, "contacts.1")
        self.assertEqual((float(c0[1]), c0[2]), (0.0, "0.00"))
        self.assertEqual((float(c1[1]), c1[2]), (1.0, "100.00"))
        self.assertEqual(float(c0[5]), 1.0)  # slipping: the dynamic level
        self.assertEqual(float(c1[5]), 0.5)  # stuck: it holds the 0.5 N push
        # `run` prints the same tables.
        p = run("run", self.cfg, "-o", os.path.join(TMP, "two_again.h5"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Contacts:    2", p.stdout)

    def test_plot_shades_the_stuck_contact(self):
        import matplotlib

        matplotlib.use("Agg")
        import stickslip_plot as sp

        res = sp.load_result(self.ref)
        fig = sp.figure(res, "time")
        panels = {a.get_title(loc="left"): a for a in fig.axes if a.get_title(loc="left")}
        self.assertEqual(list(panels), ["a", "b"])
        spans = {n: [(float(p.vertices[0, 0]), float(p.vertices[2, 0])) for c in ax.collections
                     if c.get_label().startswith("stuck: ") for p in c.get_paths()]
                 for n, ax in panels.items()}
        self.assertEqual(spans, {"a": [], "b": [(0.0, 1.0)]})
        self.assertEqual(res["system"].stuck_intervals("contacts.1"), [(0.0, 1.0)])

    def test_compare(self):
        _, rep = Compare.compare(self, self.ref, self.ref)
        self.assertEqual([b["max_abs_error_x"] for b in rep["bodies"]], [0.0, 0.0])
        _, rep = Compare.compare(self, self.ref, self.lo)
        a = rep["bodies"][0]
        self.assertGreater(a["max_abs_error_x"], 0.0)
        self.assertLess(a["max_abs_error_x"], 1e-5)  # rtol 1e-6 on x <= 0.5
        self.assertEqual([c["stuck_iou"] for c in rep["contacts"]], [1.0, 1.0])
        # a's contact dissipates F_d x_a(1) = 1 N * 0.5 m (trapezoidal rule on
        # v = t, exact for a linear integrand).
        self.assertAlmostEqual(rep["contacts"][0]["dissipated_energy_reference"], 0.5, delta=1e-9)

    def test_sweep_per_member_columns(self):
        """x_a(1) = (2 - F_d) / 2 while 2 N exceeds the static 1.5 F_d; at
        F_d = 1.5 (static 2.25 N) a stays stuck."""
        import h5py

        study = os.path.join(TMP, "two_study.yaml")
        with open(study, "w", encoding="utf-8") as f:
            f.write("base: two.yaml\nvary:\n  contacts.0.dynamic: {values: [0.5, 1.0, 1.5]}\n"
                    "  bodies.b.mass: {values: [2.0, 4.0]}\n")
        out = os.path.join(TMP, "two_study.h5")
        p = run("sweep", study, "-o", out, "--jobs", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        with h5py.File(out, "r") as f:
            s, fd = f["study/summary"], f["study/parameters/contacts.0.dynamic"][:]
            s_names = list(s.keys())
            self.assertEqual(list(s["status"][:]), [0] * 6)
            for i in range(6):
                want = (2 - fd[i]) / 2 if 2 > 1.5 * fd[i] else 0.0
                self.assertAlmostEqual(s["x_final.a"][i], want, delta=1e-9)
                self.assertAlmostEqual(s["v_final.a"][i], 2 * want, delta=1e-9)
                self.assertEqual(s["x_final.b"][i], 0.0)
                self.assertEqual(s["stuck_fraction.contacts.0"][i], 0.0 if want else 1.0)
                self.assertEqual(s["stuck_fraction.contacts.1"][i], 1.0)
            self.assertEqual(s["x_final.a"].attrs["units"], "m")
            self.assertEqual(s["v_final.b"].attrs["units"], "m/s")
            self.assertTrue(np.isnan(s["stuck_fraction"][:]).all())
            self.assertEqual(sorted(set(f["study/parameters/bodies.b.mass"][:])), [2.0, 4.0])
            empty = [n for n, d in s.items() if d.dtype.kind == "f" and np.isnan(d[:]).all()]
        # `info` prints no row of nan: the element-only columns the system
        # never fills (x_final, stuck_fraction ...) are named in one line.
        p = run("info", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("x_final", empty)
        self.assertNotIn(" nan ", p.stdout)
        rows = [ln.split()[0] for ln in p.stdout.split("Summary of the completed variants:\n")[1].splitlines()[1:]
                if not ln.startswith("  (")]
        self.assertFalse(set(rows) & set(empty), rows)
        self.assertIn("x_final.a", rows)
        self.assertIn(f"  ({len(empty)} columns without a value in any completed variant left out: "
                      + ", ".join(n for n in s_names if n in empty) + ")\n", p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
