/* test_loop_split.c - the split of a loop's constraint forces
 * (models/loop_split.h; SPEC §4 "Redundant stuck contacts").
 *
 * Against closed forms: the triangle of three bodies on the ground
 * (each pair joined too), where the tightest cut is one body's three
 * contacts and the lexicographic order then settles the rest; two
 * parallel paths with bands that differ by direction.  Against an
 * independent value: Hoffman's circulation theorem, by brute force over
 * every cut of random graphs of up to 6 nodes (stops included), gives the
 * smallest largest use; the split keeps every node's balance, is unique
 * on the banded edges (the same whatever the order of the edges and the
 * nodes), and its second round is checked the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/loop_split.h"
#include "test/testutil.h"

#define MAXN 6
#define MAXE 14

/* The rounding of the split: a few sums of forces of size <= 10 N per
 * node, each ~1e-15 relative; 1e-12 is far above and far below any
 * difference of a wrong split (the size of a force). */
#define TOL 1e-12

static double use_of(double l, double hi, double lo)
{
    if (isinf(hi) && isinf(lo)) return 0.0;
    return l > 0.0 ? l / hi : l < 0.0 ? -l / lo : 0.0;
}

/* Nodes A, B, C (0..2) and the ground (3): each body on the ground, each
 * pair joined; levels gA = AB = CA = 1 N, gB = gC = BC = 5 N (the same
 * both ways); a push F = 2 N on A, all of it first on A's ground contact.
 * The cut {A} (3 N) binds first: A's three contacts carry F/3 each (use
 * 2/3); B and C then pass F/3 each to the ground (the cut {B, C}, 10 N:
 * use 2/15), BC nothing. */
static void triangle(void **state)
{
    (void)state;
    const int ends[6][2] = {{0, 3}, {1, 3}, {2, 3}, {0, 1}, {1, 2}, {2, 0}};
    const double lev[6] = {1, 5, 5, 1, 5, 1}, l0[6] = {-2, 0, 0, 0, 0, 0};
    const double want[6] = {-2.0 / 3, -2.0 / 3, -2.0 / 3, -2.0 / 3, 0.0, 2.0 / 3};
    double lam[6];
    stsl_split_ws *ws = stsl_split_ws_create(4, 6);
    assert_non_null(ws);
    stsl_split_problem p = {4, 6, ends, l0, lev, lev};
    double t = stsl_split_solve(ws, &p, lam);
    assert_close(t, 2.0 / 3.0, TOL);
    for (int e = 0; e < 6; e++)
        assert_close(lam[e], want[e], TOL);
    stsl_split_ws_free(ws);
}

/* A body (node 0) held to the ground (node 1) by two contacts whose bands
 * differ by direction: [-3, 1] and [-1, 2] on the body.  Pushed forward
 * with 2 N (the contacts hold -2 N): -a and -(2 - a) at equal uses,
 * a/3 = 2 - a, a = 1.5, use 0.5.  Pushed back (+2 N held): a/1 = (2 - a)/2,
 * a = 2/3, use 2/3. */
static void directions(void **state)
{
    (void)state;
    const int ends[2][2] = {{0, 1}, {0, 1}};
    const double hi[2] = {1, 2}, lo[2] = {3, 1}, fwd[2] = {-2, 0}, back[2] = {0, 2};
    double lam[2];
    stsl_split_ws *ws = stsl_split_ws_create(2, 2);
    stsl_split_problem p = {2, 2, ends, fwd, hi, lo};
    assert_close(stsl_split_solve(ws, &p, lam), 0.5, TOL);
    assert_close(lam[0], -1.5, TOL);
    assert_close(lam[1], -0.5, TOL);
    p.lambda0 = back;
    assert_close(stsl_split_solve(ws, &p, lam), 2.0 / 3.0, TOL);
    assert_close(lam[0], 2.0 / 3.0, TOL);
    assert_close(lam[1], 4.0 / 3.0, TOL);
    stsl_split_ws_free(ws);
}

