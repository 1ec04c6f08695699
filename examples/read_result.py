#!/usr/bin/python3
"""Read a stickslip result file (layout: docs/hdf5-layout.md) with h5py.

As a script: print the summary and the event table.
    /usr/bin/python3 examples/read_result.py results/janecek_chirp.h5

As a module: read() returns everything in a dict of plain Python/NumPy values.
    import read_result
    r = read_result.read("results/janecek_chirp.h5")
    r["trajectory"]["x"], r["units"]["x"], r["events"][0]["kind"], r["stats"]["steps"]

A system of bodies (docs/hdf5-layout.md, "Systems of bodies") reads the
same way: its grouped datasets are samples x members arrays
(r["trajectory"]["x"][:, k] is body r["names"]["x"][k]), r["system"] is
True, r["value_names"] names the numbers of contact_mode and stop_mode,
and each event has "index" and "subject" (the contact or stop it is about,
"" for none) and its x, v_before, ... as lists (one value per member).
"""

import sys

import h5py
import numpy as np


def _text(v):
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _numbered(text):
    """'0 STUCK, 1 SLIP_POS, ...' as {0: 'STUCK', 1: 'SLIP_POS', ...}."""
    out = {}
    for item in _text(text).split(", "):
        num, name = item.split(" ", 1)
        out[int(num)] = name
    return out


def read(path):
    """Return a dict with
    complete (bool), message, program, version, created_utc, config (YAML text),
    trajectory: name -> array (t, x, v, ..., mode; a system's groups samples x
    members), units: name -> unit, mode_names: number -> name (the element's;
    {} for a system), events: list of dicts (t, kind, mode_before, mode_after,
    x, v_before, v_after, net_force, friction; a system's also index and
    subject), event_units, kind_names (list), stats: name -> number, and
    system (bool), names: group -> member names, value_names: group ->
    {number: name}, subject_names (list)."""
    with h5py.File(path, "r") as f:
        tr = f["trajectory"]
        system = "mode" not in tr  # a system's modes are the groups contact_mode, stop_mode
        mode_names = {} if system else _numbered(tr["mode"].attrs["mode_names"])
        names = {k: [_text(n) for n in ds.attrs["names"]] for k, ds in tr.items() if ds.ndim == 2}
        value_names = {k: _numbered(ds.attrs["mode_names"]) for k, ds in tr.items()
                       if system and "mode_names" in ds.attrs}
        subject_names = [_text(n) for n in f["events"].attrs.get("subject_names", [])]
        events = []
        for row in f["events"][:]:
            ev = {name: row[name].tolist() if hasattr(row[name], "tolist") else row[name]
                  for name in row.dtype.names}
            ev["kind"] = row["kind"].rstrip(b"\0").decode("ascii")
            # A system's: the contact or stop the event is about (`name` in
            # files of earlier versions).
            for member in ("subject", "name"):
                if member in ev:
                    ev["subject"] = _text(ev.pop(member))
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
            "system": system,
            "names": names,
            "value_names": value_names,
            "subject_names": subject_names,
        }


def print_summary(r, out=sys.stdout):
    tr = r["trajectory"]
    t = tr["t"]
    status = "complete" if r["complete"] else "INCOMPLETE: " + r["message"]
    print(f"status:   {status}", file=out)
    print(f"program:  {r['program']} {r['version']}, created {r['created_utc']}", file=out)
    print(f"samples:  {len(t)}, t = {t[0]:g} .. {t[-1]:g} {r['units']['t']}", file=out)
    print("columns:  " + ", ".join(f"{n} [{u}]" for n, u in r["units"].items()), file=out)
    if r["system"]:
        return print_system(r, out)
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


def print_system(r, out=sys.stdout):
    """A system's members per group, time per contact mode and stop mode,
    and the events with their subjects."""
    tr, t = r["trajectory"], r["trajectory"]["t"]
    dt = np.diff(t)  # sample i's mode holds until sample i + 1
    for group, members in r["names"].items():
        print(f"{group:<14} {', '.join(members)}", file=out)
    for group, values in r["value_names"].items():
        for k, member in enumerate(r["names"][group]):
            spent = {name: dt[tr[group][:-1, k] == num].sum() for num, name in values.items()}
            print(f"  {member:<12} " + ", ".join(f"{n} {s:.6g} {r['units']['t']}"
                                                 for n, s in spent.items() if s > 0), file=out)
    print(f"events:   {len(r['events'])}", file=out)
    for e in r["events"]:
        print(f"{e['t']:14.8f} {e['kind']:<14} {e['subject'] or '-'}", file=out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: read_result.py RESULT.h5")
    print_summary(read(sys.argv[1]))
