/*
 * plugins/gcc/ukcov_inline_gcc.cc -- inline kcov points for gcc 12.
 *
 *	gcc -fplugin=.../ukcov-inline-gcc.so -g -O2 -c f.c
 *
 * Instruments the blocks gcc's own -fsanitize-coverage=trace-pc would
 * (gcc/sancov.cc: every block with a statement, at its first
 * statement after the labels, with that statement's location), with the
 * code of include/ukcov/inline.h, ABI 2.  Function f gets
 *
 *	m = __ukcov_imap + __ukcov_tu + fb	at its entry and after every
 *						call: one asm (map_seq), a
 *						value gcc keeps in a register
 *						(SSA, with PHIs)
 *
 * and each instrumented block one volatile asm statement, point k:
 *
 *	testb	$(1 << (k & 7)), (k >> 3) - fb(m)
 *   L:	je	cold				L is in __ukcov_pcs
 *   back:
 *	...the block...
 *   cold (section .text.unlikely.ukcov.f):
 *	skip the red zone; push rdi, rsi; rdi = L; esi = k
 *	call .Lukcov_thunk			r11 = &__ukcov_tu, jump to
 *						__ukcov_inline_pc_v2_gcc,
 *						which restores rdi, rsi and
 *						returns over them and the
 *						red zone
 *	jmp back
 *
 * The assembler numbers the points: each statement takes k from the
 * counter .Lukcov_n and increments it, so a statement gcc copies (its
 * jump threading and unrolling run after "sancov") is a point of its
 * own, with its own bit, label (%=) and table entry, never a second
 * user of one bit that would never record.  fb, the byte where f's
 * bits start, is an assembler symbol too (fbase_def).  At the end of
 * the unit the counter is n, and a constructor of priority 1 (before
 * every ordinary constructor, as the clang plugin's) calls
 * __ukcov_inline_init_v2(&__ukcov_tu, n).
 *
 * The call is inside the asm because gcc has no preserve_most: an
 * ordinary call would cost the hot path its caller-saved registers.  It
 * goes through the GOT, never a PLT slot: glibc's lazy binding
 * (sysdeps/x86_64/dl-trampoline.h) clobbers r11, which carries &tu, and
 * r10.  The cold code has no unwind information of its own; nothing
 * unwinds through it (the runtime's C half does not throw, and a signal
 * handler returns to it).
 *
 * Built against the installed gcc's plugin headers (gcc-12-plugin-dev):
 * a gcc of another version refuses it with one message
 * (plugin_default_version_check), never loads it half-way.
 */
#define INCLUDE_STRING
#include "gcc-plugin.h"
#include "plugin-version.h"

#include "tree.h"
#include "cgraph.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "ssa.h"
#include "tree-cfg.h"
#include "tree-into-ssa.h"
#include "attribs.h"
#include "diagnostic-core.h"
#include "output.h"

#include "ukcov/inline.h"

int plugin_is_GPL_compatible;

