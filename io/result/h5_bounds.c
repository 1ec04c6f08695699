#include "io/result/h5_bounds.h"

int stsl_h5_check_rows(hid_t d, hsize_t n, const char *path, const char *name, stsl_error *err)
{
    hsize_t fsize = 0;
    hid_t f = H5Iget_file_id(d);
    herr_t ok = f >= 0 ? H5Fget_filesize(f, &fsize) : -1;
    if (f >= 0) H5Fclose(f);
    hid_t t = H5Dget_type(d);
    size_t esize = t >= 0 ? H5Tget_size(t) : 0;
    if (t >= 0) H5Tclose(t);
    hid_t dcpl = H5Dget_create_plist(d);
    int nfilters = dcpl >= 0 ? H5Pget_nfilters(dcpl) : 0;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (ok < 0 || esize == 0)
        return stsl_error_set(err, STSL_EINPUT, "%s: dataset %s: cannot tell its size", path, name);
    /* In double: n * esize may not fit in 64 bits. */
    double need = (double)n * (double)esize;
    double room = (double)fsize * (nfilters > 0 ? STSL_FILTER_RATIO : 1.0);
    if (need <= room) return STSL_OK;
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: dataset %s claims %llu rows (%.3g bytes), more than the file of "
                          "%llu bytes can hold: a damaged or crafted file",
                          path, name, (unsigned long long)n, need, (unsigned long long)fsize);
}
