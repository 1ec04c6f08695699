/* fmu_model.c - open an FMU: unzip (libzip), read modelDescription.xml
 * (libxml2), find the platform binary (see fmu_model.h).
 *
 * The whole archive is unpacked, not only the binary: an FMU may read its
 * resources/ folder (passed to fmi2Instantiate as a file:// URI) and its
 * binary may load companion libraries beside it.  Entry names are checked
 * before anything is written (no absolute path, no "..": an archive cannot
 * write outside the private folder). */
#include "io/fmu/fmu_model.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

#define MD "modelDescription.xml"
/* modelDescription.xml larger than this is refused (the largest tools'
 * files are a few MB: one ScalarVariable per model variable). */
#define MD_MAX (256L << 20)

static const char *const causality_names[] = {"parameter", "calculatedParameter", "input", "output",
                                              "local",     "independent"};
static const char *const type_names[] = {"Real", "Integer", "Boolean", "String", "Enumeration"};

const char *stsl_fmu_causality_name(stsl_fmu_causality c)
{
    return causality_names[c];
}

const char *stsl_fmu_type_name(stsl_fmu_type t)
{
    return type_names[t];
}

/* ---- the archive ------------------------------------------------------------- */

static int unsafe_name(const char *name)
{
    if (name[0] == '/' || name[0] == '\\' || strchr(name, '\\')) return 1;
    for (const char *p = name; *p;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.') return 1;
        if (!slash) break;
        p = slash + 1;
    }
    return 0;
}

/* mkdir -p of the folders in `path` (not its last component). */
static int make_parents(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc && errno != EEXIST) return -1;
    }
    return 0;
}

static int extract_entry(zip_t *z, zip_uint64_t i, const char *name, const stsl_fmu_model *m,
                         stsl_error *err)
{
    char out[8192];
    snprintf(out, sizeof out, "%s/%s", m->dir, name);
    if (make_parents(out))
        return stsl_error_set(err, STSL_EIO, "%s: unpacking %s: %s", m->path, name,
                              strerror(errno));
    size_t len = strlen(out);
    if (len && out[len - 1] == '/') { /* a folder entry */
        if (mkdir(out, 0700) && errno != EEXIST)
            return stsl_error_set(err, STSL_EIO, "%s: unpacking %s: %s", m->path, name,
                                  strerror(errno));
        return STSL_OK;
    }
    zip_file_t *zf = zip_fopen_index(z, i, 0);
    int fd = zf ? open(out, O_WRONLY | O_CREAT | O_EXCL, 0700) : -1;
    int rc = STSL_OK;
    char buf[65536];
    zip_int64_t got = 0;
    while (fd >= 0 && (got = zip_fread(zf, buf, sizeof buf)) > 0)
        if (write(fd, buf, (size_t)got) != got) break;
    if (!zf || fd < 0 || got != 0)
        rc = stsl_error_set(
            err, zf && fd < 0 ? STSL_EIO : STSL_EINPUT, "%s: unpacking %s: %s", m->path, name,
            zf ? (fd < 0 ? strerror(errno) : "broken archive entry") : zip_strerror(z));
    if (fd >= 0 && close(fd) && !rc)
        rc = stsl_error_set(err, STSL_EIO, "%s: unpacking %s: %s", m->path, name, strerror(errno));
    if (zf) zip_fclose(zf);
    return rc;
}

static int open_zip(const char *path, zip_t **z, stsl_error *err)
{
    int ze = 0;
    *z = zip_open(path, ZIP_RDONLY, &ze);
    if (*z) return STSL_OK;
    zip_error_t e;
    zip_error_init_with_code(&e, ze);
    int code =
        ze == ZIP_ER_NOENT || ze == ZIP_ER_OPEN || ze == ZIP_ER_READ ? STSL_EIO : STSL_EINPUT;
    stsl_error_set(err, code, "%s: cannot open the FMU (%s)%s", path, zip_error_strerror(&e),
                   code == STSL_EINPUT ? ": an FMU is a zip archive" : "");
    zip_error_fini(&e);
    return code;
}

