/* stickslip.h - the public C API of stickslip, the only installed header.
 *
 * stickslip simulates a mechanical element with dry friction exactly: stick,
 * slip, reversal, breakaway and end-stop contact are modes of a hybrid
 * system integrated by CVODE, every switch located by rootfinding.  This
 * header offers: a configuration (the YAML file of the command line, loaded,
 * copied and changed key by key), a run of it (into a file, into memory, or
 * into a summary only) and errors as values.
 *
 * Conventions (they hold for every function below unless its comment says
 * otherwise):
 *   - Failure: a function that can fail returns a stsl_rc (0 = STSL_RC_OK,
 *     negative = failure) or NULL, and fills `*err` (when err is not NULL)
 *     with the code and a one-line message naming the cause (file, line, key,
 *     value, allowed range; for a solver failure time, mode and state).  The
 *     library never prints, never exits and keeps no "last error".
 *   - Ownership: a pointer returned by a `_load`, `_parse`, `_clone` or
 *     `_run_result` function is the caller's and is freed by the matching
 *     `_free`; a returned `char *` is freed with stsl_free(); a `const`
 *     pointer returned by an accessor is borrowed from its object and valid
 *     until that object is freed.  Arguments are borrowed for the call only.
 *     All `_free` functions accept NULL.
 *   - Threads: every function may be called from several threads at once on
 *     different objects; an object (a stsl_cfg, a stsl_result) must not be
 *     used by two threads at once unless all of them only read it (the
 *     `const` functions).  A run owns its solver state; nothing is
 *     process-wide except (a) GSL's error handler, turned off once with
 *     pthread_once (HDF5's error printing is only silenced around the
 *     library's own calls; matio's log function likewise set once, to
 *     drop its messages, by the first MAT file read), and (b) a mutex that
 *     serialises the library's HDF5 calls when libhdf5 is not thread-safe
 *     (as Debian's serial libhdf5: H5is_library_threadsafe() false): runs
 *     into an HDF5 file then write one at a time, while everything else
 *     (the integration itself, CSV, memory, summaries) runs in parallel.
 *     A program that also calls HDF5 itself while stickslip writes a file
 *     in another thread brackets its own calls with stsl_hdf5_lock() /
 *     stsl_hdf5_unlock().
 *
 * Why the API has its own names (stsl_rc, stsl_err, stsl_cfg) although the
 * library has a status enum and a config struct inside: the internal ones
 * belong to the lowest layers (solver/, io/), which must not include this
 * header, and this header must not expose them (they change with the
 * implementation).  So the public codes are spelled here once, with the
 * same values as the internal ones, and api/error.c asserts at compile time
 * that each pair is equal: two spellings, one set of numbers, no drift. */
#ifndef STICKSLIP_H
#define STICKSLIP_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility: only what this header
 * declares is exported from libstickslip.so. */
#if defined(__GNUC__)
#define STSL_API __attribute__((visibility("default")))
#else
#define STSL_API
#endif

/* ---- errors ---------------------------------------------------------- */

typedef enum stsl_rc {
    STSL_RC_OK = 0,
    STSL_RC_INPUT = -1,     /* bad configuration, key, value or argument */
    STSL_RC_IO = -2,        /* a file could not be read or written */
    STSL_RC_SOLVER = -3,    /* CVODE failed (step size too small, too much work, ...) */
    STSL_RC_ZENO = -4,      /* events keep firing at one instant */
    STSL_RC_MAXEVENTS = -5, /* simulation.max_events exceeded */
    STSL_RC_NOMEM = -6,     /* an allocation failed */
    STSL_RC_MODEL = -7,     /* the model failed in a callback */
    STSL_RC_CANCELLED = -8  /* the run was cancelled (the CLI's Ctrl-C; a sweep stopped) */
} stsl_rc;

#define STSL_ERR_MAX 2048

/* An error value: the code and a message that names the cause. */
typedef struct stsl_err {
    stsl_rc code;
    char message[STSL_ERR_MAX];
} stsl_err;

/* Short description of a code ("bad input", "solver failure", ...): a
 * static string, never NULL. */
STSL_API const char *stsl_rc_name(stsl_rc code);

/* The exit code of the command line for `code`: 0 ok, 2 bad input, 3 a
 * failed run (solver, Zeno, max_events, model), 1 anything else (I/O,
 * memory, cancelled). */
STSL_API int stsl_rc_exit_code(stsl_rc code);

/* The library's version, "MAJOR.MINOR.PATCH" (static string). */
STSL_API const char *stsl_lib_version(void);

/* Free a string returned by this API. NULL-safe. */
STSL_API void stsl_free(void *p);

/* The library's HDF5 mutex (see Threads above); no-ops when libhdf5 is
 * thread-safe.  Not recursive: do not call stickslip while holding it. */
STSL_API void stsl_hdf5_lock(void);
STSL_API void stsl_hdf5_unlock(void);

/* ---- configuration ----------------------------------------------------- */

/* A validated configuration (docs/configuration.md lists its keys).  Every
 * key holds a value (defaults filled in): the "effective configuration". */
typedef struct stsl_cfg stsl_cfg;

/* Load and validate the YAML file at `path`.  Relative table files are
 * read relative to the file's directory, now (the tables are kept in
 * memory).  NULL on failure ("FILE:LINE: key.path: what"). */
STSL_API stsl_cfg *stsl_cfg_load(const char *path, stsl_err *err);

/* The same from YAML text; `base_dir` resolves relative table files (NULL:
 * the current directory).  Messages name the text "<string>". */
STSL_API stsl_cfg *stsl_cfg_parse(const char *yaml, const char *base_dir, stsl_err *err);

/* A deep copy (table data included): the copy and the original are
 * independent and each is freed on its own.  NULL on failure (memory). */
STSL_API stsl_cfg *stsl_cfg_clone(const stsl_cfg *cfg, stsl_err *err);

/* Set `key` (a dotted path, "friction.dynamic") to `value`, YAML text
 * ("20", "{type: sine, amplitude: 1, frequency: 2}").  Exactly what
 * `stickslip run --set key=value` does on the effective configuration, with
 * the same checks and messages minus the "--set ..." prefix:
 * "friction.dynamic: must be >= 0 (got -1)".  So keys apply to the
 * configuration as stsl_cfg_to_yaml() prints it, which states the static
 * level as the file gave it: setting friction.dynamic keeps a
 * friction.static force (and refuses a dynamic level above it) or else the
 * ratio, and a rotational element's mass is element.inertia.  A number
 * key that no rule ties to another key is set in well under a microsecond;
 * other keys re-validate the whole configuration (tens of microseconds).
 * On failure *cfg is unchanged.
 * Sequence items are indexed from 0: "contacts.0.dynamic" in a system of
 * bodies (docs/configuration.md, "A system of bodies"). */
STSL_API stsl_rc stsl_cfg_set(stsl_cfg *cfg, const char *key, const char *value, stsl_err *err);

