#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Pack files into a cpio "newc" archive: the initrd GRUB hands to ronx.
# Usage: tools/mkinitrd.sh OUT [FILE...] [--dir NAME FILE...]
# Files after "--dir NAME" go into the folder NAME/ of the archive.
# modules/autoload, if present, is added as "autoload".
set -euo pipefail
out=$1; shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
dest=$dir
declare -A seen
while [ $# -gt 0 ]; do
	if [ "$1" = --dir ]; then
		dest=$dir/$2
		mkdir -p "$dest"
		shift 2
		continue
	fi
	# a hard link (user/user.mk's multi-call programs) stays one: cpio stores its bytes once
	key=$(stat -c %d:%i "$1")
	if [ -n "${seen[$key]:-}" ]; then
		ln "${seen[$key]}" "$dest/$(basename "$1")"
	else
		cp "$1" "$dest/"
		seen[$key]=$dest/$(basename "$1")
	fi
	shift
done
[ -f modules/autoload ] && cp modules/autoload "$dir/autoload"
( cd "$dir" && find . -mindepth 1 -type f -printf '%P\n' | LC_ALL=C sort | cpio -o -H newc --quiet ) > "$out"
