/* h5_types.h - the HDF5 pieces shared by the result writers and readers:
 * the /events compound type (defined once, for the file and for every
 * memory layout that reads or writes it), scalar attributes, HDF5's own
 * description of its last error, and error messages built from it.
 *
 * Error printing: HDF5 prints its error stack on stderr by default.  The
 * library never turns that off for the process (H5Eset_auto2 would also
 * silence h5py in the same Python); each public entry point of io/ that may
 * fail expectedly wraps its HDF5 calls in H5E_BEGIN_TRY / H5E_END_TRY
 * (STSL_H5_QUIET) and reports failures as its own one-line message. */
#ifndef STSL_H5_TYPES_H
#define STSL_H5_TYPES_H

#include <stddef.h>

#include <hdf5.h>

#include "solver/sink.h"
#include "solver/status.h"

/* rc = call, with HDF5's automatic error printing off around it (the error
 * stack is still kept for stsl_h5_last_error). */
#define STSL_H5_QUIET(rc, call)                                                                    \
    do {                                                                                           \
        H5E_BEGIN_TRY                                                                              \
        {                                                                                          \
            rc = (call);                                                                           \
        }                                                                                          \
        H5E_END_TRY                                                                                \
    } while (0)
/* return the int `call` returns, HDF5 quiet: an entry point's whole body.
 * `call` must return an int (a status): a hid_t would be narrowed. */
#define STSL_H5_RETURN_QUIET(call)                                                                 \
    do {                                                                                           \
        int quiet_rc;                                                                              \
        STSL_H5_QUIET(quiet_rc, call);                                                             \
        return quiet_rc;                                                                           \
    } while (0)

/* Width of the fixed-length `kind` member of /events in the file (null-padded). */
#define STSL_H5_KIND_LEN 16

/* The /events members in order (t, kind, mode_before, mode_after, x,
 * v_before, v_after, net_force, friction, index, subject): the HDF5
 * compound's members and the MAT events struct's fields.  Five carry
 * column values (x .. friction: off[4..8] below). */
#define STSL_H5_EVENT_MEMBERS 11
#define STSL_H5_EVENT_VALUES  STSL_EVENT_VALUES
extern const char *const stsl_h5_event_members[STSL_H5_EVENT_MEMBERS];

/* One /events row in memory: its size, the offsets of the members t, kind,
 * mode_before, mode_after, x, v_before, v_after, net_force, friction,
 * index, subject (in that order), the size of the two mode members (native
 * signed integers: 1 for int8_t or sizeof(int)) and the size and padding
 * of the kind string; and what a system's /events adds to the element's
 * (docs/hdf5-layout.md), which the file type follows too: width[i] of the
 * value member i (x, v_before, v_after, net_force, friction): 0 a float64
 * (the element's), w > 0 an array of w float64 (the values of a grouped
 * column: h5py reads events x w), -1 left out (a memory type that does not
 * read it); subject: which of the members `index` (int32,
 * STSL_H5_EV_INDEX) and `subject` (its name, variable-length UTF-8 string
 * in memory a char *, STSL_H5_EV_NAME; earlier files called it `name`)
 * follow (a system's file has both; a reader may take the index alone).
 * Widths and subject all zero: exactly the element's type.  HDF5 converts
 * between layouts member by member, by name. */
#define STSL_H5_EV_INDEX 1
#define STSL_H5_EV_NAME  2
typedef struct stsl_h5_event_layout {
    size_t size;
    size_t off[STSL_H5_EVENT_MEMBERS];
    size_t mode_size;
    size_t kind_size;
    H5T_str_t kind_pad;
    int width[STSL_H5_EVENT_VALUES];
    int subject;
} stsl_h5_event_layout;

/* The /events compound type of `layout`: the file type (in_file: its
 * widths and subject, little-endian, packed in member order; the same on
 * every machine) or its native memory type.  Close it with H5Tclose; -1 on
 * failure. */
