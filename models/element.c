/* element.c - the friction element of SPEC §1 as a hybrid model. */
#include "models/element.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/contact.h"
#include "events/end_stop.h"
#include "events/guards.h"
#include "models/friction.h"
#include "models/one_body.h"
#include "models/smooth_friction.h"

/* The contact's rules and tolerances (stick test, rounding level of a
 * force balance, look-ahead, impact and bounces, natural scales):
 * events/contact.h. */

struct stsl_element {
    stsl_element_params p;
    stsl_signal *fa, *load, *base, *anchor;
    const stsl_end_stop_ops *stop; /* the end stops' behaviour */
    stsl_stop_params sp;           /* and their positions and parameters */
    int compliant;                 /* compliant stops (contact modes) */
    int load_varies;
    int has_base;
    int smooth, lugre; /* a smooth law (SMOOTH mode); LuGre (third state) */
    double t_seg;      /* start of the current segment: selects one-sided input limits */
    double settle_at;  /* end of bounces left out at a stop (INFINITY: none pending) */
    double rest_start; /* start of the current slip segment if it began at v = 0, else -INFINITY */
    double natural_step;
    double contact_step; /* natural_step with the compliant stop's stiffness added */
    double scale[3];     /* natural sizes of x, v, sigma0 z (stsl_element_state_scales) */
    stsl_column cols[STSL_N_COLS];
    int col_state[STSL_N_COLS]; /* x and v are the state's y[0], y[1] (stsl_hmodel.col_state) */
    stsl_layout layout;
    stsl_hmodel model;
};

/* Inputs at time t, on the side of a discontinuity the current segment sees. */
typedef struct inputs {
    double fa, load;
    double xb, vb, ab; /* base motion */
    double xa, va;     /* anchor motion */
} inputs;

static void eval_inputs(const stsl_element *e, double t, inputs *in)
{
    int left = t > e->t_seg;
    double b[3] = {0, 0, 0}, a[3] = {0, 0, 0};
    in->fa = stsl_signal_value(e->fa, t, left);
    in->load = stsl_signal_value(e->load, t, left);
    stsl_signal_eval(e->base, t, left, b);
    if (e->p.has_anchor) stsl_signal_eval(e->anchor, t, left, a);
    in->xb = b[0];
    in->vb = b[1];
    in->ab = b[2];
    in->xa = a[0];
    in->va = a[1];
}

/* F_n = F_a + F_R - spring - damper - m a_b (SPEC §1). */
static double net_force(const stsl_element *e, const inputs *in, double x, double v)
{
    const stsl_element_params *p = &e->p;
    double stretch = x - p->free_position, rate = v;
    if (p->has_anchor) {
        stretch = x + in->xb - in->xa - p->free_position;
        rate = v + in->vb - in->va;
    }
    return in->fa + in->load - p->stiffness * stretch - p->damping * rate - p->mass * in->ab;
}

typedef struct forces {
    double fn;
    double fd_pos, fs_pos, fd_neg, fs_neg;
} forces;

static void eval_forces(const stsl_element *e, const inputs *in, double x, double v, forces *f)
{
    f->fn = net_force(e, in, x, v);
    if (e->smooth) { /* no static friction: a smooth law holds nothing at v = 0 */
        f->fd_pos = f->fs_pos = f->fd_neg = f->fs_neg = 0.0;
        return;
    }
    stsl_friction_levels(&e->p.friction, +1, in->load, &f->fd_pos, &f->fs_pos);
    stsl_friction_levels(&e->p.friction, -1, in->load, &f->fd_neg, &f->fs_neg);
}

static int is_moving(int mode)
{
    int fr = stsl_mode_friction(mode);
    return fr == STSL_MODE_SLIP_POS || fr == STSL_MODE_SLIP_NEG || fr == STSL_MODE_SMOOTH;
}

static int is_slip(int mode)
{
    int fr = stsl_mode_friction(mode);
    return fr == STSL_MODE_SLIP_POS || fr == STSL_MODE_SLIP_NEG;
}

/* The hybrid decisions speak of STUCK and SLIP_*: a smooth element is in
 * SMOOTH for all of them (in contact with a compliant stop: its SMOOTH). */
static int law_mode(const stsl_element *e, int mode)
{
    if (!e->smooth || stsl_mode_friction(mode) > STSL_MODE_SLIP_NEG) return mode;
    return stsl_mode_in_contact(STSL_MODE_SMOOTH, stsl_mode_contact_side(mode));
}

/* The force of the compliant stop `side` on the element at (x, v) (along
 * +x: it pushes back out); 0 for side 0 or rigid stops. */
static double side_force(const stsl_element *e, int side, double x, double v)
{
    if (!side || !e->compliant) return 0.0;
    return -side * e->stop->reaction(&e->sp, side, 0.0, x, v);
}

/* The same for the contact `mode` is in. */
static double stop_force(const stsl_element *e, int mode, double x, double v)
{
    return side_force(e, stsl_mode_contact_side(mode), x, v);
}

/* Dry friction F_f (the force entering as -F_f) while slipping. */
static double slip_friction(const stsl_element *e, const forces *f, int mode, double v)
{
    mode = stsl_mode_friction(mode);
    if (mode == STSL_MODE_SMOOTH) return stsl_smooth_force(&e->p.friction, v, NULL);
    if (mode == STSL_MODE_SLIP_POS)
        return stsl_friction_slip(&e->p.friction, f->fd_pos, f->fs_pos, fabs(v));
    return -stsl_friction_slip(&e->p.friction, f->fd_neg, f->fs_neg, fabs(v));
}

