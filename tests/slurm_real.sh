#!/usr/bin/env bash
# slurm_real.sh WORKDIR MINIAPP_EXE: the batch templates under a real Slurm on this machine.
#
# scripts/slurm-local.sh starts munged, slurmctld and slurmd (a one-node cluster) as this test's
# fixture and stops them at the end. Then, as a user would, from a directory outside the
# repository:
#   A  sbatch run.sbatch                         plain: the layout comes from the allocation
#   B  sbatch weak.sbatch, MINIAPP_RANKS_PER_NODE="1 2"      a two-point weak sweep
#   C  sbatch -n 2 scripts/sweep.sh single, MINIAPP_LAUNCHER=mpiexec   (PE= binding)
#   D  sbatch -n 2 --time=1 --signal=B:USR1@30 run.sbatch    long enough to meet the time limit:
#      it must checkpoint, requeue and finish with the reference digest (RESULT VALID)
#   E  a copy of run.sbatch outside the repository fails with a message naming MINIAPP_ROOT
# Exit 77 (ctest SKIP_RETURN_CODE) when Slurm is not installed or this is not root.
set -euo pipefail
work=$1 exe=$2
root=$(cd "$(dirname "$0")/.." && pwd)
t0=$SECONDS
fail() { echo "FAIL: $*"; exit 1; }
need() { grep -Eq -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$1: missing /$2/"; }; }

rm -rf "$work" && mkdir -p "$work/elsewhere"
state=$work/slurm
rc=0
"$root/scripts/slurm-local.sh" start "$state" || rc=$?
case "$rc" in
  0) ;;
  3 | 4) echo "SKIP: no Slurm here (see above); on Debian/Ubuntu as root, scripts/install-deps.sh" \
       "installs slurm-wlm and munge"; exit 77 ;;
  *) fail "the local Slurm did not start (scripts/slurm-local.sh exit $rc)" ;;
esac
trap '"$root/scripts/slurm-local.sh" stop "$state" > /dev/null' EXIT
export SLURM_CONF=$state/slurm.conf
# The job sees this environment (sbatch exports it): no OpenMP or Open MPI settings of the test
# harness, so the scripts' own choices are what runs.
unset OMP_NUM_THREADS OMP_PROC_BIND OMP_PLACES OMPI_MCA_rmaps_base_oversubscribe
export MINIAPP_EXE=$exe

