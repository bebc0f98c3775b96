#!/usr/bin/env bash
# Builds the image tools into a cache directory keyed by their versions (never into the
# repository, never installed system-wide) and prints that directory:
#   crane       from go-containerregistry's Go module (makes and reads the OCI image)
#   runc        Debian's package, unpacked with dpkg-deb -x (runs the image in the e2e test)
#   containerd  with ctr: Debian's package, unpacked (the e2e test imports the archive with it)
# `tools.sh crane` (or any of them) makes just those; no argument makes all.
set -euo pipefail

CRANE_VERSION=v0.22.1
RUNC_DEB_VERSION=1.1.5+ds1-1+deb12u1
CONTAINERD_DEB_VERSION=1.6.20~ds1-1+deb12u3
cache_root=${STEPWISE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise}
out=${STEPWISE_IMAGE_TOOLS:-$cache_root/tools-crane-$CRANE_VERSION-runc-${RUNC_DEB_VERSION%%+*}-containerd-${CONTAINERD_DEB_VERSION%%~*}}
if [ $# -eq 0 ]; then set -- crane runc containerd; fi

say() { printf '[image-tools %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

missing=()
for b in "$@"; do [ -x "$out/$b" ] || missing+=("$b"); done
if [ ${#missing[@]} -eq 0 ]; then echo "$out"; exit 0; fi
mkdir -p "$out"

start=$(date +%s)
( while sleep 30; do say "still working ($(( $(date +%s) - start ))s so far; a cold crane build takes 2-4 min on 2 cores)"; done ) &
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

# unpack_deb PACKAGE VERSION FILE...: copies FILEs (paths inside the package) into $out.
# apt-get download needs no root and installs nothing; the version is pinned so the cache key
# means what it says.
unpack_deb() {
  local package=$1 version=$2; shift 2
  say "unpacking Debian's $package $version (apt-get download + dpkg-deb -x)"
  local tmp; tmp=$(mktemp -d)
  if ! (cd "$tmp" && apt-get download "$package=$version" >&2); then
    say "apt-get download failed; refreshing the package lists (needs root) and trying once more"
    apt-get update >&2 || true
    # A Debian update replaces the pinned version in the archive: then take the current one.
    (cd "$tmp" && { apt-get download "$package=$version" >&2 || apt-get download "$package" >&2; })
  fi
  dpkg-deb -x "$tmp"/"$package"_*.deb "$tmp/root"
  local file
  for file in "$@"; do
    cp "$tmp/root/$file" "$out/.$(basename "$file").tmp"
    mv "$out/.$(basename "$file").tmp" "$out/$(basename "$file")"
  done
  rm -rf "$tmp"
}

for b in "${missing[@]}"; do
  t0=$(date +%s)
  case $b in
    crane) build_crane; version=$("$out/crane" version 2>&1) ;;
    runc) unpack_deb runc "$RUNC_DEB_VERSION" usr/sbin/runc; version=$("$out/runc" --version | head -1) ;;
    # ctr first: containerd is the name checked for, so it lands last.
    containerd) unpack_deb containerd "$CONTAINERD_DEB_VERSION" usr/bin/ctr usr/bin/containerd
                version=$("$out/containerd" --version) ;;
    *) say "unknown tool $b (crane, runc, containerd)"; exit 2 ;;
  esac
  say "$b ready in $(( $(date +%s) - t0 ))s: $version"
done
echo "$out"
