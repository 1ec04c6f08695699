/* config_api.h - the public configuration object (stsl_cfg): the internal
 * io/config/config value behind an opaque pointer. */
#ifndef STSL_API_CONFIG_API_H
#define STSL_API_CONFIG_API_H

#include "include/stickslip.h"
#include "io/config/config.h"

struct stsl_cfg {
    stsl_config c;
    /* stsl_cfg_set_cancel's flag (NULL: none).  Beside c, not in it, so that
     * a key set by re-validating the whole configuration cannot drop it. */
    const volatile int *cancel;
    /* stsl_cfg_set_progress's callback (NULL: none); not copied by a clone
     * (a copy kept by a result must not call back into a finished caller). */
    stsl_progress_fn progress;
    void *progress_ctx;
};

#endif
