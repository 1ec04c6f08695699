#!/usr/bin/env python3
"""check_readme.py SOURCE_DIR STICKSLIP PYTHON_PACKAGE_DIR|- - the README's
shown commands print what the README shows.

The walk-through is run as a reader runs it, in an empty directory:
  - a ```yaml block is written to the file the paragraph before it names
    last (`block.yaml`, `study.yaml`);
  - a plain ``` block whose first line starts with "$ " is a session: each
    "$ " line is run by the shell (`stickslip` and `build/release/stickslip`
    are the binary under test, `examples/` is the repository's), and the
    lines after it are what it must print: every shown line, in order and
    consecutive, except where a line "…" stands for lines left out;
  - the ```python block runs with the package under test, and must print
    the text the paragraph after it shows in backticks after "prints"
    (not with "-" for the package: a sanitized library does not load
    into Debian's python3 without its runtime preloaded).
Figures that depend on the machine are masked on both sides before the
comparison (wall times, the number of threads); every other character,
the solver's step and evaluation counts and event times included, must
match. ```sh blocks (installing, building) are not run here: they need
root and the network; scripts/demo and scripts/test are those commands.
Exit 1 naming the block's line and the first line that differs.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)\s*$")
ELIDED = "…"
MAX_LINES = 300
MASKS = [
    (re.compile(r"wall time \S+ s"), "wall time <t> s"),
    (re.compile(r"\bwall \S+ s\b"), "wall <t> s"),
    (re.compile(r"\(\d+ in \S+ s, \d+ jobs?\)"), "(<n> in <t> s, <j> jobs)"),
    (re.compile(r"created \S+"), "created <date>"),
]
# converge's table: step, 4 errors, then the wall time (6th field).
CONVERGE_ROW = re.compile(r"^(\s*(?:\S+\s+){4}\S+)\s+\S+(.*)$")


def norm(line, in_converge):
    line = line.rstrip()
    for pattern, repl in MASKS:
        line = pattern.sub(repl, line)
    if in_converge and re.match(r"^\s*[0-9.e+-]+(\s+[0-9.e+-]+){9}$", line):
        line = CONVERGE_ROW.sub(r"\1 <t>\2", line)
    return line


def blocks(text):
    """(line number, language, lines, text before, text after) per fence."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while not FENCE.match(lines[j]):
            j += 1
        before = "\n".join(lines[max(0, i - 6):i])
        after = "\n".join(lines[j + 1:j + 4])
        out.append((i + 1, m.group(1), lines[i + 1:j], before, after))
        i = j + 1
    return out


def compare(shown, actual, where, in_converge):
    """Every shown line in order; consecutive unless a "…" line lies between."""
    act = [norm(a, in_converge) for a in actual]
    pos, free = 0, False
    for s in shown:
        if s.strip() == ELIDED:
            free = True
            continue
        want = norm(s, in_converge)
        if free:
            while pos < len(act) and act[pos] != want:
                pos += 1
            if pos >= len(act):
                return f"{where}: shown line\n  {want!r}\nis not in what the program printed after the line before it"
        if pos >= len(act) or act[pos] != want:
            got = act[pos] if pos < len(act) else "<end of output>"
            return f"{where}: shown line\n  {want!r}\nbut the program printed\n  {got!r}"
        pos += 1
        free = False
    if pos < len(act) and not free:
        return f"{where}: the program printed more after the last shown line: {act[pos]!r}"
    return None


def run_session(lines, first, cwd, env):
    errors = []
    i = 0
    while i < len(lines):
        cmd = lines[i][2:]
        j = i + 1
        while j < len(lines) and not lines[j].startswith("$ "):
            j += 1
        shown = lines[i + 1:j]
        p = subprocess.run(cmd, shell=True, cwd=cwd, env=env, capture_output=True, text=True)
        where = f"README.md:{first + i + 1}: {cmd}"
        if p.returncode != 0:
            errors.append(f"{where}: exit {p.returncode}: {p.stderr.strip()}")
        else:
            err = compare(shown, p.stdout.rstrip("\n").split("\n"), where,
                          " converge " in f" {cmd} ")
            if err:
                errors.append(err)
        i = j
    return errors


def main():
    src, exe, pydir = sys.argv[1:4]
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        text = f.read()
    # A front door, not the manual: detail belongs in docs/.
    n_lines = text.count("\n")
    if n_lines > MAX_LINES:
        print(f"README.md: {n_lines} lines, more than {MAX_LINES}: move detail into docs/")
        return 1
    work = tempfile.mkdtemp(prefix="check_readme.")
    try:
        bindir = os.path.join(work, ".bin")
        os.makedirs(os.path.join(work, "build", "release"))
        os.makedirs(bindir)
        os.symlink(exe, os.path.join(bindir, "stickslip"))
        os.symlink(exe, os.path.join(work, "build", "release", "stickslip"))
        os.symlink(os.path.join(src, "examples"), os.path.join(work, "examples"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
                   PYTHONPATH=pydir, LC_ALL="C.UTF-8")
        errors, sessions, files, python = [], 0, 0, 0
        for line_no, lang, lines, before, after in blocks(text):
            if lang == "yaml":
                names = re.findall(r"`([\w.-]+\.yaml)`", before)
                if not names:
                    errors.append(f"README.md:{line_no}: a yaml block without a file name before it")
                    continue
                with open(os.path.join(work, names[-1]), "w", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
                files += 1
            elif lang == "" and lines and lines[0].startswith("$ "):
                errors += run_session(lines, line_no, work, env)
                sessions += 1
            elif lang == "python" and pydir == "-":
                continue  # a sanitized build: its library does not load into python3
            elif lang == "python":
                m = re.search(r"prints `([^`]*)`", after)
                if not m:
                    errors.append(f"README.md:{line_no}: a python block without 'prints `...`' after it")
                    continue
                p = subprocess.run(["/usr/bin/python3", "-"], input="\n".join(lines) + "\n",
                                   cwd=work, env=env, capture_output=True, text=True)
                if p.returncode or p.stdout.strip() != m.group(1):
                    errors.append(f"README.md:{line_no}: python printed {p.stdout.strip()!r} "
                                  f"(exit {p.returncode}: {p.stderr.strip()[-300:]}), "
                                  f"README shows {m.group(1)!r}")
                python += 1
        for e in errors:
            print(e)
        print(f"check_readme: {files} files written, {sessions} sessions, {python} python blocks, "
              f"{len(errors)} differences")
        # The walk-through has files, sessions and a python block: finding
        # none means the parsing broke, not that all is well.
        if files == 0 or sessions == 0 or (python == 0 and pydir != "-"):
            print("check_readme: found no walk-through to run")
            return 1
        return 1 if errors else 0
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())
