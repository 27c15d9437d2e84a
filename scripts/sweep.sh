#!/usr/bin/env bash
# Run miniapp at one or several scales, one JSON report per run, all in one results directory.
# The same script runs on a laptop (mpiexec) and inside a Slurm job (srun or mpiexec): the
# sbatch templates in scripts/slurm/ only add #SBATCH defaults and call it, and it can be
# submitted itself:  sbatch -N 2 scripts/sweep.sh weak
#
#   scripts/sweep.sh single|weak|strong
#
#   single  one run: the first node count and ranks-per-node of the lists below
#   weak    every rank keeps MINIAPP_BLOCK cells: global grid = block x rank grid
#   strong  the global grid stays (the input's, or MINIAPP_GRID); ranks grow
#
# Points are the cross product of MINIAPP_NODES and MINIAPP_RANKS_PER_NODE. A setting you give
# is used as given; the defaults come from the Slurm allocation inside a job (brackets):
#   MINIAPP_ROOT            the miniapp repository [found from this script, the submitted
#                           script's path or the submit directory]
#   MINIAPP_EXE             the binary [ROOT/build/miniapp/miniapp, else miniapp on PATH]
#   MINIAPP_LAUNCHER        srun | mpiexec | mpirun [Slurm: srun when it offers PMIx and binds
#                           tasks to cores, else mpiexec; outside Slurm: mpiexec]
#   MINIAPP_LAUNCHER_ARGS   extra launcher arguments, e.g. "--oversubscribe" []
#   MINIAPP_NODES           node counts, e.g. "1 2 4 8" [single: the allocation's nodes;
#                           weak/strong: 1 2 4 ... up to the allocation's; outside Slurm: 1]
#   MINIAPP_RANKS_PER_NODE  ranks per node, e.g. "1 2" [--ntasks-per-node, else --ntasks
#                           divided over the nodes, else one rank per NUMA domain; outside: 1]
#   MINIAPP_THREADS         OpenMP threads per rank [--cpus-per-task, else the allocated cores
#                           of a node divided by the largest ranks per node; outside Slurm:
#                           $OMP_NUM_THREADS, else 1]
#   MINIAPP_INPUT           TOML input [ROOT/inputs/small.toml]
#   MINIAPP_BLOCK           weak: cells per rank "NX NY NZ" [64 64 64]
#   MINIAPP_GRID            strong/single: global cells "NX NY NZ" [the input's]
#   MINIAPP_ARGS            extra miniapp arguments, e.g. "--steps 50" []
#   MINIAPP_RESULTS         results directory [Slurm: results/MODE-JOBID;
#                           else results/MODE-YYYYmmdd-HHMMSS]
#   MINIAPP_DRY_RUN=1       print the commands instead of running them
#   MINIAPP_REQUEUE         inside Slurm: requeue the job after a stop by a signal [1]
#   MINIAPP_MAX_REQUEUES    ... at most this many times (SLURM_RESTART_COUNT) [10]
#   MINIAPP_KEEP_CHECKPOINTS=1  keep a run's interrupt checkpoints after it ends VALID [0]
# OMP_PROC_BIND and OMP_PLACES default to spread and threads when the launcher binds each rank
# to its own cores, else OMP_PROC_BIND=false (set them to override).
#
# Files: RESULTS/LABEL-N<nodes>-n<ranks>-t<threads>.json (the report) and .log (the output),
# RESULTS/checkpoints/LABEL-N<nodes>-n<ranks>-t<threads>/ (that run's checkpoints). This
# script's own output (the job's .out under Slurm) shows each launch line, the binding report
# and any warning of each run, its FOM and RESULT.
# Exit status: 0 when every run exited 0 (an INVALID result exits 1), 2 bad settings, else 1.
#
# Stop and resume (the time limit of a batch job): SIGUSR1 or SIGTERM to this script is passed
# to the running launcher as SIGUSR1 once miniapp has started (it has printed its binding
# report; earlier, the signal would kill it); miniapp writes a checkpoint at the next step and
# exits 0 with RESULT INTERRUPTED, and the sweep stops there (inside Slurm: `scontrol requeue`).
# Run the same sweep again with the same MINIAPP_RESULTS (a requeued job keeps its job id, so
# its default results directory) and it skips the points whose report is complete and
# continues the interrupted one with --restart latest.
set -euo pipefail

