/* one_body.c - the element's configuration run by the engine (see one_body.h). */
#include "models/one_body.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "physics/contact.h"
#include "physics/modes.h"
#include "physics/friction.h"
#include "models/multibody.h"
#include "physics/smooth_friction.h"
#include "models/system.h"

/* The net force's inputs. */
enum { IN_FA, IN_LOAD, IN_BASE, IN_ANCHOR, N_IN };

struct stsl_one_body {
    stsl_element_params p;
    stsl_system sys;
    stsl_multibody *mb;
    const stsl_hmodel *inner;
    stsl_signal *in[N_IN]; /* the net force's inputs */
    /* A constant input (type constant) has one value at every t: in_value
     * holds what stsl_signal_eval gives for it (at create; inputs never
     * change), so that the force evaluation every fixed step makes calls
     * no signal for it (in_fixed[i]: in_value[i] is valid). */
    int in_fixed[N_IN];
    double in_value[N_IN][3];
    /* The friction levels fd+, fs+, fd-, fs- at a constant load (levels_fixed),
     * computed once at create: they depend on the friction law and the load
     * alone, and neither changes during a run. */
    int levels_fixed;
    double levels[4];
    int load_varies, compliant, lugre, smooth;
    double t_seg; /* start of the current segment: selects one-sided input limits */
    int col_state[STSL_N_COLS];
    stsl_layout layout;
    stsl_hmodel model;
};

/* ---- the element's columns ----------------------------------------------------------- */

/* Names and units per domain; rotational elements are named as the seeds
 * (Simscape, 20-sim) name them: angle, angular velocity, torque. */
static const stsl_column trans_cols[STSL_N_COLS] = {
    {"x", "m", "position"},
    {"v", "m/s", "velocity"},
    {"a", "m/s^2", "acceleration"},
    {"friction", "N", "friction force"},
    {"net_force", "N", "non-friction net force"},
    {"stop_reaction", "N", "end-stop reaction force"},
    {"x_base", "m", "base position"},
    {"v_base", "m/s", "base velocity"},
    {"z", "m", "bristle deflection"}};
static const stsl_column rot_cols[STSL_N_COLS] = {
    {"x", "rad", "angle"},
    {"v", "rad/s", "angular velocity"},
    {"a", "rad/s^2", "angular acceleration"},
    {"friction", "N·m", "friction torque"},
    {"net_force", "N·m", "non-friction net torque"},
    {"stop_reaction", "N·m", "end-stop reaction torque"},
    {"x_base", "rad", "base angle"},
    {"v_base", "rad/s", "base angular velocity"},
    {"z", "rad", "bristle deflection"}};

const stsl_column *stsl_one_body_columns(stsl_domain domain)
{
    return domain == STSL_DOMAIN_ROTATIONAL ? rot_cols : trans_cols;
}

static int mode_moves(int mode)
{
    int fr = stsl_mode_friction(mode);
    return fr == STSL_MODE_SLIP_POS || fr == STSL_MODE_SLIP_NEG || fr == STSL_MODE_SMOOTH;
}

/* Dry friction F_f (entering as -F_f) while moving, LuGre's included. */
static double moving_friction(const stsl_element_params *p, int mode, const double *y, double load)
{
    const stsl_friction_params *fp = &p->friction;
    if (fp->law == STSL_LAW_LUGRE) return stsl_lugre_force(fp, y[1], y[2] / fp->sigma0);
    int fr = stsl_mode_friction(mode), s = fr == STSL_MODE_SLIP_POS ? +1 : -1;
    if (fr == STSL_MODE_SMOOTH) return stsl_smooth_force(fp, y[1]);
    double fd, fs;
    stsl_friction_levels(fp, s, load, &fd, &fs);
    return s * stsl_friction_slip(fp, fd, fs, fabs(y[1]));
}

/* ---- the engine's mode as the element's ------------------------------------------------ */

