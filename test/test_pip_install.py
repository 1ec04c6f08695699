#!/usr/bin/env python3
"""test_pip_install.py SOURCE_DIR - the Python package as a user installs it.

docs/python.md "Installing": with Debian's python3,
    python3 -m venv --system-site-packages v
    v/bin/pip install --no-index --no-build-isolation .
and, for another interpreter of the same Python version without numpy (a
pyenv python3), a venv of that interpreter with a `.pth` naming Debian's
dist-packages.  This does both, each into a temporary directory, from a
copy of the sources (so parallel test runs of several build trees do not
share the package's build tree build/pip, and the clone stays clean), then
runs a short session with the venv's python in a directory outside the
sources, so `import stickslip` cannot find the source copy.  It also builds
an sdist of the copy, a wheel from that sdist alone, and installs the wheel
into a fresh venv (the other interpreter's when there is one).

The session asserts against values known apart from the library:
  - the package imported is the venv's, and the library it loaded is the
    libstickslip.so shipped beside it (not a build tree's or the system's);
  - the block of the README's walk-through with static friction 2 N breaks
    away first at t = 2 N / (100 N/m x 0.1 m/s) = 0.2 s (the belt drags the
    stuck block, the spring force grows as k v t until it reaches the
    static limit).  Tolerance 1e-12 s: the breakaway is a root of
    k v t - F_s located by rootfinding to about 100 machine epsilons of t
    (4e-15 s); 1e-12 s is far below any other event's distance;
  - the run saved to a file and read back gives the same event times.
The other interpreter's part is skipped, with a message, when PATH has no
python3 other than Debian's of the same version.
"""
import os
import shutil
import subprocess
import sys
import tempfile

DEBIAN_PYTHON = "/usr/bin/python3"
SESSION = r'''
import os, sys
import stickslip as ss
from stickslip import _lib
here = os.path.dirname(ss.__file__)
assert here.startswith(sys.prefix), (here, sys.prefix)
assert _lib._lib_path() == os.path.join(here, "libstickslip.so"), _lib._lib_path()
with open("block.yaml", "w") as f:
    f.write("""
element:
  mass: 1.0                        # kg
  spring: {stiffness: 100.0}       # N/m, to the wall
friction: {law: coulomb, dynamic: 1.0, static: 1.5}
inputs:
  base_motion: {type: ramp, slope: 0.1}
  anchor_motion: {type: constant, value: 0.0}
simulation: {t_end: 2.0}
""")
cfg = ss.load("block.yaml")
cfg["friction.static"] = 2.0
r = ss.run(cfg)
assert r.complete, r.message
assert list(r.events["kind"][:2]) == ["breakaway", "stick"], r.events["kind"]
assert abs(r.events["t"][0] - 0.2) < 1e-12, r.events["t"][0]
r.save("out.h5")
r2 = ss.read("out.h5")
assert (r2.events["t"] == r.events["t"]).all()
print("session ok", ss.__version__, sys.version.split()[0])
'''


def sh(cmd, **kw):
    print("$", " ".join("<session>" if c == SESSION else c for c in cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        print(p.stdout[-4000:], p.stderr[-4000:], sep="\n")
        raise SystemExit(f"FAIL: exit {p.returncode}: {' '.join(cmd)}")
    return p.stdout


def clean_env():
    """No trace of the build tree: the installed package must stand alone."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "STICKSLIP_LIB", "PYTHONHOME", "LD_LIBRARY_PATH")}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    return env


def pip(venv, *args, env):
    return sh([os.path.join(venv, "bin", "pip"), *args, "--no-index", "--no-build-isolation",
               "--no-cache-dir"], env=env)


def venv_with(python, venv, pth, what, workdir):
    """A venv of `python` (with Debian's packages through a .pth when `pth`
    names them, else through --system-site-packages), `what` pip-installed
    into it, and the session run by it in `workdir`."""
    env = clean_env()
    args = [python, "-m", "venv"] + (["--system-site-packages"] if not pth else []) + [venv]
    sh(args, env=env)
    if pth:
        site = sh([os.path.join(venv, "bin", "python"), "-c",
                   "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env).strip()
        with open(os.path.join(site, "debian.pth"), "w") as f:
            f.write(pth + "\n")
    pip(venv, "install", what, env=env)
    os.makedirs(workdir)
    out = sh([os.path.join(venv, "bin", "python"), "-c", SESSION], env=env, cwd=workdir)
    print(out.strip())


def wheel_from_sdist(venv, src, tmp):
    """The sdist of the sources (MANIFEST.in decides what it holds), and a
    wheel built from it alone: the sdist must carry everything CMake needs."""
    dist, wheels = os.path.join(tmp, "dist"), os.path.join(tmp, "wheels")
    code = f"from setuptools import build_meta as b; print(b.build_sdist({dist!r}))"
    sdist = os.path.join(dist, sh([DEBIAN_PYTHON, "-c", code], env=clean_env(), cwd=src)
                         .strip().splitlines()[-1])
    pip(venv, "wheel", "--no-deps", "-w", wheels, sdist, env=clean_env())
    (wheel,) = os.listdir(wheels)
    return os.path.join(wheels, wheel)


def other_python():
    """A python3 on PATH that is not Debian's but has its version, or a
    reason why there is none."""
    found = shutil.which("python3")
    if not found:
        return None, "no python3 on PATH"
    ask = "import sys; print(sys.executable, '%d.%d' % sys.version_info[:2])"
    exe, version = sh([found, "-c", ask], env=clean_env()).split()
    debian_exe, debian_version = sh([DEBIAN_PYTHON, "-c", ask], env=clean_env()).split()
    if os.path.realpath(exe) == os.path.realpath(debian_exe):
        return None, f"python3 on PATH ({found}) is Debian's"
    if version != debian_version:
        return None, f"python3 on PATH ({exe}) is {version}, Debian's is {debian_version}"
    return exe, ""


def main():
    root = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="stsl_pip_")
    try:
        src = os.path.join(tmp, "src")
        shutil.copytree(root, src, ignore=shutil.ignore_patterns(
            "build", "build-*", ".git", "results", "*.egg-info", "__pycache__"))
        venv_with(DEBIAN_PYTHON, os.path.join(tmp, "v"), None, src, os.path.join(tmp, "run"))
        wheel = wheel_from_sdist(os.path.join(tmp, "v"), src, tmp)
        exe, why = other_python()
        if exe:
            venv_with(exe, os.path.join(tmp, "p"), "/usr/lib/python3/dist-packages", src,
                      os.path.join(tmp, "run-other"))
            venv_with(exe, os.path.join(tmp, "pw"), "/usr/lib/python3/dist-packages", wheel,
                      os.path.join(tmp, "run-other-wheel"))
        else:
            print(f"SKIPPED the other interpreter's route: {why}")
            venv_with(DEBIAN_PYTHON, os.path.join(tmp, "w"), None, wheel,
                      os.path.join(tmp, "run-wheel"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
