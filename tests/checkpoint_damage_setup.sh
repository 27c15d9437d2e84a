#!/usr/bin/env bash
# Fixture of the damaged-file tests: a good checkpoint in DIR/good and damaged copies in DIR.
# Usage: checkpoint_damage_setup.sh DIR
source "$(dirname "$0")/checkpoint_lib.sh"
dir=${1:?directory}
rm -rf "$dir"
mkdir -p "$dir/empty"
digest 2 --grid 12 10 8 --steps 2 --checkpoint-every 2 --checkpoint-dir "$dir/good" > /dev/null
"${MINIAPP_PYTHON:?}" "$(dirname "$0")/damage_checkpoint.py" "$dir/good/checkpoint_0000000002.h5" "$dir"
ls -l "$dir"
