/*
 * tools/elfpoints.c -- coverage points of an x86-64 ELF binary, found by a
 * linear sweep of every executable section with capstone.
 *
 * LLVM sancov (sancov.cpp findCoveragePointAddrs) counts only direct calls
 * to a *defined* __sanitizer_cov_trace_pc_guard (and three legacy names).
 * We also count __sanitizer_cov_trace_pc (gcc and clang trace-pc builds),
 * calls through a PLT stub (.plt, .plt.sec, .plt.got) and calls through a
 * GOT slot (-fno-plt), so shared libraries and binaries that import the
 * callbacks from libukcov.so work.  On trace-pc-guard binaries the point
 * set equals sancov's.
 */
#include "elfpoints.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The PC callbacks: one call to any of them is one coverage point. */
static const char *const pc_callbacks[] = {
	"__sanitizer_cov_trace_pc_guard",
	"__sanitizer_cov_trace_pc",
	"__sanitizer_cov",
	"__sanitizer_cov_with_check",
	"__sanitizer_cov_trace_func_enter",
};

/* Addresses that count as "the callback": definitions, GOT slots and PLT
 * stubs.  A handful of entries: linear search is the fastest lookup. */
struct targets {
	struct pcvec funcs;	/* defined callback entry points + PLT stubs */
	struct pcvec slots;	/* GOT slots holding a callback's address */
};

static bool is_pc_callback(const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(pc_callbacks) / sizeof(*pc_callbacks);
	     i++)
		if (strcmp(name, pc_callbacks[i]) == 0)
			return true;
	return false;
}

static bool vec_has(const struct pcvec *pv, uint64_t a)
{
	for (size_t i = 0; i < pv->n; i++)
		if (pv->v[i] == a)
			return true;
	return false;
}

/* Defined callback symbols of one symbol table. */
static void collect_defined(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			    struct targets *t)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n;

	if (!d || sh->sh_entsize == 0)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		if (is_pc_callback(elf_strptr(elf, sh->sh_link, sym.st_name)) &&
		    !vec_has(&t->funcs, sym.st_value))
			pcvec_push(&t->funcs, sym.st_value);
	}
}

/* GOT slots whose relocation names a callback (JUMP_SLOT, GLOB_DAT). */
static void collect_slots(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			  struct targets *t)
{
	Elf_Data *d = elf_getdata(scn, NULL), *symd;
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	size_t n;

	if (!d || !symscn || !gelf_getshdr(symscn, &symsh) ||
	    sh->sh_entsize == 0)
		return;
	symd = elf_getdata(symscn, NULL);
	if (!symd)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		unsigned type;

		if (!gelf_getrela(d, (int)i, &r))
			break;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (!gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		if (is_pc_callback(elf_strptr(elf, symsh.sh_link, sym.st_name)))
			pcvec_push(&t->slots, r.r_offset);
	}
}

/* Decoded shape of a call/jmp we care about. */
enum branch { BR_NONE, BR_CALL_REL, BR_CALL_MEM, BR_JMP_REL, BR_JMP_MEM };

/* Classify an instruction from its bytes: call/jmp rel32, call/jmp [rip+d32],
 * after bnd/notrack/segment prefixes.  *target gets the absolute target
 * (rel) or GOT slot (mem). */
static enum branch classify(const uint8_t *b, size_t size, uint64_t addr,
			    uint64_t *target)
{
	size_t i = 0;
	int32_t d;

	while (i < size && (b[i] == 0xf2 || b[i] == 0x3e || b[i] == 0x2e))
		i++;
	if (i + 5 == size && (b[i] == 0xe8 || b[i] == 0xe9)) {
		memcpy(&d, b + i + 1, 4);
		*target = addr + size + (uint64_t)(int64_t)d;
		return b[i] == 0xe8 ? BR_CALL_REL : BR_JMP_REL;
	}
	if (i + 6 == size && b[i] == 0xff &&
	    (b[i + 1] == 0x15 || b[i + 1] == 0x25)) {
		memcpy(&d, b + i + 2, 4);
		*target = addr + size + (uint64_t)(int64_t)d;
		return b[i + 1] == 0x15 ? BR_CALL_MEM : BR_JMP_MEM;
	}
	return BR_NONE;
}

