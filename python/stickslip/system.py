"""A system of bodies' result as the groups of its file: what `ss.read`
gives for a system's file (read by the library, stsl_result_read, as the
single element's Result is) and what `stickslip plot` builds from the file
it reads itself (python/stickslip_plot.py loads this module by path: it
needs numpy only, not the C library).

    import stickslip as ss
    r = ss.read("results/servo.h5")
    r.x                      # samples x bodies
    r.names["x"]             # ['motor', 'load']
    r.column("v", "load")    # one member's values
    r.events["subject"]      # the contact or stop each event is about
    r.stuck_intervals("clutch")

A system's /trajectory holds 2-D datasets (samples x members) with a
`names` attribute: x, v, a per body; friction, slip_velocity, contact_mode
per contact; stop_reaction, stop_mode per stop; 1-D x_base, v_base; its
/events rows carry `index` and `subject` (docs/hdf5-layout.md).
"""
import numpy as np

EVENT_DTYPE = [("t", "f8"), ("kind", "U24"), ("index", "i4"), ("subject", "U64")]


class SystemResult:
    """A system's result: t, groups (name -> array; 2-D samples x members
    for the grouped datasets), names (group -> member names), units,
    value_names (integer groups -> names of their values), events (t, kind,
    index, subject; index -1 and subject '' for none), complete, message,
    config (YAML text), stats.  Groups are attributes too: r.x, r.friction."""

    def __init__(self, path, t, groups, names, units, long_names, value_names, events, complete,
                 message, config, stats):
        self.path, self.t, self.groups, self.names = path, t, groups, names
        self.units, self.long_names, self.value_names = units, long_names, value_names
        self.events, self.complete, self.message = events, complete, message
        self.config, self.stats = config, stats

    def __getattr__(self, name):
        groups = self.__dict__.get("groups", {})
        if name in groups:
            return groups[name]
        raise AttributeError(name)

    @property
    def bodies(self):
        """The bodies' names, in the order of the x group's columns."""
        return list(self.names.get("x", []))

    @property
    def contacts(self):
        """The contacts' names (the contact_mode group's members)."""
        return list(self.names.get("contact_mode", self.names.get("friction", [])))

    @property
    def stops(self):
        """The end stops' names (the stop_mode group's members)."""
        return list(self.names.get("stop_mode", self.names.get("stop_reaction", [])))

    def column(self, group, member):
        """Values of one member of a group (KeyError naming the members)."""
        names = self.names.get(group)
        if names is None:
            raise KeyError(f"{group}: not a group of {self.path} (groups: {', '.join(self.names)})")
        if member not in names:
            raise KeyError(f"{group}: no member '{member}' (members: {', '.join(names)})")
        return self.groups[group][:, names.index(member)]

    def mode_is(self, group, member, value):
        """Per sample: member's integer value is the one named `value`."""
        vals = self.value_names.get(group, [])
        return self.column(group, member) == vals.index(value) if value in vals else \
            np.zeros(len(self.t), bool)

    def intervals(self, mask, t=None):
        """(start, end) times over which mask holds (over the times t, the
        file's by default): sample i's state holds until sample i + 1, so an
        event instant's two rows (before, after) open and close intervals
        exactly at the event."""
        t = self.t if t is None else t
        d = np.diff(np.concatenate(([0], np.asarray(mask, dtype=np.int8), [0])))
        starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        out = [(t[a], t[min(b, len(t) - 1)]) for a, b in zip(starts, ends)]
        return [(a, b) for a, b in out if b > a]

    def stuck_intervals(self, contact):
        """The (start, end) times the contact spends STUCK."""
        return self.intervals(self.mode_is("contact_mode", contact, "STUCK"))

    def __repr__(self):
        state = "complete" if self.complete else f"incomplete: {self.message}"
        return (f"<stickslip.SystemResult {len(self.t)} samples, bodies {self.bodies}, contacts "
                f"{self.contacts}, stops {self.stops}, {len(self.events)} events, {state}>")


def read_system(path):
    """The SystemResult of a system's result file: ss.read(path) (this
    module's reader of earlier versions; the library reads it now)."""
    from . import read

    return read(path)
