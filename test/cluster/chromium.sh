#!/usr/bin/env bash
# Puts a headless-capable Chromium into the cache for the dashboard's browser tests, from
# Debian's `chromium` package, without root and without installing anything system-wide:
# `apt-get download` into a temporary directory, `dpkg-deb -x`, and a wrapper in
# ${STEPWISE_CACHE:-$HOME/.cache/stepwise}/chromium/bin/ that points LD_LIBRARY_PATH at the
# libraries unpacked beside it. The shared libraries the machine lacks are found by following
# the packages' Depends (library packages only, the ones dpkg does not list as installed) and
# checked with ldd afterwards. Without fonts on the machine, DejaVu is unpacked too.
#
# Order: $STEPWISE_CHROMIUM if set; a `chromium` already on PATH; the cached copy; else install.
# Idempotent; progress on stderr, the browser's path on stdout, last.
set -euo pipefail

cache="${STEPWISE_CACHE:-$HOME/.cache/stepwise}"
dir="$cache/chromium"
wrapper="$dir/bin/chromium"

works() {
  [ -x "$1" ] && "$1" --headless --no-sandbox --version >/dev/null 2>&1
}
if [ -n "${STEPWISE_CHROMIUM:-}" ]; then
  if works "$STEPWISE_CHROMIUM"; then
    echo "$STEPWISE_CHROMIUM"
    exit 0
  fi
  echo "chromium: STEPWISE_CHROMIUM=$STEPWISE_CHROMIUM does not run" >&2
  exit 1
fi
if system="$(command -v chromium 2>/dev/null)" && works "$system"; then
  echo "$system"
  exit 0
fi
if works "$wrapper"; then
  echo "$wrapper"
  exit 0
fi

# Test files run in parallel and may all ask at once on a fresh machine: one installs, the
# others wait for it and find the browser there.
mkdir -p "$cache"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.chromium.lock"
  flock 9
  if works "$wrapper"; then
    echo "$wrapper"
    exit 0
  fi
fi

for tool in apt-get apt-cache dpkg-deb dpkg-query ldd; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "chromium: $tool not found; Debian's chromium package is needed (see test/cluster/chromium.sh), or set STEPWISE_CHROMIUM to a Chromium binary" >&2
    exit 1
  fi
done

tmp="$(mktemp -d)"
next="$dir.new.$$"
trap 'rm -rf "$tmp" "$next"' EXIT

# apt-get download PACKAGE...; the package lists may be missing or stale on a fresh machine, so
# they are refreshed (once) only when a download fails; that needs root.
updated=false
download() {
  if (cd "$tmp" && apt-get download "$@" >"$tmp/download.log" 2>&1); then return 0; fi
  if [ "$updated" = false ]; then
    updated=true
    if [ "$(id -u)" -ne 0 ]; then
      cat "$tmp/download.log" >&2
      echo "chromium: apt-get download failed and refreshing the package lists needs root: run 'sudo apt-get update' once, or set STEPWISE_CHROMIUM" >&2
      return 1
    fi
    echo "[chromium] refreshing the package lists (apt-get update)" >&2
    apt-get update >"$tmp/update.log" 2>&1 || { cat "$tmp/update.log" >&2; return 1; }
    (cd "$tmp" && apt-get download "$@" >"$tmp/download.log" 2>&1) && return 0
  fi
  cat "$tmp/download.log" >&2
  return 1
}

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# The first alternative of every Depends of a .deb, without versions or architectures.
depends_of() {
  # With two fields dpkg-deb prefixes each line with its name: drop it.
  dpkg-deb -f "$1" Depends Pre-Depends | sed -e 's/^[A-Za-z-]*: //' | tr ',' '\n' |
    sed -e 's/|.*//' -e 's/(.*)//' -e 's/:.*//' -e 's/[[:space:]]//g' | grep -v '^$' || true
}

echo "[chromium] downloading Debian's chromium (about 70 MB) and the libraries this machine lacks" >&2
download chromium chromium-common
declare -A seen=([chromium]=1 [chromium-common]=1)
fonts=()
if [ ! -e /etc/fonts/fonts.conf ]; then fonts=(fontconfig-config fonts-dejavu-core); fi
# Breadth-first over Depends: library packages only (data and desktop packages are not needed
# to render a page headless), and only those the machine does not have.
queue=("$tmp"/*.deb)
while [ "${#queue[@]}" -gt 0 ]; do
  wanted=()
  for deb in "${queue[@]}"; do
    for pkg in $(depends_of "$deb"); do
      case "$pkg" in lib*) ;; *) continue ;; esac
      [ -z "${seen[$pkg]:-}" ] || continue
      seen[$pkg]=1
      installed "$pkg" || wanted+=("$pkg")
    done
  done
  queue=()
  if [ "${#wanted[@]}" -gt 0 ]; then
    echo "[chromium] also unpacking ${wanted[*]}" >&2
    before="$(ls "$tmp"/*.deb)"
    download "${wanted[@]}"
    for deb in "$tmp"/*.deb; do
      grep -qxF "$deb" <<<"$before" || queue+=("$deb")
    done
  fi
done
if [ "${#fonts[@]}" -gt 0 ]; then
  echo "[chromium] no fonts on this machine: unpacking ${fonts[*]}" >&2
  download "${fonts[@]}"
fi

stage="$tmp/root"
mkdir -p "$stage"
for deb in "$tmp"/*.deb; do
  dpkg-deb -x "$deb" "$stage"
done
real="$stage/usr/lib/chromium/chromium"
if [ ! -x "$real" ]; then
  echo "chromium: Debian's chromium package did not contain usr/lib/chromium/chromium" >&2
  exit 1
fi

rm -rf "$next"
mkdir -p "$next/bin" "$next/lib"
cp -a "$stage/usr/lib/chromium" "$next/chromium"
find "$stage" \( -path "$stage/usr/lib/*" -o -path "$stage/lib/*" \) -name '*.so*' \
  -not -path "$stage/usr/lib/chromium/*" -exec cp -a {} "$next/lib/" \;
fontconf=""
if [ "${#fonts[@]}" -gt 0 ]; then
  mkdir -p "$next/fonts"
  cp -a "$stage/usr/share/fonts/." "$next/fonts/"
  cat >"$next/fonts.conf" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$dir/fonts</dir><cachedir>$dir/fontcache</cachedir></fontconfig>
CONF
  fontconf="FONTCONFIG_FILE=\"\$here/../fonts.conf\" "
fi
cat >"$next/bin/chromium" <<WRAP
#!/bin/sh
# Runs the unpacked Debian chromium with the libraries unpacked beside it (test/cluster/chromium.sh).
here="\$(cd "\$(dirname "\$0")" && pwd)"
LD_LIBRARY_PATH="\$here/../lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" ${fontconf}exec "\$here/../chromium/chromium" "\$@"
WRAP
chmod +x "$next/bin/chromium"

missing="$(LD_LIBRARY_PATH="$next/lib" ldd "$next/chromium/chromium" | grep 'not found' || true)"
if [ -n "$missing" ]; then
  echo "chromium: shared libraries still missing after unpacking:" >&2
  echo "$missing" >&2
  exit 1
fi
rm -rf "$dir"
mv "$next" "$dir"
# The wrapper refers to $dir by name (fonts.conf too): check it where it now lives.
if ! works "$wrapper"; then
  echo "chromium: the unpacked browser does not start:" >&2
  "$wrapper" --headless --no-sandbox --version >&2 || true
  exit 1
fi
echo "[chromium] $("$wrapper" --version 2>/dev/null) ready in $dir" >&2
echo "$wrapper"
