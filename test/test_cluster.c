/* test_cluster.c - constraint forces of clusters (models/cluster) against
 * closed forms: a body stuck to ground or to an accelerating base, two
 * bodies stuck together, a chain (partial sums), base - body - free body,
 * loops (parallel contacts, a triangle, ground - body - base: minimum-norm
 * split), a ring (the minimum-norm characterisation), conflicts, several
 * clusters in one problem, the orientation of edges, the labels of
 * components, the reuse of one workspace, every error, no allocation in a
 * solve, and 300 random problems against an independent oracle (the whole
 * KKT system's minimum-norm solution by SVD); the tree solve (from the
 * leaves up) against the dense QR on 300 random forests, and the analysis
 * kept for many solves.
 *
 * Tolerances: the matrices hold only 0 and +-1 and are well conditioned
 * (cluster.c: sigma_min/sigma_max >= 1/(nb sqrt(2 ne))), so LU and SVD give
 * lambda to a few ulps of the largest force times the cluster size: 1e-12
 * relative to the forces' scale (O(1..100) here) leaves a margin of more
 * than 100 over the 2e-16 * 50 of the largest case.  Accelerations of a
 * cluster are exact by construction and compared with ==. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/cluster.h"
#include "test/testutil.h"

#define TOL 1e-12

/* Counting allocations (test_no_allocation): this executable's malloc,
 * calloc and realloc take precedence over libc's for every library in the
 * process (GSL included) and forward to glibc's own.  Not under the
 * sanitizers (address, thread), which replace or intercept the allocator
 * themselves: under TSan an instrumented malloc runs before its runtime is
 * initialised and crashes. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STSL_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STSL_TEST_SANITIZED 1
#endif
#ifndef STSL_TEST_SANITIZED
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
static long n_allocations;
void *malloc(size_t n)
{
    n_allocations++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t size)
{
    n_allocations++;
    return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n)
{
    n_allocations++;
    return __libc_realloc(p, n);
}
#endif

/* Solve p with a workspace of exactly its size; asserts success. */
static void solve(const stsl_cstr_problem *p, stsl_cstr_solution *out)
{
    stsl_cstr_ws *ws = stsl_cstr_ws_create(p->n_bodies, p->n_fixed, p->n_edges);
    assert_non_null(ws);
    stsl_error err = {0};
    int rc = stsl_cstr_solve(ws, p, out, &err);
    if (rc != 0) fail_msg("stsl_cstr_solve: %s", err.msg);
    stsl_cstr_ws_free(ws);
}

/* One body stuck to ground: a = 0, lambda = -f; stuck to a base of
 * acceleration ab: lambda = m ab - f. */
static void test_body_on_ground(void **state)
{
    (void)state;
    const double m[] = {2.0}, f[] = {3.5}, acc0[] = {0.0}, acc1[] = {1.5};
    const int edges[][2] = {{0, 1}};
    stsl_cstr_problem p = {1, m, f, 1, acc0, 1, edges};
    double a[1], l[1];
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    assert_true(a[0] == 0.0);
    assert_close(l[0], -3.5, TOL);
    assert_int_equal(s.redundant, 0);
    assert_int_equal(s.conflict, 0);
    p.fixed_acc = acc1;
    solve(&p, &s);
    assert_true(a[0] == 1.5);
    assert_close(l[0], 2.0 * 1.5 - 3.5, TOL);
}

/* Two bodies stuck together, a force F on body 0: a = F/(m0+m1); the
 * force on body 0 is m0 a - F (-m1 a: body 1 is dragged along), and the
 * other orientation of the edge gives the force on body 1, +m1 a. */
static void test_two_bodies(void **state)
{
    (void)state;
    const double m[] = {1.0, 3.0}, f[] = {8.0, 0.0};
    const int fwd[][2] = {{0, 1}}, rev[][2] = {{1, 0}};
    stsl_cstr_problem p = {2, m, f, 0, NULL, 1, fwd};
    double a[2], l[1];
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    assert_true(a[0] == 2.0 && a[1] == 2.0);
    assert_close(l[0], -6.0, TOL);
    assert_int_equal(s.redundant, 0);
    p.edges = rev;
    solve(&p, &s);
    assert_true(a[0] == 2.0 && a[1] == 2.0);
    assert_close(l[0], 6.0, TOL);
}

