/* two_body_system.h - the system test/fmu/two_body_cs.c models, with its
 * parameters' defaults, as the configuration the tests run it against:
 * body a on a Coulomb contact "guide" to the ground, body b joined to it by
 * a spring and driven by a sine force. */
#ifndef STSL_TEST_TWO_BODY_SYSTEM_H
#define STSL_TEST_TWO_BODY_SYSTEM_H

#define TWO_BODY_YAML                                                                              \
    "bodies:\n"                                                                                    \
    "  a: {mass: 1.0}\n"                                                                           \
    "  b: {mass: 0.5}\n"                                                                           \
    "couplings:\n"                                                                                 \
    "  - {between: [a, b], stiffness: 100.0}\n"                                                    \
    "contacts:\n"                                                                                  \
    "  - {body: a, name: guide, law: coulomb, dynamic: 1.0, static_ratio: 1.5}\n"                  \
    "inputs:\n"                                                                                    \
    "  forces:\n"                                                                                  \
    "    b: {type: sine, amplitude: 3.0, frequency: 1.0}\n"                                        \
    "simulation: {t_end: 2.0, output_step: 0.001}\n"

#endif
