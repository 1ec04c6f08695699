"""ss.read of a system's result file (issue 14 stage 7): 2-D arrays with the
names of their bodies, contacts and stops, events with their subject.  The
file is test/system_result.py's, whose contents are known."""
import os
import sys

import numpy as np
import pytest

import stickslip as ss

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import system_result as sr  # noqa: E402


def test_read_gives_groups_names_and_subjects(tmp_path):
    path = sr.write(str(tmp_path / "sys.h5"))
    r = ss.read(path)
    assert isinstance(r, ss.SystemResult)
    d = sr.data()
    assert r.bodies == ["motor", "load"] and r.contacts == sr.CONTACTS and r.stops == sr.STOPS
    assert r.x.shape == (108, 2) and r.friction.shape == (108, 2) and r.stop_mode.shape == (108, 1)
    assert r.x.tobytes() == d["x"].tobytes() and r.t.tobytes() == d["t"].tobytes()
    np.testing.assert_array_equal(r.column("v", "load"), d["v"][:, 1])
    assert r.units["x"] == "m" and r.units["friction"] == "N" and r.units["t"] == "s"
    assert r.value_names["contact_mode"] == sr.CONTACT_MODES
    assert r.value_names["stop_mode"] == sr.STOP_MODES
    assert r.x_base.shape == (108,)  # 1-D columns stay 1-D
    subjects = sr.CONTACTS + sr.STOPS
    assert [(e["t"], e["kind"], e["index"], e["subject"]) for e in r.events] == \
        [(t, k, s, subjects[s]) for t, k, s in sr.EVENTS]
    # The stuck intervals are the file's: each contact's spans exactly.
    for c, spans in sr.STUCK.items():
        assert r.stuck_intervals(sr.CONTACTS[c]) == spans
    assert r.intervals(r.mode_is("stop_mode", "backlash", "HIGH")) == sr.STOP_HIGH
    assert r.complete and r.stats["events"] == 8


def test_read_names_the_members_it_lacks(tmp_path):
    r = ss.read(sr.write(str(tmp_path / "sys.h5")))
    with pytest.raises(KeyError, match="no member 'gear' \\(members: motor, load\\)"):
        r.column("x", "gear")
    with pytest.raises(KeyError, match="position: not a group"):
        r.column("position", "motor")


def test_read_refuses_a_group_without_its_names(tmp_path):
    import h5py

    path = sr.write(str(tmp_path / "sys.h5"))
    with h5py.File(path, "a") as f:
        f["trajectory/v"].attrs["names"] = "motor"
    with pytest.raises(ss.InputError) as e:
        ss.read(path)
    assert str(e.value) == f"{path}: /trajectory/v: no attribute 'names' with one name per column (2)"
