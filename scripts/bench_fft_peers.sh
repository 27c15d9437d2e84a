#!/usr/bin/env bash
# miniapp's distributed 3D FFT against its peers, same grid and ranks, one script:
#   miniapp bench fft (zero-copy, pack, FFTW-MPI normal and transposed, when built with it)
#   scripts/bench_mpi4py_fft.py (mpi4py-fft pencil and slab, when python3-mpi4py-fft is there)
#
#   scripts/bench_fft_peers.sh [NP] [N] [REPS]      defaults: 2 ranks, 128^3, 10 reps
#
# Every peer gets its best settings: FFTW_MEASURE, in place, c2c; glibc malloc told to keep its
# memory (FFTW-MPI allocates scratch on every call, and page faults are very expensive on
# virtual machines; miniapp allocates once and is indifferent). BUILD_DIR defaults to build.
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${1:-2} N=${2:-128} REPS=${3:-10}
BUILD_DIR=${BUILD_DIR:-build}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_PROC_BIND=${OMP_PROC_BIND:-false}
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736
MPIEXEC=(mpiexec -n "$NP" -x GLIBC_TUNABLES -x OMP_NUM_THREADS -x OMP_PROC_BIND)
[ "$NP" -gt "$(nproc)" ] && MPIEXEC+=(--oversubscribe)
"${MPIEXEC[@]}" "$BUILD_DIR/miniapp/miniapp" bench fft --grid "$N" "$N" "$N" --reps "$REPS"
if /usr/bin/python3 -c "import mpi4py_fft" 2>/dev/null; then
  "${MPIEXEC[@]}" /usr/bin/python3 scripts/bench_mpi4py_fft.py --grid "$N" "$N" "$N" --reps "$REPS"
else
  echo "mpi4py-fft not installed (Debian: python3-mpi4py-fft): skipped"
fi
