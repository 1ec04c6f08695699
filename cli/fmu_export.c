/* fmu_export.c - `stickslip fmu CONFIG -o ELEMENT.fmu`: the configuration's
 * element as an FMI 2.0 co-simulation FMU, written by stsl_fmu_export
 * (api/fmu_export.c, where the archive and its GUID are described); this
 * file reads the arguments and finds the FMU support's files. */
#include "cli/fmu_export.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/fmu_lazy.h"

static const char *const usage =
    "usage: stickslip fmu CONFIG -o ELEMENT.fmu [--set KEY=VALUE]...\n"
    "\n"
    "Write the configuration's element as an FMI 2.0 co-simulation FMU: the exact\n"
    "event-driven engine runs between communication points (every event inside a\n"
    "step located).  Inputs active_force, load, base_position, base_velocity,\n"
    "base_acceleration (and anchor_position, anchor_velocity with an anchor),\n"
    "held over a step, replace the configuration's signals; outputs are the\n"
    "result's columns (x, v, a, friction, ...).  Linux 64-bit binary (docs/fmu.md).\n"
    "\n"
    "  -o, --output FILE   the FMU to write (whole or not at all)\n"
    "  --set KEY=VALUE     override a configuration key (repeatable)\n"
    "  -h, --help          this help\n";
static const stsl_cli_cmd cmd = {"stickslip fmu", usage};

/* The FMU is never written over the configuration it is made from. */
static int not_the_input(const char *out, const char *config)
{
    char a[4096], b[4096];
    if (realpath(out, a) && realpath(config, b) && !strcmp(a, b))
        return stsl_cli_error(&cmd, "-o %s: that is the configuration", out);
    return 0;
}

int stsl_cli_fmu_export(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"set", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL, *sets[STSL_CLI_MAX_SETS];
    int n_sets = 0, c, rc = 0;
    optind = 1;
    opterr = 0;
    while (!rc && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (c == 'o')
            out = optarg;
        else if (c == 's')
            rc = stsl_cli_add_set(&cmd, sets, &n_sets, optarg);
        else if (c == 'h')
            return stsl_cli_help(&cmd), 0;
        else
            return stsl_cli_error(&cmd, "unknown or incomplete option: %s", argv[optind - 1]);
    }
    if (rc) return rc;
    if (optind != argc - 1) return stsl_cli_error(&cmd, "expected exactly one configuration file");
    if (!out) return stsl_cli_error(&cmd, "-o ELEMENT.fmu is required");
    stsl_err err = {0};
    stsl_cfg *cfg = stsl_cfg_load_set(argv[optind], sets, n_sets, &err);
    if (!cfg) return stsl_cli_fail_err(&cmd, &err);
    char module[4200], so[4200];
    if (!(rc = not_the_input(out, argv[optind])) &&
        stsl_fmu_export(
            cfg, out, stsl_cli_fmu_module_path(module, sizeof module),
            stsl_cli_fmu_file("STICKSLIP_FMU_BINARY", STSL_FMU_ELEMENT_SO, so, sizeof so), &err))
        rc = stsl_cli_fail_err(&cmd, &err);
    stsl_cfg_free(cfg);
    if (rc) return rc;
    printf("FMU: %s (FMI 2.0 co-simulation, %s)\n", out, stsl_fmu_platform());
    return 0;
}
