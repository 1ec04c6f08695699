/* config_api.h - the public configuration object (stsl_cfg): the internal
 * io/config value behind an opaque pointer. */
#ifndef STSL_API_CONFIG_API_H
#define STSL_API_CONFIG_API_H

#include "include/stickslip.h"
#include "io/config.h"

struct stsl_cfg {
    stsl_config c;
};

#endif