static int unpack(zip_t *z, stsl_fmu_model *m, stsl_error *err)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(m->dir, sizeof m->dir, "%s/stickslip-fmu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(m->dir)) {
        int e = errno;
        m->dir[0] = '\0';
        return stsl_error_set(err, STSL_EIO, "%s: cannot make a folder to unpack it in: %s",
                              m->path, strerror(e));
    }
    zip_int64_t n = zip_get_num_entries(z, 0);
    int rc = STSL_OK;
    for (zip_int64_t i = 0; !rc && i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name || !*name || unsafe_name(name))
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: archive entry %lld has an unsafe name '%s' (absolute or "
                                "with '..')",
                                m->path, (long long)i, name ? name : "");
        else
            rc = extract_entry(z, (zip_uint64_t)i, name, m, err);
    }
    return rc;
}

/* "win64, darwin64" from the binaries/ folders, into out. */
static void platforms(zip_t *z, char *out, size_t size)
{
    out[0] = '\0';
    zip_int64_t n = zip_get_num_entries(z, 0);
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name || strncmp(name, "binaries/", 9)) continue;
        const char *p = name + 9, *slash = strchr(p, '/');
        if (!slash || slash == p) continue;
        char plat[64];
        snprintf(plat, sizeof plat, "%.*s", (int)(slash - p), p);
        if (strstr(out, plat)) continue;
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", len ? ", " : "", plat);
    }
}

/* ---- modelDescription.xml ------------------------------------------------------ */

typedef struct md_ctx {
    stsl_fmu_model *m;
    stsl_error *err;
    xmlNode *types; /* TypeDefinitions, or NULL */
} md_ctx;

static int md_fail(md_ctx *c, const xmlNode *n, const char *fmt, const char *a, const char *b)
{
    char what[1024];
    snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
    return stsl_error_set(c->err, STSL_EINPUT, "%s: " MD ":%ld: %s", c->m->path,
                          n ? xmlGetLineNo(n) : 0L, what);
}

/* Attribute `name` of n copied into out ("" when absent); 1 when present. */
static int attr(const xmlNode *n, const char *name, char *out, size_t size)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    out[0] = '\0';
    if (!v) return 0;
    snprintf(out, size, "%s", (const char *)v);
    xmlFree(v);
    return 1;
}

static int is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static xmlNode *child(const xmlNode *n, const char *name)
{
    for (xmlNode *k = n->children; k; k = k->next)
        if (is_elem(k, name)) return k;
    return NULL;
}

/* The unit of the SimpleType `type` in TypeDefinitions ("" when none). */
static void declared_unit(const md_ctx *c, const char *type, char *unit, size_t size)
{
    unit[0] = '\0';
    for (xmlNode *t = c->types ? c->types->children : NULL; t; t = t->next) {
        char name[256];
        if (!is_elem(t, "SimpleType") || !attr(t, "name", name, sizeof name) || strcmp(name, type))
            continue;
        xmlNode *r = child(t, "Real");
        if (r) attr(r, "unit", unit, size);
        return;
    }
}

static int parse_causality(const char *s, stsl_fmu_causality *out)
{
    for (int i = 0; i < (int)(sizeof causality_names / sizeof *causality_names); i++)
        if (!strcmp(s, causality_names[i])) return *out = (stsl_fmu_causality)i, 0;
    return -1;
}

static int parse_var(md_ctx *c, xmlNode *n, stsl_fmu_var *v)
{
    char vr[64], caus[64], var[64];
    memset(v, 0, sizeof *v);
    v->line = (int)xmlGetLineNo(n);
    if (!attr(n, "name", v->name, sizeof v->name) || !v->name[0])
        return md_fail(c, n, "ScalarVariable without a name", NULL, NULL);
    char *end;
    errno = 0;
    unsigned long r = attr(n, "valueReference", vr, sizeof vr) ? strtoul(vr, &end, 10) : 0;
    if (!vr[0] || *end || errno || r > 0xffffffffUL)
        return md_fail(c, n, "ScalarVariable '%s': valueReference '%s' is not an unsigned integer",
                       v->name, vr);
    v->vr = (unsigned)r;
    v->causality = STSL_FMU_LOCAL; /* the standard's default */
    if (attr(n, "causality", caus, sizeof caus) && parse_causality(caus, &v->causality))
        return md_fail(c, n, "ScalarVariable '%s': unknown causality '%s'", v->name, caus);
    v->constant = attr(n, "variability", var, sizeof var) && !strcmp(var, "constant");
    for (xmlNode *k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE) continue;
        for (int t = 0; t < (int)(sizeof type_names / sizeof *type_names); t++) {
            if (strcmp((const char *)k->name, type_names[t])) continue;
            v->type = (stsl_fmu_type)t;
            if (t == STSL_FMU_REAL && !attr(k, "unit", v->unit, sizeof v->unit)) {
                char dt[256];
                if (attr(k, "declaredType", dt, sizeof dt))
                    declared_unit(c, dt, v->unit, sizeof v->unit);
            }
            return STSL_OK;
        }
    }
    return md_fail(c, n,
                   "ScalarVariable '%s': no type element (Real, Integer, Boolean, String "
                   "or Enumeration)",
                   v->name, NULL);
}

