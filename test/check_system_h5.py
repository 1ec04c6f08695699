"""Check a system's result file from outside the C library, with h5py, as
docs/hdf5-layout.md ("Systems of bodies") tells users to read it.  Run by
test_io_system on the file of its synthetic 3-body, 2-contact, 1-stop run:
    /usr/bin/python3 check_system_h5.py FILE N_SAMPLES N_EVENTS
Exit 0 when everything holds, 1 with the failed check on stderr."""
import sys

import h5py
import numpy as np


def main(path, n, m):
    with h5py.File(path, "r") as f:
        tr = f["trajectory"]
        assert "mode" not in tr, "a system's file has no /trajectory/mode"
        assert list(tr) == ["t", "x", "v", "a", "friction", "slip_velocity", "contact_mode",
                            "stop_reaction", "stop_mode", "x_base", "v_base"], list(tr)
        bodies = list(tr["x"].attrs["names"])
        assert bodies == ["motor", "load", "tail"], bodies
        assert tr["x"].shape == (n, 3) and tr["x"].maxshape == (None, 3), tr["x"].maxshape
        assert tr["x"].chunks == (4096, 3), tr["x"].chunks
        assert tr["x"].attrs["units"] == "m" and tr["x"].attrs["long_name"] == "position"
        assert list(tr["friction"].attrs["names"]) == ["bearing", "clutch"]
        cm = tr["contact_mode"]
        assert cm.dtype == np.int8 and cm.shape == (n, 2)
        assert cm.attrs["mode_names"] == "0 STUCK, 1 SLIP_POS, 2 SLIP_NEG, 3 SMOOTH"
        assert tr["stop_mode"].attrs["mode_names"] == "0 OPEN, 1 LOW, 2 HIGH"
        assert tr["x_base"].shape == (n,)
        # Member j of a group is column j: the doc's tr["x"][:, bodies.index("load")].
        assert np.array_equal(tr["x"][:, bodies.index("load")], tr["x"][()][:, 1])
        # Values as the test wrote them: 0.1 r + c / 7 on grid row r (row 1 is
        # grid row 1 only after event 0's two rows: row 3).
        assert tr["x"][3, 2] == 0.1 * 1 + 2 / 7.0, tr["x"][3, 2]

        ev = f["events"]
        assert list(ev.attrs["subject_names"]) == ["bearing", "clutch", "backlash"]
        e = ev[()]
        assert e.shape == (m,)
        assert e.dtype.names == ("t", "kind", "mode_before", "mode_after", "x", "v_before",
                                 "v_after", "net_force", "friction", "index", "subject"), e.dtype
        assert e["x"].shape == (m, 3) and e["friction"].shape == (m, 2), e["x"].shape
        assert e["index"].dtype == np.int32
        assert list(e["index"][:5]) == [-1, 0, 1, 2, -1], e["index"][:5]
        names = [s.decode() if isinstance(s, bytes) else s for s in e["subject"][:5]]
        assert names == ["", "bearing", "clutch", "backlash", ""], names
        assert e["kind"][2].decode() == "impact"
        assert np.isnan(e["net_force"]).all()
        assert not any(k.startswith("time_") for k in f["stats"].attrs)


if __name__ == "__main__":
    try:
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    except AssertionError as exc:
        print("check_system_h5:", repr(exc), file=sys.stderr)
        sys.exit(1)
