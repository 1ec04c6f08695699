/* info_system.h - `stickslip info` for the result of a system of bodies:
 * per body its final position and velocity and the range of its position,
 * per contact the time stuck, its stick and breakaway events and the
 * largest |friction|, per stop its contacts and impacts, the events counted
 * by kind and subject, and the event table (at most max_events rows, < 0:
 * all).  The element's files keep io/h5_read's summary. */
#ifndef STSL_CLI_INFO_SYSTEM_H
#define STSL_CLI_INFO_SYSTEM_H

#include <stdio.h>

#include "io/h5_read.h"

/* The tables of `s` to out. */
void stsl_system_print_info(const stsl_h5_system *s, FILE *out, long max_events);
#endif