/* Several assignments "key=value" at once, for keys that are only valid
 * together (simulation.scheme and simulation.step): exactly `stickslip run
 * --set A --set B ...` on the effective configuration; a message names the
 * assignment ("set 'simulation.step=0': simulation.step: must be > 0 (got
 * 0)").  On failure *cfg is unchanged. */
STSL_API stsl_rc stsl_cfg_set_all(stsl_cfg *cfg, const char *const *assignments, int n,
                                  stsl_err *err);

/* The value of `key` as one line of YAML ("18", "{type: janecek_chirp, ...}");
 * free it with stsl_free().  NULL on failure (no such key). */
STSL_API char *stsl_cfg_get(const stsl_cfg *cfg, const char *key, stsl_err *err);

/* The effective configuration as YAML text (free with stsl_free()).
 * Parsing it again gives the same configuration.  NULL on failure. */
STSL_API char *stsl_cfg_to_yaml(const stsl_cfg *cfg, stsl_err *err);

/* Write that text to the file `path`, whole or not at all.  The output
 * rule of every writer, except that `path` may be the file the
 * configuration was loaded from (writing it back): STSL_RC_INPUT for one
 * of its table files, or a name of another format (.h5, .hdf5, .mat,
 * .csv, .json: a result, table or report is never replaced by YAML). */
STSL_API stsl_rc stsl_cfg_write(const stsl_cfg *cfg, const char *path, stsl_err *err);

/* Make runs of `cfg` (stsl_run, stsl_run_result) stop once *flag is
 * nonzero (NULL: never).  The flag is read at every solver step, so another
 * thread may set it while the run goes on; it is borrowed and must outlive
 * the runs.  A stopped run returns STSL_RC_CANCELLED, message "run
 * cancelled at ..." (time, mode, state), and keeps what it computed up to there, as a
 * failed run does (summary and result incomplete, a file marked
 * incomplete).  Clones made afterwards share the flag; setting keys keeps
 * it. */
STSL_API void stsl_cfg_set_cancel(stsl_cfg *cfg, const volatile int *flag);

/* Set such a flag from another thread (an atomic store: a plain store from
 * one thread while a run reads the flag in another is a data race in C11),
 * and read it likewise.  A signal handler may keep storing to a volatile
 * sig_atomic_t-sized int, as the CLI's does. */
STSL_API void stsl_cancel_request(volatile int *flag);
STSL_API int stsl_cancel_requested(const volatile int *flag);

/* Have runs of `cfg` call fn(ctx, t, t_end) now and then as they advance
 * (about twice a second of wall time; none for a run shorter than that),
 * in the thread that runs them; fn NULL: none.  Clones do not take it. */
typedef void (*stsl_progress_fn)(void *ctx, double t, double t_end);
STSL_API void stsl_cfg_set_progress(stsl_cfg *cfg, stsl_progress_fn fn, void *ctx);

STSL_API void stsl_cfg_free(stsl_cfg *cfg);

/* ---- runs ------------------------------------------------------------- */

#define STSL_SUMMARY_MAX_MODES 16
#define STSL_SUMMARY_MAX_KINDS 16
#define STSL_SUMMARY_MAX_COLS  16
/* Room for a column name in the summary: a system's "GROUP[MEMBER]" (a
 * 13-character group, a body name of at most 63 bytes, brackets). */
#define STSL_SUMMARY_NAME_MAX 96

/* What a run did, without its trajectory.  Names are static strings, but
 * the column names, which the summary holds itself: a system's are made
 * for its run and do not outlive it. */
typedef struct stsl_summary {
    int complete;      /* 1: t_end was reached */
    char message[512]; /* why not, when complete == 0 ("" otherwise) */
    double t_reached;  /* time of the last sample */
    /* The state at t_reached: every output column (x, v, a, friction, ...);
     * of a system of bodies the first STSL_SUMMARY_MAX_COLS (its result,
     * stsl_result, keeps them all). */
    int n_cols;
    char col_names[STSL_SUMMARY_MAX_COLS][STSL_SUMMARY_NAME_MAX];
    double final[STSL_SUMMARY_MAX_COLS];
    const char *final_mode;
    /* Events by kind ("stick", "breakaway", ...) and time per mode. */
    int n_kinds;
    const char *kind_names[STSL_SUMMARY_MAX_KINDS];
    long events[STSL_SUMMARY_MAX_KINDS];
    double first_event_time[STSL_SUMMARY_MAX_KINDS]; /* NaN when none */
    int n_modes;
    const char *mode_names[STSL_SUMMARY_MAX_MODES];
    double mode_time[STSL_SUMMARY_MAX_MODES];
    /* Energy dissipated by friction: the integral of F_f v dt, with F_f the
     * friction force alone (the dry friction of a hybrid law, the whole
     * force of a smooth law or LuGre; never the damper nor the stop
     * reaction) and v the velocity relative to the base.  Nothing slides
     * while stuck or on a stop: no work there.  In a slip segment whose
     * friction level is constant (coulomb, or stribeck with static_ratio 1,
     * under a constant load or with both efficiencies 1) it is F_D (x_end -
     * x_start) with the segment's own F_D, exactly and at no cost; elsewhere
     * a CVODES quadrature on the solver's own steps (same method and order
     * as the state, so as accurate as the state, and not influencing the
     * steps; it costs one friction evaluation per step).  NaN for the
     * fixed-step schemes. */
    double dissipated_energy;
    /* Statistics. */
    long n_events, steps, rhs_evals, guard_evals, segments, jac_evals;
    double wall_seconds;
    /* For batch studies (stickslip sweep): the time of the last event of
     * each kind (NaN when none), and the largest |value| of each output
     * column.  For x and v (a system's x[body], v[body]) the exact extremum
     * of the trajectory, found on the integrator's dense output between
     * its steps and at the start, the end and both sides of every event:
     * it does not depend on output_step (the fixed-step schemes: over their
     * samples; a summary read from a file, stsl_result_read: over the
     * file's samples).  For the other columns the largest sample (the
     * output grid, the start, the end and both sides of every event). */
    double last_event_time[STSL_SUMMARY_MAX_KINDS];
    double max_abs[STSL_SUMMARY_MAX_COLS];
    /* Units, as the model states them (the one table: the element's
     * columns, docs/hdf5-layout.md): of time, of each output column
     * (col_units[i] for col_names[i]) and of dissipated_energy.  Static
     * strings, or borrowed from the stsl_result read from a file. */
    const char *time_units;
    const char *col_units[STSL_SUMMARY_MAX_COLS];
    const char *energy_units;
    /* The run's own error estimate, when simulation.verify is on or strict
     * (stsl_cfg_set(cfg, "simulation.verify", "on")): the case is run a
     * second time at rtol/100 (not below 1e-14; atol/100 when atol is
     * given, else the atol rule at the new rtol), the events are paired by
     * order, and the largest differences are the estimated errors
     * (docs/numerics.md).  verify: 0 not verified, 1 the event sequences matched,
     * 2 they differ (estimates over the events before the first
     * difference; with strict the run returns STSL_RC_SOLVER), 3 the check
     * run failed (no estimate).  verify_message says what differs or why
     * the check failed ("" otherwise). */
    int verify;
    double verify_rtol;    /* rtol of the check run */
    double err_event_time; /* largest event-time difference, time units (s) */
    double err_x, err_v;   /* largest x, v difference after events and at the end */
    char verify_message[512];
} stsl_summary;

