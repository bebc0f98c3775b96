#!/usr/bin/env bash
# Builds helm from its Go module (helm.sh/helm/v4/cmd/helm) into a cache directory keyed by the
# version (never into the repository), stamped with that version so `helm version` tells the
# truth. Skips the build when the binary is already there. Prints the directory.
set -euo pipefail

HELM_VERSION=v4.3.2
cache_root=${STEPWISE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise}
out=${STEPWISE_HELM_OUT:-$cache_root/helm-$HELM_VERSION}

say() { printf '[helm-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [ -x "$out/helm" ]; then echo "$out"; exit 0; fi

mkdir -p "$out"
start=$(date +%s)
( while sleep 30; do say "still building ($(( $(date +%s) - start ))s so far; a cold build takes 3-8 min on 2 cores, warm ones seconds)"; done ) &
beat=$!
trap 'kill $beat 2>/dev/null || true' EXIT

say "building helm from helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
rm -rf "$out/.gobin"
# go install pkg@version builds with the module's own go.mod (its pinned dependencies), outside
# any workspace; the -X stamps are what helm's own Makefile sets.
CGO_ENABLED=0 GOBIN="$out/.gobin" GOFLAGS=-buildvcs=false go install -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
  "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
mv "$out/.gobin/helm" "$out/helm"
rmdir "$out/.gobin"
say "helm ready in $out ($(( $(date +%s) - start ))s): $("$out/helm" version --short 2>&1 | head -1)"
echo "$out"
