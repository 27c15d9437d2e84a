#!/usr/bin/env bash
# A checkpoint that cannot be written (here: a file-size limit, as a full disk would) ends
# the run with a message and a non-zero status; the previous checkpoint stays complete and a
# restart from it reproduces the uninterrupted run.
source "$(dirname "$0")/checkpoint_lib.sh"
P=(--grid 64 64 64 --checkpoint-every 2 --checkpoint-dir "$WORK/ck")
ref=$(digest 2 --grid 64 64 64 --steps 8)
digest 2 "${P[@]}" --steps 4 > /dev/null
# Ranks limited to 1 MiB files (SIGXFSZ ignored, so write() fails with EFBIG); the
# checkpoint is 2 MiB.
set +e
out=$("${MPIEXEC[@]}" -n 2 bash -c 'trap "" XFSZ; ulimit -f 1024; exec "$0" "$@"' "$MINIAPP" \
  "${P[@]}" --steps 8 --restart latest 2>&1)
rc=$?
set -e
printf '%s\n' "$out" | grep 'miniapp: error' || true
[ "$rc" != 0 ] || fail "the run with a full disk exited 0"
grep -q "writing the checkpoint of step 6 failed.*previous checkpoints in .* are kept" <<< "$out" ||
  { printf '%s\n' "$out"; fail "no clear message about the failed checkpoint"; }
[ -f "$WORK/ck/checkpoint_0000000004.h5" ] || fail "the previous checkpoint is gone"
[ ! -f "$WORK/ck/checkpoint_0000000006.h5" ] || fail "an incomplete checkpoint got the final name"
got=$(digest 2 --steps 8 --restart latest --checkpoint-dir "$WORK/ck")
[ "$got" = "$ref" ] || fail "restart from the kept checkpoint: digest $got, uninterrupted $ref"
echo "ok: exit $rc with a message; checkpoint 4 kept and restarts to digest $got"
