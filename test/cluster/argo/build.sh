#!/usr/bin/env bash
# Builds Argo Rollouts' controller (rollouts-controller) from its Go module, through this
# directory's module (go.mod: Argo's replace directives, which `go install` would ignore), into a
# cache directory keyed by the version, and copies Argo's CRDs (manifests/crds in the module zip)
# next to it as crds/. Prints the directory. Never writes binaries into the repository.
# v1.9.2 is the newest v1.9.x this machine's Go (1.26.8) builds: v1.9.3 declares go 1.26.10.
set -euo pipefail

ARGO_MODULE=github.com/argoproj/argo-rollouts
ARGO_VERSION=$(sed -n 's/^require github.com\/argoproj\/argo-rollouts \(v[^ ]*\)$/\1/p' "$(dirname "$0")/go.mod")
here=$(cd "$(dirname "$0")" && pwd)
cache_root=${STEPWISE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise}
out=${STEPWISE_ARGO_OUT:-$cache_root/argo-rollouts-$ARGO_VERSION}
crds=(rollout-crd analysis-template-crd cluster-analysis-template-crd analysis-run-crd experiment-crd)

say() { printf '[argo-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
[ -n "$ARGO_VERSION" ] || { say "no 'require $ARGO_MODULE vX' line in $here/go.mod"; exit 1; }

have_crds() { for c in "${crds[@]}"; do [ -f "$out/crds/$c.yaml" ] || return 1; done; }
copy_crds() {
  have_crds && return 0
  local dir
  dir=$(cd "$here" && go mod download -json "$ARGO_MODULE@$ARGO_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir/manifests/crds" ] || { say "$ARGO_MODULE@$ARGO_VERSION has no manifests/crds (dir: '$dir')"; return 1; }
  rm -rf "$out/crds.tmp" && mkdir -p "$out/crds.tmp"
  for c in "${crds[@]}"; do cp "$dir/manifests/crds/$c.yaml" "$out/crds.tmp/"; done
  chmod -R u+w "$out/crds.tmp"   # the module cache is read-only
  rm -rf "$out/crds" && mv "$out/crds.tmp" "$out/crds"
}

if [ -x "$out/rollouts-controller" ]; then copy_crds; echo "$out"; exit 0; fi

mkdir -p "$out"
start=$(date +%s)
( while sleep 30; do say "still building rollouts-controller ($(( $(date +%s) - start ))s so far; a cold build takes 5-15 min on 2 cores, warm ones seconds)"; done ) &
beat=$!
trap 'kill $beat 2>/dev/null || true' EXIT

say "building rollouts-controller from $ARGO_MODULE@$ARGO_VERSION"
# Argo's Makefile stamps the version the same way; a tag and a commit make --version print the tag.
ldflags="-s -w"
for v in "version=${ARGO_VERSION#v}" "gitTag=$ARGO_VERSION" "gitCommit=$ARGO_VERSION" gitTreeState=clean; do
  ldflags+=" -X $ARGO_MODULE/utils/version.$v"
done
(cd "$here" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -ldflags "$ldflags" \
  -o "$out/rollouts-controller.tmp" "$ARGO_MODULE/cmd/rollouts-controller")
mv "$out/rollouts-controller.tmp" "$out/rollouts-controller"
copy_crds
say "rollouts-controller and Argo's CRDs ready in $out ($(( $(date +%s) - start ))s)"
echo "$out"
