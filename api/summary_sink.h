/* summary_sink.h - a sink that fills a stsl_summary as the run goes and
 * stores nothing else: the summary of a run costs no memory that grows
 * with its length. */
#ifndef STSL_API_SUMMARY_SINK_H
#define STSL_API_SUMMARY_SINK_H

#include "include/stickslip.h"
#include "solver/sink.h"

/* The unit of dissipated_energy: work of a force over metres or of a torque
 * over radians, joules both. */
#define STSL_ENERGY_UNITS "J"

/* The sink's content: where the summary goes and the sink (borrowed, may
 * be NULL) that every operation is passed on to first. */
typedef struct stsl_summary_sink {
    stsl_summary *sum;
    stsl_sink *next;
} stsl_summary_sink;

/* Clear `*sum` and make `*out` a sink over `ss` (both borrowed: they must
 * outlive the sink, which owns nothing). */
void stsl_summary_sink_init(stsl_summary_sink *ss, stsl_summary *sum, stsl_sink *next,
                            stsl_sink *out);

#endif