namespace {

/* The TU's byte offset in every map (inline.h), a local symbol that
 * the asm statements name. */
const char TuName[] = "__ukcov_tu";

/*
 * The flags, type and arguments of a section of the points of a
 * function in COMDAT group g (C++ inline functions, template instances;
 * "" for none): its cold code and table entries go into sections of
 * that group, so that when the linker keeps another unit's copy and
 * discards this one they go with it.  In a plain section they would
 * refer to discarded code and stop the link (SanitizerCoverage puts
 * __sancov_pcs in the function's comdat likewise).  The table's
 * section is also linked to the function's symbol, link (SHF_LINK_ORDER,
 * flag "o", as __sancov_pcs), so that --gc-sections keeps its entries
 * exactly while it keeps the function, where an unreferenced section
 * lost them all.  GNU as reads the linked-to symbol before the group
 * (LLVM's assembler the other way round: plugins/clang).
 */
std::string section_args(const char *flags, const std::string &g,
			 const std::string &link = "")
{
	std::string f = flags, args;

	if (!link.empty()) {
		f += "o";
		args += "," + link;
	}
	if (!g.empty()) {
		f += "G";
		args += "," + g + ",comdat";
	}
	return ",\"" + f + "\",@progbits" + args;
}

/* Point k, after its first lines (point_asm): operand 0 is m.  The
 * label is the end of the test, so the tool's point (L - 1) is the
 * test's last byte, in the block. */
std::string point_tail(const std::string &group, const std::string &sym)
{
	return ".Lukcov_pc%=:\n"
	       "\tje\t.Lukcov_cold%=\n"
	       ".Lukcov_back%=:\n"
	       "\t.pushsection .text.unlikely.ukcov." +
	       sym + section_args("ax", group) +
	       "\n"
	       ".Lukcov_cold%=:\n"
	       "\tleaq\t-128(%%rsp), %%rsp\n"
	       "\tpushq\t%%rdi\n"
	       "\tpushq\t%%rsi\n"
	       "\tleaq\t.Lukcov_pc%=(%%rip), %%rdi\n"
	       "\tmovl\t$.Lukcov_k%=, %%esi\n"
	       "\tcall\t.Lukcov_thunk\n"
	       "\tjmp\t.Lukcov_back%=\n"
	       "\t.popsection\n"
	       "\t.pushsection " UKCOV_INLINE_PCS_SECTION +
	       section_args("aw", group, sym) +
	       "\n"
	       "\t.p2align 3\n"
	       "\t.quad\t.Lukcov_pc%=\n"
	       "\t.popsection";
}

/* An identifier as the assembler names it: a user asm name has a
 * leading '*'. */
std::string assembler_name(tree id)
{
	const char *name = IDENTIFIER_POINTER(id);

	return name[0] == '*' ? name + 1 : name;
}

/* The COMDAT group of function decl; "" when it has none. */
std::string comdat_group(tree decl)
{
	tree id = DECL_COMDAT_GROUP(decl) ? decl_comdat_group_id(decl)
					  : NULL_TREE;

	return id ? assembler_name(id) : "";
}

/* The symbol of function decl. */
std::string asm_name(tree decl)
{
	return assembler_name(DECL_ASSEMBLER_NAME(decl));
}

tree tu_decl;		/* static uint64_t __ukcov_tu */
unsigned long npoints;	/* asm statements inserted, before any copy */

/* The map's type, uint8_t *. */
tree map_type(void)
{
	return build_pointer_type(unsigned_char_type_node);
}

/* Made with the unit's first point, so that a unit without points has
 * neither the variable nor a constructor. */
tree tu_object(void)
{
	if (!tu_decl) {
		tu_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL,
				     get_identifier(TuName),
				     long_unsigned_type_node);
		TREE_STATIC(tu_decl) = 1;
		TREE_USED(tu_decl) = 1;
		DECL_ARTIFICIAL(tu_decl) = 1;
		DECL_PRESERVE_P(tu_decl) = 1;	/* the constructor's */
		SET_DECL_ALIGN(tu_decl, 64);
		DECL_USER_ALIGN(tu_decl) = 1;
		DECL_INITIAL(tu_decl) = build_int_cst(long_unsigned_type_node,
						      UKCOV_INLINE_UNREG);
		SET_DECL_ASSEMBLER_NAME(tu_decl, get_identifier(TuName));
		varpool_node::add(tu_decl);
	}
	return tu_decl;
}

tree asm_operand(const char *constraint, tree value)
{
	tree c = build_string((int)strlen(constraint) + 1, constraint);

	return build_tree_list(build_tree_list(NULL_TREE, c), value);
}

tree asm_clobber(const char *reg)
{
	return build_tree_list(NULL_TREE,
			       build_string((int)strlen(reg) + 1, reg));
}

/*
 * .Lukcov_fb<f>, the byte of the map where the bits of function number
 * f start: the counter's byte when the assembler reads the first of
 * the function's statements (map_seq, point_asm), so that every point
 * of the function is at or after it and its test's displacement, from
 * m = map + tu + .Lukcov_fb<f>, takes one byte for the function's first
 * 1024 points instead of four.  Any order of the statements, or a copy
 * of one, finds the symbol defined once.
 */
std::string fbase(int f)
{
	return ".Lukcov_fb" + std::to_string(f);
}

