/* test_multibody_order.c - a system's result does not depend on the order
 * of its file (SPEC §4: the order of choice ends in a rule on names, never
 * on list order; default names are the sorted pair names).
 *
 * A property test over random systems of two to four bodies with several
 * contacts (to the ground and between bodies, parallel ones included),
 * springs and dampers, backlash stops and sine forces; a quarter of them
 * symmetric on purpose (two identical bodies, identically held and
 * driven, with a contact between them), where two contacts reach their
 * conditions at the same instant and the combinations tie on SPEC §4's
 * rules 1 and 2, so that rule 3 (names) decides.  Each system runs as
 * written and with its bodies, couplings, contacts, stops and forces
 * permuted and the ends of its contacts between two bodies (and of its
 * couplings) swapped at random; half of the systems name their contacts
 * (name:), the other half leave the default names.  The two results must
 * have the same events - by kind, subject (mapped through the permutation)
 * and time to 1e-9 s - and every body's final position and velocity
 * within 1e-9 of its scale - and both keep every stuck force within its
 * band in every sample (tu_assert_bands).
 *
 * A second set of 200 systems closes loops of stuck contacts on purpose
 * (loop_system: every body on the ground and contacts between bodies),
 * whose split is the lexicographic minimum of the band uses, unique (the
 * coordinate descent that sought it before broke the band invariant in
 * the first of them: a stuck force of 2.0007 N in a band of 2 N, exit 0).
 * The first set runs 1000 systems.  Of the first 10000 of this seed one
 * differs: system 3316, whose backlash stop bounces thirteen times into an
 * accumulation at 0.7536 s (a Zeno sequence), where the event times of
 * the two orders part from 1e-13 s to 1e-10 s: the gap's rounding (ulps
 * of 0.04 m) over the last resolved impacts' speeds (2e-8 m/s).  The
 * events agree (a stop let go before its bounces' end records their end:
 * test_multibody_physics D17); a position at the end differs by 6.7e-12
 * m, 1.2e-9 of its scale, past the bound below: rounding that the
 * accumulation amplifies, which no rule on the order of choice removes
 * (only an integration whose sums do not depend on the order of the file
 * would).  Before, eleven differed, none failed: 840 (an `ambiguous`
 * stick that slipped away 0.07 s early in one order: bodies held
 * together whose common velocity was the momentum's mean taken body by
 * body, stick_common_velocity below, test_multibody_physics D16), nine
 * more with an impact or a stick in one order only, gone with it, and
 * 6904 (an impact while the ends part: touch_while_parting below).  (Two
 * parallel contacts whose force touches their level at a peak stopped
 * with "no progress" in one order, system 710, until a segment restarted
 * at an accepted touch kept its guards' sizes: test_multibody_physics
 * D15.  Before stops let go at their limits were parted from the
 * positions' rounding, 14 of 1000 differed and 3 failed.)  The systems
 * here avoid none of them on purpose.
 *
 * The bounds: both runs integrate the same equations with the same
 * tolerances (rtol 1e-12); they differ only by the rounding of sums taken
 * in another order, 1e-16 relative, which the error-controlled steps turn
 * into differences of the order of the local error tolerance, 1e-12 of the
 * state: far below 1e-9.  A different decision instead changes the motion
 * at the size of the motion (a contact sticking instead of slipping), and
 * an event time by the time scale of the forces, far above 1e-9 s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "models/multibody.h"
#include "run/run.h"
#include "solver/sink.h"
#include "test/testutil.h"

#define N_SYSTEMS 1000
#define N_LOOPS   200
#define MAXB      4
#define MAXC      8
#define MAXK      4
#define MAXS      2
#define T_TOL     1e-9 /* event times (s) */
#define X_TOL     1e-9 /* final state, relative to its scale */

/* ---- a random system ------------------------------------------------------ */

