#!/bin/busybox sh
# /init of the test initramfs: load ronx_peer, record what the kernel
# says about its own protections, then wait for the host to read the
# page tables through QEMU's monitor. Output goes to the serial console.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

# Block until the host quits QEMU after reading the monitor (boot.py
# kills QEMU on its timeout). A FIFO with no writer needs no timer:
# "sleep" returned at once on the tinyconfig kernel.
wait_for_host() {
	mkdir -p /tmp && mkfifo /tmp/wait && read -r _ </tmp/wait
	echo "=== ronx-peer: wait failed, rebooting"
	reboot -f
}

# ronx's user programs instead of the module's checks (linux/user.py)
if grep -q 'ronx_user=' /proc/cmdline && [ -f /ubin/run.sh ]; then
	/bin/busybox sh /ubin/run.sh
	wait_for_host
fi

# The bugs of ronx's crash command, made on Linux by ronx_crash.ko, one
# per subshell: a caught one ends that subshell with an oops, and the
# kernel goes on. Each name's console lines are printed (dmesg -c) after
# it, between markers (linux/crashes.py reads them). The last one,
# CORRUPT_STACK, panics: its lines are the console's to the end.
if grep -q 'ronx_crash' /proc/cmdline && [ -e /ronx_crash.ko ]; then
	insmod /ronx_crash.ko || echo "=== ronx-crash: insmod failed"
	dmesg -c >/dev/null
	for name in $(cat /sys/kernel/debug/ronx-crash/DIRECT); do
		echo "=== ronx-crash: begin $name"
		(echo "$name" >/sys/kernel/debug/ronx-crash/DIRECT)
		echo "=== ronx-crash: status $?"
		dmesg -c
		echo "=== ronx-crash: end $name"
	done
	echo "=== ronx-crash: done"
	wait_for_host
fi

echo "=== ronx-peer: cmdline $(cat /proc/cmdline)"
echo "=== ronx-peer: kernel $(uname -r)"

# The expected state of 640K-1M depends on whether the kernel uses the
# PCI BIOS; the kernel says so in this boot line.
pcibios_x=0
dmesg | grep -q 'PCI BIOS area is rw and x' && pcibios_x=1
echo "=== ronx-peer: pcibios_x=$pcibios_x"
if [ -e /ronx_peer.ko ]; then
	insmod /ronx_peer.ko pcibios_x=$pcibios_x || echo "=== ronx-peer: insmod failed"
	# After init returned: ro_after_init is read-only now.
	echo 1 >/sys/module/ronx_peer/parameters/post_init || echo "=== ronx-peer: post_init failed"
fi

echo "=== ronx-peer: sections"
for f in /sys/module/ronx_peer/sections/.* /sys/module/ronx_peer/sections/*; do
	[ -f "$f" ] && echo "section ${f##*/} $(cat "$f")"
done
echo "=== ronx-peer: iomem"
grep -i kernel /proc/iomem
echo "=== ronx-peer: dmesg"
dmesg
echo "=== ronx-peer: dmesg end"
# In 6.12 (not in 6.1) reading this debugfs file re-runs the kernel
# tables' W+X check, here with userspace running; after the dmesg
# capture so the boot-time verdicts stay the only ones above.
if [ -r /sys/kernel/debug/check_wx_pages ]; then
	r=$(cat /sys/kernel/debug/check_wx_pages)
	echo "=== ronx-peer: check_wx_pages $r ($(dmesg | grep 'Checked W+X' | tail -n 1 | sed 's/^\[[^]]*\] //'))"
fi
if [ -r /sys/kernel/debug/page_tables/kernel ]; then
	echo "=== ronx-peer: page_tables"
	cat /sys/kernel/debug/page_tables/kernel
	echo "=== ronx-peer: page_tables end"
fi
echo "=== ronx-peer: ready-for-tlb"
wait_for_host
