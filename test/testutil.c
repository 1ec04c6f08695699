#include "test/testutil.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "physics/modes.h"
#include "models/element_params.h"
#include "physics/friction.h"
#include "run/run.h"
#include "physics/signal.h"

double tu_wrms(const double *a, const double *ref, int n, double rtol, double atol)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double w = 1.0 / (rtol * fabs(ref[i]) + atol);
        double d = (a[i] - ref[i]) * w;
        s += d * d;
    }
    return n > 0 ? sqrt(s / n) : 0.0;
}

double tu_wrms1(double a, double ref, double rtol, double atol)
{
    return tu_wrms(&a, &ref, 1, rtol, atol);
}

int tu_run_cli(const char *args, char *out, size_t outsz)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", STSL_CLI, args);
    return tu_shell(cmd, out, outsz);
}

int tu_shell(const char *cmd, char *out, size_t outsz)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, outsz ? outsz - 1 : 0, p);
    if (outsz) out[n] = '\0';
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int tu_cli(char *out, size_t outsz, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return tu_run_cli(args, out, outsz);
}

const stsl_mem_result *tu_run_config(const stsl_config *cfg, stsl_sink *sink)
{
    stsl_error err = {0};
    assert_int_equal(stsl_mem_sink_create(sink, &err), STSL_OK);
    int rc = stsl_run_element(&cfg->element, &cfg->sim, &cfg->scheme, sink, NULL, &err);
    if (rc) print_error("run failed: %s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    const stsl_mem_result *r = stsl_mem_sink_result(sink);
    assert_true(r->complete);
    return r;
}

const stsl_mem_result *tu_run_yaml(const char *yaml, const char *const *sets, int n_sets,
                                   stsl_sink *sink)
{
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "<test>", NULL, sets, n_sets, &cfg, &err))
        print_error("config: %s\n", err.msg);
    assert_int_equal(err.code, STSL_OK);
    const stsl_mem_result *r = tu_run_config(&cfg, sink);
    stsl_config_free(&cfg);
    return r;
}

static int group_first(const stsl_layout *l, const char *name)
{
    for (int g = 0; g < l->n_groups; g++)
        if (!strcmp(l->groups[g].name, name)) return l->groups[g].first;
    return -1;
}

/* Contact c's band [*lo, *hi] at time t under its load: the union of the
 * bands at the load's left and right values (a sample at a load step may
 * stand on either side of it; elsewhere both are the same). */
static void band_at(const stsl_friction_params *fp, const stsl_signal *load, double t, double *lo,
                    double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int left = 0; left < 2; left++) {
        double fd, fs_pos, fs_neg, f_r = load ? stsl_signal_value(load, t, left) : 0.0;
        stsl_friction_levels(fp, +1, f_r, &fd, &fs_pos);
        stsl_friction_levels(fp, -1, f_r, &fd, &fs_neg);
        *lo = fmin(*lo, -fs_pos);
        *hi = fmax(*hi, fs_neg);
    }
}

long tu_assert_bands(const stsl_mem_result *r, const stsl_system *s)
{
    int fr = group_first(&r->layout, "friction"), md = group_first(&r->layout, "contact_mode");
    if (s->n_contacts && (fr < 0 || md < 0)) fail_msg("no friction or contact_mode columns");
    long checked = 0;
    for (int c = 0; c < s->n_contacts; c++) {
        stsl_error err = {0};
        stsl_signal *load = NULL;
        if (s->contacts[c].has_load && !(load = stsl_signal_create(&s->contacts[c].load, &err)))
            fail_msg("contact %d: its load: %s", c, err.msg);
        for (long i = 0; i < r->n_samples; i++) {
            const double *row = r->cols + i * r->n_cols;
            if (lround(row[md + c]) != 0) continue; /* not STUCK */
            double f = row[fr + c], lo, hi;
            band_at(&s->contacts[c].friction, load, r->t[i], &lo, &hi);
            checked++;
            if (!(f >= lo - 1e-9 * fabs(lo) && f <= hi + 1e-9 * fabs(hi))) {
                stsl_signal_free(load);
                fail_msg("band invariant: sample %ld (t = %.17g): stuck contact %d holds %.17g, "
                         "its band [%.17g, %.17g]",
                         i, r->t[i], c, f, lo, hi);
            }
        }
        stsl_signal_free(load);
    }
    return checked;
}

