#!/usr/bin/env bash
# Restart equivalence: N steps in one run equal N/2 steps + checkpoint + restart + N/2 steps,
# bit for bit (same digest), when the restart runs on another number of ranks: 8->1, 1->4,
# 2->3. The restart is given no physics options: it takes them from the file.
# Extra arguments (a halo mode, width, stencil) are passed to every run, the restarts too.
source "$(dirname "$0")/checkpoint_lib.sh"
X=("$@")
P=(--grid 13 10 9 --bc periodic dirichlet neumann --bc-value 0.25 --kappa 1 0.5 0.25 --dt 0.1 "${X[@]}")
N=12
ref=$(digest 2 "${P[@]}" --steps $N)
[ -n "$ref" ] || fail "no digest in the uninterrupted run"
echo "uninterrupted $N steps on 2 ranks: digest $ref"
for pair in "8 1" "1 4" "2 3"; do
  read -r a b <<< "$pair"
  dir=$WORK/from$a-to$b
  first=$(digest "$a" "${P[@]}" --steps $((N / 2)) --checkpoint-every $((N / 2)) --checkpoint-dir "$dir")
  [ -f "$dir/checkpoint_0000000006.h5" ] || fail "$a ranks wrote no checkpoint of step 6"
  got=$(digest "$b" --steps $N --restart latest --checkpoint-dir "$dir" "${X[@]}")
  [ "$got" = "$ref" ] || fail "$a ranks for $((N / 2)) steps (digest $first) + restart on $b ranks: digest $got, uninterrupted $ref"
  echo "ok: $a ranks x $((N / 2)) steps + restart on $b ranks x $((N / 2)) steps: digest $got"
done
