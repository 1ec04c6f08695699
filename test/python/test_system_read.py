"""ss.read of a system's result file (issue 14 stage 7): 2-D arrays with the
names of their bodies, contacts and stops, events with their subject.  The
file is test/system_result.py's, whose contents are known."""
import os
import subprocess
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
    from stickslip.system import read_system  # the former reader's name reads the same

    assert read_system(path).x.tobytes() == r.x.tobytes()


def test_read_takes_the_former_member_name(tmp_path):
    """Files of earlier versions call the events' subject `name`: read as
    `subject`, the same as the current file's."""
    now = ss.read(sr.write(str(tmp_path / "now.h5")))
    old = ss.read(sr.write(str(tmp_path / "old.h5"), subject="name"))
    subjects = sr.CONTACTS + sr.STOPS
    assert list(old.events["subject"]) == [subjects[s] for _, _, s in sr.EVENTS]
    assert old.events.tobytes() == now.events.tobytes()


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


CLI = os.environ.get("STICKSLIP_BIN", "stickslip")


def rename_event_member(path, old, new):
    """Rewrite /events with member `old` called `new` (its attributes kept),
    as a file of an earlier version has it; the new name back."""
    import h5py

    with h5py.File(path, "a") as f:
        rows, attrs = f["events"][()], dict(f["events"].attrs)
        names = [new if n == old else n for n in rows.dtype.names]
        formats = [rows.dtype[n] for n in rows.dtype.names]
        renamed = np.empty(rows.shape, np.dtype({"names": names, "formats": formats}))
        for a, b in zip(rows.dtype.names, names):
            renamed[b] = rows[a]
        del f["events"]
        f.create_dataset("events", data=renamed, maxshape=(None,))
        f["events"].attrs.update(attrs)
        return f["events"].dtype.names[-1]


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
    # The file's member is `subject`; renamed back to the former `name`,
    # the file still reads to the same subjects (in Python and with info).
    import h5py

    with h5py.File(tmp_path / "two.h5", "r") as f:
        ev = f["events"]
        assert ev.dtype.names[-2:] == ("index", "subject"), ev.dtype.names
    assert rename_event_member(tmp_path / "two.h5", "subject", "name") == "name"
    old = ss.read(tmp_path / "two.h5")
    assert list(old.events["subject"]) == r.subjects
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
    import read_result  # the example reader users copy

    assert [e["subject"] for e in read_result.read(str(tmp_path / "two.h5"))["events"]] == r.subjects
    info = subprocess.run([CLI, "info", str(tmp_path / "two.h5")], capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "stops.0" in info.stdout
    with pytest.raises(KeyError, match="position: no such group"):
        r.group("position")


def test_mat_file_with_the_former_member_name_reads_the_same(tmp_path):
    """The MAT result's events field `subject` renamed back to `name` (as
    earlier versions wrote it) reads to the same subjects."""
    scipy_io = pytest.importorskip("scipy.io")
    cfg = tmp_path / "two.yaml"
    cfg.write_text(TWO)
    now = tmp_path / "two.mat"
    subprocess.run([CLI, "run", "-q", str(cfg), "-o", str(now)], check=True)
    m = scipy_io.loadmat(now)
    ev = m["events"]
    assert "subject" in ev.dtype.names and "name" not in ev.dtype.names, ev.dtype.names
    names = ["name" if n == "subject" else n for n in ev.dtype.names]
    old = np.empty(ev.shape, dtype=[(n, object) for n in names])
    for a, b in zip(ev.dtype.names, names):
        old[b] = ev[a]
    m["events"] = old
    scipy_io.savemat(tmp_path / "old.mat", {k: v for k, v in m.items() if not k.startswith("__")})
    want = list(ss.read(now).events["subject"])
    assert "stops.0" in want
    assert list(ss.read(tmp_path / "old.mat").events["subject"]) == want
