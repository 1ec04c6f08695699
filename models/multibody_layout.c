/* multibody_layout.c - the results of the multibody model
 * (multibody_impl.h): the columns and their groups, names and units, the
 * values of a sample (positions, velocities, accelerations, friction and
 * stop forces, modes), the power of the energy balance, and the names of
 * modes.  Separate: what a run records, apart from how it integrates. */
#include "models/multibody_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/contact.h"
#include "physics/modes.h"

static const char *const stop_mode_names[] = {"OPEN", "LOW", "HIGH", NULL};

/* ---- outputs ------------------------------------------------------------------- */

/* Column offsets of the groups (mb-interfaces.md §3). */
typedef struct col_offsets {
    int x, v, a, friction, slip, cmode, reaction, smode, xb, vb, n;
} col_offsets;

static col_offsets offsets(const stsl_multibody *m)
{
    col_offsets o;
    o.x = 0;
    o.v = o.x + m->nb;
    o.a = o.v + m->nb;
    o.friction = o.a + m->nb;
    o.slip = o.friction + m->nc;
    o.cmode = o.slip + m->nc;
    o.reaction = o.cmode + m->nc;
    o.smode = o.reaction + m->ns;
    o.xb = o.smode + m->ns;
    o.vb = o.xb + 1;
    o.n = o.vb + 1;
    return o;
}

/* The base's motion at t, as the current segment sees it. */
static void base_now(const stsl_multibody *m, double t, double *b)
{
    b[0] = b[1] = b[2] = 0.0;
    stsl_signal_eval(m->base, t, t > m->t_seg, b);
}

/* The columns of absolute motion (x, v, a of the bodies, the base's) when
 * the state is in the base's frame. */
static void absolute_columns(const stsl_multibody *m, double t, col_offsets o, double *c)
{
    if (!m->frame) return;
    double b[3];
    base_now(m, t, b);
    for (int i = 0; i < m->nb; i++) {
        c[o.x + i] += b[0];
        c[o.v + i] += b[1];
        c[o.a + i] += b[2];
    }
    c[o.xb] = b[0];
    c[o.vb] = b[1];
}

double stsl_mb_contact_friction(const stsl_multibody *m, const prepared *p, int c,
                                const fixed_motion *fm, const double *y, double w)
{
    if (m->zidx[c] >= 0) return lugre_force(m, c, w, y);
    if (p->vec[c] != STSL_CONTACT_STUCK)
        return stsl_mb_slip_force(m, c, p->vec[c], w, contact_load(m, c, fm));
    return p->contact_edge[c] >= 0 ? contact_lambda(m, p, c, fm)
                                   : stsl_mb_held_friction(m, p, c, fm);
}

void stsl_mb_outputs(void *self, stsl_mode_code mode, double t, const double *y, double *c)
{
    stsl_multibody *m = self;
    const prepared *p = stsl_mb_prepare(m, mode);
    col_offsets o = offsets(m);
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    int bad = !p || stsl_mb_solve(m, p, &fm, t, y, NULL, NULL);
    for (int i = 0; i < m->nb; i++) {
        c[o.x + i] = y[i];
        c[o.v + i] = y[m->nb + i];
        c[o.a + i] = bad ? NAN : m->acc[i];
    }
    for (int k = 0; k < m->nc; k++) {
        int st = p ? p->vec[k] : 0;
        double w = rel_v(m, &fm, y, m->cnode[k]);
        c[o.friction + k] = bad ? NAN : stsl_mb_contact_friction(m, p, k, &fm, y, w);
        c[o.slip + k] = w;
        c[o.cmode + k] = st;
    }
    for (int k = 0; k < m->ns; k++) {
        int st = p ? p->vec[m->nc + k] : 0;
        double r = is_rigid(m, k) ? (st == STSL_SM_OPEN ? 0.0 : stsl_mb_stop_press(m, p, k))
                                  : stsl_mb_compliant_force(m, k, st, rel_x(m, &fm, y, m->snode[k]),
                                                            rel_v(m, &fm, y, m->snode[k]));
        c[o.reaction + k] = bad ? NAN : r;
        c[o.smode + k] = st;
    }
    c[o.xb] = fm.x[1];
    c[o.vb] = fm.v[1];
    absolute_columns(m, t, o, c);
}

/* The rate of (input work - dissipation): the forces' power on the bodies,
 * the power the moving ends (base, anchor) put in through everything that
 * joins a body to them (springs, dampers, friction, constraints), minus
 * what friction (slipping contacts) and dampers dissipate.  Its integral
 * equals the change of kinetic and spring energy (SPEC §4 energy balance)
 * over a run without impacts and compliant stops (an impact's loss is a
 * jump, a compliant stop stores and dissipates on its own). */
