/* csv_sink.h - CSV export: PREFIX_trajectory.csv and PREFIX_events.csv, with
 * units in the header row ("x [m]"). */
#ifndef STSL_CSV_SINK_H
#define STSL_CSV_SINK_H

#include "solver/sink.h"

int stsl_csv_sink_create(const char *prefix, stsl_sink *out, stsl_error *err);

#endif
