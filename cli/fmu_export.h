/* fmu_export.h - `stickslip fmu CONFIG -o ELEMENT.fmu` (see fmu_export.c). */
#ifndef STSL_CLI_FMU_EXPORT_H
#define STSL_CLI_FMU_EXPORT_H

/* The command; returns the exit code. */
int stsl_cli_fmu_export(int argc, char **argv);

#endif
