/*
 * tools/pctable.c -- read the __ukcov_pcs section that ukcov's inline
 * plugins leave in an image (include/ukcov/inline.h): one 64-bit
 * address per point, the PC the point records, in no particular order
 * (each object's entries in its code's order, objects in link order),
 * like SanitizerCoverage's __sancov_pcs but without its flag words.
 *
 * In a position-independent image every entry is an R_X86_64_RELATIVE
 * dynamic relocation.  GNU ld also writes the value into the section;
 * other linkers may leave the addend only in the relocation (lld's
 * default for RELA targets, --apply-dynamic-relocs), so the relocations
 * are applied here.
 */
#include "pctable.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define PCS_SECTION "__ukcov_pcs"

static Elf_Scn *find_table(Elf *elf, size_t shstrndx, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && strcmp(name, PCS_SECTION) == 0)
			return scn;
	}
	return NULL;
}

/* RELATIVE relocations that land on an entry: the entry is the addend. */
static void apply_relative(Elf *elf, const GElf_Shdr *tab, uint64_t *pcs,
			   size_t n)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(sh.sh_flags & SHF_ALLOC) || sh.sh_entsize == 0)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			uint64_t off;

			if (!gelf_getrela(d, (int)i, &r))
				break;
			off = r.r_offset - tab->sh_addr;
			if (GELF_R_TYPE(r.r_info) == R_X86_64_RELATIVE &&
			    r.r_offset >= tab->sh_addr && off / 8 < n &&
			    off % 8 == 0)
				pcs[off / 8] = (uint64_t)r.r_addend;
		}
	}
}

/* Is pc - 1 an address in an executable section? */
static bool in_code(Elf *elf, uint64_t pc)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_type == SHT_PROGBITS && pc > sh.sh_addr &&
		    pc - 1 - sh.sh_addr < sh.sh_size)
			return true;
	}
	return false;
}

static long check_entries(Elf *elf, const uint64_t *pcs, size_t n,
			  struct pcvec *points, char err[ERRLEN])
{
	for (size_t i = 0; i < n; i++) {
		if (!in_code(elf, pcs[i])) {
			snprintf(err, ERRLEN, PCS_SECTION " entry %zu "
				 "(0x%llx) is not in executable code", i,
				 (unsigned long long)pcs[i]);
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++)
		pcvec_push(points, pcs[i] - 1);
	return (long)n;
}

long pctable_scan(Elf *elf, size_t shstrndx, struct pcvec *points,
		  char err[ERRLEN])
{
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Elf_Scn *scn = find_table(elf, shstrndx, &sh);
	Elf_Data *d;
	uint64_t *pcs;
	size_t n;
	long r;

	if (!scn)
		return 0;
	if (!gelf_getehdr(elf, &eh) || eh.e_type == ET_REL) {
		snprintf(err, ERRLEN, PCS_SECTION " in an unlinked object: "
			 "link it first");
		return -1;
	}
	d = elf_getdata(scn, NULL);
	if (!d || sh.sh_size % 8 != 0 || d->d_size != sh.sh_size) {
		snprintf(err, ERRLEN, PCS_SECTION ": size %llu is not a "
			 "multiple of 8", (unsigned long long)sh.sh_size);
		return -1;
	}
	n = d->d_size / 8;
	if (n == 0)
		return 0;
	pcs = xmalloc(d->d_size);
	memcpy(pcs, d->d_buf, d->d_size);
	apply_relative(elf, &sh, pcs, n);
	r = check_entries(elf, pcs, n, points, err);
	free(pcs);
	return r;
}
