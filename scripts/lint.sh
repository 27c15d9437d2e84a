#!/usr/bin/env bash
# clang-tidy over src/, miniapp/ and tests/ with the checked-in .clang-tidy files (CI runs it).
#
#   scripts/lint.sh [FILE...]        default: every .cpp in src/, miniapp/, miniapp/bench/ and tests/
#
# Uses compile_commands.json of a configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON in
# $LINT_BUILD_DIR (default build-lint; configured here when missing, nothing is built except
# the generated header build_info_generated.hpp). Exit status 1 when any check fires.
# Environment: CLANG_TIDY (default clang-tidy-14), JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
tidy=${CLANG_TIDY:-clang-tidy-14}
command -v "$tidy" >/dev/null || { echo "lint.sh: $tidy not found (scripts/install-deps.sh)" >&2; exit 2; }
build=${LINT_BUILD_DIR:-build-lint}
if [ ! -f "$build/compile_commands.json" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DMINIAPP_WITH_PETSC=OFF -DMINIAPP_WITH_FFTW_MPI=OFF >/dev/null
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  # Only files this configuration compiles (the PETSc peer is built only when PETSc is found).
  files=()
  for f in src/*.cpp miniapp/*.cpp miniapp/bench/*.cpp tests/*.cpp; do
    grep -q "\"file\": \"$PWD/$f\"" "$build/compile_commands.json" && files+=("$f")
  done
fi
start=$(date +%s)
# One clang-tidy per file, JOBS at a time; -quiet keeps only the findings. -std=c++17: CMake
# adds no -std flag when the compiler (g++ 12) already defaults to C++17, but clang-14 does not.
set +e
printf '%s\n' "${files[@]}" |
  xargs -P "${JOBS:-$(nproc)}" -I{} "$tidy" -quiet -p "$build" --extra-arg=-std=c++17 {} 2>/dev/null |
  tee "$build/clang-tidy.log"
status=${PIPESTATUS[1]}
set -e
echo "lint.sh: ${#files[@]} files in $(( $(date +%s) - start )) s, $(grep -c 'warning:\|error:' "$build/clang-tidy.log") findings"
exit $(( status != 0 ))
