/* The small serial vectors (solver/small_vector) compute every operation
 * bit for bit as SUNDIALS' own serial vectors do (the serial module, or the
 * generic fall-back for fused and array operations, which a plain serial
 * vector leaves off): on lengths 1 to 8, over coefficients that hit every
 * special case of the serial linear sum (1, -1, 0, a == b, a == -b), with
 * the aliasing CVODE uses (z == x, z == y).  Compared with memcmp: equal
 * to the last bit, signed zeros included.  And CVODE's clones inherit the
 * fast operations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>

#include "solver/small_vector.h"

#define NV 4 /* vectors per family */

static const sunindextype lengths[] = {1, 2, 3, 8};
static const double coefs[] = {1.0, -1.0, 0.0, 2.5, -2.5, 0.1, -0.3, 1e-300, 3.0e10};
#define N_COEFS ((int)(sizeof coefs / sizeof coefs[0]))

/* The same operands in both kinds of vector: s[] serial, f[] small. */
typedef struct pair {
    N_Vector s[NV], f[NV];
    sunindextype n;
} pair;

/* Deterministic values of mixed sign and magnitude, with exact zeros. */
static double value(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    unsigned r = (*seed >> 8) & 0xffff;
    if (r % 11 == 0) return 0.0;
    double m = (double)r / 65536.0 - 0.5;
    return r % 3 == 0 ? m * 1e-9 : (r % 5 == 0 ? m * 1e7 : m);
}

static void fill(pair *p, unsigned seed)
{
    for (int k = 0; k < NV; k++)
        for (sunindextype i = 0; i < p->n; i++) {
            double v = value(&seed);
            NV_Ith_S(p->s[k], i) = v;
            NV_Ith_S(p->f[k], i) = v;
        }
}

static void make(pair *p, sunindextype n, SUNContext ctx)
{
    p->n = n;
    for (int k = 0; k < NV; k++) {
        p->s[k] = N_VNew_Serial(n, ctx);
        p->f[k] = stsl_small_vector_new(n, ctx);
        assert_non_null(p->s[k]);
        assert_non_null(p->f[k]);
    }
}

static void destroy(pair *p)
{
    for (int k = 0; k < NV; k++) {
        N_VDestroy(p->s[k]);
        N_VDestroy(p->f[k]);
    }
}

/* body(p) on vectors of every length in lengths[], in a context of its own. */
static void each_length(void (*body)(pair *p))
{
    SUNContext ctx;
    assert_int_equal(SUNContext_Create(NULL, &ctx), 0);
    for (int l = 0; l < 4; l++) {
        pair p;
        make(&p, lengths[l], ctx);
        body(&p);
        destroy(&p);
    }
    SUNContext_Free(&ctx);
}

static void assert_same(const pair *p, const char *what, double a, double b)
{
    for (int k = 0; k < NV; k++)
        if (memcmp(NV_DATA_S(p->s[k]), NV_DATA_S(p->f[k]), (size_t)p->n * sizeof(double))) {
            print_error("%s (a = %g, b = %g, n = %ld): vector %d differs from the serial one\n",
                        what, a, b, (long)p->n, k);
            fail();
        }
}

static void assert_same_real(double s, double f, const char *what)
{
    if (memcmp(&s, &f, sizeof s)) {
        print_error("%s: %.17g, serial %.17g\n", what, f, s);
        fail();
    }
}

