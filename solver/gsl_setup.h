/* gsl_setup.h - GSL's error handler, set once for the process.
 *
 * GSL's default handler aborts the program; the library checks GSL's return
 * codes and reports errors as values instead, so the handler is turned off.
 * That is a write to GSL's process-global handler: done once, under
 * pthread_once, before the first GSL call of every module that makes one,
 * so that two threads creating solvers or signals at once do not race. */
#ifndef STSL_GSL_SETUP_H
#define STSL_GSL_SETUP_H

/* Turn GSL's aborting error handler off (once per process; thread-safe). */
void stsl_gsl_setup(void);

#endif
