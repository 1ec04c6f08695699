/* element_params.c - the automatic atol of an element (see
 * element_params.h). */
#include "models/element_params.h"

#include <math.h>

#include "models/multibody.h"
#include "models/one_body.h"
#include "models/system.h"

/* The element runs as a system of one body (models/one_body.h), so its
 * natural scales are that system's (models/multibody.c, state_scales: the
 * rule and why). */
int stsl_element_atol(const stsl_element_params *p, double rtol, double atol, double out[3],
                      const char *units[3])
{
    const stsl_column *cols = stsl_one_body_columns(p->domain);
    units[0] = cols[STSL_COL_X].units;
    units[1] = cols[STSL_COL_V].units;
    units[2] = cols[STSL_COL_FRICTION].units; /* sigma0 z is a force */
    out[0] = out[1] = out[2] = NAN;
    stsl_system sys;
    stsl_error err = {0};
    if (stsl_system_from_element(p, &sys)) return 0;
    stsl_multibody *m = stsl_multibody_create(&sys, rtol, atol, &err);
    int n = 0;
    if (m) {
        const stsl_hmodel *h = stsl_multibody_model(m);
        n = h->n_state;
        stsl_hsolver_atol(h->state_scale, n, rtol, atol, out);
    }
    stsl_multibody_free(m);
    stsl_system_free(&sys);
    return n;
}
