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

    def test_names_as_a_string_array(self):
        self.check(sr.write(os.path.join(TMP, "sys_arr.h5"), names_as_array=True))

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
        self.assertEqual(p.stderr.strip(), f"stickslip: error: {path}: /trajectory/friction: attribute "
                         "names does not name its 2 columns")


if __name__ == "__main__":
    unittest.main(verbosity=2)