/* LuGre's third state is the bristle force s = sigma0 z, not z: z is tiny
 * (Tc / sigma0, micrometres) while s is of the order of the friction force,
 * so one absolute tolerance fits x, v and s alike. */
static double bristle_z(const stsl_element *e, const double *y)
{
    return y[2] / e->p.friction.sigma0;
}

/* Friction while moving, LuGre included (its force needs z). */
static double moving_friction(const stsl_element *e, const forces *f, int mode, const double *y)
{
    if (e->lugre) return stsl_lugre_force(&e->p.friction, y[1], bristle_z(e, y), NULL, NULL);
    return slip_friction(e, f, mode, y[1]);
}

/* ---- hybrid model ops ---------------------------------------------------- */

static int el_rhs(void *self, stsl_mode_code mode, double t, const double *y, double *ydot)
{
    const stsl_element *e = self;
    for (int i = 0; i < e->model.n_state; i++)
        ydot[i] = 0.0;
    if (!is_moving(mode)) return 0;
    inputs in;
    forces f;
    eval_inputs(e, t, &in);
    eval_forces(e, &in, y[0], y[1], &f);
    ydot[0] = y[1];
    ydot[1] =
        (f.fn - moving_friction(e, &f, mode, y) + stop_force(e, mode, y[0], y[1])) / e->p.mass;
    if (e->lugre)
        ydot[2] = e->p.friction.sigma0 *
                  stsl_lugre_zdot(&e->p.friction, y[1], bristle_z(e, y), NULL, NULL);
    return 0;
}

static int el_guards(void *self, stsl_mode_code mode, double t, const double *y, double *g)
{
    const stsl_element *e = self;
    stsl_guard_in gi = {0.0,    0.0, 0.0, y[0], y[1], 0.0, &e->sp, e->p.has_stops, e->load_varies,
                        e->stop};
    if (is_moving(mode)) {
        /* Slip guards need only x, v and the load: CVODE checks them every
         * step, so the forces are not computed here. */
        if (e->load_varies) gi.load = stsl_signal_value(e->load, t, t > e->t_seg);
    } else {
        inputs in;
        forces f;
        eval_inputs(e, t, &in);
        eval_forces(e, &in, y[0], y[1], &f);
        gi.fn = f.fn + stop_force(e, mode, y[0], 0.0); /* at rest: v = 0 */
        gi.fs_pos = f.fs_pos;
        gi.fs_neg = f.fs_neg;
        gi.load = in.load;
    }
    stsl_guards_eval(mode, &gi, g);
    return 0;
}

static double el_max_step(void *self, stsl_mode_code mode, double t)
{
    const stsl_element *e = self;
    double h = stsl_signal_max_step(e->fa, t);
    h = fmin(h, stsl_signal_max_step(e->load, t));
    h = fmin(h, stsl_signal_max_step(e->base, t));
    h = fmin(h, stsl_signal_max_step(e->anchor, t));
    if (is_moving(mode))
        h = fmin(h, stsl_mode_contact_side(mode) ? e->contact_step : e->natural_step);
    return h;
}

static double el_next_time_event(void *self, double t)
{
    const stsl_element *e = self;
    double te = stsl_signal_next_event(e->fa, t);
    te = fmin(te, stsl_signal_next_event(e->load, t));
    te = fmin(te, stsl_signal_next_event(e->base, t));
    te = fmin(te, stsl_signal_next_event(e->anchor, t));
    return e->settle_at > t ? fmin(te, e->settle_at) : te;
}

/* The element's columns (models/one_body.h, which the engine's one-body
 * view writes too). */
static void el_outputs(void *self, stsl_mode_code mode, double t, const double *y, double *c)
{
    const stsl_element *e = self;
    inputs in;
    eval_inputs(e, t, &in);
    stsl_one_body_point pt = {(int)mode, y, net_force(e, &in, y[0], y[1]), in.load, in.xb, in.vb};
    stsl_one_body_outputs(&e->p, &pt, c);
}

/* df/dy in a moving mode (row-major, n x n); inputs depend on t only. */
static int el_jac(void *self, stsl_mode_code mode, double t, const double *y, double *J)
{
    const stsl_element *e = self;
    int n = e->model.n_state;
    for (int i = 0; i < n * n; i++)
        J[i] = 0.0;
    if (!is_moving(mode)) return 0;
    const stsl_friction_params *fp = &e->p.friction;
    double m = e->p.mass, dT_dv = 0.0, dT_dz = 0.0;
    if (e->lugre) {
        stsl_lugre_force(fp, y[1], bristle_z(e, y), &dT_dv, &dT_dz);
    } else if (e->smooth) {
        stsl_smooth_force(fp, y[1], &dT_dv);
    } else if (fp->law == STSL_LAW_STRIBECK) {
        inputs in;
        forces f;
        eval_inputs(e, t, &in);
        eval_forces(e, &in, y[0], y[1], &f);
        int pos = stsl_mode_friction(mode) == STSL_MODE_SLIP_POS;
        double fd = pos ? f.fd_pos : f.fd_neg;
        double fs = pos ? f.fs_pos : f.fs_neg;
        /* d/dv of sign(v) F(|v|) is F'(|v|) on either side. */
        double r = fabs(y[1]) / fp->stribeck_velocity, dl = fp->stribeck_exponent;
        dT_dv = (fs - fd) * exp(-pow(r, dl)) * (-dl * pow(r, dl - 1.0)) / fp->stribeck_velocity;
    }
    /* In contact the stop adds its stiffness and damping (P >= 0 there). */
    double kc = 0.0, cc = 0.0;
    if (stsl_mode_contact_side(mode) && e->compliant) {
        kc = e->sp.stiffness;
        cc = e->sp.damping;
    }
    J[0 * n + 1] = 1.0;
    J[1 * n + 0] = (-e->p.stiffness - kc) / m;
    J[1 * n + 1] = (-e->p.damping - cc - dT_dv) / m;
    if (e->lugre) {
        double zw, zz;
        stsl_lugre_zdot(fp, y[1], bristle_z(e, y), &zw, &zz);
        /* In s = sigma0 z: ds'/dv = sigma0 dz'/dv, ds'/ds = dz'/dz, dT/ds = dT/dz / sigma0. */
        J[1 * n + 2] = -dT_dz / (fp->sigma0 * m);
        J[2 * n + 1] = fp->sigma0 * zw;
        J[2 * n + 2] = zz;
    }
    return 0;
}