static int parse_vars(md_ctx *c, xmlNode *root)
{
    xmlNode *mv = child(root, "ModelVariables");
    if (!mv) return md_fail(c, root, "no ModelVariables element", NULL, NULL);
    int n = 0;
    for (xmlNode *k = mv->children; k; k = k->next)
        n += is_elem(k, "ScalarVariable");
    c->m->vars = calloc((size_t)(n ? n : 1), sizeof *c->m->vars);
    if (!c->m->vars) return stsl_error_set(c->err, STSL_ENOMEM, "out of memory");
    int rc = STSL_OK;
    for (xmlNode *k = mv->children; !rc && k; k = k->next)
        if (is_elem(k, "ScalarVariable")) rc = parse_var(c, k, &c->m->vars[c->m->n_vars++]);
    return rc;
}

/* A capability flag of xs:boolean: "true" or "1" (absent: false). */
static int flag_true(const xmlNode *n, const char *name)
{
    char flag[16];
    return attr(n, name, flag, sizeof flag) && (!strcmp(flag, "true") || !strcmp(flag, "1"));
}

static int parse_root(md_ctx *c, xmlNode *root)
{
    stsl_fmu_model *m = c->m;
    char version[64], flag[16];
    if (!root || !is_elem(root, "fmiModelDescription"))
        return md_fail(c, root, "the root element is not fmiModelDescription", NULL, NULL);
    if (!attr(root, "fmiVersion", version, sizeof version))
        return md_fail(c, root, "fmiModelDescription has no fmiVersion", NULL, NULL);
    if (strcmp(version, "2.0"))
        return md_fail(c, root, "fmiVersion is '%s': stickslip reads FMI 2.0 FMUs", version, NULL);
    if (!attr(root, "guid", m->guid, sizeof m->guid) || !m->guid[0])
        return md_fail(c, root, "fmiModelDescription has no guid", NULL, NULL);
    attr(root, "modelName", m->model_name, sizeof m->model_name);
    const char *kind = m->model_exchange ? "ModelExchange" : "CoSimulation";
    xmlNode *cs = child(root, kind);
    if (!cs && m->model_exchange)
        return md_fail(c, root,
                       "no ModelExchange element: a co-simulation FMU steps itself (leave out "
                       "--fmu-scheme)",
                       NULL, NULL);
    if (!cs)
        return md_fail(c, root,
                       child(root, "ModelExchange")
                           ? "no CoSimulation element: a model-exchange FMU needs the scheme that "
                             "integrates it (--fmu-scheme euler or rk4)"
                           : "neither CoSimulation nor ModelExchange element",
                       NULL, NULL);
    if (!attr(cs, "modelIdentifier", m->model_identifier, sizeof m->model_identifier) ||
        !m->model_identifier[0] || strchr(m->model_identifier, '/'))
        return md_fail(c, cs, "%s has no valid modelIdentifier '%s'", kind, m->model_identifier);
    m->can_vary_step = flag_true(cs, "canHandleVariableCommunicationStepSize");
    m->can_interpolate = !m->model_exchange && flag_true(cs, "canInterpolateInputs");
    if (attr(root, "numberOfEventIndicators", flag, sizeof flag)) m->n_indicators = atoi(flag);
    xmlNode *ms = child(root, "ModelStructure"), *der = ms ? child(ms, "Derivatives") : NULL;
    for (xmlNode *k = der ? der->children : NULL; k; k = k->next)
        m->n_states += is_elem(k, "Unknown");
    if (m->n_indicators < 0 || m->n_indicators > 100000)
        return md_fail(c, root, "numberOfEventIndicators '%s' out of range", flag, NULL);
    c->types = child(root, "TypeDefinitions");
    return parse_vars(c, root);
}

