/* fixed_step_system.c - the fixed-step schemes on a system of bodies (see
 * fixed_step_system.h).
 *
 * One loop for systems and the element: the state (t_n, y_n) carries the
 * states of every contact and stop the scheme decided for it and the
 * forces there; a step advances it with those forces, puts the ends of a
 * passed stop on its limit, and lets the scheme decide the contacts and
 * stops at the new state.  The Euler schemes are semi-implicit Euler,
 * first order (see run/fixed_step.c); on one body the decisions are the
 * element's.  The element's configuration runs here as its one-body system
 * through the one-body view (models/one_body.h), which supplies the
 * element's net force where the decisions and the free body's acceleration
 * need it, so that it steps bit for bit as the element's own loop did.
 *
 * The view's body while no stop is closed (r->one) is the common case and
 * the cost of `converge`: there the body is held by its contact's fixed
 * end exactly while the contact is stuck, so root(), euler(),
 * karnopp_classify() and release_one() take it alone, without cluster
 * labels, loops over members or the furthest-first order, through the same
 * decisions (karnopp_state, band_release, the contact module's). */
#include "run/fixed_step_system.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "physics/contact.h"
#include "physics/end_stop.h"
#include "physics/modes.h"
#include "physics/friction.h"
#include "models/multibody.h"
#include "physics/smooth_friction.h"
#include "solver/arrays.h"

#define N_FIXED 3
#define N_VIEW  3 /* the most state values of a view (x, v, LuGre's z) */

typedef struct pending {
    int kind, subject;
} pending;

typedef struct srun {
    const stsl_system *s;
    stsl_multibody *m;
    const stsl_hmodel *model;
    const stsl_scheme_opts *sch;
    int kind;                  /* sch->kind, and */
    double band;               /* sch->karnopp_band: read every step (sch is const) */
    const stsl_one_body *view; /* NULL: the system's own */
    const stsl_layout *layout; /* what is recorded: the view's or the engine's */
    stsl_sink *sink;
    int regular; /* smooth_rk4 with hybrid laws regularised */
    int out, nb, nc, ns, n, L, n_cols;
    int col_a, col_friction; /* first column of the groups a and friction (-1: none) */
    int (*cnode)[2], (*snode)[2];
    double t, *y, *y0, *yraw, *ytmp, *k[4];
    double fx[N_FIXED], fv[N_FIXED], fa[N_FIXED]; /* the fixed ends at time mt */
    double mt;                                    /* the time of fx, fv, fa (NAN: none yet) */
    int moving; /* a contact or stop has a fixed end that moves (else fx, fv, fa are fixed) */
    /* through a view: its body's forces at the last evaluation; r->f's
     * friction levels point into it (alloc_run), so they need no copy */
    stsl_one_body_forces b;
    uint8_t *vec, *prev, *vtry;
    stsl_multibody_forces f; /* at (t, y, vec) */
    double *facc, *fzr, *fw, *ffr, *fdp, *fsp, *fdn, *fsn, *fsx, *fsw, *fsp_pull;
    double *dforce; /* regularised friction less the engine's, per body */
    int *label, *closed_before, *impacted;
    /* per contact, in a step where a stop was passed (n_ev): whether the
     * impact's velocity jump set its state */
    int *jumped;
    long gen;  /* counts the changes of vec (set_state) */
    long gen0; /* gen at the start of the step */
    long cgen; /* label is of vec at change cgen, with cskip, cstuck (-1: none) */
    int cskip, cstuck;
    int joined, shared;              /* label: a body held by another node; a cluster of bodies */
    int vmode;                       /* through a view: the recorded mode of vec */
    int changed;                     /* vec differs from prev (after a step) */
    int one;                         /* a view's body, no stop closed or passed (see root()) */
    int hold;                        /* through a view: the fixed node of its contact */
    int body_first;                  /* and its body is its contact's first end */
    int regular0;                    /* smooth_rk4 regularises contact 0 (a hybrid law) */
    const stsl_friction_params *fp0; /* through a view: its contact's law */
    double m0;                       /* and its body's mass */
    double *cm, *cp;                 /* per cluster: mass, momentum */
    int n_ev;
    pending *ev;
    double *cols_a, *cols_b;
    stsl_stats st;
} srun;

/* dst = src, a state: element by element, which for the few values of
 * a small system costs less than a call of memcpy (every step copies). */
static void copy_state(const srun *r, double *dst, const double *src)
{
    if (r->view) { /* x, v (and z): arrays of N_VIEW (alloc_run), a fixed count */
        dst[0] = src[0], dst[1] = src[1], dst[2] = src[2];
        return;
    }
    for (int i = 0; i < r->n; i++)
        dst[i] = src[i];
}

/* vec[i] = state, counted when it changes (clusters() keeps its labels
 * while vec does not); the first change in a step keeps vec as it was at
 * the step's start in prev (most steps change nothing: no copy). */
static inline void set_state(srun *r, int i, int state)
{
    if (r->vec[i] == state) return;
    if (r->gen == r->gen0) memcpy(r->prev, r->vec, (size_t)r->L);
    r->gen++;
    r->vec[i] = (uint8_t)state;
}

/* The states at the step's start (after a step). */
static const uint8_t *prev_states(const srun *r)
{
    return r->gen != r->gen0 ? r->prev : r->vec;
}

static int node_of(const stsl_system *s, stsl_end e)
{
    return e.kind == STSL_END_BODY ? e.body : s->n_bodies + (int)e.kind - 1;
}

static double node_v(const srun *r, const double *y, int node)
{
    return node < r->nb ? y[r->nb + node] : r->fv[node - r->nb];
}

static double node_x(const srun *r, const double *y, int node)
{
    return node < r->nb ? y[node] : r->fx[node - r->nb];
}

/* The fixed ends' motion at t (what relative velocities and the
 * projections use): evaluated once per time, and never when no contact or
 * stop has a moving fixed end (then it was evaluated once at the start). */
static void motion(srun *r, double t)
{
    if (!r->moving || r->mt == t) return;
    stsl_multibody_fixed_motion(r->m, t, r->fx, r->fv, r->fa);
    r->mt = t;
}

static double pair_w(const srun *r, const double *y, const int *pair)
{
    return node_v(r, y, pair[0]) - node_v(r, y, pair[1]);
}

static int is_hybrid(const srun *r, int c)
{
    return !stsl_law_is_smooth(r->s->contacts[c].friction.law);
}

static int same_pair(const int *a, const int *b)
{
    return (a[0] == b[0] && a[1] == b[1]) || (a[0] == b[1] && a[1] == b[0]);
}

/* Contact c held by a closed rigid stop on the same two ends (the
 * element's STOP_* modes: the stop's decisions are its). */
static int held(const srun *r, const uint8_t *v, int c)
{
    for (int k = 0; k < r->ns; k++)
        if (v[r->nc + k] != STSL_SM_OPEN && same_pair(r->snode[k], r->cnode[c])) return 1;
    return 0;
}

static void label_clusters(srun *r, const uint8_t *v, int skip, int stuck);
static void eval_view(srun *r, double t, const double *y, const uint8_t *v);

/* The engine's forces of mode vector v at (t, y) into r->f; through a
 * view, its body's (eval_view). */
static int eval(srun *r, double t, const double *y, const uint8_t *v, stsl_error *err)
{
    if (r->view) {
        eval_view(r, t, y, v);
        return STSL_OK;
    }
    r->st.rhs_evals++;
    int rc = stsl_multibody_eval_forces(r->m, v, t, y, &r->f);
    if (rc > 0)
        return stsl_error_set(err, STSL_ESOLVER,
                              "scheme %s: at t = %.17g s the constraints conflict (two moving "
                              "ends held together)",
                              stsl_scheme_name(r->kind), t);
    if (rc)
        return stsl_error_set(err, STSL_ENOMEM, "scheme %s: out of memory at t = %.17g s",
                              stsl_scheme_name(r->kind), t);
    return STSL_OK;
}

