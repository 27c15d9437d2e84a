#!/usr/bin/env bash
# Install everything miniapp needs on Debian 12 / Ubuntu (idempotent; root or sudo).
#
#   scripts/install-deps.sh            # Debian packages + Kokkos (OpenMP+Serial) into $KOKKOS_PREFIX
#
# Environment:
#   KOKKOS_PREFIX     where to install Kokkos (default /opt/miniapp/kokkos, outside the repo)
#   Kokkos_ROOT       a Kokkos you already have (Spack kokkos+openmp, a module): used as is,
#                     nothing is built. Likewise if CMake can already find an OpenMP Kokkos
#                     at $KOKKOS_PREFIX.
#   MINIAPP_SKIP_APT  set to 1 to skip the Debian packages (e.g. on a cluster with modules)
#   MINIAPP_WITH_PEERS set to 1 to also install the optional comparison peers
#                     (petsc-dev, libfftw3-mpi-dev, python3-mpi4py-fft)
#
# Debian 12's libtrilinos-kokkos-dev is built with the Serial backend only, so it cannot run
# MPI ranks x OpenMP threads; we build Kokkos 3.4.01 from Debian's own trilinos source package.
set -euo pipefail

KOKKOS_PREFIX=${KOKKOS_PREFIX:-/opt/miniapp/kokkos}
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
log() { printf '[install-deps] %s\n' "$*"; }

packages=(
  build-essential cmake pkg-config git ca-certificates dpkg-dev xz-utils
  libopenmpi-dev openmpi-bin
  libhdf5-openmpi-dev hdf5-tools
  libcli11-dev libfftw3-dev libgtest-dev
  libtomlplusplus-dev nlohmann-json3-dev  # the app: TOML input files, the JSON report
  python3 python3-numpy python3-h5py python3-matplotlib python3-jsonschema
  clang-tidy-14  # scripts/lint.sh (the sanitizers use GCC's own libasan/libubsan)
)
if [ "${MINIAPP_WITH_PEERS:-0}" = 1 ]; then
  packages+=(petsc-dev libfftw3-mpi-dev python3-mpi4py-fft python3-mpi4py)
fi

apt_stamp=/var/lib/apt/periodic/miniapp-update-stamp
if [ "${MINIAPP_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    log "Debian packages already installed"
  fi
fi

# ---- Kokkos -------------------------------------------------------------------------------
if [ -n "${Kokkos_ROOT:-}" ]; then
  log "using your Kokkos at Kokkos_ROOT=$Kokkos_ROOT (nothing built)"
  exit 0
fi
if [ -f "$KOKKOS_PREFIX/include/KokkosCore_config.h" ] &&
   grep -q '^#define KOKKOS_ENABLE_OPENMP' "$KOKKOS_PREFIX/include/KokkosCore_config.h"; then
  log "Kokkos with OpenMP already installed in $KOKKOS_PREFIX"
  exit 0
fi

log "building Kokkos (OpenMP + Serial) from Debian's trilinos source into $KOKKOS_PREFIX"
work=$(mktemp -d /tmp/miniapp-kokkos.XXXXXX)
chmod 755 "$work"   # apt-get source downloads as the unprivileged _apt user
trap 'rm -rf "$work"' EXIT

# deb-src entry for bookworm (Debian's own archive), added once.
src_list=/etc/apt/sources.list.d/miniapp-deb-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  log "adding a deb-src entry for bookworm"
  $SUDO tee "$src_list" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  $SUDO apt-get update -q
fi

cd "$work"
apt-get source --download-only trilinos >/dev/null
orig=$(ls trilinos_*.orig.tar.* | head -n 1)
log "extracting packages/kokkos from $orig"
tar -xf "$orig" --wildcards '*/packages/kokkos/*'
src=$(dirname "$(find . -path '*/packages/kokkos/CMakeLists.txt' | head -n 1)")

cmake -S "$src" -B build -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$KOKKOS_PREFIX" \
  -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
  -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_TESTS=OFF -DBUILD_SHARED_LIBS=ON >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
$SUDO cmake --install build >/dev/null
log "Kokkos installed in $KOKKOS_PREFIX"
