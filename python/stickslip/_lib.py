"""The cffi binding (ABI mode) to libstickslip.so.

The declarations are not copied from stickslip.h: the build runs the C
preprocessor over include/stickslip.h into `_cdef.h` beside this file (see
cmake/python.cmake), and only the visibility attribute, which cffi's parser
does not know, is removed here.  So the header stays the one definition of
the API, and a change to it reaches Python at the next build.

cffi releases the GIL around every call of a C function in ABI mode too
(its call path wraps ffi_call in Py_BEGIN/END_ALLOW_THREADS), so a run or a
sweep variant executing in C lets other Python threads run.
"""
import os
import re

from cffi import FFI

_here = os.path.dirname(os.path.abspath(__file__))


def _cdef_text():
    with open(os.path.join(_here, "_cdef.h"), encoding="utf-8") as f:
        text = f.read()
    return re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", text)


def _lib_path():
    """The library to load, first found of:
    1. $STICKSLIP_LIB: set only on purpose (another build, a sanitized
       library), so it wins over everything;
    2. libstickslip.so beside this file: the copy `pip install` ships;
    3. `_libpath.py`: the library of the CMake build tree, or the installed
       one after `cmake --install` (both write it);
    4. the system's search path (ldconfig, LD_LIBRARY_PATH): a library
       installed apart from this package."""
    path = os.environ.get("STICKSLIP_LIB")
    if path:
        return path
    shipped = os.path.join(_here, "libstickslip.so")
    if os.path.exists(shipped):
        return shipped
    try:
        from ._libpath import LIBRARY

        return LIBRARY
    except ImportError:
        return "libstickslip.so.0"


ffi = FFI()
ffi.cdef(_cdef_text())
_path = _lib_path()
try:
    lib = ffi.dlopen(_path)
except OSError as e:
    # cffi's message names only the file: say where it came from and what to do.
    raise OSError(f"stickslip: cannot load the C library {_path} ({e}); set STICKSLIP_LIB to the "
                  "path of libstickslip.so, or install the package with pip "
                  "(docs/python.md, Installing)") from e
