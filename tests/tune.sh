#!/usr/bin/env bash
# miniapp tune: a tiny budget on a tiny grid measures candidates that all reach the baseline's
# digest, and writes a TOML input that runs with the winner's settings and reproduces the
# digest of a run with the default settings.
source "$(dirname "$0")/checkpoint_lib.sh"
P=(--grid 16 12 10 --bc periodic neumann dirichlet --steps 24)
out=$(miniapp 2 tune "${P[@]}" --budget 3 --output "$WORK/tuned.toml" 2>&1) ||
  { printf '%s\n' "$out"; fail "miniapp tune failed"; }
printf '%s\n' "$out"
rows=$(grep -cE '^  (dim-ordered|neighbors26|neighbor-coll|faces) ' <<< "$out" || true)
[ "$rows" -ge 3 ] || fail "the table has $rows candidate rows, expected at least 3"
grep -q 'REFUSED' <<< "$out" && fail "a candidate reached another digest"
grep -q '^winner: ' <<< "$out" || fail "no winner line"
[ -s "$WORK/tuned.toml" ] || fail "no tuned.toml"
for key in grid bc halo pack halo-width overlap temporal-blocking ranks steps; do
  grep -q "^$key = " "$WORK/tuned.toml" || fail "tuned.toml has no key $key"
done
ref=$(digest 2 "${P[@]}")
got=$(digest 2 --config "$WORK/tuned.toml")
[ "$got" = "$ref" ] || fail "the tuned input gives digest $got, the default settings $ref"
echo "ok: $rows candidates, the tuned input reproduces digest $ref"
