/* args.h - what every command's argument parser shares: the --set list,
 * --help, and error messages with the command's prefix
 * ("stickslip compare: error: ..."). */
#ifndef STSL_CLI_ARGS_H
#define STSL_CLI_ARGS_H

#include <stddef.h>

#include "include/stickslip.h"

/* --set options one command takes (the configuration's keys are fewer). */
#define STSL_CLI_MAX_SETS 256

typedef struct stsl_cli_cmd {
    const char *prefix; /* "stickslip" or "stickslip curve" */
    const char *usage;  /* the --help text */
} stsl_cli_cmd;

/* "PREFIX: error: MESSAGE" on stderr; returns 2, the exit code of bad input. */
int stsl_cli_error(const stsl_cli_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same, followed by a blank line and the usage. */
int stsl_cli_usage_error(const stsl_cli_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* An error from the library: "PREFIX: error: MESSAGE"; returns its exit
 * code (stsl_rc_exit_code). */
int stsl_cli_fail_err(const stsl_cli_cmd *cmd, const stsl_err *err);
/* --help: the usage on stdout; returns -1 (the parsers' "done, exit 0"). */
int stsl_cli_help(const stsl_cli_cmd *cmd);
/* --set KEY=VALUE: appended to sets[*n] (room for STSL_CLI_MAX_SETS);
 * 0, or 2 after "too many --set options". */
int stsl_cli_add_set(const stsl_cli_cmd *cmd, const char **sets, int *n, const char *kv);
/* `rel` taken relative to the folder of the running executable (into buf),
 * so that an installed file is found wherever `cmake --install --prefix`
 * put the installation; `rel` itself when that folder is unknown. */
const char *stsl_cli_beside_exe(const char *rel, char *buf, size_t size);

#endif