mode=${1:-}
case "$mode" in
  single | weak | strong) ;;
  *) echo "usage: $0 single|weak|strong  (settings: see the comment at the top)" >&2; exit 2 ;;
esac
say() { printf 'sweep: %s\n' "$*"; }
die() { printf 'sweep: %s\n' "$*" >&2; exit 2; }
in_slurm=0
[ -n "${SLURM_JOB_ID:-}" ] && in_slurm=1

# ---- The repository ------------------------------------------------------------------------
# Under sbatch this file is a copy in Slurm's spool directory, so its own path says nothing:
# the path it was submitted as (scontrol's Command=) and the submit directory do.
is_root() { [ -f "$1/scripts/sweep.sh" ] && [ -d "$1/inputs" ]; }
root=${MINIAPP_ROOT:-}
if [ -n "$root" ]; then
  is_root "$root" || die "MINIAPP_ROOT=$root is not the miniapp repository (no scripts/sweep.sh)"
else
  candidates=("$(dirname "${BASH_SOURCE[0]}")/..")
  if [ "$in_slurm" = 1 ]; then
    submitted=$(scontrol show job "$SLURM_JOB_ID" 2> /dev/null |
      sed -n 's/^ *Command=\([^ ]*\).*/\1/p' | head -n 1) || true
    [ -n "$submitted" ] && candidates+=("$(dirname "$submitted")/.." "$(dirname "$submitted")/../..")
    s=${SLURM_SUBMIT_DIR:-$PWD}
    candidates+=("$s" "$s/.." "$s/../..")
  fi
  for d in "${candidates[@]}"; do
    if is_root "$d"; then root=$(cd "$d" && pwd); break; fi
  done
  [ -n "$root" ] || die "cannot find the miniapp repository (this script runs as $0," \
    "submitted from ${SLURM_SUBMIT_DIR:-$PWD}). Set MINIAPP_ROOT=/path/to/miniapp:" \
    "export it before sbatch (sbatch passes your environment on)."
fi

# A relative name would be looked up in the working directory first, where miniapp/ is the
# source folder ("execve(): miniapp: Permission denied"): always an absolute path.
is_exe() { [ -f "$1" ] && [ -x "$1" ]; }
exe=${MINIAPP_EXE:-}
if [ -z "$exe" ]; then
  exe=$root/build/miniapp/miniapp
  if ! is_exe "$exe"; then
    on_path=$(command -v miniapp 2> /dev/null || true)
    if [ -n "$on_path" ] && is_exe "$on_path"; then exe=$on_path
    elif [ "${MINIAPP_DRY_RUN:-0}" != 1 ]; then
      die "no miniapp binary at $exe nor on PATH: build it" \
        "(cmake -S $root -B $root/build && cmake --build $root/build) or set MINIAPP_EXE"
    fi
  fi
