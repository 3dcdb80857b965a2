#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# ronx's user programs in a Linux guest: /init (linux/init.sh) runs this
# when the command line says ronx_user=tests, ronx_user=bench (Debian's
# kernel) or ronx_user=nx (the small kernels, linux/user_nx.py). Each
# line of /ubin/RUN.MODE (written by tests/user/progs.py) is one run:
#
#	KEY TIMEOUT INPUT HOW PROG ARGS...
#
# HOW is "one", or "cpu0": pinned to CPU 0 (the yield benchmark's
# ping-pong, whose two copies fork from one). The output goes to the serial console between
# marker lines that linux/user.py reads back, with the exit status as
# the shell gives it ($? is 128+N when signal N killed the program) and
# the kernel's messages of that run (its "segfault at" line).
mode=$(sed -n 's/.*ronx_user=\([a-z]*\).*/\1/p' /proc/cmdline)
cd /ubin || exit 1
mkdir -p /tmp
[ -e /dev/null ] || mount -t devtmpfs devtmpfs /dev
echo "=== ronx-user: mode $mode, kernel $(uname -r), $(nproc) CPU"
dmesg | grep -i 'page tables isolation' | sed 's/^\[[^]]*\] /=== ronx-user: boot /'
# Kernel messages only through dmesg from here on: on the console they
# would cut into the programs' output.
dmesg -n 1
dmesg -c >/dev/null
while read -r key timeout input how prog args; do
	in=/dev/null
	[ "$input" = - ] || in=/ubin/$input
	echo "=== ronx-user: run $key: $prog $args"
	if [ "$how" = cpu0 ]; then
		taskset 1 ./$prog $args <$in >/tmp/out 2>&1
		st=$?
	elif [ "$timeout" != 0 ]; then
		timeout -s KILL "$timeout" ./$prog $args <$in >/tmp/out 2>&1
		st=$?
	else
		./$prog $args <$in >/tmp/out 2>&1
		st=$?
	fi
	cat /tmp/out
	[ -z "$(tail -c 1 /tmp/out)" ] || echo
	echo "=== ronx-user: status $key $st"
	dmesg -c | sed 's/^\[[^]]*\] //; s/^/=== ronx-user: dmesg /'
done <RUN.$mode
# Leave spin running alone: the host stops the guest in it and reads its
# page tables through QEMU's monitor (linux/boot.py --user).
if [ "$mode" = tests ] || [ "$mode" = nx ]; then
	./spin </dev/null >/tmp/spin.out 2>&1 &
	until grep -q looping /tmp/spin.out; do sleep 1; done
	sed 's/^/=== ronx-user: walk /' /tmp/spin.out
	sed 's/^/=== ronx-user: maps /' /proc/$!/maps
fi
echo "=== ronx-user: done"
