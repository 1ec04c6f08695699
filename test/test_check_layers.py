#!/usr/bin/python3
"""scripts/check_layers fails on a client of the library that reaches its
internals: a copy of the tree's sources passes as it is (exit 0, the
pending files named in the summary), and fails (exit 1, one line FILE:LINE
naming the header) once `#include "io/config.h"` is planted in a cli/ file
that is not pending, in an mpi/ file, or a converted cli/ file includes a
pending header of its folder, or the Python package uses a lib.NAME that
stickslip.h does not declare.  The expected lines are written here from
the planted text, not from the script."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
FOLDERS = ["solver", "events", "models", "io", "include", "api", "cli", "mpi", "python",
           "scripts"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def copy_tree(dst):
    for f in FOLDERS:
        shutil.copytree(os.path.join(SRC, f), os.path.join(dst, f),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "_cdef.h"))


def run(root):
    return subprocess.run(["/usr/bin/python3", os.path.join(root, "scripts", "check_layers"), root],
                          capture_output=True, text=True)


def plant(root, rel, line_no, text):
    """Insert `text` as line `line_no` (1-based) of root/rel."""
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    lines.insert(line_no - 1, text + "\n")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def planted_case(rel, line_no, text, expect):
    with tempfile.TemporaryDirectory() as tmp:
        copy_tree(tmp)
        plant(tmp, rel, line_no, text)
        r = run(tmp)
        check(r.returncode == 1, f"{rel} with {text!r}: exit {r.returncode}, expected 1")
        lines = r.stdout.splitlines()
        check(len(lines) == 1 and lines[0].startswith(expect),
              f"{rel} with {text!r}: printed {r.stdout!r}, expected one line starting {expect!r}")


def pending_list():
    """The script's PENDING list (it only shrinks; empty once every client
    file includes only the public header)."""
    with open(os.path.join(SRC, "scripts", "check_layers"), encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"^PENDING = \[(.*?)^\]", text, re.S | re.M)
    return re.findall(r'"([^"]+)"', block.group(1)) if block else []


PENDING = pending_list()

# The clean tree passes and names what is pending ("none" once nothing is).
with tempfile.TemporaryDirectory() as tmp:
    copy_tree(tmp)
    r = run(tmp)
    check(r.returncode == 0, f"clean tree: exit {r.returncode}: {r.stdout}{r.stderr}")
    named = r.stdout.split("pending:")[-1].split()
    check(named == (PENDING or ["none"]),
          f"clean tree: the summary names the pending files {PENDING}: {r.stdout!r}")
    check("cli/plot.c" not in named, f"clean tree: cli/plot.c is not pending: {r.stdout!r}")

# Converted cli/ files (the command's front end among them) and an mpi/
# file reaching io/ (line 2 of each).
planted_case("cli/plot.c", 2, '#include "io/config.h"', "cli/plot.c:2: includes io/config.h")
planted_case("cli/main.c", 2, '#include "models/run.h"', "cli/main.c:2: includes models/run.h")
planted_case("mpi/sweep_mpi.c", 2, '#include "io/config.h"',
             "mpi/sweep_mpi.c:2: includes io/config.h")
planted_case("mpi/sweep_mpi.h", 12, '#include "api/sweep.h"',
             "mpi/sweep_mpi.h:12: includes api/sweep.h")
# Through a pending header of its own folder, while there is one.
headers = [p for p in PENDING if p.startswith("cli/") and p.endswith(".h")]
if headers:
    h = headers[0]
    planted_case("cli/sweep.c", 9, f'#include "{h}"',
                 f"cli/sweep.c:9: includes {h}, which is pending")
# The Python package calling a symbol the header does not declare.
planted_case("python/stickslip/_core.py", 2, "_x = lib.stsl_config_load",
             "python/stickslip/_core.py:2: uses lib.stsl_config_load")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print(f"check_layers: clean tree passes; {5 + bool(headers)} planted uses of internals fail "
      "with FILE:LINE")
