# Sourced by the scripts: environment for running miniapp with Open MPI on this machine.
# - Open MPI refuses root unless told (CI and containers run as root).
# - More ranks than cores need oversubscription; binding ranks to cores then hurts.
# - Kokkos warns unless OMP_PROC_BIND/OMP_PLACES are set; scripts set them deliberately.
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
: "${OMP_NUM_THREADS:=1}"
: "${OMP_PROC_BIND:=spread}"
: "${OMP_PLACES:=threads}"
export OMP_NUM_THREADS OMP_PROC_BIND OMP_PLACES
MINIAPP_BUILD_DIR=${MINIAPP_BUILD_DIR:-${BUILD_DIR:-build}}
MINIAPP_BIN=${MINIAPP_BIN:-$MINIAPP_BUILD_DIR/miniapp/miniapp}

# miniapp_build: configure and build (Release) into $MINIAPP_BUILD_DIR.
miniapp_build() {
  cmake -S . -B "$MINIAPP_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$MINIAPP_BUILD_DIR" -j "${JOBS:-$(nproc)}"
}
