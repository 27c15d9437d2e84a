#!/usr/bin/env bash
# Run miniapp at one or several scales, one JSON report per run, all in one results directory.
# The same script runs on a laptop (mpiexec) and inside a Slurm job (srun): the sbatch
# templates in scripts/slurm/ only set the environment and call it.
#
#   scripts/sweep.sh single|weak|strong
#
#   single  one run: the first node count and ranks-per-node of the lists below
#   weak    every rank keeps MINIAPP_BLOCK cells: global grid = block x rank grid
#   strong  the global grid stays (the input's, or MINIAPP_GRID); ranks grow
#
# Points are the cross product of MINIAPP_NODES and MINIAPP_RANKS_PER_NODE. Environment
# (defaults in brackets):
#   MINIAPP_EXE             the binary [build/miniapp, else miniapp on PATH]
#   MINIAPP_LAUNCHER        srun | mpiexec | mpirun [srun inside a Slurm job, else mpiexec]
#   MINIAPP_LAUNCHER_ARGS   extra launcher arguments, e.g. "--oversubscribe" []
#   MINIAPP_NODES           node counts, e.g. "1 2 4 8" [1]
#   MINIAPP_RANKS_PER_NODE  ranks per node, e.g. "1 2" [$SLURM_NTASKS_PER_NODE, else 1]
#   MINIAPP_THREADS         OpenMP threads per rank
#                           [$SLURM_CPUS_PER_TASK, else $OMP_NUM_THREADS, else 1]
#   MINIAPP_INPUT           TOML input [inputs/small.toml]
#   MINIAPP_BLOCK           weak: cells per rank "NX NY NZ" [64 64 64]
#   MINIAPP_GRID            strong/single: global cells "NX NY NZ" [the input's]
#   MINIAPP_ARGS            extra miniapp arguments, e.g. "--steps 50" []
#   MINIAPP_RESULTS         results directory [results/MODE-YYYYmmdd-HHMMSS]
#   MINIAPP_DRY_RUN=1       print the commands instead of running them
#   MINIAPP_REQUEUE=1       inside Slurm: requeue the job after a run stopped by a signal [0]
#   MINIAPP_MAX_REQUEUES    ... at most this many times (SLURM_RESTART_COUNT) [10]
# OMP_PROC_BIND and OMP_PLACES default to spread and threads (set them to override).
#
# Files: RESULTS/LABEL-N<nodes>-n<ranks>-t<threads>.json (the report) and .log (the output),
# RESULTS/checkpoints/LABEL-N<nodes>-n<ranks>-t<threads>/ (that run's checkpoints).
# Exit status: 0 when every run exited 0 (an INVALID result exits 1), else 1.
#
# Stop and resume (the time limit of a batch job): SIGUSR1 or SIGTERM to this script is passed
# to the running launcher as SIGUSR1 (srun forwards it to every task, mpiexec to every rank);
# miniapp writes a checkpoint at the next step and exits 0 with RESULT INTERRUPTED, and the
# sweep stops there (with MINIAPP_REQUEUE=1 inside Slurm: `scontrol requeue`). Run the same
# sweep again with the same MINIAPP_RESULTS (a requeued job keeps its job id, so its default
# results directory) and it skips the points whose report is complete and continues the
# interrupted one with --restart latest.
set -euo pipefail

mode=${1:-}
case "$mode" in
  single | weak | strong) ;;
  *) echo "usage: $0 single|weak|strong  (settings: see the comment at the top)" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exe=${MINIAPP_EXE:-}
if [ -z "$exe" ]; then
  exe=$root/build/miniapp/miniapp
  [ -x "$exe" ] || exe=miniapp
fi
if [ -n "${SLURM_JOB_ID:-}" ]; then default_launcher=srun; else default_launcher=mpiexec; fi
launcher=${MINIAPP_LAUNCHER:-$default_launcher}
read -r -a launcher_args <<< "${MINIAPP_LAUNCHER_ARGS:-}"
read -r -a nodes_list <<< "${MINIAPP_NODES:-1}"
read -r -a rpn_list <<< "${MINIAPP_RANKS_PER_NODE:-${SLURM_NTASKS_PER_NODE:-1}}"
threads=${MINIAPP_THREADS:-${SLURM_CPUS_PER_TASK:-${OMP_NUM_THREADS:-1}}}
input=${MINIAPP_INPUT:-$root/inputs/small.toml}
read -r -a block <<< "${MINIAPP_BLOCK:-64 64 64}"
read -r -a grid <<< "${MINIAPP_GRID:-}"
read -r -a extra <<< "${MINIAPP_ARGS:-}"
results=${MINIAPP_RESULTS:-results/$mode-$(date +%Y%m%d-%H%M%S)}
dry=${MINIAPP_DRY_RUN:-0}

export OMP_NUM_THREADS=$threads
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread}
export OMP_PLACES=${OMP_PLACES:-threads}

if [ "$mode" = single ]; then
  nodes_list=("${nodes_list[0]}")
  rpn_list=("${rpn_list[0]}")