fi
if [ "${MINIAPP_DRY_RUN:-0}" != 1 ]; then
  is_exe "$exe" || die "MINIAPP_EXE=$exe is not an executable file"
  [[ "$exe" == /* ]] || exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
fi

# ---- The layout: defaults from the allocation, user settings as given ------------------------
powers_of_two_up_to() {  # 1 2 4 ... below N, then N
  local n=1 out=""
  while ((n < $1)); do out+="$n "; n=$((n * 2)); done
  echo "$out$1"
}
numa_domains() {  # NUMA domains of this node (at least 1)
  local n
  n=$(ls -d /sys/devices/system/node/node[0-9]* 2> /dev/null | wc -l)
  echo $((n > 0 ? n : 1))
}
threads_per_core() {
  local t=""
  if [ -n "${SLURMD_NODENAME:-}" ]; then
    t=$(scontrol show node "$SLURMD_NODENAME" 2> /dev/null | sed -n 's/.*ThreadsPerCore=\([0-9]*\).*/\1/p')
  fi
  echo "${t:-1}"
}
notes=()  # how each default was derived, printed once
if [ "$in_slurm" = 1 ]; then
  alloc_nodes=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}
  if [ -n "${MINIAPP_NODES:-}" ]; then nodes_default=$MINIAPP_NODES
  elif [ "$mode" = single ]; then nodes_default=$alloc_nodes
  else nodes_default=$(powers_of_two_up_to "$alloc_nodes"); fi
  if [ -n "${SLURM_NTASKS_PER_NODE:-}" ]; then
    rpn_default=${SLURM_NTASKS_PER_NODE%%(*}
    rpn_note="ranks per node from --ntasks-per-node"
  elif [ -n "${SLURM_NTASKS:-}" ]; then
    rpn_default=$((SLURM_NTASKS / alloc_nodes))
    ((rpn_default >= 1)) || rpn_default=1
    rpn_note="ranks per node from --ntasks=$SLURM_NTASKS over $alloc_nodes node(s)"
  else
    rpn_default=$(numa_domains)
    rpn_note="ranks per node: one per NUMA domain ($rpn_default; --ntasks-per-node chooses)"
  fi
  [ -n "${MINIAPP_RANKS_PER_NODE:-}" ] || notes+=("$rpn_note")
  cores=$(( ${SLURM_CPUS_ON_NODE:-1} / $(threads_per_core) ))
  ((cores >= 1)) || cores=1
else
  nodes_default=1
  rpn_default=${SLURM_NTASKS_PER_NODE:-1}
fi
read -r -a nodes_list <<< "${MINIAPP_NODES:-$nodes_default}"
read -r -a rpn_list <<< "${MINIAPP_RANKS_PER_NODE:-$rpn_default}"
if [ "$mode" = single ]; then
  nodes_list=("${nodes_list[0]}")
  rpn_list=("${rpn_list[0]}")
fi
max_rpn=0
for r in "${rpn_list[@]}"; do ((r > max_rpn)) && max_rpn=$r; done
for n in "${nodes_list[@]}" "${rpn_list[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "MINIAPP_NODES and MINIAPP_RANKS_PER_NODE need positive whole numbers, got '$n'"
done
if [ -n "${MINIAPP_THREADS:-}" ]; then
  threads=$MINIAPP_THREADS
elif [ "$in_slurm" = 1 ] && [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
  threads=$SLURM_CPUS_PER_TASK
  notes+=("threads per rank from --cpus-per-task")
elif [ "$in_slurm" = 1 ]; then
  threads=$((cores / max_rpn))
  ((threads >= 1)) || threads=1
  notes+=("threads per rank: $cores allocated core(s) per node / $max_rpn rank(s)")
else
  threads=${OMP_NUM_THREADS:-1}
fi
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "MINIAPP_THREADS needs a positive whole number, got '$threads'"
if [ "$in_slurm" = 1 ] && ((max_rpn * threads > cores)); then
  notes+=("WARNING: $max_rpn rank(s) x $threads thread(s) per node, but $cores core(s) per node allocated: ranks will share cores")
fi

input=${MINIAPP_INPUT:-$root/inputs/small.toml}
read -r -a block <<< "${MINIAPP_BLOCK:-64 64 64}"
read -r -a grid <<< "${MINIAPP_GRID:-}"
read -r -a extra <<< "${MINIAPP_ARGS:-}"
read -r -a launcher_args <<< "${MINIAPP_LAUNCHER_ARGS:-}"
if [ "$in_slurm" = 1 ]; then
  results=${MINIAPP_RESULTS:-results/$mode-$SLURM_JOB_ID}  # the same after a requeue
else
  results=${MINIAPP_RESULTS:-results/$mode-$(date +%Y%m%d-%H%M%S)}
fi
dry=${MINIAPP_DRY_RUN:-0}
[ "${#block[@]}" = 3 ] || die "MINIAPP_BLOCK needs 3 numbers, got '${block[*]}'"
[ "${#grid[@]}" = 0 ] || [ "${#grid[@]}" = 3 ] || die "MINIAPP_GRID needs 3 numbers, got '${grid[*]}'"
[ -f "$input" ] || [ "$dry" = 1 ] || die "MINIAPP_INPUT=$input: no such file"

# ---- The launcher ---------------------------------------------------------------------------
# Debian's Open MPI (and most others) start under srun only through PMIx (srun --mpi=pmix):
# Slurm's default MpiDefault=none and --mpi=pmi2 fail in MPI_Init. Without PMIx, mpiexec
# starts the ranks itself (inside the allocation) and binds them. srun binds tasks to cores
# only with TaskPlugin task/affinity or task/cgroup; under task/none every rank may run
# anywhere, so mpiexec, which binds by itself, is the better default there too.
launcher=${MINIAPP_LAUNCHER:-}
srun_mpi=()
srun_binds=1
if [ "$in_slurm" = 1 ] && command -v scontrol > /dev/null; then
  task_plugin=$(scontrol show config 2> /dev/null | sed -n 's/^TaskPlugin *= *//p')
  [[ "$task_plugin" =~ affinity|cgroup ]] || srun_binds=0
fi
if [ -z "$launcher" ]; then
  if [ "$in_slurm" = 0 ]; then
    launcher=mpiexec
  elif [ -n "${SLURM_MPI_TYPE:-}" ]; then
    launcher=srun
    notes+=("launcher srun (SLURM_MPI_TYPE=$SLURM_MPI_TYPE is set)")
  else
    mpi_list=$(srun --mpi=list 2>&1 || true)
    if grep -qw pmix <<< "$mpi_list" && [ "$srun_binds" = 1 ]; then
      launcher=srun srun_mpi=(--mpi=pmix)
      notes+=("launcher srun --mpi=pmix (srun offers PMIx; TaskPlugin=$task_plugin binds tasks)")
    elif command -v mpiexec > /dev/null; then
      launcher=mpiexec
      if grep -qw pmix <<< "$mpi_list"; then
        notes+=("launcher mpiexec: TaskPlugin=${task_plugin:-?} does not bind srun's tasks to cores")
      else
        notes+=("launcher mpiexec: this srun offers no PMIx (srun --mpi=list), which MPI_Init needs")
      fi
    else
      launcher=srun
      notes+=("WARNING: launcher srun without PMIx and no mpiexec on PATH: MPI_Init may fail")
    fi
  fi
elif [ "$launcher" = srun ] && [ -z "${SLURM_MPI_TYPE:-}" ] && [ "$in_slurm" = 1 ] &&
  grep -qw pmix <<< "$(srun --mpi=list 2>&1 || true)"; then
  srun_mpi=(--mpi=pmix)
fi
case "$launcher" in
  srun | mpiexec | mpirun) ;;
  *) die "MINIAPP_LAUNCHER must be srun, mpiexec or mpirun, got '$launcher'" ;;
