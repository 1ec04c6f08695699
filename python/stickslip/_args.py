"""Checks of the arguments of the public functions: a wrong type is a
TypeError naming the argument, a wrong value an InputError naming it, both
before anything reaches the library (which would otherwise see, say, the
text "None" as a file name)."""
import numbers
import os

from ._errors import InputError


def type_name(value):
    return "None" if value is None else type(value).__name__


def path(value, name):
    """A file name as str (str, bytes or os.PathLike)."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name}: expected a file path (str or os.PathLike), got {type_name(value)}")
    p = os.fsdecode(os.fspath(value))
    if not isinstance(p, str):  # a PathLike whose __fspath__ returns something else
        raise TypeError(f"{name}: expected a file path, got {type_name(value)}")
    if not p:
        raise InputError(f"{name}: an empty file name")
    if "\0" in p:
        raise InputError(f"{name}: a file name with a NUL byte: {p!r}")
    return p


def cpath(p):
    """The bytes the library gets for a checked path (os.fsencode: a name
    that is not UTF-8 reaches the file system unchanged)."""
    return os.fsencode(p)


def text(value, name):
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a str, got {type_name(value)}")
    if "\0" in value:
        raise InputError(f"{name}: a NUL byte in the text (at {value.index(chr(0))})")
    return value


def number(value, name, minimum=None, allow_none=True):
    """A real number (bool is not one), optionally >= minimum; None passes
    when allow_none."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type_name(value)}")
    x = float(value)
    if x != x or x in (float("inf"), float("-inf")):
        raise InputError(f"{name}: must be finite (got {x!r})")
    if minimum is not None and x < minimum:
        raise InputError(f"{name}: must be >= {minimum:g} (got {value!r})")
    return x


def integer(value, name, lo, hi):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an int, got {type_name(value)}")
    if not lo <= int(value) <= hi:
        raise InputError(f"{name}: must be in [{lo}, {hi}] (got {int(value)})")
    return int(value)


def hdf5_groups(path):
    """The names at the root of the HDF5 file `path`, or None when it is
    not a regular HDF5 file (or h5py is missing).  A FIFO is not opened:
    opening it would wait for a writer."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            if f.read(8) != b"\x89HDF\r\n\x1a\n":
                return None
        import h5py

        with h5py.File(path, "r") as f:
            return set(f)
    except (OSError, ImportError):
        return None