/* The element's mode number of the engine's mode: a closed rigid stop is
 * STOP_LOW / STOP_HIGH, a compliant one in contact the contact mode of the
 * contact's state, else the contact's state (SMOOTH for smooth laws). */
int stsl_one_body_mode_of(const stsl_one_body *o, int cs, int ss)
{
    if (cs < 0 || ss < 0) return -1;
    int fr = cs == STSL_CONTACT_SMOOTH ? STSL_MODE_SMOOTH : cs;
    if (ss == STSL_SM_OPEN) return fr;
    int side = ss == STSL_SM_HIGH ? +1 : -1;
    if (o->compliant) return stsl_mode_in_contact(fr, side);
    return side > 0 ? STSL_MODE_STOP_HIGH : STSL_MODE_STOP_LOW;
}

static int element_mode(const stsl_one_body *o, stsl_mode_code mode)
{
    int cs = stsl_multibody_member_state(o->mb, mode, 0);
    int ss = o->p.has_stops ? stsl_multibody_member_state(o->mb, mode, 1) : STSL_SM_OPEN;
    return stsl_one_body_mode_of(o, cs, ss);
}

/* Input i's value and derivatives at t (left limits when `left`). */
static inline void input(const stsl_one_body *o, int i, double t, int left, double out[3])
{
    if (!o->in_fixed[i]) {
        stsl_signal_eval(o->in[i], t, left, out);
        return;
    }
    out[0] = o->in_value[i][0], out[1] = o->in_value[i][1], out[2] = o->in_value[i][2];
}

/* Input i's value at t (a force: no derivatives needed). */
static inline double input_value(const stsl_one_body *o, int i, double t, int left)
{
    return o->in_fixed[i] ? o->in_value[i][0] : stsl_signal_value(o->in[i], t, left);
}

/* F_n = F_a + F_R - spring - damper - m a_b (SPEC §1), as the element
 * writes it; *load: F_R, xb: the base's motion. */
static inline double net_force(const stsl_one_body *o, double t, const double *y, double *load,
                               double *xb)
{
    const stsl_element_params *p = &o->p;
    int left = t > o->t_seg;
    double a[3] = {0.0, 0.0, 0.0};
    double fa = input_value(o, IN_FA, t, left);
    *load = input_value(o, IN_LOAD, t, left);
    input(o, IN_BASE, t, left, xb);
    if (p->has_anchor) input(o, IN_ANCHOR, t, left, a);
    double stretch = y[0] - p->free_position, rate = y[1];
    if (p->has_anchor) {
        stretch = y[0] + xb[0] - a[0] - p->free_position;
        rate = y[1] + xb[1] - a[1];
    }
    return fa + *load - p->stiffness * stretch - p->damping * rate - p->mass * xb[2];
}

/* The element's output columns (STSL_N_COLS values; z only for LuGre) in
 * element mode `mode` at (t, y) (x, v relative; y[2] = sigma0 z for
 * LuGre): friction, the stop's reaction and the acceleration as SPEC §1.2
 * splits them from the non-friction net force. */
