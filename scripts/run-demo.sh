#!/usr/bin/env bash
# The demo, from a fresh machine: install what is missing, build, run inputs/demo.toml on 2 MPI
# ranks (it checks itself exactly: RESULT VALID), and draw the final field and its spectrum.
#
#   scripts/run-demo.sh [extra miniapp options...]     e.g. scripts/run-demo.sh --steps 50
#
# Writes into results/demo/ (MINIAPP_DEMO_DIR): demo.log (miniapp's output), report.json,
# spectrum.csv (E(|k|) every steps/4), checkpoints/ (the final field), and the two pictures:
#   slice.png     the middle z plane of the final field
#   spectrum.png  the energy spectrum over time, high wavenumbers damped first
# Ends with miniapp's RESULT line; exit status 0 only for RESULT VALID.
#
# Environment: NP (ranks, default 2), OMP_NUM_THREADS (default 1), MINIAPP_EXE (a built binary:
# skips the install and the build), MINIAPP_PYTHON (a Python with numpy, h5py and matplotlib),
# those of scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
say() { printf '[demo %4ds] %s\n' "$((SECONDS - t0))" "$*"; }
out=${MINIAPP_DEMO_DIR:-results/demo}

if [ -z "${MINIAPP_EXE:-}" ]; then
  say "1/4 dependencies (scripts/install-deps.sh)"
  scripts/install-deps.sh
fi
. scripts/env.sh
if [ -z "${MINIAPP_EXE:-}" ]; then
  say "2/4 build into $MINIAPP_BUILD_DIR (Release; the first build takes a few minutes)"
  cmake -S . -B "$MINIAPP_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release > /dev/null
  # Progress: make's "[ NN%]" lines as they come, the rest kept in build.log.
  mkdir -p "$out"
  cmake --build "$MINIAPP_BUILD_DIR" --target miniapp -j "$JOBS" 2>&1 | tee "$out/build.log" |
    awk '/^\[ *[0-9]+%\] (Building|Linking)/ {
           sub(/Building CXX object .*CMakeFiles\/[^/]*\.dir\//, "compiling "); sub(/\.o$/, "")
           print "  " $0; fflush() }' ||
    { tail -n 30 "$out/build.log" >&2; exit 1; }
  say "  built $MINIAPP_BIN (the tests as well: cmake --build $MINIAPP_BUILD_DIR)"
  exe=$MINIAPP_BIN
else
  say "1-2/4 using MINIAPP_EXE=$MINIAPP_EXE (no install, no build)"
  exe=$MINIAPP_EXE
fi

# The last --steps given wins, else the input's.
steps=$(sed -n 's/^steps *= *\([0-9]*\).*/\1/p' inputs/demo.toml)
prev=""
for a in "$@"; do
  [ "$prev" = --steps ] && steps=$a
  [[ "$a" == --steps=* ]] && steps=${a#--steps=}
  prev=$a
done
every=$((steps / 4 > 0 ? steps / 4 : 1))
np=${NP:-2}
launcher=(mpiexec -n "$np")
if ((np > JOBS)) && mpiexec --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'; then
  launcher+=(--oversubscribe --bind-to none)
fi
rm -rf "$out/checkpoints" "$out/spectrum.csv" "$out/slice.png" "$out/spectrum.png"
mkdir -p "$out"
say "3/4 run: ${launcher[*]} $exe --config inputs/demo.toml $*"
rc=0
"${launcher[@]}" "$exe" --config inputs/demo.toml --spectral-every "$every" \
  --spectrum-file "$out/spectrum.csv" --checkpoint-every "$steps" --checkpoint-dir "$out/checkpoints" \
  --report "$out/report.json" "$@" 2>&1 | tee "$out/demo.log" || rc=$?
result=$(grep '^RESULT' "$out/demo.log" | tail -n 1 || true)

say "4/4 pictures"
python=$(miniapp_python) || { echo "$python" >&2; exit 1; }
final=$(ls "$out"/checkpoints/checkpoint_*.h5 2> /dev/null | tail -n 1)
[ -n "$final" ] || { echo "demo: no checkpoint of the final field in $out/checkpoints" >&2; exit 1; }
"$python" scripts/plot_slice.py "$final" -o "$out/slice.png" > /dev/null
"$python" scripts/plot_spectrum.py "$out/spectrum.csv" -o "$out/spectrum.png" > /dev/null
say "final field (middle z plane): $out/slice.png"
say "energy spectrum over time:    $out/spectrum.png"
say "report: $out/report.json, output: $out/demo.log"
echo "${result:-RESULT missing: see $out/demo.log}"
[ "$rc" = 0 ] && [[ "$result" == "RESULT VALID"* ]]
