#!/usr/bin/env bash
# Sanitizer stage (CI runs it after the main suite): build with the `asan` preset
# (AddressSanitizer + UndefinedBehaviorSanitizer, -fno-sanitize-recover=undefined) into
# build-asan and run the tests labelled `sanitize`: the unit tests at 1 and 2 ranks, the
# hostile-input generator (fuzz_config) and the command-line tests at <= 2 ranks.
#
#   scripts/test-sanitizers.sh [ctest args...]      e.g. scripts/test-sanitizers.sh -R fuzz
#
# Any ASan or UBSan report makes the process exit non-zero, so the test fails. Leaks are
# checked at exit (LeakSanitizer) against scripts/sanitizers/lsan.supp, which lists only
# third-party libraries (Open MPI and its components, hwloc, libevent, HDF5), each with why.
# Environment: JOBS (default nproc), those of install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/env.sh
supp=$PWD/scripts/sanitizers
# abort_on_error: a report ends the rank with SIGABRT, which mpiexec turns into a failed job.
# detect_leaks: LeakSanitizer at exit. fast_unwind_on_malloc=0: Open MPI's plugins are built
# without frame pointers, so the fast unwinder stops inside them and the stack never reaches
# the libmpi/libopen-* frame a suppression can match (their own frames are <unknown module>
# after MPI_Finalize dlcloses them). strict_string_checks, check_initialization_order,
# detect_stack_use_after_return: extra checks, cheap at these sizes.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# fuzz_config: 2000 cases here (about 40 s; the Release suite runs 6000).
export MINIAPP_FUZZ_CASES=${MINIAPP_FUZZ_CASES:-2000}
start=$(date +%s)
cmake --preset asan >/dev/null
cmake --build build-asan -j "${JOBS:-$(nproc)}" --target miniapp miniapp_tests miniapp_fuzz_config
built=$(date +%s)
cd build-asan
ctest -L sanitize --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 300 "$@"
end=$(date +%s)
echo "sanitizer stage: build $((built - start)) s, tests $((end - built)) s"
