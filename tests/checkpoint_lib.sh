# Shared by the checkpoint test scripts (sourced). The environment comes from ctest:
#   MINIAPP_EXE      the miniapp binary
#   MINIAPP_MPIEXEC  mpiexec and its flags, space separated (the -n N is added here)
#   MINIAPP_PYTHON   python3 with h5py (only the damaged-file setup needs it)
# and, to investigate a failure by hand:
#   MINIAPP_KEEP_WORK=1  keep the scratch directory (logs, checkpoints) of a failed run
#
# Scripts that signal or kill a run wait for states they can observe (a line in the run's log,
# a checkpoint file, the rank processes' signal masks), never for a guessed time: a launch can
# take seconds longer on a slow or loaded machine. Time bounds here only catch hangs.
set -euo pipefail
read -r -a MPIEXEC <<< "${MINIAPP_MPIEXEC:?set by ctest}"
MINIAPP=${MINIAPP_EXE:?set by ctest}
WORK=$(mktemp -d "$PWD/checkpoint-test.XXXXXX")
# Runs started in the background (scripts add their launcher's PID): one still running when
# the script ends (after a failure) is SIGKILLed, ranks first.
LAUNCHERS=()
# shellcheck disable=SC2154
trap 'rc=$?; stop_runs; if [ "$rc" != 0 ] && [ -n "${MINIAPP_KEEP_WORK:-}" ]; then
  echo "kept $WORK" >&2; else rm -rf "$WORK"; fi' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# miniapp NP ARGS...: run the binary on NP ranks.
miniapp() { local np=$1; shift; "${MPIEXEC[@]}" -n "$np" "$MINIAPP" "$@"; }

# digest NP ARGS...: run and print the field digest of the report (fails on a failed run).
digest() {
  local out
  out=$(miniapp "$@" 2>&1) || { printf '%s\n' "$out" >&2; fail "run failed: np $*"; }
  sed -n 's/^digest //p' <<< "$out"
}

# rank_pids LAUNCHER: the miniapp processes started by this launcher (its descendants that run
# $MINIAPP, however many wrappers lie in between), one PID a line.
rank_pids() {
  local exe p c
  local -a pending=("$1")
  exe=$(readlink -f "$MINIAPP")
  while ((${#pending[@]})); do
    p=${pending[0]}
    pending=("${pending[@]:1}")
    for c in $(pgrep -P "$p" || true); do
      pending+=("$c")
      if [ "$(readlink "/proc/$c/exe" 2> /dev/null)" = "$exe" ]; then echo "$c"; fi
    done
  done
}

# stop_runs: SIGKILL what still runs of the runs in LAUNCHERS.
stop_runs() {
  local l
  for l in "${LAUNCHERS[@]}"; do
    if kill -0 "$l" 2> /dev/null; then
      # shellcheck disable=SC2046
      kill -9 $(rank_pids "$l") "$l" 2> /dev/null || true
    fi
  done
}

# signal_mask PID FIELD: the hex mask FIELD (SigCgt: caught, ShdPnd/SigPnd: pending) of a
# process, 0 when it is gone.
signal_mask() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2> /dev/null || echo 0; }

# has_bit MASK SIGNAL: whether the mask holds the signal (bit SIGNAL-1).
has_bit() { (((0x${1:-0} >> ($2 - 1)) & 1)); }

# signal_pending PID SIGNAL: whether SIGNAL waits for delivery to the (stopped) process.
signal_pending() {
  has_bit "$(signal_mask "$1" ShdPnd)" "$2" || has_bit "$(signal_mask "$1" SigPnd)" "$2"
}

# wait_for_line FILE REGEX LAUNCHER: wait until FILE has a line matching REGEX; fail (showing
# FILE) when the launcher ends first or after 300 s (a hang).
wait_for_line() {
  local end=$((SECONDS + 300))
  until grep -Eq -- "$2" "$1" 2> /dev/null; do
    kill -0 "$3" 2> /dev/null || { cat "$1" 2> /dev/null; fail "the run ended before printing /$2/"; }
    ((SECONDS < end)) || { cat "$1" 2> /dev/null; fail "no line /$2/ after 300 s"; }
    sleep 0.01
  done
}
