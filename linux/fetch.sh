#!/bin/bash
# Fetch Debian's i386 686-pae kernel, headers, kbuild, busybox-static and
# linux-source-V for every series in linux/patches/V/ into the cache,
# unpack the binary packages there, and write $CACHE/fetch.env
# describing what was fetched. Needs root (apt-get).
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ "$(id -u)" -eq 0 ] || die "run as root (apt-get, dpkg --add-architecture)"
export DEBIAN_FRONTEND=noninteractive

need=()
for p in flex bison bc libelf-dev libssl-dev cpio gzip xz-utils python3 make gcc libc6-dev binutils patch perl qemu-system-x86; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ! dpkg --print-foreign-architectures | grep -qx i386; then
	say "enabling the i386 architecture"
	dpkg --add-architecture i386
	updated=no
fi
mapfile -t SERIES < <(series)
# What fetch.env names depends only on the package lists: while none has
# changed since it was written (and every file it names is here), it
# stands, and apt-cache (about a second a call: this image keeps no binary
# cache of the lists) is not asked again.
fetched_already() {
	local env=$CACHE/fetch.env f
	[ -s "$env" ] && [ ${#need[@]} -eq 0 ] && [ -z "${updated:-}" ] || return 1
	[ -z "$(find /var/lib/apt/lists /etc/apt -type f -newer "$env" -print -quit 2>/dev/null)" ] || return 1
	grep -qx "SERIES=\"${SERIES[*]}\"" "$env" || return 1
	for f in $(sed -n 's/^\(ROOT\|SRCDEB_[0-9_]*\)=//p' "$env"); do [ -e "$f" ] || return 1; done
	[ -e "$(sed -n 's/^ROOT=//p' "$env")/.unpacked" ]
}
if fetched_already; then
	say "fetched already (no package list changed since): $(tr '\n' ' ' <"$CACHE/fetch.env")"
	exit 0
fi
lists_ok() {
	local v
	apt-cache show linux-image-686-pae:i386 >/dev/null 2>&1 || return 1
	for v in "${SERIES[@]}"; do apt-cache show "linux-source-$v" >/dev/null 2>&1 || return 1; done
}
# A mirror in the middle of a sync fails an index now and then ("File has
# unexpected size"): try again, and go on if the lists hold what is needed.
apt_update() {
	local try
	for try in 1 2 3; do
		say "apt-get update"
		apt-get update 2>&1 | sed 's/^/[linux]   apt: /' >&2 && return 0
		say "apt-get update failed (try $try of 3)"
		[ "$try" = 3 ] || sleep $((try * 30))
	done
	lists_ok || die "apt-get update failed 3 times, and the package lists lack the kernel packages"
	say "going on with the package lists as they are: they have the kernel packages"
}
if [ "${updated:-}" = no ] || ! lists_ok || [ ${#need[@]} -gt 0 ]; then
	apt_update
fi
if [ ${#need[@]} -gt 0 ]; then
	say "installing build tools: ${need[*]}"
	apt-get install -y --no-install-recommends "${need[@]}" 2>&1 | grep -E '^(Setting up|E:)' | sed 's/^/[linux]   /' >&2
fi

# The metapackage names the ABI package (linux-image-6.1.0-N-686-pae).
dep_of() { apt-cache depends "$1" 2>/dev/null | awk '/Depends:/ {print $2; exit}'; }
candidate() { apt-cache policy "$1" | awk '/Candidate:/ {print $2}'; }
IMG=$(dep_of linux-image-686-pae:i386); IMG=${IMG%:i386}
HDR=$(dep_of linux-headers-686-pae:i386); HDR=${HDR%:i386}
[ -n "$IMG" ] && [ -n "$HDR" ] || die "cannot resolve linux-image-686-pae:i386"
KVER=${IMG#linux-image-}
ABI=${KVER%-686-pae}
PKGVER=$(candidate "$IMG:i386")
src61=$(candidate linux-source-6.1)
[ "$PKGVER" = "$src61" ] || say "note: image $PKGVER, linux-source-6.1 $src61"
say "Debian kernel $KVER, package version $PKGVER"

DEBS=$CACHE/debs
mkdir -p "$DEBS"
get() { # package[:arch] version
	local name=${1%:*} arch ver=$2 f
	case $1 in *:i386) arch=i386 ;; *) arch=$(apt-cache show "$1=$ver" | awk '/^Architecture:/ {print $2; exit}') ;; esac
	f=$DEBS/${name}_${ver//:/%3a}_${arch}.deb
	if [ ! -s "$f" ]; then
		say "downloading $name $ver ($arch)"
		(cd "$DEBS" && apt-get download "$1=$ver" 2>&1 | grep -v '^W: Download is performed unsandboxed' | sed 's/^/[linux]   /' >&2)
	fi
	[ -s "$f" ] || die "download of $1 failed"
	echo "$f"
}
BBVER=$(candidate busybox-static:i386)
F_IMG=$(get "$IMG:i386" "$PKGVER")
F_HDR=$(get "$HDR:i386" "$PKGVER")
F_COM=$(get "linux-headers-$ABI-common" "$PKGVER")
F_KB=$(get linux-kbuild-6.1 "$PKGVER")
F_BB=$(get busybox-static:i386 "$BBVER")
# One linux-source package per patch series (6.12 is a bookworm
# security update with no i386 image: it is only built from source).
src_env=
for v in "${SERIES[@]}"; do
	ver=$(candidate "linux-source-$v")
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "no linux-source-$v in the package lists (series linux/patches/$v)"
	f=$(get "linux-source-$v" "$ver")
	src_env+="SRCVER_$(vvar "$v")=$ver"$'\n'"SRCDEB_$(vvar "$v")=$f"$'\n'
done

ROOT=$CACHE/root-$PKGVER
if [ ! -e "$ROOT/.unpacked" ]; then
	say "unpacking into $ROOT"
	rm -rf "$ROOT"; mkdir -p "$ROOT"
	for f in "$F_IMG" "$F_HDR" "$F_COM" "$F_KB" "$F_BB"; do dpkg-deb -x "$f" "$ROOT"; done
	# The headers' Makefile includes /usr/src/...-common by absolute path;
	# point it at the unpacked copy so nothing is installed on the host.
	mk=$ROOT/usr/src/linux-headers-$KVER/Makefile
	sed -i "s|/usr/src/linux-headers-$ABI-common|$ROOT/usr/src/linux-headers-$ABI-common|" "$mk"
	touch "$ROOT/.unpacked"
fi

# (A new name: older checkouts sharing this cache still write "env".)
cat >"$CACHE/fetch.env.tmp" <<EOT
KVER=$KVER
PKGVER=$PKGVER
BBVER=$BBVER
ROOT=$ROOT
VMLINUZ=$ROOT/boot/vmlinuz-$KVER
HEADERS=$ROOT/usr/src/linux-headers-$KVER
BUSYBOX=$ROOT/bin/busybox
SERIES="${SERIES[*]}"
$src_env
EOT
mv "$CACHE/fetch.env.tmp" "$CACHE/fetch.env"
say "fetched: $(tr '\n' ' ' <"$CACHE/fetch.env")"
