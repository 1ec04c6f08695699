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


TWO = """bodies: {a: {mass: 1.0}, b: {mass: 2.0}}
contacts:
  - {body: a, law: coulomb, dynamic: 1.0, static_ratio: 1.5}
  - {body: b, law: coulomb, dynamic: 1.0, static_ratio: 1.5}
stops:
  - {between: [a, b], min: -0.3, max: 0.3, model: rigid, restitution: 0.5}
inputs: {forces: {a: {type: constant, value: 2.0}, b: {type: constant, value: 0.5}}}
simulation: {t_end: 1.5, output_step: 0.01}
"""


def test_run_of_a_system_gives_its_groups_as_the_file_does(tmp_path):
    """ss.run of a system: r.group("x") samples x bodies, events with their
    subjects; the file Result.save writes reads back to the same bits."""
    r = ss.run(ss.Config.from_yaml(TWO))
    assert r.members("x") == ["a", "b"] and r.members("friction") == ["contacts.0", "contacts.1"]
    x = r.group("x")
    assert x.shape == (len(r.t), 2)
    # a slides from rest (x = t^2/2) until the stop's gap 0.3 closes at t = sqrt(0.6).
    hit = [e["t"] for e, s in zip(r.events, r.subjects) if e["kind"] == "impact"]
    assert r.subjects[r.events["kind"].tolist().index("impact")] == "stops.0"
    assert abs(hit[0] - np.sqrt(0.6)) < 1e-9  # event location at rtol 1e-10
    r.save(tmp_path / "two.h5")
    back = ss.read(tmp_path / "two.h5")
    assert isinstance(back, ss.SystemResult)
    assert back.bodies == r.members("x")
    assert back.x.tobytes() == x.tobytes() and back.t.tobytes() == r.t.tobytes()
    assert back.friction.tobytes() == r.group("friction").tobytes()
    assert list(back.events["subject"]) == r.subjects
    with pytest.raises(KeyError, match="position: no such group"):
        r.group("position")
