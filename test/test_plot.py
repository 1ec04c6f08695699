#!/usr/bin/python3
"""ctest test_plot: `stickslip plot` and python/stickslip_plot.py.

Renders every plot kind for three real results (Janecek chirp, Den Hartog,
end stops) headlessly and checks the images; checks PDF/SVG output, the
error paths through the `stickslip plot` command, determinism of the output
bytes, the static-limit band, the committed gallery and the Python reader.
The binary comes from $STICKSLIP_BIN (set by CMake), else build/debug."""

import glob
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import numpy as np  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import h5py  # noqa: E402

import stickslip_plot as sp  # noqa: E402
import read_result  # noqa: E402

BIN = os.environ.get("STICKSLIP_BIN") or os.path.join(ROOT, "build", "debug", "stickslip")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CASES = ("janecek_chirp", "den_hartog", "dv_end_stops")
TMP = None
RESULTS = {}


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=e, cwd=TMP)


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="test_plot_")
    for name in CASES + ("dv_stuck_opposing", "dv_irreversible", "dv_compliant_stops"):
        out = os.path.join(TMP, name + ".h5")
        p = run("run", os.path.join(ROOT, "examples", name + ".yaml"), "-o", out, "--quiet")
        assert p.returncode == 0, p.stderr
        RESULTS[name] = out
    out = os.path.join(TMP, "incomplete.h5")
    p = run("run", os.path.join(ROOT, "examples", "janecek_chirp.yaml"),
            "--set", "simulation.max_events=3", "-o", out, "--quiet")
    assert p.returncode == 3, (p.returncode, p.stderr)
    RESULTS["incomplete"] = out


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


class ImageChecks(unittest.TestCase):
    def assert_png(self, path, min_w=400, min_h=300, max_bytes=None):
        with open(path, "rb") as f:
            data = f.read()
        self.assertEqual(data[:8], PNG_SIGNATURE, path)
        self.assertGreater(len(data), 10_000, f"{path}: suspiciously small")
        if max_bytes:
            self.assertLessEqual(len(data), max_bytes, path)
        img = mpimg.imread(path)
        h, w = img.shape[:2]
        self.assertGreaterEqual(w, min_w, path)
        self.assertGreaterEqual(h, min_h, path)
        gray = img[..., :3].mean(axis=2)
        self.assertGreater(gray.var(), 1e-3, f"{path}: blank image")
        # Not just a frame: a good share of the pixels is drawn (non-white).
        self.assertGreater((gray < 0.95).mean(), 0.02, f"{path}: almost empty")
        return img


class RenderKinds(ImageChecks):
    def test_every_kind_for_three_results(self):
        for case in CASES:
            res = sp.load_result(RESULTS[case])
            for what in ("time", "forces", "loop", "phase", "all"):
                with self.subTest(case=case, what=what):
                    out = os.path.join(TMP, f"{case}_{what}.png")
                    sp.render(res, what, out)
                    w_in, h_in = sp.SIZES[what]
                    img = self.assert_png(out)
                    self.assertEqual(img.shape[:2], (round(h_in * 100), round(w_in * 100)))

    def test_pdf_and_svg(self):
        res = sp.load_result(RESULTS["janecek_chirp"])
        (pdf,) = sp.render(res, "all", os.path.join(TMP, "j.pdf"))  # one element: one file
        with open(pdf, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(b"%PDF-"))
        self.assertIn(b"%%EOF", data[-32:])
        self.assertGreater(len(data), 10_000)
        (svg,) = sp.render(res, "forces", os.path.join(TMP, "j.svg"))
        root = ET.parse(svg).getroot()
        self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg")
        paths = root.findall(".//{http://www.w3.org/2000/svg}path")
        self.assertGreater(len(paths), 50, "an SVG with the curves as vector paths")
        for ext in (".pdf", ".svg"):  # vector output is reproducible too
            a, b = (sp.render(res, "all", os.path.join(TMP, f"d{i}{ext}"))[0] for i in (1, 2))
            with open(a, "rb") as fa, open(b, "rb") as fb:
                self.assertEqual(fa.read(), fb.read(), ext)

    def test_zoom_window(self):
        res = sp.load_result(RESULTS["janecek_chirp"])
        fig = sp.figure(res, "forces", t0=7.0, t1=8.0)
        ax = fig.axes[0]
        self.assertEqual(ax.get_xlim(), (7.0, 8.0))
        self.assertIn("window 7 .. 8 s", fig._suptitle.get_text())
        with self.assertRaises(sp.PlotError):
            sp.figure(res, "time", t0=20.0, t1=30.0)
        with self.assertRaises(sp.PlotError):
            sp.figure(res, "time", t0=5.0, t1=4.0)


