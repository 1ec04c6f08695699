/* test_config_keys.c - the one table of configuration keys (io/config/config_keys.h)
 * against what the program does with every number key of it, of the one
 * element and of a system alike:
 *   - set then get returns the value set (the full YAML path and the fast
 *     path alike: stsl_config_set picks), and loading the write-back of
 *     the result gives the same value again;
 *   - a value just outside the allowed range (the next double past a
 *     bound) is refused, the message naming the key, the value and the
 *     range;
 *   - docs/configuration.md's table of keys is exactly the table's
 *     (keys_markdown): no key documented that the table lacks, none
 *     in the table left undocumented.
 * `test_config_keys --markdown` prints the docs' table (to paste it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/config/config.h"
#include "io/config/config_keys.h"
#include "test/testutil.h"

/* Bases in which every number key of the table exists (each key is tried
 * on the first base whose effective configuration has it). */
static const char *const BASES[] = {
    /* the element: spring, damper, rigid stops, a given ratio */
    "element: {mass: 2, spring: {stiffness: 100, free_position: 0.1}, damper: {coefficient: 3}}\n"
    "friction: {dynamic: 18, static_ratio: 1.5, efficiency_opposing: 0.8, efficiency_aiding: 0.5}\n"
    "end_stops: {min: -0.2, max: 0.2, restitution: 0.3}\n"
    "initial: {position: 0.05, velocity: 0.5}\n"
    "simulation: {t_end: 1, atol: 1e-9}\n",
    /* rotational, a static force, Stribeck, compliant stops */
    "domain: rotational\n"
    "element: {inertia: 2}\n"
    "friction: {law: stribeck, dynamic: 18, static: 26, stribeck_velocity: 0.01}\n"
    "end_stops: {min: -0.2, max: 0.2, model: compliant, stiffness: 1e5, damping: 2}\n"
    "simulation: {t_end: 1}\n",
    /* Karnopp */
    "element: {mass: 1}\nfriction: {dynamic: 1}\n"
    "simulation: {t_end: 1, scheme: karnopp, step: 1e-4}\n",
    /* smooth_rk4 on a hybrid law */
    "element: {mass: 1}\nfriction: {dynamic: 1}\n"
    "simulation: {t_end: 1, scheme: smooth_rk4, step: 1e-4}\n",
    /* the smooth laws' parameters */
    "element: {mass: 1}\n"
    "friction: {law: lugre, tc: 1, tst: 1.5, v_st: 0.01, d: 0.4, sigma0: 1e5, sigma1: 300}\n"
    "simulation: {t_end: 1}\n",
    "element: {mass: 1}\n"
    "friction: {law: simscape, breakaway: 1.5, coulomb: 1, breakaway_velocity: 0.1, viscous: 0.2}\n"
    "simulation: {t_end: 1}\n",
    "element: {mass: 1}\n"
    "friction: {law: 20sim_scvs, tc: 1, tst: 1.5, slope: 100, v_st: 0.01, d: 0.3}\n"
    "simulation: {t_end: 1}\n",
    /* a system: translational, a coupling, a rigid stop, a given ratio */
    "bodies: {a: {mass: 2, position: 0.01, velocity: 0.5}, b: {mass: 3}}\n"
    "couplings: [{between: [a, b], stiffness: 100, damping: 2, free_length: 0.5}]\n"
    "contacts: [{body: a, dynamic: 1, static_ratio: 1.5, efficiency_opposing: 0.8,\n"
    "            efficiency_aiding: 0.5}]\n"
    "stops: [{between: [a, b], min: -0.1, max: 0.1, restitution: 0.3}]\n"
    "simulation: {t_end: 1}\n",
    /* rotational, a static force, Stribeck, a compliant stop */
    "domain: rotational\n"
    "bodies: {a: {inertia: 2}}\n"
    "contacts: [{body: a, law: stribeck, dynamic: 1, static: 1.5, stribeck_velocity: 0.01}]\n"
    "stops: [{body: a, min: -0.1, max: 0.1, model: compliant, stiffness: 1e5, damping: 2}]\n"
    "simulation: {t_end: 1}\n",
    /* the smooth laws on a contact */
    "bodies: {a: {mass: 1}}\n"
    "contacts: [{body: a, law: lugre, tc: 1, tst: 1.5, v_st: 0.01, d: 0.4, sigma0: 1e5,\n"
    "            sigma1: 300}]\n"
    "simulation: {t_end: 1}\n",
    "bodies: {a: {mass: 1}}\n"
    "contacts: [{body: a, law: simscape, breakaway: 1.5, coulomb: 1, breakaway_velocity: 0.1,\n"
    "            viscous: 0.2}]\n"
    "simulation: {t_end: 1}\n",
    "bodies: {a: {mass: 1}}\n"
    "contacts: [{body: a, law: 20sim_scvs, tc: 1, tst: 1.5, slope: 100, v_st: 0.01, d: 0.3}]\n"
    "simulation: {t_end: 1}\n",
};
#define N_BASES ((int)(sizeof BASES / sizeof BASES[0]))

