#!/usr/bin/python3
"""one_body_golden - the element's own results, kept for test_one_body.

The element's hybrid model (models/element.c) was the reference the engine's
one-body view was checked against (dev/one-engine-plan.md, stage 3).  It is
gone from the tree; its results on every element configuration of
examples/ and test/reference/effective/ stay as golden files in
test/reference/one_body/, which test_one_body compares the engine with.

One file per configuration name, NAME.txt (test/reference/effective/NAME.yaml
gives the results of examples/NAME.yaml; effective_NAME.txt where it would
not).  The files in the repository were made from stickslip 57ec593, the last
commit with the element, by this script.  To make them again, build that
commit and run

  git worktree add /tmp/el 57ec593 && cmake -S /tmp/el -B /tmp/el/build/debug \\
      -DCMAKE_BUILD_TYPE=Debug && cmake --build /tmp/el/build/debug -j2
  dev/one_body_golden.py /tmp/el /tmp/el/build/debug

Each file: the layout (columns, number of modes and event kinds), the
largest |value| of each column and of t over all samples (the 64-ulp part
of the test's bound), every event (kind, mode after, time) and a thinned
set of samples (index, t, mode, every column), every number printed with
17 significant digits so that it reads back bit for bit.
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

KEEP_SAMPLES = 40  # samples kept per case, evenly spread by index

GENERATOR = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/config.h"
#include "io/mem_sink.h"
#include "models/element.h"

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    const char *path = argv[1], *label = argv[2];
    long keep = atol(argv[3]);
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(path, NULL, 0, &cfg, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    if (cfg.is_system) return 3;
    stsl_element_params q = cfg.element; /* as test_one_body ran it */
    q.rtol = cfg.sim.rtol;
    q.atol = cfg.sim.atol;
    stsl_element *e = stsl_element_create(&q, &err);
    stsl_sink sink;
    stsl_mem_sink_create(&sink, &err);
    stsl_hsolver *h = stsl_hsolver_create(stsl_element_model(e), &cfg.sim, &err);
    double y0[STSL_ELEMENT_MAX_STATE];
    stsl_element_initial_state(e, y0);
    if (!h || stsl_hsolver_run(h, 0.0, y0, &sink, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    int nc = r->n_cols;
    printf("# The element's model (models/element.c) of stickslip 57ec593 on %s.yaml,\n", label);
    printf("# made by dev/one_body_golden.py; read by test/test_one_body.c.\n");
    printf("cols %d", nc);
    for (int c = 0; c < nc; c++)
        printf(" %s", r->layout.cols[c].name);
    printf("\nlayout %d %d\nsize", r->layout.n_modes, r->layout.n_kinds);
    for (int c = 0; c <= nc; c++) {
        double m = 0.0;
        for (long i = 0; i < r->n_samples; i++) {
            double v = c < nc ? r->cols[i * nc + c] : r->t[i];
            if (v < 0) v = -v;
            if (v > m) m = v;
        }
        printf(" %.17g", m);
    }
    printf("\nsamples %ld\nevents %ld\n", r->n_samples, r->n_events);
    for (long i = 0; i < r->n_events; i++)
        printf("e %d %d %.17g\n", r->events[i].kind, r->events[i].mode_after, r->events[i].t);
    long last = -1;
    for (long k = 0; k < keep; k++) {
        long i = keep > 1 ? (long)((double)k * (double)(r->n_samples - 1) / (double)(keep - 1) + 0.5) : 0;
        if (i <= last || i >= r->n_samples) continue;
        last = i;
        printf("s %ld %.17g %d", i, r->t[i], r->mode[i]);
        for (int c = 0; c < nc; c++)
            printf(" %.17g", r->cols[i * nc + c]);
        printf("\n");
    }
    return 0;
}
"""


def build_flags(build):
    """Compile and link flags of a test of the old build (test_one_body's)."""
    d = os.path.join(build, "CMakeFiles", "test_one_body.dir")
    flags = open(os.path.join(d, "flags.make")).read()
    get = lambda key: re.search(rf"^{key} = (.*)$", flags, re.M).group(1)
    cflags = shlex.split(get("C_INCLUDES")) + shlex.split(get("C_DEFINES")) + ["-std=c17", "-g"]
    link = shlex.split(open(os.path.join(d, "link.txt")).read())
    libs = link[link.index("test_one_body") + 1:]
    libs = [os.path.join(build, a) if a.endswith(".a") and not os.path.isabs(a) else a
            for a in libs if "cmocka" not in a]
    return cflags, libs


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    src, build = (os.path.abspath(a) for a in argv)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = os.path.join(root, "test", "reference", "one_body")
    os.makedirs(out_dir, exist_ok=True)
    cflags, libs = build_flags(build)
    with tempfile.TemporaryDirectory() as tmp:
        c, exe = os.path.join(tmp, "golden.c"), os.path.join(tmp, "golden")
        open(c, "w").write(GENERATOR)
        subprocess.run(["cc"] + cflags + [c, "-o", exe] + libs, check=True)
        made = {}
        for folder in ("examples", "test/reference/effective"):
            for config in sorted(glob.glob(os.path.join(root, folder, "*.yaml"))):
                name = os.path.splitext(os.path.basename(config))[0]
                p = subprocess.run([exe, config, name, str(KEEP_SAMPLES)], capture_output=True,
                                   text=True, cwd=os.path.dirname(config))
                if p.returncode == 3:
                    continue  # a system
                if p.returncode:
                    sys.exit(f"{folder}/{name}.yaml: {p.stderr}")
                # The effective configurations give the examples' results: one
                # file for both, else one of its own (effective_NAME.txt).
                if made.get(name) == p.stdout:
                    continue
                out = name if name not in made else "effective_" + name
                made.setdefault(name, p.stdout)
                with open(os.path.join(out_dir, out + ".txt"), "w") as f:
                    f.write(p.stdout)
                print(f"{folder}/{name}.yaml -> {out}.txt")

if __name__ == "__main__":
    main(sys.argv[1:])