std::string fbase_def(int f)
{
	return ".ifndef\t" + fbase(f) + "\n\t.set\t" + fbase(f) +
	       ", .Lukcov_n >> 3\n\t.endif\n";
}

/*
 * lhs = __ukcov_imap + __ukcov_tu + .Lukcov_fb<f>: where the bits of
 * function f start in the thread's map.  One asm statement,
 * initial-exec TLS: as a GIMPLE load of the TLS variable, gcc kept its
 * GOT offset in a callee-saved register of every function that calls
 * (one more push and pop), to reload the map after the calls.  Not
 * volatile, so that a reload no point reads is deleted; its memory
 * operand (__ukcov_tu) keeps gcc from merging it across a call, which
 * may write memory.
 */
gimple_seq map_seq(tree lhs, int f)
{
	vec<tree, va_gc> *in = NULL, *out = NULL;
	std::string text = fbase_def(f) +
		"\tmovq\t" UKCOV_INLINE_MAP_SYM "@GOTTPOFF(%%rip), %0\n"
		"\tmovq\t%%fs:(%0), %0\n"
		"\taddq\t%1, %0\n"
		"\tleaq\t" + fbase(f) + "(%0), %0";
	gimple_seq seq = NULL;
	gasm *g;

	vec_safe_push(out, asm_operand("=&r", lhs));
	vec_safe_push(in, asm_operand("m", tu_object()));
	g = gimple_build_asm_vec(text.c_str(), in, out, NULL, NULL);
	if (TREE_CODE(lhs) == SSA_NAME)
		SSA_NAME_DEF_STMT(lhs) = g;
	gimple_seq_add_stmt(&seq, g);
	return seq;
}

/*
 * The asm of the unit's GIMPLE point number id, in function f: k from
 * the counter, its bit tested, and the id in a comment, so that no two
 * statements are the same RTL (rtl cross-jumping merges identical
 * tails, which would leave two blocks one point: trace-pc's calls are
 * merged less, as each block's code around its call differs more).
 */
std::string point_asm(unsigned long id, int f, const std::string &group,
		      const std::string &sym)
{
	return fbase_def(f) +
	       "\t.set\t.Lukcov_k%=, .Lukcov_n\t# ukcov point " +
	       std::to_string(id) + "\n"
	       "\t.set\t.Lukcov_n, .Lukcov_n + 1\n"
	       "\ttestb\t$(1 << (.Lukcov_k%= & 7)), "
	       "((.Lukcov_k%= >> 3) - " + fbase(f) + ")(%0)\n" +
	       point_tail(group, sym);
}

/* The point of the block starting at gsi (its first statement after
 * the labels), testing map m. */
void insert_point(gimple_stmt_iterator *gsi, tree m, int f,
		  const std::string &group, const std::string &sym)
{
	vec<tree, va_gc> *in = NULL, *clob = NULL;
	std::string text = point_asm(npoints, f, group, sym);
	gasm *g;

	vec_safe_push(in, asm_operand("r", m));
	vec_safe_push(clob, asm_clobber("r11"));
	vec_safe_push(clob, asm_clobber("cc"));
	g = gimple_build_asm_vec(text.c_str(), in, NULL, clob, NULL);
	gimple_asm_set_volatile(g, true);
	/* Sized as one instruction, as trace-pc's call is: gcc's late
	 * GIMPLE passes (jump threading, unrolling, after "sancov") copy
	 * the blocks they would copy in the calls build. */
	gimple_asm_set_inline(g, true);
	gimple_set_location(g, gimple_location(gsi_stmt(*gsi)));
	gsi_insert_before(gsi, g, GSI_SAME_STMT);
	npoints++;
}

/* A call other than to an internal function (expanded inline). */
bool is_call(gimple *s)
{
	return is_gimple_call(s) && !gimple_call_internal_p(s);
}

/*
 * m, a variable the renamer (update_ssa) turns into SSA names: set on
 * the function's entry edge and after every call, since the runtime
 * changes __ukcov_imap only inside calls (enable, disable, reset; a
 * signal handler's changes are undone before it returns).  A call
 * that ends its block (one that may throw) sets it on its normal
 * edges; a block entered by an exception edge sets it first.
 */
