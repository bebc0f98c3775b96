#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl from Kubernetes' Go modules; kwok from its own module)
# into a cache directory keyed by the versions, and copies kwok's stage definitions
# (kustomize/stage from its module zip) next to them as kwok-stages/. Prints the
# directory on success. Never writes binaries into the repository.
set -euo pipefail

K8S_VERSION=v1.37.2
ETCD_VERSION=v3.7.3
KWOK_VERSION=v0.8.0
here=$(cd "$(dirname "$0")" && pwd)
cache_root=${STEPWISE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise}
out=${STEPWISE_K8S_ASSETS_OUT:-$cache_root/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION}
want=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)

say() { printf '[cluster-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Ready-made binaries (the envtest convention) win over building.
for dir in "${STEPWISE_K8S_ASSETS:-}" "${KUBEBUILDER_ASSETS:-}"; do
  [ -n "$dir" ] || continue
  ok=1; for b in "${want[@]}"; do [ -x "$dir/$b" ] || ok=0; done
  if [ $ok = 1 ]; then echo "$dir"; exit 0; fi
  say "ignoring $dir: it lacks some of ${want[*]}"
done

# kwok's stages ship in its module zip; test/cluster/kwok-stages.ts reads them from here.
copy_kwok_stages() {
  [ -d "$out/kwok-stages" ] && return 0
  local dir
  dir=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir/kustomize/stage" ] || { say "kwok module has no kustomize/stage (dir: '$dir')"; return 1; }
  rm -rf "$out/kwok-stages.tmp"
  cp -r "$dir/kustomize/stage" "$out/kwok-stages.tmp"
  chmod -R u+w "$out/kwok-stages.tmp"   # the module cache is read-only
  mv "$out/kwok-stages.tmp" "$out/kwok-stages"
}

missing=()
for b in "${want[@]}"; do [ -x "$out/$b" ] || missing+=("$b"); done
if [ ${#missing[@]} -eq 0 ]; then copy_kwok_stages; echo "$out"; exit 0; fi

mkdir -p "$out"
export CGO_ENABLED=0
minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
done
ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"

# A heartbeat so a cold build (10-30 minutes on 2 cores) never looks hung.
start=$(date +%s)
( while sleep 30; do say "still building ($(( $(date +%s) - start ))s so far; cold builds take 10-30 min, warm ones seconds)"; done ) &
beat=$!
trap 'kill $beat 2>/dev/null || true' EXIT

i=0
for b in "${missing[@]}"; do
  i=$((i + 1))
  t0=$(date +%s)
  say "[$i/${#missing[@]}] building $b"
  case $b in
    etcd) (cd "$here" && go build -trimpath -ldflags "-s -w" -o "$out/etcd.tmp" go.etcd.io/etcd/server/v3) ;;
    kwok) GOBIN="$out/.kwok-bin" GOFLAGS=-buildvcs=false go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" \
            && mv "$out/.kwok-bin/kwok" "$out/kwok.tmp" && rmdir "$out/.kwok-bin" ;;
    *) (cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$out/$b.tmp" "k8s.io/kubernetes/cmd/$b") ;;
  esac
  mv "$out/$b.tmp" "$out/$b"
  say "[$i/${#missing[@]}] $b done in $(( $(date +%s) - t0 ))s"
done
copy_kwok_stages
say "all control-plane binaries ready in $out ($(( $(date +%s) - start ))s)"
echo "$out"
