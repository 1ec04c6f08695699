/* sweep.c - the C API in one page: load a configuration, vary one key by
 * `set` on clones, run each variant into a summary only and print its
 * first breakaway time.
 *
 *   cc sweep.c $(pkg-config --cflags --libs stickslip) -o sweep
 *   ./sweep examples/janecek_chirp.yaml
 *
 * Prints "friction.dynamic first_breakaway_time" per line: 100 levels of
 * the dynamic friction from 10 to 25 N (friction.static_ratio, 26/18 in
 * the file, is kept, so the static level scales with it). */
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
        snprintf(value, sizeof value, "%.17g", 10.0 + 15.0 * i / 99.0);
        stsl_cfg *cfg = stsl_cfg_clone(base, &err);
        if (!cfg || stsl_cfg_set(cfg, "friction.dynamic", value, &err) ||
            stsl_run(cfg, STSL_OUTPUT_NONE, NULL, &sum, &err)) {
            fprintf(stderr, "friction.dynamic = %s: %s\n", value, err.message);
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
