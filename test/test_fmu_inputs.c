/* test_fmu_inputs.c - how the configuration's signals reach a co-simulation
 * FMU: held over a step, or with their exact first derivatives when the FMU
 * declares canInterpolateInputs.  The FMU (test/fmu/integrator_cs.c)
 * integrates FMI's first-order extrapolation of its inputs exactly, so its
 * outputs are closed forms of the signals and of what it was given:
 *   x        = sum over steps of h u_F(t_j) + h^2/2 u_F'(t_j),
 *   friction = the same of u_B,
 * with u' = 0 when the inputs are held.  Built by cmake/test_fmus.cmake
 * into STSL_TEST_FMU_DIR. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "io/fmu/fmu_run.h"
#include "testutil.h"

#define FMUDIR STSL_TEST_FMU_DIR "/"

/* h = 2^-6 s over 1 s: 64 steps, every t_k = k h exact. */
#define H     0.015625
#define N     64
#define T_END 1.0

/* active_force = 1 + 2 t (a ramp from t = 0: its corner at the first
 * point), base_motion = 0.25 until 0.5 s, then rising at 0.5 m/s (a corner
 * at the point t = 0.5). */
static const char *const RAMPS =
    "element: {mass: 1.0}\n"
    "friction: {law: coulomb, dynamic: 1.0, static_ratio: 1.2}\n"
    "inputs:\n"
    "  active_force: {type: ramp, start_time: 0.0, slope: 2.0, initial: 1.0}\n"
    "  base_motion: {type: ramp, start_time: 0.5, slope: 0.5, initial: 0.25}\n"
    "simulation: {t_end: 1.0, output_step: 0.015625}\n";

/* A sine base motion, 0.01 m at 2 Hz. */
#define A_B 0.01
#define F_B 2.0
static const char *const SINE = "element: {mass: 1.0}\n"
                                "friction: {law: coulomb, dynamic: 1.0, static_ratio: 1.2}\n"
                                "inputs:\n"
                                "  base_motion: {type: sine, amplitude: 0.01, frequency: 2.0}\n"
                                "simulation: {t_end: 1.0, output_step: 0.015625}\n";

static char out[1 << 14];

/* One run of FMUDIR fmu on the configuration `yaml`, inputs mapped by
 * "NAME=SIGNAL" (up to 2, NULL: by name): its samples into *s. */
static void run(const char *yaml, const char *fmu, const char *in0, const char *in1,
                stsl_fmu_samples *s)
{
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load_string(yaml, "<test>", NULL, NULL, 0, &cfg, &err), STSL_OK);
    char path[512];
    snprintf(path, sizeof path, "%s%s", FMUDIR, fmu);
    stsl_fmu_opts o = {0};
    o.path = path;
    if (in0) o.inputs[o.n_inputs++] = in0;
    if (in1) o.inputs[o.n_inputs++] = in1;
    stsl_fmu *f = NULL;
    int rc = stsl_fmu_open(&o, &cfg.element, &f, &err);
    if (!rc) rc = stsl_fmu_run_samples(f, T_END, H, s, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    assert_int_equal(s->n, N + 1);
    stsl_fmu_close(f);
    stsl_config_free(&cfg);
}

/* The ramps' integrals, with and without what holding them loses.  With
 * derivatives the FMU's extrapolation is the ramp itself (its slope from
 * the corner on: the right-hand derivative at t = 0 and at t = 0.5), so
 *   x = t + t^2,  friction = 0.25 t + 0.25 (t - 0.5)_+^2
 * exactly.  Held, each step loses the triangle h^2/2 u': summed,
 *   x = t + t^2 - h t,  friction = ... - 0.25 h (t - 0.5)_+.
 * Every term and partial sum here is a multiple of 2^-14 below 4: the
 * doubles are exact, but the bound allows 4 roundings per step anyway,
 * 4 N eps 4 = 2.3e-13; the held ones miss the other closed form by
 * h t / 2 = 7.8e-3 at the end. */
static void check_ramps(const stsl_fmu_samples *s, int held)
{
    const double tol = 4.0 * N * DBL_EPSILON * 4.0;
    for (long i = 0; i <= N; i++) {
        double t = s->t[i], late = fmax(0.0, t - 0.5);
        assert_close(t, i * H, 0.0);
        assert_close(s->x[i], t + t * t - (held ? H * t : 0.0), tol);
        assert_close(s->friction[i], 0.25 * t + 0.25 * late * late - (held ? 0.25 * H * late : 0.0),
                     tol);
        assert_close(s->v[i], 1.0 + 2.0 * t, 0.0); /* the input at t_k itself */
    }
}

static void t_ramps_with_derivatives(void **state)
{
    (void)state;
    stsl_fmu_samples s;
    run(RAMPS, "integrator.fmu", NULL, NULL, &s);
    check_ramps(&s, 0);
    stsl_fmu_samples_free(&s);
}

/* canInterpolateInputs="false": the inputs are held, and the FMU need not
 * export fmi2SetRealInputDerivatives (this binary does not).  The same
 * binary as the interpolating FMU (which exports it) is held too. */
static void t_ramps_held(void **state)
{
    (void)state;
    const char *fmus[2] = {"integrator_held.fmu", "integrator_held_noderiv.fmu"};
    for (int k = 0; k < 2; k++) {
        stsl_fmu_samples s;
        run(RAMPS, fmus[k], NULL, NULL, &s);
        check_ramps(&s, 1);
        stsl_fmu_samples_free(&s);
    }
}

