#!/usr/bin/python3
"""Test shim: print an HDF5 object as an Octave expression, with the types
MATLAB's h5read / h5readatt / h5info return (GNU Octave 7 has none of these
functions).  Used by test/octave_h5/h5*.m to run examples/read_result.m in
Octave; not a general HDF5 reader.

usage: h5_octave.py read|readatt|info FILE PATH [ATTR]"""
import sys

import h5py
import numpy as np

INT = {np.dtype(t): f"int{8 * np.dtype(t).itemsize}" for t in ("i1", "i2", "i4", "i8")}


def string(s):
    if isinstance(s, bytes):
        s = s.decode("utf-8")
    if not s:
        return "''"
    return "char([" + " ".join(str(ord(c)) for c in s) + "])"


def numbers(a):
    a = np.asarray(a).ravel()
    body = "[" + ";".join("NaN" if np.isnan(x) else "Inf" if x == np.inf else "-Inf" if x == -np.inf else repr(float(x))
                          for x in a.astype(float)) + "]" if a.dtype.kind == "f" else \
        "[" + ";".join(str(int(x)) for x in a) + "]"
    if a.size == 0:
        body = "zeros(0,1)"
    return f"{INT[a.dtype]}({body})" if a.dtype in INT else body


def value(v, dtype):
    if h5py.check_string_dtype(dtype) is not None:
        return string(v if not isinstance(v, np.ndarray) else v[()])
    if dtype.names:  # compound: struct of column vectors
        fields = []
        for name in dtype.names:
            col = v[name]
            if col.dtype.kind == "S":  # fixed-length strings: L-by-N char
                n, size = len(col), col.dtype.itemsize
                codes = np.ascontiguousarray(col).tobytes()  # keeps the null padding
                fields.append(f"'{name}', {{reshape(char([{' '.join(map(str, codes))}]), {size}, {n})}}")
            else:
                fields.append(f"'{name}', {{{numbers(col)}}}")
        return "struct(" + ", ".join(fields) + ")"
    return numbers(v)


def main(op, file, path, attr=""):
    with h5py.File(file, "r") as f:
        obj = f[path]
        if op == "read":
            if h5py.check_string_dtype(obj.dtype) is not None:
                print("{" + string(obj.asstr()[()]) + "}")  # MATLAB: a cell for a vlen string
            else:
                print(value(obj[()], obj.dtype))
        elif op == "readatt":
            a = obj.attrs[attr]
            print(value(a, obj.attrs.get_id(attr).dtype))
        elif op == "info":
            names = [k for k, o in obj.items() if isinstance(o, h5py.Dataset)]
            # Dataspace.Size in MATLAB's order (the file's reversed), and
            # each dataset's attribute names, as MATLAB's h5info gives them.
            spaces = ", ".join(f"struct('Size', [{' '.join(str(d) for d in reversed(obj[n].shape))}])"
                               for n in names)
            attrs = ", ".join("struct('Name', {" + ", ".join(string(k) for k in obj[n].attrs) + "})"
                              for n in names)
            ds = ("struct('Name', {" + ", ".join(string(n) for n in names) + "}, 'Dataspace', {" + spaces +
                  "}, 'Attributes', {" + attrs + "})") if names else \
                "struct('Name', {}, 'Dataspace', {}, 'Attributes', {})"
            at = list(obj.attrs.items())
            atts = "struct('Name', {" + ", ".join(string(k) for k, _ in at) + "}, 'Value', {" + \
                ", ".join(value(v, obj.attrs.get_id(k).dtype) for k, v in at) + "})" if at else \
                "struct('Name', {}, 'Value', {})"
            print(f"struct('Datasets', {{{ds}}}, 'Attributes', {{{atts}}})")


if __name__ == "__main__":
    main(*sys.argv[1:])