struct sweep {
	csh cs;
	struct targets *t;
	struct pcvec *points;	/* NULL while sweeping PLT sections */
	size_t tail_calls;	/* jmp to a PC callback: no usable point */
};

/* Sweep one executable section.  In a PLT section, a jmp through a
 * callback's GOT slot makes the enclosing stub a callback target. */
static void sweep_section(struct sweep *sw, const uint8_t *code, size_t size,
			  uint64_t addr, uint64_t entsize)
{
	cs_insn *insn = cs_malloc(sw->cs);
	const uint8_t *p = code;
	uint64_t a = addr;
	size_t left = size;

	while (left > 0) {
		uint64_t tg;
		enum branch br;

		if (!cs_disasm_iter(sw->cs, &p, &left, &a, insn)) {
			/* Undecodable byte: step over it, as sancov does. */
			p++, left--, a++;
			continue;
		}
		br = classify(insn->bytes, insn->size, insn->address, &tg);
		if (!sw->points) {
			if (br == BR_JMP_MEM && vec_has(&sw->t->slots, tg)) {
				uint64_t e = entsize ? entsize : 16;
				uint64_t stub = addr +
					(insn->address - addr) / e * e;

				pcvec_push(&sw->t->funcs, stub);
			}
			continue;
		}
		if ((br == BR_CALL_REL && vec_has(&sw->t->funcs, tg)) ||
		    (br == BR_CALL_MEM && vec_has(&sw->t->slots, tg)))
			pcvec_push(sw->points, insn->address + insn->size - 1);
		else if ((br == BR_JMP_REL && vec_has(&sw->t->funcs, tg)) ||
			 (br == BR_JMP_MEM && vec_has(&sw->t->slots, tg)))
			sw->tail_calls++;
	}
	cs_free(insn, 1);
}

static bool is_plt_name(const char *name)
{
	return name && strncmp(name, ".plt", 4) == 0;
}

/* Sweep the PLT sections (plt == true) or all other code sections. */
static int sweep_all(Elf *elf, size_t shstrndx, struct sweep *sw, bool plt,
		     char err[ERRLEN])
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (is_plt_name(elf_strptr(elf, shstrndx, sh.sh_name)) != plt)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size == 0)
			continue;
		if (d->d_size > sh.sh_size || sh.sh_addr + d->d_size <
						    sh.sh_addr) {
			snprintf(err, ERRLEN, "corrupt section header");
			return -1;
		}
		sweep_section(sw, d->d_buf, d->d_size, sh.sh_addr,
			      sh.sh_entsize);
	}
	return 0;
}

static void collect_targets(Elf *elf, struct targets *t)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			collect_defined(elf, scn, &sh, t);
		else if (sh.sh_type == SHT_RELA)
			collect_slots(elf, scn, &sh, t);
	}
}

static int check_header(Elf *elf, char err[ERRLEN])
{
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(err, ERRLEN, "not an ELF file");
		return -1;
	}
	if (eh.e_machine != EM_X86_64 ||
	    gelf_getclass(elf) != ELFCLASS64) {
		snprintf(err, ERRLEN, "unsupported machine (e_machine %u, "
			 "class %d): only x86-64 binaries are supported",
			 eh.e_machine, gelf_getclass(elf));
		return -1;
	}
	return 0;
}

static int scan_elf(Elf *elf, struct pcvec *points, size_t *tail_calls,
		    char err[ERRLEN])
{
	struct targets t = { 0 };
	struct sweep sw = { .t = &t };
	size_t shstrndx;
	int r = -1;

	if (check_header(elf, err) < 0)
		return -1;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0) {
		snprintf(err, ERRLEN, "no section headers");
		return -1;
	}
	collect_targets(elf, &t);
	if (t.funcs.n == 0 && t.slots.n == 0) {
		snprintf(err, ERRLEN, "__sanitizer_cov* functions not found: "
			 "the binary is not instrumented with trace-pc or "
			 "trace-pc-guard, or is stripped");
		goto out;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &sw.cs) != CS_ERR_OK) {
		snprintf(err, ERRLEN, "cannot initialise the disassembler");
		goto out;
	}
	if (sweep_all(elf, shstrndx, &sw, true, err) == 0) {
		sw.points = points;
		r = sweep_all(elf, shstrndx, &sw, false, err);
	}
	cs_close(&sw.cs);
	pcvec_sort_unique(points, false);
	if (tail_calls)
		*tail_calls = sw.tail_calls;
