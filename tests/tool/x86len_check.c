/*
 * tests/tool/x86len_check.c -- the x86-64 length decoder (tools/x86len.c)
 * against its oracle, capstone.
 *
 *   x86len-check --exhaustive
 *	every prefix combination in a list x both opcode maps x all 256
 *	ModRM bytes x SIB variants: wherever the decoder answers, its length
 *	must be capstone's (0 = capstone rejects the bytes).
 *   x86len-check --lengths HEX...
 *	for each instruction given as hex bytes ("8e d0"), print the
 *	decoder's length and capstone's, one line each: the tests compare
 *	them with objdump's, so an encoding the decoder wrongly refuses
 *	(length 0) is seen, which the other modes skip.
 *   x86len-check FILE...
 *	sweep every executable section of each ELF file the way elfpoints.c
 *	does, with capstone only, and check the decoder at every instruction
 *	boundary; then compare the coverage-point sets of the two sweeps
 *	(elfpoints_scan vs elfpoints_scan_capstone): identical, exactly.
 *
 * Prints one line per disagreement (at most 50), a summary, and exits 1
 * if there was any.
 */
#include "elfpoints.h"
#include "x86len.h"

#include <capstone/capstone.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MAX_REPORT
#define MAX_REPORT 50
#endif

static csh cs;
static cs_insn *insn;
static unsigned long mismatches, known, asked;

/* capstone's length for the bytes, 0 if it rejects them. */
static unsigned cs_len(const uint8_t *code, size_t avail, uint64_t addr)
{
	const uint8_t *p = code;
	size_t left = avail;

	return cs_disasm_iter(cs, &p, &left, &addr, insn) ? insn->size : 0;
}

static void report(const char *where, const uint8_t *b, unsigned mine,
		   unsigned theirs)
{
	if (++mismatches > MAX_REPORT)
		return;
	printf("MISMATCH %s: x86len %u, capstone %u:", where, mine, theirs);
	for (unsigned i = 0; i < 15; i++)
		printf(" %02x", b[i]);
	printf("\n");
}

/* One candidate: decoder vs capstone. */
static void compare(const uint8_t *b, size_t avail, const char *where)
{
	unsigned mine = x86len(b, avail), theirs;

	asked++;
	if (mine == 0)
		return;
	known++;
	theirs = cs_len(b, avail, 0x1000);
	if (mine != theirs)
		report(where, b, mine, theirs);
}

/* Prefix sequences compilers emit, and some they do not. */
static const char *const prefixes[] = {
	"", "66", "67", "f2", "f3", "f0", "2e", "3e", "26", "36", "64", "65",
	"48", "40", "41", "44", "4c", "4f", "66 48", "66 41", "66 66",
	"66 2e", "66 66 2e", "f2 48", "f3 48", "f2 66", "66 f2", "f3 66",
	"66 f3", "f2 f3", "f3 f2", "67 48", "48 66", "48 48", "f3 0f",
	"67 66", "64 48", "f0 48", "f2 41", "f3 4c", "66 4c", "66 67",
};

static size_t parse_hex_bytes(const char *s, uint8_t *out)
{
	size_t n = 0;

	while (*s) {
		unsigned v;
		int used;

		if (sscanf(s, " %2x%n", &v, &used) != 1)
			break;
		out[n++] = (uint8_t)v;
		s += used;
	}
	return n;
}

