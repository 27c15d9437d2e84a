#!/usr/bin/env bash
# Install everything miniapp needs on Debian 12 / Ubuntu (root or sudo). Running it again
# changes nothing: each step first checks whether its result is already there.
#
#   scripts/install-deps.sh
#
# What it does, each step printed with its time:
#   1. Debian packages: compilers, CMake, Open MPI, parallel HDF5, CLI11, FFTW, GoogleTest, the
#      Python plotting modules, clang-tidy, Slurm and munge (for the real-Slurm test), ParaView's
#      Python module (for the test that opens the checkpoints' XDMF time series), only those not
#      installed yet (apt-get install --no-install-recommends).
#   2. Kokkos with the OpenMP backend, unless one is there already (Kokkos_ROOT, or
#      $KOKKOS_PREFIX). Debian's libtrilinos-kokkos-dev has the Serial backend only (one
#      thread per rank), so Kokkos 3.4.01 is built from Debian's own trilinos *source* package.
#      `apt-get source` needs a deb-src entry: when your apt sources have none for this release,
#      one is added, derived from your own `deb` entries (the same mirrors, suites and keys, in
#      the same format: deb822 .sources or one-line .list), in
#      /etc/apt/sources.list.d/miniapp-deb-src.{sources,list}, and shown.
#
# Environment:
#   KOKKOS_PREFIX      where to install Kokkos (default /opt/miniapp/kokkos, outside the repo)
#   Kokkos_ROOT        a Kokkos you already have (Spack kokkos+openmp, a module): checked for a
#                      parallel host backend and used as is, nothing is built
#   MINIAPP_SKIP_APT   set to 1 to skip the Debian packages (e.g. on a cluster with modules)
#   MINIAPP_WITH_SLURM set to 0 to leave out slurm-wlm and munge (installing them on a host with
#                      systemd enables their services)
#   MINIAPP_WITH_PARAVIEW set to 0 to leave out python3-paraview (about 80 MB to download and
#                      0.8 GB installed; without it checkpoint.paraview_time_series is skipped)
#   MINIAPP_WITH_PEERS set to 1 to also install the optional comparison peers
#                      (petsc-dev, libfftw3-mpi-dev, python3-mpi4py-fft)
set -euo pipefail

KOKKOS_PREFIX=${KOKKOS_PREFIX:-/opt/miniapp/kokkos}
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
t_start=$SECONDS
log() { printf '[install-deps %4ds] %s\n' "$((SECONDS - t_start))" "$*"; }
step_t=0
step() { step_t=$SECONDS; log "$*"; }
step_done() { log "  done in $((SECONDS - step_t)) s${1:+: $1}"; }

packages=(
  build-essential cmake pkg-config git ca-certificates dpkg-dev xz-utils
  libopenmpi-dev openmpi-bin
  libhdf5-openmpi-dev hdf5-tools
  libcli11-dev libfftw3-dev libgtest-dev
  libtomlplusplus-dev nlohmann-json3-dev  # the app: TOML input files, the JSON report
  python3 python3-numpy python3-h5py python3-matplotlib python3-jsonschema
  clang-tidy-14  # scripts/lint.sh (the sanitizers use GCC's own libasan/libubsan)
)
if [ "${MINIAPP_WITH_SLURM:-1}" != 0 ]; then
  packages+=(slurm-wlm munge)  # tests/slurm_real.sh: a one-node Slurm (scripts/slurm-local.sh)
fi
if [ "${MINIAPP_WITH_PARAVIEW:-1}" != 0 ]; then
  packages+=(python3-paraview)  # tests/checkpoint_paraview.sh: Xdmf3ReaderT reads the series
fi
if [ "${MINIAPP_WITH_PEERS:-0}" = 1 ]; then
  packages+=(petsc-dev libfftw3-mpi-dev python3-mpi4py-fft python3-mpi4py)
fi

