"""SciPy's solve_ivp as a hybrid event loop: the textbook way to simulate the element.

One solve_ivp call per segment, restarted at every switch with the new mode:
slip integrates m v' = F_n - s F_D(s) with a terminal event at v = 0 (and at
the load's sign change, where the friction level switches branch: a restart,
so the kink is not inside a step); stuck integrates the constant state with
terminal events on the two breakaway guards, its steps bounded by
case.stuck_max_step() (an unbounded step on a zero right-hand side would step
over a breakaway).  At v = 0 the mode follows SPEC §1.2's stick test.  The
element's forces are exact_element's, evaluated in floats.
"""
from scipy.integrate import solve_ivp

import exact_element as ex


def _sign(a):
    return (a > 0) - (a < 0)


def _terminal(f, direction):
    f.terminal, f.direction = True, direction
    return f


def run(case, el, method, rtol, atol):
    """Events [(kind, t, x after)] and the final (x, v)."""
    t_end, hmax = case.t_end, case.stuck_max_step()
    t, x, v = 0.0, case.x0, case.v0
    mode = el.initial_mode(x, v)
    events = []
    breaks = [b for b in el.breaks if 0 < b < t_end] + [t_end]
    load_dir = 0  # direction of the load's next zero crossing; 0: not known yet

    while t < t_end:
        t_stop = min(b for b in breaks if b > t)
        if mode == 0:
            gp = _terminal(lambda tt, y: el.fn(tt, y[0], 0.0) - el.fs(1, tt), 1)
            gm = _terminal(lambda tt, y: -el.fn(tt, y[0], 0.0) - el.fs(-1, tt), 1)
            sol = solve_ivp(lambda tt, y: (0.0, 0.0), (t, t_stop), (x, 0.0), method=method,
                            rtol=rtol, atol=atol, events=(gp, gm), max_step=hmax)
            load_dir = 0  # the load may change sign while stuck
            if sol.status == 1:
                i = 0 if len(sol.t_events[0]) else 1
                t, mode, v = float(sol.t_events[i][0]), (1, -1)[i], 0.0
                events.append(('breakaway', t, x))
            else:
                t = t_stop
                f = el.fn(t, x, 0.0)
                if f > el.fs(1, t) or -f > el.fs(-1, t):  # an input's jump breaks it away
                    mode = 1 if f > 0 else -1
                    events.append(('breakaway', t, x))
            continue
        s = mode
        evs = [_terminal(lambda tt, y: y[1], -s)]
        fr = el.load.value(t)
        if not isinstance(el.load, ex.Constant):
            if load_dir == 0:
                load_dir = -_sign(fr) if fr != 0 else _sign(el.load.d1(t))
            evs.append(_terminal(lambda tt, y: el.load.value(tt), load_dir))
        m = el.m
        sol = solve_ivp(lambda tt, y: (y[1], (el.fn(tt, y[0], y[1]) - s * el.fd(s, tt)) / m),
                        (t, t_stop), (x, v), method=method, rtol=rtol, atol=atol, events=evs)
        if sol.status == -1:
            raise RuntimeError(f'{case.name}: solve_ivp {method} failed at t = {sol.t[-1]}: {sol.message}')
        if sol.status == 0:
            t, x, v = t_stop, float(sol.y[0, -1]), float(sol.y[1, -1])
            continue
        if len(sol.t_events[0]):
            t, x = float(sol.t_events[0][0]), float(sol.y_events[0][0][0])
            v, load_dir = 0.0, 0
            f = el.fn(t, x, 0.0)
            if -el.fs(-1, t) <= f <= el.fs(1, t):
                mode = 0
                events.append(('stick', t, x))
            else:
                mode = 1 if f > 0 else -1
                events.append(('reversal' if mode == -s else 'slip_on', t, x))
        else:
            t = float(sol.t_events[1][0])
            x, v = (float(a) for a in sol.y_events[1][0])
            events.append(('load_reversal', t, x))
            load_dir = -load_dir  # F_R is ~0 here: its sign cannot tell the next crossing
    if not el.x_min < x < el.x_max:
        raise RuntimeError(f'{case.name}: an end stop was reached; not modelled by the peers')
    return events, (x, v)

