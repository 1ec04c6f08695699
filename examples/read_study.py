#!/usr/bin/python3
"""Read a stickslip study file (stickslip sweep; layout: docs/hdf5-layout.md).

As a script: print the counts, the first failures and the first rows.
    /usr/bin/python3 examples/read_study.py results/study_janecek.h5

As a module: read() returns a dict of NumPy arrays (one per varied key and
per summary column, rows [0, n_done) in variant order); frame() the same as
a pandas DataFrame when pandas is installed.
    import read_study
    s = read_study.read("results/study_janecek.h5")
    s["columns"]["friction.dynamic"], s["columns"]["events_stick"], s["units"]["max_abs_x"]
"""

import sys

import h5py
import numpy as np


def read(path):
    """Return a dict with complete (bool), n_runs, n_done, n_failed, version,
    store, combine, study_yaml, base_config (texts), keys (varied keys, in
    order), columns: name -> 1-D array (the keys, then status, message,
    t_reached, events_<kind>, ...), units: name -> unit."""
    with h5py.File(path, "r") as f:
        st = f["study"]
        n = int(st.attrs["n_done"])
        columns, units = {}, {}
        keys = list(st["parameters"].keys())  # creation order: the study's order
        for k in keys:
            columns[k] = st["parameters"][k][:n]
            units[k] = ""
        for name, d in st["summary"].items():
            columns[name] = d.asstr()[:n] if name == "message" else d[:n]
            units[name] = d.attrs.get("units", "")
        return {
            "complete": int(st.attrs["complete"]) == 1,
            "n_runs": int(st.attrs["n_runs"]),
            "n_done": n,
            "n_failed": int(st.attrs["n_failed"]),
            "version": st.attrs["version"],
            "store": st.attrs["store"],
            "combine": st.attrs["combine"],
            "study_yaml": st["study_yaml"].asstr()[()],
            "base_config": st["base_config"].asstr()[()],
            "keys": keys,
            "columns": columns,
            "units": units,
        }


def frame(path):
    """The columns as a pandas DataFrame indexed by variant (needs pandas)."""
    import pandas as pd

    s = read(path)
    return pd.DataFrame(s["columns"], index=pd.RangeIndex(s["n_done"], name="variant"))


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    s = read(argv[1])
    c = s["columns"]
    state = "complete" if s["complete"] else "INCOMPLETE"
    print(f"{argv[1]}: {state}, {s['n_done']} of {s['n_runs']} variants ({s['combine']}), "
          f"{s['n_failed']} failed")
    for i in np.flatnonzero(c["status"] > 0)[:5]:
        print(f"  variant {i}: {c['message'][i]}")
    shown = s["keys"] + ["status", "events_stick", "stuck_fraction", "max_abs_x"]
    print(" ".join(f"{k:>24}" for k in shown))
    for i in range(min(s["n_done"], 10)):
        print(" ".join(f"{c[k][i]:>24.6g}" for k in shown))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
