/* The Janecek chirp against an independent high-precision reference: every
 * event time and the stuck positions, computed piecewise by Taylor series in
 * 45-digit arithmetic by test/reference/janecek_events.py (mpmath), not by
 * stickslip.  The damper, the spring, the base inertia and both friction
 * levels all shape these times, so a wrong coefficient anywhere moves them
 * by far more than the tolerance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "models/element_params.h"
#include "test/reference/janecek_events.h"
#include "test/testutil.h"

static void janecek_events_match_reference(void **state)
{
    (void)state;
    /* The shipped example (rtol 1e-10, atol derived from it).  Its stiffness
     * 8882.643960980423 is m (3 pi)^2, the reference's, to 1e-16 relative. */
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(STSL_SOURCE_DIR "/examples/janecek_chirp.yaml", NULL, 0, &cfg, &err))
        print_error("config: %s\n", err.msg);
    assert_int_equal(err.code, STSL_OK);
    assert_true(cfg.sim.rtol == 1e-10 && cfg.sim.atol == 0.0);
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_config(&cfg, &sink);
    stsl_config_free(&cfg);
    assert_int_equal(r->n_events, N_REF);
    /* Tolerance: at rtol 1e-10 each segment's end is located with the
     * integration error of the segments before it, which over the ~15
     * oscillations of this run stays near 1e-10 relative (measured: 6e-10 s
     * on the times, 1e-11 m on the positions, and 1.2e-8 s at rtol 1e-8,
     * so the error scales with rtol, not with the reference).  The same
     * bound as test_element's: weighted RMS < 1 with rtol 1e-8, atol 1e-10.
     * The mutants of scripts/mutants.txt that scale the damper by 1.5, the
     * spring by 1.01, flip the base inertia or misstate the chirp fail here. */
    for (long i = 0; i < N_REF; i++) {
        assert_int_equal(r->events[i].kind, janecek_ref[i].kind);
        assert_wrms1(r->events[i].t, janecek_ref[i].t, 1e-8, 1e-10);
        assert_wrms1(r->events[i].after[STSL_COL_X], janecek_ref[i].x, 1e-8, 1e-10);
    }
    assert_int_equal(r->mode[0], STSL_MODE_STUCK);
    stsl_sink_free(&sink);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(janecek_events_match_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