void stsl_one_body_mode_outputs(const stsl_one_body *o, int mode, double t, const double *y,
                                double *c)
{
    const stsl_element_params *p = &o->p;
    double load, b[3] = {0.0, 0.0, 0.0};
    double fn = net_force(o, t, y, &load, b);
    const stsl_end_stop_ops *stop = stsl_end_stop(p->stop_model);
    stsl_stop_params sp = {p->x_min, p->x_max, p->restitution, p->stop_stiffness, p->stop_damping};
    int side = stsl_mode_contact_side(mode), moves = mode_moves(mode);
    /* A compliant stop's push on the element in contact (along +x). */
    double push = side && stop->compliant
                      ? -side * stop->reaction(&sp, side, 0.0, y[0], moves ? y[1] : 0.0)
                      : 0.0;
    double ff = 0.0, r = fabs(push);
    switch (stsl_mode_friction(mode)) {
    case STSL_MODE_SLIP_POS:
    case STSL_MODE_SLIP_NEG:
    case STSL_MODE_SMOOTH:
        ff = moving_friction(p, mode, y, load);
        break;
    case STSL_MODE_STUCK: /* friction holds what the compliant stop does not */
        ff = fn + push;
        break;
    /* On a stop the stop carries the compressive part, friction the rest. */
    case STSL_MODE_STOP_HIGH:
        r = stop->reaction(&sp, +1, fn, y[0], y[1]);
        ff = fn - r;
        break;
    case STSL_MODE_STOP_LOW:
        r = stop->reaction(&sp, -1, fn, y[0], y[1]);
        ff = fn + r;
        break;
    }
    c[STSL_COL_X] = y[0];
    c[STSL_COL_V] = y[1];
    c[STSL_COL_A] = moves ? (fn - ff + push) / p->mass : 0.0;
    c[STSL_COL_FRICTION] = ff;
    c[STSL_COL_NET_FORCE] = fn;
    c[STSL_COL_STOP_REACTION] = r;
    c[STSL_COL_X_BASE] = b[0];
    c[STSL_COL_V_BASE] = b[1];
    if (p->friction.law == STSL_LAW_LUGRE) c[STSL_COL_Z] = y[2] / p->friction.sigma0;
}

static void ob_outputs(void *self, stsl_mode_code mode, double t, const double *y, double *c)
{
    stsl_one_body_mode_outputs(self, element_mode(self, mode), t, y, c);
}

/* ---- hybrid model ops: the engine's, seen as the element ------------------------------- */

static int ob_rhs(void *self, stsl_mode_code mode, double t, const double *y, double *ydot)
{
    const stsl_one_body *o = self;
    return o->inner->ops->rhs(o->inner->self, mode, t, y, ydot);
}

static int ob_guards(void *self, stsl_mode_code mode, double t, const double *y, double *g)
{
    const stsl_one_body *o = self;
    return o->inner->ops->guards(o->inner->self, mode, t, y, g);
}

static double ob_max_step(void *self, stsl_mode_code mode, double t)
{
    const stsl_one_body *o = self;
    return o->inner->ops->max_step(o->inner->self, mode, t);
}

static double ob_next_time_event(void *self, double t)
{
    const stsl_one_body *o = self;
    return o->inner->ops->next_time_event(o->inner->self, t);
}

/* The one event the element records at an input discontinuity: an impact
 * or a compliant stop's contact found there, the end of the bounces left
 * out (stop_contact), else input_step, whatever the contact did there. */
static int time_event_kind(int kind, int more)
{
    static const int first[] = {STSL_EV_IMPACT, STSL_EV_CONTACT_BEGIN, STSL_EV_STOP_CONTACT};
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
        if (kind == first[i] || more == first[i]) return first[i];
    return STSL_EV_INPUT_STEP;
}

static int ob_transition(void *self, stsl_mode_code mode, stsl_reason why, const int *fired,
                         double t, double *y, stsl_transition *out, stsl_error *err)
{
    stsl_one_body *o = self;
    o->t_seg = t; /* from here on the inputs' right limits apply */
    void *in = o->inner->self;
    int rc = o->inner->ops->transition(in, mode, why, fired, t, y, out, err);
    out->subject = 0; /* the element's events name no contact */
    if (rc || why != STSL_REASON_TIME) return rc;
    int kind = time_event_kind(out->kind, STSL_NO_EVENT);
    while (!rc && out->again) { /* the engine's events at this instant: one */
        stsl_transition more = {out->mode, STSL_NO_EVENT, 0, 0};
        rc = o->inner->ops->transition(in, out->mode, STSL_REASON_RECHECK, NULL, t, y, &more, err);
        kind = time_event_kind(kind, more.kind);
        out->mode = more.mode;
        out->again = more.again;
    }
    out->kind = kind;
    out->subject = 0;
    return rc;
}