/* Number of events of kind `kind` in `s`, or -1 when no kind has that name. */
STSL_API long stsl_summary_events(const stsl_summary *s, const char *kind);
/* Time of the first event of kind `kind`; NaN when there is none. */
STSL_API double stsl_summary_first_event(const stsl_summary *s, const char *kind);

/* Where a run's results go besides the summary. */
typedef enum stsl_output {
    STSL_OUTPUT_NONE = 0, /* summary only: nothing is stored */
    STSL_OUTPUT_HDF5 = 1, /* `path` is the .h5 file (docs/hdf5-layout.md) */
    STSL_OUTPUT_CSV = 2,  /* `path` is a prefix: PREFIX_trajectory.csv, PREFIX_events.csv */
    STSL_OUTPUT_MAT = 3,  /* `path` is a MAT v5 file (docs/matlab.md) */
    /* The format follows `path`'s extension: .h5 or .hdf5 HDF5, .mat MAT;
     * any other is STSL_RC_INPUT (what `stickslip run -o` does). */
    STSL_OUTPUT_AUTO = 4
} stsl_output;

/* Run `cfg` from t = 0 and fill `summary` (may be NULL).  A run that fails
 * on the way (solver failure, max_events, ...) still fills the summary up
 * to where it got (complete = 0) and, for a file output, still writes the
 * file, marked incomplete; the failure is returned.  output.file of the
 * configuration is ignored: `path` says where.  Missing directories of an
 * HDF5 `path` are created (mkdir -p), as `stickslip run -o` does; one that
 * cannot be created (a plain file in the way, no permission) is
 * STSL_RC_IO naming it.  The CSV prefix's directory must exist (as for
 * `stickslip run --csv`): STSL_RC_IO naming the file otherwise.
 * Every output follows the output rule of the command line (docs/
 * output-files.md), checked before the run: STSL_RC_INPUT, nothing
 * written, when a file would be the configuration file `cfg` was loaded
 * from or one of its table files, a directory, FIFO or device, or has an
 * extension that contradicts `output` (an HDF5 file named .mat); files are
 * written under a temporary name and renamed into place when whole, so an
 * I/O error (STSL_RC_IO naming the file and the cause) leaves nothing under
 * `path`. */
STSL_API stsl_rc stsl_run(const stsl_cfg *cfg, stsl_output output, const char *path,
                          stsl_summary *summary, stsl_err *err);

/* A run into its files, as `stickslip run` makes it: the result file, HDF5
 * or MAT, with the effective configuration in it, and CSV tables beside
 * it.  Set the inputs, zero the rest. */
typedef struct stsl_run_files {
    /* The result file; NULL: output.file of the configuration, else
     * results/NAME.h5 (results/NAME.mat with format STSL_OUTPUT_MAT), NAME
     * the configuration file's name without its extension. */
    const char *path;
    /* STSL_OUTPUT_AUTO (the extension says: .h5 or .hdf5 HDF5, .mat MAT),
     * STSL_OUTPUT_HDF5 or STSL_OUTPUT_MAT. */
    stsl_output format;
    /* A prefix: also PREFIX_trajectory.csv and PREFIX_events.csv; NULL:
     * none. */
    const char *csv;
    /* 1: the caller reads the HDF5 file back at once (stsl_file_info), so
     * HDF5 keeps a closed file's freed memory for the next one it opens.
     * Process-wide: a program's option (as stsl_process_setup). */
    int read_back;
    /* Filled by the call: the result file (also on failure, once known);
     * 1 when it is written as MAT; 1 when another run wrote it while this
     * one ran (this run's result replaced it); what simulation.verify found
     * different when the run succeeded anyway ("" otherwise). */
    char path_used[4112];
    int started, mat, replaced; /* started: the run began (its files made) */
    char verify_warning[2304];
} stsl_run_files;

/* Run `cfg` into the files `f` names, as `stickslip run` does: the output
 * rule checked first for every file (messages name "a run's result file",
 * "--csv's trajectory table" ...), bad parameters found before a file is
 * made, the progress and cancel flag of stsl_cfg_set_progress and
 * stsl_cfg_set_cancel.  A failed run leaves its result file, marked
 * incomplete.  Does not take stsl_hdf5_lock. */
STSL_API stsl_rc stsl_run_into_files(const stsl_cfg *cfg, stsl_run_files *f, stsl_err *err);

/* ---- in-memory results ------------------------------------------------ */

/* A whole run in memory: its samples, events and summary. */
typedef struct stsl_result stsl_result;

/* Run `cfg` and keep everything.  On a failure of the run itself the result
 * is still returned in *out (incomplete, see its summary) together with the
 * failure code; *out is NULL only when nothing could be run. */
STSL_API stsl_rc stsl_run_result(const stsl_cfg *cfg, stsl_result **out, stsl_err *err);

STSL_API const stsl_summary *stsl_result_summary(const stsl_result *r);
STSL_API long stsl_result_n_samples(const stsl_result *r);
/* The samples of column `name`: "t", "mode" (as numbers) or an output
 * column ("x", "v", "a", "friction", ...); NULL when there is no such
 * column.  stsl_result_n_samples() values. */
STSL_API const double *stsl_result_column(const stsl_result *r, const char *name);

typedef struct stsl_event {
    double t;
    const char *kind; /* "breakaway", "stick", ... */
    const char *mode_before, *mode_after;
} stsl_event;

STSL_API long stsl_result_n_events(const stsl_result *r);
/* Event i (0-based, in time order); STSL_RC_INPUT when i is out of range. */
STSL_API stsl_rc stsl_result_event(const stsl_result *r, long i, stsl_event *ev, stsl_err *err);
/* Output column `name` just before (after = 0) or after (after = 1) event
 * i; NaN when i or name does not exist. */
STSL_API double stsl_result_event_value(const stsl_result *r, long i, const char *name, int after);
/* Every event at once, for bindings that convert them in bulk (one call
 * instead of several per event).  Each output may be NULL (not wanted);
 * the others have room for n = stsl_result_n_events(r) entries: t; kind,
 * mode_before and mode_after as indices into the summary's kind_names and
 * mode_names (-1 where stsl_result_event says "none"); subject as 1 + the
 * index of the contact or stop the event is about, 0 for none (the name
 * is stsl_result_event_subject's); and for each of the n_names output
 * columns names[k], its values just before and just after every event
 * (stsl_result_event_value) in values[(2 k + after) n + i], NaN for a
 * column the result does not have.  STSL_RC_INPUT for r NULL or n_names
 * < 0, or names NULL with n_names > 0. */