/* The concrete key of a generic path: item 0, body a. */
static void concrete(const char *path, char *out, size_t size)
{
    char buf[KEYPATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    out[0] = '\0';
    for (char *seg = strtok(buf, "."); seg; seg = strtok(NULL, ".")) {
        const char *put = !strcmp(seg, "N") ? "0" : !strcmp(seg, "NAME") ? "a" : seg;
        size_t n = strlen(out);
        snprintf(out + n, size - n, "%s%s", n ? "." : "", put);
    }
}

/* The key's range in `cfg`: the table's, or the law's for a law parameter. */
static const stsl_cr_range *range_of(const stsl_key *k, const stsl_config *cfg, const char *key)
{
    if (k->type != STSL_KEY_LAW_PARAM) return k->r;
    const stsl_friction_params *f =
        cfg->is_system ? &cfg->system.contacts[0].friction : &cfg->element.friction;
    const char *name = strrchr(key, '.') + 1;
    for (const stsl_cr_param *lp = stsl_cr_law_params(f->law); lp && lp->key; lp++)
        if (!strcmp(lp->key, name)) return lp->r;
    fail_msg("%s: not a parameter of the base's law", key);
    return NULL;
}

static int inside(const stsl_cr_range *r, double v)
{
    if (!r) return isfinite(v);
    if (r->why && v < r->phys_lo) return 0;
    return (r->lo_open ? v > r->lo : v >= r->lo) && (r->hi_open ? v < r->hi : v <= r->hi);
}

/* A value other than `now` inside the range that keeps the rules between
 * keys of the bases (static >= dynamic, tst >= tc, x0 inside the stops,
 * step <= t_end): a small change of the present value. */
static double new_value(const stsl_cr_range *r, double now)
{
    const double cand[] = {now * 1.25, now * 0.8, now + 0.001, now - 0.001};
    for (int i = 0; i < 4; i++)
        if (cand[i] != now && inside(r, cand[i])) return cand[i];
    fail_msg("no value near %g inside the range", now);
    return now;
}

static double get_num(const stsl_config *cfg, const char *key)
{
    stsl_error err = {0};
    char *s = stsl_config_get(cfg, key, &err);
    if (!s) fail_msg("get %s: %s", key, err.msg);
    double v = !strcmp(s, "auto") ? 0.0 : strtod(s, NULL);
    free(s);
    return v;
}

/* set -> get, write-back -> load -> get, both the value set. */
static void round_trip(const stsl_config *base, const char *key, double v)
{
    stsl_config cfg, again;
    stsl_error err = {0};
    char text[64];
    snprintf(text, sizeof text, "%.17g", v);
    assert_int_equal(stsl_config_copy(&cfg, base, &err), STSL_OK);
    if (stsl_config_set(&cfg, key, text, &err)) fail_msg("set %s=%s: %s", key, text, err.msg);
    if (get_num(&cfg, key) != v) fail_msg("get %s after set %s", key, text);
    char *yaml = stsl_config_to_yaml(&cfg);
    if (stsl_config_load_string(yaml, "back", NULL, NULL, 0, &again, &err))
        fail_msg("write-back after %s=%s: %s", key, text, err.msg);
    if (get_num(&again, key) != v) fail_msg("%s=%s lost in the write-back", key, text);
    free(yaml);
    stsl_config_free(&again);
    stsl_config_free(&cfg);
}

/* The next double past one bound, refused with the range in the message. */
static void refused_past(const stsl_config *base, const char *key, const stsl_cr_range *r,
                         double past)
{
    stsl_config cfg;
    stsl_error err = {0};
    char text[64], rt[64];
    snprintf(text, sizeof text, "%.17g", past);
    /* Below a physical bound the message gives the physical interval. */
    if (r->why && past < r->phys_lo)
        snprintf(rt, sizeof rt, "[%g, %g]", r->phys_lo, r->hi);
    else
        stsl_cr_range_text(r, rt, sizeof rt);
    assert_int_equal(stsl_config_copy(&cfg, base, &err), STSL_OK);
    int rc = stsl_config_set(&cfg, key, text, &err);
    if (rc != STSL_EINPUT || !strstr(err.msg, key) || !strstr(err.msg, rt) ||
        !strstr(err.msg, text))
        fail_msg("set %s=%s: rc %d, '%s' (expected the key, the value and '%s')", key, text, rc,
                 err.msg, rt);
    stsl_config_free(&cfg);
}

static void out_of_range(const stsl_config *base, const char *key, const stsl_cr_range *r)
{
    if (!r) return; /* any finite number: nothing outside but the non-finite */
    double lo = r->why ? r->phys_lo : r->lo;
    if (isfinite(lo))
        refused_past(base, key, r, r->lo_open && !r->why ? lo : nextafter(lo, -HUGE_VAL));
    if (isfinite(r->hi))
        refused_past(base, key, r, r->hi_open ? r->hi : nextafter(r->hi, HUGE_VAL));
}

/* The first base whose effective configuration has `key`; -1 when none. */
static int base_with(stsl_config *bases, const char *key)
{
    for (int b = 0; b < N_BASES; b++) {
        stsl_error err = {0};
        char *s = stsl_config_get(&bases[b], key, &err);
        free(s);
        if (s) return b;
    }
    return -1;
}

static void check_key(stsl_config *bases, const stsl_key *k, const char *path, int *n_done)
{
    char key[KEYPATH_MAX];
    concrete(path, key, sizeof key);
    /* accuracy is rtol's other spelling: the write-back states rtol. */
    if (!strcmp(key, "simulation.accuracy")) {
        round_trip(&bases[0], "simulation.rtol", 2e-9);
        refused_past(&bases[0], key, k->r, nextafter(k->r->lo, -HUGE_VAL));
        ++*n_done;
        return;
    }
    int b = base_with(bases, key);
    if (b < 0) fail_msg("%s: no base has it", key);
    const stsl_cr_range *r = range_of(k, &bases[b], key);
    double v = new_value(r, get_num(&bases[b], key));
    if (!strcmp(key, "simulation.max_events")) v = 123456; /* an integer */
    round_trip(&bases[b], key, v);
    out_of_range(&bases[b], key, r);
    ++*n_done;
}

/* Every number key of the table, under each of its prefixes. */
static void every_number_key(void **state)
{
    (void)state;
    stsl_config bases[N_BASES];
    for (int b = 0; b < N_BASES; b++) {
        stsl_error err = {0};
        if (stsl_config_load_string(BASES[b], "base", NULL, NULL, 0, &bases[b], &err))
            fail_msg("base %d: %s", b, err.msg);
    }
    int n, n_paths = 0, n_done = 0;
    const stsl_key *keys = stsl_keys(&n);
    for (int i = 0; i < n; i++) {
        const stsl_key *k = &keys[i];
        if (k->type != STSL_KEY_NUMBER && k->type != STSL_KEY_LAW_PARAM) continue;
        check_key(bases, k, k->path, &n_done);
        n_paths++;
        if (!k->also) continue;
        char also[KEYPATH_MAX];
        snprintf(also, sizeof also, "%s%s", k->also, strrchr(k->path, '.'));
        check_key(bases, k, also, &n_done);
        n_paths++;
    }
    assert_int_equal(n_done, n_paths);
    /* 26 element keys of numbers + 19 of a contact or stop + 8 of bodies
     * and couplings: a table that lost keys fails here too. */
    assert_true(n_paths >= 53);
    for (int b = 0; b < N_BASES; b++)
        stsl_config_free(&bases[b]);
}

/* The loader and the table agree on what is required: a mapping without
 * a required number is refused naming the table's range. */
static void required_names_range(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load_string("bodies: {a: {position: 1}}\nsimulation: {t_end: 1}\n",
                                             "s.yaml", NULL, NULL, 0, &cfg, &err),
                     STSL_EINPUT);
    assert_string_equal(err.msg, "s.yaml:1: bodies.a.mass: missing required key (a number > 0)");
    assert_int_equal(stsl_config_load_string("element: {mass: 1}\nfriction: {}\n"
                                             "simulation: {t_end: 1}\n",
                                             "e.yaml", NULL, NULL, 0, &cfg, &err),
                     STSL_EINPUT);
    assert_string_equal(err.msg,
                        "e.yaml:2: friction.dynamic: missing required key (a number >= 0)");
}

