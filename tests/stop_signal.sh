#!/usr/bin/env bash
# Graceful stop (src/stop_signal.hpp): a multi-rank run is sent a stop signal; it must exit 0
# with RESULT INTERRUPTED.
#
#   term-one  SIGTERM to one rank process only (as a stray kill would): the other ranks learn
#             of it through the per-round vote
#   usr1      SIGUSR1 to mpiexec, which forwards it to every rank (as Slurm's --signal does)
#
# In the loop (MINIAPP_SIGNAL_ROUNDS times each, default 3): the signal comes a random 0-299 ms
# after the run printed "time loop:"; the run must write a checkpoint of the step it reached,
# and `--restart latest` must reach the uninterrupted run's digest.
# During start-up (once each): each rank process is frozen (SIGSTOP) as soon as it catches the
# stop signals; the first one frozen holds the others in MPI's start-up. The signal is sent,
# seen pending, and the ranks continue: the run must stop before its first step, without a
# checkpoint. A rank process found running MPI (several threads) before it catches the signals
# fails the test: miniapp installs its handlers first thing in main. A freeze that came too
# late (the loop had started) is tried again, at most 5 launches.
#
# Nothing here waits for a guessed time: the runs are given far more steps than they can
# reach, and the restarts and the reference end at one step chosen after the stops. RANDOM is
# seeded from MINIAPP_SIGNAL_SEED (default: the PID, printed) so the moments can be replayed.
source "$(dirname "$0")/checkpoint_lib.sh"
seed=${MINIAPP_SIGNAL_SEED:-$$}
RANDOM=$seed
ROUNDS=${MINIAPP_SIGNAL_ROUNDS:-3}
NP=3
NEVER=100000000  # --steps of the signalled runs: never reached
P=(--grid 48 40 32 --bc periodic neumann dirichlet --progress 0)
echo "seed $seed (MINIAPP_SIGNAL_SEED=$seed replays these moments)"

# launch NAME: start a run of NEVER steps in the background (sets launcher, log, dir).
launch() {
  dir=$WORK/$1 log=$WORK/$1.log
  "${MPIEXEC[@]}" -n "$NP" "$MINIAPP" "${P[@]}" --steps "$NEVER" --checkpoint-dir "$dir" \
    --report "$dir.json" > "$log" 2>&1 &
  launcher=$!
  LAUNCHERS+=("$launcher")
}

# send KIND: the stop signal of this case (sets what).
send() {
  local ranks
  mapfile -t ranks < <(rank_pids "$launcher")
  [ "${#ranks[@]}" = "$NP" ] || { cat "$log"; fail "$1: expected $NP rank processes, found ${#ranks[@]}"; }
  if [ "$1" = term-one ]; then
    victim=${ranks[$((RANDOM % NP))]}
    kill -TERM "$victim"
    what="SIGTERM to rank process $victim"
  else
    kill -USR1 "$launcher"
    what="SIGUSR1 to mpiexec"
  fi
}

# ended KIND: wait for the signalled run to end (a hang fails after 60 s); sets rc.
ended() {
  timeout 60 tail --pid="$launcher" -f /dev/null || { cat "$log"; fail "$1: the run did not end within 60 s of the signal"; }
  rc=0
  wait "$launcher" || rc=$?
  [ "$rc" = 0 ] || { cat "$log"; fail "$1: exit status $rc after $what, expected 0"; }
  grep -q '^RESULT INTERRUPTED (stopped by SIG' "$log" || { cat "$log"; fail "$1: no RESULT INTERRUPTED"; }
  if grep -q 'RESULT VALID' "$log"; then fail "$1: a partial run claims RESULT VALID"; fi
  grep -q '"verdict": *"INTERRUPTED"' "$dir.json" || fail "$1: the JSON report is not marked INTERRUPTED"
  grep -q '"interrupted": *{' "$dir.json" || fail "$1: no interrupted object in the JSON report"
}

# ---- Signals while the loop runs ---------------------------------------------------------------
cases=0
stops=()
for ((round = 1; round <= ROUNDS; ++round)); do
  for kind in term-one usr1; do
    launch "$kind-$round"
    wait_for_line "$log" '^time loop: step 0 to' "$launcher"
    ms=$((RANDOM % 300))
    delay=$(printf '0.%03d' "$ms")
    sleep "$delay"
    send "$kind"
    ended "$kind"
    step=$(sed -n "s/^miniapp: SIG[A-Z0-9]* received: stopped at step \([0-9]*\) of $NEVER.*/\1/p" "$log")
    [ -n "$step" ] || { cat "$log"; fail "$kind: no 'stopped at step' line after $what ${delay}s into the loop"; }
    ckpt=$(printf '%s/checkpoint_%010d.h5' "$dir" "$step")
    [ -f "$ckpt" ] || fail "$kind: no checkpoint $ckpt"
    grep -q -- "--restart latest$" "$log" || fail "$kind: no command to continue"
    if [ "$cases" = 0 ] && "${MINIAPP_PYTHON:-python3}" -c 'import jsonschema' 2> /dev/null; then
      "${MINIAPP_PYTHON:-python3}" "$(dirname "$0")/../scripts/validate_report.py" \
        --expect-verdict INTERRUPTED "$dir.json" || fail "$kind: the JSON report does not match its schema"
    fi
    cases=$((cases + 1))
    stops+=("$kind-$round:$step")
    echo "ok $cases: $kind round $round: $what ${delay}s into the loop -> stopped at step $step, exit 0"
  done
