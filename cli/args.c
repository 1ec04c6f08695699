/* args.c - shared pieces of the command parsers (see args.h). */
#include "cli/args.h"

#include <stdarg.h>
#include <stdio.h>

static void verror(const stsl_cli_cmd *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: error: ", cmd->prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int stsl_cli_error(const stsl_cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
    return 2;
}

int stsl_cli_usage_error(const stsl_cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", cmd->usage);
    return 2;
}

int stsl_cli_fail(const stsl_cli_cmd *cmd, const stsl_error *err)
{
    fprintf(stderr, "%s: error: %s\n", cmd->prefix, err->msg);
    return stsl_exit_code(err->code);
}

int stsl_cli_help(const stsl_cli_cmd *cmd)
{
    fputs(cmd->usage, stdout);
    return -1;
}

int stsl_cli_add_set(const stsl_cli_cmd *cmd, const char **sets, int *n, const char *kv)
{
    if (*n == STSL_CLI_MAX_SETS) return stsl_cli_error(cmd, "too many --set options");
    sets[(*n)++] = kv;
    return 0;
}
