#!/usr/bin/env bash
# slurm_render.sh: the sbatch templates and scripts/sweep.sh inside a job, without a Slurm.
# Each template must parse (bash -n) and carry the required directives and no fixed layout;
# then it runs with sample SLURM_* variables, stand-ins for srun/scontrol/squeue/mpiexec on PATH
# (what they answer is set per case) and MINIAPP_DRY_RUN=1, which prints the launch commands it
# would run, and those are checked exactly. tests/slurm_real.sh runs them under a real Slurm.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
need() {  # need LABEL TEXT PATTERN
  grep -Eq -- "$3" <<< "$2" || fail "$1: missing /$3/"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in run weak strong; do
  f=$root/scripts/slurm/$t.sbatch
  bash -n "$f" || fail "$f does not parse"
  text=$(cat "$f")
  for d in '^#SBATCH --nodes=1$' '^#SBATCH --exclusive$' '^#SBATCH --time=' \
           '^#SBATCH --signal=B:USR1@[0-9]+$' '^#SBATCH --requeue$' '^#SBATCH --open-mode=append$' \
           "^exec \"\\\$root/scripts/sweep.sh\" "; do
    need "$t.sbatch" "$text" "$d"
  done
  # Works on any node size: no fixed tasks or CPUs per node, and no user setting overwritten.
  grep -Eq '^#SBATCH --(ntasks|ntasks-per-node|cpus-per-task|hint)' "$f" &&
    fail "$t.sbatch fixes a layout in its #SBATCH lines"
  while read -r line; do
    var=${line#export }; var=${var%%=*}
    [[ "$line" == "export $var=\${$var:-"* ]] || [ "$var" = MINIAPP_ROOT ] ||
      fail "$t.sbatch overwrites a user setting: $line"
  done < <(grep '^export MINIAPP_' "$f")
done

# Stand-ins for the Slurm and MPI commands the scripts ask.
bin=$tmp/bin
mkdir -p "$bin"
cat > "$bin/srun" << 'EOF'
#!/bin/bash
[ "$1" = --mpi=list ] && { printf 'MPI plugin types are...\n\tnone\n%b' "${FAKE_MPI_LIST-\tpmi2\n\tpmix\n}"; exit 0; }
echo "srun stand-in: $*"
EOF
cat > "$bin/scontrol" << 'EOF'
#!/bin/bash
case "$1 $2" in
  "show config") echo "TaskPlugin              = ${FAKE_TASK_PLUGIN-task/affinity}"
                 echo "AuthInfo                = cred_expire=120" ;;
  "show job") echo "   Command=${FAKE_COMMAND:-/nowhere/run.sbatch}" ;;
  "show node") echo "   ThreadsPerCore=${FAKE_THREADS_PER_CORE:-1}" ;;
