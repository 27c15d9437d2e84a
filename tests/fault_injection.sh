#!/usr/bin/env bash
# Faults on one rank end the whole job within seconds, with a message naming the rank and the
# cause and a non-zero exit status, never a hang (src/fault_injection.hpp, MINIAPP_FAULT):
#   alloc  a failed allocation on rank 1 after step 5
#   throw  an exception on rank 2 after step 5
#   io     the checkpoint of step 5 fails on rank 1 alone, inside the collective HDF5 write
#          (the others wait in it; rank 1 gives up on the agreement after 5 s and aborts)
#   io     the same on rank 0 (the MPI-IO aggregator)
# and SIGKILL of one rank (as a node failure): the launcher ends the job, and the newest
# complete checkpoint restarts to the uninterrupted digest. (tests/checkpoint_crash.sh kills
# every rank, mostly during a checkpoint; this kills one rank only, between checkpoints.)
source "$(dirname "$0")/checkpoint_lib.sh"
NP=3
P=(--grid 24 20 16 --steps 40 --progress 0)
cases=0

# fault KIND-SPEC REGEX: run under `timeout 60` with MINIAPP_FAULT=SPEC and check the end.
fault() {
  local spec=$1 regex=$2 out rc start elapsed
  start=$(date +%s)
  set +e
  out=$(MINIAPP_FAULT=$spec timeout 60 "${MPIEXEC[@]}" -n "$NP" "$MINIAPP" "${P[@]}" \
    --checkpoint-dir "$WORK/fault" 2>&1)
  rc=$?
  set -e
  elapsed=$(($(date +%s) - start))
  [ "$rc" != 124 ] || { printf '%s\n' "$out"; fail "MINIAPP_FAULT=$spec: hung (killed by timeout 60)"; }
  [ "$rc" != 0 ] || { printf '%s\n' "$out"; fail "MINIAPP_FAULT=$spec: exit status 0"; }
  grep -Eq -- "$regex" <<< "$out" || { printf '%s\n' "$out"; fail "MINIAPP_FAULT=$spec: no message matching /$regex/"; }
  grep -q 'RESULT' <<< "$out" && { printf '%s\n' "$out"; fail "MINIAPP_FAULT=$spec: the run reported a result"; }
  cases=$((cases + 1))
  echo "ok $cases: MINIAPP_FAULT=$spec -> exit $rc after ${elapsed}s: $(grep -Eo -- "$regex" <<< "$out" | head -1)"
}

fault rank:1,step:5,kind:alloc \
  'miniapp: rank 1: fatal: (out of memory|Kokkos failed to allocate memory for label "miniapp::fault::alloc")'
fault rank:2,step:5,kind:throw 'miniapp: rank 2: fatal: injected exception after step 5'
fault rank:1,step:5,kind:io \
  'miniapp: rank 1: fatal: writing the checkpoint of step 5 failed: rank 1: H5Dwrite\(.*\) failed: injected I/O error'
fault rank:0,step:10,kind:io \
  'miniapp: rank 0: fatal: writing the checkpoint of step 10 failed: rank 0: H5Dwrite\(.*\) failed: injected I/O error'
[ ! -e "$WORK/fault/checkpoint_0000000005.h5" ] || fail "a failed checkpoint got its final name"

# SIGKILL one rank between checkpoints.
Q=(--grid 32 32 24 --steps 6000 --progress 0)
ref=$(digest 2 "${Q[@]}")
dir=$WORK/kill
"${MPIEXEC[@]}" -n "$NP" "$MINIAPP" "${Q[@]}" --checkpoint-every 500 --checkpoint-dir "$dir" \
  > "$WORK/kill.log" 2>&1 &
launcher=$!
LAUNCHERS+=("$launcher")
# Kill once the first checkpoint exists (however long the launch took; 300 s means a hang).
deadline=$((SECONDS + 300))
until compgen -G "$dir/checkpoint_*.h5" > /dev/null; do
  kill -0 "$launcher" 2> /dev/null || { cat "$WORK/kill.log"; fail "the run ended before its first checkpoint"; }
  ((SECONDS < deadline)) || { cat "$WORK/kill.log"; fail "no checkpoint after 300 s"; }
  sleep 0.01
done
mapfile -t ranks < <(rank_pids "$launcher")
[ "${#ranks[@]}" = "$NP" ] || fail "expected $NP rank processes, found ${#ranks[@]}"
kill -KILL "${ranks[1]}"
start=$(date +%s)
timeout 60 tail --pid="$launcher" -f /dev/null || fail "the job did not end within 60 s of SIGKILL to one rank"
rc=0
wait "$launcher" || rc=$?
[ "$rc" != 0 ] || fail "the job exited 0 after one rank was killed"
newest=$(ls "$dir"/checkpoint_*.h5 | tail -1)
[ "$newest" != "$dir/checkpoint_0000006000.h5" ] || fail "the run finished before the kill: nothing was tested"
got=$(digest 2 "${Q[@]}" --checkpoint-dir "$dir" --restart latest)
[ "$got" = "$ref" ] || fail "restart from ${newest##*/} after SIGKILL: digest $got, uninterrupted $ref"
cases=$((cases + 1))
echo "ok $cases: SIGKILL to one of $NP ranks: job ended after $(($(date +%s) - start))s with exit $rc; restart from ${newest##*/} reproduced digest $got"
echo "ok: $cases fault cases"
