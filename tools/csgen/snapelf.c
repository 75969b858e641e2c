// SPDX-License-Identifier: GPL-2.0
/*
 * csgen snapshot ELF: the memory dumps of a snapshot as an ELF file that
 * perf reads the traced code from. ETMv3/PTM snapshots are 32-bit Arm,
 * ETMv4 ones AArch64. Code at 0xc0000000 and up (32-bit) or with bit 63 set
 * is kernel code: perf reads it through the kernel map (perf script
 * --vmlinux), which wants a .text section holding symbols; the rest is
 * user code, mapped into the writer's thread by an MMAP2 record.
 *
 * Layout: the dumps at file offset 0x1000 + (address - base), base being
 * the page of the lowest dump, so that one PT_LOAD maps them all; then the
 * symbols (one per dump), their names and the section headers.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csgen.h"

#define IMAGE_OFF	0x1000

static struct buf elf;
static int is64;

/* An address or offset: 4 or 8 bytes */
static void put_word(u64 v)
{
	if (is64)
		buf_u64(&elf, v);
	else
		buf_u32(&elf, v);
}

static void put_u16(unsigned int v)
{
	u8 b[2] = { v & 0xff, v >> 8 };

	buf_put(&elf, b, 2);
}

static void put_ehdr(u64 entry, u64 shoff, int shnum)
{
	u8 ident[EI_NIDENT] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
				is64 ? ELFCLASS64 : ELFCLASS32, ELFDATA2LSB, EV_CURRENT };

	buf_put(&elf, ident, sizeof(ident));
	put_u16(ET_EXEC);
	put_u16(is64 ? EM_AARCH64 : EM_ARM);
	buf_u32(&elf, EV_CURRENT);
	put_word(entry);
	put_word(is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));	/* phoff */
	put_word(shoff);
	buf_u32(&elf, is64 ? 0 : EF_ARM_EABI_VER5);
	put_u16(is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));
	put_u16(is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
	put_u16(1);
	put_u16(is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
	put_u16(shnum);
	put_u16(shnum - 1);	/* .shstrtab is the last section */
}

static void put_phdr(u64 vaddr, u64 size)
{
	buf_u32(&elf, PT_LOAD);
	if (is64)
		buf_u32(&elf, PF_R | PF_X);
	put_word(IMAGE_OFF);
	put_word(vaddr);
	put_word(vaddr);
	put_word(size);
	put_word(size);
	if (!is64)
		buf_u32(&elf, PF_R | PF_X);
	put_word(0x1000);
}

static void put_shdr(u32 name, u32 type, u64 flags, u64 addr, u64 off, u64 size,
		     u32 link, u32 info, u64 entsize)
{
	buf_u32(&elf, name);
	buf_u32(&elf, type);
	put_word(flags);
	put_word(addr);
	put_word(off);
	put_word(size);
	buf_u32(&elf, link);
	buf_u32(&elf, info);
	put_word(type == SHT_PROGBITS ? 4 : 8);
	put_word(entsize);
}

static void put_sym(struct buf *b, u32 name, u64 value, u64 size, int shndx)
{
	u8 info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	u8 sh[2] = { shndx & 0xff, shndx >> 8 };

	buf_u32(b, name);
	if (is64) {
		buf_put(b, &info, 1);
		buf_u8(b, 0);
		buf_put(b, sh, 2);
		buf_u64(b, value);
		buf_u64(b, size);
	} else {
		buf_u32(b, value);
		buf_u32(b, size);
		buf_put(b, &info, 1);
		buf_u8(b, 0);
		buf_put(b, sh, 2);
	}
}

/* The dump's file name without _dump.bin or .bin: the name of its symbol */
static void sym_name(struct buf *str, const struct snap_dump *d)
{
	const char *base = strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path;
	size_t n = strlen(base);

	if (n > 9 && !strcmp(base + n - 9, "_dump.bin"))
		n -= 9;
	else if (n > 4 && !strcmp(base + n - 4, ".bin"))
		n -= 4;
	buf_put(str, base, n);
	buf_u8(str, 0);
}

static void read_dump(const struct snap_dump *d, u8 *to)
{
	FILE *f = fopen(d->path, "rb");

	if (!f || fread(to, 1, d->len, f) != d->len)
		die("snapshot: cannot read %s", d->path);
	fclose(f);
}

void snap_write_elf(const char *path)
{
	struct buf sym = { 0 }, str = { 0 }, shstr = { 0 };
	u64 base = ~0ULL, end = 0, symoff, stroff, shstroff, shoff;
	u32 shname[SNAP_MAX_DUMPS + 4];
	int i, nd = snap.nr_dumps;
	FILE *f;

	is64 = snap.is64 = snap.cpu[0].proto == SNAP_ETMV4;
	for (i = 0; i < nd; i++) {
		if (snap.dump[i].addr < base)
			base = snap.dump[i].addr;
		if (snap.dump[i].addr + snap.dump[i].len > end)
			end = snap.dump[i].addr + snap.dump[i].len;
	}
	base &= ~0xfffULL;
	snap.kernel = is64 ? base >> 63 : base >= 0xc0000000ULL;
	if (!is64 && end > 0x100000000ULL)
		die("snapshot: 32-bit memory dumps beyond 4 GiB");
	if (end - base > 1ULL << 30)
		die("snapshot: the memory dumps span more than 1 GiB");
	map_start = base;
	map_len = ((end + 0xfff) & ~0xfffULL) - base;
	map_pgoff = IMAGE_OFF;

	/* the image: headers, then the dumps where their addresses say */
	elf.len = 0;
	while (elf.len < IMAGE_OFF + (end - base))
		buf_u8(&elf, 0);
	for (i = 0; i < nd; i++)
		read_dump(&snap.dump[i], elf.p + IMAGE_OFF + (snap.dump[i].addr - base));

	/* symbols: one per dump; section names */
	put_sym(&sym, 0, 0, 0, 0);
	buf_u8(&str, 0);
	buf_u8(&shstr, 0);
	for (i = 0; i < nd; i++) {
		put_sym(&sym, str.len, snap.dump[i].addr, snap.dump[i].len, i + 1);
		sym_name(&str, &snap.dump[i]);
		shname[i] = shstr.len;
		buf_put(&shstr, snap.dump[i].name, strlen(snap.dump[i].name) + 1);
	}
	shname[nd] = shstr.len;
	buf_put(&shstr, ".symtab", 8);
	shname[nd + 1] = shstr.len;
	buf_put(&shstr, ".strtab", 8);
	shname[nd + 2] = shstr.len;
	buf_put(&shstr, ".shstrtab", 10);

	symoff = elf.len;
	buf_put(&elf, sym.p, sym.len);
	stroff = elf.len;
	buf_put(&elf, str.p, str.len);
	shstroff = elf.len;
	buf_put(&elf, shstr.p, shstr.len);
	while (elf.len % 8)
		buf_u8(&elf, 0);
	shoff = elf.len;

	put_shdr(0, SHT_NULL, 0, 0, 0, 0, 0, 0, 0);
	for (i = 0; i < nd; i++)
		put_shdr(shname[i], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, snap.dump[i].addr,
			 IMAGE_OFF + (snap.dump[i].addr - base), snap.dump[i].len, 0, 0, 0);
	put_shdr(shname[nd], SHT_SYMTAB, 0, 0, symoff, sym.len, nd + 2, 1,
		 is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym));
	put_shdr(shname[nd + 1], SHT_STRTAB, 0, 0, stroff, str.len, 0, 0, 0);
	put_shdr(shname[nd + 2], SHT_STRTAB, 0, 0, shstroff, shstr.len, 0, 0, 0);

	/* and the headers in front */
	{
		struct buf image = elf;

		elf = (struct buf){ 0 };
		put_ehdr(snap.dump[0].addr, shoff, nd + 4);
		put_phdr(base, end - base);
		memcpy(image.p, elf.p, elf.len);
		free(elf.p);
		elf = image;
	}
	f = fopen(path, "wb");
	if (!f || fwrite(elf.p, 1, elf.len, f) != elf.len || fclose(f))
		die("cannot write %s", path);
	free(elf.p);
	free(sym.p);
	free(str.p);
	free(shstr.p);
}
