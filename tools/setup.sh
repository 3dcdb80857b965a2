#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Make sure every tool the build and the tests need is here. On Debian (or
# Ubuntu) as root, install what is missing; otherwise print the exact
# apt-get line.
set -euo pipefail

# package: a file or command it provides
declare -A need=(
	[nasm]=nasm
	[gcc]=gcc
	[binutils]=ld
	[gcc-multilib]=/usr/lib/gcc/x86_64-linux-gnu/*/32/libgcc.a
	[grub-pc-bin]=/usr/lib/grub/i386-pc/multiboot2.mod
	[grub-common]=grub-mkrescue
	[xorriso]=xorriso
	[mtools]=mformat
	[qemu-system-x86]=qemu-system-i386
	# runs the user programs (static i386 Linux ELF) on the host: tests/user/run.py
	[qemu-user]=qemu-i386
	[cpio]=cpio
	[python3]=/usr/bin/python3
	[make]=make
	[patch]=patch
	[librsvg2-bin]=rsvg-convert
	[clang]=clang
	[valgrind]=valgrind
	[gdb]=gdb
	# the second platform: Bochs with its own BIOS (tests/qemu/test_bochs.py,
	# make run-bochs). bochs-term is the small display plugin that satisfies
	# bochs's need for one (else apt picks bochs-wx and GTK).
	[bochs]=bochs
	[bochs-term]=/usr/lib/*/bochs/plugins/libbx_term_gui.so*
	[bochsbios]=/usr/share/bochs/BIOS-bochs-latest
	[vgabios]=/usr/share/vgabios/vgabios.bin
)

have() {
	case $1 in
	/*) compgen -G "$1" > /dev/null ;;
	*) command -v "$1" > /dev/null ;;
	esac
}

# `setup.sh grade`: only what building and booting ronx needs (a Gradescope
# image grades with these; the tests, Bochs and gdb are not needed there)
if [ "${1:-}" = grade ]; then
	for pkg in librsvg2-bin clang valgrind gdb bochs bochs-term bochsbios vgabios; do
		unset "need[$pkg]"
	done
fi

missing=()
for pkg in "${!need[@]}"; do
	have "${need[$pkg]}" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

IFS=$'\n' missing=($(sort <<<"${missing[*]}")); unset IFS
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	$line -qq > /dev/null
	echo "setup: done"
else
	echo "setup: missing packages. As root, run:"
	echo "  apt-get update && $line"
	exit 1
fi
