/* mkfmu.c - pack a test FMU: mkfmu OUT.fmu MODEL_DESCRIPTION.xml BINARY.so PLATFORM ID
 * writes the zip archive OUT.fmu holding modelDescription.xml and
 * binaries/PLATFORM/ID.so (libzip: the suite needs no zip command). */
#include <stdio.h>
#include <zip.h>

static int add(zip_t *z, const char *name, const char *file)
{
    zip_source_t *s = zip_source_file(z, file, 0, -1);
    if (!s || zip_file_add(z, name, s, ZIP_FL_OVERWRITE) < 0) {
        fprintf(stderr, "mkfmu: %s: %s\n", file, zip_strerror(z));
        zip_source_free(s);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: mkfmu OUT.fmu MODEL_DESCRIPTION.xml BINARY.so PLATFORM ID\n");
        return 2;
    }
    int ze = 0;
    zip_t *z = zip_open(argv[1], ZIP_CREATE | ZIP_TRUNCATE, &ze);
    if (!z) {
        fprintf(stderr, "mkfmu: cannot create %s (libzip error %d)\n", argv[1], ze);
        return 1;
    }
    char inner[1024];
    snprintf(inner, sizeof inner, "binaries/%s/%s.so", argv[4], argv[5]);
    int rc = add(z, "modelDescription.xml", argv[2]) || add(z, inner, argv[3]);
    if (rc) {
        zip_discard(z);
        return 1;
    }
    if (zip_close(z)) {
        fprintf(stderr, "mkfmu: writing %s: %s\n", argv[1], zip_strerror(z));
        return 1;
    }
    return 0;
}
