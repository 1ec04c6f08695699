#include "solver/gsl_setup.h"

#include <gsl/gsl_errno.h>
#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void handler_off(void)
{
    gsl_set_error_handler_off();
}

void stsl_gsl_setup(void)
{
    pthread_once(&once, handler_off);
}