esac
EOF
printf '#!/bin/bash\nexit 0\n' > "$bin/squeue"
cat > "$bin/mpiexec" << 'EOF'
#!/bin/bash
[ "$1" = --version ] && echo "mpiexec (OpenRTE) 4.1.4"
EOF
chmod +x "$bin"/*

render() {  # render TEMPLATE [VAR=value...]: the commands the job would launch
  local t=$1
  shift
  env -i PATH="$bin:$PATH" HOME="${HOME:-/tmp}" SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=4 \
    SLURM_NNODES=4 SLURM_NTASKS=32 SLURM_NTASKS_PER_NODE=8 SLURM_CPUS_PER_TASK=4 \
    SLURM_CPUS_ON_NODE=32 SLURMD_NODENAME=node1 SLURM_SUBMIT_DIR="$root" \
    FAKE_COMMAND="$root/scripts/slurm/$t.sbatch" MINIAPP_DRY_RUN=1 "$@" \
    bash "$root/scripts/slurm/$t.sbatch"
}
exe=$root/build/miniapp/miniapp
command -v miniapp > /dev/null && [ ! -x "$exe" ] && exe=$(command -v miniapp)
omp='OMP_NUM_THREADS=4 OMP_PROC_BIND=spread OMP_PLACES=threads '
srun4='srun --mpi=pmix --nodes=4 --ntasks=32 --ntasks-per-node=8 --cpus-per-task=4 --hint=nomultithread'

out=$(render run)
echo "--- run.sbatch (4 nodes x 8 tasks x 4 CPUs) renders to:"; echo "$out"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 1 ] || fail "run.sbatch: expected one launch"
need run "$out" "^sweep: launcher srun --mpi=pmix \(srun offers PMIx; TaskPlugin=task/affinity binds tasks\)$"
need run "$out" "^sweep: ${omp}$srun4 $exe --config $root/inputs/medium.toml --label single --progress 0 --checkpoint-dir results/run-4242/checkpoints/single-N4-n32-t4 --report results/run-4242/single-N4-n32-t4.json$"

out=$(render weak)
echo "--- weak.sbatch renders to:"; echo "$out"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 3 ] || fail "weak.sbatch: expected 3 launches (1 2 4 nodes)"
need weak "$out" "${omp}srun --mpi=pmix --nodes=1 --ntasks=8 .* --grid 256 256 256 --ranks 2 2 2 --checkpoint-dir results/weak-4242/checkpoints/weak-N1-n8-t4 --report results/weak-4242/weak-N1-n8-t4.json"
need weak "$out" "${omp}srun --mpi=pmix --nodes=2 --ntasks=16 .* --grid 256 256 512 --ranks 2 2 4 "
need weak "$out" "${omp}srun --mpi=pmix --nodes=4 --ntasks=32 .* --config $root/inputs/small.toml --label weak .* --grid 256 512 512 --ranks 2 4 4 "

out=$(render strong MINIAPP_NODES="2 4" MINIAPP_ARGS="--steps 100")
echo "--- strong.sbatch (MINIAPP_NODES='2 4', MINIAPP_ARGS='--steps 100') renders to:"; echo "$out"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 2 ] || fail "strong.sbatch: expected 2 launches"
need strong "$out" "${omp}srun --mpi=pmix --nodes=2 --ntasks=16 .* --config $root/inputs/medium.toml --label strong --progress 0 --checkpoint-dir results/strong-4242/checkpoints/strong-N2-n16-t4 --report results/strong-4242/strong-N2-n16-t4.json --steps 100$"
need strong "$out" "${omp}srun --mpi=pmix --nodes=4 --ntasks=32 "
grep -q -- '--grid' <<< "$out" && fail "strong.sbatch: the grid must stay the input's"

# mpiexec: each rank on its own --cpus-per-task cores (PE=), bound there.
out=$(render run MINIAPP_LAUNCHER=mpiexec)
echo "--- run.sbatch with MINIAPP_LAUNCHER=mpiexec renders to:"; echo "$out"
need run-mpiexec "$out" "^sweep: ${omp}mpiexec -n 32 --map-by ppr:8:node:PE=4 --bind-to core $exe --config"
out=$(render run MINIAPP_LAUNCHER=mpiexec MINIAPP_LAUNCHER_ARGS="--map-by ppr:4:socket")
need run-mpiexec-user "$out" "^sweep: ${omp}mpiexec -n 32 --map-by ppr:4:socket $exe --config"

# No PMIx in this srun: mpiexec, said why. TaskPlugin task/none: srun cannot bind, so mpiexec.
out=$(render run FAKE_MPI_LIST='\tpmi2\n')
echo "--- run.sbatch, srun without PMIx:"; echo "$out"
need run-nopmix "$out" "^sweep: launcher mpiexec: this srun offers no PMIx"
need run-nopmix "$out" "^sweep: ${omp}mpiexec -n 32 --map-by ppr:8:node:PE=4 --bind-to core "
out=$(render run FAKE_TASK_PLUGIN=task/none)
need run-tasknone "$out" "^sweep: launcher mpiexec: TaskPlugin=task/none does not bind"
# ... and srun forced there: threads left unpinned, with a warning (not all on CPU 0).
out=$(render run FAKE_TASK_PLUGIN=task/none MINIAPP_LAUNCHER=srun)
echo "--- run.sbatch, task/none, MINIAPP_LAUNCHER=srun:"; echo "$out"
need run-tasknone-srun "$out" "WARNING: the launcher does not bind ranks to cores here: OMP_PROC_BIND=false"
need run-tasknone-srun "$out" "^sweep: OMP_NUM_THREADS=4 OMP_PROC_BIND=false OMP_PLACES=threads $srun4 "

# A plain `sbatch run.sbatch` (whole node, no tasks given): one rank per NUMA domain, its cores
# as threads. Hyperthreads are not counted as cores.
numa=$(ls -d /sys/devices/system/node/node[0-9]* 2> /dev/null | wc -l)
((numa > 0)) || numa=1
plain=(SLURM_NTASKS= SLURM_NTASKS_PER_NODE= SLURM_CPUS_PER_TASK= SLURM_JOB_NUM_NODES=1 SLURM_NNODES=1
       SLURM_CPUS_ON_NODE=128 FAKE_THREADS_PER_CORE=2)
out=$(render run "${plain[@]}")
echo "--- run.sbatch, plain whole-node allocation (64 cores, 128 CPUs, $numa NUMA domain(s)):"; echo "$out"
t=$((64 / numa))
need run-plain "$out" "ranks per node: one per NUMA domain \($numa"
need run-plain "$out" "^sweep: OMP_NUM_THREADS=$t .* --nodes=1 --ntasks=$numa --ntasks-per-node=$numa --cpus-per-task=$t "

# The user's settings are never overwritten: MINIAPP_RANKS_PER_NODE="1 2" on one 2-core node
# gives two points, threads fitting the larger one.
out=$(render weak "${plain[@]}" SLURM_CPUS_ON_NODE=2 FAKE_THREADS_PER_CORE=1 MINIAPP_RANKS_PER_NODE="1 2")
echo "--- weak.sbatch, one 2-core node, MINIAPP_RANKS_PER_NODE='1 2':"; echo "$out"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 2 ] || fail "weak.sbatch: MINIAPP_RANKS_PER_NODE='1 2' must give 2 points"
need weak-rpn "$out" "OMP_NUM_THREADS=1 .* --ntasks=1 --ntasks-per-node=1 --cpus-per-task=1 .* --grid 128 128 128 --ranks 1 1 1 "
need weak-rpn "$out" "OMP_NUM_THREADS=1 .* --ntasks=2 --ntasks-per-node=2 --cpus-per-task=1 .* --grid 128 128 256 --ranks 1 1 2 "
out=$(render run MINIAPP_THREADS=2 MINIAPP_NODES=3 MINIAPP_RANKS_PER_NODE=5)
need run-user "$out" "OMP_NUM_THREADS=2 .* --nodes=3 --ntasks=15 --ntasks-per-node=5 --cpus-per-task=2 "

# The repository is found from the path the template was submitted as, from anywhere; a copy
# outside it fails with a message naming MINIAPP_ROOT.
out=$(render run SLURM_SUBMIT_DIR="$tmp")
need run-elsewhere "$out" "--config $root/inputs/medium.toml"
cp "$root/scripts/slurm/run.sbatch" "$tmp/copy.sbatch"
rc=0
out=$(env -i PATH="$bin:$PATH" SLURM_JOB_ID=1 SLURM_SUBMIT_DIR="$tmp" FAKE_COMMAND="$tmp/copy.sbatch" \
  bash "$tmp/copy.sbatch" 2>&1) || rc=$?
echo "--- a copy of run.sbatch outside the repository:"; echo "$out"
[ "$rc" = 2 ] || fail "a template outside the repository must exit 2, got $rc"
need run-lost "$out" "cannot find the miniapp repository .* set MINIAPP_ROOT="
# scripts/sweep.sh submitted itself runs as a copy in Slurm's spool directory.
mkdir -p "$tmp/spool"
cp "$root/scripts/sweep.sh" "$tmp/spool/slurm_script"
out=$(env -i PATH="$bin:$PATH" SLURM_JOB_ID=77 SLURM_JOB_NUM_NODES=1 SLURM_NTASKS=2 \
  SLURM_CPUS_ON_NODE=2 SLURM_SUBMIT_DIR="$tmp" FAKE_COMMAND="$root/scripts/sweep.sh" \
  MINIAPP_DRY_RUN=1 bash "$tmp/spool/slurm_script" weak)
echo "--- sbatch -n 2 scripts/sweep.sh weak renders to:"; echo "$out"
need sweep-direct "$out" "^sweep: OMP_NUM_THREADS=1 .* --ntasks=2 .* $exe --config $root/inputs/small.toml --label weak .* --report results/weak-77/weak-N1-n2-t1.json$"

# Resubmitted after a stop: the interrupted point continues from its checkpoint, finished points
# (complete reports) are skipped.
res=$tmp/results
mkdir -p "$res/checkpoints/weak-N2-n16-t4"
touch "$res/checkpoints/weak-N2-n16-t4/checkpoint_0000000040.h5"
echo '{"validation": {"verdict": "VALID"}}' > "$res/weak-N1-n8-t4.json"
echo '{"validation": {"verdict": "INTERRUPTED"}}' > "$res/weak-N2-n16-t4.json"
out=$(render weak MINIAPP_RESULTS="$res")
echo "--- weak.sbatch resubmitted (N1 complete, N2 interrupted) renders to:"; echo "$out"
need weak-resume "$out" "^sweep: weak-N1-n8-t4 is complete"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 2 ] || fail "weak.sbatch resubmitted: expected 2 launches"
need weak-resume "$out" "--checkpoint-dir $res/checkpoints/weak-N2-n16-t4 --restart latest --report "
grep -q -- "weak-N4-n32-t4 --restart" <<< "$out" && fail "weak.sbatch resubmitted: N4 has no checkpoint"

if render run MINIAPP_LAUNCHER=aprun > /dev/null 2>&1; then fail "an unknown launcher must be refused"; fi
echo "ok: 3 templates parse, keep user settings, and render the expected launches (and resume)"