submit() {  # submit NAME [sbatch args...]: the job id
  sbatch --parsable -o "$work/$1.out" "${@:2}"
}
wait_job() {  # wait_job ID SECONDS: the job's final state
  local id=$1 limit=$2 state="" t
  for ((t = 0; t < limit; t++)); do
    state=$(scontrol show job -o "$id" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case "$state" in
      COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
        echo "$state"; return 0 ;;
    esac
    sleep 1
  done
  echo "still ${state:-unknown} after $limit s"
}
report_of() { ls "$work/elsewhere/results/$1"/*"$2"*.json; }
cd "$work/elsewhere"

# A: the plain submission.
t=$SECONDS
id=$(MINIAPP_INPUT=$root/inputs/small.toml submit A "$root/scripts/slurm/run.sbatch")
st=$(wait_job "$id" 120)
[ "$st" = COMPLETED ] || { cat "$work/A.out"; fail "A: run.sbatch ended $st"; }
need "$work/A.out" '^sweep: launcher srun --mpi=pmix'
need "$work/A.out" '^  binding \(OS affinity mask per rank\)'
need "$work/A.out" '^  RESULT VALID'
grep -q '"verdict": "VALID"' "$(report_of "run-$id" single-N1)" || fail "A: the report is not VALID"
tA=$((SECONDS - t))

# B: a two-point weak sweep on one node.
t=$SECONDS
id=$(MINIAPP_RANKS_PER_NODE="1 2" MINIAPP_BLOCK="32 32 32" MINIAPP_ARGS="--steps 20 --warmup 2" \
  submit B "$root/scripts/slurm/weak.sbatch")
st=$(wait_job "$id" 120)
[ "$st" = COMPLETED ] || { cat "$work/B.out"; fail "B: weak.sbatch ended $st"; }
[ "$(grep -c '^  RESULT VALID' "$work/B.out")" = 2 ] || { cat "$work/B.out"; fail "B: expected 2 VALID points"; }
for n in 1 2; do
  grep -q '"verdict": "VALID"' "$(report_of "weak-$id" "weak-N1-n$n-")" || fail "B: point n$n is not VALID"
done
tB=$((SECONDS - t))

# C: scripts/sweep.sh submitted itself, under mpiexec.
t=$SECONDS
id=$(MINIAPP_LAUNCHER=mpiexec MINIAPP_INPUT=$root/inputs/small.toml \
  submit C -n 2 "$root/scripts/sweep.sh" single)
st=$(wait_job "$id" 120)
[ "$st" = COMPLETED ] || { cat "$work/C.out"; fail "C: sweep.sh ended $st"; }
need "$work/C.out" 'mpiexec -n 2 --map-by ppr:2:node:PE=1 --bind-to core '
need "$work/C.out" '^    rank 1 .* cpus 1 '
need "$work/C.out" '^  RESULT VALID'
tC=$((SECONDS - t))

# E: outside the repository, without MINIAPP_ROOT.
t=$SECONDS
cp "$root/scripts/slurm/run.sbatch" "$work/elsewhere/copy.sbatch"
id=$(submit E "$work/elsewhere/copy.sbatch")
st=$(wait_job "$id" 60)
[ "$st" = FAILED ] || { cat "$work/E.out"; fail "E: a template outside the repository ended $st"; }
need "$work/E.out" 'cannot find the miniapp repository .* set MINIAPP_ROOT='
tE=$((SECONDS - t))

# D: the time limit. The signal comes at Slurm's first 30-s timer tick after end - 30 - 30 s,
# i.e. 0-31 s after each start with --time=1: the run must last longer than that, so its step
# count comes from the rate of D's own problem (about 50 s of work: a margin for a busier
# machine), measured in a short run here, and is taken from the ladder of steps whose digests
# were recorded (tests/data/timelimit_digests.txt, 64^3 cells, --init random). C's rate, on its
# 128^3 problem, was 0.3-0.4 of this one's on an AMD Zen 3, and a D sized from it ended in 19 s.
t=$SECONDS
fom=$(OMP_NUM_THREADS=1 OMP_PROC_BIND=spread OMP_PLACES=threads mpiexec -n 2 --bind-to core \
  "$exe" --grid 64 64 64 --init random --steps 4000 --warmup 1000 --progress 0 |
  sed -n 's/^ *FOM \([0-9.e+]*\) .*/\1/p' | tail -n 1)
read -r steps digest < <(awk -v fom="${fom:-1e9}" '
  /^[0-9]/ { s = $1; d = $2; if (s * 64 * 64 * 64 / fom >= 50) { print s, d; found = 1; exit } }
  END { if (!found) print s, d }' "$root/tests/data/timelimit_digests.txt")
printf 'grid = [64, 64, 64]\nsteps = %s\ninit = "random"\n' "$steps" > "$work/timelimit.toml"
echo "D: $steps steps of 64^3 (its rate $fom cell updates/s: about $(awk -v s="$steps" -v f="$fom" 'BEGIN { printf "%.0f", s * 262144 / f }') s of work), reference digest $digest"
id=$(MINIAPP_INPUT=$work/timelimit.toml MINIAPP_ARGS="--expect-digest $digest" \
  submit D -n 2 --time=1 --signal=B:USR1@30 "$root/scripts/slurm/run.sbatch")
st=$(wait_job "$id" 270)
restarts=$(scontrol show job -o "$id" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
echo "--- D's output ($st after $((SECONDS - t)) s, $restarts restart(s)):"
cat "$work/D.out"
[ "$st" = COMPLETED ] || fail "D: the time-limited job ended $st"
((restarts >= 1)) || fail "D: finished without meeting the time limit (faster than its measured rate said)"
need "$work/D.out" '^sweep: stop signal received at .* s before the job.s time limit'
need "$work/D.out" '^  RESULT INTERRUPTED \(stopped by SIGUSR1'
need "$work/D.out" "^sweep: requeueing job $id at "
need "$work/D.out" "^sweep: job $id started .* \(restart $restarts\)"
need "$work/D.out" '^  RESULT VALID'
need "$work/D.out" "^sweep: single-N1-n2-t1 ran in $((restarts + 1)) segments"
need "$work/D.out" '^sweep: single-N1-n2-t1 is VALID: removed its [0-9]+ checkpoint file'
report=$(report_of "run-$id" single-N1-n2-t1)
grep -q '"verdict": "VALID"' "$report" || fail "D: the final report is not VALID"
grep -q "$digest" "$report" || fail "D: the final report lacks the reference digest $digest"
[ ! -d "$work/elsewhere/results/run-$id/checkpoints" ] || fail "D: interrupt checkpoints left behind"
tD=$((SECONDS - t))

# What the time limit looked like: signal lead times and requeue gaps.
leads=$(sed -n 's/.*, \([0-9-]*\) s before the job.s time limit/\1/p' "$work/D.out" | tr '\n' ' ')
gaps=$(awk '/^sweep: requeueing job .* at / { split($6, a, ":"); r = a[1]*3600 + a[2]*60 + a[3] }
            /^sweep: job .* started / && r { split($5, a, ":"); printf "%d ", a[1]*3600 + a[2]*60 + a[3] - r; r = 0 }' "$work/D.out")
echo "D: signal came ${leads}s before the limit; requeued job restarted ${gaps}s after its requeue"
echo "ok: real Slurm in $((SECONDS - t0)) s (A ${tA} s, B ${tB} s, C ${tC} s, E ${tE} s, D ${tD} s with $restarts requeue(s))"
