/* sweep.c - the C API in one page: load a configuration, vary one key by
 * `set` on clones, run each variant into a summary only and print its
 * first breakaway time.
 *
 *   cc sweep.c $(pkg-config --cflags --libs stickslip) -o sweep
 *   ./sweep examples/janecek_chirp.yaml
 *
 * Prints "friction.static first_breakaway_time" per line: 100 static
 * (breakaway) levels from 18 N (the file's dynamic level, the lowest one
 * allowed) to 36 N.  The element starts locked at rest, so its first
 * breakaway depends on the static level alone. */
#include <stdio.h>

#include <stickslip.h>

int main(int argc, char **argv)
{
    stsl_err err;
    if (argc != 2) {
        fprintf(stderr, "usage: %s CONFIG.yaml\n", argv[0]);
        return 2;
    }
    stsl_cfg *base = stsl_cfg_load(argv[1], &err);
    if (!base) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    for (int i = 0; i < 100; i++) {
        char value[32];
        stsl_summary sum;
        snprintf(value, sizeof value, "%.17g", 18.0 + 18.0 * i / 99.0);
        stsl_cfg *cfg = stsl_cfg_clone(base, &err);
        if (!cfg || stsl_cfg_set(cfg, "friction.static", value, &err) ||
            stsl_run(cfg, STSL_OUTPUT_NONE, NULL, &sum, &err)) {
            fprintf(stderr, "friction.static = %s: %s\n", value, err.message);
            stsl_cfg_free(cfg);
            stsl_cfg_free(base);
            return err.code == STSL_RC_INPUT ? 2 : 3;
        }
        printf("%s %.17g\n", value, stsl_summary_first_event(&sum, "breakaway"));
        stsl_cfg_free(cfg);
    }
    stsl_cfg_free(base);
    return 0;
}
