#!/usr/bin/env bash
# Copies Argo CD's built-in Lua for argoproj.io Rollouts (resource_customizations/argoproj.io/
# Rollout: health.lua, actions/discovery.lua, actions/*/action.lua) out of Argo CD's Go module
# zip, from the Go module proxy, into a cache directory keyed by the version; prints the
# directory. Nothing is built. The in-place tests run these scripts, as Argo CD would, on the
# argoproj.io Rollouts Stepwise serves. v3.5.8: the newest v3 this machine's Go (1.26.8) can
# download (v3.6.x declares go 1.27).
set -euo pipefail

MODULE=github.com/argoproj/argo-cd/v3
VERSION=v3.5.8
cache_root=${STEPWISE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise}
out=$cache_root/argocd-lua-$VERSION
say() { printf '[argocd-lua %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [ -f "$out/Rollout/health.lua" ]; then echo "$out"; exit 0; fi
mkdir -p "$cache_root"
exec 9>"$cache_root/.argocd-lua.lock"
flock 9
if [ -f "$out/Rollout/health.lua" ]; then echo "$out"; exit 0; fi

say "downloading $MODULE@$VERSION from the Go module proxy (about 55 MB, once) for its Rollout Lua"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
src=$dir/resource_customizations/argoproj.io/Rollout
[ -f "$src/health.lua" ] || { say "$MODULE@$VERSION has no $src/health.lua (dir: '$dir')"; exit 1; }
rm -rf "$out.tmp" && mkdir -p "$out.tmp/Rollout/actions"
cp "$src/health.lua" "$out.tmp/Rollout/"
cp "$src/actions/discovery.lua" "$out.tmp/Rollout/actions/"
for action in "$src"/actions/*/action.lua; do
  name=$(basename "$(dirname "$action")")
  mkdir -p "$out.tmp/Rollout/actions/$name"
  cp "$action" "$out.tmp/Rollout/actions/$name/"
done
chmod -R u+w "$out.tmp"   # the module cache is read-only
rm -rf "$out" && mv "$out.tmp" "$out"
say "Argo CD's Rollout Lua ready in $out"
echo "$out"
