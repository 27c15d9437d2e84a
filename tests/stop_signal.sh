#!/usr/bin/env bash
# Graceful stop (src/stop_signal.hpp): a multi-rank run is sent a stop signal at a random
# moment; it must exit 0 with RESULT INTERRUPTED and a checkpoint of the step it reached, and
# `--restart latest` must finish the run with the uninterrupted run's digest.
#
#   term-one  SIGTERM to one rank process only (as a stray kill would): the other ranks learn
#             of it through the per-round vote
#   usr1      SIGUSR1 to mpiexec, which forwards it to every rank (as Slurm's --signal does)
#
# Each case runs MINIAPP_SIGNAL_ROUNDS times (default 3) at a random moment; RANDOM is seeded
# from MINIAPP_SIGNAL_SEED (default: the PID, printed) so a failing moment can be replayed.
source "$(dirname "$0")/checkpoint_lib.sh"
seed=${MINIAPP_SIGNAL_SEED:-$$}
RANDOM=$seed
ROUNDS=${MINIAPP_SIGNAL_ROUNDS:-3}
NP=3
P=(--grid 48 40 32 --bc periodic neumann dirichlet --steps 8000 --progress 0)
echo "seed $seed (MINIAPP_SIGNAL_SEED=$seed replays these moments)"
t0=$(date +%s%N)
ref=$(digest "$NP" "${P[@]}")
# The random moments fall in the first half of the uninterrupted run's wall time (at most
# 1.5 s), so that on a fast, quiet machine the signal still arrives while the loop runs.
window=$(( ($(date +%s%N) - t0) / 2000000 ))
window=$(( window < 50 ? 50 : window > 1500 ? 1500 : window ))
echo "uninterrupted: digest $ref; signals within the first $window ms of the loop"

cases=0
for ((round = 1; round <= ROUNDS; ++round)); do
  for kind in term-one usr1; do
    dir=$WORK/$kind-$round
    log=$WORK/$kind-$round.log
    "${MPIEXEC[@]}" -n "$NP" "$MINIAPP" "${P[@]}" --checkpoint-dir "$dir" --report "$dir.json" \
      > "$log" 2>&1 &
    launcher=$!
    # Wait until the time loop runs (the memory line comes first, then binding), then a random
    # 0 to window-1 ms more.
    for ((t = 0; t < 500; ++t)); do
      grep -q '^binding' "$log" 2> /dev/null && break
      kill -0 "$launcher" 2> /dev/null || break
      sleep 0.01
    done
    ms=$((RANDOM % window))
    delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
    sleep "$delay"
    ranks=($(pgrep -P "$launcher" || true))
    [ "${#ranks[@]}" = "$NP" ] || { cat "$log"; fail "$kind: expected $NP rank processes, found ${#ranks[@]} (ended too early?)"; }
    if [ "$kind" = term-one ]; then
      victim=${ranks[$((RANDOM % NP))]}
      kill -TERM "$victim"
      what="SIGTERM to rank process $victim"
    else
      kill -USR1 "$launcher"
      what="SIGUSR1 to mpiexec"
    fi
    rc=0
    timeout 60 tail --pid="$launcher" -f /dev/null || fail "$kind: the run did not end within 60 s of the signal"
    wait "$launcher" || rc=$?
    [ "$rc" = 0 ] || { cat "$log"; fail "$kind: exit status $rc after $what, expected 0"; }
    step=$(sed -n 's/^miniapp: SIG[A-Z0-9]* received: stopped at step \([0-9]*\) of 8000.*/\1/p' "$log")
    [ -n "$step" ] || { cat "$log"; fail "$kind: no 'stopped at step' line after $what ${delay}s in (did it finish first?)"; }
    ckpt=$(printf '%s/checkpoint_%010d.h5' "$dir" "$step")
    [ -f "$ckpt" ] || fail "$kind: no checkpoint $ckpt"
    grep -q '^RESULT INTERRUPTED (stopped by SIG' "$log" || { cat "$log"; fail "$kind: no RESULT INTERRUPTED"; }
    grep -q 'RESULT VALID' "$log" && fail "$kind: a partial run claims RESULT VALID"
    grep -q -- "--restart latest$" "$log" || fail "$kind: no command to continue"
    grep -q '"verdict": *"INTERRUPTED"' "$dir.json" || fail "$kind: the JSON report is not marked INTERRUPTED"
    grep -q '"interrupted": *{' "$dir.json" || fail "$kind: no interrupted object in the JSON report"
    if [ "$cases" = 0 ] && "${MINIAPP_PYTHON:-python3}" -c 'import jsonschema' 2> /dev/null; then
      "${MINIAPP_PYTHON:-python3}" "$(dirname "$0")/../scripts/validate_report.py" \
        --expect-verdict INTERRUPTED "$dir.json" || fail "$kind: the JSON report does not match its schema"
    fi
    got=$(digest 2 "${P[@]}" --checkpoint-dir "$dir" --restart latest)
    [ "$got" = "$ref" ] || fail "$kind: stopped at step $step, restart gives digest $got, uninterrupted $ref"
    cases=$((cases + 1))
    echo "ok $cases: $kind round $round: $what ${delay}s into the loop -> stopped at step $step, exit 0, restart digest $got"
  done
done
echo "ok: $cases signal cases (seed $seed), every restart reproduced digest $ref"
