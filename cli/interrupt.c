#include "cli/interrupt.h"

#include <signal.h>
#include <string.h>

/* The one piece of process state a signal handler may touch. */
static volatile sig_atomic_t received;

static void on_signal(int sig)
{
    received = sig;
}

void stsl_cli_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND; /* a second signal takes the default action */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int stsl_cli_interrupt_signal(void)
{
    return received;
}

const volatile int *stsl_cli_interrupt_flag(void)
{
    /* sig_atomic_t is int on the platforms stickslip builds on. */
    _Static_assert(sizeof received == sizeof(int), "sig_atomic_t is an int");
    return (const volatile int *)&received;
}
