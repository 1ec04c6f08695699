/* result.h - the in-memory result of stickslip.h (stsl_result): a run kept
 * whole, its columns stored by column so that each is one array. */
#ifndef STSL_API_RESULT_H
#define STSL_API_RESULT_H

#include "include/stickslip.h"

#endif