STSL_API stsl_rc stsl_result_events(const stsl_result *r, double *t, int *kind, int *mode_before,
                                    int *mode_after, int *subject, const char *const *names,
                                    int n_names, double *values, stsl_err *err);
/* ---- results of a system of bodies (issue 14) ---- */
/* The output columns besides t and mode, in the model's order: a system's
 * grouped columns by "GROUP[MEMBER]", e.g. "x[motor]", "friction[clutch]"
 * (the names stsl_result_column and stsl_result_event_value take);
 * stsl_result_column_name is NULL for i out of range. */
STSL_API int stsl_result_n_columns(const stsl_result *r);
STSL_API const char *stsl_result_column_name(const stsl_result *r, int i);
/* Column i's attribute `attr` as its file states it: "units" ("m"; "" for
 * none), "long_name" ("position") or "value_names" (a system's mode
 * columns: the names of the mode numbers in order, "STUCK,SLIP_POS,
 * SLIP_NEG,SMOOTH"; "" for other columns).  NULL for i out of range or
 * another attr. */
STSL_API const char *stsl_result_column_attr(const stsl_result *r, int i, const char *attr);
/* The contact or stop event i is about (its name, e.g. "contacts.0" or
 * the given one); NULL for an event about none (every event of the single
 * element) or i out of range. */
STSL_API const char *stsl_result_event_subject(const stsl_result *r, long i);
/* A statistic by name: "steps", "rhs_evals", "guard_evals", "segments",
 * "jac_evals", "events", "wall_seconds", "t_reached", "dissipated_energy",
 * "complete", "events_KIND", "time_MODE", and of a verified run
 * "verify", "estimated_error_event_time", "estimated_error_x",
 * "estimated_error_v" (the names of the files, stsl_names; a system's
 * estimated_error_x, _v are the largest over its bodies), and
 * "estimated_error_COLUMN" for a column's own estimate
 * ("estimated_error_x[motor]", "estimated_error_v[load]"; NaN for a column
 * that has none or a run that was not verified).  The former spellings
 * "events.KIND", "mode_time.MODE", "err_x", "err_x[motor]", ... are still
 * taken.
 * STSL_RC_INPUT for an unknown name. */
STSL_API stsl_rc stsl_result_stat(const stsl_result *r, const char *name, double *value,
                                  stsl_err *err);

STSL_API void stsl_result_free(stsl_result *r);

/* ---- names -------------------------------------------------------------- */

/* One entry of the vocabulary every result uses (docs/names.md): a name as
 * the files, the study file, stsl_result_stat and the Python package spell
 * it ("<kind>", "<MODE>", "<column>", "<body>", "<contact>" stand for each
 * of the model's), the kind of its unit ("time", "position", "velocity",
 * "acceleration", "force", "energy", "s", "-" for none, or "<column>"),
 * where it appears ("trajectory", "events", "stats", "study", comma
 * separated) and what it is. */
typedef struct stsl_name {
    const char *name, *unit, *where, *meaning;
} stsl_name;

/* The number of entries; *table (may be NULL) their static array. */
STSL_API int stsl_names(const stsl_name **table);

/* The field width to give printf ("%*s", "%-*s") so that `text` fills
 * `columns` columns of a terminal: printf pads by bytes, and units such as
 * "N·m" or "kg·m²" have more bytes (UTF-8) than characters.  Every
 * character the program writes is single-width. */
STSL_API int stsl_field_width(const char *text, int columns);

/* ---- studies (`stickslip sweep`) -------------------------------------- */

/* Called after rows of a study are written (at most ~10 times a second,
 * and once at the end), in the thread that runs the study. */
typedef void (*stsl_study_progress_fn)(void *ctx, long n_done, long n_runs, long n_failed);

/* Run the study file `study` (YAML: a base configuration and the keys to
 * vary) into the HDF5 study file `output` in `jobs` threads, as `stickslip
 * sweep STUDY -o OUTPUT --jobs JOBS [--resume]` does: the same file, row
 * for row.  resume = 1 continues `output` if it holds this study,
 * unfinished.  Once *cancel is nonzero (stsl_cancel_request; NULL: never)
 * the running variants finish, their rows are written and the file is left
 * incomplete.  *n_done (may be NULL) receives the rows in the file.
 * STSL_RC_INPUT for a bad study, base, or key (nothing written),
 * STSL_RC_IO when the file cannot be written; a failed variant is a row,
 * not an error. */
STSL_API stsl_rc stsl_study_run(const char *study, const char *output, int jobs, int resume,
                                stsl_study_progress_fn progress, void *ctx,
                                const volatile int *cancel, long *n_done, stsl_err *err);

/* ---- a study in parts: its variants partitioned, rows as bytes, the file ----
 * What `stickslip sweep` and `stickslip-mpi sweep` are built on: a study
 * run with the command's options (stsl_study_run_with); and for a program
 * that runs the variants in several processes (MPI ranks), the study
 * loaded once per process (stsl_study_plan), a range of its variants run
 * in threads with their rows handed back one by one, rows collected and
 * sent as bytes (stsl_study_rows), and the study file that one process
 * writes in variant order (stsl_study_file).  Every process must run the
 * same library build on the same architecture: rows travel as bytes. */

/* For a program that writes result files (the command line, an MPI
 * study), once before anything else: SIGXFSZ ignored (a file-size limit
 * makes a write fail, reported as an I/O error, instead of killing the
 * process), HDF5's exit handler and error printing off.  Process-wide:
 * not for a library.  Nothing depends on it: without it (a library's user,
 * the Python package) a file whose write failed is still closed, and the
 * process exits normally. */
STSL_API void stsl_process_setup(void);

/* Where a study stands: variants in the study, rows in the file (earlier
 * sessions included), of those failed or invalid, rows written by this
 * call, and the seconds since it started. */
typedef struct stsl_study_stats {
    long n_runs, n_done, n_failed, n_session;
    double seconds;
} stsl_study_stats;

typedef struct stsl_study_opts {
    const char *output;      /* the study file (.h5) */
    int jobs;                /* threads (>= 1) */
    int resume;              /* continue `output` if it holds this study, unfinished */
    const char *const *sets; /* "KEY=VALUE" applied to the base configuration */
    int n_sets;
    /* A CSV export the caller writes afterwards (stsl_study_write_csv;
     * NULL: none), checked with the study file by the output rule before
     * anything is written. */
    const char *csv;
    /* Called after rows are written (at most ~10 times a second, and once
     * at the end), in the thread that writes the file; NULL: none. */
    void (*progress)(void *ctx, const stsl_study_stats *s);
    void *progress_ctx;
    /* Once nonzero (stsl_cancel_request, or a signal handler's store) the
     * running variants finish, their rows are written, the file is left
     * incomplete; NULL: never. */
    const volatile int *cancel;
} stsl_study_opts;

/* stsl_study_run with every option of `stickslip sweep` and its counts in
 * *out (zeroed first): the same file, row for row.  Does not take
 * stsl_hdf5_lock (a program with other HDF5 threads uses stsl_study_run). */
