#!/usr/bin/env bash
# sweep_and_plot.sh WORKDIR PYTHON MINIAPP_EXE MPIEXEC [LAUNCHER_ARGS...]
# A 2-point weak-scaling sweep at tiny size with scripts/sweep.sh (1 and 2 ranks), then
# scripts/plot_scaling.py on its results: passes when both reports are RESULT VALID (and match
# the schema, when jsonschema is there), an INVALID report beside them is left out of the
# plots, and both PNGs are real PNG files.
set -euo pipefail
work=$1 python=$2 exe=$3 mpiexec=$4
shift 4
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

# mpiexec may be a full path: put its directory first on PATH, as a user would.
PATH=$(dirname "$mpiexec"):$PATH
MINIAPP_EXE=$exe MINIAPP_LAUNCHER=mpiexec MINIAPP_LAUNCHER_ARGS="$*" \
  MINIAPP_NODES=1 MINIAPP_RANKS_PER_NODE="1 2" MINIAPP_BLOCK="12 10 8" \
  MINIAPP_ARGS="--steps 5 --warmup 1" MINIAPP_RESULTS=$work \
  "$root/scripts/sweep.sh" weak || fail "sweep.sh exited $?"

for n in 1 2; do
  report=$work/weak-N1-n$n-t${OMP_NUM_THREADS:-1}.json
  [ -s "$report" ] || fail "no report $report"
  grep -q '"verdict": "VALID"' "$report" || fail "$report is not RESULT VALID"
done
grep -q '"grid": \[\s*12,\s*10,\s*16\s*\]' <(tr -d '\n' < "$work/weak-N1-n2-t${OMP_NUM_THREADS:-1}.json") ||
  fail "the 2-rank point does not have the weak-scaled grid 12 10 16"
if "$python" -c "import jsonschema" 2>/dev/null; then
  "$python" "$root/scripts/validate_report.py" --expect-verdict VALID "$work"/weak-N*.json
fi

# An INVALID run in the same directory must be left out of the plots, and said so.
"$mpiexec" -n 1 "$@" "$exe" --grid 12 10 8 --steps 5 --warmup 1 --label weak \
  --expect-digest 0000000000000000 --report "$work/weak-invalid.json" > "$work/weak-invalid.log" 2>&1 &&
  fail "a wrong --expect-digest must exit non-zero"
[ -s "$work/weak-invalid.json" ] || fail "the INVALID run wrote no report"

plot=$("$python" "$root/scripts/plot_scaling.py" "$work" 2>&1) || fail "plot_scaling.py exited $?"
echo "$plot"
grep -q "skipped weak-invalid.json: RESULT INVALID" <<< "$plot" || fail "the INVALID run was not skipped"
[ "$(grep -c ' VALID$' <<< "$plot")" = 2 ] || fail "expected exactly the 2 VALID points in the table"
for png in weak_efficiency.png weak_phases.png; do
  [ -s "$work/$png" ] || fail "no $png"
  [ "$(head -c 8 "$work/$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "$png is not a PNG file"
done
echo "ok: 2-point weak sweep, 2 VALID reports, 2 PNGs in $work"