/* ------------------------------------------------------------ docs */

/* "> 0, N/m; spring stiffness k" */
static void allowed_text(FILE *f, const stsl_key *k)
{
    char rt[64];
    if (k->type == STSL_KEY_LAW_PARAM) fputs("per `friction.law` (below), ", f);
    if (k->type == STSL_KEY_NUMBER && k->r && k->r->why)
        fprintf(f, "in [%g, %g], ", k->r->phys_lo, k->r->hi);
    else if (k->type == STSL_KEY_NUMBER) {
        stsl_cr_range_text(k->r, rt, sizeof rt);
        fprintf(f, "%s, ", *rt ? rt + 1 : "finite");
    }
    if (k->units[0]) fprintf(f, "%s; ", k->units);
    fputs(k->doc, f);
}

/* The docs' table of keys (docs/configuration.md, "Keys at a glance"). */
static char *keys_markdown(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fputs("| key | default | allowed / meaning |\n|---|---|---|\n", f);
    int n;
    const stsl_key *keys = stsl_keys(&n);
    for (int i = 0; i < n; i++) {
        const stsl_key *k = &keys[i];
        fprintf(f, "| `%s`", k->path);
        if (k->also) fprintf(f, ", `%s%s`", k->also, strrchr(k->path, '.'));
        if (k->def_text)
            fprintf(f, " | %s | ", k->def_text);
        else if (k->type == STSL_KEY_LAW_PARAM)
            fputs(" | per law | ", f);
        else if (k->required)
            fputs(" | required | ", f);
        else
            fprintf(f, " | %g | ", k->def);
        allowed_text(f, k);
        fputs(" |\n", f);
    }
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The whole file (it holds no NUL byte). */
/* Read whole with its size (getdelim's char ** made GCC's Release build
 * take the returned text for a pointer to the local that held it). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("%s: cannot open", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size > 0);
    rewind(f);
    char *text = malloc((size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
    return text;
}

/* Whether the backticked key `key` appears in the first column of a row. */
static int documented(const char *table, const char *key)
{
    char want[KEYPATH_MAX + 2];
    snprintf(want, sizeof want, "`%s`", key);
    for (const char *row = table; row && *row;
         row = strchr(row, '\n') ? strchr(row, '\n') + 1 : NULL) {
        const char *end = strstr(row, " | ");
        const char *hit = strstr(row, want);
        if (hit && end && hit < end) return 1;
    }
    return 0;
}

static void docs_list_the_table(void **state)
{
    (void)state;
    char *doc = read_text(STSL_SOURCE_DIR "/docs/configuration.md");
    char *gen = keys_markdown();
    assert_non_null(gen);
    const char *start = strstr(doc, "| key | default | allowed / meaning |");
    assert_non_null(start);
    const char *end = strstr(start, "\n\n");
    assert_non_null(end);
    char *table = strndup(start, (size_t)(end - start) + 1);
    /* Every key of the table is documented... */
    int n;
    const stsl_key *keys = stsl_keys(&n);
    for (int i = 0; i < n; i++) {
        char also[KEYPATH_MAX];
        if (!documented(table, keys[i].path)) fail_msg("%s: not in the docs", keys[i].path);
        if (!keys[i].also) continue;
        snprintf(also, sizeof also, "%s%s", keys[i].also, strrchr(keys[i].path, '.'));
        if (!documented(table, also)) fail_msg("%s: not in the docs", also);
    }
    /* ...and every documented key is one of the table's. */
    for (const char *p = strchr(table, '\n') + 1; p && *p;
         p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *col = strstr(p, " | ");
        for (const char *q = strchr(p, '`'); q && col && q < col; q = strchr(q, '`')) {
            const char *close = strchr(q + 1, '`');
            char key[KEYPATH_MAX];
            snprintf(key, sizeof key, "%.*s", (int)(close - q - 1), q + 1);
            if (!stsl_key_find(key)) fail_msg("docs: %s is not a key of the table", key);
            q = close + 1;
        }
    }
    /* The whole table as generated, so that ranges and defaults match too. */
    if (strcmp(table, gen))
        fail_msg("docs/configuration.md's table of keys differs from the key table: replace it "
                 "by the output of `test_config_keys --markdown`");
    free(table);
    free(gen);
    free(doc);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--markdown")) {
        char *md = keys_markdown();
        fputs(md ? md : "", stdout);
        free(md);
        return md ? 0 : 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_number_key),
        cmocka_unit_test(required_names_range),
        cmocka_unit_test(docs_list_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
