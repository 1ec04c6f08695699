/* fmu_model.h - an FMI 2.0 FMU opened for co-simulation: its archive
 * unpacked into a private temporary folder, its modelDescription.xml read
 * and checked (fmiVersion 2.0, guid, a CoSimulation or ModelExchange
 * element with its modelIdentifier, the variables), and the path of the binary for this
 * platform (binaries/linux64/<modelIdentifier>.so) that the driver loads.
 *
 * Every failure is one line naming the FMU, the file inside it and what is
 * wrong, e.g.
 *   model.fmu: modelDescription.xml:14: ScalarVariable 'x': no valueReference
 *   model.fmu: no binary for this platform: binaries/linux64/karnopp.so (the FMU has binaries for:
 * win64) STSL_EIO when the file cannot be read, else STSL_EINPUT. */
#ifndef STSL_FMU_MODEL_H
#define STSL_FMU_MODEL_H

#include "solver/status.h"

/* The platform folder of the FMI 2.0 standard for this build. */
#if defined(__linux__) && defined(__LP64__)
#define STSL_FMU_PLATFORM "linux64"
#elif defined(__linux__)
#define STSL_FMU_PLATFORM "linux32"
#else
#define STSL_FMU_PLATFORM "unsupported"
#endif
#define STSL_FMU_SO_EXT ".so"

typedef enum stsl_fmu_type {
    STSL_FMU_REAL = 0,
    STSL_FMU_INTEGER,
    STSL_FMU_BOOLEAN,
    STSL_FMU_STRING,
    STSL_FMU_ENUMERATION
} stsl_fmu_type;

typedef enum stsl_fmu_causality {
    STSL_FMU_PARAMETER = 0,
    STSL_FMU_CALCULATED_PARAMETER,
    STSL_FMU_INPUT,
    STSL_FMU_OUTPUT,
    STSL_FMU_LOCAL,
    STSL_FMU_INDEPENDENT
} stsl_fmu_causality;

typedef struct stsl_fmu_var {
    char name[256];
    unsigned vr; /* valueReference */
    stsl_fmu_type type;
    stsl_fmu_causality causality;
    int constant;  /* variability = "constant" */
    char unit[64]; /* the Real's unit, or its declaredType's; "" when none */
    int line;      /* of the ScalarVariable in modelDescription.xml */
} stsl_fmu_var;

typedef struct stsl_fmu_model {
    char path[4096]; /* the .fmu as given */
    char guid[256];
    char model_name[256];
    int model_exchange;         /* 1: the FMU is used for model exchange */
    char model_identifier[256]; /* of the element used (CoSimulation or ModelExchange) */
    int can_vary_step;          /* canHandleVariableCommunicationStepSize (co-simulation) */
    int can_interpolate;        /* canInterpolateInputs (co-simulation): takes input derivatives */
    int n_states;               /* model exchange: ModelStructure/Derivatives entries */
    int n_indicators;           /* numberOfEventIndicators */
    int n_vars;
    stsl_fmu_var *vars;
    char dir[4096];       /* the unpacked archive (removed by stsl_fmu_model_close) */
    char binary[8192];    /* dir/binaries/<platform>/<modelIdentifier>.so */
    char resources[8192]; /* file:// URI of dir/resources */
} stsl_fmu_model;

/* Open and check `path` for co-simulation, or for model exchange when
 * `model_exchange` is 1; on failure *m holds nothing to free or remove. */
int stsl_fmu_model_open(const char *path, int model_exchange, stsl_fmu_model *m, stsl_error *err);
/* Remove the unpacked folder and free what *m owns.  NULL-safe. */
void stsl_fmu_model_close(stsl_fmu_model *m);
/* The variable named `name`, or NULL. */
const stsl_fmu_var *stsl_fmu_model_find(const stsl_fmu_model *m, const char *name);
/* "input", "output", ... as in modelDescription.xml. */
const char *stsl_fmu_causality_name(stsl_fmu_causality c);
const char *stsl_fmu_type_name(stsl_fmu_type t);

#endif