/* ---- transitions ---------------------------------------------------------- */

/* Forces at (t, y) seen from the segment that starts at t. */
static void forces_now(stsl_element *e, double t, const double *y, forces *f)
{
    inputs in;
    eval_inputs(e, t, &in);
    eval_forces(e, &in, y[0], y[1], f);
}

/* How far the force that static friction must hold at (t, x, v = 0), in
 * contact with the compliant stop `side` (0: none), stands beyond the
 * static level in direction s (+1, -1): s (F_n + R) - F_S(s).  Static
 * friction holds up to F_S whatever F_D (SPEC "Touching the static
 * level"), so this, not the slip's acceleration s (F_n + R) - F_D(s)
 * (larger by F_S - F_D), decides whether a slip starts.  *noise is its
 * rounding level: a few ulps of the largest force that enters it. */
static double slip_excess(stsl_element *e, int s, int side, double t, double x, double *noise)
{
    const stsl_element_params *p = &e->p;
    inputs in;
    forces f;
    eval_inputs(e, t, &in);
    eval_forces(e, &in, x, 0.0, &f);
    double fs = s > 0 ? f.fs_pos : f.fs_neg;
    double push = side_force(e, side, x, 0.0);
    double stretch = p->has_anchor ? x + in.xb - in.xa - p->free_position : x - p->free_position;
    double rate = p->has_anchor ? in.vb - in.va : 0.0;
    double scale = fabs(in.fa) + fabs(in.load) + fabs(p->stiffness * stretch) +
                   fabs(p->damping * rate) + fabs(p->mass * in.ab) + fs + fabs(push);
    *noise = stsl_contact_noise(scale);
    return s * (f.fn + push) - fs;
}

/* SPEC "Touching the static level": does a slip in direction s start at
 * (t, x, v = 0)?  Only when the force, followed along the state at rest,
 * leaves the static band at t+: its excess h(t + tau) (slip_excess) at the
 * frozen state has a positive first non-zero derivative.  h(t) itself
 * decides when it stands clear of rounding; else h is sampled at
 * tau = tau0 2^k, from a few ulps of t up to the inputs' time scale (and
 * never past the next input discontinuity), and the first sample clear of
 * rounding gives the sign of the leading term.  None clear: the force
 * stays at the level (a constant force equal to it), no slip.  With
 * F_S = F_D this is also the sign of the slip's first acceleration term;
 * with F_S > F_D a force that only touches F_S moves nothing although a
 * slip, once started, would accelerate at (F_S - F_D) / m. */
static int slip_starts(stsl_element *e, int s, int side, double t, double x)
{
    double noise, h = slip_excess(e, s, side, t, x, &noise);
    if (fabs(h) > noise) return h > 0.0;
    double horizon = stsl_contact_lookahead_horizon(t, el_max_step(e, STSL_MODE_STUCK, t),
                                                    el_next_time_event(e, t));
    for (double tau = stsl_contact_lookahead_start(t); tau <= horizon; tau *= 2.0) {
        h = slip_excess(e, s, side, t + tau, x, &noise);
        if (fabs(h) > noise) return h > 0.0;
    }
    return 0;
}

/* A decision to slip from rest (mode `to`, v = 0; in contact with a
 * compliant stop or not) holds only if the slip starts; else the element
 * stays at rest in `rest` (STUCK, a stop mode or a CONTACT_*_STUCK). */
static int confirm_slip(stsl_element *e, int to, int rest, double t, const double *y)
{
    if (e->smooth || !is_slip(to)) return to;
    int s = stsl_mode_friction(to) == STSL_MODE_SLIP_POS ? +1 : -1;
    return slip_starts(e, s, stsl_mode_contact_side(to), t, y[0]) ? to : rest;
}

/* Which rigid stop the element is on: +1 at x_max, -1 at x_min, 0 neither. */
static int stop_side(const stsl_element *e, double x)
{
    if (!e->p.has_stops || e->compliant) return 0;
    return stsl_end_stop_side(&e->sp, x);
}

