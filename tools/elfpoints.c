/*
 * tools/elfpoints.c -- coverage points of an x86-64 ELF binary, found by a
 * linear sweep of every executable section with capstone (aarch64 binaries:
 * tools/elfpoints_a64.c).
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
#include "pctable.h"
#include "x86len.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
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
	unsigned machine;	/* e_machine: which relocations name slots */
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

static bool is_slot_reloc(unsigned machine, unsigned type)
{
	if (machine == EM_AARCH64)
		return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT;
	return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
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
		if (!is_slot_reloc(t->machine, type))
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

/*
 * capstone is loaded on first use (dlopen), not with the program: the
 * length decoder steps over every instruction of most binaries by itself
 * (all 1.17 million of the sqlite benchmark's), and merely loading
 * libcapstone.so.4 costs 3.2 MB of resident memory (77,000 relocations
 * of its tables), 4.8 MB once it has decoded: a tenth of the tool's peak
 * (docs/PERFORMANCE.md, "Tool").  tools.mk passes the soname it links
 * against at build time.
 */
#ifndef CAPSTONE_SONAME
#define CAPSTONE_SONAME "libcapstone.so.4"
#endif

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_insn *(*alloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *,
			    cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
	bool loaded;
	char why[160];		/* dlerror() when not loaded */
} capstone;			/* (o): written once under capstone_once */
static pthread_once_t capstone_once = PTHREAD_ONCE_INIT;

static void *capstone_sym(void *h, const char *name)
{
	void *f = dlsym(h, name);

	if (!f && !capstone.why[0])
		snprintf(capstone.why, sizeof(capstone.why), "%s", dlerror());
	return f;
}

static void load_capstone(void)
{
	void *h = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(capstone.why, sizeof(capstone.why), "%s", dlerror());
		return;
	}
	*(void **)&capstone.open = capstone_sym(h, "cs_open");
	*(void **)&capstone.alloc = capstone_sym(h, "cs_malloc");
	*(void **)&capstone.disasm_iter = capstone_sym(h, "cs_disasm_iter");
	*(void **)&capstone.free = capstone_sym(h, "cs_free");
	*(void **)&capstone.close = capstone_sym(h, "cs_close");
	capstone.loaded = capstone.open && capstone.alloc &&
			  capstone.disasm_iter && capstone.free &&
			  capstone.close;
}

struct sweep {
	csh cs;			/* valid once insn is set */
	cs_insn *insn;		/* capstone's one reusable instruction */
	bool failed;		/* capstone could not be loaded or opened */
	bool capstone_only;	/* the oracle sweep (tests/tool/x86len_check.c) */
	struct targets *t;
	struct pcvec *points;	/* NULL while sweeping PLT sections */
	size_t tail_calls;	/* jmp to a PC callback: no usable point */
};

/* Load and open capstone for this sweep; false (sw->failed) if it
 * cannot be. */
static bool open_capstone(struct sweep *sw)
{
	pthread_once(&capstone_once, load_capstone);
	if (!capstone.loaded ||
	    capstone.open(CS_ARCH_X86, CS_MODE_64, &sw->cs) != CS_ERR_OK) {
		sw->failed = true;
		return false;
	}
	sw->insn = capstone.alloc(sw->cs);
	if (!sw->insn) {
		capstone.close(&sw->cs);
		sw->failed = true;
	}
	return sw->insn != NULL;
}

static void close_capstone(struct sweep *sw)
{
	if (sw->insn) {
		capstone.free(sw->insn, 1);
		capstone.close(&sw->cs);
		sw->insn = NULL;
	}
}

/* Length of the instruction at p: the table decoder first, capstone for
 * what it does not model (x86len.h).  0: capstone rejects the byte (or
 * is not available: sw->failed, and then not tried again). */
static unsigned insn_length(struct sweep *sw, const uint8_t *p, size_t left,
			    uint64_t a)
{
	unsigned n = sw->capstone_only ? 0 : x86len(p, left);

	if (n == 0 && !sw->failed && (sw->insn || open_capstone(sw)) &&
	    capstone.disasm_iter(sw->cs, &p, &left, &a, sw->insn))
		n = sw->insn->size;
	return n;
}

struct x86_decoder {
	struct sweep sw;
};

struct x86_decoder *x86_decoder_new(void)
{
	return xcalloc(1, sizeof(struct x86_decoder));
}

unsigned x86_decoder_len(struct x86_decoder *d, const uint8_t *p, size_t avail,
			 uint64_t addr)
{
	return insn_length(&d->sw, p, avail, addr);
}

void x86_decoder_free(struct x86_decoder *d)
{
	if (!d)
		return;
	close_capstone(&d->sw);
	free(d);
}

/* One instruction of a PLT section: a jmp through a callback's GOT slot
 * makes the enclosing stub a callback target. */
static void note_plt_stub(struct sweep *sw, enum branch br, uint64_t tg,
			  uint64_t insn_addr, uint64_t sec_addr, uint64_t entsize)
{
	uint64_t e = entsize ? entsize : 16;

	if (br == BR_JMP_MEM && vec_has(&sw->t->slots, tg))
		pcvec_push(&sw->t->funcs, sec_addr + (insn_addr - sec_addr) / e * e);
}

