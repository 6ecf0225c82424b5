#!/usr/bin/env python3
"""tests/mutants/mutgen_test.py -- the mutant generator's own tests.

scripts/mutgen.py decides which sites exist and what each one does; a
site in a comment or a string would be an "equivalent" that costs a
build, and an id that moves with unrelated edits would make
tests/mutants/equivalent.txt rot.  Run by "make mutants" first, or:

    python3 tests/mutants/mutgen_test.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
import mutgen  # noqa: E402


def mutate(src, op=None):
    """Every (op, mutated source) of src, in site order."""
    return [(s.op, s.apply(src)) for s in mutgen.sites("f.c", src)
            if op is None or s.op == op]


def body(stmts):
    return "void f(int a, int b)\n{\n" + stmts + "}\n"


class NotCode(unittest.TestCase):
    def test_comments_strings_directives_asm_attributes(self):
        src = ("/* if (a < b) f(1, 2); */\n"
               "// a == b && c\n"
               "#define M(x) ((x) < 2 && g(x, 1))\n"
               "#if X > 1 \\\n  && Y < 2\n#endif\n"
               "void g(void) __attribute__((format(printf, 1, 2)));\n"
               "_Static_assert(sizeof(int) == 4, \"int\");\n"
               "void f(void)\n{\n"
               "\t__asm__ volatile(\"cmp $1, %%eax\" ::: \"memory\");\n"
               "\tputs(\"a < b, 1 == 2 && c\");\n"
               "\tputc('<', '1');\n"
               "}\n")
        got = mutate(src)
        # Only the two calls remain: putc's two arguments swapped, and
        # each call statement dropped.
        self.assertEqual(sorted(op for op, _ in got), ["drop", "drop", "swap"])
        self.assertIn("\tputc('1', '<');\n", dict(got)["swap"])


class Operators(unittest.TestCase):
    def test_rel_flips_but_not_arrows_or_shifts(self):
        src = body("\tif (p->x < a && a >= b << 3 && a > (b >> 1))\n\t\tg();\n")
        rel = [m.split("\n")[2] for _, m in mutate(src, "rel")]
        self.assertEqual(rel, [
            "\tif (p->x <= a && a >= b << 3 && a > (b >> 1))",
            "\tif (p->x < a && a > b << 3 && a > (b >> 1))",
            "\tif (p->x < a && a >= b << 3 && a >= (b >> 1))"])

    def test_eq_andor(self):
        src = body("\tif (a == 1 || b != 2)\n\t\tg();\n")
        self.assertEqual([m.split("\n")[2] for _, m in mutate(src, "eq")],
                         ["\tif (a != 1 || b != 2)", "\tif (a == 1 || b == 2)"])
        self.assertEqual([m.split("\n")[2] for _, m in mutate(src, "andor")],
                         ["\tif (a == 1 && b != 2)"])

    def test_literals_keep_base_and_suffix(self):
        src = body("\tg(0x1f, 10u, 0, x86, 1.5, 07, 0x00FFull);\n")
        inc = [m.split("\n")[2] for _, m in mutate(src, "inc")]
        self.assertEqual(inc, ["\tg(0x20, 10u, 0, x86, 1.5, 07, 0x00FFull);",
                               "\tg(0x1f, 11u, 0, x86, 1.5, 07, 0x00FFull);",
                               "\tg(0x1f, 10u, 1, x86, 1.5, 07, 0x00FFull);",
                               "\tg(0x1f, 10u, 0, x86, 1.5, 010, 0x00FFull);",
                               "\tg(0x1f, 10u, 0, x86, 1.5, 07, 0x0100ull);"])
        # 0 has no "minus one" (an unsigned bound would wrap).
        self.assertEqual(len(mutate(src, "dec")), 4)

    def test_pm1_and_nopc1(self):
        src = body("\tstore(pc - 1);\n\tstore(n + 1);\n\ta--;\n\tb -= 1;\n")
        self.assertEqual([m.split("\n")[2:4] for _, m in mutate(src, "pm1")],
                         [["\tstore(pc + 1);", "\tstore(n + 1);"],
                          ["\tstore(pc - 1);", "\tstore(n - 1);"]])
        self.assertEqual([m.split("\n")[2] for _, m in mutate(src, "nopc1")],
                         ["\tstore(pc);"])

    def test_drop_statements_not_declarations(self):
        src = body("\tint x = g();\n\treturn_code(a);\n"
                   "\tif (a)\n\t\tb = 2;\n"
                   "\tlong_call(a,\n\t\t  b);\n"
                   "\treturn h(a);\n")
        drops = mutate(src, "drop")
        self.assertEqual(len(drops), 3)
        self.assertIn("\t;\n\tif (a)", drops[0][1])
        self.assertIn("\tif (a)\n\t\t;\n", drops[1][1])
        # A statement over two lines leaves two lines: nothing moves.
        self.assertIn("\t;\n\n\treturn h(a);", drops[2][1])
        for _, m in drops:
            self.assertEqual(m.count("\n"), src.count("\n"))

    def test_swap_two_arguments_only(self):
        src = body("\tg(a, b + 1);\n\tg(a, a);\n\tg(a, b, 3);\n")
        self.assertEqual([m.split("\n")[2] for _, m in mutate(src, "swap")],
                         ["\tg(b + 1, a);"])


class SiteIds(unittest.TestCase):
    def test_stable_across_unrelated_edits(self):
        src = body("\tif (a < b)\n\t\tg();\n")
        moved = "/* a new comment */\nint unrelated;\n" + src
        ids = [s.id for s in mutgen.sites("f.c", src)]
        self.assertEqual(ids, [s.id for s in mutgen.sites("f.c", moved)])
        # Comments and blanks on the line do not count either.
        edited = src.replace("if (a < b)", "if (a  <  b) /* why */")
        self.assertEqual([s.id for s in mutgen.sites("f.c", edited)
                          if s.op == "rel"],
                         [s.id for s in mutgen.sites("f.c", src)
                          if s.op == "rel"])

    def test_identical_lines_counted(self):
        src = body("\tif (a < b)\n\t\tg();\n\tif (a < b)\n\t\tg();\n")
        rel = [s.id for s in mutgen.sites("f.c", src) if s.op == "rel"]
        self.assertEqual([i.rsplit(":", 1)[1] for i in rel], ["0", "1"])
        self.assertEqual(len({i.rsplit(":", 1)[0] for i in rel}), 1)


class Sample(unittest.TestCase):
    """The sample (scripts/mutants.py) ranks sites by a hash of seed and
    id: one site moved to equivalent.txt changes it by one site."""

    def test_one_exclusion_changes_one_site(self):
        import mutants
        src = body("".join("\tif (a < %d)\n\t\tg(a, b);\n" % i
                           for i in range(40)))
        sites = mutgen.sites("f.c", src)
        first = mutants.pick_sites(sites, {}, 1, 10, None)
        self.assertEqual([s.id for s in first],
                         [s.id for s in mutants.pick_sites(sites, {}, 1, 10, None)])
        gone = first[3].id
        second = mutants.pick_sites(sites, {gone: "why"}, 1, 10, None)
        self.assertEqual(len(set(s.id for s in first) - set(s.id for s in second)), 1)
        self.assertNotIn(gone, [s.id for s in second])
        other = mutants.pick_sites(sites, {}, 2, 10, None)
        self.assertNotEqual([s.id for s in first], [s.id for s in other])


if __name__ == "__main__":
    unittest.main()
