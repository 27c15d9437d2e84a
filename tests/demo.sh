#!/usr/bin/env bash
# demo.sh OUTDIR PYTHON MINIAPP_EXE MPIEXEC: scripts/run-demo.sh end to end with the built binary
# (no install, no build) and fewer steps: it must end with RESULT VALID (the spectral check of
# inputs/demo.toml), exit 0, and name the two pictures, which must be real PNG files.
set -euo pipefail
out=$1 python=$2 exe=$3 mpiexec=$4
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"
PATH=$(dirname "$mpiexec"):$PATH  # the mpiexec CMake found, as a user's PATH would give it
rc=0
text=$(MINIAPP_EXE=$exe MINIAPP_PYTHON=$python MINIAPP_DEMO_DIR=$out \
  "$root/scripts/run-demo.sh" --steps 40 2>&1) || rc=$?
echo "$text"
[ "$rc" = 0 ] || fail "run-demo.sh exited $rc"
[ "$(tail -n 1 <<< "$text")" = "RESULT VALID (all checks passed)" ] || fail "the demo does not end with RESULT VALID"
grep -q 'SPECTRAL CHECK PASSED' <<< "$text" || fail "the spectral check did not run"
for png in slice spectrum; do
  grep -q "$out/$png.png" <<< "$text" || fail "the demo does not name $out/$png.png"
  [ "$(head -c 8 "$out/$png.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "$out/$png.png is not a PNG file"
done
echo "ok: the demo ends RESULT VALID and drew $out/slice.png and $out/spectrum.png"
