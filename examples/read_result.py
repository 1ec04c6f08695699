#!/usr/bin/python3
"""Read a stickslip result file (layout: docs/hdf5-layout.md) with h5py.

As a script: print the summary and the event table.
    /usr/bin/python3 examples/read_result.py results/janecek_chirp.h5

As a module: read() returns everything in a dict of plain Python/NumPy values.
    import read_result
    r = read_result.read("results/janecek_chirp.h5")
    r["trajectory"]["x"], r["units"]["x"], r["events"][0]["kind"], r["stats"]["steps"]
"""

import sys

import h5py
import numpy as np


def read(path):
    """Return a dict with
    complete (bool), message, program, version, created_utc, config (YAML text),
    trajectory: name -> 1-D array (t, x, v, ..., mode), units: name -> unit,
    mode_names: number -> name, events: list of dicts (t, kind, mode_before,
    mode_after, x, v_before, v_after, net_force, friction), event_units,
    kind_names (list), stats: name -> number."""
    with h5py.File(path, "r") as f:
        tr = f["trajectory"]
        mode_names = {}
        for item in tr["mode"].attrs["mode_names"].split(", "):
            num, name = item.split(" ", 1)
            mode_names[int(num)] = name
        events = []
        for row in f["events"][:]:
            ev = {name: row[name].item() for name in row.dtype.names}
            ev["kind"] = row["kind"].rstrip(b"\0").decode("ascii")
            events.append(ev)
        return {
            "complete": int(f.attrs["complete"]) == 1,
            "message": f.attrs["message"],
            "program": f.attrs["program"],
            "version": f.attrs["version"],
            "created_utc": f.attrs["created_utc"],
            "config": f["config"].asstr()[()],
            "trajectory": {name: ds[:] for name, ds in tr.items()},
            "units": {name: ds.attrs["units"] for name, ds in tr.items()},
            "mode_names": mode_names,
            "events": events,
            "event_units": f["events"].attrs["units"],
            "kind_names": f["events"].attrs["kind_names"].split(","),
            "stats": {k: v.item() for k, v in f["stats"].attrs.items()},
        }


def print_summary(r, out=sys.stdout):
    tr = r["trajectory"]
    t = tr["t"]
    status = "complete" if r["complete"] else "INCOMPLETE: " + r["message"]
    print(f"status:   {status}", file=out)
    print(f"program:  {r['program']} {r['version']}, created {r['created_utc']}", file=out)
    print(f"samples:  {len(t)}, t = {t[0]:g} .. {t[-1]:g} {r['units']['t']}", file=out)
    print("columns:  " + ", ".join(f"{n} [{u}]" for n, u in r["units"].items()), file=out)
    for num, name in sorted(r["mode_names"].items()):
        spent = r["stats"].get("time_" + name, 0.0)
        print(f"  {name:<10} {spent:12.6g} {r['units']['t']}  {np.count_nonzero(tr['mode'] == num):8d} samples",
              file=out)
    print(f"events:   {len(r['events'])}   ({r['event_units']})", file=out)
    print(f"{'t':>14} {'kind':<14} {'modes':<22} {'x':>13} {'v_before':>13} {'v_after':>13} "
          f"{'net_force':>13} {'friction':>13}", file=out)
    for e in r["events"]:
        modes = f"{r['mode_names'].get(e['mode_before'], e['mode_before'])}->" \
                f"{r['mode_names'].get(e['mode_after'], e['mode_after'])}"
        print(f"{e['t']:14.8f} {e['kind']:<14} {modes:<22} {e['x']:13.6g} {e['v_before']:13.6g} "
              f"{e['v_after']:13.6g} {e['net_force']:13.6g} {e['friction']:13.6g}", file=out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: read_result.py RESULT.h5")
    print_summary(read(sys.argv[1]))