/* Impact on the stop `side` (+1 high, -1 low) with the current velocity. */
static void impact(stsl_element *e, int side, double t, double *y, stsl_transition *out)
{
    double stop = side > 0 ? e->p.x_max : e->p.x_min, vm = y[1];
    int away = side > 0 ? STSL_MODE_SLIP_NEG : STSL_MODE_SLIP_POS;
    int back = side > 0 ? STSL_MODE_SLIP_POS : STSL_MODE_SLIP_NEG;
    forces f;
    y[0] = stop;
    y[1] = 0.0;
    forces_now(e, t, y, &f);
    /* Deceleration on the way out and acceleration back, at low speed. */
    /* Smooth laws hold nothing at rest: their friction at v = 0 is 0. */
    double a_up = side * (f.fn - (e->smooth ? 0.0 : slip_friction(e, &f, away, 0.0))) / e->p.mass;
    double a_down = side * (f.fn - (e->smooth ? 0.0 : slip_friction(e, &f, back, 0.0))) / e->p.mass;
    stsl_contact_impact im;
    stsl_contact_impact_at(t, vm, e->p.restitution, a_up, a_down,
                           stsl_contact_min_height(e->p.rtol, stop, e->p.atol), &im);
    out->kind = im.kind;
    if (!im.rests) {
        y[1] = im.v_plus;
        out->mode = law_mode(e, away);
        return;
    }
    out->mode = side > 0 ? STSL_MODE_STOP_HIGH : STSL_MODE_STOP_LOW;
    out->again = 1; /* it may be pulled off at once: recheck */
    if (im.pending) e->settle_at = im.settle_at;
}

/* The compliant stop the state (x, v) is in contact with: +1, -1, or 0
 * (stsl_end_stop_in_contact). */
static int contact_side(const stsl_element *e, double x, double v)
{
    if (!e->p.has_stops || !e->compliant) return 0;
    for (int side = -1; side <= 1; side += 2)
        if (stsl_end_stop_in_contact(e->stop, &e->sp, side, x, v)) return side;
    return 0;
}

/* The friction state at (t, y) in contact with `side` (0: none): by the sign
 * of v, at rest by the stick test on the net force with the stop's. */
static int friction_from_state(stsl_element *e, int side, double t, const double *y)
{
    if (y[1] > 0.0) return stsl_mode_in_contact(STSL_MODE_SLIP_POS, side);
    if (y[1] < 0.0) return stsl_mode_in_contact(STSL_MODE_SLIP_NEG, side);
    forces f;
    forces_now(e, t, y, &f);
    double fn = f.fn + side_force(e, side, y[0], 0.0);
    int rest = stsl_mode_in_contact(STSL_MODE_STUCK, side);
    int to = stsl_mode_in_contact(stsl_contact_decide_rest(fn, f.fs_pos, f.fs_neg), side);
    return confirm_slip(e, to, rest, t, y);
}

/* Contact with the compliant stop `side` begins at (t, y).  When its guard
 * fired (`crossed`) moving inwards, the body crossed delta = 0 and is put on
 * the stop's surface (the root is located to within the solver's
 * tolerance, either side; the rigid stop does the same); where it comes
 * back into contact inside the stop (P back to 0 after it left), or is
 * found inside by the state alone (delta >= 0 already), the state stays.
 * No velocity jump: the stop's force starts at c delta' (or 0). */
static void contact_begin(stsl_element *e, int side, int crossed, double t, double *y,
                          stsl_transition *out)
{
    if (crossed && side * y[1] > 0.0) y[0] = side > 0 ? e->p.x_max : e->p.x_min;
    out->mode = law_mode(e, friction_from_state(e, side, t, y));
    out->kind = STSL_EV_CONTACT_BEGIN;
}

/* The mode that state (t, y) calls for, independent of the previous mode:
 * the initial mode, and the mode after an input discontinuity. */
static void mode_from_state(stsl_element *e, double t, double *y, stsl_transition *out)
{
    if (e->compliant) {
        out->mode = law_mode(e, friction_from_state(e, contact_side(e, y[0], y[1]), t, y));
        return;
    }
    int side = stop_side(e, y[0]);
    if (side != 0 && y[1] * side > 0.0) { /* moving into a stop */
        impact(e, side, t, y, out);
        return;
    }
    if (y[1] > 0.0) {
        out->mode = STSL_MODE_SLIP_POS;
    } else if (y[1] < 0.0) {
        out->mode = STSL_MODE_SLIP_NEG;
    } else {
        forces f;
        forces_now(e, t, y, &f);
        int rest = side > 0 ? STSL_MODE_STOP_HIGH : side < 0 ? STSL_MODE_STOP_LOW : STSL_MODE_STUCK;
        out->mode = side ? e->stop->contact(side, f.fn, f.fs_pos, f.fs_neg)
                         : stsl_contact_decide_rest(f.fn, f.fs_pos, f.fs_neg);
        out->mode = confirm_slip(e, out->mode, rest, t, y);
    }
    out->mode = law_mode(e, out->mode);
}

