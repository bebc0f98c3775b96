#!/usr/bin/env bash
# Puts a Lua 5.1 interpreter (Argo CD's Lua dialect: its gopher-lua speaks 5.1) into the cache,
# from Debian's packages, without installing anything system-wide: `apt-get download` into a
# temporary directory, `dpkg-deb -x`, and a wrapper in ${STEPWISE_CACHE:-$HOME/.cache/stepwise}/
# lua5.1/bin/ that points LD_LIBRARY_PATH at the unpacked libraries. Idempotent: when the wrapper
# already runs it only prints its path. Prints one progress line (stderr) when it installs, and
# the interpreter's path (stdout) last.
set -euo pipefail

cache="${STEPWISE_CACHE:-$HOME/.cache/stepwise}"
dir="$cache/lua5.1"
wrapper="$dir/bin/lua5.1"

installed() {
  [ -x "$wrapper" ] && "$wrapper" -e 'assert(_VERSION == "Lua 5.1")' >/dev/null 2>&1
}
if installed; then
  echo "$wrapper"
  exit 0
fi

# Test files run in parallel and may all ask at once on a fresh machine: one installs, the
# others wait for it and find the interpreter there.
mkdir -p "$cache"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.lua5.1.lock"
  flock 9
  if installed; then
    echo "$wrapper"
    exit 0
  fi
fi

for tool in apt-get dpkg-deb dpkg-query; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "lua5.1: $tool not found: Debian's lua5.1 package is needed (see test/lua/install.sh)" >&2
    exit 1
  fi
done

echo "[lua5.1] unpacking Debian's lua5.1 and liblua5.1-0 into $dir" >&2
tmp="$(mktemp -d)"
next="$dir.new.$$"
trap 'rm -rf "$tmp" "$next"' EXIT

# apt-get download PACKAGE...; the package lists may be missing or stale on a fresh machine, so
# they are refreshed (once) only when a download fails.
updated=false
download() {
  if (cd "$tmp" && apt-get download "$@" >"$tmp/download.log" 2>&1); then return 0; fi
  if [ "$updated" = false ]; then
    updated=true
    apt-get update >"$tmp/update.log" 2>&1 || { cat "$tmp/update.log" >&2; return 1; }
    (cd "$tmp" && apt-get download "$@" >"$tmp/download.log" 2>&1) && return 0
  fi
  cat "$tmp/download.log" >&2
  return 1
}

download lua5.1 liblua5.1-0

# The interpreter's own shared-library dependencies (libreadline on Debian) are usually on the
# machine already; the ones that are not are unpacked beside it too.
missing=()
deps="$(dpkg-deb -f "$tmp"/lua5.1_*.deb Depends)"
IFS=',' read -ra alternatives <<<"$deps"
for dep in "${alternatives[@]}"; do
  pkg="$(echo "$dep" | sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g')"
  [ -n "$pkg" ] || continue
  case "$pkg" in liblua5.1-0 | libc6) continue ;; esac
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  download "${missing[@]}"
fi

stage="$tmp/root"
mkdir -p "$stage"
for deb in "$tmp"/*.deb; do
  dpkg-deb -x "$deb" "$stage"
done

real="$stage/usr/bin/lua5.1"
if [ ! -x "$real" ]; then
  echo "lua5.1: Debian's lua5.1 package did not contain usr/bin/lua5.1" >&2
  exit 1
fi

rm -rf "$next"
mkdir -p "$next/bin" "$next/lib"
cp -a "$real" "$next/bin/lua5.1.real"
find "$stage" \( -path "$stage/usr/lib/*" -o -path "$stage/lib/*" \) -name '*.so*' \
  -exec cp -a {} "$next/lib/" \;
cat >"$next/bin/lua5.1" <<'WRAP'
#!/bin/sh
# Runs the unpacked Debian lua5.1 with the libraries unpacked beside it (test/lua/install.sh).
here="$(cd "$(dirname "$0")" && pwd)"
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/lua5.1.real" "$@"
WRAP
chmod +x "$next/bin/lua5.1"
"$next/bin/lua5.1" -e 'assert(_VERSION == "Lua 5.1")'

rm -rf "$dir"
mv "$next" "$dir"
echo "$wrapper"
