/* interrupt.h - Ctrl-C (SIGINT) and SIGTERM end a run cleanly.
 *
 * The first signal only sets a flag, which the solver polls through its
 * cancel callback: the run stops at the next step or sample and the result
 * is ended as incomplete under its final name; the command then exits
 * with 128 + the signal number (130, 143) like a shell.  The handler is
 * one-shot: a second Ctrl-C kills at once (leaving only a temporary file). */
#ifndef STSL_CLI_INTERRUPT_H
#define STSL_CLI_INTERRUPT_H

void stsl_cli_interrupt_install(void);
/* The signal received (SIGINT, SIGTERM) or 0. */
int stsl_cli_interrupt_signal(void);
/* For stsl_cfg_set_cancel: nonzero once a signal arrived. */
const volatile int *stsl_cli_interrupt_flag(void);

#endif