static void on_guard(stsl_element *e, int mode, const int *fired, double t, double *y,
                     stsl_transition *out)
{
    forces f;
    int side = stsl_mode_contact_side(mode), fr = stsl_mode_friction(mode);
    if (fr == STSL_MODE_STUCK) {
        /* A force that only touches the static level moves nothing: stay,
         * no event (SPEC "Touching the static level"). */
        y[1] = 0.0;
        int to = fired[STSL_G_BREAK_POS] ? STSL_MODE_SLIP_POS : STSL_MODE_SLIP_NEG;
        out->mode = confirm_slip(e, stsl_mode_in_contact(to, side), mode, t, y);
        out->kind = out->mode == mode ? STSL_NO_EVENT : STSL_EV_BREAKAWAY;
    } else if (side && (fr == STSL_MODE_SMOOTH ? fired[STSL_G_LEAVE] : fired[STSL_G_STOP])) {
        out->mode = fr; /* the stop's force has fallen to 0: it lets go */
        out->kind = STSL_EV_CONTACT_END;
    } else if (e->compliant && fr == STSL_MODE_SMOOTH) {
        contact_begin(e, fired[STSL_G_HIGH] ? +1 : -1, 1, t, y, out);
    } else if (e->compliant && !side && (fired[STSL_G_STOP] || fired[STSL_G_BEHIND])) {
        int ahead = fr == STSL_MODE_SLIP_POS ? +1 : -1;
        contact_begin(e, fired[STSL_G_STOP] ? ahead : -ahead, 1, t, y, out);
    } else if (mode == STSL_MODE_STOP_HIGH || mode == STSL_MODE_STOP_LOW) {
        y[1] = 0.0;
        int to = mode == STSL_MODE_STOP_HIGH ? STSL_MODE_SLIP_NEG : STSL_MODE_SLIP_POS;
        out->mode = law_mode(e, confirm_slip(e, to, mode, t, y));
        if (out->mode != mode) {
            e->settle_at = INFINITY;
            out->kind = STSL_EV_STOP_RELEASE;
        }
    } else if (mode == STSL_MODE_SMOOTH) {
        impact(e, fired[STSL_G_HIGH] ? +1 : -1, t, y, out);
    } else if (fired[STSL_G_STOP]) {
        impact(e, mode == STSL_MODE_SLIP_POS ? +1 : -1, t, y, out);
    } else if (fired[STSL_G_VZERO]) {
        y[1] = 0.0;
        forces_now(e, t, y, &f);
        int next; /* the decision speaks of the element's int mode numbers */
        stsl_contact_decide_velocity_zero(fr, f.fn + side_force(e, side, y[0], 0.0), f.fs_pos,
                                          f.fs_neg, &next, &out->kind);
        /* A force at a band edge (to within rounding) counts as outside
         * when, followed along the state at rest, it leaves the band at t+
         * (SPEC "Velocity zero"): no stick there, the slip goes that way. */
        if (next == STSL_MODE_STUCK) {
            int s = slip_starts(e, +1, side, t, y[0])   ? +1
                    : slip_starts(e, -1, side, t, y[0]) ? -1
                                                        : 0;
            if (s) {
                next = s > 0 ? STSL_MODE_SLIP_POS : STSL_MODE_SLIP_NEG;
                out->kind = next != fr ? STSL_EV_REVERSAL : STSL_NO_EVENT;
            }
        }
        out->mode = stsl_mode_in_contact(next, side);
        /* A slip that would leave its sign at once is a stick (SPEC): the
         * excess decides.  Going on the same way is possible only when v
         * came to zero while the force was at the level to within
         * rounding (v falls only while F_n < F_D <= F_S): after a slip that
         * started from rest it is a stick, else restarts at the level
         * could follow each other without end. */
        int back = out->mode == mode && isfinite(e->rest_start);
        int stuck = stsl_mode_in_contact(STSL_MODE_STUCK, side);
        if (back || confirm_slip(e, out->mode, stuck, t, y) != out->mode) {
            out->mode = stuck;
            out->kind = STSL_EV_STICK;
        }
    } else if (fired[STSL_G_LOAD]) {
        out->kind = STSL_EV_LOAD_REVERSAL; /* same mode, other friction branch: restart */
    }
}

/* An input discontinuity: a jump of the base velocity is a jump of the
 * relative velocity (the element's absolute velocity is continuous). */
static void on_time_event(stsl_element *e, double t, double *y, stsl_transition *out)
{
    if (e->has_base) {
        double before[3], after[3];
        stsl_signal_eval(e->base, t, 1, before);
        stsl_signal_eval(e->base, t, 0, after);
        y[1] -= after[1] - before[1];
    }
    out->kind = STSL_EV_INPUT_STEP;
    if (t >= e->settle_at) { /* the bounces left out have ended */
        e->settle_at = INFINITY;
        out->kind = STSL_EV_STOP_CONTACT;
    }
    mode_from_state(e, t, y, out); /* an impact found here overrides the kind */
}

/* A slip mode that starts on the stop it moves towards (a reversal a hair
 * from the stop, an input step there) is an impact at once: its stop guard
 * starts at zero and could not fire. */
static void check_stop_reached(stsl_element *e, double t, double *y, stsl_transition *out)
{
    if (e->compliant) { /* likewise a compliant stop's contact (not just after it ended) */
        int at = stsl_mode_contact_side(out->mode) ? 0 : contact_side(e, y[0], y[1]);
        if (at && out->kind != STSL_EV_CONTACT_END) contact_begin(e, at, 0, t, y, out);
        return;
    }
    int side = out->mode == STSL_MODE_SLIP_POS ? +1 : out->mode == STSL_MODE_SLIP_NEG ? -1 : 0;
    if (out->mode == STSL_MODE_SMOOTH) side = (y[1] > 0.0) - (y[1] < 0.0);
    if (side && out->kind != STSL_EV_IMPACT && stop_side(e, y[0]) == side)
        impact(e, side, t, y, out);
}