/* ---- clusters: what moves as one ------------------------------------------------ */

static int find(int *label, int i)
{
    while (label[i] != i)
        i = label[i] = label[label[i]];
    return i;
}

static void join(int *label, int a, int b)
{
    a = find(label, a), b = find(label, b);
    if (a == b) return;
    if (a < b) /* a fixed end (the largest nodes) is the root of its cluster */
        label[a] = b;
    else
        label[b] = a;
}

/* Label the clusters of v's closed rigid stops (but `skip`), and of its
 * stuck contacts when `stuck`: label[i] is the root node of body i's
 * cluster (a fixed end when one holds it). */
static inline void clusters(srun *r, const uint8_t *v, int skip, int stuck)
{
    if (v == r->vec && r->cgen == r->gen && r->cskip == skip && r->cstuck == stuck)
        return; /* the labels of the same vector (most steps change no state) */
    label_clusters(r, v, skip, stuck);
}

static void label_clusters(srun *r, const uint8_t *v, int skip, int stuck)
{
    int nn = r->nb + N_FIXED;
    r->cgen = v == r->vec ? r->gen : -1;
    r->cskip = skip, r->cstuck = stuck;
    for (int i = 0; i < nn; i++)
        r->label[i] = i;
    for (int k = 0; k < r->ns; k++)
        if (k != skip && v[r->nc + k] != STSL_SM_OPEN)
            join(r->label, r->snode[k][0], r->snode[k][1]);
    for (int c = 0; stuck && c < r->nc; c++)
        if (v[c] == STSL_CONTACT_STUCK) join(r->label, r->cnode[c][0], r->cnode[c][1]);
    for (int i = 0; i < nn; i++)
        r->label[i] = find(r->label, i);
    r->joined = r->shared = 0;
    for (int i = 0; i < r->nb; i++) {
        r->joined |= r->label[i] != i;
        r->shared |= r->label[i] != i && r->label[i] < r->nb;
    }
}

/* The root of body i's cluster under v (closed stops and stuck contacts):
 * through a view with no stop closed (r->one) the contact's fixed end
 * while it is stuck, else the body itself, without labelling. */
static inline int root(srun *r, const uint8_t *v, int i)
{
    if (r->one) return v[0] == STSL_CONTACT_STUCK ? r->hold : i;
    clusters(r, v, -1, 1);
    return r->label[i];
}

/* Bodies held together by v move as one: the velocity of the fixed end
 * that holds their cluster, else their momentum-conserving mean. */
static inline void project(srun *r, const uint8_t *v, double *y)
{
    int nn = r->nb + N_FIXED;
    if (r->one) { /* one body: held by the contact's fixed end, or free */
        int l = root(r, v, 0);
        if (l >= r->nb) y[r->nb] = r->fv[l - r->nb];
        return;
    }
    clusters(r, v, -1, 1);
    if (!r->joined) return; /* every body on its own */
    for (int i = 0; r->shared && i < nn; i++)
        r->cm[i] = r->cp[i] = 0.0;
    for (int i = 0; r->shared && i < r->nb; i++) {
        r->cm[r->label[i]] += r->s->bodies[i].mass;
        r->cp[r->label[i]] += r->s->bodies[i].mass * y[r->nb + i];
    }
    for (int i = 0; i < r->nb; i++) {
        int l = r->label[i];
        if (l >= r->nb)
            y[r->nb + i] = r->fv[l - r->nb];
        else if (r->shared && r->cm[l] > r->s->bodies[i].mass)
            y[r->nb + i] = r->cp[l] / r->cm[l];
    }
}

/* Mass of the cluster rooted at l (INFINITY when a fixed end holds it). */
static double cluster_mass(const srun *r, int l)
{
    if (l >= r->nb) return INFINITY;
    double sum = 0.0;
    for (int i = 0; i < r->nb; i++)
        if (r->label[i] == l) sum += r->s->bodies[i].mass;
    return sum;
}

static void shift(srun *r, int l, double dx, double dv, double *y)
{
    for (int i = 0; i < r->nb; i++)
        if (r->label[i] == l) y[i] += dx, y[r->nb + i] += dv;
}

/* Change pair's relative position and velocity by dx, dw, momentum
 * conserved between the clusters of its ends (the engine's pair_jump). */
static void pair_jump(srun *r, const int *pair, double dx, double dw, double *y)
{
    int li = r->label[pair[0]], lj = r->label[pair[1]];
    double mi = cluster_mass(r, li), mj = cluster_mass(r, lj);
    if (li == lj || (isinf(mi) && isinf(mj))) return;
    double fi = stsl_impact_share(mi, mj);
    shift(r, li, fi * dx, fi * dw, y);
    shift(r, lj, -(1.0 - fi) * dx, -(1.0 - fi) * dw, y);
}

/* The velocity change of `node` when pair's relative velocity jumps by dw
 * (pair_jump's, with the clusters in r->label). */
static double jump_dv(const srun *r, const int *pair, double dw, int node)
{
    if (node >= r->nb) return 0.0; /* a fixed end */
    int li = r->label[pair[0]], lj = r->label[pair[1]];
    double mi = cluster_mass(r, li), mj = cluster_mass(r, lj);
    if (li == lj || (isinf(mi) && isinf(mj))) return 0.0;
    double fi = stsl_impact_share(mi, mj);
    return r->label[node] == li ? fi * dw : r->label[node] == lj ? -(1.0 - fi) * dw : 0.0;
}

/* A closed rigid stop only pushes (the engine's open_parting_stops):
 * before stop k's impact (a jump dw of its ends' relative velocity), every
 * other closed stop whose ends the jump would part were it open lets go,
 * until none does.  Each is tried open on r->vec itself (labels made
 * afresh), then put back or let go through set_state. */
static void open_parting_stops(srun *r, int k, double dw)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int j = 0; j < r->ns; j++) {
            int st = r->vec[r->nc + j];
            if (j == k || st == STSL_SM_OPEN) continue;
            r->vec[r->nc + j] = STSL_SM_OPEN;
            label_clusters(r, r->vec, k, 0);
            double dwj = jump_dv(r, r->snode[k], dw, r->snode[j][0]) -
                         jump_dv(r, r->snode[k], dw, r->snode[j][1]);
            r->vec[r->nc + j] = (uint8_t)st;
            if (st == STSL_SM_HIGH ? dwj < 0.0 : dwj > 0.0) {
                set_state(r, r->nc + j, STSL_SM_OPEN);
                changed = 1;
            }
        }
    }
    label_clusters(r, r->vec, k, 0);
}

/* ---- a view's one body --------------------------------------------------------------- */

/* smooth_rk4 on a hybrid law: F(sign w, |w|) tanh(w / v_reg) on ends[0],
 * continuous through w = 0 (the element's regular_friction). */
static double regular_friction(const srun *r, int c, double w)
{
    if (w == 0.0) return 0.0;
    const stsl_friction_params *fp = &r->s->contacts[c].friction;
    int s = w > 0.0 ? +1 : -1;
    double fd = s > 0 ? r->f.fd_pos[c] : r->f.fd_neg[c],
           fs = s > 0 ? r->f.fs_pos[c] : r->f.fs_neg[c];
    return -stsl_friction_slip(fp, fd, fs, fabs(w)) * tanh(w / r->sch->regularisation_velocity);
}

/* The forces of mode vector v at (t, y) on a view's one body, the engine's
 * rules without its constraint solve (one body has none to solve): a body
 * held by a fixed end (its stuck contact or closed stop) accelerates with
 * it and friction holds the rest; a free one by (F_n + friction) / m with
 * the view's F_n and the engine's friction of the contact's state (LuGre's
 * bristles, a smooth law's steady curve, a hybrid one's regularised curve
 * (regularise() in one), or the slip level opposing w). */
