#!/usr/bin/env bash
# ParaView reads the checkpoints as one field over time: tests/xdmf_paraview.py opens
# DIR/checkpoints.xmf with the reader the docs name (Xdmf3ReaderT) and checks the times and one
# value at each against h5py. Three checkpoints are written with --checkpoint-keep 2, so the
# time series must list only the two kept. Exit 77 (skipped) where ParaView's Python module is
# not installed (Debian: apt-get install python3-paraview).
source "$(dirname "$0")/checkpoint_lib.sh"
digest 2 --grid 13 10 9 --init gaussian --kappa 1 0.5 0.25 --dt 0.125 --spacing 1 2 0.5 --steps 6 \
  --checkpoint-every 2 --checkpoint-keep 2 --checkpoint-dir "$WORK/c" > /dev/null
status=0
"${MINIAPP_PYTHON:?}" "$(dirname "$0")/xdmf_paraview.py" "$WORK/c" 0.5 0.75 || status=$?
exit $status
