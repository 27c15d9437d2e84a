#!/usr/bin/env bash
# The batch-job recipe end to end (scripts/sweep.sh, which the sbatch templates exec): SIGUSR1
# to the sweep (as Slurm's --signal=B:USR1@T sends it) stops the running miniapp at the next
# step with a checkpoint and RESULT INTERRUPTED; running the same sweep again (what a requeued
# job does) continues it with --restart latest to the uninterrupted run's digest, and a third
# run skips the now complete point.
source "$(dirname "$0")/checkpoint_lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
cat > "$WORK/input.toml" << 'TOML'
grid = [48, 40, 32]
steps = 4000
init = "random"
TOML
ref=$(digest 2 --config "$WORK/input.toml")
export MINIAPP_EXE=$MINIAPP MINIAPP_LAUNCHER=mpiexec MINIAPP_RANKS_PER_NODE=2
export MINIAPP_LAUNCHER_ARGS="${MPIEXEC[*]:1}" MINIAPP_INPUT=$WORK/input.toml
export MINIAPP_RESULTS=$WORK/results MINIAPP_THREADS=1
log=$MINIAPP_RESULTS/single-N1-n2-t1.log

"$root/scripts/sweep.sh" single > "$WORK/sweep1.out" 2>&1 &
sweep=$!
# Signal once miniapp's loop runs (however long the launch took): it stops at a round, with a
# checkpoint, long before the 4000 steps are done.
wait_for_line "$log" '^time loop: step 0 to' "$sweep"
kill -USR1 "$sweep"
rc=0
wait "$sweep" || rc=$?
cat "$WORK/sweep1.out"
[ "$rc" = 0 ] || fail "the signalled sweep exited $rc"
grep -q "stopped by a signal; its checkpoint is in" "$WORK/sweep1.out" || fail "the sweep did not report the stop"
grep -q '^RESULT INTERRUPTED' "$log" || fail "miniapp did not stop with RESULT INTERRUPTED"
step=$(sed -n 's/^miniapp: SIGUSR1 received: stopped at step \([0-9]*\) .*/\1/p' "$log")

"$root/scripts/sweep.sh" single > "$WORK/sweep2.out" 2>&1 || { cat "$WORK/sweep2.out"; fail "the resumed sweep failed"; }
cat "$WORK/sweep2.out"
grep -q -- '--restart latest' "$WORK/sweep2.out" || fail "the resumed sweep did not pass --restart latest"
got=$(grep '^digest' "$log" | tail -n 1 | cut -d' ' -f2)
[ "$got" = "$ref" ] || fail "stopped at step $step and resumed: digest $got, uninterrupted $ref"
"$root/scripts/sweep.sh" single > "$WORK/sweep3.out" 2>&1
grep -q 'is complete' "$WORK/sweep3.out" || { cat "$WORK/sweep3.out"; fail "a third sweep did not skip the complete point"; }
echo "ok: SIGUSR1 to the sweep stopped miniapp at step $step; the resumed sweep reached digest $got"
