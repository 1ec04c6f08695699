/* Friction levels (SPEC §1.1) and the Stribeck slip law (SPEC §2), against
 * the closed forms and the seed's worked checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "physics/friction.h"
#include "test/testutil.h"

static stsl_friction_params params(double fdj, double fsd, double eto, double eta)
{
    stsl_friction_params p = {0};
    p.law = STSL_LAW_COULOMB;
    p.dynamic = fdj;
    p.static_ratio = fsd;
    p.eff_opposing = eto;
    p.eff_aiding = eta;
    p.stribeck_exponent = 2.0;
    return p;
}

/* Opposing load: F_D = F_DJ + (1/EtO - 1)|F_R|, in both directions. */
static void opposing_load(void **state)
{
    (void)state;
    stsl_friction_params p = params(10.0, 1.2, 0.8, 0.6);
    double fd, fs;
    stsl_friction_levels(&p, +1, -50.0, &fd, &fs);
    assert_close(fd, 10.0 + 0.25 * 50.0, 1e-12);
    assert_close(fs, 1.2 * 22.5, 1e-12);
    stsl_friction_levels(&p, -1, +50.0, &fd, &fs);
    assert_close(fd, 22.5, 1e-12);
}

/* Aiding load: F_D = F_DJ + (1 - EtA)|F_R|. */
static void aiding_load(void **state)
{
    (void)state;
    stsl_friction_params p = params(10.0, 1.2, 0.8, 0.6);
    double fd, fs;
    stsl_friction_levels(&p, +1, 50.0, &fd, &fs);
    assert_close(fd, 10.0 + 0.4 * 50.0, 1e-12);
    assert_close(fs, 36.0, 1e-12);
    stsl_friction_levels(&p, -1, -50.0, &fd, &fs);
    assert_close(fd, 30.0, 1e-12);
}

/* No load: the load-invariant part alone, whatever the efficiencies. */
static void no_load(void **state)
{
    (void)state;
    stsl_friction_params p = params(7.0, 1.5, 0.3, -1.0);
    double fd, fs;
    for (int s = -1; s <= 1; s += 2) {
        stsl_friction_levels(&p, s, 0.0, &fd, &fs);
        assert_close(fd, 7.0, 0.0);
        assert_close(fs, 10.5, 1e-12);
    }
}

/* The seed's worked checks: with EtA = 0 an aiding load is cancelled exactly
 * by the friction it creates; with EtA = -0.5 (-1) it creates 1.5 |F_R|
 * (2 |F_R|), so the motor must push 0.5 |F_R| (|F_R|) to move with it. */
static void seed_worked_checks(void **state)
{
    (void)state;
    const double fr = 40.0;
    const double eta[3] = {0.0, -0.5, -1.0}, created[3] = {1.0, 1.5, 2.0};
    for (int i = 0; i < 3; i++) {
        stsl_friction_params p = params(0.0, 1.0, 1.0, eta[i]);
        double fd, fs;
        stsl_friction_levels(&p, +1, fr, &fd, &fs);
        assert_close(fd, created[i] * fr, 1e-12);
        /* Motor force needed to slide with the load: F_D - F_R. */
        assert_close(fd - fr, (created[i] - 1.0) * fr, 1e-12);
    }
}

/* Stribeck: F_S at zero speed, F_D far away, the closed form in between. */
static void stribeck_curve(void **state)
{
    (void)state;
    stsl_friction_params p = params(10.0, 1.5, 1.0, 1.0);
    p.law = STSL_LAW_STRIBECK;
    p.stribeck_velocity = 0.01;
    assert_close(stsl_friction_slip(&p, 10.0, 15.0, 0.0), 15.0, 1e-12);
    assert_close(stsl_friction_slip(&p, 10.0, 15.0, 1.0), 10.0, 1e-12);
    assert_close(stsl_friction_slip(&p, 10.0, 15.0, 0.01), 10.0 + 5.0 * exp(-1.0), 1e-12);
    p.stribeck_exponent = 1.0;
    assert_close(stsl_friction_slip(&p, 10.0, 15.0, 0.02), 10.0 + 5.0 * exp(-2.0), 1e-12);
    p.law = STSL_LAW_COULOMB; /* coulomb ignores the Stribeck keys */
    assert_close(stsl_friction_slip(&p, 10.0, 15.0, 0.0), 10.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opposing_load),  cmocka_unit_test(aiding_load),
        cmocka_unit_test(no_load),        cmocka_unit_test(seed_worked_checks),
        cmocka_unit_test(stribeck_curve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
