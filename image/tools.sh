#!/usr/bin/env bash
# Builds the image tools into a cache directory keyed by their versions (never into the
# repository, never installed system-wide) and prints that directory:
#   crane  from go-containerregistry's Go module (writes and reads the OCI image)
#   runc   Debian's package, unpacked with dpkg-deb -x (runs the image in the end-to-end test)
# `tools.sh crane` or `tools.sh runc` makes just one of them.
set -euo pipefail

CRANE_VERSION=v0.22.1
RUNC_DEB_VERSION=1.1.5+ds1-1+deb12u1
cache_root=${STEPWISE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise}
out=${STEPWISE_IMAGE_TOOLS:-$cache_root/tools-crane-$CRANE_VERSION-runc-${RUNC_DEB_VERSION%%+*}}
want=("${@:-crane runc}")
read -r -a want <<<"${want[*]}"

say() { printf '[image-tools %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

missing=()
for b in "${want[@]}"; do [ -x "$out/$b" ] || missing+=("$b"); done
if [ ${#missing[@]} -eq 0 ]; then echo "$out"; exit 0; fi
mkdir -p "$out"

start=$(date +%s)
( while sleep 30; do say "still working ($(( $(date +%s) - start ))s so far; a cold crane build takes 1-3 min on 2 cores)"; done ) &
beat=$!
trap 'kill $beat 2>/dev/null || true' EXIT

build_crane() {
  say "building crane from github.com/google/go-containerregistry/cmd/crane@$CRANE_VERSION"
  rm -rf "$out/.gobin"
  CGO_ENABLED=0 GOBIN="$out/.gobin" GOFLAGS=-buildvcs=false go install -trimpath -ldflags "-s -w" \
    "github.com/google/go-containerregistry/cmd/crane@$CRANE_VERSION"
  mv "$out/.gobin/crane" "$out/crane"
  rmdir "$out/.gobin"
}

# apt-get download needs no root and installs nothing; the version is pinned so the cache key
# means what it says (apt-get update first if the package lists are missing).
unpack_runc() {
  say "unpacking Debian's runc $RUNC_DEB_VERSION (apt-get download + dpkg-deb -x)"
  local tmp; tmp=$(mktemp -d)
  if ! (cd "$tmp" && apt-get download "runc=$RUNC_DEB_VERSION" >&2); then
    say "apt-get download failed; refreshing the package lists (needs root) and trying once more"
    apt-get update >&2 || true
    # A newer Debian update of runc replaces the pinned one in the archive: take the current one.
    (cd "$tmp" && { apt-get download "runc=$RUNC_DEB_VERSION" >&2 || apt-get download runc >&2; })
  fi
  dpkg-deb -x "$tmp"/runc_*.deb "$tmp/root"
  cp "$tmp/root/usr/sbin/runc" "$out/runc.tmp"
  mv "$out/runc.tmp" "$out/runc"
  rm -rf "$tmp"
}

for b in "${missing[@]}"; do
  t0=$(date +%s)
  case $b in
    crane) build_crane ;;
    runc) unpack_runc ;;
    *) say "unknown tool $b (crane, runc)"; exit 2 ;;
  esac
  case $b in
    crane) version=$("$out/crane" version 2>&1) ;;
    runc) version=$("$out/runc" --version 2>&1 | head -1) ;;
  esac
  say "$b ready in $(( $(date +%s) - t0 ))s: $version"
done
echo "$out"
