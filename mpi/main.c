/* main.c - `stickslip-mpi sweep`, the MPI build of `stickslip sweep`
 * (same arguments, messages and exit codes), run as
 * `mpirun -n K stickslip-mpi sweep STUDY.yaml ...`.
 *
 * A separate executable rather than MPI inside `stickslip`: loading
 * OpenMPI's libraries would make every plain command start slower
 * (docs/studies.md has the measurement). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli/sweep.h"
#include "include/stickslip.h"
#include "mpi/sweep_mpi.h"
#include "stsl_version.h"

static const char *const usage =
    "usage: mpirun -n K stickslip-mpi sweep STUDY.yaml [options of stickslip sweep]\n"
    "       stickslip-mpi --version\n"
    "\n"
    "Run a study over MPI ranks: every rank runs chunks of variants in --jobs\n"
    "threads; rank 0 also hands them out and writes the study file, which equals\n"
    "that of `stickslip sweep`, as do the messages and exit codes (mpirun -q keeps\n"
    "mpirun's own notices out). See `stickslip sweep --help`.\n";

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--version")) {
        printf("stickslip-mpi %s\n", STSL_VERSION);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "sweep")) {
        fprintf(stderr, "%s", usage);
        return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
    }
    /* Only the main thread calls MPI (the rows reach it from the
     * worker threads through stsl_sweep_plan_run's callback). */
    int provided = 0, rank = 0;
    /* As every stickslip command that writes: SIGXFSZ ignored (a file-size
     * limit is an I/O error, exit 1, not a kill), HDF5's exit handler off;
     * before MPI_Init, whose shared-memory files are subject to the limit. */
    stsl_process_setup();
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "stickslip-mpi: MPI_Init_thread failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* One message, from rank 0: every rank parses the same arguments and
     * loads the same study, and a rank's failure reaches rank 0, which
     * reports it (with the rank's number). */
    if (rank > 0) {
        FILE *o = freopen("/dev/null", "w", stdout), *e = freopen("/dev/null", "w", stderr);
        (void)o, (void)e; /* without /dev/null, messages are only repeated */
    }
    const stsl_cli_sweep_runner r = {stsl_mpi_sweep_run, rank == 0, "stickslip-mpi sweep"};
    int rc = stsl_cli_sweep_with(argc - 1, argv + 1, &r);
    MPI_Finalize();
    return rc;
}