esac
# Open MPI's mpiexec: inside an allocation each rank gets its own THREADS cores (PE=), and as
# root (containers, CI) it must be told that root is meant.
openmpi=0
if [ "$launcher" != srun ] && "$launcher" --version 2> /dev/null | grep -Eq 'Open MPI|OpenRTE'; then
  openmpi=1
  if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
fi
user_maps=0
[[ " ${launcher_args[*]} " =~ \ --(map-by|bind-to|cpus-per-proc|rankfile) ]] && user_maps=1

# Does each rank get cores of its own? Then pin the threads inside them; else pinning would put
# every rank's first thread on the same CPU.
binds=1
if [ "$in_slurm" = 1 ]; then
  if [ "$launcher" = srun ]; then binds=$srun_binds
  elif [ "$openmpi" = 0 ] && [ "$user_maps" = 0 ]; then binds=0; fi
fi
if [ "$binds" = 1 ]; then
  export OMP_PROC_BIND=${OMP_PROC_BIND:-spread}
else
  if [ -z "${OMP_PROC_BIND:-}" ]; then
    notes+=("WARNING: the launcher does not bind ranks to cores here: OMP_PROC_BIND=false, threads unpinned")
  fi
  export OMP_PROC_BIND=${OMP_PROC_BIND:-false}
fi
export OMP_PLACES=${OMP_PLACES:-threads}
export OMP_NUM_THREADS=$threads

# Keep a run's interrupt checkpoints only when checkpoints were asked for.
keep_ckpt=${MINIAPP_KEEP_CHECKPOINTS:-0}
if [[ " ${extra[*]} " == *" --checkpoint-every"* ]] ||
  grep -Eq '^[[:space:]]*checkpoint-every[[:space:]]*=[[:space:]]*[1-9]' "$input" 2> /dev/null; then
  keep_ckpt=1
fi

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

