#!/usr/bin/env bash
# Install everything, build, and run the whole test suite (what CI runs).
#
#   scripts/test.sh [ctest args...]      e.g. scripts/test.sh -L unit
#
# Environment: BUILD_DIR (default build), JOBS (default nproc), those of install-deps.sh, and
#   MINIAPP_LAUNCH_DELAY=S  every mpiexec launch starts S seconds late, as on a slow node (a
#                           missing hosts entry costs about 5 s): the tests must wait for what
#                           they can observe, never for a guessed time. Give it its own
#                           BUILD_DIR (CMake caches MPIEXEC_EXECUTABLE).
#
# A failed test is not run again: every test waits for states, so a failure is a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
if [ -n "${MINIAPP_LAUNCH_DELAY:-}" ]; then
  real=$(command -v mpiexec)
  wrapper=$PWD/$MINIAPP_BUILD_DIR/slow-launcher
  mkdir -p "$wrapper"
  printf '#!/bin/sh\nsleep %s\nexec %s "$@"\n' "$MINIAPP_LAUNCH_DELAY" "$real" > "$wrapper/mpiexec"
  chmod +x "$wrapper/mpiexec"
  export PATH=$wrapper:$PATH  # for the scripts that launch `mpiexec` from PATH
  cmake -S . -B "$MINIAPP_BUILD_DIR" -DMPIEXEC_EXECUTABLE="$wrapper/mpiexec" > /dev/null
fi
miniapp_build
cd "$MINIAPP_BUILD_DIR"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 600 "$@"