static double mb_power(void *self, stsl_mode_code mode, double t, const double *y)
{
    stsl_multibody *m = self;
    const prepared *p = stsl_mb_prepare(m, mode);
    const stsl_system *s = m->s;
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    if (!p || stsl_mb_solve(m, p, &fm, t, y, NULL, NULL)) return NAN;
    int left = t > m->t_seg;
    double pw = 0.0;
    for (int k = 0; k < s->n_forces; k++)
        pw += stsl_signal_value(m->force_sig[k], t, left) * y[m->nb + s->forces[k].on.body];
    /* A pair force f on ends[0] (-f on ends[1]) puts f v_1 in through a
     * fixed ends[1]; its internal power f w is -(dissipation) or -(spring
     * energy rate), the latter left to the energy's change. */
    for (int k = 0; k < s->n_couplings; k++) {
        const stsl_coupling *cp = &s->couplings[k];
        const int *pr = m->knode[k];
        double w = rel_v(m, &fm, y, pr);
        double f = -cp->stiffness * (rel_x(m, &fm, y, pr) - cp->free_length) - cp->damping * w;
        if (pr[1] >= m->nb) pw += f * fm.v[pr[1] - m->nb];
        pw -= cp->damping * w * w;
    }
    for (int c = 0; c < m->nc; c++) {
        const int *pr = m->cnode[c];
        double w = rel_v(m, &fm, y, pr);
        double load = contact_load(m, c, &fm);
        double f = p->vec[c] == STSL_CONTACT_STUCK ? contact_lambda(m, p, c, &fm)
                   : m->zidx[c] >= 0               ? lugre_force(m, c, w, y)
                                                   : stsl_mb_slip_force(m, c, p->vec[c], w, load);
        pw += load * y[m->nb + pr[0]]; /* the load's power on its body */
        if (pr[1] >= m->nb) pw += f * fm.v[pr[1] - m->nb];
        pw += f * w; /* friction against the slip: f w <= 0 */
    }
    for (int k = 0; k < m->ns; k++)
        if (p->stop_edge[k] >= 0 && m->snode[k][1] >= m->nb)
            pw += stop_lambda(m, p, k) * fm.v[m->snode[k][1] - m->nb];
    return pw;
}

/* The power in absolute terms (the energy balance is absolute): in the
 * base's frame, of the absolute state, evaluated as without the frame. */
double stsl_mb_power_abs(void *self, stsl_mode_code mode, double t, const double *y)
{
    stsl_multibody *m = self;
    if (!m->frame) return mb_power(self, mode, t, y);
    double b[3];
    base_now(m, t, b);
    memcpy(m->yabs, y, (size_t)m->n * sizeof *y);
    for (int i = 0; i < m->nb; i++) {
        m->yabs[i] += b[0];
        m->yabs[m->nb + i] += b[1];
    }
    m->frame = 0;
    double pw = mb_power(self, mode, t, m->yabs);
    m->frame = 1;
    return pw;
}

/* "contacts.0 STUCK, clutch SLIP_POS, stops.0 OPEN" (as much as fits; the
 * contacts' and stops' names as in the columns). */
