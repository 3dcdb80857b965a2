#!/bin/bash
# Build the small i386 PAE kernel from Debian's linux-source-6.1 twice:
#   base  = the series without its fixes (only the W+X test-page patch),
#   fixed = the whole series.
# The baseline keeps the planted W+X page so both kernels face the same
# page tables; only the fix differs. Images are cached by source version
# and a hash of the patches and the config fragment.
set -euo pipefail
. "$(dirname "$0")/common.sh"
[ -e "$CACHE/env" ] || "$LINUX_DIR/fetch.sh"
. "$CACHE/env"

# Leading patches that make up the baseline (the test option only).
BASE_PATCHES=1
mapfile -t patches < <(ls "$LINUX_DIR"/patches/*.patch | sort)
[ ${#patches[@]} -gt "$BASE_PATCHES" ] || die "no fix patches in linux/patches"

key=$(cat "${patches[@]}" "$LINUX_DIR/small-pae.config" | sha256sum | cut -c1-12)
OUT=$CACHE/small-$SRCVER-$key
if [ -s "$OUT/bzImage-base" ] && [ -s "$OUT/bzImage-fixed" ]; then
	say "small kernels cached in $OUT"
	echo "$OUT"; exit 0
fi

B=$CACHE/small-build
rm -rf "$B"; mkdir -p "$B" "$OUT"
say "unpacking linux-source-6.1 $SRCVER"
dpkg-deb --fsys-tarfile "$SRC_DEB" | tar -x -C "$B" --wildcards '*/linux-source-6.1.tar.xz' --strip-components=3
run_logged "$B/untar.log" "untar linux-source-6.1" tar -xf "$B/linux-source-6.1.tar.xz" -C "$B"
rm -f "$B/linux-source-6.1.tar.xz"
S=$B/linux-source-6.1
O=$B/obj
mkdir -p "$O"

apply() { say "applying $(basename "$1")"; patch -d "$S" -p1 --quiet --forward <"$1"; }
kmake() { make -C "$S" O="$O" ARCH=i386 -j"$(nproc)" "$@"; }

for ((i = 0; i < BASE_PATCHES; i++)); do apply "${patches[i]}"; done
kmake -s tinyconfig >/dev/null
# (merge_config warns that HIGHMEM64G overrides a choice: intended.)
"$S/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" "$LINUX_DIR/small-pae.config" >/dev/null 2>&1
kmake -s olddefconfig >/dev/null 2>&1
# Fail loudly if a wanted option did not survive olddefconfig.
while read -r line; do
	case $line in CONFIG_*=y) grep -qx "$line" "$O/.config" || die "config lost: $line" ;; esac
done <"$LINUX_DIR/small-pae.config"
cp "$O/.config" "$OUT/config"

run_logged "$OUT/build-base.log" "build base kernel (${#patches[@]} patches, first $BASE_PATCHES applied)" kmake bzImage
cp "$O/arch/x86/boot/bzImage" "$OUT/bzImage-base"

for ((i = BASE_PATCHES; i < ${#patches[@]}; i++)); do apply "${patches[i]}"; done
run_logged "$OUT/build-fixed.log" "build fixed kernel (incremental)" kmake bzImage
cp "$O/arch/x86/boot/bzImage" "$OUT/bzImage-fixed"

rm -rf "$B"
# Drop images built from older patches or config fragments.
for d in "$CACHE"/small-*-*; do
	[ "$d" = "$OUT" ] || { say "removing stale $d"; rm -rf "$d"; }
done
say "small kernels in $OUT"
echo "$OUT"
