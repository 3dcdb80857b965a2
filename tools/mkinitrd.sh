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
while [ $# -gt 0 ]; do
	if [ "$1" = --dir ]; then
		dest=$dir/$2
		mkdir -p "$dest"
		shift 2
		continue
	fi
	cp "$1" "$dest/"
	shift
done
[ -f modules/autoload ] && cp modules/autoload "$dir/autoload"
( cd "$dir" && find . -mindepth 1 -type f -printf '%P\n' | LC_ALL=C sort | cpio -o -H newc --quiet ) > "$out"
