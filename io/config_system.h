/* config_system.h - the configuration of a system of bodies (issue 14;
 * simulated by models/multibody.h): the keys bodies, couplings,
 * contacts, stops and inputs.forces, read with the schema helpers of
 * io/config_read.h and checked by models/system.c, whose key-path issues
 * become FILE:LINE messages here.  docs/configuration.md documents them. */
#ifndef STSL_CONFIG_SYSTEM_H
#define STSL_CONFIG_SYSTEM_H

#include <stdio.h>

#include "io/config.h"
#include "io/config_read.h"

/* Read the system sections of the top-level mapping `top` (which has
 * `bodies`) into cfg->system and set cfg->is_system.  The one element's
 * sections (element, friction, end_stops, initial) are refused. */
int stsl_config_system_load(const stsl_cr_map *top, stsl_config *cfg);
/* The system's part of the effective configuration (domain to inputs). */
void stsl_config_system_put(FILE *f, const stsl_config *cfg);
/* The number behind a system key (bodies.NAME.mass, contacts.0.dynamic,
 * inputs.forces.NAME.amplitude, ...) when it may be set alone; NULL when
 * it must go through the full load. */
double *stsl_config_system_slot(stsl_config *cfg, const char *key, const stsl_cr_range **r);
/* STSL_OK when `cfg` is the one element; STSL_EINPUT naming the
 * configuration for a system of bodies, which the commands that call it
 * cannot handle yet. */
int stsl_config_require_element(const stsl_config *cfg, stsl_error *err);
/* STSL_OK when `stickslip run` / stsl_run can simulate `cfg`: the one
 * element, or a system of bodies without verify (the verified run is the
 * element's only) whose fixed-step scheme, if any, suits its contacts and
 * stops (stsl_fixed_step_system_check); STSL_EINPUT naming the key
 * otherwise. */
int stsl_config_require_runnable(const stsl_config *cfg, stsl_error *err);
/* A summary of a system for `stickslip check` (malloc'd, several lines;
 * NULL when out of memory): its bodies, couplings, contacts, stops and
 * forces; "" for the one element, whose `check` line stays as it was. */
char *stsl_config_summary(const stsl_config *cfg);

#endif