/* The mode invariant right after a transition (SPEC "Invariant"): a
 * finite state, v >= 0 in SLIP_POS and <= 0 in SLIP_NEG, v = 0 at rest, on
 * the stop in STOP_*.  (The stick force's band is kept by the decisions and
 * watched while the mode lasts: solver/hybrid.c, frozen_invariant.) */
static int check_mode_state(const stsl_element *e, int mode, double t, const double *y,
                            stsl_error *err)
{
    const char *bad = NULL;
    if (!isfinite(y[0]) || !isfinite(y[1])) bad = "the state is not finite";
    int fr = stsl_mode_friction(mode), side = stsl_mode_contact_side(mode);
    double stop = side > 0 ? e->p.x_max : e->p.x_min;
    if (!bad &&
        ((fr == STSL_MODE_SLIP_POS && y[1] < 0.0) || (fr == STSL_MODE_SLIP_NEG && y[1] > 0.0)))
        bad = "the velocity has the wrong sign for the slip mode";
    else if (!bad &&
             (fr == STSL_MODE_STUCK || fr == STSL_MODE_STOP_LOW || fr == STSL_MODE_STOP_HIGH) &&
             y[1] != 0.0)
        bad = "a mode at rest with a velocity";
    else if (!bad && ((mode == STSL_MODE_STOP_HIGH && y[0] != e->p.x_max) ||
                      (mode == STSL_MODE_STOP_LOW && y[0] != e->p.x_min)))
        bad = "a stop mode away from its stop";
    else if (!bad && side && side * (y[0] - stop) < 0.0)
        bad = "a contact mode outside its stop";
    if (!bad) return STSL_OK;
    return stsl_error_set(err, STSL_ESOLVER,
                          "mode invariant violated: %s (entering %s at t = %.17g with x = %.17g, "
                          "v = %.17g)",
                          bad, e->layout.mode_names[mode], t, y[0], y[1]);
}

static int el_transition(void *self, stsl_mode_code mode, stsl_reason why, const int *fired,
                         double t, double *y, stsl_transition *out, stsl_error *err)
{
    stsl_element *e = self;
    e->t_seg = t; /* from here on the inputs' right limits apply */
    out->mode = mode;
    out->kind = STSL_NO_EVENT;
    out->again = 0;
    switch (why) {
    case STSL_REASON_INIT:
        e->settle_at = INFINITY;
        mode_from_state(e, t, y, out);
        break;
    case STSL_REASON_GUARD:
        on_guard(e, mode, fired, t, y, out);
        break;
    case STSL_REASON_TIME:
        on_time_event(e, t, y, out);
        break;
    case STSL_REASON_RECHECK:
        if (mode == STSL_MODE_STOP_HIGH || mode == STSL_MODE_STOP_LOW) {
            forces f;
            forces_now(e, t, y, &f);
            int side = mode == STSL_MODE_STOP_HIGH ? +1 : -1;
            out->mode = law_mode(
                e, confirm_slip(e, e->stop->contact(side, f.fn, f.fs_pos, f.fs_neg), mode, t, y));
            if (out->mode != mode) {
                out->kind = STSL_EV_STOP_RELEASE;
                e->settle_at = INFINITY;
            }
        }
        break;
    }
    check_stop_reached(e, t, y, out);
    int slip = is_slip(out->mode);
    e->rest_start = slip && y[1] == 0.0 ? t : -INFINITY;
    return check_mode_state(e, out->mode, t, y, err);
}

/* Friction power F_f v_rel: its integral is the energy friction dissipates
 * (stuck and on a stop v_rel = 0, so the frozen modes add nothing). */
static double el_power(void *self, stsl_mode_code mode, double t, const double *y)
{
    const stsl_element *e = self;
    inputs in;
    forces f;
    if (!is_moving(mode)) return 0.0;
    eval_inputs(e, t, &in);
    eval_forces(e, &in, y[0], y[1], &f);
    return moving_friction(e, &f, mode, y) * y[1];
}

/* 1 when a slip segment's dry friction is its value at the start for the
 * whole segment: a hybrid law without a Stribeck excess (coulomb, or
 * static_ratio 1), whose level does not follow the load (efficiencies 1)
 * or under a constant load.  A load that only changes sign is not enough:
 * its magnitude still moves the level. */
static int level_is_constant(const stsl_element *e)
{
    const stsl_friction_params *fp = &e->p.friction;
    if (e->smooth || e->lugre) return 0;
    if (fp->law == STSL_LAW_STRIBECK && fp->static_ratio != 1.0) return 0;
    return !e->load_varies || (fp->eff_opposing == 1.0 && fp->eff_aiding == 1.0);
}

/* The power F_f v is F_f dx/dt (v is the rate of x, both relative to the
 * base): with F_f constant over a slip segment its work is F_f (x_end -
 * x_start), exactly.  Everything else is integrated. */
static int el_work_form(void *self, stsl_mode_code mode, double t, const double *y,
                        stsl_work_form *out)
{
    const stsl_element *e = self;
    if (!is_slip(mode) || !level_is_constant(e)) return 0;
    inputs in;
    forces f;
    eval_inputs(e, t, &in);
    eval_forces(e, &in, y[0], y[1], &f);
    out->index = 0;
    out->coef = slip_friction(e, &f, mode, y[1]);
    return 1;
}

/* The element's mode codes are its mode numbers (events/modes.h), which its
 * results store as they are: describe and mode_name read the tables there. */
