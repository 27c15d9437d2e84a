#!/usr/bin/env bash
# install_deb_src.sh: scripts/install-deps.sh derives its deb-src entries from the machine's own
# apt sources (--show-deb-src prints them, changing nothing): the same mirror, suites of this
# release only, every other field (keys, inline or not) kept, Architectures and arch= dropped,
# disabled entries and other releases' repositories left out, nothing when a deb-src exists.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
show() { MINIAPP_CODENAME=bookworm "$root/scripts/install-deps.sh" --show-deb-src "$@"; }

cat > "$tmp/mirror.sources" << 'SRC'
Types: deb
# a snapshot mirror
URIs: http://mirror.example.org/debian
Suites: bookworm bookworm-updates
Components: main contrib
Architectures: amd64
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBFxyz
 -----END PGP PUBLIC KEY BLOCK-----

Types: deb
Enabled: no
URIs: http://disabled.example.org/debian
Suites: bookworm
Components: main

Types: deb
URIs: https://deb.nodesource.com/node_20.x
Suites: nodistro
Components: main
SRC
cat > "$tmp/one.list" << 'SRC'
deb [arch=amd64 signed-by=/usr/share/keyrings/site.gpg] http://proxy.example.org:3142/debian bookworm main
deb http://security.example.org/debian-security bookworm-security main
# deb-src http://proxy.example.org:3142/debian bookworm main
deb https://packages.cloud.google.com/apt cloud-sdk-bookworm main
SRC
out=$(show "$tmp/mirror.sources" "$tmp/one.list")
echo "$out"
expected=$(cat << 'EXP'
# deb822 (/etc/apt/sources.list.d/miniapp-deb-src.sources)
Types: deb-src
URIs: http://mirror.example.org/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBFxyz
 -----END PGP PUBLIC KEY BLOCK-----
# one-line (/etc/apt/sources.list.d/miniapp-deb-src.list)
deb-src [signed-by=/usr/share/keyrings/site.gpg] http://proxy.example.org:3142/debian bookworm main
deb-src http://security.example.org/debian-security bookworm-security main
EXP
)
[ "$out" = "$expected" ] || fail "derived entries differ from the expected ones above"

# An enabled deb-src for this release already: nothing to add.
echo "deb-src http://proxy.example.org:3142/debian bookworm main" >> "$tmp/one.list"
out=$(show "$tmp/mirror.sources" "$tmp/one.list")
[ "$out" = "# a deb-src entry for bookworm is already enabled" ] || fail "an existing deb-src was not seen: $out"
printf 'Types: deb deb-src\nURIs: http://m.example.org/debian\nSuites: bookworm\nComponents: main\n' > "$tmp/both.sources"
out=$(show "$tmp/both.sources")
[ "$out" = "# a deb-src entry for bookworm is already enabled" ] || fail "Types: deb deb-src was not seen: $out"
echo "ok: deb-src entries follow the apt sources given"
