"""`pip install .` of the Python package: build libstickslip with CMake and
ship it inside the package.

Why the library is built here and shipped in the package rather than found
on the system: a venv, pyenv or conda user has no `cmake --install` of the
library, and a package that carries its own library works from wherever pip
puts it, with no absolute path written at install time and no LD_LIBRARY_PATH.
The library still links the system's SUNDIALS, HDF5, libyaml, GSL and matio
(the Debian -dev packages scripts/setup installs), so the wheel is for this
machine's distribution, not a manylinux wheel.

The build is CMake's (Release, tests off), of two targets only: the shared
library and `_cdef.h`, the public header through the C preprocessor that
cffi reads (cmake/python.cmake).  The build tree is under setuptools' build
directory (build/pip in a clone), so it is reused by the next `pip install .`
and never mixed with the build/debug or build/release trees.
Environment: CMAKE (the cmake to run, default `cmake`), CMAKE_ARGS (more
-D options for the configure step), CMAKE_BUILD_PARALLEL_LEVEL (jobs,
default all cores).
"""
import os
import re
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    """The version is CMake's project(VERSION): one definition."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*stickslip\s+VERSION\s+([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("CMakeLists.txt: no project(stickslip VERSION ...) line")
    return m.group(1)


def run(cmd):
    print("stickslip setup:", " ".join(shlex.quote(c) for c in cmd), flush=True)
    try:
        subprocess.run(cmd, check=True)
    except FileNotFoundError as e:
        raise RuntimeError(f"{cmd[0]}: not found ({e}); building the package needs CMake "
                           "and a C compiler (Debian: cmake, gcc)") from None
    except subprocess.CalledProcessError as e:
        raise RuntimeError(f"{cmd[0]} failed (exit {e.returncode}); the C library's "
                           "dependencies are the Debian packages in scripts/setup") from None


class BuildWithLibrary(build_py):
    """build_py, then the C library and `_cdef.h` into the built package."""

    def run(self):
        super().run()
        build_temp = self.get_finalized_command("build").build_temp
        cmake_dir = os.path.abspath(os.path.join(build_temp, "cmake"))
        cmake = os.environ.get("CMAKE", "cmake")
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        run([cmake, "-S", ROOT, "-B", cmake_dir, "-DCMAKE_BUILD_TYPE=Release",
             "-DBUILD_TESTING=OFF", *shlex.split(os.environ.get("CMAKE_ARGS", ""))])
        run([cmake, "--build", cmake_dir, "--target", "stickslip_shared", "python_cdef",
             "-j", jobs])
        built = os.path.join(cmake_dir, "python", "stickslip")
        # _libpath.py of the CMake build names the library it built; the
        # package gets a copy of that file (the real file, not the soname
        # link) and no _libpath.py, so it loads the copy beside itself.
        with open(os.path.join(built, "_libpath.py"), encoding="utf-8") as f:
            library = re.search(r'LIBRARY = "(.*)"', f.read()).group(1)
        target = os.path.join(self.build_lib, "stickslip")
        shutil.copyfile(os.path.realpath(library), os.path.join(target, "libstickslip.so"))
        shutil.copyfile(os.path.join(built, "_cdef.h"), os.path.join(target, "_cdef.h"))


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: a platform wheel, installed into
    platlib, not a pure-Python one."""

    def has_ext_modules(self):
        return True


setup(version=project_version(),
      cmdclass={"build_py": BuildWithLibrary},
      distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.join("build", "pip")}})
