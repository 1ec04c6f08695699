/* fmu_opts.h - the FMU candidate's command-line options, shared by
 * `converge` and `compare`: --fmu PATH, --fmu-input NAME=SIGNAL,
 * --fmu-output C=NAME, --fmu-set NAME=VALUE, --fmu-scheme euler|rk4,
 * --fmu-timeout SECONDS|none (stsl_converge_opts of stickslip.h says what they
 * mean). */
#ifndef STSL_CLI_FMU_OPTS_H
#define STSL_CLI_FMU_OPTS_H

#include "cli/args.h"

/* The options as given. */
typedef struct stsl_cli_fmu {
    const char *path;   /* --fmu (NULL: none) */
    const char *scheme; /* --fmu-scheme (NULL: co-simulation) */
    const char *inputs[STSL_FMU_MAP_MAX], *outputs[STSL_FMU_MAP_MAX], *sets[STSL_FMU_MAP_MAX];
    int n_inputs, n_outputs, n_sets;
    double timeout; /* --fmu-timeout (0: the library's default; INFINITY: none) */
} stsl_cli_fmu;

/* getopt codes of the six options, as the callers' option tables give them. */
#define STSL_CLI_OPT_FMU         'F'
#define STSL_CLI_OPT_FMU_INPUT   'I'
#define STSL_CLI_OPT_FMU_OUTPUT  'O'
#define STSL_CLI_OPT_FMU_SET     'P'
#define STSL_CLI_OPT_FMU_SCHEME  'M'
#define STSL_CLI_OPT_FMU_TIMEOUT 'T'

/* Their entries of a getopt_long option table, and their case labels. */
#define STSL_CLI_FMU_LONGOPTS                                                                      \
    {"fmu", required_argument, NULL, STSL_CLI_OPT_FMU},                                            \
        {"fmu-input", required_argument, NULL, STSL_CLI_OPT_FMU_INPUT},                            \
        {"fmu-output", required_argument, NULL, STSL_CLI_OPT_FMU_OUTPUT},                          \
        {"fmu-set", required_argument, NULL, STSL_CLI_OPT_FMU_SET},                                \
        {"fmu-timeout", required_argument, NULL, STSL_CLI_OPT_FMU_TIMEOUT},                        \
    {                                                                                              \
        "fmu-scheme", required_argument, NULL, STSL_CLI_OPT_FMU_SCHEME                             \
    }
#define STSL_CLI_FMU_CASES                                                                         \
    case STSL_CLI_OPT_FMU:                                                                         \
    case STSL_CLI_OPT_FMU_INPUT:                                                                   \
    case STSL_CLI_OPT_FMU_OUTPUT:                                                                  \
    case STSL_CLI_OPT_FMU_SET:                                                                     \
    case STSL_CLI_OPT_FMU_TIMEOUT:                                                                 \
    case STSL_CLI_OPT_FMU_SCHEME

/* The FMU's fields of stsl_converge_opts and stsl_compare_files (they have
 * the same names), as designated initializers from the options `f` as
 * given; `module` is a char array that receives the FMU module's path
 * (cli/fmu_lazy.h). */
#define STSL_CLI_FMU_FIELDS(f, module)                                                             \
    .fmu = (f).path, .fmu_scheme = (f).scheme, .fmu_inputs = (f).inputs,                           \
    .fmu_outputs = (f).outputs, .fmu_sets = (f).sets, .n_fmu_inputs = (f).n_inputs,                \
    .n_fmu_outputs = (f).n_outputs, .n_fmu_sets = (f).n_sets, .fmu_timeout = (f).timeout,          \
    .fmu_module = (f).path ? stsl_cli_fmu_module_path(module, sizeof module) : NULL

/* Store one option `code` with its argument in *o; 0, or the exit code 2
 * with the message printed (too many, or --fmu given twice). */
int stsl_cli_fmu_option(const stsl_cli_cmd *cmd, stsl_cli_fmu *o, int code, const char *arg);

#endif