/* A chain of N bodies, body 0 stuck to a fixed node of acceleration ab,
 * body i stuck to body i-1 (edge i = {i, i-1}).  Body N-1: m a = f +
 * lambda_{N-1}; body i: m_i a = f_i + lambda_i - lambda_{i+1}; so
 * lambda_i = sum_{j >= i} (m_j ab - f_j), the partial sums from the free
 * end. */
#define CHAIN 50
static void check_chain(double ab)
{
    double m[CHAIN], f[CHAIN], a[CHAIN], l[CHAIN];
    int edges[CHAIN][2];
    for (int i = 0; i < CHAIN; i++) {
        m[i] = 0.5 + 0.1 * (i % 7);
        f[i] = 3.0 * sin(1.3 * i + 0.2);
        edges[i][0] = i;
        edges[i][1] = i == 0 ? CHAIN : i - 1;
    }
    const double acc[] = {ab};
    stsl_cstr_problem p = {CHAIN, m, f, 1, acc, CHAIN, (const int(*)[2])edges};
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    assert_int_equal(s.redundant, 0);
    assert_int_equal(s.conflict, 0);
    double sum = 0.0;
    for (int i = CHAIN - 1; i >= 0; i--) {
        sum += m[i] * ab - f[i];
        assert_true(a[i] == ab);
        assert_close(l[i], sum, TOL * 100);
    }
}

static void test_chain(void **state)
{
    (void)state;
    check_chain(0.0);
    check_chain(0.7);
}

/* Base (acceleration ab) - body 0 - body 1: a = ab; lambda1 = m1 ab - f1
 * (edge {1, 0}, on body 1), lambda0 = (m0 + m1) ab - f0 - f1 (edge {0, base}). */
static void test_base_body_free(void **state)
{
    (void)state;
    const double m[] = {2.0, 0.5}, f[] = {1.0, -4.0}, acc[] = {-3.0};
    const int edges[][2] = {{0, 2}, {1, 0}};
    stsl_cstr_problem p = {2, m, f, 1, acc, 2, edges};
    double a[2], l[2];
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    assert_true(a[0] == -3.0 && a[1] == -3.0);
    assert_close(l[1], 0.5 * -3.0 + 4.0, TOL);
    assert_close(l[0], 2.5 * -3.0 - 1.0 + 4.0, TOL);
    assert_int_equal(s.redundant, 0);
}

/* Two parallel stuck contacts between bodies 0 and 1 (free): a = (f0 +
 * f1)/(m0 + m1), the two carry m0 a - f0 together, half each (minimum
 * norm); with opposite orientation the halves have opposite signs. */
static void test_parallel_loop(void **state)
{
    (void)state;
    const double m[] = {1.0, 4.0}, f[] = {6.0, -1.0};
    const int same[][2] = {{0, 1}, {0, 1}}, opposite[][2] = {{0, 1}, {1, 0}};
    stsl_cstr_problem p = {2, m, f, 0, NULL, 2, same};
    double a[2], l[2];
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    double acc = 5.0 / 5.0, inner = 1.0 * acc - 6.0;
    assert_true(a[0] == acc && a[1] == acc);
    assert_close(l[0], inner / 2, TOL);
    assert_close(l[1], inner / 2, TOL);
    assert_int_equal(s.redundant, 1);
    assert_int_equal(s.conflict, 0);
    p.edges = opposite;
    solve(&p, &s);
    assert_close(l[0], inner / 2, TOL);
    assert_close(l[1], -inner / 2, TOL);
    assert_int_equal(s.redundant, 1);
}

/* A body with two stuck contacts to ground, or one to ground and one to a
 * base at rest (equal prescribed accelerations: a loop closed through the
 * prescribed motion): -f/2 each, redundant, no conflict. */
static void test_ground_loops(void **state)
{
    (void)state;
    const double m[] = {3.0}, f[] = {-5.0}, one[] = {0.0}, two[] = {0.0, 0.0};
    const int twice[][2] = {{0, 1}, {0, 1}}, both[][2] = {{0, 1}, {0, 2}};
    stsl_cstr_problem p = {1, m, f, 1, one, 2, twice};
    double a[1], l[2];
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    assert_true(a[0] == 0.0);
    assert_close(l[0], 2.5, TOL);
    assert_close(l[1], 2.5, TOL);
    assert_int_equal(s.redundant, 1);
    stsl_cstr_problem q = {1, m, f, 2, two, 2, both};
    solve(&q, &s);
    assert_close(l[0], 2.5, TOL);
    assert_close(l[1], 2.5, TOL);
    assert_int_equal(s.redundant, 1);
    assert_int_equal(s.conflict, 0);
}

