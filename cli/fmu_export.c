/* fmu_export.c - `stickslip fmu CONFIG -o ELEMENT.fmu`: the configuration's
 * element as an FMI 2.0 co-simulation FMU (io/fmu/export/element_fmu.c is
 * its binary; see there for what it computes).
 *
 * The archive holds modelDescription.xml (written here from the element's
 * layout), binaries/linux64/stickslip_element.so and resources/config.yaml
 * with resources/guid.txt.  The GUID is a hash of the effective
 * configuration: two FMUs of different configurations never share one.
 * The archive is written beside OUT and renamed over it when complete
 * (io/fmu/fmu_pack.h, in the FMU module). */
#include "cli/fmu_export.h"

#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/fmu_lazy.h"
#include "io/config.h"
#include "io/fmu/export/element_inputs.h"
#include "io/fmu/fmu_model.h"
#include "io/safe_output.h"
#include "models/one_body.h"
#include "stsl_version.h"

#define MODEL_ID "stickslip_element"

static const char *const usage =
    "usage: stickslip fmu CONFIG -o ELEMENT.fmu [--set KEY=VALUE]...\n"
    "\n"
    "Write the configuration's element as an FMI 2.0 co-simulation FMU: the exact\n"
    "event-driven engine runs between communication points (every event inside a\n"
    "step located).  Inputs active_force, load, base_position, base_velocity,\n"
    "base_acceleration (and anchor_position, anchor_velocity with an anchor),\n"
    "held over a step, replace the configuration's signals; outputs are the\n"
    "result's columns (x, v, a, friction, ...).  Linux 64-bit binary (docs/fmu.md).\n"
    "\n"
    "  -o, --output FILE   the FMU to write (whole or not at all)\n"
    "  --set KEY=VALUE     override a configuration key (repeatable)\n"
    "  -h, --help          this help\n";
static const stsl_cli_cmd cmd = {"stickslip fmu", usage};

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void xml_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

static int unit_seen(const stsl_layout *l, int upto, const char *u, const char *in_units)
{
    for (int i = 0; i < upto; i++)
        if (!strcmp(l->cols[i].units, u)) return 1;
    return upto == l->n_cols && !strcmp(in_units, u);
}

/* modelDescription.xml: the n_in inputs at value references 0 .. n_in - 1
 * (their units are among the columns'), the columns at 100 + column, in
 * that order in ModelVariables. */
static char *model_description(const stsl_config *cfg, const stsl_layout *l, const char *guid,
                               const stsl_fmu_input *in, int n_in, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"stickslip_element\" ");
    fprintf(f, "guid=\"%s\" generationTool=\"stickslip %s\" ", guid, STSL_VERSION);
    fputs("variableNamingConvention=\"flat\" numberOfEventIndicators=\"0\">\n", f);
    fputs("  <CoSimulation modelIdentifier=\"" MODEL_ID "\" "
          "canHandleVariableCommunicationStepSize=\"true\" canInterpolateInputs=\"false\" "
          "canBeInstantiatedOnlyOncePerProcess=\"false\"/>\n",
          f);
    fputs("  <UnitDefinitions>\n", f);
    for (int i = 0; i < l->n_cols; i++)
        if (!unit_seen(l, i, l->cols[i].units, "")) {
            fputs("    <Unit name=\"", f);
            xml_escape(f, l->cols[i].units);
            fputs("\"/>\n", f);
        }
    fputs("  </UnitDefinitions>\n", f);
    fprintf(f, "  <DefaultExperiment startTime=\"0\" stopTime=\"%.17g\"", cfg->sim.t_end);
    if (cfg->sim.output_step > 0.0) fprintf(f, " stepSize=\"%.17g\"", cfg->sim.output_step);
    fputs("/>\n  <ModelVariables>\n", f);
    for (int i = 0; i < n_in; i++) {
        fprintf(f,
                "    <ScalarVariable name=\"%s\" valueReference=\"%d\" causality=\"input\" "
                "variability=\"continuous\">\n      <Real unit=\"",
                in[i].name, i);
        xml_escape(f, in[i].unit);
        fprintf(f, "\" start=\"%.17g\"/>\n    </ScalarVariable>\n", in[i].start);
    }
    for (int i = 0; i < l->n_cols; i++) {
        fputs("    <ScalarVariable name=\"", f);
        xml_escape(f, l->cols[i].name);
        fprintf(f, "\" valueReference=\"%d\" description=\"", 100 + i);
        xml_escape(f, l->cols[i].long_name ? l->cols[i].long_name : l->cols[i].name);
        fputs("\" causality=\"output\" variability=\"continuous\" initial=\"calculated\">\n"
              "      <Real unit=\"",
              f);
        xml_escape(f, l->cols[i].units);
        fputs("\"/>\n    </ScalarVariable>\n", f);
    }
    fputs("  </ModelVariables>\n  <ModelStructure>\n    <Outputs>\n", f);
    for (int i = 0; i < l->n_cols; i++)
        fprintf(f, "      <Unknown index=\"%d\"/>\n", n_in + 1 + i);
    fputs("    </Outputs>\n    <InitialUnknowns>\n", f);
    for (int i = 0; i < l->n_cols; i++)
        fprintf(f, "      <Unknown index=\"%d\"/>\n", n_in + 1 + i);
    fputs("    </InitialUnknowns>\n  </ModelStructure>\n</fmiModelDescription>\n", f);
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The archive through the FMU module (libzip is loaded only here). */
static int write_fmu(const char *out, const char *md, size_t md_len, const char *yaml,
                     const char *guid, stsl_error *err)
{
    const stsl_fmu_module_api *m = stsl_cli_fmu_module(err);
    if (!m) return err->code;
    /* The FMU binary: STICKSLIP_FMU_BINARY, else where the build put it. */
    char so[4200];
    const stsl_fmu_entry e[] = {
        {"modelDescription.xml", md, md_len, NULL},
        {"resources/config.yaml", yaml, strlen(yaml), NULL},
        {"resources/guid.txt", guid, strlen(guid), NULL},
        {"binaries/" STSL_FMU_PLATFORM "/" MODEL_ID ".so", NULL, 0,
         stsl_cli_fmu_file("STICKSLIP_FMU_BINARY", STSL_FMU_ELEMENT_SO, so, sizeof so)},
    };
    return m->pack(out, e, (int)(sizeof e / sizeof e[0]),
                   "set STICKSLIP_FMU_BINARY to stickslip_element.so", err);
}

