#!/usr/bin/env bash
# Crash safety: start a run that writes a checkpoint every step, SIGKILL its ranks at a random
# moment (mostly in the middle of a checkpoint: writing dominates), restart from `latest`,
# kill again, ... then let the last restart finish. Every restart must succeed (the newest
# complete checkpoint is always loadable) and the final digest must equal the uninterrupted
# run's. MINIAPP_CRASH_SEED makes the kill times reproducible.
source "$(dirname "$0")/checkpoint_lib.sh"
RANDOM=${MINIAPP_CRASH_SEED:-$$}
P=(--grid 40 36 32 --bc periodic neumann dirichlet --steps 100)
KILLS=${MINIAPP_CRASH_KILLS:-5}
dir=$WORK/ck
ref=$(digest 2 "${P[@]}")
echo "uninterrupted: digest $ref"

start_args() {  # fresh start until a complete checkpoint exists
  if compgen -G "$dir/checkpoint_*.h5" > /dev/null; then echo --restart latest; fi
}
newest() { ls "$dir"/checkpoint_*.h5 2> /dev/null | tail -1 || true; }
temporaries() { ls "$dir"/*.tmp 2> /dev/null || true; }

for ((i = 1; i <= KILLS; ++i)); do
  before=$(newest) tmp_before=$(temporaries)
  # shellcheck disable=SC2046
  "${MPIEXEC[@]}" -n 2 "$MINIAPP" "${P[@]}" --checkpoint-every 1 --checkpoint-dir "$dir" \
    $(start_args) > "$WORK/run$i.log" 2>&1 &
  launcher=$!
  # Wait until this run is checkpointing (a new temporary or a newer checkpoint), then a
  # random 0-250 ms more: the kill lands anywhere in the write / fsync / rename / prune cycle.
  for ((t = 0; t < 3000; ++t)); do
    if [ "$(temporaries)" != "$tmp_before" ] || [ "$(newest)" != "$before" ]; then break; fi
    kill -0 "$launcher" 2> /dev/null || fail "run $i ended before it wrote a checkpoint"
    sleep 0.01
  done
  delay=$(printf '0.%03d' $((RANDOM % 250)))
  sleep "$delay"
  # SIGKILL the ranks (children of this mpiexec), as a node failure would; mpiexec notices
  # and exits by itself (cleaning its session files), or is killed after 20 s.
  ranks=$(pgrep -P "$launcher" || true)
  [ -n "$ranks" ] || fail "run $i has no ranks to kill"
  kill -9 $ranks 2> /dev/null || true
  for ((t = 0; t < 200; ++t)); do kill -0 "$launcher" 2> /dev/null || break; sleep 0.1; done
  kill -9 "$launcher" 2> /dev/null || true
  wait "$launcher" 2> /dev/null || true
  n=$(newest)
  echo "kill $i ${delay}s into checkpointing: newest complete ${n##*/}; leftovers: $(cd "$dir" 2> /dev/null && ls ./*.tmp 2> /dev/null | tr '\n' ' ')"
  if grep -q "miniapp: error" "$WORK/run$i.log"; then
    cat "$WORK/run$i.log"
    fail "run $i reported an error before the kill"
  fi
done
[ "$(newest)" != "$dir/checkpoint_0000000100.h5" ] || fail "a killed run got to the end: nothing was tested"
got=$(digest 2 "${P[@]}" --checkpoint-dir "$dir" $(start_args))
[ "$got" = "$ref" ] || fail "after $KILLS kills and restarts: digest $got, uninterrupted $ref"
echo "ok: $KILLS kills, final digest $got equals the uninterrupted run"
