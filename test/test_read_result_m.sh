#!/usr/bin/env bash
# ctest test_read_result_m: run examples/read_result.m in GNU Octave against
# real result files and compare with what h5py reads.  Octave 7 has no
# h5read/h5readatt/h5info, so test/octave_h5/ emulates MATLAB's (through
# h5py): this checks the reader's logic, not MATLAB itself.
# The same runs written as MAT (-o X.mat) are read by the same function
# through plain `load` and must give exactly the HDF5 file's values.
# Exit 77 (ctest: skipped) when octave is not installed.
set -euo pipefail
command -v octave >/dev/null || { echo "octave is not installed: test skipped"; exit 77; }
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${STICKSLIP_BIN:-$root/build/debug/stickslip}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ext in h5 mat; do
  "$bin" run "$root/examples/janecek_chirp.yaml" -o "$tmp/j.$ext" --quiet
  "$bin" run "$root/examples/dv_end_stops.yaml" -o "$tmp/es.$ext" --quiet
  rc=0; "$bin" run "$root/examples/janecek_chirp.yaml" --set simulation.max_events=3 -o "$tmp/inc.$ext" --quiet 2>/dev/null || rc=$?
  [ "$rc" -eq 3 ] || { echo "expected exit 3 for the incomplete run ($ext), got $rc"; exit 1; }
done

for f in j es inc; do
  # Expected values, read with h5py: samples, events, kinds, last x, complete.
  expect=$(/usr/bin/python3 - "$tmp/$f.h5" "$root/examples" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import read_result
r = read_result.read(sys.argv[1])
tr = r["trajectory"]
print(f"{len(tr['t'])} {len(r['events'])} {','.join(e['kind'] for e in r['events'])} "
      f"{tr['x'][-1]!r} {int(r['complete'])} {r['stats']['steps']} {int((tr['mode'] == 0).sum())}")
PY
)
  read -r n_samples n_events kinds x_last complete steps n_stuck <<<"$expect"
  octave --no-gui --no-window-system -q --eval "
    addpath('$root/test/octave_h5'); addpath('$root/examples');
    r = read_result('$tmp/$f.h5');
    assert(numel(r.t) == $n_samples && numel(r.x) == $n_samples, 'samples');
    assert(abs(r.x(end) - ($x_last)) <= 1e-15 * max(1, abs($x_last)), 'x(end)');
    assert(r.complete == $complete, 'complete');
    assert(strcmp(r.units.x, 'm') && strcmp(r.units.v, 'm/s') && strcmp(r.units.friction, 'N'), 'units');
    assert(strcmp(r.mode_names{1}, 'STUCK') && strcmp(r.mode_names{5}, 'STOP_HIGH'), 'mode names');
    assert(sum(r.mode == 0) == $n_stuck, 'mode');
    assert(numel(r.events.t) == $n_events, 'events');
    assert(strcmp(strjoin(r.events.kind(:)', ','), '$kinds'), 'event kinds');
    assert(r.stats.steps == $steps, 'stats');
    assert(r.complete || strncmp(r.message, 'more than simulation.max_events', 31), 'message');
    read_result('$tmp/$f.h5');
    m = read_result('$tmp/$f.mat');
    names = fieldnames(r.units);
    for i = 1:numel(names)
      assert(isequal(m.(names{i}), r.(names{i})), ['MAT column ' names{i}]);
      % (:).' : an empty unit may be 0x0 or 1x0 char.
      assert(strcmp(m.units.(names{i})(:).', r.units.(names{i})(:).'), ['MAT unit ' names{i}]);
    end
    assert(isequal(m.mode, r.mode) && strcmp(class(m.mode), 'int8'), 'MAT mode');
    assert(isequal(m.mode_names, r.mode_names), 'MAT mode names');
    assert(isequal(m.events.kind(:), r.events.kind(:)), 'MAT event kinds');
    for k = {'t', 'x', 'v_before', 'v_after', 'net_force', 'friction'}
      assert(isequaln(m.events.(k{1})(:), r.events.(k{1})(:)), ['MAT events.' k{1}]);
    end
    assert(isequal(double(m.events.mode_after(:)), double(r.events.mode_after(:))), 'MAT modes');
    assert(m.complete == r.complete && strcmp(m.message(:).', r.message(:).'), 'MAT complete/message');
    assert(strcmp(m.config, r.config), 'MAT config');
    assert(m.stats.steps == r.stats.steps && m.stats.time_STUCK == r.stats.time_STUCK, 'MAT stats');
  " > "$tmp/out.txt" 2>"$tmp/err.txt" || { cat "$tmp/out.txt" "$tmp/err.txt"; echo "FAIL: read_result.m on $f.h5"; exit 1; }
  grep -q "^events:   $n_events\$" "$tmp/out.txt" || { cat "$tmp/out.txt"; echo "FAIL: summary of $f.h5"; exit 1; }
  echo "ok: read_result.m reads $f.h5 and $f.mat alike ($n_samples samples, $n_events events)"
done
