/* args.c - shared pieces of the command parsers (see args.h). */
#include "cli/args.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

int stsl_cli_fail_err(const stsl_cli_cmd *cmd, const stsl_err *err)
{
    fprintf(stderr, "%s: error: %s\n", cmd->prefix, err->message);
    return stsl_rc_exit_code(err->code);
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

const char *stsl_cli_beside_exe(const char *rel, char *buf, size_t size)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
    if (!slash) return rel;
    *slash = '\0';
    snprintf(buf, size, "%s/%s", exe, rel);
    return buf;
}