/* A triangle of stuck contacts {0,1}, {1,2}, {2,0} (no fixed node): with
 * r_i = m_i a - f_i (sum 0), the minimum-norm lambda is D^T y with the
 * triangle's Laplacian 3I - J: y = r/3, so lambda_{ij} = (r_i - r_j)/3. */
static void test_triangle(void **state)
{
    (void)state;
    const double m[] = {1.0, 2.0, 5.0}, f[] = {7.0, -2.0, 3.0};
    const int edges[][2] = {{0, 1}, {1, 2}, {2, 0}};
    stsl_cstr_problem p = {3, m, f, 0, NULL, 3, edges};
    double a[3], l[3], r[3];
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    double acc = 8.0 / 8.0;
    for (int i = 0; i < 3; i++) {
        assert_true(a[i] == acc);
        r[i] = m[i] * acc - f[i];
    }
    for (int e = 0; e < 3; e++)
        assert_close(l[e], (r[edges[e][0]] - r[edges[e][1]]) / 3, TOL);
    assert_int_equal(s.redundant, 1);
}

/* A ring of N bodies stuck in a cycle plus one body stuck to ground (two
 * loops' worth of freedom: none, the ring is one loop): lambda solves the
 * bodies' equations, and minimum norm means orthogonal to the null space
 * of D, here the cycle vector (1 on every ring edge, all oriented i ->
 * i+1).  Exercises the SVD threshold on a larger matrix (ring of 40). */
#define RING 40
static void test_ring(void **state)
{
    (void)state;
    double m[RING], f[RING], a[RING], l[RING + 1], res[RING];
    int edges[RING + 1][2];
    for (int i = 0; i < RING; i++) {
        m[i] = 1.0 + 0.25 * (i % 5);
        f[i] = 2.0 * cos(0.7 * i);
        edges[i][0] = i;
        edges[i][1] = (i + 1) % RING;
    }
    edges[RING][0] = 3;
    edges[RING][1] = RING; /* ground */
    const double acc[] = {0.0};
    stsl_cstr_problem p = {RING, m, f, 1, acc, RING + 1, (const int(*)[2])edges};
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    assert_int_equal(s.redundant, 1);
    for (int i = 0; i < RING; i++) {
        assert_true(a[i] == 0.0);
        res[i] = -f[i];
    }
    double cycle = 0.0;
    for (int e = 0; e <= RING; e++) {
        res[edges[e][0]] -= l[e];
        if (edges[e][1] < RING) res[edges[e][1]] += l[e];
        if (e < RING) cycle += l[e];
    }
    for (int i = 0; i < RING; i++)
        assert_close(res[i], 0.0, TOL * 100);
    assert_close(cycle, 0.0, TOL * 100);
    /* The ground edge carries the whole external force. */
    double total = 0.0;
    for (int i = 0; i < RING; i++)
        total += f[i];
    assert_close(l[RING], -total, TOL * 100);
}

/* Ground and an accelerating base (2) in one cluster: conflict, that
 * cluster NaN; another cluster in the same problem is still solved. */
static void test_conflict(void **state)
{
    (void)state;
    const double m[] = {1.0, 1.0, 2.0, 2.0}, f[] = {1.0, 2.0, 3.0, 1.0}, acc[] = {0.0, 2.0};
    /* ground = 4, base = 5: ground - 0 - 1 - base, and {2, 3} free. */
    const int edges[][2] = {{0, 4}, {1, 0}, {2, 3}, {1, 5}};
    stsl_cstr_problem p = {4, m, f, 2, acc, 4, edges};
    double a[4], l[4];
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    assert_int_equal(s.conflict, 1);
    assert_true(isnan(a[0]) && isnan(a[1]) && isnan(l[0]) && isnan(l[1]) && isnan(l[3]));
    /* {2, 3}: a = (3 + 1)/(2 + 2), on body 2: m2 a - f2. */
    assert_true(a[2] == 1.0 && a[3] == 1.0);
    assert_close(l[2], -1.0, TOL);
    /* The same without the stuck path to the base: no conflict; body 1:
     * 0 = f1 + l1, body 0: 0 = f0 + l0 - l1. */
    p.n_edges = 3;
    solve(&p, &s);
    assert_int_equal(s.conflict, 0);
    assert_int_equal(s.redundant, 0);
    assert_true(a[0] == 0.0 && a[1] == 0.0);
    assert_close(l[1], -2.0, TOL);
    assert_close(l[0], -3.0, TOL);
}

