#!/bin/sh
# test_c_api_install.sh BUILD_DIR SOURCE_DIR [CFLAGS] - install stickslip into a
# temporary prefix outside the source tree, build examples/c_api/sweep.c
# there against the installed library (pkg-config, shared and static; and
# find_package), run it and check what it prints against physics:
#   - the first breakaway of a Janecek run starting locked at rest happens
#     where m |z1''(t)| reaches the static level F_S = friction.static, the
#     value sweep.c sets (the spring is relaxed then), a closed form in the
#     chirp's phase (the same one test_element.c checks);
#   - so the breakaway times increase with friction.static.
# Also: the installed CLI runs and its `plot` finds the installed module.
set -eu
build=$1
src=$2
# The build's own C flags (a sanitizer preset's library needs its runtime
# in the programs that link it).
cflags=${3:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/stsl-capi.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
mkdir "$work/app"
cp "$src/examples/c_api/sweep.c" "$work/app/"
cd "$work/app"
libdir=$(dirname "$(find "$prefix" -name stickslip.pc)")/..
export PKG_CONFIG_PATH=$libdir/pkgconfig
test -f "$prefix/include/stickslip.h"
# Nothing but the one public header is installed.
test "$(find "$prefix/include" -type f | wc -l)" -eq 1

# The library links the serial HDF5: neither its flags nor its static link
# line may name MPI (Debian's plain hdf5 module is the OpenMPI flavour).
if pkg-config --cflags --static --libs stickslip | grep -qi mpi; then
    echo "stickslip.pc pulls in MPI: $(pkg-config --cflags --static --libs stickslip)" >&2
    exit 1
fi
# shellcheck disable=SC2046
cc -std=c17 $cflags -Wall -Wextra -Werror -o sweep sweep.c $(pkg-config --cflags --libs stickslip)
# The static library with pkg-config's private dependencies.
# shellcheck disable=SC2046
cc -std=c17 $cflags -o sweep_static sweep.c $(pkg-config --cflags stickslip) "$libdir/libstickslip.a" \
    $(pkg-config --static --libs stickslip | sed 's/-lstickslip//')
if ldd sweep_static | grep -q libstickslip; then
    echo "sweep_static still needs libstickslip.so" >&2
    exit 1
fi
LD_LIBRARY_PATH=$libdir ./sweep "$src/examples/janecek_chirp.yaml" >shared.txt
./sweep_static "$src/examples/janecek_chirp.yaml" >static.txt
cmp shared.txt static.txt
test "$(wc -l <shared.txt)" -eq 100

# Closed form: k = pi f_max / t_max, z1'' = 2 A k (cos(k t^2) - 2 k t^2 sin(k t^2)),
# m |z1''| = F_S.  The event time is located to ~1e-9 relative at rtol 1e-10,
# which moves m |z1''| by far less than the 1e-6 relative asked here.
/usr/bin/python3 - shared.txt <<'PY'
import math, sys
m, A, fmax, tmax = 100.0, 0.05, 0.825, 9.5
k = math.pi * fmax / tmax
prev = -1.0
for line in open(sys.argv[1]):
    fs, t = map(float, line.split())
    ph = k * t * t
    acc = 2.0 * A * k * (math.cos(ph) - 2.0 * ph * math.sin(ph))
    if abs(m * abs(acc) - fs) > 1e-6 * fs:
        sys.exit(f"F_S {fs}: m|z''({t}) | = {m * abs(acc)} != F_S {fs}")
    if not t > prev:
        sys.exit(f"F_S {fs}: breakaway at {t} not after {prev}")
    prev = t
print("closed form and monotonicity hold for", sys.argv[1])
PY

# The C API page's first program compiles as it stands and runs.
sed -n '/^## A first program/,/^## /p' "$src/docs/c-api.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' >readme.c
test -s readme.c
# shellcheck disable=SC2046
cc -std=c17 $cflags -Wall -Wextra -Werror -o readme readme.c $(pkg-config --cflags --libs stickslip)
(cd "$src" && LD_LIBRARY_PATH=$libdir "$work/app/readme") | grep -q "^first breakaway at "

# find_package(stickslip) -> stickslip::stickslip
mkdir pkg
cat >pkg/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.18)
project(sweep LANGUAGES C)
find_package(stickslip 0.1 REQUIRED)
add_executable(sweep ../sweep.c)
target_link_libraries(sweep PRIVATE stickslip::stickslip)
CM
cmake -S pkg -B pkg/build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$cflags" >/dev/null
cmake --build pkg/build >/dev/null
LD_LIBRARY_PATH=$libdir pkg/build/sweep "$src/examples/janecek_chirp.yaml" >cmake.txt
cmp shared.txt cmake.txt

# The installed CLI, and its plot finds the installed plotting module.
"$prefix/bin/stickslip" --version
test -f "$prefix/share/stickslip/python/stickslip_plot.py"
if "$prefix/bin/stickslip" plot --help 2>&1 | grep -q "plotting module"; then
    echo "installed plot does not find its module" >&2
    exit 1
fi
echo "ok"
