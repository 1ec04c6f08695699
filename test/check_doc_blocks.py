#!/usr/bin/env python3
"""check_doc_blocks.py SOURCE_DIR STICKSLIP PYTHON_PACKAGE_DIR|- - every code
block of README.md and docs/*.md runs as shown.

Each page is read as a reader reads it: its blocks run in order in one
empty directory (the repository's examples/ linked in, `stickslip` on
PATH), so a block may use the files an earlier block of the page wrote.
By the block's language:
  ```sh       every line runs (bash, stopping at the first failure);
  ``` "$ "    a session: each "$ " line runs and the lines after it are
              what it must print (test/check_readme.py's rules: every shown
              line in order, "…" for lines left out, wall times and thread
              counts masked);
  ```python   runs with the package under test (Debian's python3); if the
              text after it says "prints `...`", that is its output;
  ```c        compiled against the header and library under test and run;
  ```yaml     a file the paragraph before names: an excerpt of that file
              of the repository (every line, comments aside, in order, "..."
              for lines left out), else the file the walk-through writes
              there (README); a block naming no file is a configuration or
              study on its own: `stickslip check` (or `sweep` of a study
              into a scratch file) must take it;
  ```text     shown, never run: a synopsis, a schematic, or figures of a
              benchmark measured on a named machine;
  ```matlab   runs in GNU Octave when octave is installed.
A block whose first line is a comment "needs: WHAT" (`# needs: root`,
`% needs: MATLAB`) needs something this test does not have (root, the
network, a cluster, another program): it is reported as skipped, never
run.  A block without a language that is not a session is an error (give
it one), as is a block that fails.  Exit 1 listing every failure.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_readme import blocks, compare  # noqa: E402  (one parser, one comparison)

NEEDS = re.compile(r"^\s*(?:#|%|//)\s*needs:\s*(.+)$")
LANGS = {"", "sh", "python", "c", "yaml", "text", "matlab"}
TIMEOUT = 600  # seconds: a hung block fails instead of hanging ctest


def strip_comment(line):
    """A YAML line without its comment and surrounding blanks."""
    return re.sub(r"(^|\s)#.*$", "", line).strip()


def excerpt_error(lines, path):
    """None if `lines` are an excerpt of the file at `path` (in order,
    comments aside, "..." for lines left out), else the first line that
    is not."""
    with open(path, encoding="utf-8") as f:
        have = [strip_comment(line) for line in f]
    pos = 0
    for line in lines:
        want = strip_comment(line)
        if not want or want == "...":
            continue
        while pos < len(have) and have[pos] != want:
            pos += 1
        if pos == len(have):
            return f"line {line.strip()!r} is not in {os.path.relpath(path)} (in this order)"
        pos += 1
    return None


class Page:
    def __init__(self, src, exe, pydir, name):
        self.src, self.exe, self.pydir, self.name = src, exe, pydir, name
        self.work = tempfile.mkdtemp(prefix="check_doc_blocks.")
        bindir = os.path.join(self.work, ".bin")
        os.makedirs(bindir)
        os.makedirs(os.path.join(self.work, "build", "release"))
        for prog in ("stickslip", "stickslip-mpi"):
            built = os.path.join(os.path.dirname(exe), prog)
            if os.path.exists(built):
                os.symlink(built, os.path.join(bindir, prog))
                os.symlink(built, os.path.join(self.work, "build", "release", prog))
        os.symlink(os.path.join(src, "examples"), os.path.join(self.work, "examples"))
        self.env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
                        LC_ALL="C.UTF-8", MPLBACKEND="Agg")
        if os.geteuid() == 0:  # as studies.md says: OpenMPI refuses root without it
            self.env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        if pydir != "-":
            self.env["PYTHONPATH"] = pydir
        self.counts = {"run": 0, "skipped": 0, "shown": 0}
        self.skipped = []

    def run(self, args, env=None, **kw):
        return subprocess.run(args, cwd=self.work, env=env or self.env, capture_output=True,
                              text=True, timeout=TIMEOUT, **kw)

    def failed(self, p):
        return f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-400:]}"

    def block(self, line_no, lang, lines, before, after):
        """The findings of one block (a list of messages)."""
        where = f"{self.name}:{line_no}"
        if lang not in LANGS:
            return [f"{where}: unknown block language '{lang}'"]
        m = NEEDS.match(lines[0]) if lines else None
        if m:
            self.counts["skipped"] += 1
            self.skipped.append(f"{where} ({m.group(1).strip()})")
            return []
        if lang == "text":
            self.counts["shown"] += 1
            return []
        self.counts["run"] += 1
        if lang == "":
            if not (lines and lines[0].startswith("$ ")):
                return [f"{where}: a block without a language that is not a session ('$ ' lines): "
                        "mark it sh, text, ..."]
            return self.session(where, lines)
        return getattr(self, "run_" + lang)(where, lines, before, after)

    def session(self, where, lines):
        errors, i = [], 0
        while i < len(lines):
            cmd = lines[i][2:]
            j = i + 1
            while j < len(lines) and not lines[j].startswith("$ "):
                j += 1
            p = self.run(cmd, shell=True)
            if p.returncode:
                errors.append(f"{where}: {cmd}: {self.failed(p)}")
            else:
                err = compare(lines[i + 1:j], p.stdout.rstrip("\n").split("\n"), f"{where}: {cmd}",
                              " converge " in f" {cmd} ")
                if err:
                    errors.append(err)
            i = j
        return errors

    def run_sh(self, where, lines, before, after):
        env = None
        if any("mpirun" in line for line in lines):
            # In a sanitized build, OpenMPI's own allocations left at exit
            # fail every rank under LeakSanitizer, and its TCP layer's lock
            # order under ThreadSanitizer: test_sweep_mpi's settings (the
            # sweep's own code is checked by test_sweep; a build without
            # sanitizers ignores both variables).
            supp = os.path.join(self.src, "test", "tsan_openmpi.supp")
            env = dict(self.env, ASAN_OPTIONS="detect_leaks=0", TSAN_OPTIONS="suppressions=" + supp)
        p = self.run(["bash", "-e", "-o", "pipefail", "-c", "\n".join(lines)], env=env)
        return [f"{where}: {self.failed(p)}"] if p.returncode else []

    def expect(self, where, p, after):
        if p.returncode:
            return [f"{where}: {self.failed(p)}"]
        m = re.search(r"prints `([^`]*)`", after)
        if m and p.stdout.strip() != m.group(1):
            return [f"{where}: printed {p.stdout.strip()!r}, the page shows {m.group(1)!r}"]
        return []

    def run_python(self, where, lines, before, after):
        if self.pydir == "-":  # a sanitized library does not load into python3
            self.counts["run"] -= 1
            self.counts["skipped"] += 1
            self.skipped.append(f"{where} (the package: not in a sanitized build)")
            return []
        p = self.run(["/usr/bin/python3", "-"], input="\n".join(lines) + "\n")
        return self.expect(where, p, after)

    def run_c(self, where, lines, before, after):
        if self.pydir == "-":  # a sanitized library links only with its runtime's flags
            self.counts["run"] -= 1
            self.counts["skipped"] += 1
            self.skipped.append(f"{where} (C: not against a sanitized library)")
            return []
        c = os.path.join(self.work, "block.c")
        with open(c, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        libdir = os.path.dirname(self.exe)
        p = self.run(["cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-I",
                      os.path.join(self.src, "include"), c, "-o", "block", "-L", libdir,
                      "-lstickslip", "-Wl,-rpath," + libdir])
        if p.returncode:
            return [f"{where}: does not compile: {self.failed(p)}"]
        return self.expect(where, self.run(["./block"]), after)

    def run_matlab(self, where, lines, before, after):
        if not shutil.which("octave"):
            self.counts["run"] -= 1
            self.counts["skipped"] += 1
            self.skipped.append(f"{where} (octave is not installed)")
            return []
        p = self.run(["octave", "--no-gui", "--no-window-system", "--quiet", "--eval",
                      "\n".join(lines)])
        return self.expect(where, p, after)

    def run_yaml(self, where, lines, before, after):
        names = re.findall(r"`([\w./-]+\.yaml)`", before)
        if names:
            repo = os.path.join(self.src, names[-1])
            if os.path.exists(repo):
                err = excerpt_error(lines, repo)
                return [f"{where}: {err}"] if err else []
            with open(os.path.join(self.work, names[-1]), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            return []
        path = os.path.join(self.work, "block.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        if any(line.startswith("base:") for line in lines):
            p = self.run(["stickslip", "sweep", path, "-o", "block_study.h5", "--quiet"])
        else:
            p = self.run(["stickslip", "check", path])
        return [f"{where}: not taken: {self.failed(p)}"] if p.returncode else []

    def close(self):
        shutil.rmtree(self.work)


def pages(src):
    docs = os.path.join(src, "docs")
    return ["README.md"] + [os.path.join("docs", n) for n in sorted(os.listdir(docs))
                            if n.endswith(".md")]


def main():
    src, exe, pydir = (os.path.abspath(a) if a != "-" else a for a in sys.argv[1:4])
    only = sys.argv[4:]  # page names, for a quick look at one page
    errors, totals, skipped = [], {"run": 0, "skipped": 0, "shown": 0}, []
    for name in pages(src):
        if only and name not in only:
            continue
        with open(os.path.join(src, name), encoding="utf-8") as f:
            text = f.read()
        page = Page(src, exe, pydir, name)
        try:
            for b in blocks(text):
                try:
                    errors += page.block(*b)
                except subprocess.TimeoutExpired:
                    errors.append(f"{name}:{b[0]}: still running after {TIMEOUT} s")
        finally:
            page.close()
        for k in totals:
            totals[k] += page.counts[k]
        skipped += page.skipped
    for s in skipped:
        print(f"skipped {s}")
    for e in errors:
        print(e)
    print(f"check_doc_blocks: {totals['run']} blocks run, {totals['shown']} shown only, "
          f"{totals['skipped']} skipped, {len(errors)} failed")
    if totals["run"] == 0:
        print("check_doc_blocks: found no block to run")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