/* Several clusters at once: {0, 1} stuck together (free), {2} on ground,
 * {3} free, {4, 5} on the base (4 to the base, 5 to 4), {6} on ground
 * (edge orientation body first, ground second throughout). */
static void test_several_clusters(void **state)
{
    (void)state;
    const double m[] = {1.0, 2.0, 3.0, 4.0, 0.5, 1.5, 2.0};
    const double f[] = {3.0, 0.0, -7.0, 2.0, 1.0, -1.0, 4.0};
    const double acc[] = {0.0, -1.25}; /* ground = 7, base = 8 */
    const int edges[][2] = {{0, 1}, {2, 7}, {4, 8}, {5, 4}, {6, 7}};
    stsl_cstr_problem p = {7, m, f, 2, acc, 5, edges};
    double a[7], l[5];
    stsl_cstr_solution s = {a, l, -1, -1};
    solve(&p, &s);
    assert_int_equal(s.redundant, 0);
    assert_int_equal(s.conflict, 0);
    assert_true(a[0] == 1.0 && a[1] == 1.0);
    assert_close(l[0], 1.0 * 1.0 - 3.0, TOL);
    assert_true(a[2] == 0.0);
    assert_close(l[1], 7.0, TOL);
    assert_true(a[3] == 0.5);
    assert_true(a[4] == -1.25 && a[5] == -1.25);
    assert_close(l[3], 1.5 * -1.25 + 1.0, TOL);
    assert_close(l[2], 2.0 * -1.25 - 1.0 + 1.0, TOL);
    assert_true(a[6] == 0.0);
    assert_close(l[4], -4.0, TOL);
    /* Labels: clusters numbered by their smallest node; ws not needed. */
    int label[9];
    stsl_cstr_components(NULL, &p, label);
    const int expect[] = {0, 0, 1, 2, 3, 3, 1, 1, 3};
    for (int i = 0; i < 9; i++)
        assert_int_equal(label[i], expect[i]);
}

/* One workspace, problems of decreasing and increasing size: nothing of an
 * earlier solve leaks into a later one. */
static void test_workspace_reuse(void **state)
{
    (void)state;
    stsl_cstr_ws *ws = stsl_cstr_ws_create(4, 2, 5);
    assert_non_null(ws);
    stsl_error err = {0};
    const double m[] = {1.0, 1.0, 1.0, 1.0}, f[] = {1.0, 2.0, 3.0, 4.0}, acc[] = {0.0, 0.0};
    const int loop[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}};
    stsl_cstr_problem big = {4, m, f, 1, acc, 5, loop};
    double a[4], l[5];
    stsl_cstr_solution s = {a, l, -1, -1};
    assert_int_equal(stsl_cstr_solve(ws, &big, &s, &err), 0);
    assert_int_equal(s.redundant, 1);
    const int pair[][2] = {{1, 0}};
    stsl_cstr_problem small = {2, m + 2, f + 2, 0, NULL, 1, pair};
    assert_int_equal(stsl_cstr_solve(ws, &small, &s, &err), 0);
    assert_int_equal(s.redundant, 0);
    assert_true(a[0] == 3.5 && a[1] == 3.5);
    assert_close(l[0], 3.5 - 4.0, TOL);
    stsl_cstr_problem none = {0, NULL, NULL, 0, NULL, 0, NULL};
    assert_int_equal(stsl_cstr_solve(ws, &none, &s, &err), 0);
    assert_int_equal(stsl_cstr_solve(ws, &big, &s, &err), 0);
    /* Loop 0-1-2-3 plus 0 to ground: all loads end in the ground edge. */
    assert_close(l[4], -10.0, TOL);
    stsl_cstr_ws_free(ws);
    stsl_cstr_ws_free(NULL);
    assert_null(stsl_cstr_ws_create(-1, 0, 0));
}

/* ---- random problems against an independent oracle ----------------------
 *
 * The whole problem as one KKT system over (a, lambda): m_i a_i - sum_e
 * D_ie lambda_e = f_i, and per edge a_{e0} - a_{e1} = 0 (a body) or a_{e0}
 * = the fixed node's acceleration.  The accelerations are unique and
 * lambda is determined up to the null space of D, so the minimum-norm
 * solution of the KKT system, pinv(K) rhs (Golub-Reinsch SVD, singular
 * values below 1e-10 of the largest dropped), is (a, the minimum-norm
 * lambda): what stsl_cstr_solve must give, cluster by cluster, by another
 * route (one matrix, masses inside, no ordering, no rank counting).
 * Tolerance: K has entries in [-1, 2] and condition below ~1e4 for these
 * sizes (38 unknowns at most), so both solutions agree to ~1e4 * 40 * eps
 * ~ 1e-10 of the O(10) values; 1e-8 absolute. */