static int el_describe(void *self, stsl_mode_code mode, stsl_mode_desc *out)
{
    const stsl_element *e = self;
    if (mode < 0 || mode >= e->layout.n_modes) return -1;
    *out = stsl_element_modes_for(e->compliant)[mode];
    out->record = (int)mode;
    return 0;
}

static void el_mode_name(void *self, stsl_mode_code mode, char *buf, size_t len)
{
    const stsl_element *e = self;
    if (mode >= 0 && mode < e->layout.n_modes)
        snprintf(buf, len, "%s", e->layout.mode_names[mode]);
    else
        snprintf(buf, len, "%" PRId64, mode);
}

/* The most guards any of the element's modes has: the solver's root count. */
static int max_guards(const stsl_element *e)
{
    const stsl_mode_desc *modes = stsl_element_modes_for(e->compliant);
    int most = 0;
    for (int i = 0; i < e->layout.n_modes; i++)
        if (modes[i].n_guards > most) most = modes[i].n_guards;
    return most;
}

static const stsl_hmodel_ops element_ops = {
    el_rhs, el_guards, el_transition, el_max_step, el_next_time_event, el_outputs,
    el_jac, el_power,  el_work_form,  el_describe, el_mode_name,       NULL};

/* ---- layout ------------------------------------------------------------------ */

static const char *const state_names[3] = {"x", "v", "z"};

const stsl_layout *stsl_element_layout(const stsl_element *e)
{
    return &e->layout;
}

static void init_layout(stsl_element *e)
{
    memcpy(e->cols, stsl_one_body_columns(e->p.domain), sizeof e->cols);
    /* z only where it exists (LuGre). */
    /* The contact modes and their events only with compliant stops: a
     * layout without them is the one from before they existed. */
    stsl_layout l = {e->lugre ? STSL_N_COLS : STSL_N_COLS - 1,
                     e->cols,
                     "s",
                     e->compliant ? STSL_N_MODES : STSL_N_RIGID_MODES,
                     stsl_mode_names(),
                     e->compliant ? STSL_N_EVENT_KINDS : STSL_N_RIGID_EVENT_KINDS,
                     stsl_event_kind_names(),
                     0, /* no column groups, no event subjects: the 1-D layout */
                     NULL,
                     0,
                     NULL};
    e->layout = l;
    for (int c = 0; c < STSL_N_COLS; c++)
        e->col_state[c] = c == STSL_COL_X ? 0 : c == STSL_COL_V ? 1 : -1;
}

/* ---- natural scales -------------------------------------------------------- */

/* The force that sets the element's motion: the smallest of the friction's
 * static (breakaway) level and the sizes of the force inputs, 0 when there
 * is none.  The smallest, because a friction level far above the driving
 * force (a LuGre element of 1e8 N pushed with 1 N) says nothing about how
 * far or fast the element moves: the driving force does. */
static double force_scale(const stsl_element_params *p)
{
    double fs = INFINITY;
    stsl_contact_keep_smaller(&fs, stsl_friction_scale(&p->friction));
    stsl_contact_keep_smaller(&fs, stsl_signal_spec_size(&p->active_force));
    stsl_contact_keep_smaller(&fs, stsl_signal_spec_size(&p->load));
    return isfinite(fs) ? fs : 0.0;
}

/* Why these scales: CVODE weighs component i with 1 / (rtol |y_i| +
 * atol_i).  A fixed atol (the old 1e-12) is a length in metres whatever the
 * element: for the Janecek chirp (x ~ 3e-3 m) it capped the accuracy at
 * 4.5e-10 s whatever rtol asked for, and for an element of kilometres it
 * would be wasted work.  With atol_i proportional to rtol s_i
 * (stsl_hsolver_atol: rtol 0.001 s_i), a component near zero (v at every
 * stick, x at every crossing) is held to rtol relative to the size it has
 * in this element's motion, so event times, which follow from v or a force
 * reaching zero (dt = dv / |a|), keep following rtol down to round-off.
 *   Force F: the smallest of the static friction level and the force
 * inputs' sizes (force_scale).
 *   Length L: the smallest of the element's lengths, so that no feature
 * goes unresolved: the width of the stick band F/k, LuGre's presliding
 * deflection F/sigma0, the stops' range, a compliant stop's penetration
 * F/k_stop and its penetration at the initial speed |v0| sqrt(m/k_stop),
 * the amplitude of an oscillating base or anchor motion; 1 when there is
 * none.
 *   Time T: sqrt(m/k) with a spring (else sqrt(m/k_stop) with compliant
 * stops, the contact's time scale); without, the time sqrt(m L / F) in
 * which the force level moves the mass across L; m/c with only a damper;
 * else 1.  Velocity V = L / T (with a spring and L = F/k this is F /
 * sqrt(k m), the speed a released stick band reaches).
 *   LuGre's third state is the bristle force sigma0 z: scale F (else k L). */
