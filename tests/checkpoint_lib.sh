# Shared by the checkpoint test scripts (sourced). The environment comes from ctest:
#   MINIAPP_EXE      the miniapp binary
#   MINIAPP_MPIEXEC  mpiexec and its flags, space separated (the -n N is added here)
#   MINIAPP_PYTHON   python3 with h5py (only the damaged-file setup needs it)
set -euo pipefail
read -r -a MPIEXEC <<< "${MINIAPP_MPIEXEC:?set by ctest}"
MINIAPP=${MINIAPP_EXE:?set by ctest}
WORK=$(mktemp -d "$PWD/checkpoint-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# miniapp NP ARGS...: run the binary on NP ranks.
miniapp() { local np=$1; shift; "${MPIEXEC[@]}" -n "$np" "$MINIAPP" "$@"; }

# digest NP ARGS...: run and print the field digest of the report (fails on a failed run).
digest() {
  local out
  out=$(miniapp "$@" 2>&1) || { printf '%s\n' "$out" >&2; fail "run failed: np $*"; }
  sed -n 's/^digest //p' <<< "$out"
}