/* A view's contact's relative velocity: pair_w's without looking its ends
 * up (its body is node 0, the other end the fixed node r->hold). */
static inline double view_w(const srun *r, const double *y)
{
    double fv = r->fv[r->hold - 1];
    return r->body_first ? y[1] - fv : fv - y[1];
}

static inline void eval_view(srun *r, double t, const double *y, const uint8_t *v)
{
    const stsl_friction_params *fp = r->fp0;
    stsl_one_body_forces *bp = &r->b; /* r->f.fd_pos[0] is b.fd_pos, and so on */
    stsl_one_body_eval_forces(r->view, t, y, bp);
    const stsl_one_body_forces b = *bp;
    double w = view_w(r, y), m = r->m0, ff;
    int l = root(r, v, 0);
    for (int i = 2; i < r->n; i++)
        r->f.zrate[i] = 0.0;
    if (v[0] == STSL_CONTACT_SMOOTH && r->regular0) {
        ff = regular_friction(r, 0, w);
    } else if (fp->law == STSL_LAW_LUGRE) {
        double z = y[2] / fp->sigma0;
        ff = -stsl_lugre_force(fp, w, z);
        r->f.zrate[2] = fp->sigma0 * stsl_lugre_zdot(fp, w, z);
    } else if (v[0] == STSL_CONTACT_SMOOTH) {
        ff = -stsl_friction_steady(fp, b.load, w);
    } else if (v[0] != STSL_CONTACT_STUCK) {
        int s = v[0] == STSL_CONTACT_SLIP_POS ? +1 : -1;
        ff = -s * stsl_friction_slip(fp, s > 0 ? b.fd_pos : b.fd_neg, s > 0 ? b.fs_pos : b.fs_neg,
                                     fabs(w));
    } else {
        ff = (l >= r->nb ? m * r->fa[l - r->nb] : 0.0) - b.fn;
    }
    r->f.acc[0] = l >= r->nb ? r->fa[l - r->nb] : (b.fn + ff) / m;
    r->f.friction[0] = ff;
    r->f.w[0] = w;
}

/* ---- the smooth scheme's right-hand side ------------------------------------------- */

/* The accelerations of r->f with every hybrid contact's friction replaced
 * by the regularised one: the difference, a force on each contact's ends,
 * accelerates the cluster it acts on (the constraint solve is linear in
 * the applied forces and gives every body of a cluster one acceleration);
 * a cluster held by a fixed end takes none of it.  Through a view (one
 * body, one contact) the body's acceleration is (F_n - f_reg) / m from the
 * view's net force, the element's arithmetic. */
static void regularise(srun *r, const uint8_t *v)
{
    int nn = r->nb + N_FIXED;
    for (int i = 0; i < nn; i++)
        r->dforce[i] = 0.0;
    for (int c = 0; c < r->nc; c++) {
        if (!is_hybrid(r, c)) continue;
        double d = regular_friction(r, c, r->f.w[c]) - r->f.friction[c];
        r->f.friction[c] += d;
        r->dforce[r->cnode[c][0]] += d;
        r->dforce[r->cnode[c][1]] -= d;
    }
    clusters(r, v, -1, 0);
    for (int i = 0; i < nn; i++)
        r->cm[i] = r->cp[i] = 0.0;
    for (int i = 0; i < r->nb; i++) {
        r->cm[r->label[i]] += r->s->bodies[i].mass;
        r->cp[r->label[i]] += r->dforce[i];
    }
    for (int i = 0; i < r->nb; i++)
        if (r->label[i] < r->nb) r->f.acc[i] += r->cp[r->label[i]] / r->cm[r->label[i]];
}

static int rk4_deriv(srun *r, double t, const double *y, double *yd, stsl_error *err)
{
    if (r->view) { /* one body: its eval, inline here, regularised it */
        eval_view(r, t, y, r->vec);
        yd[0] = y[1], yd[1] = r->f.acc[0];
        for (int i = 2; i < r->n; i++)
            yd[i] = r->f.zrate[i];
        return STSL_OK;
    }
    int rc = eval(r, t, y, r->vec, err);
    if (rc) return rc;
    if (r->sch->regularisation_velocity > 0.0) regularise(r, r->vec);
    for (int i = 0; i < r->nb; i++)
        yd[i] = y[r->nb + i], yd[r->nb + i] = r->f.acc[i];
    for (int i = 2 * r->nb; i < r->n; i++)
        yd[i] = r->f.zrate[i];
    return STSL_OK;
}

/* ---- events ------------------------------------------------------------------------ */

static void push(srun *r, int kind, int subject)
{
    if (kind != STSL_NO_EVENT && r->n_ev < r->nc + 2 * r->ns + 1)
        r->ev[r->n_ev++] = (pending){kind, subject};
}

/* The events of the change r->prev -> r->vec: one per contact (STICK,
 * BREAKAWAY, REVERSAL; a contact held by a stop has the stop's events,
 * one parallel to a stop hit in this step the impact's) and per stop
 * whose state changed (impacts pushed their own).  A contact whose state
 * an impact's velocity jump set records none: its new slip direction is
 * the impact's consequence, recorded as the impact's event, as the engine
 * records it (its `jumped` contacts), whatever its state before the jump;
 * a breakaway or reversal there was an event the physics does not have.
 * A stick the scheme took in the same step is no exception: it is decided
 * by the velocity at the step point where the impact is, so at the
 * impact's instant (an exact run had the motor of servo_backlash.yaml hit
 * while it still slipped at 9e-4 rad/s: no stick). */
static void changes(srun *r)
{
    if (!r->changed) return; /* impacts() pushed their own events */
    for (int c = 0; c < r->nc; c++) {
        if (r->n_ev && r->jumped[c]) continue;
        int kind = stsl_contact_event(r->prev[c], r->vec[c]);
        int hold = held(r, r->prev, c) || held(r, r->vec, c);
        for (int k = 0; k < r->ns && !hold; k++)
            hold = r->impacted[k] && same_pair(r->snode[k], r->cnode[c]);
        if ((kind == STSL_EV_STICK || kind == STSL_EV_BREAKAWAY || kind == STSL_EV_REVERSAL) &&
            hold)
            continue;
        push(r, kind, 1 + c);
    }
    for (int k = 0; k < r->ns; k++) {
        int from = r->prev[r->nc + k], to = r->vec[r->nc + k];
        if (r->impacted[k] || from == to) continue;
        push(r, to == STSL_SM_OPEN ? STSL_EV_STOP_RELEASE : STSL_EV_STOP_CONTACT, 1 + r->nc + k);
    }
}

/* ---- stops ------------------------------------------------------------------------- */

/* The relative acceleration of stop k's ends at (t, y) with it open and
 * the contacts parallel to it slipping away from its limit `side` (the
 * element's a_in: what brings a slow rebound back). */
static int rel_acc_open(srun *r, int k, int side, double t, const double *y, double *a,
                        stsl_error *err)
{
    memcpy(r->vtry, r->vec, (size_t)r->L);
    r->vtry[r->nc + k] = STSL_SM_OPEN;
    for (int c = 0; c < r->nc; c++)
        if (is_hybrid(r, c) && r->kind != STSL_SCHEME_SMOOTH_RK4 &&
            same_pair(r->snode[k], r->cnode[c]))
            r->vtry[c] =
                (uint8_t)stsl_contact_slip_state(r->snode[k][0] == r->cnode[c][0] ? -side : side);
    int rc = eval(r, t, y, r->vtry, err);
    if (rc) return rc;
    if (r->kind == STSL_SCHEME_SMOOTH_RK4 && r->sch->regularisation_velocity > 0.0 &&
        !r->view) /* a view's eval regularised it */
        regularise(r, r->vtry);
    const int *p = r->snode[k];
    double a0 = p[0] < r->nb ? r->f.acc[p[0]] : r->fa[p[0] - r->nb];
    double a1 = p[1] < r->nb ? r->f.acc[p[1]] : r->fa[p[1] - r->nb];
    *a = a0 - a1;
    return STSL_OK;
}