static void exhaustive(void)
{
	static const uint8_t sibs[] = { 0x00, 0x05, 0x24, 0x25, 0x65, 0xe4 };

	for (size_t p = 0; p < sizeof(prefixes) / sizeof(*prefixes); p++) {
		for (unsigned map = 0; map < 2; map++) {
			for (unsigned op = 0; op < 256; op++) {
				for (unsigned m = 0; m < 256; m++) {
					for (size_t s = 0; s < sizeof(sibs); s++) {
						uint8_t b[32];
						size_t n = parse_hex_bytes(prefixes[p], b);
						char where[64];

						if (map)
							b[n++] = 0x0f;
						b[n++] = (uint8_t)op;
						b[n++] = (uint8_t)m;
						b[n++] = sibs[s];
						for (size_t k = n; k < sizeof(b); k++)
							b[k] = (uint8_t)(0x11 * (k - n + 1));
						snprintf(where, sizeof(where), "pfx '%s' map %u op %02x",
							 prefixes[p], map + 1, op);
						compare(b, sizeof(b), where);
						/* truncated: the decoder must not read past avail */
						compare(b, n - 1, where);
						if ((m & 7) != 4 || (m >> 6) == 3)
							break;
					}
				}
			}
		}
	}
}

/* Sweep one section with capstone, checking the decoder at each step. */
static void check_section(const char *file, const uint8_t *code, size_t size,
			  uint64_t addr)
{
	size_t off = 0;

	while (off < size) {
		size_t left = size - off;
		unsigned theirs = cs_len(code + off, left, addr + off);
		unsigned mine = x86len(code + off, left);
		char where[300];
		uint8_t b[15] = { 0 };

		asked++;
		if (mine) {
			known++;
			if (mine != theirs) {
				memcpy(b, code + off, left < 15 ? left : 15);
				snprintf(where, sizeof(where), "%s 0x%" PRIx64,
					 file, addr + (uint64_t)off);
				report(where, b, mine, theirs);
			}
		}
		off += theirs ? theirs : 1;
	}
}

static int check_file(const char *path)
{
	char *buf;
	size_t len;
	Elf *elf;
	Elf_Scn *scn = NULL;
	struct pcvec a = { 0 }, b = { 0 };
	char err[ERRLEN];
	int r = 0;

	if (read_whole_file(path, &buf, &len) < 0) {
		fprintf(stderr, "%s: cannot read\n", path);
		return -1;
	}
	elf = elf_memory(buf, len);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			check_section(path, d->d_buf, d->d_size, sh.sh_addr);
	}
	if (elf)
		elf_end(elf);
	if (elfpoints_scan(buf, len, &a, err) == 0 &&
	    elfpoints_scan_capstone(buf, len, &b, err) == 0) {
		if (a.n != b.n || memcmp(a.v, b.v, a.n * sizeof(*a.v)) != 0) {
			printf("MISMATCH %s: point sets differ (%zu vs %zu)\n",
			       path, a.n, b.n);
			mismatches++;
		} else {
			printf("%s: %zu points, identical\n", path, a.n);
		}
	} else {
		printf("%s: no coverage points (%s)\n", path, err);
	}
	pcvec_free(&a);
	pcvec_free(&b);
	free(buf);
	return r;
}

/* "--lengths": one line per instruction, "HEX: x86len N, capstone M". */
static void lengths(int n, char **hex)
{
	for (int i = 0; i < n; i++) {
		uint8_t b[32] = { 0 };
		size_t len;

		/* 3 characters a byte, 15 bytes at most: b holds them */
		if (strlen(hex[i]) > 45) {
			printf("%s: too long\n", hex[i]);
			continue;
		}
		len = parse_hex_bytes(hex[i], b);
		printf("%s: x86len %u, capstone %u\n", hex[i], x86len(b, len),
		       cs_len(b, len, 0x1000));
	}
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: x86len-check --exhaustive | "
			"--lengths HEX... | FILE...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 2;
	insn = cs_malloc(cs);
	if (strcmp(argv[1], "--lengths") == 0) {
		lengths(argc - 2, argv + 2);
		cs_free(insn, 1);
		cs_close(&cs);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--exhaustive") == 0)
			exhaustive();
		else if (check_file(argv[i]) < 0)
			rc = 1;
	}
	printf("%lu decoded by x86len of %lu (%.1f%%), %lu disagreements "
	       "with capstone\n", known, asked,
	       asked ? 100.0 * (double)known / (double)asked : 0.0,
	       mismatches);
	cs_free(insn, 1);
	cs_close(&cs);
	return rc || mismatches ? 1 : 0;
}