const stsl_mem_result *tu_run_system_yaml(const char *yaml, int power, stsl_sink *sink)
{
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "<test>", NULL, NULL, 0, &cfg, &err))
        print_error("config: %s\n", err.msg);
    assert_int_equal(err.code, STSL_OK);
    assert_true(cfg.is_system);
    cfg.sim.integrate_power = power;
    assert_int_equal(stsl_mem_sink_create(sink, &err), STSL_OK);
    int rc = stsl_run_system(&cfg.system, &cfg.sim, sink, NULL, &err);
    if (rc) print_error("run failed: %s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    stsl_config_free(&cfg);
    const stsl_mem_result *r = stsl_mem_sink_result(sink);
    assert_true(r->complete);
    return r;
}

int tu_count_kind(const stsl_mem_result *r, int kind)
{
    int n = 0;
    for (long i = 0; i < r->n_events; i++)
        n += r->events[i].kind == kind;
    return n;
}

double tu_col(const stsl_mem_result *r, long i, int c)
{
    return r->cols[i * r->n_cols + c];
}

void tu_assert_slip_sign(const stsl_mem_result *r, double v_round)
{
    for (long i = 0; i < r->n_samples; i++) {
        double v = tu_col(r, i, STSL_COL_V);
        if (r->mode[i] == STSL_MODE_SLIP_POS && !(v >= -v_round))
            print_error("sample %ld (t = %.17g) in SLIP_POS with v = %.17g\n", i, r->t[i], v);
        if (r->mode[i] == STSL_MODE_SLIP_NEG && !(v <= v_round))
            print_error("sample %ld (t = %.17g) in SLIP_NEG with v = %.17g\n", i, r->t[i], v);
        assert_true(r->mode[i] != STSL_MODE_SLIP_POS || v >= -v_round);
        assert_true(r->mode[i] != STSL_MODE_SLIP_NEG || v <= v_round);
    }
}

long tu_nth_event(const stsl_mem_result *r, int kind, int n)
{
    for (long i = 0; i < r->n_events; i++)
        if (r->events[i].kind == kind && n-- == 0) return i;
    return -1;
}

void tu_mkdtemp(char *buf, size_t bufsz)
{
    snprintf(buf, bufsz, "/tmp/stsl_test_XXXXXX");
    if (!mkdtemp(buf)) buf[0] = '\0';
}

int tu_mkdtemp_env(char *buf, size_t bufsz)
{
    tu_mkdtemp(buf, bufsz);
    return buf[0] && !setenv("TMPDIR", buf, 1) ? 0 : -1;
}

int tu_rm_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int tu_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

int tu_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void tu_assert_close(double a, double b, double tol, const char *expr, const char *file, int line)
{
    if (fabs(a - b) <= tol) return;
    print_error("%s = %.17g, expected %.17g within %.3g (difference %.3g)\n", expr, a, b, tol,
                a - b);
    _fail(file, line);
}

void tu_assert_wrms1(double a, double ref, double rtol, double atol, const char *expr,
                     const char *file, int line)
{
    double w = tu_wrms1(a, ref, rtol, atol);
    if (w < 1.0) return;
    print_error("%s = %.17g, expected %.17g: weighted RMS error %.3g >= 1 (rtol %.3g, atol %.3g)\n",
                expr, a, ref, w, rtol, atol);
    _fail(file, line);
}

double tu_csv_field(const char *csv, const char *name, int row)
{
    int col = 0, found = -1;
    size_t len = strlen(name);
    for (const char *p = csv; *p && *p != '\n'; col++) {
        if (!strncmp(p, name, len) && (p[len] == ',' || p[len] == ' ' || p[len] == '\n'))
            found = col;
        while (*p && *p != ',' && *p != '\n')
            p++;
        if (*p == ',') p++;
    }
    assert_true(found >= 0);
    const char *p = strchr(csv, '\n');
    for (int r = 0; p && r < row; r++)
        p = strchr(p + 1, '\n');
    assert_non_null(p);
    p++;
    for (int c = 0; c < found; c++)
        p = strchr(p, ',') + 1;
    return strtod(p, NULL);
}

char *tu_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 14, n = 0, got;
    char *b = malloc(cap + 1);
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap) {
            char *q = realloc(b, 2 * cap + 1);
            if (!q) free(b);
            b = q, cap *= 2;
        }
    fclose(f);
    if (b) b[n] = '\0';
    return b;
}

double tu_json_value(const char *json, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(json, pat);
    if (!p) return NAN;
    double d;
    return sscanf(p + strlen(pat), "%lf", &d) == 1 ? d : NAN;
}

int tu_count_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        n += l > 4 && strcmp(e->d_name + l - 4, ".tmp") == 0;
    }
    closedir(d);
    return n;
}
