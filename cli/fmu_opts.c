/* fmu_opts.c - the FMU candidate's command-line options (see fmu_opts.h). */
#include "cli/fmu_opts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int add(const stsl_cli_cmd *cmd, const char **list, int *n, const char *opt, const char *arg)
{
    if (*n == STSL_FMU_MAP_MAX) return stsl_cli_error(cmd, "more than %d %s options", *n, opt);
    list[(*n)++] = arg;
    return 0;
}

int stsl_cli_fmu_option(const stsl_cli_cmd *cmd, stsl_cli_fmu *o, int code, const char *arg)
{
    switch (code) {
    case STSL_CLI_OPT_FMU:
        if (o->path) return stsl_cli_error(cmd, "--fmu given twice");
        o->path = arg;
        return 0;
    case STSL_CLI_OPT_FMU_INPUT:
        return add(cmd, o->inputs, &o->n_inputs, "--fmu-input", arg);
    case STSL_CLI_OPT_FMU_SCHEME:
        o->scheme = arg;
        return 0;
    case STSL_CLI_OPT_FMU_OUTPUT:
        return add(cmd, o->outputs, &o->n_outputs, "--fmu-output", arg);
    case STSL_CLI_OPT_FMU_TIMEOUT: {
        char *end = NULL;
        double s = !strcmp(arg, "none") ? INFINITY : strtod(arg, &end);
        if ((end && (end == arg || *end)) || !(s > 0.0) || isnan(s))
            return stsl_cli_error(cmd, "--fmu-timeout: '%s' is not a number of seconds > 0 or none",
                                  arg);
        o->timeout = s;
        return 0;
    }
    default:
        return add(cmd, o->sets, &o->n_sets, "--fmu-set", arg);
    }
}