STSL_API stsl_rc stsl_study_run_with(const char *study, const stsl_study_opts *o,
                                     stsl_study_stats *out, stsl_err *err);

/* A study loaded and checked as a run does (o->sets applied): NULL with
 * STSL_RC_INPUT for a bad study, base or key. */
typedef struct stsl_study_plan stsl_study_plan;
STSL_API stsl_study_plan *stsl_study_plan_open(const char *study, const stsl_study_opts *o,
                                               stsl_err *err);
STSL_API long stsl_study_plan_n_variants(const stsl_study_plan *p);
/* 1 with store: full, whose rows carry whole runs (~1 MB each): keep
 * fewer of them waiting. */
STSL_API int stsl_study_plan_store_full(const stsl_study_plan *p);
STSL_API void stsl_study_plan_free(stsl_study_plan *p);

/* One variant's row: borrowed by the stsl_study_take_fn it is passed to,
 * for that call only. */
typedef struct stsl_study_row stsl_study_row;
/* Receives the rows of stsl_study_plan_run in variant order, in the
 * calling thread; row NULL: nothing new within ~0.1 s.  A nonzero return
 * stops the run with that code and *err. */
typedef int (*stsl_study_take_fn)(void *ctx, const stsl_study_row *row, stsl_err *err);
/* Run variants [first, end) of `p` in `jobs` threads, their rows to take.
 * Once *cancel is nonzero no variant starts; those running finish and
 * are taken. */
STSL_API stsl_rc stsl_study_plan_run(const stsl_study_plan *p, long first, long end, int jobs,
                                     const volatile int *cancel, stsl_study_take_fn take, void *ctx,
                                     stsl_err *err);

/* Rows kept in order as one block of bytes, to send to the writing
 * process and append there. */
typedef struct stsl_study_rows stsl_study_rows;
STSL_API stsl_study_rows *stsl_study_rows_new(void); /* NULL: out of memory */
/* Append a copy of `row` (its events and run included). */
STSL_API stsl_rc stsl_study_rows_add(stsl_study_rows *c, const stsl_study_row *row, stsl_err *err);
STSL_API void stsl_study_rows_clear(stsl_study_rows *c);
STSL_API long stsl_study_rows_count(const stsl_study_rows *c);
/* The wall seconds its rows' runs took (to size the next ranges). */
STSL_API double stsl_study_rows_seconds(const stsl_study_rows *c);
/* The rows as bytes (*size of them; borrowed until c changes). */
STSL_API const void *stsl_study_rows_bytes(const stsl_study_rows *c, long *size);
/* Empty c and give room for `size` bytes from another process's
 * stsl_study_rows_bytes (NULL: out of memory); once they are there,
 * stsl_study_rows_parse checks them (STSL_RC_IO when they are not such
 * rows) and makes them c's rows. */
STSL_API void *stsl_study_rows_space(stsl_study_rows *c, long size);
STSL_API stsl_rc stsl_study_rows_parse(stsl_study_rows *c, stsl_err *err);
STSL_API void stsl_study_rows_free(stsl_study_rows *c);

/* The study file, open for writing: created, or with o->resume continued
 * (after the output rule for o->output and o->csv, as a run does).  Rows
 * are appended in variant order, from stsl_study_file_n_done on.  For the
 * one process that writes it: these functions do not take stsl_hdf5_lock. */
typedef struct stsl_study_file stsl_study_file;
STSL_API stsl_study_file *stsl_study_file_open(const stsl_study_plan *p, const stsl_study_opts *o,
                                               stsl_err *err);
STSL_API long stsl_study_file_n_done(const stsl_study_file *w);
STSL_API long stsl_study_file_n_failed(const stsl_study_file *w);
STSL_API stsl_rc stsl_study_file_append(stsl_study_file *w, const stsl_study_rows *c,
                                        stsl_err *err);
/* Make every appended row durable (a killed process leaves the file as of
 * its last flush; --resume continues it). */
STSL_API stsl_rc stsl_study_file_flush(stsl_study_file *w, stsl_err *err);
/* Flush, mark the file complete when every variant has its row, close and
 * free w (also on failure; NULL-safe). */
STSL_API stsl_rc stsl_study_file_close(stsl_study_file *w, stsl_err *err);
/* For tests: with STICKSLIP_TEST_SWEEP_HOLD=N in the environment and a
 * cancel flag in the options, a session runs only the N variants after
 * the file's rows and then holds, as though the rest were still running,
 * until cancelled, so that a test's signal lands mid-study.  _end: one
 * past the last variant this session runs (the study's count when not
 * held); _hold: flush and wait for the cancel flag. */
STSL_API long stsl_study_file_end(const stsl_study_file *w);
STSL_API stsl_rc stsl_study_file_hold(stsl_study_file *w, stsl_err *err);

/* The done rows of the study file `path` as CSV (`stickslip sweep --csv`):
 * variant, the parameters, then every summary column. */
STSL_API stsl_rc stsl_study_write_csv(const char *path, const char *csv, stsl_err *err);

/* What `stickslip info STUDY.h5` shows of a study file: its attributes,
 * the ranges of the varied keys and of every summary column over the
 * completed variants (NaN when none), and the first failures. */
#define STSL_STUDY_KEYS_MAX    64
#define STSL_STUDY_COLS_MAX    192
#define STSL_STUDY_MESSAGE_MAX 1024
typedef struct stsl_study_column {
    char name[64], units[32];
    double min, max;
    long n_finite;
} stsl_study_column;
typedef struct stsl_study_overview {
    char version[64], created[64], store[16], combine[32];
    int complete;
    long n_runs, n_done, n_failed;
    int n_keys;
    char keys[STSL_STUDY_KEYS_MAX][256];
    double key_min[STSL_STUDY_KEYS_MAX], key_max[STSL_STUDY_KEYS_MAX];
    int n_cols;
    stsl_study_column cols[STSL_STUDY_COLS_MAX];
    long n_full_runs;     /* store: full: the runs kept under /runs */
    int n_first_failures; /* at most 5 */
    long failure_index[5];
    char failure_message[5][STSL_STUDY_MESSAGE_MAX];
} stsl_study_overview;
STSL_API stsl_rc stsl_study_read_overview(const char *path, stsl_study_overview *out,
                                          stsl_err *err);

/* ---- what `stickslip curve` reads: the friction laws as curves ------------ */

/* Load `path` with the assignments "KEY=VALUE" applied before it is
 * validated: exactly `stickslip run PATH --set A --set B ...` (a key may
 * complete a file that is not valid without it); NULL on failure. */
STSL_API stsl_cfg *stsl_cfg_load_set(const char *path, const char *const *sets, int n_sets,
                                     stsl_err *err);

/* The friction laws of `cfg`, each with its load at t = 0: the element's
 * one, or one per contact of a system of bodies (named by the contact's
 * name, or "contacts.N"; the element's law has no name: NULL).  Borrows
 * cfg, which must outlive it.  k is from 0 to stsl_curve_n() - 1. */