typedef struct gen {
    int nb, nc, nk, ns, named;
    char body[MAXB][8];
    double mass[MAXB], v0[MAXB];
    int c_end[MAXC][2]; /* body index; -1: ground */
    double c_dyn[MAXC], c_ratio[MAXC];
    /* "c", a letter and the index: room for any int the format may print */
    char c_name[MAXC][16];
    int k_end[MAXK][2]; /* -1: ground */
    double k_stiff[MAXK], k_damp[MAXK];
    int s_end[MAXS][2];
    double s_gap[MAXS], s_e[MAXS];
    double f_amp[MAXB], f_freq[MAXB]; /* a sine force on each body (amp 0: none) */
} gen;

typedef struct perm {
    int body[MAXB], contact[MAXC], coupling[MAXK], stop[MAXS]; /* position -> original */
    int c_swap[MAXC], k_swap[MAXK];
} perm;

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13; /* xorshift64 */
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static double pick(const double *v, unsigned n)
{
    return v[rnd(n)];
}

static void shuffle(int *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd((unsigned)i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static const double DYN[] = {1.0, 2.0, 3.0}, RATIO[] = {1.0, 1.25, 1.5};
static const double STIFF[] = {10.0, 20.0, 50.0}, DAMP[] = {0.0, 0.0, 0.5};
static const double AMP[] = {0.0, 3.0, 5.0, 8.0}, FREQ[] = {0.5, 1.0, 1.5};
static const char *const NAMES[] = {"zeta", "alpha", "mid", "beta", "omega", "b2"};

static void add_contact(gen *g, int a, int b, double dyn, double ratio)
{
    int c = g->nc++;
    g->c_end[c][0] = a;
    g->c_end[c][1] = b;
    g->c_dyn[c] = dyn;
    g->c_ratio[c] = ratio;
    snprintf(g->c_name[c], sizeof g->c_name[c], "c%c%d", 'a' + (int)rnd(26), c);
}

static void add_coupling(gen *g, int a, int b)
{
    int k = g->nk++;
    g->k_end[k][0] = a;
    g->k_end[k][1] = b;
    g->k_stiff[k] = pick(STIFF, 3);
    g->k_damp[k] = pick(DAMP, 3);
}

/* Bodies with random names, each resting on the ground or on an earlier
 * body (a stack or a tree of them; sometimes on two parallel contacts),
 * springs and dampers anywhere, now and then a backlash stop beside a
 * contact between two bodies (a gear with friction in its mesh).  The
 * stuck contacts form no closed loop here (loop_system closes them). */
static void random_bodies(gen *g, int nb)
{
    memset(g, 0, sizeof *g);
    g->nb = nb;
    g->named = (int)rnd(2);
    int used[6] = {0};
    for (int i = 0; i < g->nb; i++) {
        int n;
        do
            n = (int)rnd(6);
        while (used[n]);
        used[n] = 1;
        snprintf(g->body[i], sizeof g->body[i], "%s", NAMES[n]);
        g->mass[i] = 0.5 + 0.5 * rnd(3);
        g->v0[i] = rnd(3) ? 0.0 : 0.3 * ((double)rnd(5) - 2.0);
        g->f_amp[i] = pick(AMP, 4);
        g->f_freq[i] = pick(FREQ, 3);
    }
}

static void random_system(gen *g)
{
    random_bodies(g, 2 + (int)rnd(3));
    for (int i = 0; i < g->nb; i++) {
        int parent = (int)rnd((unsigned)i + 1) - 1; /* -1: the ground */
        add_contact(g, i, parent, pick(DYN, 3), pick(RATIO, 3));
        if (!rnd(6)) add_contact(g, i, parent, pick(DYN, 3), pick(RATIO, 3)); /* parallel */
        if (parent >= 0 && !g->ns && !rnd(3)) {
            g->s_end[0][0] = i;
            g->s_end[0][1] = parent;
            g->s_gap[0] = 0.02 + 0.02 * rnd(3);
            g->s_e[0] = rnd(2) ? 0.0 : 0.5;
            g->ns = 1;
        }
    }
    for (int i = 0; i < g->nb && g->nk < MAXK; i++)
        add_coupling(g, i, rnd(2) ? -1 : (int)((unsigned)(i + 1) % (unsigned)g->nb));
}

/* A carrier (body 0) on the ground and two identical riders on it (1 and
 * 2), each tied to the ground by the same spring and driven by the same
 * force, maybe a fourth body on one of them: the riders' contacts reach
 * their conditions at the same instants and in one group (through the
 * carrier), where the combinations that let one of them slip tie. */
static void symmetric_system(gen *g)
{
    random_bodies(g, 3 + (int)rnd(2));
    g->mass[2] = g->mass[1];
    g->v0[2] = g->v0[1];
    g->f_amp[1] = g->f_amp[2] = g->f_amp[1] > 0.0 ? g->f_amp[1] : 5.0;
    g->f_freq[2] = g->f_freq[1];
    add_contact(g, 0, -1, pick(DYN, 3), pick(RATIO, 3));
    double dyn = pick(DYN, 3), ratio = pick(RATIO, 3);
    add_contact(g, 1, 0, dyn, ratio);
    add_contact(g, 2, 0, dyn, ratio);
    add_coupling(g, 1, -1);
    add_coupling(g, 2, -1);
    g->k_stiff[1] = g->k_stiff[0];
    g->k_damp[1] = g->k_damp[0];
    add_coupling(g, 0, -1);
    if (g->nb == 4) add_contact(g, 3, 1 + (int)rnd(2), pick(DYN, 3), pick(RATIO, 3));
}

/* Loops of stuck contacts: every body on the ground, and contacts between
 * pairs of bodies (two bodies on the ground joined by a contact close a
 * loop through the ground; three pairwise joined close one among them),
 * now and then a parallel one.  Their split is the lexicographic minimum
 * of the band uses, unique, so no order of the file can change it. */
static void loop_system(gen *g)
{
    random_bodies(g, 2 + (int)rnd(3));
    for (int i = 0; i < g->nb; i++)
        add_contact(g, i, -1, pick(DYN, 3), pick(RATIO, 3));
    int pairs = 1 + (int)rnd(3);
    for (int k = 0; k < pairs && g->nc < MAXC; k++) {
        int a = (int)rnd((unsigned)g->nb), b = (int)rnd((unsigned)g->nb);
        if (a != b) add_contact(g, a, b, pick(DYN, 3), pick(RATIO, 3));
    }
    for (int i = 0; i < g->nb && g->nk < MAXK; i++)
        if (rnd(2)) add_coupling(g, i, rnd(2) ? -1 : (int)((unsigned)(i + 1) % (unsigned)g->nb));
}

/* ---- its configuration, permuted ------------------------------------------ */

static const char *end_name(const gen *g, int e)
{
    return e < 0 ? "ground" : g->body[e];
}

static size_t put_system(const gen *g, const perm *p, char *y, size_t n)
{
    size_t o = (size_t)snprintf(y, n, "bodies:\n");
    for (int j = 0; j < g->nb; j++) {
        int i = p->body[j];
        o += (size_t)snprintf(y + o, n - o, "  %s: {mass: %g, velocity: %g}\n", g->body[i],
                              g->mass[i], g->v0[i]);
    }
    o += (size_t)snprintf(y + o, n - o, g->nk ? "couplings:\n" : "couplings: []\n");
    for (int j = 0; j < g->nk; j++) {
        int k = p->coupling[j], s = p->k_swap[j] && g->k_end[k][1] >= 0;
        o += (size_t)snprintf(y + o, n - o, "  - {between: [%s, %s], stiffness: %g, damping: %g}\n",
                              end_name(g, g->k_end[k][s]), end_name(g, g->k_end[k][1 - s]),
                              g->k_stiff[k], g->k_damp[k]);
    }
    o += (size_t)snprintf(y + o, n - o, g->nc ? "contacts:\n" : "contacts: []\n");
    for (int j = 0; j < g->nc; j++) {
        int c = p->contact[j], s = p->c_swap[j] && g->c_end[c][1] >= 0;
        char name[32] = "";
        if (g->named) snprintf(name, sizeof name, "name: %s, ", g->c_name[c]);
        o += (size_t)snprintf(y + o, n - o,
                              "  - {%sbetween: [%s, %s], law: coulomb, dynamic: %g, "
                              "static_ratio: %g}\n",
                              name, end_name(g, g->c_end[c][s]), end_name(g, g->c_end[c][1 - s]),
                              g->c_dyn[c], g->c_ratio[c]);
    }
    o += (size_t)snprintf(y + o, n - o, g->ns ? "stops:\n" : "stops: []\n");
    for (int j = 0; j < g->ns; j++) {
        int k = p->stop[j];
        o += (size_t)snprintf(y + o, n - o,
                              "  - {between: [%s, %s], min: %g, max: %g, model: rigid, "
                              "restitution: %g}\n",
                              end_name(g, g->s_end[k][0]), end_name(g, g->s_end[k][1]),
                              -g->s_gap[k], g->s_gap[k], g->s_e[k]);
    }
    o += (size_t)snprintf(y + o, n - o, "inputs:\n  forces:\n    {");
    for (int j = 0; j < g->nb; j++) {
        int i = p->body[j];
        if (g->f_amp[i] > 0.0)
            o += (size_t)snprintf(y + o, n - o, "%s: {type: sine, amplitude: %g, frequency: %g}, ",
                                  g->body[i], g->f_amp[i], g->f_freq[i]);
    }
    o += (size_t)snprintf(y + o, n - o, "}\n");
    o +=
        (size_t)snprintf(y + o, n - o, "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n");
    return o;
}

static void identity(const gen *g, perm *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < MAXC; i++)
        p->contact[i] = i;
    for (int i = 0; i < MAXB; i++)
        p->body[i] = i;
    for (int i = 0; i < MAXK; i++)
        p->coupling[i] = i;
    for (int i = 0; i < MAXS; i++)
        p->stop[i] = i;
    (void)g;
}

static void random_perm(const gen *g, perm *p)
{
    identity(g, p);
    shuffle(p->body, g->nb);
    shuffle(p->contact, g->nc);
    shuffle(p->coupling, g->nk);
    shuffle(p->stop, g->ns);
    for (int j = 0; j < MAXC; j++)
        p->c_swap[j] = (int)rnd(2);
    for (int j = 0; j < MAXK; j++)
        p->k_swap[j] = (int)rnd(2);
}

/* ---- running and comparing ------------------------------------------------- */

typedef struct run {
    stsl_sink sink;
    const stsl_mem_result *r;
    int rc;
    stsl_error err;
} run;

static void run_yaml(const char *yaml, run *out)
{
    stsl_config cfg;
    stsl_error err = {0};
    memset(out, 0, sizeof *out);
    if (stsl_config_load_string(yaml, "<order>", NULL, NULL, 0, &cfg, &err))
        fail_msg("config: %s\n%s", err.msg, yaml);
    assert_int_equal(stsl_mem_sink_create(&out->sink, &err), STSL_OK);
    stsl_stats st;
    out->rc = stsl_run_system(&cfg.system, &cfg.sim, &out->sink, &st, &out->err);
    out->r = stsl_mem_sink_result(&out->sink);
    if (!out->rc) tu_assert_bands(out->r, &cfg.system);
    stsl_config_free(&cfg);
}

/* An event's subject as an original index: contacts 1.., stops after. */
static int subject_id(const gen *g, const perm *p, int subject)
{
    if (subject <= 0) return 0;
    if (subject <= g->nc) return 1 + p->contact[subject - 1];
    return 1 + g->nc + p->stop[subject - 1 - g->nc];
}

static int group_first(const stsl_mem_result *r, const char *name)
{
    for (int k = 0; k < r->layout.n_groups; k++)
        if (!strcmp(r->layout.groups[k].name, name)) return r->layout.groups[k].first;
    fail_msg("no group %s", name);
    return -1;
}

/* What identifies an event's subject across the two files: the original
 * index of its contact or stop; for an `ambiguous` event the name the tie
 * rule knows its contact by (its name:, else the sorted pair "a/b"):
 * the event names the group's contact first by that rule, and parallel
 * contacts without names share their pair name (they are decided as one,
 * so either is the group's first). */
static void subject_key(const gen *g, const perm *p, const run *r, const stsl_mem_event *e,
                        char *key, size_t n)
{
    int id = subject_id(g, p, e->subject);
    if (strcmp(r->r->layout.kind_names[e->kind], "ambiguous") || id < 1 || id > g->nc) {
        snprintf(key, n, "#%d", id);
        return;
    }
    int c = id - 1;
    const char *a = end_name(g, g->c_end[c][0]), *b = end_name(g, g->c_end[c][1]);
    if (g->named)
        snprintf(key, n, "%s", g->c_name[c]);
    else
        snprintf(key, n, "%s/%s", strcmp(a, b) <= 0 ? a : b, strcmp(a, b) <= 0 ? b : a);
}

/* Every event of a matched by one of b: same kind and subject, time
 * within T_TOL (as multisets: simultaneous events may come in another
 * order). */
static void dump(const char *what, const gen *g, const perm *p, const run *r)
{
    char k[64];
    fprintf(stderr, "%s:\n", what);
    for (long i = 0; i < r->r->n_events; i++) {
        subject_key(g, p, r, &r->r->events[i], k, sizeof k);
        fprintf(stderr, "  %.17g %s %s\n", r->r->events[i].t,
                r->r->layout.kind_names[r->r->events[i].kind], k);
    }
}

static void same_events(const gen *g, const run *a, const perm *pa, const run *b, const perm *pb,
                        const char *yaml)
{
    if (a->r->n_events != b->r->n_events) {
        dump("as written", g, pa, a);
        dump("permuted", g, pb, b);
    }
    if (a->r->n_events != b->r->n_events)
        fail_msg("%ld events against %ld\n%s", a->r->n_events, b->r->n_events, yaml);
    char used[512] = {0}, ka[64], kb[64];
    for (long i = 0; i < a->r->n_events && i < 512; i++) {
        const stsl_mem_event *e = &a->r->events[i];
        int found = 0;
        subject_key(g, pa, a, e, ka, sizeof ka);
        for (long j = 0; j < b->r->n_events && j < 512 && !found; j++) {
            const stsl_mem_event *f = &b->r->events[j];
            if (used[j] || f->kind != e->kind || !(fabs(f->t - e->t) <= T_TOL)) continue;
            subject_key(g, pb, b, f, kb, sizeof kb);
            if (strcmp(ka, kb)) continue;
            used[j] = 1;
            found = 1;
        }
        if (!found)
            fail_msg("event %ld (kind %s, subject %s, t = %.17g) has no match\n%s", i,
                     a->r->layout.kind_names[e->kind], ka, e->t, yaml);
    }
}

static void same_final(const gen *g, const run *a, const perm *pa, const run *b, const perm *pb,
                       const char *yaml)
{
    const stsl_mem_result *ra = a->r, *rb = b->r;
    int xa = group_first(ra, "x"), xb = group_first(rb, "x");
    int va = group_first(ra, "v"), vb = group_first(rb, "v");
    const double *la = ra->cols + (ra->n_samples - 1) * ra->n_cols;
    const double *lb = rb->cols + (rb->n_samples - 1) * rb->n_cols;
    for (int i = 0; i < g->nb; i++) {
        int ja = 0, jb = 0;
        while (pa->body[ja] != i)
            ja++;
        while (pb->body[jb] != i)
            jb++;
        /* the scale: the largest value over the run, at least 1e-3 (m, m/s) */
        double sx = 1e-3, sv = 1e-3;
        for (long k = 0; k < ra->n_samples; k++) {
            sx = fmax(sx, fabs(ra->cols[k * ra->n_cols + xa + ja]));
            sv = fmax(sv, fabs(ra->cols[k * ra->n_cols + va + ja]));
        }
        if (!(fabs(la[xa + ja] - lb[xb + jb]) <= X_TOL * sx) ||
            !(fabs(la[va + ja] - lb[vb + jb]) <= X_TOL * sv))
            fail_msg("body %s: final (%.17g, %.17g) against (%.17g, %.17g)\n%s", g->body[i],
                     la[xa + ja], la[va + ja], lb[xb + jb], lb[vb + jb], yaml);
    }
}

/* The systems of `make` from the seed, each run as written and permuted. */
static void check_systems(uint64_t seed, int count, void (*make)(gen *, int))
{
    rng_state = seed;
    static char ya[8192], yb[8192];
    long events = 0, ambiguous = 0;
    for (int n = 0; n < count; n++) {
        gen g;
        make(&g, n);
        perm pa, pb;
        identity(&g, &pa);
        random_perm(&g, &pb);
        put_system(&g, &pa, ya, sizeof ya);
        put_system(&g, &pb, yb, sizeof yb);
        run a, b;
        run_yaml(ya, &a);
        run_yaml(yb, &b);
        if (a.rc || b.rc)
            fail_msg("system %d: runs failed (%d: %s / %d: %s)\n%s", n, a.rc, a.err.msg, b.rc,
                     b.err.msg, ya);
        same_events(&g, &a, &pa, &b, &pb, yb);
        same_final(&g, &a, &pa, &b, &pb, yb);
        events += a.r->n_events;
        for (long i = 0; i < a.r->n_events; i++)
            ambiguous += !strcmp(a.r->layout.kind_names[a.r->events[i].kind], "ambiguous");
        stsl_sink_free(&a.sink);
        stsl_sink_free(&b.sink);
    }
    print_message("%d systems, %ld events, %ld ambiguous instants\n", count, events, ambiguous);
    assert_true(events > 10 * count); /* the systems do switch */
}

static void make_mixed(gen *g, int n)
{
    if (n % 4 == 3)
        symmetric_system(g);
    else
        random_system(g);
}

static void make_loop(gen *g, int n)
{
    (void)n;
    loop_system(g);
}

static void order_independent(void **state)
{
    (void)state;
    check_systems(0x9e3779b97f4a7c15ULL, N_SYSTEMS, make_mixed);
}

static void loops_order_independent(void **state)
{
    (void)state;
    check_systems(0xd1b54a32d192ed03ULL, N_LOOPS, make_loop);
}

/* ---- contacts that start slipping at w = 0 together -------------------------- */

/* The model of the system `yaml` at `rtol` (its configuration into cfg:
 * free both). */
static stsl_multibody *model_of(const char *yaml, double rtol, stsl_config *cfg)
{
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "<model>", NULL, NULL, 0, cfg, &err))
        fail_msg("config: %s\n%s", err.msg, yaml);
    stsl_multibody *mb = stsl_multibody_create(&cfg->system, rtol, 0.0, &err);
    assert_non_null(mb);
    return mb;
}