/* z = a x + b y with z distinct, z == x and z == y. */
static void linear_sum_is_serial_on(pair *p)
{
    for (int i = 0; i < N_COEFS; i++)
        for (int j = 0; j < N_COEFS; j++)
            for (int alias = 0; alias < 3; alias++) {
                double a = coefs[i], b = coefs[j];
                int z = alias == 0 ? 2 : alias == 1 ? 0 : 1;
                fill(p, 17u * (unsigned)(i * N_COEFS + j) + (unsigned)alias);
                N_VLinearSum(a, p->s[0], b, p->s[1], p->s[z]);
                N_VLinearSum(a, p->f[0], b, p->f[1], p->f[z]);
                assert_same(p, "linear sum", a, b);
                /* a == b and a == -b take their own formulas */
                N_VLinearSum(a, p->s[0], a, p->s[1], p->s[z]);
                N_VLinearSum(a, p->f[0], a, p->f[1], p->f[z]);
                assert_same(p, "linear sum a == b", a, a);
                N_VLinearSum(a, p->s[0], -a, p->s[1], p->s[z]);
                N_VLinearSum(a, p->f[0], -a, p->f[1], p->f[z]);
                assert_same(p, "linear sum a == -b", a, -a);
            }
}

static void linear_sum_is_serial(void **state)
{
    (void)state;
    each_length(linear_sum_is_serial_on);
}

static void elementwise_ops_are_serial_on(pair *p)
{
    for (int i = 0; i < N_COEFS; i++) {
        double c = coefs[i];
        fill(p, 1000u + (unsigned)i);
        N_VScale(c, p->s[0], p->s[2]);
        N_VScale(c, p->f[0], p->f[2]);
        N_VScale(c, p->s[1], p->s[1]);
        N_VScale(c, p->f[1], p->f[1]);
        assert_same(p, "scale", c, 0);
        N_VAddConst(p->s[0], c, p->s[3]);
        N_VAddConst(p->f[0], c, p->f[3]);
        N_VProd(p->s[0], p->s[1], p->s[2]);
        N_VProd(p->f[0], p->f[1], p->f[2]);
        assert_same(p, "add const, prod", c, 0);
        fill(p, 2000u + (unsigned)i);
        N_VAbs(p->s[0], p->s[2]);
        N_VAbs(p->f[0], p->f[2]);
        N_VInv(p->s[2], p->s[3]); /* 1/0 = inf in both */
        N_VInv(p->f[2], p->f[3]);
        N_VDiv(p->s[0], p->s[3], p->s[1]);
        N_VDiv(p->f[0], p->f[3], p->f[1]);
        assert_same(p, "abs, inv, div", c, 0);
        N_VConst(c, p->s[0]);
        N_VConst(c, p->f[0]);
        assert_same(p, "const", c, 0);
    }
}

static void elementwise_ops_are_serial(void **state)
{
    (void)state;
    each_length(elementwise_ops_are_serial_on);
}

static void reductions_are_serial_on(pair *p)
{
    for (unsigned seed = 0; seed < 50; seed++) {
        fill(p, 3000u + seed);
        assert_same_real(N_VDotProd(p->s[0], p->s[1]), N_VDotProd(p->f[0], p->f[1]), "dot");
        assert_same_real(N_VMaxNorm(p->s[0]), N_VMaxNorm(p->f[0]), "max norm");
        assert_same_real(N_VMin(p->s[0]), N_VMin(p->f[0]), "min");
        assert_same_real(N_VWrmsNorm(p->s[0], p->s[1]), N_VWrmsNorm(p->f[0], p->f[1]), "wrms");
        N_Vector X[2] = {p->s[0], p->s[1]}, W[2] = {p->s[2], p->s[3]};
        N_Vector Xf[2] = {p->f[0], p->f[1]}, Wf[2] = {p->f[2], p->f[3]};
        double ns[2], nf[2], ds[3], df[3];
        N_VWrmsNormVectorArray(2, X, W, ns);
        N_VWrmsNormVectorArray(2, Xf, Wf, nf);
        assert_same_real(ns[0], nf[0], "wrms array 0");
        assert_same_real(ns[1], nf[1], "wrms array 1");
        N_VDotProdMulti(3, p->s[0], &p->s[1], ds);
        N_VDotProdMulti(3, p->f[0], &p->f[1], df);
        for (int k = 0; k < 3; k++)
            assert_same_real(ds[k], df[k], "dot multi");
    }
}

static void reductions_are_serial(void **state)
{
    (void)state;
    each_length(reductions_are_serial_on);
}

