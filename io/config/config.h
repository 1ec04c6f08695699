/* config.h - the YAML configuration: loading, full validation, `--set`
 * overrides and the effective configuration written back as YAML.
 *
 * Every rejection is STSL_EINPUT with a one-line message of the form
 *   FILE:LINE: key.path: what is wrong (allowed range / expected type)
 * (for an override: `--set key.path=value: ...`).  Parsing uses libyaml's
 * document API, which keeps the line of every node. */
#ifndef STSL_CONFIG_H
#define STSL_CONFIG_H

#include "models/element_params.h"
#include "run/fixed_step.h"
#include "models/system.h"
#include "run/verify.h"
#include "solver/hybrid.h"

typedef struct stsl_config {
    char source[STSL_PATH_MAX]; /* path it was loaded from ("<string>" for text) */
    char name[256];             /* file name without directory and extension */
    stsl_element_params element;
    stsl_hsolver_opts sim;           /* t_end, output_step, rtol, atol, max_events */
    stsl_scheme_opts scheme;         /* simulation.scheme, step, karnopp_band, ... */
    char output_file[STSL_PATH_MAX]; /* output.file, "" when absent */
    stsl_verify_mode verify;         /* simulation.verify (run --verify) */
    /* A system of bodies (issue 14; models/multibody.h simulates it):
     * is_system = 1 when the file has `bodies:`; then `system` holds it
     * (owned) and `element` is unused. */
    int is_system;
    stsl_system system;
} stsl_config;

/* Load and validate the file at `path`, after applying `n_sets` overrides
 * of the form "key.path=value".  Relative table files are resolved against
 * the configuration's directory.  On failure *cfg holds nothing to free. */
int stsl_config_load(const char *path, const char *const *sets, int n_sets, stsl_config *cfg,
                     stsl_error *err);
/* The same from YAML text; `origin` names it in messages and `base_dir`
 * resolves relative table files (NULL: current directory). */
int stsl_config_load_string(const char *text, const char *origin, const char *base_dir,
                            const char *const *sets, int n_sets, stsl_config *cfg, stsl_error *err);
/* The effective configuration, every default filled in, as YAML text
 * (malloc'd; the caller frees).  Loading it again gives the same config. */
char *stsl_config_to_yaml(const stsl_config *cfg);
/* The absolute tolerance `atol: auto` derives at cfg's rtol, the smallest
 * per kind of state component (x, v, and sigma0 z with a LuGre law; a
 * system's over its bodies and contacts), with their units: the number
 * of kinds (2 or 3), 0 when out of memory. */
int stsl_config_auto_atol(const stsl_config *cfg, double a[3], const char *units[3]);
/* A deep copy of `src` into `dst` (table data included): a config must
 * never be copied by assignment, which would share (and double-free) the
 * tables.  On failure *dst holds nothing to free. */
int stsl_config_copy(stsl_config *dst, const stsl_config *src, stsl_error *err);
/* Set one key of the effective configuration (as stsl_config_to_yaml writes
 * it) to a YAML value: exactly `stickslip run EFFECTIVE.yaml --set key=value`,
 * with the message of that `--set` minus its "--set key=value: " prefix (so
 * "friction.dynamic: must be >= 0 (got -1)").  A number key the key table
 * (io/config/config_keys.c) lets set alone, a contact's or stop's by index or name,
 * is checked by the loader's number check and written in place, without the
 * YAML round trip (about 40 us); a value that breaks a rule between keys
 * (tst >= tc) goes through the round trip, for the loader's message.
 * The effective configuration keeps the static level as the file gave it,
 * so friction.dynamic keeps a friction.static force (refusing a dynamic
 * level above it) or else the ratio, as `--set` on the file itself does.
 * On failure *cfg is unchanged. */
int stsl_config_set(stsl_config *cfg, const char *key, const char *value, stsl_error *err);
/* The fast part of stsl_config_set alone: STSL_OK or the refusal when the
 * key may be set on its own, else STSL_SET_RELOAD with *cfg unchanged (the
 * key needs the full load).  A sweep over such keys sets each variant in
 * place; tests assert which keys take this path. */
#define STSL_SET_RELOAD 1
int stsl_config_set_alone(stsl_config *cfg, const char *key, const char *value, stsl_error *err);
/* The same, always through the full YAML round trip (the reference the fast
 * path is tested against). */
int stsl_config_set_reload(stsl_config *cfg, const char *key, const char *value, stsl_error *err);
/* Several "key.path=value" overrides at once on the effective configuration
 * (keys that are only valid together: a scheme and its step), with the
 * messages of --set naming each as "set 'key.path=value'" (the caller
 * typed no option).  On failure *cfg is unchanged. */
int stsl_config_apply(stsl_config *cfg, const char *const *sets, int n_sets, stsl_error *err);
/* A key's value in the effective configuration as one line of YAML
 * (malloc'd; the caller frees); NULL with `err` filled when there is none. */
char *stsl_config_get(const stsl_config *cfg, const char *key, stsl_error *err);
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

/* Free what the config owns (table data). NULL-safe. */
void stsl_config_free(stsl_config *cfg);

#endif
