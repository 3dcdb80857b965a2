#!/bin/bash
# Everything behind "make linux-check": fetch, build the module and the
# two small kernels, boot every scenario, write the results and the
# side-by-side document. Exit status is non-zero if any check failed.
set -euo pipefail
. "$(dirname "$0")/common.sh"
t0=$SECONDS

"$LINUX_DIR/fetch.sh"
. "$CACHE/env"

say "building ronx_peer.ko against $KVER headers"
rm -rf "$WORK/module"; mkdir -p "$WORK/module"
cp "$LINUX_DIR/module/Kbuild" "$LINUX_DIR/module/ronx_peer.c" "$WORK/module/"
make -C "$HEADERS" M="$WORK/module" ARCH=x86 >"$WORK/module.log" 2>&1 ||
	{ cat "$WORK/module.log" >&2; die "module build failed"; }
say "module: $(strings -a "$WORK/module/ronx_peer.ko" | grep -m1 "^vermagic=" || echo built)"

# initramfs: busybox, /init, and (for Debian's kernel) the module.
mkinitrd() { # output [module]
	local d=$WORK/initrd.tmp
	rm -rf "$d"; mkdir -p "$d/bin" "$d/proc" "$d/sys" "$d/dev"
	cp "$BUSYBOX" "$d/bin/busybox"
	cp "$LINUX_DIR/init.sh" "$d/init"
	[ -z "${2:-}" ] || cp "$2" "$d/"
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -9) >"$1"
	rm -rf "$d"
}
mkinitrd "$WORK/initrd-debian.cpio.gz" "$WORK/module/ronx_peer.ko"
mkinitrd "$WORK/initrd-small.cpio.gz"

SMALL=$("$LINUX_DIR/small-kernel.sh" | tail -n 1)

BOOTS=$WORK/boots
rm -rf "$BOOTS"; mkdir -p "$BOOTS"
boot() { # name kernel initrd append
	python3 "$LINUX_DIR/boot.py" --name "$1" --kernel "$2" --initrd "$3" \
		--append "$4" --outdir "$BOOTS" || say "boot $1 failed (its checks will fail)"
}
boot debian-bios "$VMLINUZ" "$WORK/initrd-debian.cpio.gz" "acpi=off pci=bios"
boot debian-nobios "$VMLINUZ" "$WORK/initrd-debian.cpio.gz" "acpi=off pci=nobios"
boot debian-default "$VMLINUZ" "$WORK/initrd-debian.cpio.gz" ""
for k in base fixed; do
	boot "small-$k-bios" "$SMALL/bzImage-$k" "$WORK/initrd-small.cpio.gz" "pci=bios"
	boot "small-$k-nobios" "$SMALL/bzImage-$k" "$WORK/initrd-small.cpio.gz" "pci=nobios"
done

cat >"$BOOTS/meta.env" <<EOT
KVER=$KVER
PKGVER=$PKGVER
SRCVER=$SRCVER
BBVER=$BBVER
QEMU=$(qemu-system-i386 --version | head -n 1)
SMALL=$(basename "$SMALL")
EOT

rc=0
python3 "$LINUX_DIR/report.py" --boots "$BOOTS" \
	--ronx "$RESULTS/ronx-checks.json" --ktap "$RESULTS/linux.ktap" \
	--json "$RESULTS/linux-checks.json" --doc "$REPO/docs/linux-vs-ronx.md" || rc=$?
say "linux-check finished in $((SECONDS - t0))s (exit $rc)"
exit $rc