/* The FMU is never written over the configuration it is made from. */
static int not_the_input(const char *out, const char *config, stsl_error *err)
{
    char a[4096], b[4096];
    if (realpath(out, a) && realpath(config, b) && !strcmp(a, b))
        return stsl_error_set(err, STSL_EINPUT, "-o %s: that is the configuration", out);
    return STSL_OK;
}

static int export_fmu(const stsl_config *cfg, const char *out, stsl_error *err)
{
    stsl_one_body *el = stsl_one_body_create(&cfg->element, err);
    if (!el) return err->code;
    char *yaml = stsl_config_to_yaml(cfg);
    char guid[64];
    snprintf(guid, sizeof guid, "{stickslip-%016" PRIx64 "}", fnv1a(yaml ? yaml : ""));
    size_t md_len = 0;
    stsl_fmu_input in[STSL_FMU_IN_MAX];
    int n_in = stsl_element_fmu_inputs(&cfg->element, in, err);
    char *md = yaml && n_in >= 0 ? model_description(cfg, stsl_one_body_model(el)->layout, guid, in,
                                                     n_in, &md_len)
                                 : NULL;
    int rc = n_in < 0 ? err->code
             : md     ? write_fmu(out, md, md_len, yaml, guid, err)
                      : stsl_error_set(err, STSL_ENOMEM, "out of memory");
    free(md);
    free(yaml);
    stsl_one_body_free(el);
    return rc;
}

int stsl_cli_fmu_export(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"set", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *out = NULL, *sets[STSL_CLI_MAX_SETS];
    int n_sets = 0, c, rc = 0;
    optind = 1;
    opterr = 0;
    while (!rc && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        if (c == 'o')
            out = optarg;
        else if (c == 's')
            rc = stsl_cli_add_set(&cmd, sets, &n_sets, optarg);
        else if (c == 'h')
            return stsl_cli_help(&cmd), 0;
        else
            return stsl_cli_error(&cmd, "unknown or incomplete option: %s", argv[optind - 1]);
    }
    if (rc) return rc;
    if (optind != argc - 1) return stsl_cli_error(&cmd, "expected exactly one configuration file");
    if (!out) return stsl_cli_error(&cmd, "-o ELEMENT.fmu is required");
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(argv[optind], sets, n_sets, &cfg, &err)) return stsl_cli_fail(&cmd, &err);
    rc = stsl_config_require_element(&cfg, &err);
    if (!rc) rc = not_the_input(out, argv[optind], &err);
    if (!rc) rc = stsl_output_check_regular(out, "the FMU", &err);
    if (!rc) rc = export_fmu(&cfg, out, &err);
    stsl_config_free(&cfg);
    if (rc) return stsl_cli_fail(&cmd, &err);
    printf("FMU: %s (FMI 2.0 co-simulation, %s)\n", out, STSL_FMU_PLATFORM);
    return 0;
}
