#!/usr/bin/env bash
# What the linux/arm64 artifacts of `make release` need on an x86-64 Debian machine, unpacked
# into a cache directory (never installed) whose path it prints:
#   sysroot/             Debian's arm64 glibc, libstdc++ and libgcc, of the same versions as the
#                        build machine's amd64 ones (the arm64 image carries them; qemu loads
#                        the arm64 Node against them)
#   qemu-aarch64-static  Debian's qemu-user-static, to start arm64 binaries here
# apt-get download installs nothing; the arm64 package lists need `dpkg --add-architecture arm64`
# and `apt-get update` once, which need root: done here when missing, else it says so.
set -euo pipefail

cache_root=${STEPWISE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise}
say() { printf '[arm64-tools %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

version_of() { dpkg-query -W -f='${Version}' "$1:amd64"; }
libc_version=$(version_of libc6)
cxx_version=$(version_of libstdc++6)
gcc_version=$(version_of libgcc-s1)
qemu_version=$(apt-cache policy qemu-user-static | awk '/Candidate:/ { print $2 }')
out=$cache_root/arm64-libc6-$libc_version-libstdc++6-$cxx_version-qemu-${qemu_version#*:}

if [ -x "$out/qemu-aarch64-static" ] && [ -e "$out/sysroot/lib/ld-linux-aarch64.so.1" ]; then
  echo "$out"
  exit 0
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  if [ "$(id -u)" != 0 ]; then
    say "Debian's arm64 packages need, once, as root: dpkg --add-architecture arm64 && apt-get update"
    exit 1
  fi
  say "adding the arm64 architecture to dpkg and refreshing the package lists"
  dpkg --add-architecture arm64
  apt-get update -q >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt runs its downloads as _apt, which must be able to write here.
chmod 0755 "$tmp"
packages=("libc6:arm64=$libc_version" "libstdc++6:arm64=$cxx_version" "libgcc-s1:arm64=$gcc_version"
  "qemu-user-static=$qemu_version")
say "downloading ${packages[*]}"
(cd "$tmp" && apt-get download "${packages[@]}" >&2 2> >(grep -v 'unsandboxed' >&2))

rm -rf "$out.tmp" && mkdir -p "$out.tmp/sysroot"
for deb in "$tmp"/libc6_*.deb "$tmp"/libstdc++6_*.deb "$tmp"/libgcc-s1_*.deb; do
  dpkg-deb -x "$deb" "$out.tmp/sysroot"
done
dpkg-deb -x "$tmp"/qemu-user-static_*.deb "$tmp/qemu"
cp "$tmp/qemu/usr/bin/qemu-aarch64-static" "$out.tmp/"
rm -rf "$out" && mv "$out.tmp" "$out"
say "ready: $("$out/qemu-aarch64-static" --version | head -1), glibc $libc_version"
echo "$out"
