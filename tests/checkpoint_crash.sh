#!/usr/bin/env bash
# Crash safety: start a run that writes a checkpoint every step, SIGKILL its ranks at a random
# moment of its checkpoint cycle (write / fsync / rename / sidecar / prune: writing dominates
# a step), restart from `latest`, kill again, ... then finish from the last checkpoint. Every
# restart must start from the newest complete checkpoint, and the finished run's digest must
# equal the uninterrupted run's. MINIAPP_CRASH_SEED makes the kill moments reproducible.
#
# No step of this depends on how fast the machine is: the killed runs are given far more steps
# than they can reach (so they are always running when their kill is due), a kill is due once
# the run has published a checkpoint of its own (then a random 0-249 ms more), and the final
# run and the reference run end at a step chosen after the kills.
source "$(dirname "$0")/checkpoint_lib.sh"
seed=${MINIAPP_CRASH_SEED:-$$}
RANDOM=$seed
P=(--grid 40 36 32 --bc periodic neumann dirichlet)
NEVER=1000000  # --steps of the killed runs: never reached
KILLS=${MINIAPP_CRASH_KILLS:-5}
dir=$WORK/ck
echo "seed $seed (MINIAPP_CRASH_SEED=$seed replays these kill moments)"

# newest: the step of the newest complete checkpoint, -1 when none.
newest() {
  local f
  f=$(ls "$dir"/checkpoint_*.h5 2> /dev/null | tail -1 || true)
  [ -n "$f" ] || { echo -1; return; }
  f=${f##*/checkpoint_}
  echo $((10#${f%.h5}))
}
start_args() {  # fresh start until a complete checkpoint exists
  if [ "$(newest)" -ge 0 ]; then echo --restart latest; fi
}

for ((i = 1; i <= KILLS; ++i)); do
  before=$(newest)
  log=$WORK/run$i.log
  # shellcheck disable=SC2046
  "${MPIEXEC[@]}" -n 2 "$MINIAPP" "${P[@]}" --steps "$NEVER" --checkpoint-every 1 \
    --checkpoint-dir "$dir" $(start_args) > "$log" 2>&1 &
  launcher=$!
  LAUNCHERS+=("$launcher")
  # The run starts its loop from the newest complete checkpoint (a half-written or older one
  # would be a lost checkpoint) ...
  wait_for_line "$log" '^time loop: step [0-9]+ to' "$launcher"
  from=$(sed -n 's/^time loop: step \([0-9]*\) to.*/\1/p' "$log")
  [ "$from" = "$((before < 0 ? 0 : before))" ] ||
    fail "run $i started from step $from; the newest complete checkpoint was step $before"
  # ... and is checkpointing once it has published one of its own: then a random moment more.
  until [ "$(newest)" -gt "$before" ]; do
    kill -0 "$launcher" 2> /dev/null || { cat "$log"; fail "run $i ended before it wrote a checkpoint"; }
    sleep 0.01
  done
  delay=$(printf '0.%03d' $((RANDOM % 250)))
  sleep "$delay"
  # SIGKILL the ranks, as a node failure would; mpiexec notices and exits by itself (cleaning
  # its session files), or is killed after 20 s.
  mapfile -t ranks < <(rank_pids "$launcher")
  [ "${#ranks[@]}" = 2 ] || { cat "$log"; fail "run $i: expected 2 rank processes, found ${#ranks[@]}"; }
  kill -9 "${ranks[@]}" 2> /dev/null || true
  for ((t = 0; t < 200; ++t)); do kill -0 "$launcher" 2> /dev/null || break; sleep 0.1; done
  kill -9 "$launcher" 2> /dev/null || true
  wait "$launcher" 2> /dev/null || true
  if grep -q "miniapp: error" "$log"; then
    cat "$log"
    fail "run $i reported an error before the kill"
  fi
  # Where the kill landed, from what it left: a temporary checkpoint (writing it, or before its
  # rename), a temporary sidecar (after the rename), or neither (computing, or pruning).
  left=$(cd "$dir" && ls ./*.tmp 2> /dev/null | tr '\n' ' ' || true)
  echo "kill $i ${delay}s after run $i (from step $from) published a checkpoint: newest complete step $(newest); leftovers: ${left:-none}"
done
end=$(($(newest) + 5))
ref=$(digest 2 "${P[@]}" --steps "$end")
out=$(miniapp 2 "${P[@]}" --steps "$end" --checkpoint-dir "$dir" --restart latest 2>&1) ||
  { printf '%s\n' "$out"; fail "the final restart failed"; }
grep -q "^  restart       from $dir/checkpoint_$(printf '%010d' $((end - 5))).h5 at step $((end - 5)): " <<< "$out" ||
  { printf '%s\n' "$out"; fail "the final restart did not start from the newest complete checkpoint (step $((end - 5)))"; }
got=$(sed -n 's/^digest //p' <<< "$out")
[ "$got" = "$ref" ] || fail "after $KILLS kills and restarts: digest $got at step $end, uninterrupted $ref"
echo "ok: $KILLS kills, final digest $got at step $end equals the uninterrupted run"