/* Read the bytes of modelDescription.xml out of the archive. */
static int read_md(zip_t *z, const stsl_fmu_model *m, char **buf, long *len, stsl_error *err)
{
    zip_stat_t st;
    *buf = NULL;
    if (zip_stat(z, MD, 0, &st) || !(st.valid & ZIP_STAT_SIZE))
        return stsl_error_set(err, STSL_EINPUT, "%s: no " MD " in the archive (is it an FMU?)",
                              m->path);
    if (st.size > (zip_uint64_t)MD_MAX)
        return stsl_error_set(err, STSL_EINPUT, "%s: " MD " is larger than %ld MB", m->path,
                              MD_MAX >> 20);
    zip_file_t *f = zip_fopen(z, MD, 0);
    *buf = malloc(st.size + 1);
    zip_int64_t got = f && *buf ? zip_fread(f, *buf, st.size) : -1;
    if (f) zip_fclose(f);
    if (got != (zip_int64_t)st.size) {
        free(*buf);
        *buf = NULL;
        return stsl_error_set(err, STSL_EINPUT, "%s: cannot read " MD " from the archive", m->path);
    }
    *len = (long)got;
    return STSL_OK;
}

static int parse_md(const char *buf, long len, stsl_fmu_model *m, stsl_error *err)
{
    xmlResetLastError();
    xmlDoc *doc = xmlReadMemory(buf, (int)len, MD, NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        char msg[512] = "not well-formed";
        if (e && e->message) snprintf(msg, sizeof msg, "%s", e->message);
        size_t k = strlen(msg);
        while (k && (msg[k - 1] == '\n' || msg[k - 1] == ' '))
            msg[--k] = '\0';
        return stsl_error_set(err, STSL_EINPUT, "%s: " MD ":%d: bad XML: %s", m->path,
                              e ? e->line : 0, msg);
    }
    md_ctx c = {m, err, NULL};
    int rc = parse_root(&c, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
    return rc;
}

static int check_binary(zip_t *z, stsl_fmu_model *m, stsl_error *err)
{
    char inner[1024];
    snprintf(inner, sizeof inner, "binaries/" STSL_FMU_PLATFORM "/%s" STSL_FMU_SO_EXT,
             m->model_identifier);
    if (zip_name_locate(z, inner, 0) < 0) {
        char have[512];
        platforms(z, have, sizeof have);
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: no binary for this platform: %s (the FMU has binaries for: %s)",
                              m->path, inner, have[0] ? have : "none");
    }
    snprintf(m->binary, sizeof m->binary, "%s/%s", m->dir, inner);
    snprintf(m->resources, sizeof m->resources, "file://%s/resources", m->dir);
    return STSL_OK;
}

int stsl_fmu_model_open(const char *path, int model_exchange, stsl_fmu_model *m, stsl_error *err)
{
    memset(m, 0, sizeof *m);
    m->model_exchange = model_exchange;
    snprintf(m->path, sizeof m->path, "%s", path);
    zip_t *z;
    int rc = open_zip(path, &z, err);
    if (rc) return rc;
    char *buf = NULL;
    long len = 0;
    rc = read_md(z, m, &buf, &len, err);
    if (!rc) rc = parse_md(buf, len, m, err);
    free(buf);
    if (!rc) rc = unpack(z, m, err);
    if (!rc) rc = check_binary(z, m, err);
    zip_discard(z);
    if (rc) stsl_fmu_model_close(m);
    return rc;
}

static int remove_one(const char *p, const struct stat *s, int flag, struct FTW *f)
{
    (void)s, (void)flag, (void)f;
    return remove(p);
}

void stsl_fmu_model_close(stsl_fmu_model *m)
{
    if (!m) return;
    if (m->dir[0]) nftw(m->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    free(m->vars);
    memset(m, 0, sizeof *m);
}

const stsl_fmu_var *stsl_fmu_model_find(const stsl_fmu_model *m, const char *name)
{
    for (int i = 0; i < m->n_vars; i++)
        if (!strcmp(m->vars[i].name, name)) return &m->vars[i];
    return NULL;
}