/* Stops passed during the step (open, the relative position beyond a
 * limit): the ends are put on it and rebound with -e w (Newton), or rest
 * on it (closed) when e = 0, when the acceleration back would undo the
 * rebound within one step, or (karnopp) when it lies inside the band.
 * Contacts parallel to a stop that closes are held by it (stuck); to one
 * that rebounds, they slip away from it.  The fixed ends' motion is t1's. */
static int impacts(srun *r, double t1, double h, double *y, stsl_error *err);

/* impacts() where there are stops. */
static inline int stops_passed(srun *r, double t1, double h, double *y, stsl_error *err)
{
    return r->ns ? impacts(r, t1, h, y, err) : STSL_OK;
}

static int impacts(srun *r, double t1, double h, double *y, stsl_error *err)
{
    for (int k = 0; k < r->ns; k++) {
        r->impacted[k] = 0;
        if (r->vec[r->nc + k] != STSL_SM_OPEN) continue;
        const stsl_stop_params *sp = &r->s->stops[k].p;
        const int *p = r->snode[k];
        double xr = node_x(r, y, p[0]) - node_x(r, y, p[1]), w = pair_w(r, y, p);
        int side = xr > sp->x_max ? +1 : xr < sp->x_min ? -1 : 0, rc;
        if (!side) continue;
        double limit = side > 0 ? sp->x_max : sp->x_min;
        if (side * w > 0.0) open_parting_stops(r, k, -w);
        clusters(r, r->vec, k, 0);
        pair_jump(r, p, limit - xr, side * w > 0.0 ? -w : 0.0, y);
        double v_minus = side * w > 0.0 ? w : 0.0, v_plus = -sp->restitution * v_minus, a_in = 0.0;
        if (v_plus != 0.0 && (rc = rel_acc_open(r, k, side, t1, y, &a_in, err))) return rc;
        a_in *= side;
        double band = r->kind == STSL_SCHEME_KARNOPP ? r->sch->karnopp_band : 0.0;
        int rests = v_plus == 0.0 || fabs(v_plus) <= fmax(a_in, 0.0) * h || fabs(v_plus) < band;
        r->impacted[k] = 1;
        r->one = 0; /* a stop may close: the general decisions */
        if (rests) {
            set_state(r, r->nc + k, side > 0 ? STSL_SM_HIGH : STSL_SM_LOW);
            for (int c = 0; c < r->nc; c++)
                if (is_hybrid(r, c) && r->kind != STSL_SCHEME_SMOOTH_RK4 &&
                    same_pair(p, r->cnode[c]))
                    set_state(r, c, STSL_CONTACT_STUCK);
            push(r, STSL_EV_STOP_CONTACT, 1 + r->nc + k);
            continue;
        }
        clusters(r, r->vec, k, 0);
        pair_jump(r, p, 0.0, v_plus, y);
        for (int c = 0; c < r->nc; c++)
            if (is_hybrid(r, c) && r->kind != STSL_SCHEME_SMOOTH_RK4 && same_pair(p, r->cnode[c]))
                set_state(r, c, stsl_contact_slip_state(p[0] == r->cnode[c][0] ? -side : side));
        push(r, STSL_EV_IMPACT, 1 + r->nc + k);
    }
    return STSL_OK;
}

/* ---- decisions ------------------------------------------------------------------- */

/* Through a view, how hard the element's net force (at the last
 * evaluation) pulls its body off the stop it rests on beyond the static
 * level holding it there (the element's decision, its rounding;
 * smooth_rk4 holds nothing). */
static double view_stop_pull(srun *r, int k)
{
    double fn = r->b.fn;
    int smooth = r->kind == STSL_SCHEME_SMOOTH_RK4;
    if (r->vec[r->nc + k] == STSL_SM_HIGH)
        return stsl_contact_band_excess(fn, -1, smooth ? 0.0 : r->f.fs_neg[0]);
    return stsl_contact_band_excess(fn, +1, smooth ? 0.0 : r->f.fs_pos[0]);
}

/* How far stuck contact c's force fn lies beyond its static band (> 0:
 * it breaks away), and the way it would go: *dir = +1 above F_S+, -1 below
 * -F_S- (the larger excess; the upper one on a tie). */
static double band_release(const srun *r, int c, double fn, int *dir)
{
    double up = stsl_contact_band_excess(fn, +1, r->f.fs_pos[c]);
    double dn = stsl_contact_band_excess(fn, -1, r->f.fs_neg[c]);
    *dir = up >= dn || isnan(dn) ? +1 : -1;
    return *dir > 0 ? up : dn;
}

/* Anything release() judges: a stuck contact or a stop closed before the
 * step and still closed. */
static int holds(const srun *r)
{
    for (int c = 0; c < r->nc; c++)
        if (r->vec[c] == STSL_CONTACT_STUCK) return 1;
    for (int k = 0; k < r->ns; k++)
        if (r->closed_before[k] && r->vec[r->nc + k] != STSL_SM_OPEN) return 1;
    return 0;
}

/* Stuck contacts and closed stops at a step point, with the forces of
 * r->vec at (t, y) in r->f: the stuck contacts (not held by a stop) whose
 * constraint force lies beyond a static level, and the stops closed before
 * this step that pull harder than they and their stuck contacts hold, let
 * go, the furthest beyond first; the rest are judged again without it.  A
 * contact breaks away towards the force it held (the element's
 * decide_rest), a stop's contacts slip away from its limit.  Ends with
 * r->f at the final state; yraw is the state before the projection.
 * Through a view the forces are the element's where its scheme decided:
 * at the step point before the stuck velocity is set (a held body's
 * acceleration is its holder's either way); and smooth_rk4, which reads
 * no forces at a step point, evaluates none when nothing is held, as the
 * element's did not. */
static int release(srun *r, double t, double *y, const double *yraw, stsl_error *err)
{
    motion(r, t);
    for (;;) {
        copy_state(r, y, yraw);
        project(r, r->vec, y);
        if (r->view && r->kind == STSL_SCHEME_SMOOTH_RK4 && !holds(r)) return STSL_OK;
        int rc = eval(r, t, r->view ? yraw : y, r->vec, err);
        if (rc) return rc;
        double worst = 0.0;
        int which = -1, dir = 0;
        for (int c = 0; c < r->nc; c++) {
            if (r->vec[c] != STSL_CONTACT_STUCK || held(r, r->vec, c)) continue;
            int d;
            double ex = band_release(r, c, r->view ? r->b.fn : -r->f.friction[c], &d);
            if (ex > worst) worst = ex, which = c, dir = d;
        }
        for (int k = 0; k < r->ns; k++) {
            double pull = r->view ? view_stop_pull(r, k) : r->f.stop_pull[k];
            if (r->closed_before[k] && r->vec[r->nc + k] != STSL_SM_OPEN && pull > worst)
                worst = pull, which = r->nc + k;
        }
        if (which < 0) return STSL_OK;
        if (which < r->nc) {
            set_state(r, which, stsl_contact_slip_state(dir));
            continue;
        }
        int k = which - r->nc, away = r->vec[which] == STSL_SM_HIGH ? -1 : +1;
        set_state(r, which, STSL_SM_OPEN);
        for (int c = 0; c < r->nc; c++)
            if (r->vec[c] == STSL_CONTACT_STUCK && same_pair(r->snode[k], r->cnode[c]))
                set_state(r, c,
                          stsl_contact_slip_state(r->snode[k][0] == r->cnode[c][0] ? away : -away));
    }
}

/* release() of a view's body while no stop is closed (r->one): its
 * contact alone decides, so no cluster labels, no loops over contacts and
 * stops and no "furthest first" are needed; y equals yraw on entry. */
