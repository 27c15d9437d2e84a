#!/usr/bin/env bash
# Soak: many steps with a checkpoint every few steps and --checkpoint-keep 2 must not grow:
#   - peak RSS per rank of the long run stays within MINIAPP_SOAK_RSS_TOLERANCE_MB (default 4)
#     of a short run's (the same settings, a tenth of the steps): a leak per step or per
#     checkpoint (HDF5 handles, MPI requests, the stop vote) would show here;
#   - exactly 2 checkpoints (and 2 XDMF sidecars, the time series checkpoints.xmf listing
#     those 2, no temporaries) are left;
#   - the final digest equals a run without checkpoints.
# Length: MINIAPP_SOAK_STEPS (default 4000, with a checkpoint every 20 steps: 200 checkpoints,
# 10-40 s on 2 busy cores, fsync dominates); the full soak, e.g. MINIAPP_SOAK_STEPS=500000,
# runs the same checks for hours.
source "$(dirname "$0")/checkpoint_lib.sh"
STEPS=${MINIAPP_SOAK_STEPS:-4000}
EVERY=${MINIAPP_SOAK_CHECKPOINT_EVERY:-20}
TOL_MB=${MINIAPP_SOAK_RSS_TOLERANCE_MB:-4}
P=(--grid 16 16 16 --bc periodic neumann dirichlet --progress 0)

ref=$(digest 2 "${P[@]}" --steps "$STEPS")
echo "uninterrupted $STEPS steps without checkpoints: digest $ref"

# soak STEPS DIR: run with checkpoints, print "digest max_rss_bytes".
soak() {
  local out
  out=$(miniapp 2 "${P[@]}" --steps "$1" --checkpoint-every "$EVERY" --checkpoint-keep 2 \
    --checkpoint-dir "$2" --report "$2.json" 2>&1) || { printf '%s\n' "$out"; fail "soak run of $1 steps failed"; }
  "${MINIAPP_PYTHON:-python3}" - "$2.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["field"]["digest"], int(r["memory"]["peak_rss_bytes"]["max"]))
PY
}
read -r _ short_rss <<< "$(soak $((STEPS / 10)) "$WORK/short")"
start=$(date +%s)
read -r got long_rss <<< "$(soak "$STEPS" "$WORK/long")"
echo "long run: $STEPS steps, $((STEPS / EVERY)) checkpoints in $(($(date +%s) - start)) s"
growth=$((long_rss - short_rss))
echo "peak RSS (max over ranks): $((STEPS / 10)) steps $((short_rss / 1024)) KiB, $STEPS steps $((long_rss / 1024)) KiB (growth $((growth / 1024)) KiB, tolerance $TOL_MB MiB)"
((growth <= TOL_MB * 1024 * 1024)) || fail "peak RSS grew by $((growth / 1024)) KiB over $((STEPS - STEPS / 10)) more steps"
n_h5=$(ls "$WORK/long" | grep -c '^checkpoint_.*\.h5$' || true)
n_xmf=$(ls "$WORK/long" | grep -c '^checkpoint_.*\.xmf$' || true)
n_other=$(ls -A "$WORK/long" | grep -vc '^checkpoint_.*\.\(h5\|xmf\)$\|^checkpoints\.xmf$' || true)
n_series=$(grep -c '<Grid Name="step' "$WORK/long/checkpoints.xmf" || true)
[ "$n_h5" = 2 ] && [ "$n_xmf" = 2 ] && [ "$n_series" = 2 ] && [ "$n_other" = 0 ] ||
  { ls -la "$WORK/long"; fail "expected exactly 2 checkpoints, 2 sidecars and a time series of 2, found $n_h5 .h5, $n_xmf .xmf, $n_series in checkpoints.xmf, $n_other other"; }
last=$(printf 'checkpoint_%010d.h5' $((STEPS / EVERY * EVERY)))
[ -f "$WORK/long/$last" ] || fail "the newest checkpoint is not $last"
[ "$got" = "$ref" ] || fail "with $((STEPS / EVERY)) checkpoints: digest $got, without $ref"
echo "ok: soak $STEPS steps: RSS growth $((growth / 1024)) KiB, 2 checkpoints left, digest $got as without checkpoints"
