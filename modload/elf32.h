/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf32.h - just enough of ELF32 (the System V gABI and the i386 psABI)
 * to read relocatable objects. Written out here rather than taken from
 * the host's <elf.h> so that the kernel and host builds read the same
 * definitions.
 */
#ifndef RONX_ELF32_H
#define RONX_ELF32_H
#include <stdint.h>

typedef uint32_t Elf32_Addr;
typedef uint32_t Elf32_Off;
typedef uint16_t Elf32_Half;
typedef uint32_t Elf32_Word;
typedef int32_t  Elf32_Sword;

#define EI_NIDENT	16
#define EI_MAG0		0		/* 0x7f 'E' 'L' 'F' */
#define EI_CLASS	4
#define EI_DATA		5
#define EI_VERSION	6
#define ELFMAG		"\177ELF"
#define SELFMAG		4
#define ELFCLASS32	1
#define ELFDATA2LSB	1
#define EV_CURRENT	1

#define ET_REL		1
#define ET_EXEC		2
#define ET_DYN		3
#define EM_386		3

typedef struct {
	unsigned char e_ident[EI_NIDENT];
	Elf32_Half e_type;
	Elf32_Half e_machine;
	Elf32_Word e_version;
	Elf32_Addr e_entry;
	Elf32_Off  e_phoff;
	Elf32_Off  e_shoff;
	Elf32_Word e_flags;
	Elf32_Half e_ehsize;
	Elf32_Half e_phentsize;
	Elf32_Half e_phnum;
	Elf32_Half e_shentsize;
	Elf32_Half e_shnum;
	Elf32_Half e_shstrndx;
} Elf32_Ehdr;

/* Program headers: how an executable asks to be loaded. */
typedef struct {
	Elf32_Word p_type;
	Elf32_Off  p_offset;
	Elf32_Addr p_vaddr;
	Elf32_Addr p_paddr;
	Elf32_Word p_filesz;
	Elf32_Word p_memsz;
	Elf32_Word p_flags;
	Elf32_Word p_align;
} Elf32_Phdr;

#define PT_NULL		0
#define PT_LOAD		1
#define PT_DYNAMIC	2
#define PT_INTERP	3
#define PT_GNU_STACK	0x6474e551
#define PF_X		0x1
#define PF_W		0x2
#define PF_R		0x4

/* Section types */
#define SHT_NULL	0
#define SHT_PROGBITS	1
#define SHT_SYMTAB	2
#define SHT_STRTAB	3
#define SHT_RELA	4
#define SHT_NOBITS	8
#define SHT_REL		9

/* Section flags */
#define SHF_WRITE	0x1
#define SHF_ALLOC	0x2
#define SHF_EXECINSTR	0x4

/* Special section indices */
#define SHN_UNDEF	0
#define SHN_LORESERVE	0xff00
#define SHN_ABS		0xfff1
#define SHN_COMMON	0xfff2
#define SHN_XINDEX	0xffff

typedef struct {
	Elf32_Word sh_name;
	Elf32_Word sh_type;
	Elf32_Word sh_flags;
	Elf32_Addr sh_addr;
	Elf32_Off  sh_offset;
	Elf32_Word sh_size;
	Elf32_Word sh_link;
	Elf32_Word sh_info;
	Elf32_Word sh_addralign;
	Elf32_Word sh_entsize;
} Elf32_Shdr;

typedef struct {
	Elf32_Word st_name;
	Elf32_Addr st_value;
	Elf32_Word st_size;
	unsigned char st_info;
	unsigned char st_other;
	Elf32_Half st_shndx;
} Elf32_Sym;

#define ELF32_ST_BIND(i)	((i) >> 4)
#define ELF32_ST_TYPE(i)	((i) & 0xf)
#define STB_LOCAL	0
#define STB_GLOBAL	1
#define STB_WEAK	2
#define STT_NOTYPE	0
#define STT_OBJECT	1
#define STT_FUNC	2
#define STT_SECTION	3
#define STT_FILE	4

typedef struct {
	Elf32_Addr r_offset;
	Elf32_Word r_info;
} Elf32_Rel;

#define ELF32_R_SYM(i)	((i) >> 8)
#define ELF32_R_TYPE(i)	((unsigned char)(i))

/* i386 relocation types (psABI table 4.x); only 32 and PC32 are applied */
#define R_386_NONE	0
#define R_386_32	1
#define R_386_PC32	2
#define R_386_GOT32	3
#define R_386_PLT32	4
#define R_386_COPY	5
#define R_386_GLOB_DAT	6
#define R_386_JMP_SLOT	7
#define R_386_RELATIVE	8
#define R_386_GOTOFF	9
#define R_386_GOTPC	10
#define R_386_32PLT	11
#define R_386_16	20
#define R_386_PC16	21
#define R_386_8		22
#define R_386_PC8	23
#define R_386_GOT32X	43

#endif