/* One instruction of a code section: a call to a PC callback is a point. */
static void note_call(struct sweep *sw, enum branch br, uint64_t tg,
		      uint64_t next_addr)
{
	if ((br == BR_CALL_REL && vec_has(&sw->t->funcs, tg)) ||
	    (br == BR_CALL_MEM && vec_has(&sw->t->slots, tg)))
		pcvec_push(sw->points, pc_to_point(EM_X86_64, next_addr));
	else if ((br == BR_JMP_REL && vec_has(&sw->t->funcs, tg)) ||
		 (br == BR_JMP_MEM && vec_has(&sw->t->slots, tg)))
		sw->tail_calls++;
}

/* Sweep one executable section linearly, as sancov does
 * (sancov.cpp findCoveragePointAddrs).  sw->points NULL: a PLT section. */
static void sweep_section(struct sweep *sw, const uint8_t *code, size_t size,
			  uint64_t addr, uint64_t entsize)
{
	size_t off = 0;

	while (off < size && !sw->failed) {
		unsigned n = insn_length(sw, code + off, size - off, addr + off);
		uint64_t tg;
		enum branch br;

		if (n == 0) {
			/* Undecodable byte: step over it, as sancov does. */
			off++;
			continue;
		}
		br = classify(code + off, n, addr + off, &tg);
		if (br != BR_NONE) {
			if (sw->points)
				note_call(sw, br, tg, addr + off + n);
			else
				note_plt_stub(sw, br, tg, addr + off, addr,
					      entsize);
		}
		off += n;
	}
}

uint64_t pc_to_point(unsigned machine, uint64_t pc)
{
	switch (machine) {
	case EM_AARCH64:
		return pc - 4;
	case EM_RISCV:
		return pc - 2;
	default:
		return pc - 1;
	}
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
		if (sw->failed) {
			snprintf(err, ERRLEN, "cannot use the disassembler "
				 "(%s): %s", CAPSTONE_SONAME, capstone.why[0] ?
				 capstone.why : "cs_open failed");
			return -1;
		}
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

/* The machine of a supported ELF image (0: not supported, err set). */
static unsigned check_header(Elf *elf, char err[ERRLEN])
{
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(err, ERRLEN, "not an ELF file");
		return 0;
	}
	if ((eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) ||
	    gelf_getclass(elf) != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		snprintf(err, ERRLEN, "unsupported machine (e_machine %u, "
			 "class %d): only x86-64 and aarch64 (little-endian) "
			 "binaries are supported",
			 eh.e_machine, gelf_getclass(elf));
		return 0;
	}
	return eh.e_machine;
}

static int scan_elf(Elf *elf, struct sweep *swp, struct pcvec *points,
		    char err[ERRLEN])
{
	struct targets t = { 0 };
	struct sweep sw = *swp;
	size_t shstrndx;
	long inline_n;
	int r = -1;

	t.machine = check_header(elf, err);
	if (t.machine == 0)
		return -1;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0) {
		snprintf(err, ERRLEN, "no section headers");
		return -1;
	}
	collect_targets(elf, &t);
	/* Points instrumented inline are listed, not called (pctable.c). */
	inline_n = pctable_scan(elf, shstrndx, points, err);
	if (inline_n < 0)
		goto out;
	if (t.funcs.n == 0 && t.slots.n == 0) {
		if (inline_n > 0) {
			pcvec_sort_unique(points, false);
			r = 0;
			goto out;
		}
		snprintf(err, ERRLEN, "__sanitizer_cov* functions not found: "
			 "the binary is not instrumented with trace-pc or "
			 "trace-pc-guard, or is stripped");
		goto out;
	}
	sw.t = &t;
	if (t.machine == EM_AARCH64)
		r = elfpoints_a64_sweep(elf, shstrndx, &t.funcs, &t.slots,
					points, &sw.tail_calls, err);
	else if (sweep_all(elf, shstrndx, &sw, true, err) == 0) {
		sw.points = points;
		r = sweep_all(elf, shstrndx, &sw, false, err);
	}
	close_capstone(&sw);
	pcvec_sort_unique(points, false);
	swp->tail_calls = sw.tail_calls;
out:
	pcvec_free(&t.funcs);
	pcvec_free(&t.slots);
	return r;
}

bool is_elf_image(const void *buf, size_t len)
{
	return len >= 4 && memcmp(buf, ELFMAG, SELFMAG) == 0;
}

static int scan_image(const void *buf, size_t len, struct sweep *sw,
		      struct pcvec *points, char err[ERRLEN])
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
	r = scan_elf(elf, sw, points, err);
	elf_end(elf);
	return r;
}

int elfpoints_scan(const void *buf, size_t len, struct pcvec *points,
		   char err[ERRLEN])
{
	struct sweep sw = { 0 };

	return scan_image(buf, len, &sw, points, err);
}

int elfpoints_scan_capstone(const void *buf, size_t len,
			    struct pcvec *points, char err[ERRLEN])
{
	struct sweep sw = { .capstone_only = true };

	return scan_image(buf, len, &sw, points, err);
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
	struct sweep sw = { 0 };
	int r = -1;

	if (p) {
		r = scan_image(p, len, &sw, points, err);
		munmap(p, len);
	}
	if (tail_calls)
		*tail_calls = sw.tail_calls;
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

/* The span of the executable PT_LOAD segments (what libukcov's unique
 * mode gives a bit per byte: lib/unique.c, "Direct bits"). */
static uint64_t text_span(Elf *elf)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
	}
	return hi > lo ? hi - lo : 0;
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
	info->machine = eh.e_machine;
	info->text_span = text_span(elf);
	read_build_id(elf, info);
	elf_end(elf);
	munmap(p, len);
	return 0;
}
