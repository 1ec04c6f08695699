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
import types
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


def info_stuck(path, contact):
    """`info`'s time stuck of `contact` as its 9 significant digits."""
    p = run("info", path)
    assert p.returncode == 0, p.stderr
    return float(table_row(p.stdout, contact)[1])


def time_held(t, mode, value):
    """Time in which `mode` holds `value`, row i until row i + 1, summed in
    row order as `info` sums it (the same doubles, the same additions)."""
    total = 0.0
    for i in range(len(t) - 1):
        if mode[i] == value:
            total += float(t[i + 1] - t[i])
    return total


class Compare(unittest.TestCase):
    """Two systems' results member by member: x[body], v[body], contacts,
    stops; the reference (examples/servo_backlash.yaml: three bodies, two
    contacts, a backlash stop, 65 events) re-run at the candidate's times."""

    @classmethod
    def setUpClass(cls):
        cls.ref = os.path.join(TMP, "servo.h5")
        p = run("run", os.path.join(ROOT, "examples", "servo_backlash.yaml"), "-o", cls.ref, "--quiet")
        assert p.returncode == 0, p.stderr

    def compare(self, ref, cand, *extra, code=0):
        out = os.path.join(TMP, "report.json")
        p = run("compare", ref, cand, "-o", out, *extra)
        self.assertEqual(p.returncode, code, p.stderr)
        if code:
            return p
        import json
        with open(out, encoding="utf-8") as f:
            return p, json.load(f)

    def copy(self, name, edit):
        """A copy of the reference's file, changed by edit(h5py file)."""
        import h5py
        path = os.path.join(TMP, name)
        shutil.copyfile(self.ref, path)
        with h5py.File(path, "a") as f:
            edit(f)
        return path

    def check_stuck_times(self, rep, path):
        """Both stuck times of every contact are `info`'s of the same file:
        the same rule (a row's mode holds until the next row) on the same
        rows, summed in the same order, so equal to the last bit."""
        import h5py
        with h5py.File(path, "r") as f:
            t, modes = f["trajectory/t"][:], f["trajectory/contact_mode"][:]
            names = dict(reversed(n.split()) for n in f["trajectory/contact_mode"].attrs["mode_names"].split(","))
            stuck = int(names["STUCK"])
        for k, c in enumerate(rep["contacts"]):
            want = time_held(t, modes[:, k], stuck)
            self.assertEqual(c["stuck_time_reference"], want, c["name"])
            self.assertEqual(c["stuck_time_candidate"], want, c["name"])
            self.assertEqual(float(f"{want:.9g}"), info_stuck(path, c["name"]))
            self.assertEqual(c["stuck_iou"], 1.0)

    def check_contacts_unchanged(self, rep):
        """Friction and slip velocity are the reference's: errors exactly 0."""
        for c in rep["contacts"]:
            for k in ("friction", "slip_velocity"):
                for e in ("max_abs_error_", "rms_error_", "final_error_"):
                    self.assertEqual(c[e + k], 0.0, (c["name"], e + k))

    def test_identical_files_agree_exactly(self):
        """The re-run at the file's own times is the run that wrote it (the
        same steps: output times are read off the dense output): every
        error exactly 0, every event matched at dt 0."""
        p, rep = self.compare(self.ref, self.ref)
        self.assertIn("its /config re-run at the candidate's", p.stdout)
        self.assertEqual([b["name"] for b in rep["bodies"]], ["motor", "gear", "load"])
        for b in rep["bodies"]:
            for k, v in b.items():
                if k != "name":
                    self.assertEqual(v, 0.0, (b["name"], k))
        self.check_stuck_times(rep, self.ref)
        self.check_contacts_unchanged(rep)
        for c in rep["contacts"] + rep["stops"]:
            self.assertEqual((c["events_missed"], c["events_spurious"]), (0, 0))
            self.assertEqual(c["max_event_time_error"], 0.0)
        for c in rep["contacts"]:
            self.assertEqual(c["dissipated_energy_reference"], c["dissipated_energy_candidate"])
        # 65 events: 33 about the motor's bearing, 11 the load's guide, 21 the stop.
        self.assertEqual([c["events_matched"] for c in rep["contacts"] + rep["stops"]], [33, 11, 21])

    def test_positions_shifted_by_a_millimetre(self):
        """Every position + 1e-3: the position error is 1e-3 for every body,
        the velocity error exactly 0, stuck times still info's."""
        import h5py
        with h5py.File(self.ref, "r") as f:
            x = f["trajectory/x"][:]

        def shift(f):
            f["trajectory/x"][...] = x + 1e-3
        cand = self.copy("servo_mm.h5", shift)
        _, rep = self.compare(self.ref, cand)
        # The error is fl(fl(x + d) - x) (IEEE doubles here and in C alike):
        # d within (|x| + 2 d) 2^-53 per rounding, two roundings: at
        # max |x| = 1.19 rad below 3e-16.  Asserted both ways: the exact
        # doubles numpy computes, and their distance from 1e-3.
        e = (x + 1e-3) - x
        for k, b in enumerate(rep["bodies"]):
            bound = 2 * (np.max(np.abs(x[:, k])) + 2e-3) * 2.0 ** -53
            self.assertEqual(b["max_abs_error_x"], np.max(np.abs(e[:, k])))
            self.assertEqual(b["final_error_x"], e[-1, k])
            for key in ("max_abs_error_x", "final_error_x", "rms_error_x"):
                self.assertLessEqual(abs(b[key] - 1e-3), bound, (b["name"], key))
            for key in ("max_abs_error_v", "rms_error_v", "final_error_v"):
                self.assertEqual(b[key], 0.0, (b["name"], key))
        self.check_stuck_times(rep, cand)
        self.check_contacts_unchanged(rep)

    def test_events_per_subject(self):
        """One breakaway of the load's guide removed, one stick 2 ms late:
        missed once, and matched with that time error (inside the default
        window of 5 median steps, 5 ms)."""
        import h5py
        with h5py.File(self.ref, "r") as f:
            ev = f["events"][:]
        names = [n.decode() if isinstance(n, bytes) else n for n in ev["subject"]]
        guide = [i for i, n in enumerate(names) if n == "contacts.1"]
        drop = [i for i in guide if ev["kind"][i] == b"breakaway"][-1]
        late = [i for i in guide if ev["kind"][i] == b"stick"][0]

        def edit(f):
            e, attrs = f["events"], dict(f["events"].attrs)
            rows = ev.copy()
            rows["t"][late] += 0.002
            rows = np.delete(rows, drop)
            dtype = e.dtype
            del f["events"]
            d = f.create_dataset("events", data=rows, dtype=dtype, maxshape=(None,), chunks=True)
            for k, v in attrs.items():
                d.attrs[k] = v
        cand = self.copy("servo_ev.h5", edit)
        _, rep = self.compare(self.ref, cand)
        c0, guide_rep = rep["contacts"]
        self.assertEqual((c0["events_matched"], c0["events_missed"], c0["events_spurious"]), (33, 0, 0))
        self.assertEqual((guide_rep["events_matched"], guide_rep["events_missed"],
                          guide_rep["events_spurious"]), (10, 1, 0))
        # t + 0.002 - t: 0.002 to a few ulps of t = 0.05.
        self.assertAlmostEqual(guide_rep["max_event_time_error"], 0.002, delta=1e-16)
        # A window below the shift: the stick is missed and spurious.
        _, rep = self.compare(self.ref, cand, "--event-window", "0.001")
        g = rep["contacts"][1]
        self.assertEqual((g["events_matched"], g["events_missed"], g["events_spurious"]), (9, 2, 1))

    def test_different_names_are_refused(self):
        def rename(f):
            f["trajectory/x"].attrs["names"] = np.array(["motor", "gear", "drum"], dtype=object)
        drum = self.copy("servo_drum.h5", rename)
        p = self.compare(self.ref, drum, code=2)
        self.assertEqual(p.stderr.strip(), f"stickslip compare: error: {self.ref} and {drum} have "
                         f"different bodies: only in {self.ref}: load; only in {drum}: drum")

    def test_a_reference_that_cannot_be_rerun(self):
        """A reference whose /config fails to run: exit 3, naming it."""
        with open(os.path.join(ROOT, "examples", "servo_backlash.yaml"), encoding="utf-8") as f:
            config = f.read().replace("  output_step: 0.001", "  output_step: 0.001\n  max_events: 3")

        def hard(f):
            del f["config"]
            f["config"] = config
        bad = self.copy("servo_bad.h5", hard)
        p = self.compare(bad, self.ref, code=3)
        self.assertIn(f"stickslip compare: error: {bad}: re-running the reference: ", p.stderr)

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
        self.assertEqual(self.spans(motor, "contacts.0 (motor/base)"), sr.STUCK[0])
        self.assertEqual(self.spans(load, "contacts.0 (motor/base)"), [])
        self.assertEqual(self.spans(motor, "clutch"), sr.STUCK[1])
        self.assertEqual(self.spans(load, "clutch"), sr.STUCK[1])
        colors = {c.get_label(): tuple(c.get_facecolor()[0]) for c in motor.collections}
        self.assertNotEqual(colors["stuck: contacts.0 (motor/base)"], colors["stuck: clutch"])
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        # An unnamed contact is its key path with the ends it joins (the
        # configuration's `body: motor` is motor against the base); a named
        # one is its name.
        self.assertEqual(labels[:2], ["stuck: contacts.0 (motor/base)", "stuck: clutch"])
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
        self.assertEqual(self.spans(motor, "contacts.0 (motor/base)"), [(0.1, 0.2), (0.5, 0.55)])
        self.assertEqual(self.spans(motor, "clutch"), [(0.3, 0.55)])
        self.assertIn("window 0.1 .. 0.55 s", fig._suptitle.get_text())

    def test_other_kinds_draw_one_curve_per_member(self):
        res = self.sp.load_result(self.path)
        forces = self.sp.figure(res, "forces").axes[0]
        self.assertEqual([ln.get_label() for ln in forces.get_lines()],
                         ["friction contacts.0 (motor/base)", "friction clutch", "stop reaction backlash"])
        phase = self.sp.figure(res, "phase").axes[0]
        self.assertEqual([ln.get_label() for ln in phase.get_lines()][:2], sr.BODIES)
        loop = self.sp.figure(res, "loop").axes[0]
        self.assertEqual([ln.get_label() for ln in loop.get_lines()][:2], ["contacts.0 (motor/base)", "clutch"])
        fig = self.sp.figure(res, "all")
        self.assertEqual(list(self.panels(fig)), sr.BODIES)
        self.assertEqual({a.get_title() for a in fig.axes} - {""},
                         {"forces per contact and stop", "friction against slip velocity", "phase portraits"})

    def test_member_labels(self):
        # A name is kept; a key path gets the two ends from the
        # configuration (`body: A` is A against the base); without a
        # configuration, the key path alone.
        sys_ = types.SimpleNamespace(contacts=["contacts.0", "grip"], stops=["stops.0"])
        cfg = ("contacts:\n  - {between: [a, b], law: coulomb}\n  - {body: a, law: coulomb}\n"
               "stops:\n  - {body: a, min: 0, max: 1}\n")
        fake = {"system": sys_, "config": cfg}
        self.assertEqual(self.sp.member_label(fake, "contacts", "contacts.0"), "contacts.0 (a/b)")
        self.assertEqual(self.sp.member_label(fake, "contacts", "grip"), "grip")
        self.assertEqual(self.sp.member_label(fake, "stops", "stops.0"), "stops.0 (a/base)")
        self.assertEqual(self.sp.member_label({"system": sys_, "config": ""}, "contacts", "contacts.0"),
                         "contacts.0")

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
