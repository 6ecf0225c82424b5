/*
 * tools/binmatch.c -- matching dump modules to binaries by build-id.
 */
#include "binmatch.h"

#include <string.h>
#include <unistd.h>

static struct elf_info *candidate_info(struct bin_candidate *c)
{
	char err[ERRLEN];

	if (!c->info_read && elf_read_info(c->path, &c->info, err) < 0)
		memset(&c->info, 0, sizeof(c->info));
	c->info_read = true;
	return &c->info;
}

static bool id_equal(const struct elf_info *e, const struct dump_module *m)
{
	return e->build_id_len && e->build_id_len == m->build_id_len &&
	       !memcmp(e->build_id, m->build_id, m->build_id_len);
}

bool bin_matches(const struct dump_module *m, struct bin_candidate *c)
{
	if (!m->build_id_len)
		return !strcmp(path_basename(c->path), path_basename(m->path));
	return id_equal(candidate_info(c), m);
}

enum bin_verdict bin_check_recorded(const struct dump_module *m,
				    struct bin_candidate *rec)
{
	char err[ERRLEN];

	memset(rec, 0, sizeof(*rec));
	rec->path = m->path;
	rec->info_read = true;
	if (access(m->path, R_OK) != 0 ||
	    elf_read_info(m->path, &rec->info, err) < 0)
		return BIN_MISSING;
	/* Without a recorded build-id the path is all there is to go by. */
	return !m->build_id_len || id_equal(&rec->info, m) ? BIN_FOUND
							   : BIN_MISMATCH;
}

void bin_warn(const char *src, const struct dump_module *m,
	      enum bin_verdict v, const struct bin_candidate *rec, size_t npcs,
	      const char *consequence)
{
	char id[129], other[129];

	build_id_hex(m->build_id, m->build_id_len, id);
	if (v == BIN_MISMATCH) {
		build_id_hex(rec->info.build_id, rec->info.build_id_len, other);
		msg_warn("%s: no binary with build-id %s for module %s (%s is "
			 "another build: build-id %s); pass it on the command "
			 "line (its %zu PCs %s)", src, id, m->path, m->path,
			 other, npcs, consequence);
	} else if (m->build_id_len == 0) {
		/* Nothing to look for elsewhere (a trace file names its
		 * modules by path only; a binary linked without a
		 * build-id): the path alone did not lead to it. */
		msg_warn("%s: no binary for module %s; pass it on the command "
			 "line (its %zu PCs %s)",
			 src, m->path, npcs, consequence);
	} else {
		msg_warn("%s: no binary with build-id %s for module %s; pass it "
			 "on the command line (its %zu PCs %s)", src, id,
			 m->path, npcs, consequence);
	}
}