static inline int release_one(srun *r, double t, double *y, const double *yraw)
{
    motion(r, t);
    for (int dir;;) {
        if (r->vec[0] == STSL_CONTACT_STUCK) project(r, r->vec, y);
        if (r->kind == STSL_SCHEME_SMOOTH_RK4 && r->vec[0] != STSL_CONTACT_STUCK) return 0;
        eval_view(r, t, yraw, r->vec);
        if (r->vec[0] != STSL_CONTACT_STUCK || !(band_release(r, 0, r->b.fn, &dir) > 0.0)) return 0;
        set_state(r, 0, stsl_contact_slip_state(dir));
        copy_state(r, y, yraw);
    }
}

/* The decisions at a new step point (t, r->y), yraw before the
 * projection: release(), or release_one() when it can. */
static inline int decide(srun *r, double t, const double *yraw, stsl_error *err)
{
    if (r->one) return release_one(r, t, r->y, yraw);
    return release(r, t, r->y, yraw, err);
}

/* Karnopp's state of a contact at relative velocity w: a candidate to
 * stick inside the band |w| < dv, else slipping along w. */
static inline int karnopp_state(const srun *r, double w)
{
    return fabs(w) < r->band ? STSL_CONTACT_STUCK : stsl_contact_slip_state(w);
}

/* Karnopp's classification at the new state: a contact inside the band
 * |w| < dv is a candidate to stick (release() lets it go if its force is
 * beyond the static band), outside it slips along w. */
static inline void karnopp_classify(srun *r, const double *y)
{
    if (r->one) { /* its one contact, which no stop holds */
        set_state(r, 0, karnopp_state(r, view_w(r, y)));
        return;
    }
    for (int c = 0; c < r->nc; c++) {
        if (!r->one && held(r, r->vec, c)) continue; /* r->one: no stop holds */
        set_state(r, c, karnopp_state(r, pair_w(r, y, r->cnode[c])));
    }
}

/* ---- the schemes' steps -------------------------------------------------------------- */

/* Semi-implicit Euler from (t0, y0) to (t1 = t0 + h, y) with the forces
 * in r->f (y0 may be y); a body held by a fixed end (through stuck
 * contacts and closed stops) keeps its position relative to that end
 * exactly and takes its velocity, as the element's stuck state keeps
 * x - x_base. */
static inline void euler(srun *r, double t0, double h, const double *y0, double *y)
{
    double x0[N_FIXED];
    if (r->one) { /* one body: held by its contact's fixed end f while stuck */
        int f = r->hold - 1;
        motion(r, t0);
        x0[f] = r->fx[f];
        motion(r, t0 + h);
        if (r->vec[0] == STSL_CONTACT_STUCK)
            y[0] = y0[0] + (r->fx[f] - x0[f]), y[1] = r->fv[f];
        else
            y[1] = y0[1] + h * r->f.acc[0], y[0] = y0[0] + h * y[1];
        for (int i = 2; i < r->n; i++)
            y[i] = y0[i];
        return;
    }
    motion(r, t0);
    memcpy(x0, r->fx, sizeof x0);
    motion(r, t0 + h);
    for (int i = 0; i < r->nb; i++) {
        int l = root(r, r->vec, i);
        if (l >= r->nb) {
            y[i] = y0[i] + (r->fx[l - r->nb] - x0[l - r->nb]);
            y[r->nb + i] = r->fv[l - r->nb];
            continue;
        }
        y[r->nb + i] = y0[r->nb + i] + h * r->f.acc[i];
        y[i] = y0[i] + h * y[r->nb + i];
    }
    for (int i = 2 * r->nb; i < r->n; i++)
        y[i] = y0[i];
}

/* The state the decisions see after impacts() at a new step point: y
 * itself in a copy when an impact moved it, else yraw (equal to it). */
static const double *after_impacts(srun *r)
{
    if (!r->n_ev) return r->yraw;
    copy_state(r, r->ytmp, r->y);
    return r->ytmp;
}

static int karnopp_step(srun *r, double t0, double t1, double h, stsl_error *err)
{
    euler(r, t0, h, r->y, r->y);
    copy_state(r, r->yraw, r->y);
    int rc = stops_passed(r, t1, h, r->y, err);
    if (rc) return rc;
    const double *y1 = after_impacts(r);
    /* A class a contact has only by an impact's velocity jump (another
     * than at yraw, before it) is the impact's consequence (changes()). */
    for (int c = 0; r->n_ev && !r->view && c < r->nc; c++)
        r->jumped[c] = !held(r, r->vec, c) && karnopp_state(r, pair_w(r, r->yraw, r->cnode[c])) !=
                                                  karnopp_state(r, pair_w(r, y1, r->cnode[c]));
    karnopp_classify(r, y1);
    return decide(r, t1, y1, err);
}

/* Dalla Vedova's conditions per contact: a slipping contact whose relative
 * velocity would change sign over the step stops: it is stuck from the
 * step's start and the step is taken again (for one body: it stays where
 * it was, at rest, as the element's scheme puts it), until no slipping
 * contact turns.  Then the stuck ones are judged at the new step point. */
static int hybrid_step(srun *r, double t0, double t1, double h, stsl_error *err)
{
    double *start = r->y; /* the step's start: y0, the new state into y */
    r->y = r->y0, r->y0 = start;
    for (int turned = 1, rc; turned;) {
        euler(r, t0, h, r->y0, r->y);
        turned = 0;
        for (int c = 0; c < r->nc; c++) {
            int st = r->vec[c];
            if ((st != STSL_CONTACT_SLIP_POS && st != STSL_CONTACT_SLIP_NEG) ||
                (!r->one && held(r, r->vec, c)))
                continue;
            double s = st == STSL_CONTACT_SLIP_POS ? 1.0 : -1.0;
            double w = r->one ? view_w(r, r->y) : pair_w(r, r->y, r->cnode[c]); /* the same */
            if (s * w > 0.0) continue;
            set_state(r, c, STSL_CONTACT_STUCK);
            turned = 1;
        }
        if (!turned) break;
        motion(r, t0);
        project(r, r->vec, r->y0);
        if ((rc = eval(r, t0, r->y0, r->vec, err))) return rc;
        motion(r, t1);
    }
    copy_state(r, r->yraw, r->y);
    int rc = stops_passed(r, t1, h, r->y, err);
    if (rc) return rc;
    /* A contact moved by an impact slips along its new velocity: a stuck
     * one, and a slipping one whose velocity the jump reversed (as the
     * engine's kicked contacts).  Left slipping the old way, the next step
     * saw it "turn" and stuck it, merging its bodies' momenta: an impulse
     * through finite friction (a block riding on a body that bounced off
     * a stop was carried up with it). */
    for (int c = 0; r->n_ev && c < r->nc; c++) {
        int st = r->vec[c];
        r->jumped[c] = 0;
        if ((st != STSL_CONTACT_STUCK && st != STSL_CONTACT_SLIP_POS &&
             st != STSL_CONTACT_SLIP_NEG) ||
            held(r, r->vec, c))
            continue;
        double w = pair_w(r, r->y, r->cnode[c]);
        if (st == STSL_CONTACT_STUCK ? w != 0.0 : (st == STSL_CONTACT_SLIP_POS) != (w > 0.0))
            if (w != 0.0) r->jumped[c] = 1, set_state(r, c, stsl_contact_slip_state(w));
    }
    return decide(r, t1, after_impacts(r), err);
}