void place_map(function *fun, tree m)
{
	int f = fun->funcdef_no;
	basic_block bb;

	gsi_insert_seq_on_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)),
			       map_seq(m, f));
	FOR_EACH_BB_FN(bb, fun) {
		gimple_stmt_iterator gsi;
		edge e;
		edge_iterator ei;

		if (bb_has_eh_pred(bb)) {
			gsi = gsi_after_labels(bb);
			gsi_insert_seq_before(&gsi, map_seq(m, f),
					      GSI_SAME_STMT);
		}
		for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
			gimple *s = gsi_stmt(gsi);

			if (!is_call(s))
				continue;
			if (!stmt_ends_bb_p(s)) {
				gsi_insert_seq_after(&gsi, map_seq(m, f),
						     GSI_SAME_STMT);
				continue;
			}
			FOR_EACH_EDGE(e, ei, bb->succs)
				if (!(e->flags & (EDGE_EH | EDGE_ABNORMAL)))
					gsi_insert_seq_on_edge(e, map_seq(m, f));
		}
	}
	gsi_commit_edge_inserts();
}

void instrument_function(function *fun)
{
	auto_vec<basic_block> blocks;
	basic_block bb;
	tree m = NULL_TREE;
	/* A second return from setjmp (or a nonlocal goto's arrival) would
	 * find a register's value from before the call: such functions
	 * compute m at each point. */
	bool per_point = fun->calls_setjmp || fun->has_nonlocal_label;
	int f = fun->funcdef_no;
	std::string group = comdat_group(fun->decl);
	std::string sym = asm_name(fun->decl);

	FOR_EACH_BB_FN(bb, fun)
		if (!gsi_end_p(gsi_start_nondebug_after_labels_bb(bb)))
			blocks.safe_push(bb);
	if (blocks.is_empty())
		return;
	if (!per_point)
		m = create_tmp_reg(map_type(), "ukcov_map");
	for (basic_block b : blocks) {
		gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb(b);

		if (per_point) {
			m = make_ssa_name(map_type());
			gsi_insert_seq_before(&gsi, map_seq(m, f),
					      GSI_SAME_STMT);
		}
		insert_point(&gsi, m, f, group, sym);
	}
	if (!per_point)
		place_map(fun, m);
	/* The map's asm reads __ukcov_tu: a virtual operand. */
	mark_virtual_operands_for_renaming(fun);
}

/* gcc/sancov.cc leaves these alone too. */
bool skip_function(function *fun)
{
	const char *name = IDENTIFIER_POINTER(DECL_NAME(fun->decl));

	if (lookup_attribute("no_sanitize_coverage",
			     DECL_ATTRIBUTES(fun->decl)))
		return true;
	return !strncmp(name, "__sanitizer_", 12) ||
	       !strncmp(name, "__ukcov_", 8);
}

const pass_data inline_pass_data = {
	GIMPLE_PASS, "ukcov_inline", OPTGROUP_NONE, TV_NONE,
	PROP_cfg | PROP_ssa, 0, 0, 0, TODO_update_ssa,
};

/* One instance after gcc's "sancov" (optimizing) and one after
 * "sancov_O0": where gcc inserts trace-pc's calls. */
class inline_pass : public gimple_opt_pass {
public:
	inline_pass(gcc::context *ctx, bool o0)
		: gimple_opt_pass(inline_pass_data, ctx), at_o0(o0)
	{
	}
	bool gate(function *) final override
	{
		return (optimize == 0) == at_o0;
	}
	unsigned int execute(function *fun) final override
	{
		if (!skip_function(fun))
			instrument_function(fun);
		return 0;
	}

private:
	bool at_o0;
};

void register_after(const char *plugin, const char *ref, bool o0)
{
	struct register_pass_info info;

	info.pass = new inline_pass(g, o0);
	info.reference_pass_name = ref;
	info.ref_pass_instance_number = 1;
	info.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, NULL, &info);
}