# ---- Stop signals ---------------------------------------------------------------------------
job_end=""  # the job's time limit, epoch seconds, to say how early the signal came
if [ "$in_slurm" = 1 ] && [ "$dry" != 1 ]; then
  end=$(squeue -h -j "$SLURM_JOB_ID" -o %e 2> /dev/null || true)
  job_end=$(date -d "$end" +%s 2> /dev/null || true)
fi
stop=0 signalled=0 pid="" log=""
on_stop() {
  stop=1 signalled=1
  local left=""
  [ -n "$job_end" ] && left=", $((job_end - $(date +%s))) s before the job's time limit"
  say "stop signal received at $(date +%T)$left"
}
trap on_stop USR1 TERM
segment() { tail -c "+$offset" "$log" 2> /dev/null; }  # this run's output so far
started() {  # miniapp's handlers are installed once it has printed its binding report
  segment | grep -q '^binding'
}

requeue() {  # $1: why
  [ "$in_slurm" = 1 ] && [ "${MINIAPP_REQUEUE:-1}" = 1 ] || return 0
  if ((${SLURM_RESTART_COUNT:-0} >= ${MINIAPP_MAX_REQUEUES:-10})); then
    say "not requeued: MINIAPP_MAX_REQUEUES=${MINIAPP_MAX_REQUEUES:-10} reached" >&2
    return 0
  fi
  local delay
  delay=$(scontrol show config 2> /dev/null | sed -n 's/.*cred_expire=\([0-9]*\).*/\1/p')
  say "requeueing job $SLURM_JOB_ID at $(date +%T) ($1; restart $((${SLURM_RESTART_COUNT:-0} + 1))):" \
    "Slurm now ends this script, writing '*** JOB $SLURM_JOB_ID ... CANCELLED ... DUE TO JOB" \
    "REQUEUE ***' (expected), and starts the job again, same id and results, after at least" \
    "${delay:-120} s (AuthInfo cred_expire on this cluster) once resources are free."
  trap 'exit 0' TERM  # the requeue ends this script with SIGTERM: not a stop request
  scontrol requeue "$SLURM_JOB_ID" || {
    trap on_stop TERM
    say "could not requeue job $SLURM_JOB_ID (not a batch job, or --no-requeue?)" >&2
  }
}

