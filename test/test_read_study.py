#!/usr/bin/python3
"""examples/read_study.py on a study written by `stickslip sweep`: the
parameter columns are the study's grid in variant order, the summary columns
match the file's own counts, and a failed variant's message reads back."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
import read_study  # noqa: E402

BIN = os.environ["STICKSLIP_BIN"]
BASE = os.path.join(HERE, "..", "examples", "den_hartog.yaml")


def main():
    with tempfile.TemporaryDirectory() as d:
        study = os.path.join(d, "s.yaml")
        out = os.path.join(d, "s.h5")
        with open(study, "w") as f:
            f.write(f"base: {BASE}\n"
                    "vary:\n"
                    "  element.mass: {values: [1, 2]}\n"
                    "  friction.dynamic: {values: [0.5, -1, 1.5]}\n")
        rc = subprocess.run([BIN, "sweep", study, "-o", out, "-q", "-j", "2"]).returncode
        assert rc == 3, rc  # the two variants with dynamic -1 are invalid
        s = read_study.read(out)
        c = s["columns"]
        assert s["complete"] and s["n_done"] == 6 and s["n_failed"] == 2, s
        assert s["keys"] == ["element.mass", "friction.dynamic"], s["keys"]
        assert list(c["element.mass"]) == [1, 1, 1, 2, 2, 2]
        assert list(c["friction.dynamic"]) == [0.5, -1, 1.5] * 2
        assert list(c["status"]) == [0, 1, 0, 0, 1, 0]
        assert c["message"][1] == "friction.dynamic: must be >= 0 (got -1)", c["message"][1]
        assert c["message"][0] == ""
        assert s["units"]["max_abs_x"] == "m" and s["units"]["t_reached"] == "s"
    print("ok")


if __name__ == "__main__":
    main()