/* The same ramps on a system of one body: the force is bodies.a.force, the
 * FMU's outputs stand for the body's and its contact's columns. */
static const char *const SYSTEM_RAMPS =
    "bodies:\n"
    "  a: {mass: 1.0}\n"
    "contacts:\n"
    "  - {body: a, name: guide, law: coulomb, dynamic: 1.0, static_ratio: 1.2}\n"
    "inputs:\n"
    "  forces:\n"
    "    a: {type: ramp, start_time: 0.0, slope: 2.0, initial: 1.0}\n"
    "  base_motion: {type: ramp, start_time: 0.5, slope: 0.5, initial: 0.25}\n"
    "simulation: {t_end: 1.0, output_step: 0.015625}\n";

static void t_system_ramps_with_derivatives(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load_string(SYSTEM_RAMPS, "<test>", NULL, NULL, 0, &cfg, &err),
                     STSL_OK);
    stsl_fmu_opts o = {0};
    o.path = FMUDIR "integrator.fmu";
    o.system = &cfg.system;
    o.inputs[o.n_inputs++] = "active_force=bodies.a.force";
    o.outputs[o.n_outputs++] = "x[a]=x";
    o.outputs[o.n_outputs++] = "v[a]=v";
    o.outputs[o.n_outputs++] = "friction[guide]=friction";
    stsl_fmu *f = NULL;
    stsl_sink sink;
    assert_int_equal(stsl_mem_sink_create(&sink, &err), STSL_OK);
    int rc = stsl_fmu_open(&o, &cfg.element, &f, &err);
    if (!rc) rc = stsl_fmu_run(f, T_END, H, &sink, NULL, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    /* columns x[a], v[a], friction[guide], slip_velocity, contact_mode */
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    assert_int_equal(r->n_samples, N + 1);
    double t[N + 1], x[N + 1], v[N + 1], fr[N + 1];
    for (long i = 0; i <= N; i++) {
        const double *row = r->cols + i * r->n_cols;
        t[i] = r->t[i], x[i] = row[0], v[i] = row[1], fr[i] = row[2];
    }
    stsl_fmu_samples s = {.n = N + 1, .t = t, .x = x, .v = v, .friction = fr};
    check_ramps(&s, 0);
    stsl_sink_free(&sink);
    stsl_fmu_close(f);
    stsl_config_free(&cfg);
}

/* A motion's velocity and acceleration as inputs: their derivatives are
 * the motion's acceleration and third derivative.  x integrates the
 * acceleration a = -A w^2 sin(w t) with its rate -A w^3 cos(w t), friction
 * the velocity A w cos(w t) with its rate a; the sums are taken here in
 * the FMU's order with these closed forms.  They differ from the FMU's by
 * the rounding of the signal's own evaluation and of each step's sum: a
 * few eps per step of sums below A w^2 = 1.6, so 64 steps stay below
 * 1e-12 (the derivative terms add up to h/2 (a(t) - a(0)), up to
 * h A w^2 / 2 = 1.2e-2: leaving them out is seen). */
static void t_motion_rates(void **state)
{
    (void)state;
    stsl_fmu_samples s;
    run(SINE, "integrator.fmu", "active_force=base_acceleration", "base_position=base_velocity",
        &s);
    double w = 2.0 * M_PI * F_B, x = 0.0, fr = 0.0, without = 0.0, seen = 0.0;
    for (long i = 0; i <= N; i++) {
        double t = i * H, v = A_B * w * cos(w * t), a = -A_B * w * w * sin(w * t);
        double jerk = -A_B * w * w * w * cos(w * t);
        assert_close(s.x[i], x, 1e-12);
        assert_close(s.friction[i], fr, 1e-12);
        seen = fmax(seen, fabs(s.x[i] - without));
        x += H * a + 0.5 * H * H * jerk;
        fr += H * v + 0.5 * H * H * a;
        without += H * a;
    }
    assert_true(seen > 1e-3);
    stsl_fmu_samples_free(&s);
}

/* canInterpolateInputs="true" without fmi2SetRealInputDerivatives: a bad
 * FMU, exit 2 naming the FMU, its binary and the function. */
static void t_missing_input_derivatives(void **state)
{
    (void)state;
    /* Its inputs and outputs are found by name in any element's
     * configuration: the run stops at loading the binary. */
    int rc = tu_cli(out, sizeof out, "converge '%s' --fmu '%s' --steps 1e-3,5e-4",
                    STSL_SOURCE_DIR "/examples/den_hartog.yaml", FMUDIR "integrator_noderiv.fmu");
    const char *message =
        "integrator_noderiv.fmu: binaries/linux64/integrator_cs.so: missing function "
        "fmi2SetRealInputDerivatives (modelDescription.xml declares canInterpolateInputs=\"true\")";
    if (rc != 2 || !strstr(out, message)) fprintf(stderr, "exit %d:\n%s\n", rc, out);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, message));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_ramps_with_derivatives),        cmocka_unit_test(t_ramps_held),
        cmocka_unit_test(t_system_ramps_with_derivatives), cmocka_unit_test(t_motion_rates),
        cmocka_unit_test(t_missing_input_derivatives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