/* The velocities after a guard event at which the slipping contacts of
 * `yaml` (three free bodies a, b, c in a chain by two contacts, listed in
 * `order`) reach w = 0 by rounding-size margins: the model's transition
 * called directly at a state with those margins; both keep slipping, or
 * both stick when `stuck`.  v[i]: body i's velocity after it (a, b, c by
 * name). */
static void restart_at_zero(const char *yaml, const double *v_in, double *v, int stuck)
{
    stsl_config cfg;
    stsl_error err = {0};
    stsl_multibody *mb = model_of(yaml, 1e-10, &cfg);
    const stsl_hmodel *md = stsl_multibody_model(mb);
    double y[6];
    int idx[3]; /* body a, b, c's index in the file */
    for (int i = 0; i < 3; i++)
        idx[cfg.system.bodies[i].name[0] - 'a'] = i;
    for (int i = 0; i < 3; i++) { /* first both slipping (distinct velocities) */
        y[idx[i]] = 0.0;
        y[3 + idx[i]] = 0.3 - 0.1 * i;
    }
    stsl_transition tr;
    assert_int_equal(md->ops->transition(md->self, 0, STSL_REASON_INIT, NULL, 0.0, y, &tr, &err),
                     STSL_OK);
    stsl_mode_desc d;
    assert_int_equal(md->ops->describe(md->self, tr.mode, &d), 0);
    int fired[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    assert_true(d.n_guards == 2);
    for (int i = 0; i < 3; i++)
        y[3 + idx[i]] = v_in[i];
    assert_int_equal(
        md->ops->transition(md->self, tr.mode, STSL_REASON_GUARD, fired, 0.5, y, &tr, &err),
        STSL_OK);
    char name[256];
    md->ops->mode_name(md->self, tr.mode, name, sizeof name);
    if (stuck) /* both stick */
        assert_null(strstr(name, "SLIP"));
    else /* both slip on (SLIP_NEG with the ends swapped) */
        assert_null(strstr(name, "STUCK"));
    for (int i = 0; i < 3; i++)
        v[i] = y[3 + idx[i]];
    stsl_multibody_free(mb);
    stsl_config_free(&cfg);
}

/* restart_at_zero in the two orders `yaml` from the velocities 0.1 +
 * 1e-12, 0.1, 0.1 + 2e-12 of a, b, c: all three end at the momentum's
 * mean, (1 va + 2 vb + 3 vc) / 6, the same bits in both orders. */
static void at_common_velocity(const char *const *yaml, int stuck)
{
    const double v_in[3] = {0.1 + 1e-12, 0.1, 0.1 + 2e-12};
    const double want = (v_in[0] + 2.0 * v_in[1] + 3.0 * v_in[2]) / 6.0;
    double v[2][3];
    for (int k = 0; k < 2; k++) {
        restart_at_zero(yaml[k], v_in, v[k], stuck);
        assert_true(v[k][0] == v[k][1] && v[k][1] == v[k][2]);
        assert_close(v[k][0], want, 2e-17); /* a few roundings of 0.1 */
    }
    for (int i = 0; i < 3; i++)
        assert_true(v[0][i] == v[1][i]);
}

/* Bodies a, b, c (1, 2, 3 kg) in a chain: a on b, b on c (Coulomb, 1 N),
 * 10 N forward on a, 10 N back on c: both contacts slip forward (a pulls
 * ahead of b, c falls behind; sticking either would need 7 N).  Their
 * guards fire together with w = 1e-12 and -2e-12 left by the root
 * location: both start at w = 0 exactly, every body at the common
 * velocity (1 va + 2 vb + 3 vc) / 6 (momentum kept), and the bits do not
 * depend on the order of the bodies or the contacts or their ends.
 * (Zeroing one contact after the other left the first one's w at the
 * size of the second's margin, in the file's order.) */
static void zero_slips_at_once(void **state)
{
    (void)state;
    const char *yaml[2] = {
        "bodies: {a: {mass: 1}, b: {mass: 2}, c: {mass: 3}}\n"
        "contacts:\n  - {between: [a, b], law: coulomb, dynamic: 1}\n"
        "  - {between: [b, c], law: coulomb, dynamic: 1}\n"
        "inputs: {forces: {a: {type: constant, value: 10}, c: {type: constant, value: -10}}}\n"
        "simulation: {t_end: 1}\n",
        "bodies: {c: {mass: 3}, a: {mass: 1}, b: {mass: 2}}\n"
        "contacts:\n  - {between: [c, b], law: coulomb, dynamic: 1}\n"
        "  - {between: [b, a], law: coulomb, dynamic: 1}\n"
        "inputs: {forces: {c: {type: constant, value: -10}, a: {type: constant, value: 10}}}\n"
        "simulation: {t_end: 1}\n"};
    at_common_velocity(yaml, 0);
}

/* The same chain with no force: both contacts stick at the event, and
 * the three bodies, one cluster, take their momentum's mean velocity
 * (1 va + 2 vb + 3 vc) / 6, every one the same bits in both orders.  (The
 * mean taken body by body, over velocities already set, left the three
 * up to 4e-13 m/s apart, by amounts that depend on the order of the
 * bodies: stuck contacts with a relative velocity, which the next input
 * event took for a kick and let slip without a decision; see
 * test_multibody_physics D16.) */
static void stick_common_velocity(void **state)
{
    (void)state;
    const char *yaml[2] = {"bodies: {a: {mass: 1}, b: {mass: 2}, c: {mass: 3}}\n"
                           "contacts:\n  - {between: [a, b], law: coulomb, dynamic: 1}\n"
                           "  - {between: [b, c], law: coulomb, dynamic: 1}\n"
                           "simulation: {t_end: 1}\n",
                           "bodies: {c: {mass: 3}, b: {mass: 2}, a: {mass: 1}}\n"
                           "contacts:\n  - {between: [c, b], law: coulomb, dynamic: 1}\n"
                           "  - {between: [b, a], law: coulomb, dynamic: 1}\n"
                           "simulation: {t_end: 1}\n"};
    at_common_velocity(yaml, 1);
}

/* ---- a gap reached while the ends part ----------------------------------------- */

/* Bodies a and b (1 kg each) within a rigid backlash stop (x_a - x_b in
 * [-0.1, 0.1]), a pulled away from the limit by 1 N.  Its gap guard at
 * the upper limit fires with the ends at the limit but parting, w =
 * -1e-9 m/s: what the positions' integration error (rtol of the
 * positions) does just after the stop let go at zero speed, above the
 * 16 ulps it is parted by (survey system 9422: a gap reached 38 ps after
 * a release in one order of the file, with the ends 4.5e-11 m/s apart).
 * No impact (an impact needs the ends closing): no event, the stop stays
 * open, the ends are parted again and their velocities unchanged.
 * (Before: an `impact` with nothing to stop, in one order only.) */
static void touch_while_parting(void **state)
{
    (void)state;
    const char *yaml = "bodies: {a: {mass: 1}, b: {mass: 1}}\n"
                       "stops: [{between: [a, b], min: -0.1, max: 0.1, model: rigid}]\n"
                       "inputs: {forces: {a: {type: constant, value: -1}}}\n"
                       "simulation: {t_end: 1}\n";
    stsl_config cfg;
    stsl_error err = {0};
    stsl_multibody *mb = model_of(yaml, 1e-12, &cfg);
    const stsl_hmodel *md = stsl_multibody_model(mb);
    double y[4] = {0.0, 0.0, 0.0, 0.0};
    stsl_transition tr;
    assert_int_equal(md->ops->transition(md->self, 0, STSL_REASON_INIT, NULL, 0.0, y, &tr, &err),
                     STSL_OK);
    stsl_mode_desc d;
    assert_int_equal(md->ops->describe(md->self, tr.mode, &d), 0);
    assert_int_equal(d.n_guards, 2); /* the gap at max (rising), at min (falling) */
    int fired[2] = {1, 0};
    y[0] = 0.1;
    y[2] = -1e-9;
    assert_int_equal(
        md->ops->transition(md->self, tr.mode, STSL_REASON_GUARD, fired, 0.5, y, &tr, &err),
        STSL_OK);
    assert_int_equal(tr.kind, STSL_NO_EVENT);
    char name[256];
    md->ops->mode_name(md->self, tr.mode, name, sizeof name);
    assert_non_null(strstr(name, "OPEN"));
    assert_true(y[0] - y[1] < 0.1); /* parted */
    assert_true(y[2] == -1e-9 && y[3] == 0.0);
    stsl_multibody_free(mb);
    stsl_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_independent),   cmocka_unit_test(loops_order_independent),
        cmocka_unit_test(zero_slips_at_once),  cmocka_unit_test(stick_common_velocity),
        cmocka_unit_test(touch_while_parting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
