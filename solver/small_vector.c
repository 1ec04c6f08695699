/* small_vector.c - the fast operations of small serial N_Vectors.
 *
 * Why: with a state of two or three components, CVODE's vector operations
 * cost far more in calls than in arithmetic.  The serial module's linear
 * sum dispatches through two functions and seven special cases to a
 * helper; CVODE's fused operations, which the serial module leaves off by
 * default, fall back to one such call per vector (the Adams corrector
 * update is q + 1 of them every step).  Here every operation is one loop.
 *
 * Bit-exactness: each function below computes what SUNDIALS 6.4 computes
 * with a plain serial vector (the serial module, or the generic fall-back
 * of sundials_nvector.c for a fused or array operation), element by
 * element in the same order.  The serial linear sum's special cases all
 * reduce to a*x + b*y (a factor of 1 or -1 is exact), except a == b and
 * a == -b with |a| != 1, which it computes as a*(x + y) and a*(x - y). */
#include "solver/small_vector.h"

#include <math.h>

static sunindextype len(N_Vector v)
{
    return NV_LENGTH_S(v);
}

static sunrealtype *dat(N_Vector v)
{
    return NV_DATA_S(v);
}

static void linear_sum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z)
{
    const sunrealtype *xd = dat(x), *yd = dat(y);
    sunrealtype *zd = dat(z);
    sunindextype n = len(x);
    if (a == 1.0 && b == 1.0 && n == 2) { /* CVODE's predictor, q (q + 1) / 2 calls a step */
        sunrealtype z0 = xd[0] + yd[0], z1 = xd[1] + yd[1]; /* both read first: z may be x */
        zd[0] = z0;
        zd[1] = z1;
    } else if (a == 1.0 && b == 1.0) {
        for (sunindextype i = 0; i < n; i++)
            zd[i] = xd[i] + yd[i];
    } else if (a == b && a != 1.0 && a != -1.0) {
        for (sunindextype i = 0; i < n; i++)
            zd[i] = a * (xd[i] + yd[i]);
    } else if (a == -b && a != 1.0 && a != -1.0) {
        for (sunindextype i = 0; i < n; i++)
            zd[i] = a * (xd[i] - yd[i]);
    } else {
        for (sunindextype i = 0; i < n; i++)
            zd[i] = a * xd[i] + b * yd[i];
    }
}

static void set_const(sunrealtype c, N_Vector z)
{
    sunrealtype *zd = dat(z);
    for (sunindextype i = 0, n = len(z); i < n; i++)
        zd[i] = c;
}

static void prod(N_Vector x, N_Vector y, N_Vector z)
{
    const sunrealtype *xd = dat(x), *yd = dat(y);
    sunrealtype *zd = dat(z);
    for (sunindextype i = 0, n = len(x); i < n; i++)
        zd[i] = xd[i] * yd[i];
}

static void divide(N_Vector x, N_Vector y, N_Vector z)
{
    const sunrealtype *xd = dat(x), *yd = dat(y);
    sunrealtype *zd = dat(z);
    for (sunindextype i = 0, n = len(x); i < n; i++)
        zd[i] = xd[i] / yd[i];
}

/* The serial module copies for c == 1 and negates for c == -1: the same bits. */
static void scale(sunrealtype c, N_Vector x, N_Vector z)
{
    const sunrealtype *xd = dat(x);
    sunrealtype *zd = dat(z);
    for (sunindextype i = 0, n = len(x); i < n; i++)
        zd[i] = c * xd[i];
}

static void vabs(N_Vector x, N_Vector z)
{
    const sunrealtype *xd = dat(x);
    sunrealtype *zd = dat(z);
    for (sunindextype i = 0, n = len(x); i < n; i++)
        zd[i] = fabs(xd[i]);
}

static void inv(N_Vector x, N_Vector z)
{
    const sunrealtype *xd = dat(x);
    sunrealtype *zd = dat(z);
    for (sunindextype i = 0, n = len(x); i < n; i++)
        zd[i] = 1.0 / xd[i];
}

static void add_const(N_Vector x, sunrealtype b, N_Vector z)
{
    const sunrealtype *xd = dat(x);
    sunrealtype *zd = dat(z);
    for (sunindextype i = 0, n = len(x); i < n; i++)
        zd[i] = xd[i] + b;
}

static sunrealtype dot(N_Vector x, N_Vector y)
{
    const sunrealtype *xd = dat(x), *yd = dat(y);
    sunrealtype sum = 0.0;
    for (sunindextype i = 0, n = len(x); i < n; i++)
        sum += xd[i] * yd[i];
    return sum;
}

