#!/usr/bin/env bash
# miniapp's distributed 3D FFT against its peers, same grid, ranks and threads, one script:
#   miniapp bench fft (r2c and c2c, zero-copy and pack; FFTW-MPI r2c and c2c, normal and
#     transposed, when built with it)
#   scripts/bench_mpi4py_fft.py (mpi4py-fft r2c and c2c, pencil and slab, when
#     python3-mpi4py-fft is there)
#
#   scripts/bench_fft_peers.sh [NP] [N] [REPS] [ROUNDS]   defaults: 2 ranks, 128^3, 10 reps, 1
#
# The two programs alternate ROUNDS times (A B A B ...), each timing its variants interleaved,
# so a machine whose speed drifts affects both alike; with ROUNDS > 1 a summary gives the
# median and range over rounds of each ratio (miniapp's own ratios are paired per repetition
# inside one process; those against mpi4py-fft pair the two programs of the same round).
# Threads per rank: OMP_NUM_THREADS (default 1; FFTW uses as many in every program).
#
# Every peer gets its best settings: FFTW_MEASURE, planned once; glibc malloc told to keep its
# memory (FFTW-MPI allocates scratch on every call, and page faults are very expensive on
# virtual machines; miniapp allocates once and is indifferent). BUILD_DIR defaults to build.
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${1:-2} N=${2:-128} REPS=${3:-10} ROUNDS=${4:-1}
BUILD_DIR=${BUILD_DIR:-build}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_PROC_BIND=${OMP_PROC_BIND:-false}
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736
MPIEXEC=(mpiexec -n "$NP" -x GLIBC_TUNABLES -x OMP_NUM_THREADS -x OMP_PROC_BIND)
[ "$NP" -gt "$(nproc)" ] && MPIEXEC+=(--oversubscribe)
have_mpi4py=0
/usr/bin/python3 -c "import mpi4py_fft" 2>/dev/null && have_mpi4py=1
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT
for ((r = 1; r <= ROUNDS; ++r)); do
  [ "$ROUNDS" -gt 1 ] && echo "== round $r of $ROUNDS"
  "${MPIEXEC[@]}" "$BUILD_DIR/miniapp/miniapp" bench fft --grid "$N" "$N" "$N" --reps "$REPS" |
    tee "$LOG/miniapp.$r"
  if [ $have_mpi4py = 1 ]; then
    "${MPIEXEC[@]}" /usr/bin/python3 scripts/bench_mpi4py_fft.py --grid "$N" "$N" "$N" \
      --reps "$REPS" | tee "$LOG/mpi4py.$r"
  elif [ "$r" = 1 ]; then
    echo "mpi4py-fft not installed (Debian: python3-mpi4py-fft): skipped"
  fi
done
[ "$ROUNDS" -gt 1 ] || exit 0
/usr/bin/python3 - "$LOG" "$ROUNDS" <<'PY'
import re, statistics, sys
log, rounds = sys.argv[1], int(sys.argv[2])
def parse(path):
    times, ratios = {}, {}
    try:
        text = open(path).read()
    except FileNotFoundError:
        return times, ratios
    for m in re.finditer(r"^  (miniapp|FFTW-MPI|mpi4py-fft) (.+?)\s+([0-9.]+) ms per pair", text, re.M):
        times[f"{m[1]} {m[2].strip()}"] = float(m[3])
    for m in re.finditer(r"^  ratio (.+?)\s+([0-9.]+)$", text, re.M):
        ratios[m[1].strip()] = float(m[2])
    return times, ratios
rows = [("miniapp r2c/c2c (zerocopy)", "<= 0.6"), ("miniapp r2c/c2c (pack)", ""),
        ("miniapp r2c zerocopy / best FFTW-MPI r2c", "<= 1.0"),
        ("miniapp r2c pack / best FFTW-MPI r2c", ""),
        ("miniapp c2c zerocopy / best FFTW-MPI c2c", ""),
        ("miniapp r2c zerocopy / mpi4py-fft r2c pencil", "<= 0.7"),
        ("miniapp r2c zerocopy / mpi4py-fft r2c slab", ""),
        ("miniapp c2c zerocopy / mpi4py-fft c2c pencil", "")]
values = {name: [] for name, _ in rows}
for r in range(1, rounds + 1):
    t, q = parse(f"{log}/miniapp.{r}")
    p, _ = parse(f"{log}/mpi4py.{r}")
    pairs = {"miniapp r2c/c2c (zerocopy)": q.get("r2c/c2c (zerocopy)"),
             "miniapp r2c/c2c (pack)": q.get("r2c/c2c (pack)"),
             "miniapp r2c zerocopy / best FFTW-MPI r2c": q.get("r2c zerocopy/best FFTW-MPI r2c"),
             "miniapp r2c pack / best FFTW-MPI r2c": q.get("r2c pack/best FFTW-MPI r2c"),
             "miniapp c2c zerocopy / best FFTW-MPI c2c": q.get("c2c zerocopy/best FFTW-MPI c2c")}
    for kind, layout in (("r2c", "pencil"), ("r2c", "slab"), ("c2c", "pencil")):
        ours, theirs = t.get(f"miniapp {kind} zerocopy"), p.get(f"mpi4py-fft {kind} {layout}")
        if ours and theirs:
            pairs[f"miniapp {kind} zerocopy / mpi4py-fft {kind} {layout}"] = ours / theirs
    for name, v in pairs.items():
        if v is not None:
            values[name].append(v)
print(f"summary over {rounds} rounds (per-round ratios: median, min, max)")
print(f"  {'ratio':46s} {'median':>7s} {'min':>7s} {'max':>7s}  target")
for name, target in rows:
    v = values[name]
    if v:
        print(f"  {name:46s} {statistics.median(v):7.3f} {min(v):7.3f} {max(v):7.3f}  {target}")
PY
