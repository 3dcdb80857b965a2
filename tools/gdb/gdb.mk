# SPDX-License-Identifier: GPL-2.0-only
# The pure page-table code (walk, regions, ptdump), built for the host as a
# shared library that gdb's Python commands load with ctypes
# (tools/gdb/ronx.py): ronx-walk and ronx-ptdump print with the kernel's
# own code, so their lines are the shell's lines.
GDB_LIB := $(B)/host/libronx-pt.so
GDB_LIB_SRCS := mm/walk_format.c mm/effective_prot.c mm/va_region.c mm/ptdump_walk.c mm/ptdump_format.c \
	kernel/vsprintf.c kernel/kstrtox.c

# -Bsymbolic: the library's snprintf calls are the kernel's, not libc's
$(GDB_LIB): $(GDB_LIB_SRCS) include/ronx/walk.h include/ronx/ptdump.h include/ronx/pageflags.h \
		include/ronx/pgtable_types.h tools/gdb/gdb.mk | $(SETUP)
	@mkdir -p $(dir $@)
	$(HOST_CC) -shared -fPIC -O2 -g -std=gnu11 -Wall -Wextra -Werror -Iinclude \
		-Wl,-Bsymbolic -o $@ $(GDB_LIB_SRCS)
