#!/usr/bin/env bash
# Fixture of the damaged-file tests: a good checkpoint in DIR/good and damaged copies in DIR.
# Usage: checkpoint_damage_setup.sh DIR
source "$(dirname "$0")/checkpoint_lib.sh"
dir=${1:?directory}
rm -rf "$dir"
mkdir -p "$dir/empty"
digest 2 --grid 12 10 8 --steps 2 --checkpoint-every 2 --checkpoint-dir "$dir/good" > /dev/null
"${MINIAPP_PYTHON:?}" "$(dirname "$0")/damage_checkpoint.py" "$dir/good/checkpoint_0000000002.h5" "$dir"
# A 27-point checkpoint as version 0.1.0 wrote it (whose 27-point stencil rounds differently).
digest 2 --grid 12 10 8 --stencil 27 --steps 2 --checkpoint-every 2 --checkpoint-dir "$dir/good27" > /dev/null
cp "$dir/good27/checkpoint_0000000002.h5" "$dir/version010_27.h5"
"${MINIAPP_PYTHON:?}" -c 'import h5py, sys; h5py.File(sys.argv[1], "r+").attrs["miniapp_version"] = "0.1.0"' \
  "$dir/version010_27.h5"
ls -l "$dir"
