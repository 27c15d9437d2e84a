#!/usr/bin/env bash
# The performance scripts end to end on real runs:
#  - scaling_model.py --check: the model's message and byte counts per exchange equal what a
#    real 8-rank run (every side a neighbour) reports, for each halo mode it models;
#  - scaling_model.py writes its table, CSV (and PNG when matplotlib is there);
#  - hybrid_study.sh runs every ranks x threads split with every variant and all digests agree;
#  - roofline_targets.sh reads every figure of its set at both layouts, and refuses bad input.
# Environment: MINIAPP_EXE, MINIAPP_MPIEXEC (mpiexec and its flags), MINIAPP_PYTHON.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scripts=$here/../scripts
work=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-perf.XXXXXX")
trap 'rm -rf "$work"' EXIT
read -r -a mpiexec <<< "$MINIAPP_MPIEXEC"
python=${MINIAPP_PYTHON:-python3}

for case in "dim-ordered 2" "neighbors26 3" "neighbor-coll 1"; do
  read -r mode h <<< "$case"
  "${mpiexec[@]}" -n 8 "$MINIAPP_EXE" --grid 16 20 24 --ranks 2 2 2 --halo "$mode" \
    --halo-width "$h" --steps 6 --progress 0 --report "$work/$mode.json" > "$work/$mode.log"
  "$python" "$scripts/scaling_model.py" --check "$work/$mode.json" | tee -a "$work/check.txt"
done
[ "$(grep -c AGREE "$work/check.txt")" = 3 ] || { echo "FAIL: model counts differ"; exit 1; }

plot=--no-plot
"$python" -c "import matplotlib" 2> /dev/null && plot=
"$python" "$scripts/scaling_model.py" --ranks 1000 100000 --widths 1 4 --blocked-rate 4:2e9 \
  --out "$work/model" $plot > "$work/model.txt"
grep -q "P = 100000" "$work/model.txt" && grep -q "temporal-blocking" "$work/model.txt" ||
  { cat "$work/model.txt"; echo "FAIL: model table"; exit 1; }
[ "$(wc -l < "$work/model.csv")" -gt 10 ] || { echo "FAIL: model CSV"; exit 1; }
[ -n "$plot" ] || [ -s "$work/model.png" ] || { echo "FAIL: model PNG"; exit 1; }

MINIAPP_GRID="24 24 24" MINIAPP_STEPS=8 MINIAPP_REPEATS=1 MINIAPP_CORES=2 \
  MINIAPP_LAUNCHER_ARGS="${mpiexec[*]:1}" MINIAPP_RESULTS="$work/hybrid" \
  bash "$scripts/hybrid_study.sh" | tee "$work/hybrid.txt"
rows=$(grep -cE '^ +[12] x [12] ' "$work/hybrid.txt")
digests=$(grep -E '^ +[12] x [12] ' "$work/hybrid.txt" | awk '{print $NF}' | sort -u | wc -l)
[ "$rows" = 10 ] && [ "$digests" = 1 ] ||
  { echo "FAIL: hybrid study: $rows rows, $digests distinct digests (want 10 and 1)"; exit 1; }
# The roofline set on a tiny block: every figure of both layouts is read from its log (a bench
# whose output changed would leave a row out or stop the script), and bad input exits 2.
MINIAPP_EXE="$MINIAPP_EXE" MINIAPP_N=24 MINIAPP_CORES=2 MINIAPP_LAUNCHER_ARGS="${mpiexec[*]:1}" \
  MINIAPP_RESULTS="$work/roofline" bash "$scripts/roofline_targets.sh" > "$work/roofline.txt"
cat "$work/roofline.txt"
figures=$(grep -v PETSc "$work/roofline.txt" |
  grep -cE '^ +1  .* (1 x 2|2 x 1) +[0-9]+\.[0-9]{3} +[<>]= [0-9.]+ +(yes|no) ')
summary=$(grep -v PETSc "$work/roofline.txt" | grep -cE ' (1 x 2|2 x 1) +[01] of 1 ')
[ "$figures" = 16 ] && [ "$summary" = 16 ] ||
  { echo "FAIL: roofline targets: $figures figures, $summary summary rows (want 16 and 16)"; exit 1; }
# The blocked rounds' row says what the cores compute in cache, the other limit, what a round
# reaches hiding none of its memory traffic, and how much of it the best round left unhidden.
grep -qE '^ +1  bench temporal, best H / bound .* H=[0-9]+ tile [0-9x]+, cache ceiling [0-9]+\.[0-9]{2} x, none hidden [0-9]+\.[0-9]{2} x, unhidden -?[0-9]+\.[0-9]{2}$' \
  "$work/roofline.txt" || { echo "FAIL: roofline targets: no cache ceiling on the blocked row"; exit 1; }
# Where a main run blocked, its row gives its rounds' ceiling in cache and both figures too.
for layout in 1xC Cx1; do
  if "$python" -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["config"]["temporal_blocking"] else 1)' \
      "$work/roofline/r1-$layout-main.json"; then
    label=$([ $layout = 1xC ] && echo "1 x 2" || echo "2 x 1")
    grep -qE "^ +1  main run, --halo-width auto / bound +$label .*, cache ceiling [0-9]+\.[0-9]{2} x, none hidden [0-9]+\.[0-9]{2} x, unhidden -?[0-9]+\.[0-9]{2}\$" \
      "$work/roofline.txt" || { echo "FAIL: roofline targets: no cache ceiling on the $label main row"; exit 1; }
  fi
done
# With the PETSc peer built, its ratio is a row of the table too.
if [ -x "$(dirname "$MINIAPP_EXE")/miniapp_petsc_halo" ]; then
  grep -qE '^ +1  halo exchange / PETSc DMDA +2 x 1 +[0-9]+\.[0-9]{3} +<= 0.5 ' "$work/roofline.txt" ||
    { echo "FAIL: roofline targets: no PETSc row"; exit 1; }
fi
status=0
MINIAPP_EXE="$MINIAPP_EXE" MINIAPP_N=abc bash "$scripts/roofline_targets.sh" > "$work/bad.txt" 2>&1 ||
  status=$?
[ "$status" = 2 ] && grep -q "positive integers (got 'abc')" "$work/bad.txt" ||
  { cat "$work/bad.txt"; echo "FAIL: roofline targets: bad MINIAPP_N gave status $status"; exit 1; }
echo "PERF SCRIPTS OK"
