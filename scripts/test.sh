#!/usr/bin/env bash
# Install everything, build, and run the whole test suite (what CI runs).
#
#   scripts/test.sh [ctest args...]      e.g. scripts/test.sh -L unit
#
# Environment: BUILD_DIR (default build), JOBS (default nproc), those of install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
miniapp_build
cd "$MINIAPP_BUILD_DIR"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 600 "$@"