done

# Every stopped run continues to one common end, which the uninterrupted run also reaches.
end=0
for s in "${stops[@]}"; do end=$((${s##*:} > end ? ${s##*:} : end)); done
end=$((end + 10))
ref=$(digest "$NP" "${P[@]}" --steps "$end")
echo "uninterrupted: digest $ref at step $end"
for s in "${stops[@]}"; do
  got=$(digest 2 "${P[@]}" --steps "$end" --checkpoint-dir "$WORK/${s%:*}" --restart latest)
  [ "$got" = "$ref" ] || fail "${s%:*}: stopped at step ${s##*:}, restart to step $end gives digest $got, uninterrupted $ref"
done
echo "ok: the ${#stops[@]} stopped runs continued to step $end with the uninterrupted digest"

# ---- Signals during start-up ------------------------------------------------------------------
for kind in term-one usr1; do
  for ((attempt = 1; ; ++attempt)); do
    ((attempt <= 5)) || fail "$kind: 5 launches, and every freeze came after the loop had started"
    launch "$kind-startup-$attempt"
    # Freeze each rank process (SIGSTOP) as soon as it catches SIGTERM and SIGUSR1: the first
    # one frozen holds the others in MPI's start-up, which needs every rank. A rank process
    # that runs more than one thread has started MPI, and must catch them already.
    frozen=()
    deadline=$((SECONDS + 300))
    while ((${#frozen[@]} < NP)); do
      kill -0 "$launcher" 2> /dev/null || { cat "$log"; fail "$kind: the run ended during start-up"; }
      ((SECONDS < deadline)) || { cat "$log"; fail "$kind: $NP rank processes did not catch the stop signals within 300 s"; }
      for r in $(rank_pids "$launcher"); do
        [[ " ${frozen[*]} " != *" $r "* ]] || continue
        status=$(cat "/proc/$r/status" 2> /dev/null) || continue
        caught=$(sed -n 's/^SigCgt:[[:space:]]*//p' <<< "$status")
        threads=$(sed -n 's/^Threads:[[:space:]]*//p' <<< "$status")
        if has_bit "$caught" 15 && has_bit "$caught" 10; then
          kill -STOP "$r"
          frozen+=("$r")
        elif ((threads > 1)); then
          fail "$kind: rank process $r runs $threads threads (MPI has started) but does not catch SIGTERM and SIGUSR1 yet: a stop signal now would kill it"
        fi
      done
      sleep 0.005
    done
    send "$kind"
    # The signal waits, pending, on the frozen rank(s) it was sent to (mpiexec forwards SIGUSR1).
    targets=("${frozen[@]}")
    signum=10
    if [ "$kind" = term-one ]; then targets=("$victim") signum=15; fi
    for ((t = 0; t < 6000; ++t)); do
      pending=1
      for r in "${targets[@]}"; do signal_pending "$r" "$signum" || pending=0; done
      if [ "$pending" = 1 ]; then break; fi
      sleep 0.01
    done
    [ "$pending" = 1 ] || fail "$kind: the signal is not pending on the frozen ranks after 60 s"
    kill -CONT "${frozen[@]}"
    ended "$kind"
    if grep -q '^miniapp: SIG[A-Z0-9]* received: stopped at step' "$log"; then
      echo "$kind: attempt $attempt: the freeze came after the loop had started; again"
      continue
    fi
    grep -q "^miniapp: SIG[A-Z0-9]* received during start-up: stopped before the first step (step 0 of $NEVER); no checkpoint written" "$log" ||
      { cat "$log"; fail "$kind: no 'stopped before the first step' line after $what during start-up"; }
    if grep -q '^time loop:' "$log"; then cat "$log"; fail "$kind: the loop started after a stop during start-up"; fi
    if compgen -G "$dir/checkpoint_*" > /dev/null; then fail "$kind: a checkpoint was written although no step ran"; fi
    grep -q '"checkpoint": *""' "$dir.json" || fail "$kind: the JSON report names a checkpoint"
    grep -q -- "--steps $NEVER --checkpoint-dir $dir --report $dir.json\$" "$log" ||
      { cat "$log"; fail "$kind: the command to continue is not the same command"; }
    cases=$((cases + 1))
    echo "ok $cases: $kind during start-up (attempt $attempt): $what to frozen ranks -> stopped before the first step, exit 0, no checkpoint"
    break
  done
done
echo "ok: $cases signal cases (seed $seed)"