fi
[ "${#block[@]}" = 3 ] || { echo "MINIAPP_BLOCK needs 3 numbers, got '${block[*]}'" >&2; exit 2; }
[ "${#grid[@]}" = 0 ] || [ "${#grid[@]}" = 3 ] ||
  { echo "MINIAPP_GRID needs 3 numbers, got '${grid[*]}'" >&2; exit 2; }
case "$launcher" in
  srun | mpiexec | mpirun) ;;
  *) echo "MINIAPP_LAUNCHER must be srun, mpiexec or mpirun, got '$launcher'" >&2; exit 2 ;;
esac

# The most cubic rank grid px*py*pz = p (smallest px+py+pz; ties: split z first, as miniapp).
dims3() {
  local p=$1 x y z best=$(($1 + 3)) out=""
  for ((x = 1; x <= p; x++)); do
    ((p % x)) && continue
    for ((y = 1; y <= p / x; y++)); do
      (((p / x) % y)) && continue
      z=$((p / x / y))
      if ((x + y + z < best)); then best=$((x + y + z)); out="$x $y $z"; fi
    done
  done
  echo "$out"
}

# Forward a stop request to the running launcher as SIGUSR1 (see the comment at the top).
stop=0 signalled=0 pid=""
forward_stop() {
  stop=1 signalled=1
  if [ -n "$pid" ]; then kill -USR1 "$pid" 2> /dev/null || true; fi
}
trap forward_stop USR1 TERM

[ "$dry" = 1 ] || mkdir -p "$results"
failed=0
for nodes in "${nodes_list[@]}"; do
  [ "$stop" = 0 ] || break
  for rpn in "${rpn_list[@]}"; do
    [ "$stop" = 0 ] || break
    ranks=$((nodes * rpn))
    args=(--config "$input" --label "$mode" --progress 0)
    if [ "$mode" = weak ]; then
      read -r px py pz <<< "$(dims3 "$ranks")"
      args+=(--grid $((block[0] * px)) $((block[1] * py)) $((block[2] * pz)))
      args+=(--ranks "$px" "$py" "$pz")
    elif [ "${#grid[@]}" = 3 ]; then
      args+=(--grid "${grid[@]}")
    fi
    name=$mode-N$nodes-n$ranks-t$threads
    if [ -f "$results/$name.json" ] && ! grep -q '"verdict": *"INTERRUPTED"' "$results/$name.json"; then
      echo "sweep: $name is complete ($results/$name.json), skipped"
      continue
    fi
    # A stop signal makes miniapp checkpoint here; a checkpoint here is continued.
    ckpt=$results/checkpoints/$name
    args+=(--checkpoint-dir "$ckpt")
    if compgen -G "$ckpt/checkpoint_*.h5" > /dev/null; then args+=(--restart latest); fi
    args+=(--report "$results/$name.json" "${extra[@]}")
    case "$launcher" in
      srun)
        cmd=(srun --nodes="$nodes" --ntasks="$ranks" --ntasks-per-node="$rpn"
             --cpus-per-task="$threads" --hint=nomultithread "${launcher_args[@]}") ;;
      *) cmd=("$launcher" -n "$ranks" "${launcher_args[@]}") ;;
    esac
    cmd+=("$exe" "${args[@]}")
    omp="OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"
    echo "sweep: $omp ${cmd[*]}"
    [ "$dry" = 1 ] && continue
    # In the background, so that a trapped signal runs forward_stop at once (bash runs traps
    # only between commands, and `wait` is one it interrupts).
    "${cmd[@]}" >> "$results/$name.log" 2>&1 &
    pid=$!
    while :; do
      signalled=0 rc=0
      wait "$pid" || rc=$?
      [ "$signalled" = 1 ] || break  # else wait again: the launcher is still stopping
    done
    pid=""
    if [ "$rc" = 0 ]; then
      grep -E '^(FOM|RESULT)' "$results/$name.log" | tail -n 2 | sed 's/^/  /' || true
    else
      echo "  FAILED (exit $rc): see $results/$name.log" >&2
      tail -n 5 "$results/$name.log" | sed 's/^/  | /' >&2
      failed=1
    fi
    if [ "$rc" = 0 ] && grep '^RESULT' "$results/$name.log" | tail -n 1 | grep -q '^RESULT INTERRUPTED'; then
      stop=1
      echo "sweep: $name stopped by a signal; its checkpoint is in $ckpt. Run the sweep again" \
        "with MINIAPP_RESULTS=$results to continue it."
      if [ "${MINIAPP_REQUEUE:-0}" = 1 ] && [ -n "${SLURM_JOB_ID:-}" ]; then
        if ((${SLURM_RESTART_COUNT:-0} < ${MINIAPP_MAX_REQUEUES:-10})); then
          echo "sweep: requeueing job $SLURM_JOB_ID (restart ${SLURM_RESTART_COUNT:-0})"
          scontrol requeue "$SLURM_JOB_ID" || failed=1
        else
          echo "sweep: not requeued: MINIAPP_MAX_REQUEUES=${MINIAPP_MAX_REQUEUES:-10} reached" >&2
        fi
      fi
    fi
  done
done
echo "sweep: reports in $results"
exit $failed
