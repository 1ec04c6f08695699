/* args_status.c - stsl_cli_fail for an internal error value (args.h), for
 * the files on scripts/check_layers' pending list; it goes with the list. */
#include "cli/args.h"

#include <stdio.h>

#include "solver/status.h"

int stsl_cli_fail(const stsl_cli_cmd *cmd, const struct stsl_error *err)
{
    stsl_err e = {(stsl_rc)err->code, ""};
    snprintf(e.message, sizeof e.message, "%s", err->msg);
    return stsl_cli_fail_err(cmd, &e);
}
