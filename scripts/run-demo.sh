#!/usr/bin/env bash
# Install everything, build, and run the demo case on 2 MPI ranks; prints the report.
#
#   scripts/run-demo.sh [extra miniapp options...]     e.g. scripts/run-demo.sh --steps 50
#
# Environment: NP (ranks, default 2), OMP_NUM_THREADS (default 1), those of install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
miniapp_build >/dev/null
exec mpiexec -n "${NP:-2}" "$MINIAPP_BIN" --config inputs/demo.toml "$@"