typedef struct stsl_curve stsl_curve;
STSL_API stsl_curve *stsl_curve_new(const stsl_cfg *cfg, stsl_err *err);
STSL_API int stsl_curve_n(const stsl_curve *c);
STSL_API const char *stsl_curve_name(const stsl_curve *c, int k);
STSL_API const char *stsl_curve_law(const stsl_curve *c, int k); /* "coulomb", ... */
/* 1: forces are torques, velocities angular. */
STSL_API int stsl_curve_rotational(const stsl_curve *c);
/* 1 for a hybrid law (coulomb, stribeck): its force at zero velocity is
 * the static band [-F_S(-1), F_S(+1)], the static levels stsl_curve_band
 * gives (both 0 for a smooth law). */
STSL_API int stsl_curve_hybrid(const stsl_curve *c, int k);
STSL_API void stsl_curve_band(const stsl_curve *c, int k, double *fs_neg, double *fs_pos);
/* The steady-state force at relative velocity v (LuGre: z' = 0; the
 * element's damper is not part of the law). */
STSL_API double stsl_curve_force(const stsl_curve *c, int k, double v);
/* The law's velocity scale (a smooth law's, stribeck_velocity); 0: none. */
STSL_API double stsl_curve_velocity_scale(const stsl_curve *c, int k);
STSL_API void stsl_curve_free(stsl_curve *c);

/* A text output (a CSV table) written as every output is: the output
 * rule checked first (not `inputs`' configuration file or its tables when
 * inputs is not NULL; not a directory or FIFO; a character device such as
 * /dev/null is written in place), then written under a temporary name and
 * renamed into place by _commit, which reports any write error (STSL_RC_IO
 * naming the path and the cause) and leaves nothing under `path` then.
 * `what` names the output in messages ("the curve table"). */
typedef struct stsl_text_file stsl_text_file;
STSL_API stsl_text_file *stsl_text_open(const char *path, const char *what, const stsl_cfg *inputs,
                                        stsl_err *err);
STSL_API void stsl_text_write(stsl_text_file *f, const char *text, long n);
STSL_API stsl_rc stsl_text_commit(stsl_text_file *f, stsl_err *err); /* frees f */
STSL_API void stsl_text_discard(stsl_text_file *f);                  /* NULL-safe */

/* ---- results from files ------------------------------------------------ */

/* Read a result file written by `stickslip run -o FILE.h5` or by stsl_run
 * (STSL_OUTPUT_HDF5) into the stsl_result a run in memory gives: the same
 * samples, the events with their values just before and just after (taken
 * from the file's two rows at each event instant), the names and units,
 * and the summary computed from them as the run computed it.  What the file
 * does not hold: the summary's dissipated_energy (NaN), and, for a run of a
 * fixed-step scheme (no rows of its own at an event), the event values
 * other than x before, v before and after, net_force and friction after
 * (NaN).  When `cfg` is not NULL, *cfg receives the run's configuration
 * (/config; relative table files from the file's directory; its messages
 * name "FILE:/config").  Failure, with *out (and *cfg) NULL: STSL_RC_INPUT
 * naming the file for a missing file, a file that is not HDF5, not a
 * stickslip result, or a study file (`stickslip sweep`); STSL_RC_NOMEM. */
STSL_API stsl_rc stsl_result_read(const char *path, stsl_result **out, stsl_cfg **cfg,
                                  stsl_err *err);

/* ---- what `stickslip check` and `stickslip info` print ----------------- */

/* The description `stickslip check` gives of a valid configuration (free
 * with stsl_free()): "valid (t_end 2 s, coulomb friction)" (a system's
 * without the law), then for a system of bodies its bodies, couplings,
 * contacts, stops and forces, one per line.  NULL on failure (memory). */
STSL_API char *stsl_cfg_describe(const stsl_cfg *cfg, stsl_err *err);

/* What in `cfg` is valid but probably not meant, one warning a line ("" for
 * none; free with stsl_free()): an explicit simulation.atol that caps the
 * accuracy simulation.rtol asks for.  NULL on failure (memory). */
STSL_API char *stsl_cfg_warnings(const stsl_cfg *cfg, stsl_err *err);

/* 1 when `path` is a study file (`stickslip sweep`; stsl_study_read_overview
 * reads it), else 0. */
STSL_API int stsl_is_study_file(const char *path);

/* What `stickslip info FILE --events MAX_EVENTS` prints of a result file
 * (HDF5 or MAT): completion, statistics, time per mode, event counts by
 * kind and at most max_events events (-1: all); for a system of bodies per
 * body, contact and stop; for a file of `stickslip converge --h5` its table
 * (after the result when the file holds both).  *text (free with
 * stsl_free()) receives what was read also on failure (NULL when nothing
 * was): a result followed by a damaged table.  STSL_RC_INPUT naming the
 * file for a file that is missing or not a result. */
STSL_API stsl_rc stsl_file_info(const char *path, long max_events, char **text, stsl_err *err);

/* ---- comparing a trajectory with the exact one ------------------------- */

/* The metrics of `stickslip compare` (names as in its JSON report; their
 * definitions in docs and run/validation.h).  Units are static strings. */
typedef struct stsl_compare_metrics {
    long n_points;       /* candidate samples compared */
    long points_dropped; /* candidate samples outside the reference's [0, t_end] */
    double t_first, t_last;
    double max_abs_error_x, rms_error_x, final_error_x; /* candidate - reference */
    double max_abs_error_v, rms_error_v, final_error_v;
    double stuck_iou, stuck_time_reference, stuck_time_candidate;
    double stuck_velocity; /* the |v| below which the candidate counts as stuck */
    long events_matched, events_missed, events_spurious;
    long events_ignored_reference, events_ignored_candidate;
    double max_event_time_error; /* NaN without matched events */
    double event_window;
    double dissipated_energy_reference, dissipated_energy_candidate, dissipated_energy_difference;
    /* "friction column, trapezoidal rule" or, without friction arrays,
     * "energy balance with the reference model's F_n" */
    const char *energy_method;
    const char *candidate_stuck_rule;    /* "candidate: |v| <= stuck velocity" */
    const char *candidate_events_source; /* "candidate events: from its samples" */
    const char *t_units, *x_units, *v_units, *energy_units;
} stsl_compare_metrics;

/* Judge the candidate trajectory t, x, v (and friction, may be NULL) of n
 * samples against the exact run of `ref`, exactly as `stickslip compare
 * REF.h5 CANDIDATE` does with the configuration in REF.h5: `ref` is run
 * again with the candidate's times as its output times.  stuck_velocity
 * and event_window: < 0 or NaN for the command's defaults.  STSL_RC_INPUT
 * for a time that goes back ("candidate: t[5] = ... goes back from ...
 * (time must increase)"), a value that is not finite, or fewer than two
 * distinct times within [0, t_end]; a failure of the re-run is its own
 * code, its message starting "re-running the reference: ". */
