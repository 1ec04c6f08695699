#!/usr/bin/python3
"""stickslip from Python: the Janecek case, a plot of it, and a 100-variant
sweep drawn as a map.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python_quickstart.py
    (or after `cmake --install`: /usr/bin/python3 examples/python_quickstart.py)

Writes results/python_quickstart_run.png and results/python_quickstart_map.png.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import stickslip as ss  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
out_dir = sys.argv[1] if len(sys.argv) > 1 else "results"
os.makedirs(out_dir, exist_ok=True)

cfg = ss.load(os.path.join(here, "janecek_chirp.yaml"))
r = ss.run(cfg, output_step=1e-3)
first = r.events["t"][r.events["kind"] == "breakaway"][0]
print(f"{len(r.t)} samples, {len(r.events)} events, first breakaway at {first:.6f} {r.units['t']}")

fig, ax = plt.subplots(3, 1, sharex=True, figsize=(8, 7))
ax[0].plot(r.t, r.x * 1e3)
ax[0].set_ylabel("x [mm]")
ax[1].plot(r.t, r.v)
ax[1].set_ylabel(f"v [{r.units['v']}]")
ax[2].plot(r.t, r.friction)
ax[2].set_ylabel(f"friction [{r.units['friction']}]")
ax[2].set_xlabel(f"t [{r.units['t']}]")
for e in r.events[r.events["kind"] == "stick"]:
    ax[1].axvline(e["t"], color="0.85", lw=0.5, zorder=0)
fig.suptitle("Janecek chirp: stick (grey lines), slip and reversal")
fig.savefig(os.path.join(out_dir, "python_quickstart_run.png"), dpi=100)

# 100 variants: a 10 x 10 grid of kinetic friction and chirp amplitude.
dyn, amp = np.meshgrid(np.linspace(10, 25, 10), np.linspace(0.02, 0.08, 10))
s = ss.sweep(cfg, vary={"friction.dynamic": dyn.ravel(),
                        "inputs.base_motion.amplitude": amp.ravel()}, jobs=2)
sticks = s.summary["events_stick"].reshape(dyn.shape)
print(f"sweep: {len(s)} variants, {np.count_nonzero(s.summary['status'] == 0)} complete, "
      f"sticks from {sticks.min()} to {sticks.max()}")

fig, ax = plt.subplots(figsize=(6, 5))
im = ax.pcolormesh(dyn, amp * 1e3, sticks, shading="nearest")
fig.colorbar(im, ax=ax, label="number of sticks")
ax.set_xlabel("friction.dynamic [N]")
ax.set_ylabel("base amplitude [mm]")
ax.set_title("Janecek chirp: sticks over friction and excitation")
fig.savefig(os.path.join(out_dir, "python_quickstart_map.png"), dpi=100)
