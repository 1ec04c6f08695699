/* fmu_export.c - stsl_fmu_export (stickslip.h): the configuration's
 * element as an FMI 2.0 co-simulation FMU (io/fmu/export/element_fmu.c is
 * its binary; see there for what it computes), what `stickslip fmu` writes.
 *
 * The archive holds modelDescription.xml (written here from the element's
 * layout), binaries/linux64/stickslip_element.so and resources/config.yaml
 * with resources/guid.txt.  The GUID is a hash of the effective
 * configuration: two FMUs of different configurations never share one.
 * The archive is written beside OUT and renamed over it when complete
 * (io/fmu/fmu_pack.h, in the FMU module, loaded here on demand). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/error.h"
#include "api/fmu_lazy.h"
#include "io/fmu/export/element_inputs.h"
#include "io/fmu/fmu_model.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"
#include "models/one_body.h"
#include "solver/fnv1a.h"

#define MODEL_ID "stickslip_element"

/* The build tree's FMU binary, for a caller that names none (set by
 * CMakeLists.txt for this file). */
#ifndef STSL_FMU_ELEMENT_SO
#define STSL_FMU_ELEMENT_SO MODEL_ID ".so"
#endif

static uint64_t guid_hash(const char *s)
{
    return stsl_fnv1a(STSL_FNV1A_BASIS, s, strlen(s));
}

static void xml_escape(FILE *f, const char *s)
{
    static const char special[] = "<>&\"";
    static const char *const entity[4] = {"&lt;", "&gt;", "&amp;", "&quot;"};
    for (; *s; s++) {
        const char *at = strchr(special, *s);
        if (at)
            fputs(entity[at - special], f);
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
    fprintf(f, "guid=\"%s\" generationTool=\"stickslip %s\" ", guid, STSL_LIB_VERSION);
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
                     const char *guid, const char *module, const char *binary, stsl_error *err)
{
    const stsl_fmu_module_api *m = stsl_fmu_module_load(module, err);
    if (!m) return err->code;
    const stsl_fmu_entry e[] = {
        {"modelDescription.xml", md, md_len, NULL},
        {"resources/config.yaml", yaml, strlen(yaml), NULL},
        {"resources/guid.txt", guid, strlen(guid), NULL},
        {"binaries/" STSL_FMU_PLATFORM "/" MODEL_ID ".so", NULL, 0, binary},
    };
    return m->pack(out, e, (int)(sizeof e / sizeof e[0]),
                   "set STICKSLIP_FMU_BINARY to stickslip_element.so", err);
}

static int export_fmu(const stsl_config *cfg, const char *out, const char *module,
                      const char *binary, stsl_error *err)
{
    stsl_one_body *el = stsl_one_body_create(&cfg->element, err);
    if (!el) return err->code;
    char *yaml = stsl_config_to_yaml(cfg);
    char guid[64];
    snprintf(guid, sizeof guid, "{stickslip-%016" PRIx64 "}", guid_hash(yaml ? yaml : ""));
    size_t md_len = 0;
    stsl_fmu_input in[STSL_FMU_IN_MAX];
    int n_in = stsl_element_fmu_inputs(&cfg->element, in, err);
    char *md = yaml && n_in >= 0 ? model_description(cfg, stsl_one_body_model(el)->layout, guid, in,
                                                     n_in, &md_len)
                                 : NULL;
    int rc = n_in < 0 ? err->code
             : md     ? write_fmu(out, md, md_len, yaml, guid, module, binary, err)
                      : stsl_error_set(err, STSL_ENOMEM, "out of memory");
    free(md);
    free(yaml);
    stsl_one_body_free(el);
    return rc;
}

const char *stsl_fmu_platform(void)
{
    return STSL_FMU_PLATFORM;
}

stsl_rc stsl_fmu_export(const stsl_cfg *cfg, const char *path, const char *module,
                        const char *binary, stsl_err *err)
{
    if (!cfg || !path) return stsl_api_bad_arg(err, "stsl_fmu_export: NULL argument");
    const char *env = getenv("STICKSLIP_FMU_BINARY");
    if (!binary) binary = env && *env ? env : STSL_FMU_ELEMENT_SO;
    stsl_error e = {0};
    int rc = stsl_config_require_element(&cfg->c, &e);
    /* The output rule, inputs included: never over the configuration file
     * or a table file the FMU is made from. */
    int n_in = 0;
    const char **in = rc ? NULL : stsl_out_config_inputs(&cfg->c, &n_in);
    if (!rc && !in) rc = stsl_error_set(&e, STSL_ENOMEM, "out of memory for the output rule");
    stsl_output_file o = {path, "the FMU", 0, 0, 0};
    if (!rc) rc = stsl_output_rule(in, n_in, &o, 1, &e);
    free(in);
    if (!rc) rc = export_fmu(&cfg->c, path, module, binary, &e);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