/* ---- random graphs against Hoffman's theorem ----------------------------- */

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static double unif(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct graph {
    int n, ne;
    int ends[MAXE][2];
    double hi[MAXE], lo[MAXE], l0[MAXE];
} graph;

/* The smallest t at which every cut S holds (Hoffman): max over S of the
 * root of g_S(t) = sum_out (t hi - l0) + sum_in (t lo + l0), cuts crossed
 * by an unbanded edge skipped; 0 when every root is <= 0.  A fixed set
 * `fixed` of edges is at the values phi instead. */
static double hoffman(const graph *g, const int *fixed, const double *phi)
{
    double best = 0.0;
    for (unsigned s = 1; s + 1 < (1u << g->n); s++) {
        double a = 0.0, b = 0.0;
        int open = 0;
        for (int e = 0; e < g->ne; e++) {
            int sa = (s >> g->ends[e][0]) & 1, sb = (s >> g->ends[e][1]) & 1;
            if (sa == sb) continue;
            if (isinf(g->hi[e])) open = 1;
            double val = fixed && fixed[e] ? phi[e] : g->l0[e];
            /* leaving: U = t hi - l0 (fixed: phi - l0); entering: -L */
            if (!(fixed && fixed[e])) a += sa ? g->hi[e] : g->lo[e];
            b += sa ? (fixed && fixed[e] ? val - g->l0[e] : -g->l0[e])
                    : (fixed && fixed[e] ? -(val - g->l0[e]) : g->l0[e]);
        }
        if (open || !(a > 0.0)) continue;
        best = fmax(best, -b / a);
    }
    return best;
}

/* A connected random graph: a spanning tree, then extra edges (a loop
 * each); a few edges unbanded (stops); random lambda0. */
static void random_graph(graph *g)
{
    g->n = 3 + (int)(unif() * (MAXN - 2));
    g->ne = 0;
    for (int i = 1; i < g->n; i++) {
        g->ends[g->ne][0] = i;
        g->ends[g->ne++][1] = (int)(unif() * i);
    }
    int extra = 1 + (int)(unif() * 5);
    for (int k = 0; k < extra && g->ne < MAXE; k++) {
        int a = (int)(unif() * g->n), b = (int)(unif() * g->n);
        if (a == b) continue;
        g->ends[g->ne][0] = a;
        g->ends[g->ne++][1] = b;
    }
    for (int e = 0; e < g->ne; e++) {
        int stop = unif() < 0.12;
        g->hi[e] = stop ? INFINITY : 0.5 + 4.0 * unif();
        g->lo[e] = stop ? INFINITY : 0.5 + 4.0 * unif();
        g->l0[e] = 10.0 * (unif() - 0.5);
    }
}

static void balance(const graph *g, const double *lam, double *node)
{
    for (int i = 0; i < g->n; i++)
        node[i] = 0.0;
    for (int e = 0; e < g->ne; e++) {
        node[g->ends[e][0]] += lam[e];
        node[g->ends[e][1]] -= lam[e];
    }
}

static void random_graphs(void **state)
{
    (void)state;
    stsl_split_ws *ws = stsl_split_ws_create(MAXN, MAXE);
    int rounds_checked = 0;
    for (int k = 0; k < 2000; k++) {
        graph g, h;
        random_graph(&g);
        double lam[MAXE], mu[MAXE], b0[MAXN], b1[MAXN];
        stsl_split_problem p = {g.n, g.ne, (const int(*)[2])g.ends, g.l0, g.hi, g.lo};
        double t = stsl_split_solve(ws, &p, lam);
        /* the balances kept */
        balance(&g, g.l0, b0);
        balance(&g, lam, b1);
        for (int i = 0; i < g.n; i++)
            assert_close(b1[i], b0[i], TOL * 10.0);
        /* the largest use is Hoffman's minimum, and every use within it */
        double want = hoffman(&g, NULL, NULL);
        assert_close(t, want, TOL * fmax(1.0, want));
        for (int e = 0; e < g.ne; e++)
            assert_true(use_of(lam[e], g.hi[e], g.lo[e]) <= t + TOL);
        /* the second round: the edges at the largest use fixed, the rest's
         * smallest largest use is Hoffman's again (the lexicographic order) */
        int fixed[MAXE], any_free = 0;
        double second = 0.0;
        for (int e = 0; e < g.ne; e++) {
            fixed[e] = isinf(g.hi[e]) || use_of(lam[e], g.hi[e], g.lo[e]) >= t - TOL;
            if (isinf(g.hi[e])) fixed[e] = 0;
            if (!fixed[e] && !isinf(g.hi[e])) {
                any_free = 1;
                second = fmax(second, use_of(lam[e], g.hi[e], g.lo[e]));
            }
        }
        if (any_free && t > 0.0) {
            assert_close(second, hoffman(&g, fixed, lam), TOL * fmax(1.0, t));
            rounds_checked++;
        }
        /* unique on the banded edges: the same with the edges reversed in
         * order and each edge's ends swapped (lambda negated) */
        h = g;
        for (int e = 0; e < g.ne; e++) {
            int f = g.ne - 1 - e;
            h.ends[e][0] = g.ends[f][1];
            h.ends[e][1] = g.ends[f][0];
            h.hi[e] = g.lo[f];
            h.lo[e] = g.hi[f];
            h.l0[e] = -g.l0[f];
        }
        stsl_split_problem q = {h.n, h.ne, (const int(*)[2])h.ends, h.l0, h.hi, h.lo};
        assert_close(stsl_split_solve(ws, &q, mu), t, TOL * fmax(1.0, t));
        for (int e = 0; e < g.ne; e++)
            if (!isinf(g.hi[e])) assert_close(-mu[g.ne - 1 - e], lam[e], 1e-9);
    }
    assert_true(rounds_checked > 500);
    stsl_split_ws_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(triangle),
        cmocka_unit_test(directions),
        cmocka_unit_test(random_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