/*
 * gcc keeps the blocks of && and || under -fsanitize-coverage, where it
 * would otherwise fold them into one branch-free block
 * (sanitize_coverage_p in asan.h, tested by fold-const.cc and
 * tree-ssa-ifcombine.cc): trace-pc then has a point per operand, and so
 * must the plugin.  It sets a bit of flag_sanitize_coverage that no
 * pass acts on (sancov.cc instruments for SANITIZE_COV_TRACE_PC and
 * SANITIZE_COV_TRACE_CMP only), keeping what the command line set.
 */
void keep_coverage_blocks(void)
{
	const int unused = SANITIZE_COV_TRACE_CMP << 1;

	flag_sanitize_coverage |= unused;
}

/* The points' counter starts the assembly. */
void start_unit(void *, void *)
{
	if (asm_out_file)
		fputs("\t.set\t.Lukcov_n, 0\n", asm_out_file);
}

/*
 * After the last function: the thunk the points call, and the
 * constructor, a tail call through the GOT with n, the assembler's
 * count of the points.  In .init_array.00001: GNU ld's scripts sort
 * .init_array.* by priority (SORT_BY_INIT_PRIORITY) before the plain
 * .init_array of ordinary constructors, in executables, shared objects
 * and -static links alike; priority 1 is the lowest gcc's own section
 * names use.  The .if catches a count that gcc's copies pushed over
 * the limit.
 */
void finish_unit(void *, void *)
{
	if (!tu_decl || !asm_out_file || seen_error())
		return;
	if (npoints > UKCOV_INLINE_TU_MAX) {
		error("ukcov inline plugin: %lu points in one translation "
		      "unit, more than %u; build it with %<UKCOV_INLINE=0%> "
		      "(calls)", npoints, UKCOV_INLINE_TU_MAX);
		return;
	}
	fprintf(asm_out_file,
		"\t.if\t.Lukcov_n > %u\n"
		"\t.error\t\"ukcov inline plugin: more than %u points in one "
		"translation unit; build it with UKCOV_INLINE=0 (calls)\"\n"
		"\t.endif\n"
		"\t.section\t.text.unlikely.ukcov,\"ax\",@progbits\n"
		".Lukcov_thunk:\n"
		"\tleaq\t%s(%%rip), %%r11\n"
		"\tjmp\t*" UKCOV_INLINE_PC2_GCC_FN "@GOTPCREL(%%rip)\n"
		"\t.type\t__ukcov_ctor, @function\n"
		"__ukcov_ctor:\n"
		"\tleaq\t%s(%%rip), %%rdi\n"
		"\tmovl\t$.Lukcov_n, %%esi\n"
		"\tjmp\t*" UKCOV_INLINE_INIT_FN "@GOTPCREL(%%rip)\n"
		"\t.size\t__ukcov_ctor, .-__ukcov_ctor\n"
		"\t.section\t.init_array.00001,\"aw\",@init_array\n"
		"\t.p2align 3\n"
		"\t.quad\t__ukcov_ctor\n",
		UKCOV_INLINE_TU_MAX, UKCOV_INLINE_TU_MAX, TuName, TuName);
}

} // namespace

int plugin_init(struct plugin_name_args *info,
		struct plugin_gcc_version *version)
{
#ifdef UKCOV_PLUGIN_TEST_BASEVER
	/* tests/suites.d/57-inline.sh: a plugin built for another gcc. */
	gcc_version.basever = UKCOV_PLUGIN_TEST_BASEVER;
#endif
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("ukcov inline plugin: built for gcc %s (%s), this is gcc "
		      "%s (%s): rebuild it (make) or set %<UKCOV_INLINE=0%>",
		      gcc_version.basever, gcc_version.datestamp,
		      version->basever, version->datestamp);
		return 1;
	}
	if (!TARGET_64BIT_P(global_options.x_ix86_isa_flags)) {
		error("ukcov inline plugin: x86-64 only; build with "
		      "%<UKCOV_INLINE=0%> (calls)");
		return 1;
	}
	keep_coverage_blocks();
	register_after(info->base_name, "sancov", false);
	register_after(info->base_name, "sancov_O0", true);
	register_callback(info->base_name, PLUGIN_START_UNIT, start_unit, NULL);
	register_callback(info->base_name, PLUGIN_FINISH_UNIT, finish_unit,
			  NULL);
	return 0;
}
