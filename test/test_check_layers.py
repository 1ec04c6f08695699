#!/usr/bin/python3
"""scripts/check_layers fails on a client of the library that reaches its
internals: a copy of the tree's sources passes as it is (exit 0), and fails
(exit 1, one line FILE:LINE naming the header) once an include of the
library's internals is planted in a cli/ file (a .c or a .h) or an mpi/
file, or the Python package uses a lib.NAME that stickslip.h does not
declare, or a file other than models/multibody*.c includes the engine's
private header models/multibody_impl.h.  The expected lines are written here from
the planted text, not from the script."""

import os
import shutil
import subprocess
import sys
import tempfile

SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
FOLDERS = ["solver", "physics", "models", "run", "io", "include", "api", "cli", "mpi", "python",
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


# The clean tree passes: every client file includes only the public header.
with tempfile.TemporaryDirectory() as tmp:
    copy_tree(tmp)
    r = run(tmp)
    check(r.returncode == 0, f"clean tree: exit {r.returncode}: {r.stdout}{r.stderr}")
    check("include only include/stickslip.h" in r.stdout and "all " in r.stdout,
          f"clean tree: the summary says every client file is one: {r.stdout!r}")

# cli/ files (the command's front end and compare among them) and mpi/
# files reaching the library's internals.
planted_case("cli/plot.c", 2, '#include "io/config/config.h"',
             "cli/plot.c:2: includes io/config/config.h")
planted_case("cli/main.c", 2, '#include "run/run.h"', "cli/main.c:2: includes run/run.h")
planted_case("cli/compare.c", 2, '#include "api/compare.h"',
             "cli/compare.c:2: includes api/compare.h")
planted_case("cli/fmu_opts.h", 8, '#include "solver/status.h"',
             "cli/fmu_opts.h:8: includes solver/status.h")
planted_case("mpi/sweep_mpi.c", 2, '#include "io/config/config.h"',
             "mpi/sweep_mpi.c:2: includes io/config/config.h")
planted_case("mpi/sweep_mpi.h", 12, '#include "api/sweep.h"',
             "mpi/sweep_mpi.h:12: includes api/sweep.h")
# Includes up a layer: the engine reaching run/ (what is done with a
# model), the physics of one contact reaching the engine.
planted_case("models/system.c", 2, '#include "run/run.h"',
             "models/system.c:2: includes run/run.h (layer models may")
planted_case("physics/contact.c", 2, '#include "models/system.h"',
             "physics/contact.c:2: includes models/system.h (layer physics may")
# The Python package calling a symbol the header does not declare.
planted_case("python/stickslip/_core.py", 2, "_x = lib.stsl_config_load",
             "python/stickslip/_core.py:2: uses lib.stsl_config_load")
# The engine's private header included beside its own files: by another
# file of its folder (the same layer, so only the private rule fails) and
# by the public header of the engine itself.
planted_case("models/system.c", 2, '#include "models/multibody_impl.h"',
             "models/system.c:2: includes models/multibody_impl.h (private")
planted_case("models/multibody.h", 2, '#include "models/multibody_impl.h"',
             "models/multibody.h:2: includes models/multibody_impl.h (private")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("check_layers: clean tree passes; 9 planted uses of internals and 2 "
      "includes up a layer fail with FILE:LINE")
