#!/bin/bash
# Build the small i386 PAE kernel from Debian's linux-source-VERSION twice:
#   base  = the series without its fixes (only the W+X test-page patch),
#   fixed = the whole series (an incremental rebuild of base's objects).
# The test patch plants its W+X page only when booted with
# "debug_wx_selftest", so both kernels can face the same page tables
# with and without it; only the fix differs. Also runs the tree's own
# scripts/checkpatch.pl on the series. Everything is cached in
# $CACHE/small/VERSION/SRCVER-KEY (KEY: a hash of the patches' diffs and
# the config fragments); the last line printed is that directory. With
# no VERSION, builds every series.
set -euo pipefail
. "$(dirname "$0")/common.sh"
if [ $# -eq 0 ]; then # every series
	for v in $(series); do "$0" "$v"; done
	exit 0
fi
V=$1
[ -n "$V" ] && [ -d "$LINUX_DIR/patches/$V" ] ||
	die "usage: small-kernel.sh VERSION (a series in linux/patches: $(series | tr '\n' ' '))"

src_of() { # sets SRCVER and SRC_DEB from fetch.env
	local a b
	[ -e "$CACHE/fetch.env" ] || return 1
	. "$CACHE/fetch.env"
	a=SRCVER_$(vvar "$V"); b=SRCDEB_$(vvar "$V")
	SRCVER=${!a:-}; SRC_DEB=${!b:-}
	[ -n "$SRCVER" ] && [ -s "$SRC_DEB" ]
}
src_of || { "$LINUX_DIR/fetch.sh"; src_of; } || die "linux-source-$V was not fetched"

# Leading patches that make up the baseline (the test option only).
BASE_PATCHES=1
mapfile -t patches < <(ls "$LINUX_DIR/patches/$V"/*.patch | sort)
[ ${#patches[@]} -gt "$BASE_PATCHES" ] || die "no fix patches in linux/patches/$V"
fragments=("$LINUX_DIR/small-pae.config" "$LINUX_DIR/small-pae-$V.config")
for f in "${fragments[@]}"; do [ -s "$f" ] || die "missing config fragment $f"; done

# The kernels depend on the diffs only (rewording a commit message must
# not cost a rebuild); checkpatch's verdicts depend on the whole patches.
key=$(for p in "${patches[@]}"; do sed -n '/^diff --git /,$p' "$p"; done |
	cat - "${fragments[@]}" | sha256sum | cut -c1-12)
cpkey=$(cat "${patches[@]}" | sha256sum | cut -c1-12)
SM=$CACHE/small/$V
OUT=$SM/$SRCVER-$key
built() { [ -s "$OUT/bzImage-base" ] && [ -s "$OUT/bzImage-fixed" ]; }
# Checkouts with other series (branches, worktrees) share the cache, and
# one may boot its kernels while another builds: an entry goes only when
# no checkout has used it for two weeks (its "used" stamp, or for older
# entries the directory itself).
prune() {
	local d stamp
	for d in "$SM"/*-*; do
		if [ ! -d "$d" ] || [ "$d" = "$OUT" ]; then continue; fi
		stamp=$d/used
		[ -e "$stamp" ] || stamp=$d
		if [ -n "$(find "$stamp" -maxdepth 0 -mtime -14)" ]; then continue; fi
		say "removing $d (unused for two weeks)"
		rm -rf "$d"
	done
}
if built && [ "$(cat "$OUT/checkpatch/key" 2>/dev/null)" = "$cpkey" ]; then
	touch "$OUT/used"
	say "small $V kernels cached in $OUT"
	echo "$OUT"; exit 0
fi

# A private build directory, so that two runs sharing the cache do not
# collide; results appear under $OUT only when complete.
mkdir -p "$SM"
B=$(mktemp -d "$SM/build.XXXXXX")
trap 'rm -rf "$B"' EXIT
R=$B/out
mkdir -p "$R/checkpatch"
S=$B/linux-source-$V
O=$B/obj
run_logged "$B/unpack.log" "unpack linux-source-$V $SRCVER" bash -c \
	"dpkg-deb --fsys-tarfile '$SRC_DEB' | tar -xO --wildcards '*/linux-source-$V.tar.xz' | xz -dc | tar -x -C '$B'"
[ -d "$S" ] || die "linux-source-$V did not unpack to $S"
mkdir -p "$O"

# checkpatch.pl from the same tree, on every patch of the series.
for p in "${patches[@]}"; do
	"$S/scripts/checkpatch.pl" --show-types "$p" >"$R/checkpatch/$(basename "$p" .patch).txt" 2>&1 || true
	say "checkpatch $V/$(basename "$p"): $(grep -m1 '^total:' "$R/checkpatch/$(basename "$p" .patch).txt" || echo 'no summary')"
done
echo "$cpkey" >"$R/checkpatch/key"
if built; then # only the commit messages changed
	rm -rf "$OUT/checkpatch"
	mv "$R/checkpatch" "$OUT/checkpatch"
	touch "$OUT/used"
	say "small $V kernels cached in $OUT (checkpatch re-run)"
	echo "$OUT"; exit 0
fi

apply() { say "applying $V/$(basename "$1")"; patch -d "$S" -p1 --quiet --forward <"$1"; }
kmake() { nice -n 10 make -C "$S" O="$O" ARCH=i386 -j"$(nproc)" "$@"; }

for ((i = 0; i < BASE_PATCHES; i++)); do apply "${patches[i]}"; done
kmake -s tinyconfig >/dev/null
# (merge_config warns that HIGHMEM64G overrides a choice: intended.)
"$S/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" "${fragments[@]}" >/dev/null 2>&1
kmake -s olddefconfig >/dev/null 2>&1
# Fail loudly if a wanted option did not survive olddefconfig.
while read -r line; do
	case $line in CONFIG_*=y) grep -qx "$line" "$O/.config" || die "$V config lost: $line" ;; esac
done < <(cat "${fragments[@]}")
cp "$O/.config" "$R/config"

run_logged "$R/build-base.log" "build $V base kernel (${#patches[@]} patches, first $BASE_PATCHES applied)" kmake bzImage
cp "$O/arch/x86/boot/bzImage" "$R/bzImage-base"

for ((i = BASE_PATCHES; i < ${#patches[@]}; i++)); do apply "${patches[i]}"; done
run_logged "$R/build-fixed.log" "build $V fixed kernel (incremental)" kmake bzImage
cp "$O/arch/x86/boot/bzImage" "$R/bzImage-fixed"

rm -rf "$OUT"
mv "$R" "$OUT"
touch "$OUT/used"
prune
say "small $V kernels in $OUT"
echo "$OUT"
