#!/usr/bin/env bash
# Builds Prometheus 3 and promtool from their Go module into a cache directory keyed by the
# version (never into the repository, never as a system service), without service discovery
# (build tag remove_all_sd: the tests only scrape static loopback targets). Falls back to
# unpacking Debian's prometheus package into the same directory. Prints the directory.
set -euo pipefail

PROMETHEUS_MODULE_VERSION=v0.316.0   # Prometheus 3.16.0: the module is tagged v0.<3 minor>.<patch>
PROMETHEUS_VERSION=3.16.0
cache_root=${STEPWISE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise}
out=${STEPWISE_PROMETHEUS_OUT:-$cache_root/prometheus-$PROMETHEUS_MODULE_VERSION}
want=(prometheus promtool)

say() { printf '[prometheus-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

have_all() { for b in "${want[@]}"; do [ -x "$out/$b" ] || return 1; done; }
if have_all; then echo "$out"; exit 0; fi

mkdir -p "$out"
start=$(date +%s)
( while sleep 30; do say "still building ($(( $(date +%s) - start ))s so far; a cold build takes 5-15 min on 2 cores, warm ones seconds)"; done ) &
beat=$!
trap 'kill $beat 2>/dev/null || true' EXIT

build_from_module() {
  local i=0 b
  for b in "${want[@]}"; do
    i=$((i + 1))
    [ -x "$out/$b" ] && continue
    local t0; t0=$(date +%s)
    say "[$i/${#want[@]}] building $b from github.com/prometheus/prometheus@$PROMETHEUS_MODULE_VERSION (tags: remove_all_sd)"
    rm -rf "$out/.gobin"
    CGO_ENABLED=0 GOBIN="$out/.gobin" GOFLAGS=-buildvcs=false go install -trimpath \
      -ldflags "-s -w -X github.com/prometheus/common/version.Version=$PROMETHEUS_VERSION" \
      -tags remove_all_sd "github.com/prometheus/prometheus/cmd/$b@$PROMETHEUS_MODULE_VERSION"
    mv "$out/.gobin/$b" "$out/$b"
    rmdir "$out/.gobin"
    say "[$i/${#want[@]}] $b done in $(( $(date +%s) - t0 ))s"
  done
}

# Debian's package, unpacked here (apt-get download needs no root; nothing is installed).
unpack_debian() {
  say "falling back to Debian's prometheus package (apt-get download + dpkg-deb -x)"
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download prometheus >&2)
  dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/root"
  for b in "${want[@]}"; do cp "$tmp/root/usr/bin/$b" "$out/$b"; done
  rm -rf "$tmp"
}

if ! build_from_module; then
  say "the Go build failed (output above)"
  unpack_debian
fi
have_all || { say "no usable prometheus/promtool in $out"; exit 1; }
say "prometheus and promtool ready in $out ($(( $(date +%s) - start ))s): $("$out/prometheus" --version 2>&1 | head -1)"
echo "$out"