STSL_API stsl_rc stsl_compare(const stsl_cfg *ref, const double *t, const double *x,
                              const double *v, const double *friction, long n,
                              double stuck_velocity, double event_window, stsl_compare_metrics *out,
                              stsl_err *err);

/* ---- comparing two results of a system of bodies ---- */
/* The report of `stickslip compare REF.h5 CAND.h5` for systems (its JSON's
 * "bodies", "contacts" and "stops", the same names): per body the errors
 * of x[body] and v[body] (candidate - reference), per contact the errors
 * of its friction force and slip velocity, the stuck times as `info` counts them and their overlap,
 * the events about it matched within the window, the energy its friction dissipated, per stop its
 * events.  Members in the candidate's order, named as in its file. */
typedef struct stsl_compare_body {
    char name[64];
    double max_abs_error_x, rms_error_x, final_error_x;
    double max_abs_error_v, rms_error_v, final_error_v;
} stsl_compare_body;

typedef struct stsl_compare_events {
    long events_matched, events_missed, events_spurious;
    double max_event_time_error; /* NaN without matched events */
} stsl_compare_events;

typedef struct stsl_compare_contact {
    char name[64];
    double stuck_time_reference, stuck_time_candidate, stuck_iou;
    double dissipated_energy_reference, dissipated_energy_candidate; /* NaN without the columns */
    double max_abs_error_friction, rms_error_friction, final_error_friction;
    double max_abs_error_slip_velocity, rms_error_slip_velocity, final_error_slip_velocity;
    stsl_compare_events events;
} stsl_compare_contact;

typedef struct stsl_compare_stop {
    char name[64];
    stsl_compare_events events;
} stsl_compare_stop;

typedef struct stsl_compare_system_report {
    long n_points, points_dropped;
    double t_first, t_last, event_window;
    int n_bodies, n_contacts, n_stops;
    stsl_compare_body *bodies; /* owned: stsl_compare_system_free */
    stsl_compare_contact *contacts;
    stsl_compare_stop *stops;
} stsl_compare_system_report;

/* Judge the result file `candidate` (HDF5 or MAT, `stickslip run -o` of a system)
 * against the exact run of the system `ref`, exactly as `stickslip compare
 * REF.h5 CANDIDATE` does with the configuration in REF.h5 (`ref` run again
 * with the candidate's times as its output times).  event_window: < 0 or
 * NaN for the command's default.  STSL_RC_INPUT naming the file for a file
 * that is not a system's result or whose bodies, contacts or stops differ
 * from `ref`'s; a failure of the re-run is its own code, its message
 * starting "re-running the reference: ".  On failure *out holds nothing to
 * free. */
STSL_API stsl_rc stsl_compare_system(const stsl_cfg *ref, const char *candidate,
                                     double event_window, stsl_compare_system_report *out,
                                     stsl_err *err);
STSL_API void stsl_compare_system_free(stsl_compare_system_report *r); /* NULL-safe */

/* ---- `stickslip compare` on files ---- */
/* What `stickslip compare REFERENCE.h5 CANDIDATE` does, the files read by
 * the library: the candidate a stickslip result, an HDF5, MAT or Modelica
 * file or a CSV table (its columns as `columns` names them), or an FMU run
 * at fmu_step; the reference's /config run again at the candidate's times;
 * the element's metrics (stsl_compare) or a system's (stsl_compare_system).
 * Set the inputs, zero the rest. */
typedef struct stsl_compare_files {
    const char *reference, *candidate; /* candidate: unused with fmu */
    /* --columns: "T,X,V[,F]" by name or "t=A,x=B:1,v=B:2[,friction=C]" by
     * role (docs/validation.md); NULL: "t,x,v". */
    const char *columns;
    double stuck_velocity, event_window; /* < 0: the command's defaults */
    /* An FMU as the candidate (NULL: none), its options as in
     * stsl_converge_opts, run at the communication step fmu_step (s). */
    const char *fmu, *fmu_scheme;
    const char *const *fmu_inputs, *const *fmu_outputs, *const *fmu_sets;
    int n_fmu_inputs, n_fmu_outputs, n_fmu_sets;
    const char *fmu_module;
    double fmu_step;
    double fmu_timeout; /* as in stsl_converge_opts (0: 600 s) */
    /* Also write the report as JSON (whole or not at all; never an input);
     * NULL: none. */
    const char *json;
    /* Filled on failure: 1 when the options given do not fit the files
     * (--columns or a stuck velocity for systems' results). */
    int usage;
} stsl_compare_files;

/* Compare as `stickslip compare` does.  *text receives the table it
 * prints (also when only writing the JSON report failed), *warnings one
 * line per warning ("CAND is incomplete (...); comparing what it has");
 * both freed with stsl_free(), NULL when there is none.  The code says
 * what failed: STSL_RC_INPUT a file (named) or an option, a run's own code
 * when the reference's re-run failed (its message starting "REFERENCE:
 * re-running the reference: "; STSL_RC_SOLVER when that failure was bad
 * input), an FMU's own code, STSL_RC_IO or STSL_RC_NOMEM for the JSON
 * report or memory. */
STSL_API stsl_rc stsl_compare_files_run(stsl_compare_files *o, char **text, char **warnings,
                                        stsl_err *err);
/* Check a `columns` text: STSL_RC_INPUT with the reason when it is not one. */
STSL_API stsl_rc stsl_compare_columns(const char *columns, stsl_err *err);

/* ---- convergence studies (`stickslip converge`) ------------------------ */

/* A convergence study: a fixed-step candidate run at each of several steps
 * against the exact event-driven reference of the same configuration, as
 * `stickslip converge` does (docs/validation.md, docs/fmu.md).  The
 * candidate is one of the built-in fixed-step schemes, or a user's FMI 2.0
 * FMU driven by the configuration's signals.  The reference runs once,
 * evaluated exactly (its dense output) at every step point of every
 * candidate run, at the configuration's tolerances; errors are taken at
 * every step point, events matched as stsl_compare matches them (by class,
 * closest first, within 5 of the candidate's steps). */
#define STSL_FMU_MAP_MAX 64
/* Events match within this many of the candidate's steps (its median
 * step) unless a window is given. */