static int rk4_step(srun *r, double t0, double h, stsl_error *err)
{
    int n = r->n, rc;
    double *y = r->y, *tmp = r->ytmp, **k = r->k;
    if ((rc = rk4_deriv(r, t0, y, k[0], err))) return rc;
    for (int i = 0; i < n; i++)
        tmp[i] = y[i] + 0.5 * h * k[0][i];
    if ((rc = rk4_deriv(r, t0 + 0.5 * h, tmp, k[1], err))) return rc;
    for (int i = 0; i < n; i++)
        tmp[i] = y[i] + 0.5 * h * k[1][i];
    if ((rc = rk4_deriv(r, t0 + 0.5 * h, tmp, k[2], err))) return rc;
    for (int i = 0; i < n; i++)
        tmp[i] = y[i] + h * k[2][i];
    if ((rc = rk4_deriv(r, t0 + h, tmp, k[3], err))) return rc;
    for (int i = 0; i < n; i++)
        y[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
    copy_state(r, r->yraw, y);
    motion(r, t0 + h);
    if ((rc = stops_passed(r, t0 + h, h, y, err))) return rc;
    return decide(r, t0 + h, after_impacts(r), err);
}

/* The states of the initial state by the scheme's own decisions: stops at
 * their limit at rest closed (and released if pulled off), contacts as the
 * scheme classifies a new step point (fixed_step_hybrid: moving ones slip,
 * the others are candidates to stick), smooth_rk4 all SMOOTH. */
static int initial_states(srun *r, stsl_error *err)
{
    for (int c = 0; c < r->nc; c++)
        set_state(r, c,
                  r->kind == STSL_SCHEME_SMOOTH_RK4 ? STSL_CONTACT_SMOOTH : STSL_CONTACT_STUCK);
    for (int k = 0; k < r->ns; k++)
        set_state(r, r->nc + k, STSL_SM_OPEN);
    motion(r, 0.0);
    for (int k = 0; k < r->ns; k++) {
        const stsl_stop_params *sp = &r->s->stops[k].p;
        const int *p = r->snode[k];
        double xr = node_x(r, r->y, p[0]) - node_x(r, r->y, p[1]);
        int side = xr >= sp->x_max ? +1 : xr <= sp->x_min ? -1 : 0;
        r->closed_before[k] = side && pair_w(r, r->y, p) == 0.0;
        if (r->closed_before[k]) set_state(r, r->nc + k, side > 0 ? STSL_SM_HIGH : STSL_SM_LOW);
    }
    if (r->kind == STSL_SCHEME_KARNOPP) karnopp_classify(r, r->y);
    for (int c = 0; r->kind == STSL_SCHEME_FIXED_STEP_HYBRID && c < r->nc; c++) {
        double w = pair_w(r, r->y, r->cnode[c]);
        if (!held(r, r->vec, c) && w != 0.0) set_state(r, c, stsl_contact_slip_state(w));
    }
    memcpy(r->ytmp, r->y, (size_t)r->n * sizeof *r->y);
    return release(r, 0.0, r->y, r->ytmp, err);
}

/* ---- output ---------------------------------------------------------------------- */

/* Through a view: the element's mode number of state vector v. */
static int view_mode(const srun *r, const uint8_t *v)
{
    return stsl_one_body_mode_of(r->view, v[0], r->ns ? v[1] : STSL_SM_OPEN);
}

/* Through a view: the element's columns in its mode `mode`; the
 * regularised law (f_reg not NAN, from the forces at (t, y) in r->b, which
 * out_cols has just evaluated), which the element does not know, moves
 * as a slip with friction f_reg and acceleration (F_n - f_reg) / m. */
static void view_cols(const srun *r, int mode, double t, const double *y, double f_reg,
                      double *cols)
{
    if (isnan(f_reg)) {
        stsl_one_body_mode_outputs(r->view, mode, t, y, cols);
        return;
    }
    stsl_one_body_mode_outputs(r->view, STSL_MODE_SLIP_POS, t, y, cols);
    cols[STSL_COL_FRICTION] = f_reg;
    cols[STSL_COL_A] = (r->b.fn - f_reg) / stsl_one_body_params(r->view)->mass;
}

/* Output columns of mode vector v at (t, y): the engine's, with the
 * regularised friction and its accelerations for smooth_rk4 on hybrid laws. */
static int out_cols(srun *r, const uint8_t *v, double t, const double *y, double *cols,
                    stsl_error *err)
{
    if (r->view) { /* the view's columns; the regularised friction while moving */
        int mode = view_mode(r, v), rc = STSL_OK;
        double f_reg = NAN;
        if (r->regular && mode == STSL_MODE_SMOOTH && !(rc = eval(r, t, y, v, err)))
            f_reg = 0.0 - r->f.friction[0]; /* +0 at rest, as the element's */
        if (!rc) view_cols(r, mode, t, y, f_reg, cols);
        return rc;
    }
    stsl_mode_code code = stsl_multibody_mode_code(r->m, v);
    if (code < 0) return stsl_error_set(err, STSL_ENOMEM, "out of memory at t = %.17g s", t);
    r->model->ops->outputs(r->model->self, code, t, y, cols);
    if (!(r->sch->regularisation_velocity > 0.0)) return STSL_OK;
    int rc = eval(r, t, y, v, err);
    if (rc) return rc;
    regularise(r, v);
    for (int i = 0; r->col_a >= 0 && i < r->nb; i++)
        cols[r->col_a + i] = r->f.acc[i];
    for (int c = 0; r->col_friction >= 0 && c < r->nc; c++)
        cols[r->col_friction + c] = r->f.friction[c];
    return STSL_OK;
}

static int emit(srun *r, stsl_error *err)
{
    if (!r->out) return STSL_OK;
    int rc = out_cols(r, r->vec, r->t, r->y, r->cols_a, err);
    int mode = r->view ? r->vmode : -1;
    return rc ? rc : stsl_sink_sample(r->sink, r->t, mode, r->cols_a, err);
}

static int is_stop_mode(int mode)
{
    return mode == STSL_MODE_STOP_LOW || mode == STSL_MODE_STOP_HIGH;
}

static int is_slip_mode(int mode)
{
    return mode == STSL_MODE_SLIP_POS || mode == STSL_MODE_SLIP_NEG;
}

/* The event a change of recorded mode means (the element's). */
static int kind_of_change(int from, int to)
{
    if (from == to) return STSL_NO_EVENT;
    if (to == STSL_MODE_STUCK) return STSL_EV_STICK;
    if (from == STSL_MODE_STUCK) return STSL_EV_BREAKAWAY;
    if (is_stop_mode(to)) return STSL_EV_STOP_CONTACT;
    if (is_stop_mode(from)) return STSL_EV_STOP_RELEASE;
    if (is_slip_mode(from) && is_slip_mode(to)) return STSL_EV_REVERSAL;
    return STSL_NO_EVENT;
}

/* Through a view: one event a step, the stop's (impact, stop_contact) when
 * a stop was passed, else the change of the recorded mode; no subject. */
static void view_event(srun *r)
{
    if (!r->n_ev && !r->changed) return; /* no event, the same mode (most steps) */
    int from = r->vmode, to = view_mode(r, r->vec);
    r->vmode = to;
    int kind = kind_of_change(from, to);
    for (int i = 0; i < r->n_ev; i++)
        if (r->ev[i].subject > r->nc &&
            (r->ev[i].kind == STSL_EV_IMPACT || r->ev[i].kind == STSL_EV_STOP_CONTACT) &&
            r->impacted[r->ev[i].subject - 1 - r->nc]) {
            kind = r->ev[i].kind;
            break;
        }
    r->n_ev = kind != STSL_NO_EVENT;
    r->ev[0] = (pending){kind, 0};
}

static int record(srun *r, long max_events, stsl_error *err)
{
    if (r->view) view_event(r);
    if (!r->n_ev) return STSL_OK;
    r->st.events += r->n_ev;
    if (r->st.events > max_events)
        return stsl_error_set(err, STSL_EMAXEVENTS,
                              "scheme %s: more than %ld events (simulation.max_events) by t = "
                              "%.17g s; the last one: %s",
                              stsl_scheme_name(r->kind), max_events, r->t,
                              r->layout->kind_names[r->ev[r->n_ev - 1].kind]);
    if (!r->out) return STSL_OK;
    const uint8_t *prev = prev_states(r);
    int rc = out_cols(r, prev, r->t, r->yraw, r->cols_a, err);
    if (!rc) rc = out_cols(r, r->vec, r->t, r->y, r->cols_b, err);
    for (int i = 0; !rc && i < r->n_ev; i++) {
        int from = r->view ? view_mode(r, prev) : -1;
        int to = r->view ? r->vmode : -1;
        stsl_event_rec ev = {r->t, r->ev[i].kind, from, to, r->cols_a, r->cols_b, r->ev[i].subject};
        rc = stsl_sink_event(r->sink, &ev, err);
    }
    return rc;
}

/* A non-finite state: named by the state's names, or through a view by
 * the element's message (its mode, x and v before and after the step). */
static int check_finite(srun *r, const double *before, stsl_error *err)
{
    const double *y = r->y; /* a view's x and v first, without the loop (every step) */
    if (r->view && isfinite(y[0]) && isfinite(y[1]) && (r->n < 3 || isfinite(y[2]))) return STSL_OK;
    for (int i = 0; i < r->n; i++)
        if (isfinite(r->y[i]))
            continue;
        else if (r->view)
            return stsl_error_set(
                err, STSL_ESOLVER,
                "scheme %s: the state became non-finite at t = %.17g s (step %ld, mode %s, "
                "h = %g s): from x = %.17g, v = %.17g to x = %g, v = %g",
                stsl_scheme_name(r->kind), r->t, r->st.steps,
                r->layout->mode_names[view_mode(r, r->vec)], r->sch->step, before[0], before[1],
                r->y[0], r->y[1]);
        else
            return stsl_error_set(err, STSL_ESOLVER,
                                  "scheme %s: the state became non-finite at t = %.17g s (step "
                                  "%ld, h = %g s): %s = %g",
                                  stsl_scheme_name(r->kind), r->t, r->st.steps, r->sch->step,
                                  r->model->state_names ? r->model->state_names[i] : "y", r->y[i]);
    return STSL_OK;
}

/* ---- set-up ---------------------------------------------------------------------- */

int stsl_fixed_step_system_check(const stsl_system *s, const stsl_hsolver_opts *sim,
                                 const stsl_scheme_opts *sch, stsl_error *err)
{
    const char *name = stsl_scheme_name(sch->kind);
    int rc = stsl_fixed_step_check(sim, sch, err);
    if (rc) return rc;
    int any_hybrid = 0;
    for (int c = 0; c < s->n_contacts; c++) {
        int smooth = stsl_law_is_smooth(s->contacts[c].friction.law);
        any_hybrid |= !smooth;
        if (smooth && sch->kind != STSL_SCHEME_SMOOTH_RK4)
            return stsl_error_set(err, STSL_EINPUT,
                                  "simulation.scheme: %s needs hybrid friction laws (coulomb, "
                                  "stribeck); contacts.%d has %s: use smooth_rk4",
                                  name, c, stsl_law_name(s->contacts[c].friction.law));
    }
    for (int k = 0; k < s->n_stops; k++)
        if (s->stops[k].model != STSL_STOP_RIGID)
            return stsl_error_set(err, STSL_EINPUT,
                                  "simulation.scheme: %s models rigid stops only; stops.%d is "
                                  "compliant: it needs scheme event_driven",
                                  name, k);
    if (sch->kind == STSL_SCHEME_KARNOPP && !(sch->karnopp_band > 0.0))
        return stsl_error_set(err, STSL_EINPUT, "simulation.karnopp_band: must be > 0 (got %g)",
                              sch->karnopp_band);
    if (sch->kind == STSL_SCHEME_SMOOTH_RK4 && any_hybrid && !(sch->regularisation_velocity > 0.0))
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.regularisation_velocity: must be > 0 (got %g)",
                              sch->regularisation_velocity);
    return STSL_OK;
}

