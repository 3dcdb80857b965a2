#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Pack files into a cpio "newc" archive: the initrd GRUB hands to ronx.
# Usage: tools/mkinitrd.sh OUT [FILE...]   (an empty archive is fine)
set -euo pipefail
out=$1; shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for f in "$@"; do cp "$f" "$dir/"; done
[ -f modules/autoload ] && cp modules/autoload "$dir/autoload"
( cd "$dir" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort | cpio -o -H newc --quiet ) > "$out"