void stsl_mb_mode_name(void *self, stsl_mode_code mode, char *buf, size_t len)
{
    const stsl_multibody *m = self;
    const uint8_t *v = mode_vec(m, mode);
    if (!v) {
        snprintf(buf, len, "%" PRId64, mode);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->L && used < len; i++) {
        int stop = i >= m->nc;
        int w = snprintf(buf + used, len - used, "%s%s %s", i ? ", " : "", m->members[m->nb + i],
                         stop ? stop_mode_names[v[i]] : stsl_contact_state_names()[v[i]]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (m->L == 0) snprintf(buf, len, "free");
}

/* ---- layout --------------------------------------------------------------------- */

typedef struct unit_set {
    const char *x, *v, *a, *f;
} unit_set;

static unit_set units_of(stsl_domain d)
{
    if (d == STSL_DOMAIN_ROTATIONAL) return (unit_set){"rad", "rad/s", "rad/s^2", "N·m"};
    return (unit_set){"m", "m/s", "m/s^2", "N"};
}

/* A column's flat name "<group>[<member>]" (x[motor]), as the readers
 * (stsl_result, the Python package) name a grouped column: a run's summary
 * and a file read back then agree. */
static char *put_name(char *at, const char *group, const char *member)
{
    sprintf(at, "%s[%s]", group, member);
    return at;
}

/* The column groups of mb-interfaces.md §3 (empty ones left out) and the
 * event subjects: contacts, then stops. */
static void init_groups(stsl_multibody *m, col_offsets o, unit_set u)
{
    const char *const *bodies = m->members, *const *contacts = m->members + m->nb;
    const char *const *stops = contacts + m->nc;
    stsl_col_group all[8] = {
        {"x", u.x, "position", o.x, m->nb, bodies, 0, 0, NULL},
        {"v", u.v, "velocity", o.v, m->nb, bodies, 0, 0, NULL},
        {"a", u.a, "acceleration", o.a, m->nb, bodies, 0, 0, NULL},
        {"friction", u.f, "friction force on the contact's first end", o.friction, m->nc, contacts,
         0, 0, NULL},
        {"slip_velocity", u.v, "slip velocity", o.slip, m->nc, contacts, 0, 0, NULL},
        {"contact_mode", "", "contact mode", o.cmode, m->nc, contacts, 1, 4,
         stsl_contact_state_names()},
        {"stop_reaction", u.f, "stop reaction on the first end", o.reaction, m->ns, stops, 0, 0,
         NULL},
        {"stop_mode", "", "stop mode", o.smode, m->ns, stops, 1, 3, stop_mode_names}};
    int n = 0;
    for (int g = 0; g < 8; g++)
        if (all[g].width > 0) m->groups[n++] = all[g];
    m->layout.n_groups = n;
    m->layout.groups = m->groups;
    m->layout.n_subjects = m->nc + m->ns;
    m->layout.subject_names = contacts;
}

int stsl_mb_init_layout(stsl_multibody *m)
{
    const stsl_system *s = m->s;
    col_offsets o = offsets(m);
    unit_set u = units_of(s->domain);
    size_t per = 2 * (STSL_BODY_NAME_MAX + 32);
    m->cols = calloc((size_t)o.n, sizeof *m->cols);
    m->col_state = calloc((size_t)o.n, sizeof *m->col_state);
    /* one slot per column, one per contact or stop name and one per
     * bristle state */
    m->names = calloc((size_t)(o.n + m->nc + m->ns + m->n - 2 * m->nb), per);
    m->state_names = calloc((size_t)m->n, sizeof *m->state_names);
    m->members = calloc((size_t)(m->nb + m->nc + m->ns + 1), sizeof *m->members);
    if (!m->cols || !m->col_state || !m->names || !m->state_names || !m->members) return -1;
    for (int c = 0; c < o.n; c++)
        m->col_state[c] = -1;
    char *at = m->names, *member_at = m->names + (size_t)o.n * per;
    char member[STSL_BODY_NAME_MAX + 32];
    for (int i = 0; i < m->nb; i++)
        m->members[i] = s->bodies[i].name;
    for (int k = 0; k < m->nc + m->ns; k++) { /* contacts, then stops */
        stsl_system_member_name(s, k, member, sizeof member);
        m->members[m->nb + k] = strcpy(member_at, member);
        member_at += per;
        if (k < m->nc && m->zidx[k] >= 0) { /* the state's name only: no output column */
            m->state_names[m->zidx[k]] = put_name(member_at, "sigma0_z", member);
            member_at += per;
        }
    }
    m->cols[o.xb] = (stsl_column){"x_base", u.x, "base position"};
    m->cols[o.vb] = (stsl_column){"v_base", u.v, "base velocity"};
    m->layout = (stsl_layout){
        o.n, m->cols, "s", 0,   NULL, STSL_EV_AMBIGUOUS + 1, stsl_multibody_kind_names(),
        0,   NULL,    0,   NULL};
    init_groups(m, o, u);
    /* The grouped columns: "<group>[<member>]", the group's units and long name. */
    for (int g = 0; g < m->layout.n_groups; g++) {
        const stsl_col_group *cg = &m->groups[g];
        for (int j = 0; j < cg->width; j++, at += per)
            m->cols[cg->first + j] = (stsl_column){put_name(at, cg->name, cg->member_names[j]),
                                                   cg->units, cg->long_name};
    }
    for (int i = 0; i < m->nb; i++) {
        m->state_names[i] = m->cols[o.x + i].name;
        m->state_names[m->nb + i] = m->cols[o.v + i].name;
        m->col_state[o.x + i] = i; /* mb_outputs: x, v are y[i], y[nb + i] */
        m->col_state[o.v + i] = m->nb + i;
    }
    return 0;
}