#define RB 12           /* bodies at most */
#define RE (2 * RB + 2) /* edges at most */
#define RK (RB + RE)    /* KKT unknowns at most */

static unsigned lcg(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

static void oracle(const stsl_cstr_problem *p, double *a, double *l)
{
    int nb = p->n_bodies, ne = p->n_edges, n = nb + ne;
    gsl_matrix *k = gsl_matrix_calloc((size_t)n, (size_t)n),
               *v = gsl_matrix_alloc((size_t)n, (size_t)n);
    gsl_vector *s = gsl_vector_alloc((size_t)n), *w = gsl_vector_alloc((size_t)n);
    gsl_vector *rhs = gsl_vector_calloc((size_t)n), *x = gsl_vector_alloc((size_t)n);
    for (int i = 0; i < nb; i++) {
        gsl_matrix_set(k, (size_t)i, (size_t)i, p->mass[i]);
        gsl_vector_set(rhs, (size_t)i, p->force[i]);
    }
    for (int e = 0; e < ne; e++) {
        int b0 = p->edges[e][0], b1 = p->edges[e][1];
        gsl_matrix_set(k, (size_t)b0, (size_t)(nb + e), -1.0);
        gsl_matrix_set(k, (size_t)(nb + e), (size_t)b0, 1.0);
        if (b1 < nb) {
            gsl_matrix_set(k, (size_t)b1, (size_t)(nb + e), 1.0);
            gsl_matrix_set(k, (size_t)(nb + e), (size_t)b1, -1.0);
        } else {
            gsl_vector_set(rhs, (size_t)(nb + e), p->fixed_acc[b1 - nb]);
        }
    }
    assert_int_equal(gsl_linalg_SV_decomp(k, v, s, w), 0);
    double smax = gsl_vector_get(s, 0);
    for (int j = 0; j < n; j++) {
        double sj = gsl_vector_get(s, (size_t)j);
        gsl_vector_set(s, (size_t)j, sj > 1e-10 * smax ? 1.0 / sj : 0.0);
    }
    gsl_blas_dgemv(CblasTrans, 1.0, k, rhs, 0.0, w); /* U^T rhs */
    gsl_vector_mul(w, s);
    gsl_blas_dgemv(CblasNoTrans, 1.0, v, w, 0.0, x);
    for (int i = 0; i < nb; i++)
        a[i] = gsl_vector_get(x, (size_t)i);
    for (int e = 0; e < ne; e++)
        l[e] = gsl_vector_get(x, (size_t)(nb + e));
    gsl_matrix_free(k);
    gsl_matrix_free(v);
    gsl_vector_free(s);
    gsl_vector_free(w);
    gsl_vector_free(rhs);
    gsl_vector_free(x);
}

static void test_random_against_oracle(void **state)
{
    (void)state;
    unsigned seed = 12345u;
    stsl_cstr_ws *ws = stsl_cstr_ws_create(RB, 3, RE);
    assert_non_null(ws);
    int loops = 0, trees = 0;
    for (int run = 0; run < 300; run++) {
        int nb = 1 + (int)(lcg(&seed) % RB), nf = (int)(lcg(&seed) % 4);
        int ne = nb + nf > 1 ? (int)(lcg(&seed) % (unsigned)(2 * nb + 3)) : 0;
        double m[RB], f[RB], acc[3] = {0.25, 0.25, 0.25}, a[RB], l[RE], a_ref[RB], l_ref[RE];
        int edges[RE][2];
        for (int i = 0; i < nb; i++) {
            m[i] = 0.5 + (double)(lcg(&seed) % 1000) / 666.0;
            f[i] = (double)(lcg(&seed) % 2001) / 100.0 - 10.0;
        }
        for (int e = 0; e < ne; e++) {
            edges[e][0] = (int)(lcg(&seed) % (unsigned)nb);
            do
                edges[e][1] = (int)(lcg(&seed) % (unsigned)(nb + nf));
            while (edges[e][1] == edges[e][0]);
        }
        stsl_cstr_problem p = {nb, m, f, nf, acc, ne, (const int(*)[2])edges};
        stsl_cstr_solution sol = {a, l, -1, -1};
        stsl_error err = {0};
        if (stsl_cstr_solve(ws, &p, &sol, &err) != 0) fail_msg("run %d: %s", run, err.msg);
        assert_int_equal(sol.conflict, 0);
        loops += sol.redundant;
        trees += !sol.redundant && ne > 0;
        oracle(&p, a_ref, l_ref);
        for (int i = 0; i < nb; i++)
            assert_close(a[i], a_ref[i], 1e-8);
        for (int e = 0; e < ne; e++)
            assert_close(l[e], l_ref[e], 1e-8);
    }
    /* Both kinds were drawn often. */
    assert_true(loops > 50 && trees > 50);
    stsl_cstr_ws_free(ws);
}

/* The engine solves in every right-hand side: after the workspace is
 * created, solves of trees (QR) and of loops (SVD) allocate nothing. */
static void test_no_allocation(void **state)
{
    (void)state;
#ifdef STSL_TEST_SANITIZED
    skip();
#else
    double m[RING], f[RING], a[RING], l[RING + 2];
    int edges[RING + 2][2];
    for (int i = 0; i < RING; i++) {
        m[i] = 1.0 + i % 3;
        f[i] = sin(i);
        edges[i][0] = i;
        edges[i][1] = (i + 1) % RING;
    }
    edges[RING][0] = 0;
    edges[RING][1] = RING;
    edges[RING + 1][0] = 9;
    edges[RING + 1][1] = RING + 1;
    const double acc[] = {0.0, 0.0};
    stsl_cstr_problem loop = {RING, m, f, 2, acc, RING + 2, (const int(*)[2])edges};
    stsl_cstr_problem tree = {RING, m, f, 1, acc, RING - 1, (const int(*)[2])edges};
    stsl_cstr_problem ring = {RING, m, f, 1, acc, RING, (const int(*)[2])edges};
    stsl_cstr_ws *ws = stsl_cstr_ws_create(RING, 2, RING + 2);
    assert_non_null(ws);
    stsl_cstr_solution s = {a, l, 0, 0};
    stsl_error err = {0};
    int rc = 0, redundant = 0;
    long before = n_allocations;
    for (int k = 0; k < 10; k++) {
        rc |= stsl_cstr_solve(ws, &loop, &s, &err);
        redundant += s.redundant;
        rc |= stsl_cstr_solve(ws, &tree, &s, &err);
        redundant += s.redundant;
        rc |= stsl_cstr_solve(ws, &ring, &s, &err);
        redundant += s.redundant;
    }
    long during = n_allocations - before;
    assert_int_equal(rc, 0);
    assert_int_equal(redundant, 20); /* the loop and the ring */
    assert_int_equal(during, 0);
    stsl_cstr_ws_free(ws);
#endif
}

/* ---- the tree solve against the dense one ------------------------------------ */

/* A random forest over nb bodies (and one fixed node when nf = 1): bodies
 * joined in a random order, each to a random earlier node (the fixed node
 * among them), a new tree now and then; edges in random orientation (a
 * fixed node never first); a chain (every body to the one before) when
 * `chain`: the deepest tree, the longest partial sums.  Returns the edges. */
#define TB 60
static int random_forest(unsigned *seed, int nb, int nf, int chain, int (*edges)[2])
{
    int perm[TB], ne = 0;
    for (int i = 0; i < nb; i++)
        perm[i] = i;
    for (int i = nb - 1; i > 0; i--) {
        int j = (int)(lcg(seed) % (unsigned)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < nb; i++) {
        int v = perm[i], u;
        if (chain)
            u = i > 0 ? perm[i - 1] : nf ? nb : -1;
        else if (i + nf == 0 || lcg(seed) % 8 == 0) /* a new tree (grounded or free) */
            u = nf && lcg(seed) % 2 ? nb : -1;
        else
            u = (int)(lcg(seed) % (unsigned)(i + nf)), u = u < i ? perm[u] : nb;
        if (u < 0) continue;
        int flip = u < nb && lcg(seed) % 2;
        edges[ne][0] = flip ? u : v;
        edges[ne][1] = flip ? v : u;
        ne++;
    }
    return ne;
}

/* On a tree the unique lambda from the leaves up equals the QR's to
 * rounding.  Bound: the tree solve's lambda_e is a sum of at most nb
 * right-hand sides r_i = m_i a - f_i, error <= nb eps sum|r|; the QR is
 * backward stable with the condition of D' at most nb sqrt(2 ne)
 * (cluster.c), error <~ nb sqrt(2 ne) * nb * eps sum|r| <= 60 * 11 * 60 *
 * 1.1e-16 = 4.4e-12 sum|r| for the largest case here; 1e-10 sum|r| leaves
 * a margin of 20.  The accelerations come from the same sums on both paths:
 * equal bit for bit. */
static void test_tree_equals_dense(void **state)
{
    (void)state;
    unsigned seed = 2718u;
    stsl_cstr_ws *tree = stsl_cstr_ws_create(TB, 1, TB), *dense = stsl_cstr_ws_create(TB, 1, TB);
    assert_non_null(tree);
    assert_non_null(dense);
    stsl_cstr_ws_set_dense(dense, 1);
    int deep = 0;
    for (int run = 0; run < 300; run++) {
        int nb = 1 + (int)(lcg(&seed) % TB), nf = (int)(lcg(&seed) % 2), chain = run % 10 == 0;
        int edges[TB][2], ne = random_forest(&seed, nb, nf, chain, edges);
        double m[TB], f[TB], acc[1] = {(double)(lcg(&seed) % 201) / 100.0 - 1.0};
        double a[TB], l[TB], a_d[TB], l_d[TB];
        for (int i = 0; i < nb; i++) {
            m[i] = 0.5 + (double)(lcg(&seed) % 1000) / 666.0;
            f[i] = (double)(lcg(&seed) % 2001) / 100.0 - 10.0;
        }
        stsl_cstr_problem p = {nb, m, f, nf, acc, ne, (const int(*)[2])edges};
        stsl_cstr_solution s = {a, l, -1, -1}, sd = {a_d, l_d, -1, -1};
        stsl_error err = {0};
        if (stsl_cstr_solve(tree, &p, &s, &err) || stsl_cstr_solve(dense, &p, &sd, &err))
            fail_msg("run %d: %s", run, err.msg);
        assert_int_equal(s.redundant, 0);
        assert_int_equal(sd.redundant, 0);
        double sum_r = 0.0;
        for (int i = 0; i < nb; i++) {
            assert_true(a[i] == a_d[i]);
            sum_r += fabs(m[i] * a[i] - f[i]);
        }
        for (int e = 0; e < ne; e++)
            assert_close(l[e], l_d[e], 1e-10 * sum_r);
        deep += chain && nb > 40;
    }
    assert_true(deep > 5); /* long chains were drawn */
    stsl_cstr_ws_free(tree);
    stsl_cstr_ws_free(dense);
}

/* One analysis serves many solves with other forces and fixed
 * accelerations (the engine's: one per mode): the same numbers as a solve
 * from scratch, bit for bit; without lambda the same accelerations; a
 * problem of other sizes than the analysis is refused, and so is a solve
 * before any analysis. */
static void test_analysis_kept(void **state)
{
    (void)state;
    unsigned seed = 99u;
    int edges[TB + 1][2], ne = random_forest(&seed, 30, 1, 0, edges);
    edges[ne][0] = edges[0][0]; /* and a loop: a parallel edge */
    edges[ne][1] = edges[0][1];
    ne++;
    double m[TB], f[TB], acc[1], a[TB], l[TB + 1], a2[TB], l2[TB + 1];
    for (int i = 0; i < 30; i++)
        m[i] = 1.0 + 0.1 * i;
    stsl_cstr_ws *kept = stsl_cstr_ws_create(30, 1, TB + 1),
                 *fresh = stsl_cstr_ws_create(30, 1, TB + 1);
    assert_non_null(kept);
    assert_non_null(fresh);
    stsl_cstr_problem p = {30, m, f, 1, acc, ne, (const int(*)[2])edges};
    stsl_cstr_solution s = {a, l, -1, -1}, s2 = {a2, l2, -1, -1}, acc_only = {a2, NULL, -1, -1};
    stsl_error err = {0};
    assert_int_equal(stsl_cstr_solve_analysed(kept, &p, &s, &err), STSL_EINPUT);
    if (!strstr(err.msg, "analysis is of 0, 0, 0 (none)")) fail_msg("message \"%s\"", err.msg);
    assert_int_equal(stsl_cstr_analyse(kept, &p, &err), 0);
    for (int k = 0; k < 5; k++) {
        acc[0] = 0.3 * k - 0.5;
        for (int i = 0; i < 30; i++)
            f[i] = sin(1.7 * i + k);
        assert_int_equal(stsl_cstr_solve_analysed(kept, &p, &s, &err), 0);
        assert_int_equal(stsl_cstr_solve(fresh, &p, &s2, &err), 0);
        assert_int_equal(s.redundant, 1);
        assert_int_equal(s2.redundant, 1);
        assert_memory_equal(a, a2, sizeof(double) * 30);
        assert_memory_equal(l, l2, sizeof(double) * (size_t)ne);
        for (int i = 0; i < 30; i++)
            a2[i] = NAN;
        assert_int_equal(stsl_cstr_solve_analysed(kept, &p, &acc_only, &err), 0);
        assert_memory_equal(a, a2, sizeof(double) * 30);
    }
    p.n_edges = ne - 1;
    assert_int_equal(stsl_cstr_solve_analysed(kept, &p, &s, &err), STSL_EINPUT);
    char want[128];
    snprintf(want, sizeof want,
             "30 bodies, 1 fixed nodes, %d edges; the workspace's analysis is of 30, 1, %d", ne - 1,
             ne);
    if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    stsl_cstr_ws_free(kept);
    stsl_cstr_ws_free(fresh);
}

/* Each input error: its code and message, and out untouched. */
static void expect_error(const stsl_cstr_problem *p, int max_b, int max_f, int max_e,
                         const char *msg)
{
    stsl_cstr_ws *ws = stsl_cstr_ws_create(max_b, max_f, max_e);
    assert_non_null(ws);
    double a[4] = {42, 42, 42, 42}, l[4] = {42, 42, 42, 42};
    stsl_cstr_solution s = {a, l, 7, 7};
    stsl_error err = {0};
    assert_int_equal(stsl_cstr_solve(ws, p, &s, &err), STSL_EINPUT);
    assert_int_equal(err.code, STSL_EINPUT);
    if (!strstr(err.msg, msg)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, msg);
    assert_true(a[0] == 42 && l[0] == 42 && s.redundant == 7 && s.conflict == 7);
    stsl_cstr_ws_free(ws);
}

static void test_errors(void **state)
{
    (void)state;
    const double m[] = {1.0, 2.0}, bad_m[] = {1.0, 0.0}, f[] = {0.0, 0.0}, acc[] = {0.0};
    const int ok[][2] = {{0, 1}}, out[][2] = {{0, 5}}, neg[][2] = {{-1, 0}},
              fixed_first[][2] = {{2, 0}}, self[][2] = {{1, 1}};
    stsl_cstr_problem p = {2, m, f, 1, acc, 1, ok};
    expect_error(&p, 1, 1, 1,
                 "constraint problem: 2 bodies, 1 fixed nodes, 1 edges; the workspace holds "
                 "0..1, 0..1, 0..1");
    expect_error(&p, 2, 0, 1, "workspace holds 0..2, 0..0, 0..1");
    expect_error(&p, 2, 1, 0, "workspace holds 0..2, 0..1, 0..0");
    p.mass = bad_m;
    expect_error(&p, 2, 1, 1, "constraint problem: body 1: mass 0 is not > 0");
    p.mass = m;
    p.edges = out;
    expect_error(&p, 2, 1, 1, "constraint problem: edge 0: nodes 0, 5; allowed 0..2");
    p.edges = neg;
    expect_error(&p, 2, 1, 1, "constraint problem: edge 0: nodes -1, 0; allowed 0..2");
    p.edges = fixed_first;
    expect_error(&p, 2, 1, 1,
                 "constraint problem: edge 0: first node 2 is a fixed node (bodies are 0..1)");
    p.edges = self;
    expect_error(&p, 2, 1, 1, "constraint problem: edge 0 joins node 1 to itself");
    /* Out-of-range edges are skipped by the labels alone. */
    p.edges = out;
    int label[3];
    stsl_cstr_components(NULL, &p, label);
    assert_true(label[0] == 0 && label[1] == 1 && label[2] == 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_on_ground),
        cmocka_unit_test(test_two_bodies),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_base_body_free),
        cmocka_unit_test(test_parallel_loop),
        cmocka_unit_test(test_ground_loops),
        cmocka_unit_test(test_triangle),
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_conflict),
        cmocka_unit_test(test_several_clusters),
        cmocka_unit_test(test_workspace_reuse),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_no_allocation),
        cmocka_unit_test(test_random_against_oracle),
        cmocka_unit_test(test_tree_equals_dense),
        cmocka_unit_test(test_analysis_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
