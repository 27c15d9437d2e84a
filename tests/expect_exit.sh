#!/usr/bin/env bash
# expect_exit.sh CODE REGEX [--once] [--absent REGEX2] -- COMMAND...
# (an argument @EMPTY@ is passed as "")
# Run COMMAND; pass when it exits with CODE within the ctest timeout and its combined output
# matches the regex REGEX, searched in the whole output (see below); with --once, the
# 'miniapp: error:' line must appear exactly once, i.e. only rank 0 printed it; with --absent,
# REGEX2 must match nowhere in it. (CTest's FAIL_REGULAR_EXPRESSION cannot say that here: it
# sees this script's output, which holds the command's only when the test fails.)
set -u
code=$1 regex=$2
shift 2
once=0 absent=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in
    --once) once=1; shift ;;
    --absent) absent=$2; shift 2 ;;
    *) echo "expect_exit.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "${1:-}" = -- ] && shift
# An argument @EMPTY@ stands for an empty string (a CMake list cannot carry one).
args=()
for a in "$@"; do
  if [ "$a" = @EMPTY@ ]; then args+=(""); else args+=("$a"); fi
done
set -- "${args[@]}"
command="$*"
out=$("$@" 2>&1)
rc=$?
fail() { printf 'FAIL: %s\n--- command: %s\n--- exit %s, output:\n%s\n' "$1" "$command" "$rc" "$out"; exit 1; }
[ "$rc" = "$code" ] || fail "exit status $rc, expected $code"
# The regex is searched in the whole output, not line by line: a newline in it is a newline
# ('\n' in CMake), '.' crosses lines and ^/$ anchor at each line (grep -E would take a
# newline as the end of one pattern and pass on any of the pieces). Python's re reads the
# extended regexes used here the same way.
matches() {
  python3 -c 'import re, sys
sys.exit(0 if re.search(sys.argv[1], sys.stdin.read(), re.M | re.S) else 1)' "$1"
}
printf '%s\n' "$out" | matches "$regex" || fail "output does not match /$regex/"
if [ -n "$absent" ] && printf '%s\n' "$out" | matches "$absent"; then
  fail "output matches /$absent/, which must be absent"
fi
if [ $once = 1 ]; then
  n=$(printf '%s\n' "$out" | grep -c 'miniapp: error:')
  [ "$n" = 1 ] || fail "'miniapp: error:' printed $n times, expected once"
fi
printf '%s\n' "$out" | grep -Eq 'Backtrace|Segmentation|core dumped|terminate called' &&
  fail "crash trace in output"
echo "ok: exit $rc, output matches /$regex/"