/* The run's arrays, allocated (release 0; 0, or nonzero out of memory) or
 * freed (release 1) from one list (solver/arrays.h). */
static int run_arrays(srun *r, int release)
{
    int nb = r->nb, nc = r->nc, ns = r->ns, nn = nb + N_FIXED, nl = r->n_cols;
    int n = r->n > N_VIEW ? r->n : N_VIEW; /* copy_state copies N_VIEW through a view */
#define ARRAY(p, count) STSL_ARRAY(release, p, count)
    return ARRAY(r->y, n) | ARRAY(r->y0, n) | ARRAY(r->yraw, n) | ARRAY(r->ytmp, n) |
           ARRAY(r->k[0], n) | ARRAY(r->k[1], n) | ARRAY(r->k[2], n) | ARRAY(r->k[3], n) |
           ARRAY(r->vec, r->L) | ARRAY(r->prev, r->L) | ARRAY(r->vtry, r->L) | ARRAY(r->facc, nb) |
           ARRAY(r->fzr, n) | ARRAY(r->fw, nc) | ARRAY(r->ffr, nc) | ARRAY(r->fdp, nc) |
           ARRAY(r->fsp, nc) | ARRAY(r->fdn, nc) | ARRAY(r->fsn, nc) | ARRAY(r->fsx, ns) |
           ARRAY(r->fsw, ns) | ARRAY(r->fsp_pull, ns) | ARRAY(r->dforce, nn) | ARRAY(r->label, nn) |
           ARRAY(r->closed_before, ns) | ARRAY(r->impacted, ns) | ARRAY(r->jumped, nc) |
           ARRAY(r->cm, nn) | ARRAY(r->cp, nn) | ARRAY(r->ev, nc + 2 * ns + 1) |
           ARRAY(r->cols_a, nl) | ARRAY(r->cols_b, nl) | ARRAY(r->cnode, nc) | ARRAY(r->snode, ns);
#undef ARRAY
}

static void free_run(srun *r)
{
    run_arrays(r, 1);
    stsl_multibody_free(r->m);
}

static int alloc_run(srun *r)
{
    int nc = r->nc, ns = r->ns;
    if (run_arrays(r, 0)) return -1;
    r->f = (stsl_multibody_forces){r->facc, r->fzr, r->ffr, r->fw,  r->fdp,     r->fsp,
                                   r->fdn,  r->fsn, r->fsx, r->fsw, r->fsp_pull};
    if (r->view) /* one contact: its levels are the view's (eval_view writes them) */
        r->f.fd_pos = &r->b.fd_pos, r->f.fs_pos = &r->b.fs_pos, r->f.fd_neg = &r->b.fd_neg,
        r->f.fs_neg = &r->b.fs_neg;
    for (int c = 0; c < nc; c++)
        for (int j = 0; j < 2; j++)
            r->cnode[c][j] = node_of(r->s, r->s->contacts[c].ends[j]);
    for (int k = 0; k < ns; k++)
        for (int j = 0; j < 2; j++)
            r->snode[k][j] = node_of(r->s, r->s->stops[k].ends[j]);
    if (nc > 0) r->hold = r->cnode[0][0] == 0 ? r->cnode[0][1] : r->cnode[0][0];
    r->body_first = nc > 0 && r->cnode[0][0] == 0;
    return 0;
}

static int group_first(const stsl_layout *l, const char *name)
{
    for (int g = 0; g < l->n_groups; g++)
        if (!strcmp(l->groups[g].name, name)) return l->groups[g].first;
    return -1;
}

/* Whether fixed end `node` (the ground, base or anchor) stands still in
 * the engine's frame: its input is a constant (the ground's is) and so is
 * the base's when the engine moves with the base; the base in its own
 * frame. */
