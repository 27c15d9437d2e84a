# Sourced by the scripts: environment for running miniapp with Open MPI on this machine.
# - Open MPI refuses root unless told (CI and containers run as root).
# - More ranks than cores need oversubscription; binding ranks to cores then hurts.
# - Kokkos warns unless OMP_PROC_BIND/OMP_PLACES are set; scripts set them deliberately.
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Cores for builds and ctest, counted before OMP_NUM_THREADS is set (nproc obeys it).
: "${JOBS:=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}"
: "${OMP_NUM_THREADS:=1}"
: "${OMP_PROC_BIND:=spread}"
: "${OMP_PLACES:=threads}"
export OMP_NUM_THREADS OMP_PROC_BIND OMP_PLACES
MINIAPP_BUILD_DIR=${MINIAPP_BUILD_DIR:-${BUILD_DIR:-build}}
MINIAPP_BIN=${MINIAPP_BIN:-$MINIAPP_BUILD_DIR/miniapp/miniapp}

# miniapp_build: configure and build (Release) into $MINIAPP_BUILD_DIR.
miniapp_build() {
  cmake -S . -B "$MINIAPP_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$MINIAPP_BUILD_DIR" -j "$JOBS"
}

# miniapp_rank_grid LAUNCH...: print "PX PY PZ", the rank grid miniapp chooses for the ranks
# that LAUNCH (a launcher and the binary) starts, an equal block each: the first line of a
# tiny `bench halo` names it.
miniapp_rank_grid() {
  "$@" bench halo --n 8 --widths 1 --modes faces --steps 1 --warmup 0 --reps 1 |
    sed -n 's/.*= \([0-9]*\) x \([0-9]*\) x \([0-9]*\),.*/\1 \2 \3/p'
}

# miniapp_python: print the first of $MINIAPP_PYTHON, /usr/bin/python3 and python3 on PATH that
# has numpy, h5py and matplotlib (the plotting scripts' modules); else print why and return 1.
miniapp_python() {
  local p
  for p in "${MINIAPP_PYTHON:-}" /usr/bin/python3 "$(command -v python3 2> /dev/null)"; do
    [ -n "$p" ] && [ -x "$p" ] || continue
    if "$p" -c 'import numpy, h5py, matplotlib' 2> /dev/null; then
      echo "$p"
      return 0
    fi
  done
  echo "no Python with numpy, h5py and matplotlib (tried ${MINIAPP_PYTHON:+$MINIAPP_PYTHON, }/usr/bin/python3, python3):" \
    "apt-get install python3-numpy python3-h5py python3-matplotlib, or set MINIAPP_PYTHON"
  return 1
}