/* Fused and array operations against the generic fall-back that plain
 * serial vectors take, with the aliasing CVODE uses. */
static void fused_and_array_ops_are_serial_on(pair *p)
{
    for (int i = 0; i + 2 < N_COEFS; i++) {
        double c[3] = {coefs[i], coefs[i + 1], coefs[i + 2]};
        fill(p, 4000u + (unsigned)i);
        N_VLinearCombination(3, c, p->s, p->s[3]);
        N_VLinearCombination(3, c, p->f, p->f[3]);
        assert_same(p, "linear combination", c[0], c[1]);
        N_VLinearCombination(3, c, p->s, p->s[0]); /* z == X[0] (CVODE's zn[0]) */
        N_VLinearCombination(3, c, p->f, p->f[0]);
        assert_same(p, "linear combination z == X[0]", c[0], c[1]);
        N_VScaleAddMulti(3, c, p->s[0], &p->s[1], &p->s[1]); /* Z == Y (CVODE's zn) */
        N_VScaleAddMulti(3, c, p->f[0], &p->f[1], &p->f[1]);
        assert_same(p, "scale add multi Z == Y", c[0], c[1]);
        N_Vector Zs[2] = {p->s[2], p->s[3]}, Zf[2] = {p->f[2], p->f[3]};
        N_VScaleAddMulti(2, c, p->s[0], &p->s[0], Zs);
        N_VScaleAddMulti(2, c, p->f[0], &p->f[0], Zf);
        assert_same(p, "scale add multi", c[0], c[1]);
        N_VLinearSumVectorArray(2, c[0], p->s, c[0], &p->s[2], &p->s[2]);
        N_VLinearSumVectorArray(2, c[0], p->f, c[0], &p->f[2], &p->f[2]);
        assert_same(p, "linear sum array", c[0], c[0]);
        N_VScaleVectorArray(2, c, p->s, &p->s[2]);
        N_VScaleVectorArray(2, c, p->f, &p->f[2]);
        assert_same(p, "scale array", c[0], c[1]);
        N_VConstVectorArray(2, c[2], &p->s[1]);
        N_VConstVectorArray(2, c[2], &p->f[1]);
        assert_same(p, "const array", c[2], 0);
    }
}

static void fused_and_array_ops_are_serial(void **state)
{
    (void)state;
    each_length(fused_and_array_ops_are_serial_on);
}

/* CVODE builds its work vectors with N_VClone: they must be small vectors
 * too, serial in content (the dense linear solver reads NV_DATA_S). */
static void clones_keep_the_fast_ops(void **state)
{
    (void)state;
    SUNContext ctx;
    assert_int_equal(SUNContext_Create(NULL, &ctx), 0);
    N_Vector v = stsl_small_vector_new(2, ctx);
    N_Vector s = N_VNew_Serial(2, ctx);
    N_Vector c = N_VClone(v);
    assert_non_null(c);
    assert_int_equal(N_VGetVectorID(c), SUNDIALS_NVEC_SERIAL);
    assert_int_equal(N_VGetLength(c), 2);
    assert_ptr_equal(c->ops->nvlinearsum, v->ops->nvlinearsum);
    assert_ptr_equal(c->ops->nvscaleaddmulti, v->ops->nvscaleaddmulti);
    assert_ptr_not_equal(c->ops->nvlinearsum, s->ops->nvlinearsum);
    assert_non_null(c->ops->nvlinearcombination);
    assert_null(s->ops->nvlinearcombination); /* what "the serial one" means above */
    N_VDestroy(c);
    N_VDestroy(s);
    N_VDestroy(v);
    SUNContext_Free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_sum_is_serial),
        cmocka_unit_test(elementwise_ops_are_serial),
        cmocka_unit_test(reductions_are_serial),
        cmocka_unit_test(fused_and_array_ops_are_serial),
        cmocka_unit_test(clones_keep_the_fast_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
