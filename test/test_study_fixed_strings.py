#!/usr/bin/python3
"""--resume of a study file whose stored texts (/study/study_yaml,
/study/base_config) are fixed-length HDF5 strings, as another HDF5 writer
(h5py, MATLAB) may store them; stickslip writes variable-length ones.

The file is a complete study, rewritten with h5py: its texts replaced by
fixed-length copies and its counts set back to 2 rows done, so that
--resume runs the other 4 variants again.  A text is read whole, however
it is padded (NUL-padded to its exact length, NUL-terminated with room to
spare, space-padded): the resumed file's rows equal the uninterrupted
study's.  A text that differs by one character (the last, so that a read
cut short would miss it) is refused as another study's; a text stored as
an array of strings (not one text) is refused, with a message naming it,
instead of being read past one element."""

import os
import subprocess
import tempfile

import h5py
import numpy as np

BIN = os.environ["STICKSLIP_BIN"]
HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "examples", "den_hartog.yaml")
TEXTS = ("study_yaml", "base_config")


def sweep(*args):
    return subprocess.run([BIN, "sweep", *args, "-q", "-j", "1"], capture_output=True, text=True)


def rows(path):
    """Every summary column but the wall clock's, and the parameters."""
    with h5py.File(path, "r") as f:
        s = f["study/summary"]
        out = {k: s[k][()] for k in s if k != "wall_seconds"}
        out.update({"p:" + k: v[()] for k, v in f["study/parameters"].items()})
        return out, int(f["study"].attrs["n_done"]), int(f["study"].attrs["complete"])


def rewrite(path, store, n_done=2):
    """The texts as `store(text)` gives them; the study set back to n_done rows."""
    with h5py.File(path, "r+") as f:
        g = f["study"]
        for name in TEXTS:
            text = g[name][()]
            text = text.decode() if isinstance(text, bytes) else text
            del g[name]
            store(g, name, text)
        g.attrs["n_done"] = np.int64(n_done)
        g.attrs["n_failed"] = np.int64(0)
        g.attrs["complete"] = np.int32(0)


def fixed(pad, extra=0, cut=None):
    def store(g, name, text):
        data = (text if cut is None else cut(text)).encode()
        tid = h5py.h5t.C_S1.copy()
        tid.set_size(len(data) + extra)
        tid.set_strpad(pad)
        space = h5py.h5s.create(h5py.h5s.SCALAR)
        d = h5py.h5d.create(g.id, name.encode(), tid, space)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL,
                np.array(data.ljust(len(data) + extra, b" " if pad == h5py.h5t.STR_SPACEPAD
                                    else b"\0"), dtype=f"S{len(data) + extra}"), mtype=tid)
    return store


def array_of_two(g, name, text):
    g.create_dataset(name, data=np.array([text.encode(), b"x"], dtype=f"S{len(text)}"))


def main():
    with tempfile.TemporaryDirectory() as d:
        study = os.path.join(d, "s.yaml")
        with open(study, "w") as f:
            f.write(f"base: {BASE}\nvary:\n  friction.dynamic: {{values: [0.5, 0.75, 1, 1.25, 1.5, 1.75]}}\n")
        whole = os.path.join(d, "whole.h5")
        p = sweep(study, "-o", whole)
        assert p.returncode == 0, p.stderr
        want, n, complete = rows(whole)
        assert n == 6 and complete == 1
        cases = {
            "nullpad exact": fixed(h5py.h5t.STR_NULLPAD),
            "nullterm roomy": fixed(h5py.h5t.STR_NULLTERM, extra=40),
            "spacepad roomy": fixed(h5py.h5t.STR_SPACEPAD, extra=40),
        }
        for label, store in cases.items():
            out = os.path.join(d, label.replace(" ", "_") + ".h5")
            subprocess.run(["cp", whole, out], check=True)
            rewrite(out, store)
            p = sweep(study, "-o", out, "--resume")
            assert p.returncode == 0, (label, p.stderr)
            got, n, complete = rows(out)
            assert n == 6 and complete == 1, label
            assert got.keys() == want.keys(), label
            for k in want:
                np.testing.assert_array_equal(got[k], want[k], err_msg=f"{label}: {k}")
        # Another study: the last character differs.
        out = os.path.join(d, "other.h5")
        subprocess.run(["cp", whole, out], check=True)
        rewrite(out, fixed(h5py.h5t.STR_NULLPAD, cut=lambda t: t[:-1] + "#"))
        p = sweep(study, "-o", out, "--resume")
        assert p.returncode == 2, p.stderr
        assert "was started from another study file" in p.stderr, p.stderr
        # An array of texts: refused, naming the dataset.
        out = os.path.join(d, "array.h5")
        subprocess.run(["cp", whole, out], check=True)
        rewrite(out, array_of_two)
        p = sweep(study, "-o", out, "--resume")
        assert p.returncode == 2, p.stderr
        assert "/study/study_yaml is not one text" in p.stderr, p.stderr
    print("ok")


if __name__ == "__main__":
    main()