/* Friction power F_f v_rel (the element's): its integral is the energy
 * friction dissipates; 0 at rest. */
static double ob_power(void *self, stsl_mode_code mode, double t, const double *y)
{
    const stsl_one_body *o = self;
    int em = element_mode(o, mode);
    if (!mode_moves(em)) return 0.0;
    double load, b[3] = {0.0, 0.0, 0.0};
    net_force(o, t, y, &load, b);
    return moving_friction(&o->p, em, y, load) * y[1];
}

/* A slip segment of a hybrid law whose level is its value at the start
 * for the whole segment (no Stribeck excess, a level that does not follow
 * the load or a constant load): its work is F_f (x_end - x_start). */
static int ob_work_form(void *self, stsl_mode_code mode, double t, const double *y,
                        stsl_work_form *out)
{
    const stsl_one_body *o = self;
    const stsl_friction_params *fp = &o->p.friction;
    int em = element_mode(o, mode), fr = stsl_mode_friction(em);
    if (o->smooth || (fr != STSL_MODE_SLIP_POS && fr != STSL_MODE_SLIP_NEG)) return 0;
    if (fp->law == STSL_LAW_STRIBECK && fp->static_ratio != 1.0) return 0;
    if (o->load_varies && (fp->eff_opposing != 1.0 || fp->eff_aiding != 1.0)) return 0;
    double load, b[3] = {0.0, 0.0, 0.0};
    net_force(o, t, y, &load, b);
    out->index = 0;
    out->coef = moving_friction(&o->p, em, y, load);
    return 1;
}

static int ob_describe(void *self, stsl_mode_code mode, stsl_mode_desc *out)
{
    const stsl_one_body *o = self;
    int rc = o->inner->ops->describe(o->inner->self, mode, out);
    out->record = element_mode(o, mode);
    return rc || out->record < 0 || out->record >= o->layout.n_modes;
}

static void ob_mode_name(void *self, stsl_mode_code mode, char *buf, size_t len)
{
    const stsl_one_body *o = self;
    int em = element_mode(o, mode);
    if (em >= 0 && em < o->layout.n_modes)
        snprintf(buf, len, "%s", o->layout.mode_names[em]);
    else
        snprintf(buf, len, "%" PRId64, mode);
}

static const stsl_hmodel_ops one_body_ops = {
    ob_rhs,       ob_guards,   ob_transition, ob_max_step, ob_next_time_event, ob_outputs, ob_power,
    ob_work_form, ob_describe, ob_mode_name,  NULL};

/* ---- the forces, for the tools that step the element themselves ------------------------ */

const stsl_system *stsl_one_body_system(const stsl_one_body *o)
{
    return &o->sys;
}

const stsl_element_params *stsl_one_body_params(const stsl_one_body *o)
{
    return &o->p;
}

/* Fresh from create, no transition has set t_seg: the inputs' left limits. */
void stsl_one_body_eval_forces(const stsl_one_body *o, double t, const double *y,
                               stsl_one_body_forces *out)
{
    double load, b[3] = {0.0, 0.0, 0.0};
    out->fn = net_force(o, t, y, &load, b);
    out->load = load;
    if (o->levels_fixed) {
        out->fd_pos = o->levels[0], out->fs_pos = o->levels[1];
        out->fd_neg = o->levels[2], out->fs_neg = o->levels[3];
        return;
    }
    out->fd_pos = out->fs_pos = out->fd_neg = out->fs_neg = 0.0;
    if (o->smooth) return; /* no static friction: a smooth law holds nothing at v = 0 */
    stsl_friction_levels(&o->p.friction, +1, load, &out->fd_pos, &out->fs_pos);
    stsl_friction_levels(&o->p.friction, -1, load, &out->fd_neg, &out->fs_neg);
}

/* ---- create / free --------------------------------------------------------------------- */

static const char *const state_names[3] = {"x", "v", "z"};