void stsl_element_state_scales(const stsl_element_params *p, double scale[3])
{
    double f = force_scale(p), k = p->stiffness, m = p->mass, l = INFINITY;
    if (k > 0.0) stsl_contact_keep_smaller(&l, f / k);
    if (p->friction.law == STSL_LAW_LUGRE) stsl_contact_keep_smaller(&l, f / p->friction.sigma0);
    if (p->has_stops) stsl_contact_keep_smaller(&l, p->x_max - p->x_min);
    int compliant = p->has_stops && p->stop_model == STSL_STOP_COMPLIANT;
    if (compliant) { /* the penetration under F, and at the initial speed */
        stsl_contact_keep_smaller(&l, f / p->stop_stiffness);
        stsl_contact_keep_smaller(&l, fabs(p->v0) * sqrt(m / p->stop_stiffness));
    }
    stsl_contact_keep_smaller(&l, stsl_signal_spec_oscillation(&p->base_motion));
    if (p->has_anchor)
        stsl_contact_keep_smaller(&l, stsl_signal_spec_oscillation(&p->anchor_motion));
    if (!isfinite(l)) l = 1.0;
    /* Without a spring a compliant stop's stiffness sets the time. */
    double k_time = k > 0.0 ? k : compliant ? p->stop_stiffness : 0.0;
    double t = stsl_contact_time_scale(m, k_time, f, l, p->damping);
    scale[0] = l;
    scale[1] = l / t;
    scale[2] = f > 0.0 ? f : (k > 0.0 ? k * l : 1.0);
}

int stsl_element_atol(const stsl_element_params *p, double rtol, double atol, double out[3],
                      const char *units[3])
{
    const stsl_column *cols = stsl_one_body_columns(p->domain);
    int n = p->friction.law == STSL_LAW_LUGRE ? 3 : 2;
    double scale[3];
    stsl_element_state_scales(p, scale);
    stsl_hsolver_atol(scale, n, rtol, atol, out);
    units[0] = cols[STSL_COL_X].units;
    units[1] = cols[STSL_COL_V].units;
    units[2] = cols[STSL_COL_FRICTION].units; /* sigma0 z is a force */
    return n;
}

/* ---- create / free ------------------------------------------------------------- */

stsl_element *stsl_element_create(const stsl_element_params *p, stsl_error *err)
{
    if (!(p->mass > 0.0)) {
        stsl_error_set(err, STSL_EINPUT, "element.mass must be > 0 (got %g)", p->mass);
        return NULL;
    }
    stsl_element *e = calloc(1, sizeof *e);
    if (!e) {
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the element");
        return NULL;
    }
    e->p = *p;
    e->stop = stsl_end_stop(p->stop_model);
    e->compliant = e->stop->compliant;
    e->sp =
        (stsl_stop_params){p->x_min, p->x_max, p->restitution, p->stop_stiffness, p->stop_damping};
    e->fa = stsl_signal_create(&p->active_force, err);
    e->load = e->fa ? stsl_signal_create(&p->load, err) : NULL;
    e->base = e->load ? stsl_signal_create(&p->base_motion, err) : NULL;
    e->anchor = e->base ? stsl_signal_create(&p->anchor_motion, err) : NULL;
    if (!e->anchor) {
        stsl_element_free(e);
        return NULL;
    }
    e->load_varies = !stsl_signal_is_constant(e->load);
    e->has_base = !stsl_signal_is_constant(e->base);
    e->t_seg = -INFINITY;
    e->settle_at = INFINITY;
    e->rest_start = -INFINITY;
    if (!(e->p.rtol > 0.0)) e->p.rtol = 1e-10;
    stsl_element_state_scales(p, e->scale);
    if (!(e->p.atol > 0.0)) /* a length: the position's tolerance, for the stops */
        stsl_hsolver_atol(e->scale, 1, e->p.rtol, 0.0, &e->p.atol);
    e->natural_step = stsl_contact_natural_step(
        p->stiffness > 0.0 ? 2.0 * M_PI * sqrt(p->mass / p->stiffness) : INFINITY);
    double k_contact = p->stiffness + (e->compliant ? p->stop_stiffness : 0.0);
    e->contact_step = stsl_contact_natural_step(
        k_contact > 0.0 ? 2.0 * M_PI * sqrt(p->mass / k_contact) : INFINITY);
    e->smooth = stsl_law_is_smooth(p->friction.law);
    e->lugre = p->friction.law == STSL_LAW_LUGRE;
    init_layout(e);
    e->model.ops = &element_ops;
    e->model.self = e;
    e->model.n_state = e->lugre ? 3 : 2;
    e->model.max_guards = max_guards(e);
    e->model.layout = &e->layout;
    e->model.state_names = state_names;
    e->model.state_scale = e->scale;
    e->model.col_state = e->col_state;
    /* A smooth law is a near-discontinuity when its slope is steep: stiff. */
    e->model.stiff = e->smooth;
    return e;
}

void stsl_element_free(stsl_element *e)
{
    if (!e) return;
    stsl_signal_free(e->fa);
    stsl_signal_free(e->load);
    stsl_signal_free(e->base);
    stsl_signal_free(e->anchor);
    free(e);
}

const stsl_hmodel *stsl_element_model(const stsl_element *e)
{
    return &e->model;
}

void stsl_element_initial_state(const stsl_element *e, double *y0)
{
    y0[0] = e->p.x0;
    y0[1] = e->p.v0;
    if (e->lugre) y0[2] = 0.0; /* bristles relaxed */
}

void stsl_element_eval_forces(const stsl_element *e, double t, const double *y,
                              stsl_element_forces *out)
{
    inputs in;
    forces f;
    eval_inputs(e, t, &in);
    eval_forces(e, &in, y[0], y[1], &f);
    out->fn = f.fn;
    out->fd_pos = f.fd_pos;
    out->fs_pos = f.fs_pos;
    out->fd_neg = f.fd_neg;
    out->fs_neg = f.fs_neg;
}

const stsl_element_params *stsl_element_get_params(const stsl_element *e)
{
    return &e->p;
}