# ---- The runs -------------------------------------------------------------------------------
npoints=$((${#nodes_list[@]} * ${#rpn_list[@]}))
if [ "$in_slurm" = 1 ]; then
  say "job $SLURM_JOB_ID started $(date +%T) (restart ${SLURM_RESTART_COUNT:-0}):" \
    "${alloc_nodes} node(s), ${SLURM_CPUS_ON_NODE:-?} CPU(s) on this node;" \
    "$npoints point(s): nodes (${nodes_list[*]}) x ranks per node (${rpn_list[*]}), $threads thread(s) per rank"
  for n in "${notes[@]}"; do say "$n"; done
  if [ "$npoints" = 1 ] && [ "$mode" != single ]; then
    say "one point only: submit with more nodes (sbatch -N 4 ...) or set MINIAPP_RANKS_PER_NODE='1 2 4'"
  fi
fi
[ "$dry" = 1 ] || mkdir -p "$results"
failed=0 done_points=0
for nodes in "${nodes_list[@]}"; do
  for rpn in "${rpn_list[@]}"; do
    [ "$stop" = 0 ] || break 2
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
      say "$name is complete ($results/$name.json), skipped"
      done_points=$((done_points + 1))
      continue
    fi
    # A stop signal makes miniapp checkpoint here; a checkpoint here is continued.
    ckpt=$results/checkpoints/$name
    args+=(--checkpoint-dir "$ckpt")
    if compgen -G "$ckpt/checkpoint_*.h5" > /dev/null; then args+=(--restart latest); fi
    args+=(--report "$results/$name.json" "${extra[@]}")
    case "$launcher" in
      srun)
        cmd=(srun "${srun_mpi[@]}" --nodes="$nodes" --ntasks="$ranks" --ntasks-per-node="$rpn"
             --cpus-per-task="$threads" --hint=nomultithread "${launcher_args[@]}") ;;
      *)
        cmd=("$launcher" -n "$ranks")
        if [ "$openmpi" = 1 ] && [ "$in_slurm" = 1 ] && [ "$user_maps" = 0 ]; then
          cmd+=(--map-by "ppr:$rpn:node:PE=$threads" --bind-to core)
        fi
        cmd+=("${launcher_args[@]}") ;;
    esac
    cmd+=("$exe" "${args[@]}")
    say "OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES ${cmd[*]}"
    [ "$dry" = 1 ] && continue
    log=$results/$name.log
    # The log is appended to by every segment of a restarted run: look at this segment's part.
    offset=$(($(stat -c %s "$log" 2> /dev/null || echo 0) + 1))
    # In the background, so that a trapped signal runs on_stop at once (bash runs traps only
    # between commands, and `wait` is one it interrupts). The signal is passed on once miniapp
    # has started: before it installs its handlers, SIGUSR1 would kill the ranks.
    "${cmd[@]}" >> "$log" 2>&1 &
    pid=$!
    forwarded=0
    while :; do
      signalled=0 rc=0
      if [ "$stop" = 1 ] && [ "$forwarded" = 0 ]; then
        while kill -0 "$pid" 2> /dev/null && ! started; do sleep 0.2; done
        kill -USR1 "$pid" 2> /dev/null || true
        forwarded=1
      fi
      wait "$pid" || rc=$?
      [ "$signalled" = 1 ] || break  # else wait again: the launcher is still running
    done
    pid=""
    # The binding report and every warning, here in the job's output rather than only in the log.
    segment | awk '/^binding/ { b = 1; print; next } b && /^  / { print; next } { b = 0 }
                   /[Ww][Aa][Rr][Nn][Ii][Nn][Gg]/ && n++ < 20 { print }' | sed 's/^/  /'
    result=$(segment | grep '^RESULT' | tail -n 1 || true)
    if [ "$rc" = 0 ]; then
      segment | grep -E '^(FOM|RESULT)' | tail -n 2 | sed 's/^/  /' || true
    else
      echo "  FAILED (exit $rc): see $log" >&2
      segment | tail -n 20 | sed 's/^/  | /' >&2
      if segment | grep -q "PMI support\|PMI2_Init\|PMIx_Init\|OPAL_ERR_NOT_SUPPORTED\|before MPI_INIT completed"; then
        echo "  hint: MPI_Init failed under $launcher: srun needs the PMI type of your MPI" \
          "(Open MPI: --mpi=pmix; see srun --mpi=list), or use MINIAPP_LAUNCHER=mpiexec" >&2
      fi
      failed=1
    fi
    if [ "$rc" = 0 ] && [[ "$result" == "RESULT INTERRUPTED"* ]]; then
      stop=1
      say "$name stopped by a signal; its checkpoint is in $ckpt. Run the sweep again" \
        "with MINIAPP_RESULTS=$results to continue it."
      break 2
    fi
    done_points=$((done_points + 1))
    segments=$(grep -c 'received: stopped at step' "$log" || true)
    if [ "${segments:-0}" -gt 0 ]; then
      say "$name ran in $((segments + 1)) segments (stopped and restarted at steps" \
        "$(sed -n 's/.* stopped at step \([0-9]*\).*/\1/p' "$log" | tr '\n' ' ')); the report's" \
        "timings cover the last segment only"
    fi
    if [ "$rc" = 0 ] && [[ "$result" != "RESULT VALID"* ]] && compgen -G "$ckpt/checkpoint_*" > /dev/null; then
      say "$name ended ${result:-without a RESULT line}: its checkpoints stay in $ckpt"
    elif [ "$rc" = 0 ]; then
      if [ -d "$ckpt" ] && [ "$keep_ckpt" != 1 ]; then
        files=$(find "$ckpt" -maxdepth 1 -type f | wc -l)
        size=$(du -sh "$ckpt" | cut -f1)
        rm -rf "$ckpt"
        rmdir "$results/checkpoints" 2> /dev/null || true
        [ "$files" -gt 0 ] && say "$name is VALID: removed its $files checkpoint file(s) ($size)" \
          "in $ckpt (MINIAPP_KEEP_CHECKPOINTS=1 keeps them)"
      fi
    fi
  done
done
if [ "$stop" = 1 ] && ((done_points < npoints)); then
  [ "$in_slurm" = 1 ] && requeue "$((npoints - done_points)) of $npoints point(s) still to run"
fi
say "reports in $results"
exit $failed
