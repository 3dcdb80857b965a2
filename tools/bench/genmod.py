#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write a module with K functions, K strings and K exports (so about 2K
relocations and 3K symbols), for measuring how the loader scales.
    usage: genmod.py K > gen.c"""
import sys

k = int(sys.argv[1])
print('#include <ronx/module.h>')
for i in range(k):
    print('static const char msg_%d[] = "gen %d\\n";' % (i, i))
    print('int gen_%d(int x) { printk(msg_%d); return x + %d; }' % (i, i, i))
    print('EXPORT_SYMBOL(gen_%d);' % i)
print('static int __init gen_init(void) { return gen_0(0); }')
print('module_init(gen_init);')
print('MODULE_LICENSE("GPL");')
