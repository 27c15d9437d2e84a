#!/usr/bin/env bash
# bench_halo_vs_petsc.sh BUILD_DIR NRANKS N [WIDTH...]
# The halo exchange family against PETSc's DMDA, on the same machine, back to back: first
# miniapp_petsc_halo (PETSc DMGlobalToLocal, BOX stencil, periodic) for each width, then
# `miniapp bench halo` with the same n^3 block per rank, the same rank grid and those PETSc
# times, so the table ends with ours/PETSc ratios. Two processes because Debian's PETSc brings
# Trilinos' own Kokkos, which cannot share a process with miniapp's.
set -euo pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/env.sh"
build=${1:?build dir}
np=${2:-2}
n=${3:-64}
shift 3 || true
widths=("$@")
[ ${#widths[@]} -gt 0 ] || widths=(1)
peer=$build/miniapp/miniapp_petsc_halo
[ -x "$peer" ] || { echo "no $peer: configure with PETSc installed (petsc-dev)" >&2; exit 2; }
mpi=(mpiexec -n "$np")
[ "$np" -gt "$(getconf _NPROCESSORS_ONLN)" ] && mpi+=(--oversubscribe)
# The rank grid miniapp would choose for an n^3 block per rank.
read -r px py pz <<< "$(miniapp_rank_grid "${mpi[@]}" "$build/miniapp/miniapp")"
petsc=()
for h in "${widths[@]}"; do
  t=$("${mpi[@]}" "$peer" --grid $((n * px)) $((n * py)) $((n * pz)) --ranks "$px" "$py" "$pz" \
        --halo-width "$h" --reps 50 | awk '/petsc_dmda_global_to_local/ {print $3}')
  petsc+=("$h" "$t")
done
"${mpi[@]}" "$build/miniapp/miniapp" bench halo --n "$n" --widths "${widths[@]}" \
  --petsc-seconds "${petsc[@]}"
