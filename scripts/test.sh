#!/usr/bin/env bash
# Build miniapp and run its whole test suite; does all set-up on a fresh Debian 12 machine.
#
#   scripts/test.sh [ctest args...]      e.g. scripts/test.sh -L unit
#
# Environment: BUILD_DIR (default build), JOBS (default nproc), and those of install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j "$JOBS"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$JOBS" --timeout 600 "$@"
