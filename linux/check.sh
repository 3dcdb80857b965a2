#!/bin/bash
# Everything behind "make linux-check": fetch, build the module and the
# small kernels of every series (base and fixed), boot every scenario,
# write the results and the side-by-side document, all under build/
# (make docs copies the document into docs/). Exit status is non-zero if
# any check failed.
#
# LINUX_PART=boots stops once every boot is recorded; LINUX_PART=report
# only writes the results from the boots already recorded. make test runs
# the boots beside its qemu stage and the report after it: the report
# reads ronx's readings, which that stage writes (ronx-checks.json).
set -euo pipefail
. "$(dirname "$0")/common.sh"
t0=$SECONDS
PART=${LINUX_PART:-all}
PY=${PYTHON:-python3}   # the Makefile's interpreter
case $PART in
all | boots | report) ;;
*) die "LINUX_PART=$PART: expected boots, report or nothing (both)" ;;
esac
BOOTS=$WORK/boots

# Everything up to the report: the module, the initrds, every boot
# recorded under $BOOTS with the versions in $BOOTS/meta.env.
record_boots() {
	rm -rf "$BOOTS"

	"$LINUX_DIR/fetch.sh"
	. "$CACHE/fetch.env"

	say "building ronx_peer.ko against $KVER headers"
	rm -rf "$WORK/module"; mkdir -p "$WORK/module"
	cp "$LINUX_DIR/module/Kbuild" "$LINUX_DIR/module/ronx_peer.c" "$LINUX_DIR/module/ronx_crash.c" \
		"$WORK/module/"
	make -C "$HEADERS" M="$WORK/module" ARCH=x86 >"$WORK/module.log" 2>&1 ||
		{ cat "$WORK/module.log" >&2; die "module build failed"; }
	say "module: $(strings -a "$WORK/module/ronx_peer.ko" | grep -m1 "^vermagic=" || echo built)"

	# ronx's user programs, for the user-mode boots (linux/user-run.sh)
	say "building ronx's user programs (make user)"
	make -s -C "$REPO" user >"$WORK/user-build.log" 2>&1 ||
		{ cat "$WORK/user-build.log" >&2; die "make user failed"; }

	# initramfs: busybox, /init, and (for Debian's kernel) the module; with
	# "user", ronx's user programs in /ubin and the lists of runs.
	mkinitrd() { # output [module] [user]
		local d=$WORK/initrd.tmp
		rm -rf "$d"; mkdir -p "$d/bin" "$d/proc" "$d/sys" "$d/dev"
		cp "$BUSYBOX" "$d/bin/busybox"
		cp "$LINUX_DIR/init.sh" "$d/init"
		[ -z "${2:-}" ] || cp "$2" "$d/"
		if [ "${3:-}" = user ]; then
			mkdir -p "$d/ubin"
			cp "$REPO"/build/user/bin/* "$d/ubin/"
			cp "$LINUX_DIR/user-run.sh" "$d/ubin/run.sh"
			"$PY" "$REPO/tests/user/progs.py" --guest-list tests "$d/ubin"
			"$PY" "$REPO/tests/user/progs.py" --guest-list bench "$d/ubin"
			"$PY" "$LINUX_DIR/user_nx.py" --guest-list "$d/ubin"
		fi
		(cd "$d" && find . | cpio -o -H newc --quiet | gzip -9) >"$1"
		rm -rf "$d"
	}
	mkinitrd "$WORK/initrd-debian.cpio.gz" "$WORK/module/ronx_peer.ko"
	mkinitrd "$WORK/initrd-crash.cpio.gz" "$WORK/module/ronx_crash.ko"
	mkinitrd "$WORK/initrd-small.cpio.gz"
	mkinitrd "$WORK/initrd-user.cpio.gz" "" user

	declare -A SMALL
	for v in $SERIES; do
		SMALL[$v]=$("$LINUX_DIR/small-kernel.sh" "$v" | tail -n 1)
	done

	mkdir -p "$BOOTS"
	boot() { # name kernel initrd append [--user | --until LINE]
		"$PY" "$LINUX_DIR/boot.py" "${@:5}" --name "$1" --kernel "$2" --initrd "$3" \
			--append "$4" --outdir "$BOOTS" || say "boot $1 failed (its checks will fail)"
	}
	boot debian-bios "$VMLINUZ" "$WORK/initrd-debian.cpio.gz" "acpi=off pci=bios"
	boot debian-nobios "$VMLINUZ" "$WORK/initrd-debian.cpio.gz" "acpi=off pci=nobios"
	boot debian-default "$VMLINUZ" "$WORK/initrd-debian.cpio.gz" ""
	# ronx's user programs, the same binaries as in ronx's initrd: with the
	# default command line (page-table isolation on) and without PTI.
	boot debian-user "$VMLINUZ" "$WORK/initrd-user.cpio.gz" "ronx_user=tests" --user
	boot debian-user-nopti "$VMLINUZ" "$WORK/initrd-user.cpio.gz" "pti=off mitigations=off ronx_user=tests" --user
	# The bugs of ronx's crash command, made on Linux (linux/crashes.py).
	boot debian-crash "$VMLINUZ" "$WORK/initrd-crash.cpio.gz" "ronx_crash slub_debug=FP" --until "=== ronx-crash: done"
	# Small kernels: pci=bios with the planted W+X page (both must be seen),
	# pci=nobios with nothing planted (the fix must not over-report), and
	# the default command line (does this version use the PCI BIOS?); and
	# ronx's NX demonstrations (linux/user_nx.py: stack executable without
	# the fix, SIGSEGV with it).
	for v in $SERIES; do
		k=${SMALL[$v]}
		for kind in base fixed; do
			boot "small-$v-$kind-bios" "$k/bzImage-$kind" "$WORK/initrd-small.cpio.gz" "pci=bios debug_wx_selftest"
			boot "small-$v-$kind-nobios" "$k/bzImage-$kind" "$WORK/initrd-small.cpio.gz" "pci=nobios"
			boot "small-$v-$kind-user" "$k/bzImage-$kind" "$WORK/initrd-user.cpio.gz" "ronx_user=nx" --user
		done
		boot "small-$v-base-default" "$k/bzImage-base" "$WORK/initrd-small.cpio.gz" ""
		mkdir -p "$BOOTS/checkpatch-$v"
		cp "$k"/checkpatch/*.txt "$BOOTS/checkpatch-$v/"
	done

	{
		echo "KVER=$KVER"
		echo "PKGVER=$PKGVER"
		echo "BBVER=$BBVER"
		echo "QEMU=$(qemu-system-i386 --version | head -n 1)"
		echo "SERIES=$SERIES"
		for v in $SERIES; do
			a=SRCVER_$(vvar "$v")
			echo "SRCVER_$v=${!a}"
			echo "SMALL_$v=$(basename "${SMALL[$v]}")"
		done
	} >"$BOOTS/meta.env"
	say "the boots recorded in $((SECONDS - t0))s ($BOOTS)"
}

[ "$PART" = report ] || record_boots
[ "$PART" != boots ] || exit 0
[ -f "$BOOTS/meta.env" ] || die "LINUX_PART=report: no boots recorded in $BOOTS (run LINUX_PART=boots first)"

rc=0
"$PY" "$LINUX_DIR/report.py" --boots "$BOOTS" \
	--ronx "$RESULTS/ronx-checks.json" --ktap "$RESULTS/linux.ktap" \
	--json "$RESULTS/linux-checks.json" --doc "$RESULTS/linux-vs-ronx.md" \
	--patches "$LINUX_DIR/patches" || rc=$?
say "linux-check finished in $((SECONDS - t0))s (exit $rc)"
exit $rc