#define STSL_COMPARE_WINDOW_STEPS 5.0
typedef struct stsl_converge_opts {
    /* The candidate: a built-in scheme ("karnopp", "fixed_step_hybrid",
     * "smooth_rk4"), or with scheme NULL the FMU at the path `fmu`. */
    const char *scheme;
    const char *fmu;
    /* The FMU's options, as `converge --fmu` takes them: fmu_scheme NULL
     * for a co-simulation FMU, "euler" or "rk4" for a model-exchange FMU
     * integrated by that scheme; fmu_inputs "NAME=SIGNAL" (an FMU input
     * receives a configuration signal), fmu_outputs "x=NAME" (which output
     * is x, v, friction), fmu_sets "NAME=VALUE" (a parameter set before the
     * FMU starts), at most STSL_FMU_MAP_MAX of each. */
    const char *fmu_scheme;
    const char *const *fmu_inputs, *const *fmu_outputs, *const *fmu_sets;
    int n_fmu_inputs, n_fmu_outputs, n_fmu_sets;
    /* Seconds one call into the FMU may take (`--fmu-timeout`): a call
     * that has not returned by then is a hang, its run fails (STSL_EMODEL)
     * naming the call and the time.  0: 600 s; INFINITY: no limit. */
    double fmu_timeout;
    /* The FMU support module (stickslip_fmu.so) to load for `fmu`; NULL:
     * $STICKSLIP_FMU_MODULE when set, else the one installed with the
     * library (LIBDIR/stickslip/), else the build tree's.  The library
     * itself links neither libzip nor libxml2: only a study of an FMU
     * loads them. */
    const char *fmu_module;
    /* The steps (s): 2 to 64, at least two distinct, each > 0 and <= t_end;
     * the step points of all runs together at most 1e7 (all are held in
     * memory). */
    const double *steps;
    int n_steps;
    /* Files besides the result (NULL: none): the table as CSV (`converge
     * -o`) and the HDF5 group /convergence (`converge --h5`: a new file, or
     * an existing one with its /convergence replaced), byte for byte what
     * the command writes, under the output rule of stsl_run (checked before
     * any run). */
    const char *csv, *h5;
} stsl_converge_opts;

/* A study's result: per step (one row each) the columns
 *   step, max_abs_error_x, rms_error_x, max_abs_error_v, final_error_x
 *     (candidate - reference; of a system the largest over its bodies),
 *   wall_seconds (median of up to 5 runs without output; an FMU's one
 *     run), rhs_evals (an FMU: fmi2DoStep or fmi2GetDerivatives calls),
 *   events, events_missed, events_spurious (the candidate's events, the
 *     reference's left without a partner, the candidate's left over),
 *   max_event_time_error (largest |dt| of a matched event; NaN without),
 * then of a single element its contact's
 *   max_abs_error_friction, rms_error_friction, stuck_iou (overlap of the
 *     stuck times), dissipated_energy_error (candidate - reference, J),
 * or of a system of bodies, per body B and contact C (the CSV's columns)
 *   max_abs_error_x.B, rms_error_x.B, max_abs_error_v.B, final_error_x.B,
 *   order.B, max_abs_error_friction.C, rms_error_friction.C, stuck_iou.C,
 *   dissipated_energy_error.C.
 * A contact's friction errors (max, rms, energy) are NaN when the candidate
 * does not output its friction (an FMU without that output): not measured. */
typedef struct stsl_convergence stsl_convergence;

/* Run the study of `cfg` (not changed: the scheme and step are set on a
 * copy).  STSL_RC_INPUT for bad options (naming the option: "steps: 3 is
 * longer than t_end = 2 s", "scheme must be karnopp, ..."), a bad FMU or
 * mapping (naming the FMU, the file in it and the variable; docs/fmu.md);
 * STSL_RC_IO for an FMU or module that cannot be read; a failed run is its
 * own code, the message naming the step ("scheme karnopp at step 0.001:
 * ...", "at step 0.001: m.fmu: fmi2DoStep at t = 0.5 s returned
 * fmi2Error"), STSL_RC_MODEL for an FMU's error or crash (it runs in a
 * child process).  When only writing `csv` or `h5` failed, *out still
 * holds the whole result besides the code; otherwise *out is NULL on
 * failure. */
STSL_API stsl_rc stsl_converge(const stsl_cfg *cfg, const stsl_converge_opts *opts,
                               stsl_convergence **out, stsl_err *err);

/* The candidate's name ("karnopp", "fmu PATH"), the number of steps
 * (rows) and of columns, and the columns' names in the order above. */
STSL_API const char *stsl_convergence_scheme(const stsl_convergence *c);
STSL_API int stsl_convergence_n_steps(const stsl_convergence *c);
STSL_API int stsl_convergence_n_columns(const stsl_convergence *c);
STSL_API const char *stsl_convergence_column_name(const stsl_convergence *c, int i);
/* The values of column `name` (n_steps of them, in the order of the steps
 * given) and its unit ("m", "s", "" for counts and ratios); NULL for a
 * column the study does not have. */
STSL_API const double *stsl_convergence_column(const stsl_convergence *c, const char *name);
STSL_API const char *stsl_convergence_column_units(const stsl_convergence *c, const char *name);
/* The observed order of an error column: the least-squares slope of
 * log |error| against log(step) over the rows with error != 0 (*points
 * of them, may be NULL); NaN with fewer than two such rows or no such
 * column.  An error that is NaN (an FMU without a friction output) has no
 * order.
 * The order of max_abs_error_x is the table's "fitted order". */
STSL_API double stsl_convergence_order(const stsl_convergence *c, const char *name, int *points);
/* A system's bodies and contacts by index (the names in the columns);
 * NULL out of range and for a single element. */
STSL_API int stsl_convergence_n_bodies(const stsl_convergence *c);
STSL_API int stsl_convergence_n_contacts(const stsl_convergence *c);
STSL_API const char *stsl_convergence_body(const stsl_convergence *c, int i);
STSL_API const char *stsl_convergence_contact(const stsl_convergence *c, int i);
/* The reference's own cost, from a run without output: "wall_seconds",
 * "rhs_evals", "steps", "events"; STSL_RC_INPUT for another name. */
STSL_API stsl_rc stsl_convergence_reference(const stsl_convergence *c, const char *name,
                                            double *value, stsl_err *err);
STSL_API void stsl_convergence_free(stsl_convergence *c); /* NULL-safe */

/* ---- an FMU of the element (`stickslip fmu`) ------------------------------ */

/* Write the element of `cfg` as an FMI 2.0 co-simulation FMU at `path`
 * (docs/fmu.md), byte for byte what `stickslip fmu CONFIG -o PATH` writes:
 * modelDescription.xml from the element's columns, the binary, and the
 * effective configuration with its GUID, the 64-bit FNV-1a hash of that
 * configuration's YAML ("{stickslip-%016x}": FMUs of different
 * configurations never share one).  The archive is written beside `path`
 * and renamed over it when whole.  `module` is the FMU support module to
 * load (NULL: as stsl_converge_opts.fmu_module); `binary` the FMU's binary
 * stickslip_element.so (NULL: $STICKSLIP_FMU_BINARY when set, else the
 * build tree's).  STSL_RC_INPUT for a system of bodies or a `path` that is
 * a directory, FIFO or device; STSL_RC_IO for a module, binary or archive
 * that cannot be read or written. */
STSL_API stsl_rc stsl_fmu_export(const stsl_cfg *cfg, const char *path, const char *module,
                                 const char *binary, stsl_err *err);
/* The platform folder of the FMU's binary ("linux64"): a static string. */
STSL_API const char *stsl_fmu_platform(void);

#ifdef __cplusplus
}
#endif

#endif
