/* small_vector.h - SUNDIALS serial N_Vectors with faster operations for
 * the short state vectors of the hybrid solver (a few components).
 *
 * A vector is an ordinary serial N_Vector (N_VNew_Serial: same content,
 * same ID, so the dense linear solver and N_VGetArrayPointer take it as
 * is) whose ops table, which SUNDIALS keeps per vector and copies to every
 * clone, has the operations CVODE calls in every step replaced: plain
 * loops without the serial module's call layers, and the fused and
 * vector-array operations in one call each instead of the generic
 * fall-back loops.  Every replaced operation computes exactly what the
 * serial module (6.4) computes, including its special cases (a linear sum
 * with a == b is a*(x+y)), so results are the same to the last bit. */
#ifndef STSL_SMALL_VECTOR_H
#define STSL_SMALL_VECTOR_H

#include <nvector/nvector_serial.h>

/* A serial vector of length n (it owns its data) with the fast operations;
 * free with N_VDestroy.  NULL when out of memory. */
N_Vector stsl_small_vector_new(sunindextype n, SUNContext ctx);

#endif