hid_t stsl_h5_event_type(const stsl_h5_event_layout *layout, int in_file);

/* Variable-length UTF-8 string type (h5py reads it as str); -1 on failure. */
hid_t stsl_h5_vlen_str_type(void);
/* A dataset transfer property list for moving n elements of memory type
 * mtype to or from dataset d (close it with H5Pclose); -1 on failure.  Its
 * type-conversion buffer holds the n elements (at least a page and one
 * element, at most HDF5's default 1 MiB): HDF5 allocates that buffer, and
 * a background buffer beside it, zeroed at full size for every H5Dwrite or
 * H5Dread that converts (a compound or a variable-length string), and for
 * a run's few events or its configuration text the zeroing and page faults
 * of 2 MiB cost more than the whole write.  The converted bytes are the
 * same. */
hid_t stsl_h5_xfer(hid_t d, hid_t mtype, hsize_t n);
/* Rows [first, first + n) of a 1-D dataset d, in memory of `mtype`:
 * written from `from`, or (from NULL) read into `into`.  0 or -1. */
int stsl_h5_rows(hid_t d, hid_t mtype, hsize_t first, hsize_t n, void *into, const void *from);
/* Create or overwrite a scalar attribute.  Returns 0 or -1 with HDF5's
 * error stack set. */
int stsl_h5_put_attr_str(hid_t obj, const char *name, const char *value); /* vlen UTF-8 */
int stsl_h5_put_attr_int(hid_t obj, const char *name, int value);         /* int32 */
int stsl_h5_put_attr_i64(hid_t obj, const char *name, long value);        /* int64 */
int stsl_h5_put_attr_f64(hid_t obj, const char *name, double value);      /* float64 */
/* A 1-D attribute of n variable-length UTF-8 strings (h5py: an array of
 * str); n < 0: the scalar values[0]. */
int stsl_h5_put_attr_strs(hid_t obj, const char *name, const char *const *values, int n);
/* A scalar dataset of the variable-length UTF-8 text (NULL: ""). */
int stsl_h5_put_text(hid_t loc, const char *name, const char *text);
/* A new group that lists its members in creation order (h5py keeps it). */
hid_t stsl_h5_ordered_group(hid_t loc, const char *name);
/* "name1,name2,..." or "0 NAME0, 1 NAME1, ..." (numbered), malloc'd; NULL when
 * out of memory. */
char *stsl_h5_join_names(const char *const *names, int n, int numbered);
/* A scalar string (fixed- or variable-length, one element) from an
 * attribute (is_attr) or a dataset, as a malloc'd C string, a fixed-length
 * one without its padding; NULL on failure or for an array of strings. */
char *stsl_h5_read_string(hid_t id, int is_attr);
/* Scalar attribute `name` of `obj`: a string into buf (cut to n bytes; ""
 * on failure), or one number converted by HDF5 to `mtype`; 0, or -1 when
 * it is absent or not one of those. */
int stsl_h5_get_attr_str(hid_t obj, const char *name, char *buf, size_t n);
int stsl_h5_get_attr_num(hid_t obj, const char *name, hid_t mtype, void *val);
/* The strings of such an attribute: a malloc'd array of *n malloc'd strings
 * (free both with stsl_h5_free_strs); NULL when absent or not strings. */
char **stsl_h5_get_attr_strs(hid_t obj, const char *name, int *n);
void stsl_h5_free_strs(char **s, int n);

/* The innermost (most specific) description on HDF5's error stack into buf
 * ("" when there is none).  Call it right after the failing call: the next
 * HDF5 API call clears the stack. */
void stsl_h5_last_error(char *buf, size_t size);
/* STSL_EIO "FILE: HDF5 could not WHAT: DESCRIPTION" from the current HDF5
 * error.  Call it right after the failing call. */
int stsl_h5_fail(stsl_error *err, const char *file, const char *what);

#endif