static sunrealtype max_norm(N_Vector x)
{
    const sunrealtype *xd = dat(x);
    sunrealtype m = 0.0;
    for (sunindextype i = 0, n = len(x); i < n; i++)
        if (fabs(xd[i]) > m) m = fabs(xd[i]);
    return m;
}

static sunrealtype wsqr_sum(N_Vector x, N_Vector w)
{
    const sunrealtype *xd = dat(x), *wd = dat(w);
    sunrealtype sum = 0.0;
    for (sunindextype i = 0, n = len(x); i < n; i++) {
        sunrealtype p = xd[i] * wd[i];
        sum += p * p;
    }
    return sum;
}

static sunrealtype wrms_norm(N_Vector x, N_Vector w)
{
    sunrealtype m = wsqr_sum(x, w) / (sunrealtype)len(x);
    return m <= 0.0 ? 0.0 : sqrt(m);
}

static sunrealtype vmin(N_Vector x)
{
    const sunrealtype *xd = dat(x);
    sunrealtype m = xd[0];
    for (sunindextype i = 1, n = len(x); i < n; i++)
        if (xd[i] < m) m = xd[i];
    return m;
}

/* z = c[0] X[0] + ... as the generic fall-back: z = c[0] X[0], then
 * z = c[i] X[i] + z in turn (element-wise, so any aliasing reads alike). */
static int linear_combination(int nv, sunrealtype *c, N_Vector *X, N_Vector z)
{
    sunrealtype *zd = dat(z);
    sunindextype n = len(z);
    for (sunindextype j = 0; j < n; j++)
        zd[j] = c[0] * dat(X[0])[j];
    for (int i = 1; i < nv; i++) {
        const sunrealtype *xd = dat(X[i]);
        sunrealtype ci = c[i];
        for (sunindextype j = 0; j < n; j++)
            zd[j] = ci * xd[j] + zd[j];
    }
    return 0;
}

/* Z[i] = a[i] x + Y[i]. */
static int scale_add_multi(int nv, sunrealtype *a, N_Vector x, N_Vector *Y, N_Vector *Z)
{
    const sunrealtype *xd = dat(x);
    sunindextype n = len(x);
    for (int i = 0; i < nv; i++) {
        const sunrealtype *yd = dat(Y[i]);
        sunrealtype *zd = dat(Z[i]), ai = a[i];
        for (sunindextype j = 0; j < n; j++)
            zd[j] = ai * xd[j] + yd[j];
    }
    return 0;
}

static int dot_multi(int nv, N_Vector x, N_Vector *Y, sunrealtype *d)
{
    for (int i = 0; i < nv; i++)
        d[i] = dot(x, Y[i]);
    return 0;
}

static int linear_sum_array(int nv, sunrealtype a, N_Vector *X, sunrealtype b, N_Vector *Y,
                            N_Vector *Z)
{
    for (int i = 0; i < nv; i++)
        linear_sum(a, X[i], b, Y[i], Z[i]);
    return 0;
}

static int scale_array(int nv, sunrealtype *c, N_Vector *X, N_Vector *Z)
{
    for (int i = 0; i < nv; i++)
        scale(c[i], X[i], Z[i]);
    return 0;
}

static int const_array(int nv, sunrealtype c, N_Vector *Z)
{
    for (int i = 0; i < nv; i++)
        set_const(c, Z[i]);
    return 0;
}

static int wrms_norm_array(int nv, N_Vector *X, N_Vector *W, sunrealtype *nrm)
{
    for (int i = 0; i < nv; i++)
        nrm[i] = wrms_norm(X[i], W[i]);
    return 0;
}

N_Vector stsl_small_vector_new(sunindextype n, SUNContext ctx)
{
    N_Vector v = N_VNew_Serial(n, ctx);
    if (!v) return NULL;
    N_Vector_Ops o = v->ops;
    o->nvlinearsum = linear_sum;
    o->nvconst = set_const;
    o->nvprod = prod;
    o->nvdiv = divide;
    o->nvscale = scale;
    o->nvabs = vabs;
    o->nvinv = inv;
    o->nvaddconst = add_const;
    o->nvdotprod = dot;
    o->nvmaxnorm = max_norm;
    o->nvwrmsnorm = wrms_norm;
    o->nvmin = vmin;
    o->nvwsqrsumlocal = wsqr_sum;
    o->nvdotprodlocal = dot;
    o->nvmaxnormlocal = max_norm;
    o->nvminlocal = vmin;
    o->nvlinearcombination = linear_combination;
    o->nvscaleaddmulti = scale_add_multi;
    o->nvdotprodmulti = dot_multi;
    o->nvlinearsumvectorarray = linear_sum_array;
    o->nvscalevectorarray = scale_array;
    o->nvconstvectorarray = const_array;
    o->nvwrmsnormvectorarray = wrms_norm_array;
    return v;
}