class Content(unittest.TestCase):
    """What the figures say, not only that they exist."""

    def legend_labels(self, fig):
        return [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else []

    def test_janecek_states_and_events(self):
        res = sp.load_result(RESULTS["janecek_chirp"])
        fig = sp.figure(res, "time")
        labels = self.legend_labels(fig)
        for want in ("STUCK (locked)", "event: stick", "event: breakaway", "event: reversal"):
            self.assertIn(want, labels)
        self.assertNotIn("on an end stop", labels)
        # One shaded rectangle per locked segment: the initial lock plus one
        # per stick event.
        sticks = sum(e["kind"] == "stick" for e in res["events"])
        runs = sp._runs(res["t"], res["mode"] == 0)
        self.assertEqual(len(runs), 1 + sticks)
        ax = fig.axes[0]
        colls = [c for c in ax.collections if len(c.get_paths()) == len(runs)]
        self.assertTrue(colls, "the STUCK shading has one rectangle per locked segment")
        # With base motion the position axes show the base and the element.
        line_labels = [ln.get_label() for a in fig.axes for ln in a.get_lines()]
        self.assertIn("x_base (base)", line_labels)
        # Units come from the datasets' attributes.
        ylabels = [a.get_ylabel() for a in fig.axes]
        self.assertIn("velocity [m/s]", ylabels)
        self.assertIn("position [m]", ylabels)
        self.assertEqual(fig.axes[-1].get_xlabel(), "time [s]")

    def test_end_stops_shaded_and_impacts_marked(self):
        res = sp.load_result(RESULTS["dv_end_stops"])
        fig = sp.figure(res, "all")
        labels = self.legend_labels(fig)
        for want in ("on an end stop", "event: impact", "event: stop_contact", "event: stop_release"):
            self.assertIn(want, labels)
        self.assertEqual(len(fig.axes), 5)  # time (x, v) + forces + loop + phase
        forces = [a for a in fig.axes if a.get_title() == "forces"][0]
        self.assertIn("stop reaction |R| (magnitude)", [ln.get_label() for ln in forces.get_lines()])
        # No base motion: no x_base curve.
        self.assertNotIn("x_base (base)", [ln.get_label() for a in fig.axes for ln in a.get_lines()])

    def test_compliant_contact_shaded_and_marked(self):
        res = sp.load_result(RESULTS["dv_compliant_stops"])
        names = res["mode_names"]
        self.assertEqual(names[9], "CONTACT_HIGH_STUCK")
        self.assertEqual(len(names), 14)
        # Stuck inside a compliant stop is stuck too (shaded, and the band's envelope).
        self.assertEqual(sorted(sp._stuck_modes(res)), [0, 6, 9])
        fig = sp.figure(res, "all")
        labels = self.legend_labels(fig)
        for want in ("in a compliant stop", "STUCK (locked)", "event: contact_begin", "event: contact_end"):
            self.assertIn(want, labels)
        self.assertNotIn("on an end stop", labels)  # no rigid-stop mode in the file
        kinds = {e["kind"] for e in res["events"]}
        self.assertTrue({"contact_begin", "contact_end", "stick", "breakaway"} <= kinds)

    def test_loop_breaks_at_impacts(self):
        res = sp.load_result(RESULTS["dv_end_stops"])
        sel = np.ones(len(res["t"]), bool)
        v, f = sp._broken(res, sel, "v", "friction")
        impacts = sum(e["kind"] == "impact" for e in res["events"])
        self.assertGreaterEqual(int(np.isnan(v).sum()), impacts)

    def test_static_limits(self):
        lo, hi, label = sp.static_limits(sp.load_result(RESULTS["janecek_chirp"]))
        self.assertAlmostEqual(hi, 26.0, places=12)
        self.assertAlmostEqual(lo, -26.0, places=12)
        self.assertIn("±26", label)
        # Constant opposing load -50 N: F_S(+1) = 1.2 (10 + (1/0.8 - 1) 50) = 27,
        # F_S(-1) = 1.2 (10 + (1 - 0.6) 50) = 36 (README's [-36, 27] N).
        res = sp.load_result(RESULTS["dv_stuck_opposing"])
        lo, hi, _ = sp.static_limits(res)
        self.assertAlmostEqual(hi, 27.0, places=12)
        self.assertAlmostEqual(lo, -36.0, places=12)
        # Without yaml the subset parser gives the same limits.
        for case in ("janecek_chirp", "dv_stuck_opposing", "dv_end_stops"):
            r = sp.load_result(RESULTS[case])
            with_yaml = sp.static_limits(r)
            self.assertEqual(_limits_with(sp._parse_config_subset, r), with_yaml[:2], case)
        # A varying load: the envelope of friction while STUCK, said in the label.
        res = sp.load_result(RESULTS["dv_irreversible"])
        lo, hi, label = sp.static_limits(res)
        self.assertIn("load varies", label)
        stuck = res["cols"]["friction"][res["mode"] == 0]
        self.assertEqual((lo, hi), (stuck.min(), stuck.max()))

    def test_incomplete_title(self):
        res = sp.load_result(RESULTS["incomplete"])
        self.assertFalse(res["complete"])
        title = sp.figure(res, "all")._suptitle.get_text()
        self.assertTrue(title.startswith("INCOMPLETE: more than simulation.max_events"), title)


def _limits_with(parse, res):
    saved = sp._parse_config
    sp._parse_config = parse
    try:
        return sp.static_limits(res)[:2]
    finally:
        sp._parse_config = saved


class Command(ImageChecks):
    """Through `stickslip plot`: arguments passed through, exit codes, messages."""

    def assert_error(self, p, code, *needles):
        self.assertEqual(p.returncode, code, p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertTrue(lines and lines[-1].startswith("stickslip plot: error: "), p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        for n in needles:
            self.assertIn(n, p.stderr)
        self.assertEqual(p.stdout, "")

    def test_default_output_and_printed_path(self):
        src = os.path.join(TMP, "copy_of_dh.h5")
        shutil.copy(RESULTS["den_hartog"], src)
        p = run("plot", src)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), os.path.join(TMP, "copy_of_dh.png"))
        self.assert_png(p.stdout.strip())

    def test_help(self):
        p = run("plot", "--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("usage: stickslip plot", p.stdout)
        self.assertIn("--what", p.stdout)
        p = run("--help")
        self.assertIn("plot RESULT", p.stdout)

    def test_incomplete_is_plotted_with_a_warning(self):
        out = os.path.join(TMP, "inc.png")
        p = run("plot", RESULTS["incomplete"], "-o", out, "--what", "time")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("stickslip plot: warning:", p.stderr)
        self.assertIn("incomplete: more than simulation.max_events = 3", p.stderr)
        self.assertEqual(p.stdout.strip(), out)
        self.assert_png(out)

    def test_missing_file(self):
        self.assert_error(run("plot", os.path.join(TMP, "nope.h5")), 2, "no such file")

    def test_corrupt_file(self):
        bad = os.path.join(TMP, "corrupt.h5")
        with open(bad, "wb") as f:
            f.write(b"this is not HDF5\n" * 100)
        self.assert_error(run("plot", bad, "-o", os.path.join(TMP, "c.png")), 2, "not an HDF5 file")
        self.assertFalse(os.path.exists(os.path.join(TMP, "c.png")))
        # A result cut short (a copy that stopped half way).
        cut = os.path.join(TMP, "truncated.h5")
        with open(RESULTS["janecek_chirp"], "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[: len(data) // 3])
        self.assert_error(run("plot", cut), 2, "truncated.h5")

    def test_hdf5_without_the_layout(self):
        other = os.path.join(TMP, "other.h5")
        with h5py.File(other, "w") as f:
            f["data"] = np.arange(10.0)
        self.assert_error(run("plot", other), 2, "not a stickslip result")
        # Right program attribute, but a dataset missing.
        part = os.path.join(TMP, "partial.h5")
        with h5py.File(part, "w") as f:
            f.attrs["program"] = "stickslip"
            f["trajectory/t"] = np.arange(3.0)
        self.assert_error(run("plot", part), 2, "not a stickslip result")

    def test_work_precision_diagram(self):
        study = os.path.join(TMP, "study.h5")
        p = run("converge", os.path.join(ROOT, "examples", "den_hartog.yaml"), "--scheme", "karnopp",
                "--steps", "1e-2,3e-3,1e-3", "--h5", study)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run("plot", study)  # only /convergence: the work-precision diagram
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assert_png(p.stdout.strip())
        # Written into a result file, it is drawn on request.
        both = os.path.join(TMP, "both.h5")
        shutil.copy(RESULTS["den_hartog"], both)
        p = run("converge", os.path.join(ROOT, "examples", "den_hartog.yaml"), "--scheme", "karnopp",
                "--steps", "1e-2,1e-3", "--h5", both)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = os.path.join(TMP, "both_work.png")
        self.assertEqual(run("plot", both, "--what", "work", "-o", out).returncode, 0)
        self.assert_png(out)
        self.assert_error(run("plot", RESULTS["janecek_chirp"], "--what", "work", "-o", out), 2,
                          "no /convergence group")

    def test_bad_arguments(self):
        src = RESULTS["janecek_chirp"]
        self.assertEqual(run("plot", src, "--what", "pie").returncode, 2)
        self.assert_error(run("plot", src, "-o", os.path.join(TMP, "x.jpg")), 2, "unsupported output format")
        self.assert_error(run("plot", src, "--t0", "20", "-o", os.path.join(TMP, "x.png")), 2, "no samples")
        p = run("plot", src, "-o", os.path.join(TMP, "no", "such", "dir.png"))
        self.assert_error(p, 1, "cannot write")

    def test_missing_module_or_interpreter(self):
        src = RESULTS["janecek_chirp"]
        self.assert_error(run("plot", src, env={"STICKSLIP_PYTHON_DIR": os.path.join(TMP, "nowhere")}), 2,
                          "stickslip_plot.py", "STICKSLIP_PYTHON_DIR")
        self.assert_error(run("plot", src, env={"STICKSLIP_PYTHON": os.path.join(TMP, "python9")}), 2,
                          "python3-matplotlib")

    def test_same_input_same_bytes(self):
        """What scripts/gallery relies on: a regenerated picture is identical."""
        outs = []
        for i in (1, 2):
            out = os.path.join(TMP, f"det{i}.png")
            p = run("plot", RESULTS["janecek_chirp"], "--what", "all", "--dpi", "64", "-o", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            outs.append(out)
        with open(outs[0], "rb") as a, open(outs[1], "rb") as b:
            da, db = a.read(), b.read()
        self.assertEqual(da, db)
        self.assertNotIn(b"matplotlib", da.lower(), "no Software tag in the PNG")
        self.assertLessEqual(len(da), 150 * 1024)


class SystemPages(ImageChecks):
    """A system of 12 bodies (examples/burridge_knopoff.yaml, its first
    20 s: the first avalanche at 17.75 s) in pages of at most six bodies."""

    @classmethod
    def setUpClass(cls):
        cls.h5 = os.path.join(TMP, "bk.h5")
        p = run("run", os.path.join(ROOT, "examples", "burridge_knopoff.yaml"),
                "--set", "simulation.t_end=20", "-o", cls.h5, "--quiet")
        assert p.returncode == 0, p.stderr
        cls.res = sp.load_result(cls.h5)

    def panels(self, fig):
        return {a.get_title(loc="left"): a for a in fig.axes if a.get_title(loc="left")}

    def test_two_pages_of_six_distinct_bodies(self):
        bodies = [f"b{i:02d}" for i in range(1, 13)]
        for what in ("time", "all"):
            figs = sp.figures(self.res, what)
            self.assertEqual([list(self.panels(f)) for f in figs], [bodies[:6], bodies[6:]], what)
            for k, fig in enumerate(figs, 1):
                # The page in the title, and the first panel's top below it.
                self.assertIn(f"page {k} of 2: bodies {bodies[6 * k - 6]} .. {bodies[6 * k - 1]}",
                              fig._suptitle.get_text())
                fig.canvas.draw()
                title = fig._suptitle.get_window_extent()
                first = self.panels(fig)[bodies[6 * k - 6]]
                self.assertLess(first.title.get_window_extent().y1, title.y0, "title over a panel")
                # Each body's position in its own colour on the page.
                colors = [p.get_lines()[0].get_color() for p in self.panels(fig).values()]
                self.assertEqual(len(set(colors)), 6, colors)
                # Every contact of the page in its own shading colour, under the lines.
                shades = [c for p in self.panels(fig).values() for c in p.collections
                          if c.get_label().startswith("stuck: ")]
                self.assertEqual(len({tuple(c.get_facecolor()[0]) for c in shades}), 6)
                for c in shades:
                    self.assertLess(c.get_zorder(), 1)
                    self.assertLessEqual(c.get_alpha(), 0.5)
                if what == "all":
                    phase = [a for a in fig.axes if a.get_title() == "phase portraits"][0]
                    self.assertEqual(len({ln.get_color() for ln in phase.get_lines()[:6]}), 6)
                plt.close(fig)

    def test_legend_names_each_contact_and_fits(self):
        # The chain's contacts have no name: each is its key path with the
        # block it holds against the base (contacts.0 is b01's), and with
        # these longer labels the legend still lies inside the figure.
        for k, fig in enumerate(sp.figures(self.res, "time")):
            labels = [t.get_text() for t in fig.legends[0].get_texts()]
            stuck = [f"stuck: contacts.{i} (b{i + 1:02d}/base)" for i in range(6 * k, 6 * k + 6)]
            self.assertEqual([lb for lb in labels if lb.startswith("stuck: ")], stuck)
            fig.canvas.draw()
            box = fig.legends[0].get_window_extent()
            self.assertGreaterEqual(box.x0, 0)
            self.assertLessEqual(box.x1, fig.bbox.width)
            plt.close(fig)

    def test_shading_only_where_stuck(self):
        # b01's contact (contacts.0) is stuck from 0 until the avalanche's
        # breakaway and again after its stick: the shaded spans are the
        # reader's stuck intervals, nothing more.
        fig = sp.figures(self.res, "time")[0]
        b01 = self.panels(fig)["b01"]
        spans = [(float(p.vertices[0, 0]), float(p.vertices[2, 0])) for c in b01.collections
                 if c.get_label() == "stuck: contacts.0 (b01/base)" for p in c.get_paths()]
        self.assertEqual(spans, self.res["system"].stuck_intervals("contacts.0"))
        self.assertGreaterEqual(len(spans), 2)
        plt.close(fig)

    def test_pages_as_files(self):
        out = os.path.join(TMP, "bk.png")
        p = run("plot", self.h5, "--what", "time", "--dpi", "40", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        pages = [os.path.join(TMP, "bk-1.png"), os.path.join(TMP, "bk-2.png")]
        self.assertEqual(p.stdout.split(), pages)
        self.assertFalse(os.path.exists(out))
        for png in pages:
            self.assert_png(png)
        pdf = os.path.join(TMP, "bk.pdf")
        p = run("plot", self.h5, "-o", pdf)
        self.assertEqual((p.returncode, p.stdout.split()), (0, [pdf]), p.stderr)
        with open(pdf, "rb") as f:
            self.assertEqual(len(re.findall(rb"/Type /Page\b", f.read())), 2)


class Gallery(ImageChecks):
    def test_gallery_is_complete_small_and_in_docs(self):
        # The gallery is docs/examples.md; its image links are relative to docs/.
        with open(os.path.join(ROOT, "docs", "examples.md"), encoding="utf-8") as f:
            readme = f.read()
        self.assertTrue("## Gallery" in readme, "docs/examples.md has no ## Gallery section")
        examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.yaml")))
        self.assertTrue(examples)
        for cfg in examples:
            name = os.path.splitext(os.path.basename(cfg))[0]
            # One picture, or a system's pages NAME-1.png, NAME-2.png ...
            pages = sorted(glob.glob(os.path.join(ROOT, "docs", "gallery", name + "-[0-9]*.png")))
            with self.subTest(example=name):
                for png in pages or [os.path.join(ROOT, "docs", "gallery", name + ".png")]:
                    self.assertTrue(os.path.exists(png), f"{png} missing: run scripts/gallery")
                    self.assert_png(png, max_bytes=150 * 1024)
                    base = os.path.basename(png)
                    self.assertTrue(f"(gallery/{base})" in readme, f"docs/examples.md does not show {base}")
        for png in glob.glob(os.path.join(ROOT, "docs", "gallery", "*.png")):
            name = re.sub(r"-[0-9]+$", "", os.path.splitext(os.path.basename(png))[0])
            self.assertTrue(os.path.exists(os.path.join(ROOT, "examples", name + ".yaml")), f"stale {png}")
        # Studies: docs/gallery/studies/NAME.png for examples/studies/NAME.yaml.
        for study in sorted(glob.glob(os.path.join(ROOT, "examples", "studies", "*.yaml"))):
            name = os.path.splitext(os.path.basename(study))[0]
            png = os.path.join(ROOT, "docs", "gallery", "studies", name + ".png")
            with self.subTest(study=name):
                self.assertTrue(os.path.exists(png), f"{png} missing: run scripts/gallery")
                self.assert_png(png, max_bytes=150 * 1024)
                self.assertTrue(f"(gallery/studies/{name}.png)" in readme, f"docs/examples.md does not show {name}.png")
                with open(study, encoding="utf-8") as f:
                    self.assertIn("\n# gallery: --z ", f.read(), f"{study}: no '# gallery:' line for scripts/gallery")
        for png in glob.glob(os.path.join(ROOT, "docs", "gallery", "studies", "*.png")):
            name = os.path.splitext(os.path.basename(png))[0]
            self.assertTrue(os.path.exists(os.path.join(ROOT, "examples", "studies", name + ".yaml")), f"stale {png}")


class Reader(unittest.TestCase):
    """examples/read_result.py against h5py directly."""

    def test_read_returns_everything(self):
        path = RESULTS["dv_end_stops"]
        r = read_result.read(path)
        with h5py.File(path, "r") as f:
            self.assertEqual(r["complete"], True)
            for name in f["trajectory"]:
                np.testing.assert_array_equal(r["trajectory"][name], f["trajectory"][name][:])
                self.assertEqual(r["units"][name], f["trajectory"][name].attrs["units"])
            self.assertEqual(len(r["events"]), f["events"].shape[0])
            self.assertEqual(r["stats"]["events"], f["stats"].attrs["events"])
        self.assertEqual(r["units"]["x"], "m")
        self.assertEqual(r["mode_names"][3], "STOP_LOW")
        self.assertEqual(r["events"][1]["kind"], "impact")
        self.assertIn("stop_contact", r["kind_names"])
        self.assertTrue(r["config"].startswith("# stickslip"))

    def test_script_prints_summary_and_table(self):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "read_result.py"), RESULTS["janecek_chirp"]],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        r = read_result.read(RESULTS["janecek_chirp"])
        self.assertIn("status:   complete", p.stdout)
        self.assertIn(f"events:   {len(r['events'])}", p.stdout)
        rows = [ln for ln in p.stdout.splitlines() if ln.strip()[:1].isdigit() and "->" in ln]
        self.assertEqual(len(rows), len(r["events"]))
        self.assertIn("STUCK->SLIP_NEG", rows[0])
        buf = io.StringIO()
        read_result.print_summary(read_result.read(RESULTS["incomplete"]), buf)
        self.assertIn("status:   INCOMPLETE: more than simulation.max_events", buf.getvalue())


if __name__ == "__main__":
    unittest.main(verbosity=2)
