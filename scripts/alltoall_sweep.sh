#!/usr/bin/env bash
# Sweep `miniapp bench alltoall` under the MPI's default algorithm selection and under each
# native Open MPI alltoall algorithm forced in turn, collecting one CSV, then plot the ratio
# torus/native vs block size (scripts/plot_alltoall.py).
#
#   scripts/alltoall_sweep.sh [-n RANKS] [-o OUT.csv (overwritten; plot: OUT.png)] [-- bench options...]
#   e.g. scripts/alltoall_sweep.sh -n 16 -o a2a.csv -- --dims 4 4 --reps 10
#
# Environment: MINIAPP (default build/miniapp/miniapp), MPIEXEC (default mpiexec),
# MPIEXEC_FLAGS (default: --oversubscribe --bind-to none when RANKS exceeds the cores),
# ALGORITHMS (default "default 1 2 3 4": Open MPI tuned 1 linear, 2 pairwise, 3 modified
# Bruck, 4 linear_sync; 5 two_proc works at 2 ranks only), PYTHON (default /usr/bin/python3).
# For MPICH, run the bench by hand with MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks|pairwise|...
# and MPIR_CVAR_ALLTOALL_DEVICE_COLLECTIVE=0 (the --label option names the run in the CSV).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ranks=4
out=alltoall_sweep.csv
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) ranks=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "alltoall_sweep.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
MINIAPP=${MINIAPP:-$here/../build/miniapp/miniapp}
MPIEXEC=${MPIEXEC:-mpiexec}
PYTHON=${PYTHON:-/usr/bin/python3}
ALGORITHMS=${ALGORITHMS:-default 1 2 3 4}
if [[ -z ${MPIEXEC_FLAGS+x} ]]; then
  MPIEXEC_FLAGS=""
  if [[ $ranks -gt $(nproc) ]] && "$MPIEXEC" --version 2>&1 | grep -qiE "open ?(mpi|rte)"; then
    MPIEXEC_FLAGS="--oversubscribe --bind-to none"
  fi
fi
[[ -x $MINIAPP ]] || { echo "alltoall_sweep.sh: no miniapp binary at $MINIAPP (build first or set MINIAPP)" >&2; exit 2; }

rm -f "$out"
status=0
for alg in $ALGORITHMS; do
  echo "== native algorithm: $alg" >&2
  if [[ $alg == default ]]; then
    env -u OMPI_MCA_coll_tuned_use_dynamic_rules -u OMPI_MCA_coll_tuned_alltoall_algorithm \
      "$MPIEXEC" -n "$ranks" $MPIEXEC_FLAGS "$MINIAPP" bench alltoall --csv "$out" "$@" || status=$?
  else
    OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_alltoall_algorithm=$alg \
      "$MPIEXEC" -n "$ranks" $MPIEXEC_FLAGS "$MINIAPP" bench alltoall --csv "$out" "$@" || status=$?
  fi
done
[[ -s $out ]] && "$PYTHON" "$here/plot_alltoall.py" "$out" "${out%.csv}.png"
exit $status