static void init_layout(stsl_one_body *o)
{
    /* z only where it exists (LuGre); the contact modes and their events
     * only with compliant stops, as the element's layout. */
    o->layout = (stsl_layout){o->lugre ? STSL_N_COLS : STSL_N_COLS - 1,
                              stsl_one_body_columns(o->p.domain),
                              "s",
                              o->compliant ? STSL_N_MODES : STSL_N_RIGID_MODES,
                              stsl_mode_names(),
                              o->compliant ? STSL_N_EVENT_KINDS : STSL_N_RIGID_EVENT_KINDS,
                              stsl_event_kind_names(),
                              0,
                              NULL,
                              0,
                              NULL};
    for (int c = 0; c < STSL_N_COLS; c++)
        o->col_state[c] = c == STSL_COL_X ? 0 : c == STSL_COL_V ? 1 : -1;
}

static int make_signals(stsl_one_body *o, stsl_error *err)
{
    const stsl_element_params *p = &o->p;
    const stsl_signal_spec *spec[N_IN] = {&p->active_force, &p->load, &p->base_motion,
                                          &p->anchor_motion};
    for (int i = 0; i < N_IN; i++) {
        if (!(o->in[i] = stsl_signal_create(spec[i], err))) return -1;
        o->in_fixed[i] = spec[i]->type == STSL_SIG_CONSTANT;
        if (o->in_fixed[i]) stsl_signal_eval(o->in[i], 0.0, 1, o->in_value[i]);
    }
    o->load_varies = !stsl_signal_is_constant(o->in[IN_LOAD]);
    o->levels_fixed = o->in_fixed[IN_LOAD] && !o->smooth;
    double *l = o->levels, load = o->in_value[IN_LOAD][0];
    if (o->levels_fixed) stsl_friction_levels(&p->friction, +1, load, &l[0], &l[1]);
    if (o->levels_fixed) stsl_friction_levels(&p->friction, -1, load, &l[2], &l[3]);
    return 0;
}

stsl_one_body *stsl_one_body_create(const stsl_element_params *p, stsl_error *err)
{
    if (!(p->mass > 0.0)) {
        stsl_error_set(err, STSL_EINPUT, "element.mass must be > 0 (got %g)", p->mass);
        return NULL;
    }
    stsl_one_body *o = calloc(1, sizeof *o);
    if (!o || stsl_system_from_element(p, &o->sys)) {
        free(o);
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the element");
        return NULL;
    }
    o->p = *p;
    o->t_seg = -INFINITY;
    o->compliant = stsl_end_stop(p->stop_model)->compliant && p->has_stops;
    o->lugre = p->friction.law == STSL_LAW_LUGRE;
    o->smooth = stsl_law_is_smooth(p->friction.law);
    if (make_signals(o, err) || !(o->mb = stsl_multibody_create(&o->sys, p->rtol, p->atol, err))) {
        stsl_one_body_free(o);
        return NULL;
    }
    o->inner = stsl_multibody_model(o->mb);
    init_layout(o);
    o->model = *o->inner;
    o->model.ops = &one_body_ops;
    o->model.self = o;
    o->model.layout = &o->layout;
    o->model.state_names = state_names;
    o->model.col_state = o->col_state;
    return o;
}

void stsl_one_body_free(stsl_one_body *o)
{
    if (!o) return;
    stsl_multibody_free(o->mb);
    stsl_system_free(&o->sys);
    for (int i = 0; i < N_IN; i++)
        stsl_signal_free(o->in[i]);
    free(o);
}

const stsl_hmodel *stsl_one_body_model(const stsl_one_body *o)
{
    return &o->model;
}

void stsl_one_body_initial_state(const stsl_one_body *o, double *y0)
{
    y0[0] = o->p.x0; /* relative to the base, as the engine integrates it */
    y0[1] = o->p.v0;
    if (o->lugre) y0[2] = 0.0; /* bristles relaxed */
}
