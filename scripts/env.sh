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
# Open MPI: ROMIO reads and writes miniapp's strided checkpoint selections several times faster
# than the default OMPIO here (miniapp bench io: read 0.11x -> 0.84x of raw, write 0.59x ->
# 1.16x). Other MPIs ignore the variable; a value you set wins.
export OMPI_MCA_io=${OMPI_MCA_io:-romio321}
MINIAPP_BUILD_DIR=${MINIAPP_BUILD_DIR:-${BUILD_DIR:-build}}
MINIAPP_BIN=${MINIAPP_BIN:-$MINIAPP_BUILD_DIR/miniapp/miniapp}

# miniapp_build: configure and build (Release) into $MINIAPP_BUILD_DIR.
miniapp_build() {
  cmake -S . -B "$MINIAPP_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$MINIAPP_BUILD_DIR" -j "${JOBS:-$(nproc)}"
}