out:
	pcvec_free(&t.funcs);
	pcvec_free(&t.slots);
	return r;
}

bool is_elf_image(const void *buf, size_t len)
{
	return len >= 4 && memcmp(buf, ELFMAG, SELFMAG) == 0;
}

static int scan_image(const void *buf, size_t len, struct pcvec *points,
		      size_t *tail_calls, char err[ERRLEN])
{
	Elf *elf;
	int r;

	elf_version(EV_CURRENT);
	if (!is_elf_image(buf, len)) {
		snprintf(err, ERRLEN, "not an ELF file");
		return -1;
	}
	/* ELF_C_READ_MMAP_PRIVATE never writes to a native-order image. */
	elf = elf_memory((char *)(uintptr_t)buf, len);
	if (!elf) {
		snprintf(err, ERRLEN, "not a valid ELF file: %s",
			 elf_errmsg(-1));
		return -1;
	}
	r = scan_elf(elf, points, tail_calls, err);
	elf_end(elf);
	return r;
}

int elfpoints_scan(const void *buf, size_t len, struct pcvec *points,
		   char err[ERRLEN])
{
	return scan_image(buf, len, points, NULL, err);
}

/* Map a file read-only (copy-on-write) for libelf. */
static void *map_file(const char *path, size_t *len, char err[ERRLEN])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, ERRLEN, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		snprintf(err, ERRLEN, "%s",
			 S_ISDIR(st.st_mode) ? "is a directory" :
			 "not an ELF file (empty or not a regular file)");
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err, ERRLEN, "%s", strerror(errno));
		return NULL;
	}
	*len = (size_t)st.st_size;
	return p;
}

static int load_points(const char *path, struct pcvec *points,
		       size_t *tail_calls, char err[ERRLEN])
{
	size_t len;
	void *p = map_file(path, &len, err);
	int r = -1;

	if (p) {
		r = scan_image(p, len, points, tail_calls, err);
		munmap(p, len);
	}
	return r;
}

int elfpoints_load(const char *path, struct pcvec *points)
{
	char err[ERRLEN];
	int r = load_points(path, points, NULL, err);

	if (r < 0)
		msg_error("%s: %s", path, err);
	return r;
}

size_t elfpoints_tail_calls(const char *path)
{
	struct pcvec pv = { 0 };
	char err[ERRLEN];
	size_t n = 0;

	if (load_points(path, &pv, &n, err) < 0)
		n = 0;
	pcvec_free(&pv);
	return n;
}

static void read_build_id(Elf *elf, struct elf_info *info)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz <= sizeof(info->build_id)) {
				memcpy(info->build_id, (char *)d->d_buf + doff,
				       nh.n_descsz);
				info->build_id_len = nh.n_descsz;
				return;
			}
		}
	}
}

int elf_read_info(const char *path, struct elf_info *info, char err[ERRLEN])
{
	size_t len;
	void *p = map_file(path, &len, err);
	GElf_Ehdr eh;
	Elf *elf;

	memset(info, 0, sizeof(*info));
	if (!p)
		return -1;
	elf_version(EV_CURRENT);
	elf = is_elf_image(p, len) ? elf_memory(p, len) : NULL;
	if (!elf || !gelf_getehdr(elf, &eh)) {
		snprintf(err, ERRLEN, "not an ELF file");
		if (elf)
			elf_end(elf);
		munmap(p, len);
		return -1;
	}
	info->elf_type = eh.e_type;
	read_build_id(elf, info);
	elf_end(elf);
	munmap(p, len);
	return 0;
}
