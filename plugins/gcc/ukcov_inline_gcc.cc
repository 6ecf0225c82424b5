/*
 * plugins/gcc/ukcov_inline_gcc.cc -- inline kcov points for gcc 12.
 *
 *	gcc -fplugin=.../ukcov-inline-gcc.so -g -O2 -c f.c
 *
 * Instruments the blocks gcc's own -fsanitize-coverage=trace-pc would
 * (gcc/sancov.cc: every block with a statement, at its first
 * statement after the labels, with that statement's location), with the
 * code of include/ukcov/inline.h, ABI 1, as one volatile asm statement:
 *
 *	cmpl	$0, 4(&__ukcov_sancov)		the callback's gate
 *   L:	jne	cold				L is in __ukcov_pcs
 *   back:
 *	...the block...
 *   cold (section .text.unlikely.ukcov):
 *	skip the red zone; save rdi; rdi = L
 *	call __ukcov_inline_pc_v1		preserve_most: only r11 lost
 *	restore; jmp back
 *
 * One statement, so that a copy of it (gcc may duplicate blocks) has its
 * own labels (%=) and its own table entry.  The call is inside the asm
 * because gcc has no preserve_most: an ordinary call would cost the hot
 * path its caller-saved registers.  The cold code has no unwind
 * information of its own; nothing unwinds through it (the runtime's C
 * half does not throw, and a signal handler returns to it).
 *
 * Built against the installed gcc's plugin headers (gcc-12-plugin-dev):
 * a gcc of another version refuses it with one message
 * (plugin_default_version_check), never loads it half-way.
 */
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
#include "stringpool.h"
#include "attribs.h"
#include "diagnostic-core.h"
#include "output.h"

#include "ukcov/inline.h"

int plugin_is_GPL_compatible;

namespace {

const char Asm[] =
	"cmpl\t$0, " "%c1(%0)\n"
	".Lukcov_pc%=:\n"
	"\tjne\t.Lukcov_cold%=\n"
	".Lukcov_back%=:\n"
	"\t.pushsection .text.unlikely.ukcov,\"ax\",@progbits\n"
	".Lukcov_cold%=:\n"
	"\tleaq\t-128(%%rsp), %%rsp\n"
	"\tpushq\t%%rdi\n"
	"\tleaq\t.Lukcov_pc%=(%%rip), %%rdi\n"
	"\tcall\t" UKCOV_INLINE_PC_FN "@PLT\n"
	"\tpopq\t%%rdi\n"
	"\tleaq\t128(%%rsp), %%rsp\n"
	"\tjmp\t.Lukcov_back%=\n"
	"\t.popsection\n"
	"\t.pushsection " UKCOV_INLINE_PCS_SECTION ",\"aw\",@progbits\n"
	"\t.p2align 3\n"
	"\t.quad\t.Lukcov_pc%=\n"
	"\t.popsection";

tree on_object;

/* extern char __ukcov_sancov[]: the object, not the word (inline.h). */
tree gate_object(void)
{
	if (!on_object) {
		on_object = build_decl(UNKNOWN_LOCATION, VAR_DECL,
				       get_identifier(UKCOV_INLINE_ON_SYM),
				       char_type_node);
		TREE_PUBLIC(on_object) = 1;
		DECL_EXTERNAL(on_object) = 1;
		TREE_ADDRESSABLE(on_object) = 1;
		DECL_ARTIFICIAL(on_object) = 1;
		varpool_node::get_create(on_object);
	}
	return on_object;
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

void instrument_block(basic_block bb)
{
	gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb(bb);
	vec<tree, va_gc> *in = NULL, *clob = NULL;
	gasm *g;

	if (gsi_end_p(gsi))
		return;
	vec_safe_push(in, asm_operand("r", build_fold_addr_expr(gate_object())));
	vec_safe_push(in, asm_operand("i", build_int_cst(integer_type_node,
							 UKCOV_INLINE_ON_OFS)));
	vec_safe_push(clob, asm_clobber("r11"));
	vec_safe_push(clob, asm_clobber("cc"));
	g = gimple_build_asm_vec(Asm, in, NULL, clob, NULL);
	gimple_asm_set_volatile(g, true);
	gimple_asm_set_inline(g, true);
	gimple_set_location(g, gimple_location(gsi_stmt(gsi)));
	gsi_insert_before(&gsi, g, GSI_SAME_STMT);
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
	PROP_cfg, 0, 0, 0, TODO_update_ssa,
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
		basic_block bb;

		if (skip_function(fun))
			return 0;
		FOR_EACH_BB_FN(bb, fun)
			instrument_block(bb);
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
	register_after(info->base_name, "sancov", false);
	register_after(info->base_name, "sancov_O0", true);
	return 0;
}