# ---- deb-src entries derived from the machine's own apt sources, for `apt-get source` --------
# Prints the deb-src stanzas (deb822) for every enabled "deb" stanza with a suite of this release
# (CODENAME or CODENAME-*); every other field is kept. Prints HAVE-DEB-SRC instead when a
# deb-src stanza for this release is already enabled.
derive_deb822() {
  awk -v rel="$codename" '
    function suite_ok(s) { return s == rel || index(s, rel "-") == 1 }
    function flush(   i, n, t, s, out, keep, has_deb, has_src, enabled) {
      if (nf == 0) return
      has_deb = 0; has_src = 0; enabled = 1; out = ""
      n = split(val["types"], t, /[ \t]+/)
      for (i = 1; i <= n; i++) { if (t[i] == "deb") has_deb = 1; if (t[i] == "deb-src") has_src = 1 }
      if (tolower(val["enabled"]) ~ /^(no|false|0)$/) enabled = 0
      n = split(val["suites"], s, /[ \t]+/)
      for (i = 1; i <= n; i++) if (suite_ok(s[i])) out = out (out == "" ? "" : " ") s[i]
      if (enabled && has_src && out != "") found_src = 1
      if (enabled && has_deb && out != "") {
        stanza = stanza "Types: deb-src\n"
        for (i = 1; i <= nf; i++) {
          k = tolower(key[i])
          if (k == "types" || k == "architectures" || k == "enabled") continue
          if (k == "suites") stanza = stanza "Suites: " out "\n"
          else stanza = stanza raw[i]
        }
        stanza = stanza "\n"
      }
      nf = 0; delete val
    }
    FNR == 1 { flush() }
    /^#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^[ \t]/ { if (nf) { raw[nf] = raw[nf] $0 "\n"; val[tolower(key[nf])] = val[tolower(key[nf])] " " $0 }; next }
    {
      nf++; key[nf] = $0; sub(/:.*/, "", key[nf]); raw[nf] = $0 "\n"
      v = $0; sub(/^[^:]*:[ \t]*/, "", v); val[tolower(key[nf])] = v
    }
    END { flush(); if (found_src) print "HAVE-DEB-SRC"; else printf "%s", stanza }
  ' "$@"
}
# The same for one-line entries: "deb [options] URI SUITE COMPONENT..." becomes deb-src (the
# arch= option dropped).
derive_one_line() {
  awk -v rel="$codename" '
    function suite_ok(s) { return s == rel || index(s, rel "-") == 1 }
    /^[ \t]*#/ || NF < 3 { next }
    {
      type = $1; opts = ""; i = 2
      if ($2 ~ /^\[/) { while (i <= NF) { opts = opts (opts == "" ? "" : " ") $i; if ($i ~ /\]$/) { i++; break }; i++ } }
      uri = $i; suite = $(i + 1); comps = ""
      for (j = i + 2; j <= NF; j++) comps = comps " " $j
      if (!suite_ok(suite)) next
      if (type == "deb-src") { found_src = 1; next }
      if (type != "deb") next
      gsub(/\[|\]/, "", opts); o = ""
      n = split(opts, a, /[ \t]+/)
      for (k = 1; k <= n; k++) if (a[k] != "" && a[k] !~ /^arch=/) o = o (o == "" ? "" : " ") a[k]
      lines = lines "deb-src " (o == "" ? "" : "[" o "] ") uri " " suite comps "\n"
    }
    END { if (found_src) print "HAVE-DEB-SRC"; else printf "%s", lines }
  ' "$@"
}
# The deb-src entries for FILES (default: this machine's apt sources, without our own file), in
# two variables: new822 (deb822) and newline (one-line); src_present=1 when one is enabled.
derive_deb_src() {
  local f
  deb822_files=() line_files=()
  for f in "$@"; do
    case "$f" in *.sources) deb822_files+=("$f") ;; *) line_files+=("$f") ;; esac
  done
  new822="" newline="" src_present=0
  [ ${#deb822_files[@]} = 0 ] || new822=$(derive_deb822 "${deb822_files[@]}")
  [ ${#line_files[@]} = 0 ] || newline=$(derive_one_line "${line_files[@]}")
  if [ "$new822" = HAVE-DEB-SRC ]; then src_present=1 new822=""; fi
  if [ "$newline" = HAVE-DEB-SRC ]; then src_present=1 newline=""; fi
  return 0
}
[ -f /etc/os-release ] && . /etc/os-release
codename=${MINIAPP_CODENAME:-${VERSION_CODENAME:-}}
own=/etc/apt/sources.list.d/miniapp-deb-src
other_sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && [ "$f" != "$own.sources" ] && [ "$f" != "$own.list" ] && other_sources+=("$f")
done
header="# Written by miniapp's scripts/install-deps.sh: source entries matching your own apt sources
# (same mirrors, suites and keys), for 'apt-get source trilinos'. Safe to delete."

# --show-deb-src [FILE...]: print the deb-src entries step 2a would add, change nothing.
if [ "${1:-}" = --show-deb-src ]; then
  shift
  [ $# -gt 0 ] || set -- "${other_sources[@]}"
  derive_deb_src "$@"
  if [ "$src_present" = 1 ]; then echo "# a deb-src entry for $codename is already enabled"; exit 0; fi
  [ -z "$new822" ] || printf '# deb822 (%s.sources)\n%s\n' "$own" "$new822"
  [ -z "$newline" ] || printf '# one-line (%s.list)\n%s\n' "$own" "$newline"
  exit 0
fi

# ---- 1. Debian packages -----------------------------------------------------------------------
if [ "${MINIAPP_SKIP_APT:-0}" != 1 ]; then
  step "step 1: Debian packages (${#packages[@]})"
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "  installing: ${missing[*]}"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
    step_done "${#missing[@]} installed"
  else
    step_done "all already installed"
  fi
else
  log "step 1: Debian packages skipped (MINIAPP_SKIP_APT=1)"
fi

# ---- 2. Kokkos --------------------------------------------------------------------------------
# A Kokkos install's configuration header says which backends it has.
kokkos_config() { find "$1" -maxdepth 3 -name KokkosCore_config.h 2> /dev/null | head -n 1 || true; }
has_parallel_backend() { grep -Eq '^#define KOKKOS_ENABLE_(OPENMP|THREADS|HPX)\b' "$1"; }

step "step 2: Kokkos with a parallel host backend"
if [ -n "${Kokkos_ROOT:-}" ]; then
  cfg=$(kokkos_config "$Kokkos_ROOT")
  if [ -z "$cfg" ]; then
    log "  Kokkos_ROOT=$Kokkos_ROOT: no KokkosCore_config.h found to check; used as is"
  elif has_parallel_backend "$cfg"; then
    step_done "using your Kokkos at Kokkos_ROOT=$Kokkos_ROOT (nothing built)"
  else
    echo "install-deps: Kokkos_ROOT=$Kokkos_ROOT has no OpenMP/Threads backend ($cfg): every" \
      "rank would run one thread. Point Kokkos_ROOT at a Kokkos with OpenMP (Spack: kokkos+openmp)," \
      "or unset it to build one into $KOKKOS_PREFIX." >&2
    exit 1
  fi
  exit 0
fi
cfg=$(kokkos_config "$KOKKOS_PREFIX/include")
if [ -n "$cfg" ] && has_parallel_backend "$cfg"; then
  step_done "already installed in $KOKKOS_PREFIX"
  exit 0
fi
if [ -f /usr/include/kokkos/KokkosCore_config.h ] || [ -f /usr/include/KokkosCore_config.h ]; then
  log "  Debian's Kokkos (libtrilinos-kokkos-dev, Serial backend only) is ignored: miniapp needs OpenMP"
fi
log "  building Kokkos (OpenMP + Serial) from Debian's trilinos source package into $KOKKOS_PREFIX"

[ -n "$codename" ] || { echo "install-deps: no VERSION_CODENAME in /etc/os-release" >&2; exit 1; }
derive_deb_src "${other_sources[@]}"
step "step 2a: a deb-src entry for $codename (for apt-get source trilinos)"
changed=0
write_if_changed() {  # FILE CONTENT
  local file=$1 content=$2
  if [ -f "$file" ] && [ "$(cat "$file")" = "$content" ]; then return 0; fi
  printf '%s\n' "$content" | $SUDO tee "$file" > /dev/null
  changed=1
  log "  wrote $file:"
  sed 's/^/      /' "$file"
}
if [ "$src_present" = 1 ]; then
  $SUDO rm -f "$own.sources" "$own.list"
  step_done "your apt sources already have one"
elif [ -z "$new822$newline" ]; then
  echo "install-deps: no enabled 'deb' entry for $codename in your apt sources" \
    "(${other_sources[*]:-none}): add a deb-src line for Debian's archive or your mirror" \
    "by hand, or install Kokkos with OpenMP yourself and set Kokkos_ROOT." >&2
  exit 1
else
  if [ -n "$new822" ]; then write_if_changed "$own.sources" "$header
$new822"; else $SUDO rm -f "$own.sources"; fi
  if [ -n "$newline" ]; then write_if_changed "$own.list" "$header
$newline"; else $SUDO rm -f "$own.list"; fi
  if [ "$changed" = 1 ]; then
    $SUDO apt-get update -q
    step_done "added and apt-get update run"
  else
    step_done "already there ($own.*)"
  fi
fi

step "step 2b: download the trilinos source package (only packages/kokkos is used)"
work=$(mktemp -d /tmp/miniapp-kokkos.XXXXXX)
chmod 755 "$work"  # apt-get source downloads as the unprivileged _apt user
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source --download-only trilinos > apt-source.log 2>&1 || { cat apt-source.log >&2; exit 1; }
orig=$(ls trilinos_*.orig.tar.* | head -n 1)
tar -xf "$orig" --wildcards '*/packages/kokkos/*'
src=$(dirname "$(find . -path '*/packages/kokkos/CMakeLists.txt' | head -n 1)")
step_done "$orig"

step "step 2c: configure and build Kokkos (OpenMP + Serial), progress every 10 %"
cmake -S "$src" -B build -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$KOKKOS_PREFIX" \
  -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
  -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_TESTS=OFF -DBUILD_SHARED_LIBS=ON > configure.log 2>&1 ||
  { tail -n 30 configure.log >&2; exit 1; }
cmake --build build -j "$(nproc)" 2>&1 | tee build.log |
  awk '/^\[ *[0-9]+%\]/ { p = substr($0, 2) + 0; if (p >= next_p) { print "      [" p "%]"; fflush(); next_p = p - p % 10 + 10 } }' ||
  { tail -n 30 build.log >&2; exit 1; }
step_done

step "step 2d: install Kokkos into $KOKKOS_PREFIX"
$SUDO cmake --install build > install.log 2>&1 || { tail -n 30 install.log >&2; exit 1; }
step_done
log "finished in $((SECONDS - t_start)) s"