static int still(const srun *r, int node)
{
    const stsl_system *s = r->s;
    int frame = stsl_multibody_in_base_frame(r->m), f = node - r->nb;
    int base_const = s->base_motion.type == STSL_SIG_CONSTANT;
    int own = f == 0 || (f == 1 ? base_const : s->anchor_motion.type == STSL_SIG_CONSTANT);
    return (frame && f == 1) || (own && (!frame || base_const));
}

/* Whether a contact or a stop has a fixed end that moves; when none does,
 * the fixed ends' motion is evaluated once. */
static int moving_ends(const srun *r)
{
    for (int c = 0; c < r->nc; c++)
        for (int j = 0; j < 2; j++)
            if (r->cnode[c][j] >= r->nb && !still(r, r->cnode[c][j])) return 1;
    for (int k = 0; k < r->ns; k++)
        for (int j = 0; j < 2; j++)
            if (r->snode[k][j] >= r->nb && !still(r, r->snode[k][j])) return 1;
    return 0;
}

static int step_once(srun *r, double t1, double dt, stsl_error *err)
{
    r->gen0 = r->gen; /* prev: set by the step's first change */
    r->one = r->view != NULL;
    for (int k = 0; k < r->ns; k++) {
        r->closed_before[k] = r->vec[r->nc + k] != STSL_SM_OPEN;
        r->one &= !r->closed_before[k];
    }
    r->n_ev = 0;
    int rc = r->kind == STSL_SCHEME_KARNOPP             ? karnopp_step(r, r->t, t1, dt, err)
             : r->kind == STSL_SCHEME_FIXED_STEP_HYBRID ? hybrid_step(r, r->t, t1, dt, err)
                                                        : rk4_step(r, r->t, dt, err);
    r->changed = 0; /* set_state counted no change: none (most steps) */
    for (int i = 0; r->gen != r->gen0 && !r->changed && i < r->L; i++)
        r->changed = r->prev[i] != r->vec[i];
    if (!rc && !r->view) changes(r); /* a view records its own (view_event) */
    return rc;
}

/* The element scheme's force evaluations of the step just taken: four for
 * an RK4 step off a stop, one at the new step point (none for RK4 unless
 * it was held on a stop), and a stop passed instead one, or two when the
 * element rebounds (the forces at the limit at rest, then moving). */
static long element_evals(const srun *r, int from)
{
    int rk4 = r->kind == STSL_SCHEME_SMOOTH_RK4, hit = 0, rebound = 0;
    for (int k = 0; r->n_ev && k < r->ns; k++) /* an impact pushed an event */
        if (r->impacted[k]) hit = 1, rebound |= r->vec[r->nc + k] == STSL_SM_OPEN;
    long n = rk4 && !is_stop_mode(from) ? 4 : 0;
    if (hit) return n + (rebound ? 2 : 1);
    return n + (!rk4 || is_stop_mode(from));
}

static int run_loop(srun *r, const stsl_hsolver_opts *sim, stsl_error *err)
{
    double h = r->sch->step;
    long n_steps, stride;
    stsl_fixed_step_grid(sim, h, &n_steps, &stride);
    int rc = initial_states(r, err);
    if (r->view) r->st.rhs_evals++; /* the element's forces at the start */
    if (r->view) r->vmode = view_mode(r, r->vec);
    if (!rc) rc = emit(r, err);
    /* next: the next multiple of stride (a count, not k % stride: no
     * division every step) */
    for (long k = 1, next = stride; !rc && k <= n_steps; k++) {
        double t1 = k == n_steps ? sim->t_end : (double)k * h, dt = t1 - r->t;
        if (sim->cancel && sim->cancel(sim->cancel_ctx))
            return stsl_error_set(err, STSL_ECANCELLED, "run cancelled at t = %.17g s", r->t);
        int from = r->view ? r->vmode : 0;
        double before[2] = {0.0, 0.0}; /* what a view's message names */
        if (r->view) before[0] = r->y[0], before[1] = r->y[1];
        rc = step_once(r, t1, dt, err);
        r->st.steps++;
        if (r->view) r->st.mode_time[from] += dt, r->st.rhs_evals += element_evals(r, from);
        r->t = t1;
        if (!rc) rc = check_finite(r, before, err);
        if (!rc) rc = record(r, sim->max_events, err);
        if (!rc && (k == next || k == n_steps)) rc = emit(r, err);
        if (k == next) next += stride;
    }
    return rc;
}

int stsl_fixed_step_run_system(const stsl_system *s, const stsl_hsolver_opts *sim,
                               const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                               stsl_error *err)
{
    /* Absolute positions (the scheme's arithmetic: a one-body system steps as
     * the element's scheme does), not the event-driven engine's base frame. */
    return stsl_fixed_step_run_view(s, 1, NULL, sim, sch, sink, stats, err);
}

int stsl_fixed_step_run_view(const stsl_system *s, int absolute, const stsl_one_body *view,
                             const stsl_hsolver_opts *sim, const stsl_scheme_opts *sch,
                             stsl_sink *sink, stsl_stats *stats, stsl_error *err)
{
    int rc = stsl_fixed_step_system_check(s, sim, sch, err);
    if (rc) return rc;
    srun r;
    memset(&r, 0, sizeof r);
    double wall0 = stsl_fixed_step_clock();
    r.s = s;
    r.sch = sch;
    r.kind = sch->kind, r.band = sch->karnopp_band;
    r.view = view;
    r.sink = sink;
    r.out = sink && sink->ops;
    r.regular = sch->kind == STSL_SCHEME_SMOOTH_RK4 && sch->regularisation_velocity > 0.0;
    r.m = stsl_multibody_create_in(s, sim->rtol, sim->atol, absolute, err);
    if (!r.m) return err ? err->code : STSL_EINPUT;
    r.model = stsl_multibody_model(r.m);
    r.nb = s->n_bodies, r.nc = s->n_contacts, r.ns = s->n_stops, r.n = r.model->n_state;
    r.L = r.nc + r.ns;
    r.n_cols = r.model->layout->n_cols;
    r.layout = view ? stsl_one_body_model(view)->layout : r.model->layout;
    if (r.layout->n_cols > r.n_cols) r.n_cols = r.layout->n_cols;
    r.col_a = group_first(r.model->layout, "a");
    r.col_friction = group_first(r.model->layout, "friction");
    r.st.segments = 1;
    r.regular0 = r.regular && r.nc > 0 && is_hybrid(&r, 0);
    r.fp0 = r.nc > 0 ? &s->contacts[0].friction : NULL;
    r.m0 = r.nb > 0 ? s->bodies[0].mass : 0.0;
    if (alloc_run(&r)) {
        free_run(&r);
        return stsl_error_set(err, STSL_ENOMEM, "out of memory starting scheme %s",
                              stsl_scheme_name(sch->kind));
    }
    if (view && (r.nb != 1 || r.nc != 1 || r.hold < r.nb)) { /* one_body.c makes none */
        free_run(&r);
        return stsl_error_set(err, STSL_EINPUT,
                              "scheme %s: a one-body view needs one body "
                              "and one contact to a fixed end",
                              stsl_scheme_name(sch->kind));
    }
    stsl_multibody_initial_state(r.m, r.y);
    if (view) stsl_one_body_initial_state(view, r.y);
    if (view) r.st.n_modes = r.layout->n_modes;
    r.mt = NAN, r.cgen = -1;
    r.moving = moving_ends(&r); /* cnode, snode: set by alloc_run */
    if (!r.moving) stsl_multibody_fixed_motion(r.m, 0.0, r.fx, r.fv, r.fa);
    int begun = 0;
    if (r.out && !(rc = stsl_sink_begin(sink, r.layout, err))) begun = 1;
    if (!rc) rc = run_loop(&r, sim, err);
    r.st.wall_seconds = stsl_fixed_step_clock() - wall0;
    if (stats) *stats = r.st;
    if (begun) rc = stsl_sink_end_run(sink, &r.st, rc, 1, err);
    free_run(&r);
    return rc;
}
