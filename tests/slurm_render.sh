#!/usr/bin/env bash
# slurm_render.sh: check the sbatch templates without Slurm (sbatch --test-only is not here).
# Each template must parse (bash -n) and carry the required directives; then it is run with
# sample SLURM_* variables and MINIAPP_DRY_RUN=1, which renders the launch commands it would
# run, and those are checked exactly.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
need() {  # need FILE-or-TEXT-label TEXT PATTERN
  grep -Eq -- "$3" <<< "$2" || fail "$1: missing /$3/"
}

for t in run weak strong; do
  f=$root/scripts/slurm/$t.sbatch
  bash -n "$f" || fail "$f does not parse"
  text=$(cat "$f")
  for d in '^#SBATCH --nodes=[0-9]+$' '^#SBATCH --ntasks-per-node=[0-9]+$' \
           '^#SBATCH --cpus-per-task=[0-9]+$' '^#SBATCH --hint=nomultithread$' \
           '^#SBATCH --time=' '^export OMP_NUM_THREADS=\$SLURM_CPUS_PER_TASK$' \
           '^export OMP_PROC_BIND=spread$' '^export OMP_PLACES=threads$' \
           'MINIAPP_LAUNCHER:-srun' '^exec scripts/sweep.sh ' \
           '^#SBATCH --signal=B:USR1@[0-9]+$' '^#SBATCH --requeue$' '^#SBATCH --open-mode=append$' \
           '^export MINIAPP_REQUEUE=\$\{MINIAPP_REQUEUE:-1\}'; do
    need "$t.sbatch" "$text" "$d"
  done
done

render() {  # render TEMPLATE [VAR=value...]: the commands the job would launch
  local t=$1
  shift
  env -i PATH="$PATH" HOME="${HOME:-/tmp}" SLURM_JOB_ID=4242 SLURM_NNODES=4 SLURM_NTASKS=32 \
    SLURM_NTASKS_PER_NODE=8 SLURM_CPUS_PER_TASK=4 SLURM_SUBMIT_DIR="$root" MINIAPP_DRY_RUN=1 \
    "$@" bash "$root/scripts/slurm/$t.sbatch"
}
omp='OMP_NUM_THREADS=4 OMP_PROC_BIND=spread OMP_PLACES=threads '

out=$(render run)
echo "--- run.sbatch renders to:"; echo "$out"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 1 ] || fail "run.sbatch: expected one launch"
need run "$out" "^sweep: ${omp}srun --nodes=4 --ntasks=32 --ntasks-per-node=8 --cpus-per-task=4 --hint=nomultithread [^ ]*miniapp --config inputs/medium.toml --label single --progress 0 --checkpoint-dir results/run-4242/checkpoints/single-N4-n32-t4 --report results/run-4242/single-N4-n32-t4.json$"

out=$(render weak)
echo "--- weak.sbatch renders to:"; echo "$out"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 3 ] || fail "weak.sbatch: expected 3 launches (1 2 4 nodes)"
need weak "$out" "${omp}srun --nodes=1 --ntasks=8 .* --grid 256 256 256 --ranks 2 2 2 --checkpoint-dir results/weak-4242/checkpoints/weak-N1-n8-t4 --report results/weak-4242/weak-N1-n8-t4.json"
need weak "$out" "${omp}srun --nodes=2 --ntasks=16 .* --grid 256 256 512 --ranks 2 2 4 "
need weak "$out" "${omp}srun --nodes=4 --ntasks=32 .* --config inputs/small.toml --label weak .* --grid 256 512 512 --ranks 2 4 4 "

out=$(render strong MINIAPP_NODES="2 4" MINIAPP_ARGS="--steps 100")
echo "--- strong.sbatch (MINIAPP_NODES='2 4', MINIAPP_ARGS='--steps 100') renders to:"; echo "$out"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 2 ] || fail "strong.sbatch: expected 2 launches"
need strong "$out" "${omp}srun --nodes=2 --ntasks=16 .* --config inputs/medium.toml --label strong --progress 0 --checkpoint-dir results/strong-4242/checkpoints/strong-N2-n16-t4 --report results/strong-4242/strong-N2-n16-t4.json --steps 100$"
need strong "$out" "${omp}srun --nodes=4 --ntasks=32 "
grep -q -- '--grid' <<< "$out" && fail "strong.sbatch: the grid must stay the input's"

out=$(render run MINIAPP_LAUNCHER=mpiexec MINIAPP_LAUNCHER_ARGS="--map-by ppr:8:node:PE=4")
echo "--- run.sbatch with MINIAPP_LAUNCHER=mpiexec renders to:"; echo "$out"
need run-mpiexec "$out" "^sweep: ${omp}mpiexec -n 32 --map-by ppr:8:node:PE=4 [^ ]*miniapp --config"

# Resubmitted after a stop: the interrupted point continues from its checkpoint, finished points
# (complete reports) are skipped.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/checkpoints/weak-N2-n16-t4"
touch "$tmp/checkpoints/weak-N2-n16-t4/checkpoint_0000000040.h5"
echo '{"validation": {"verdict": "VALID"}}' > "$tmp/weak-N1-n8-t4.json"
echo '{"validation": {"verdict": "INTERRUPTED"}}' > "$tmp/weak-N2-n16-t4.json"
out=$(render weak MINIAPP_RESULTS="$tmp")
echo "--- weak.sbatch resubmitted (N1 complete, N2 interrupted) renders to:"; echo "$out"
need weak-resume "$out" "^sweep: weak-N1-n8-t4 is complete"
[ "$(grep -c '^sweep: OMP' <<< "$out")" = 2 ] || fail "weak.sbatch resubmitted: expected 2 launches"
need weak-resume "$out" "--checkpoint-dir $tmp/checkpoints/weak-N2-n16-t4 --restart latest --report "
grep -q -- "weak-N4-n32-t4 --restart" <<< "$out" && fail "weak.sbatch resubmitted: N4 has no checkpoint"

if render run MINIAPP_LAUNCHER=aprun > /dev/null 2>&1; then fail "an unknown launcher must be refused"; fi
echo "ok: 3 templates parse, carry the directives and render the expected launches (and resume)"
