"""scripts/mutgen.py -- mechanical mutants for "make mutants".

The hand-written mutants (tests/mutants/*.txt) are bugs their authors
thought of; a score on them measures the authors' attention.  This
module finds every site in a C file where a mechanical operator applies
and names it stably, so scripts/mutants.py can draw a seeded, uniform
sample that nobody chose.

A light tokenizer (no libclang) blanks what is not compiled C code:
comments, the inside of string and character literals, preprocessor
lines (with their continuations) and asm blocks.  The operators then
match on that masked text, whose offsets are the source's own:

    rel    <  <=  >  >= flipped (< to <=, <= to <, ...)
    eq     == and != swapped
    andor  && and || swapped
    inc    an integer literal plus one        (bounds and sizes)
    dec    an integer literal minus one, for literals > 0
    pm1    x - 1 and x + 1 swapped
    nopc1  the "- 1" dropped on a line about PCs (a return address
           minus one is the call, as in LLVM's sancov and Linux
           kcov's canonicalisation -- an off-by-one the tests must see)
    drop   an expression or call statement removed
    swap   the two arguments of a two-argument call swapped

A site id is "file:hash:op:k": hash is 8 hex digits of the SHA-1 of the
line with comments removed and blanks collapsed, k counts the matches
of op on lines with that same text, in file order.  It survives edits
elsewhere in the file; tests/mutants/equivalent.txt relies on that.
"""
import hashlib
import re

OPS = ("rel", "eq", "andor", "inc", "dec", "pm1", "nopc1", "drop", "swap")

KEYWORDS = {
    "if", "else", "while", "for", "do", "switch", "case", "default",
    "return", "goto", "break", "continue", "sizeof", "typedef", "struct",
    "union", "enum", "static", "const", "extern", "volatile", "register",
    "inline", "_Alignof", "_Alignas", "alignof", "_Static_assert",
    "__attribute__", "typeof", "__typeof__", "asm", "__asm__", "__asm",
    "_Generic", "offsetof", "__builtin_offsetof", "va_arg",
    "__builtin_types_compatible_p",
}

# Not mutated: asm (its text is a string the tests of the hand-written
# list cover), attributes and static assertions (not code).
_ASM = re.compile(r"\b(?:(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__"
                  r"|goto|inline)\b)*|__attribute__|_Static_assert"
                  r"|static_assert)\s*\(")


class Masked:
    """A C source and two views of it of the same length: code (only
    compiled code kept; literals filled with 'x', the rest blanked) and
    nocomment (comments blanked, everything else kept)."""

    def __init__(self, text):
        self.text = text
        code, nocom = _mask(text)
        code = _blank_asm(code)
        self.code = code
        self.nocomment = nocom
        self.line_starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.line_starts.append(i + 1)

    def line_of(self, off):
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= off:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def line_span(self, no):
        start = self.line_starts[no]
        end = self.text.find("\n", start)
        return start, len(self.text) if end < 0 else end


def _mask(text):
    """Blank comments and preprocessor lines, fill literals; one pass."""
    code, nocom = list(text), list(text)
    i, n, bol = 0, len(text), True
    while i < n:
        ch = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            _blank(code, i, end)
            _blank(nocom, i, end)
            i = end
        elif text.startswith("//", i):
            end = _eol(text, i)
            _blank(code, i, end)
            _blank(nocom, i, end)
            i = end
        elif ch in "\"'":
            end = _literal_end(text, i)
            for j in range(i + 1, end - 1):
                if code[j] != "\n":
                    code[j] = "x"
            i = end
        elif ch == "#" and bol:
            end = _directive_end(text, i)
            _blank(code, i, end)
            i = end
        else:
            if ch == "\n":
                bol = True
            elif not ch.isspace():
                bol = False
            i += 1
            continue
        bol = False
    return "".join(code), "".join(nocom)


def _blank(buf, start, end):
    for j in range(start, end):
        if buf[j] != "\n":
            buf[j] = " "


def _eol(text, i):
    """End of the logical line at i (backslash continuations joined)."""
    while True:
        end = text.find("\n", i)
        if end < 0:
            return len(text)
        if end > 0 and text[end - 1] == "\\":
            i = end + 1
            continue
        return end


def _directive_end(text, i):
    """A directive ends at its logical end of line; a block comment in
    it may span lines (rare, but then its end is the directive's)."""
    end = _eol(text, i)
    com = text.find("/*", i, end)
    while com >= 0:
        close = text.find("*/", com + 2)
        if close < 0:
            return len(text)
        if close + 2 > end:
            end = _eol(text, close + 2)
        com = text.find("/*", close + 2, end)
    return end


def _literal_end(text, i):
    q, j = text[i], i + 1
    while j < len(text) and text[j] != q and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, len(text))


def _blank_asm(code):
    buf = list(code)
    for m in _ASM.finditer(code):
        end = _close_paren(code, m.end() - 1)
        if end is not None:
            _blank(buf, m.start(), end + 1)
    return "".join(buf)


def _close_paren(code, i):
    """Offset of the bracket closing the one at i, or None."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(i, len(code)):
        c = code[j]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if not stack or stack.pop() != c:
                return None
            if not stack:
                return j
    return None


# ---- operators: each yields (start, end, replacement) in file offsets


def _ops_regex(regex, table):
    def op(mk, start, end):
        for m in regex.finditer(mk.code, start, end):
            yield m.start(1), m.end(1), table[m.group(1)]
    return op


_REL = re.compile(r"(?<![<>=!\-])(<=|>=|<|>)(?![<>=])")
_EQ = re.compile(r"(?<![=<>!])(==|!=)(?!=)")
_ANDOR = re.compile(r"(&&|\|\|)")
_LIT = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.'])")
_ONE = re.compile(r"([-+])(\s*)1(?![\w.])")
_PCWORD = re.compile(r"[A-Za-z_]\w*")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_LVALUE = re.compile(
    r"\*?\s*[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*|\[[^\]\n]*\])*\s*"
    r"(?:=(?!=)|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<=|>>=|\+\+|--)")
_INCDEC = re.compile(r"(?:\+\+|--)\s*\*?\s*[A-Za-z_]")
_CALLSTMT = re.compile(
    r"(?:\(void\)\s*)?[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*\s*\(")

# A member or local "type (*name)(args);" is a declaration.
_FNPTR = re.compile(r"[A-Za-z_]\w*\s*\(\s*\*\s*\w+\s*\)\s*\(")

op_rel = _ops_regex(_REL, {"<": "<=", "<=": "<", ">": ">=", ">=": ">"})
op_eq = _ops_regex(_EQ, {"==": "!=", "!=": "=="})
op_andor = _ops_regex(_ANDOR, {"&&": "||", "||": "&&"})


def _literal(m, delta):
    digits = m.group(1)
    if digits[:2] in ("0x", "0X"):
        v = int(digits, 16) + delta
        # Same case and at least as many digits: 0x00ff becomes 0x0100.
        fmt = "%0*X" if digits[2:].isupper() else "%0*x"
        return None if v < 0 else digits[:2] + fmt % (len(digits) - 2, v)
    if len(digits) > 1 and digits[0] == "0":
        v = int(digits, 8) + delta
        return None if v < 0 else "0%o" % v
    v = int(digits) + delta
    return None if v < 0 else str(v)


def _op_lit(delta):
    def op(mk, start, end):
        for m in _LIT.finditer(mk.code, start, end):
            new = _literal(m, delta)
            if new is not None:
                yield m.start(1), m.end(1), new
    return op


op_inc = _op_lit(1)
op_dec = _op_lit(-1)


def _ones(mk, start, end):
    """Binary "+ 1" / "- 1": an operand before, not ++ -- -> += -=."""
    for m in _ONE.finditer(mk.code, start, end):
        i = m.start() - 1
        if i >= 0 and mk.code[i] in "+-":
            continue
        while i >= 0 and mk.code[i] in " \t":
            i -= 1
        if i >= 0 and (mk.code[i].isalnum() or mk.code[i] in "_)]"):
            yield m, i + 1


def op_pm1(mk, start, end):
    for m, _ in _ones(mk, start, end):
        yield m.start(1), m.end(1), "-" if m.group(1) == "+" else "+"


def _about_pcs(line):
    for w in _PCWORD.findall(line):
        parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", w)
        if any(p.lower() in ("pc", "pcs") for p in w.split("_") + parts):
            return True
    return False


def op_nopc1(mk, start, end):
    if not _about_pcs(mk.code[start:end]):
        return
    for m, operand_end in _ones(mk, start, end):
        if m.group(1) == "-":
            yield operand_end, m.end(), ""


def _depths(code):
    """Brace depth before each offset (only { } of code)."""
    depth, out = 0, []
    for c in code:
        out.append(depth)
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
    return out


def _stmt_start(code, off):
    """True if a statement may begin at off: after ; { } : ) else do."""
    i = off - 1
    while i >= 0 and code[i].isspace():
        i -= 1
    if i < 0:
        return False
    if code[i] in ";{}:)":
        return True
    word = re.search(r"(\w+)$", code[max(0, i - 5):i + 1])
    return bool(word) and word.group(1) in ("else", "do")


def _stmt_end(code, off):
    """Offset just past the ';' ending the statement at off, or None."""
    j = off
    while j < len(code):
        c = code[j]
        if c in "([{":
            j = _close_paren(code, j)
            if j is None:
                return None
        elif c == ";":
            return j + 1
        elif c in ")]}":
            return None
        j += 1
    return None


def op_drop(mk, start, end):
    code = mk.code
    off = start
    while off < end and code[off] in " \t":
        off += 1
    if off >= end or mk.depth[off] < 1 or not _stmt_start(code, off):
        return
    first = re.match(r"[A-Za-z_]\w*", code[off:end])
    if first and first.group(0) in KEYWORDS:
        return
    rest = code[off:end]
    if not (_CALLSTMT.match(rest) or _LVALUE.match(rest)
            or _INCDEC.match(rest)) or _FNPTR.match(rest):
        return
    stop = _stmt_end(code, off)
    if stop is None:
        return
    # Keep the line count, so nothing below moves (__LINE__, the map).
    yield off, stop, ";" + "\n" * code.count("\n", off, stop)


def _split_args(code, lo, hi):
    """Top-level comma-separated (start, end) spans of code[lo:hi]."""
    spans, depth, s = [], 0, lo
    for j in range(lo, hi):
        c = code[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((s, j))
            s = j + 1
    spans.append((s, hi))
    return spans


def _trim(text, s, e):
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def op_swap(mk, start, end):
    code, text = mk.code, mk.text
    for m in _CALL.finditer(code, start, end):
        if m.group(1) in KEYWORDS or mk.depth[m.start()] < 1:
            continue
        open_ = m.end() - 1
        close = _close_paren(code, open_)
        if close is None or close > end:
            continue
        args = _split_args(code, open_ + 1, close)
        if len(args) != 2:
            continue
        (a0, a1), (b0, b1) = [_trim(text, s, e) for s, e in args]
        if a0 == a1 or b0 == b1 or text[a0:a1] == text[b0:b1]:
            continue
        new = text[b0:b1] + text[a1:b0] + text[a0:a1]
        yield a0, b1, new


OPERATORS = {
    "rel": op_rel, "eq": op_eq, "andor": op_andor, "inc": op_inc,
    "dec": op_dec, "pm1": op_pm1, "nopc1": op_nopc1, "drop": op_drop,
    "swap": op_swap,
}


class Site:
    """One mutant: file, site id, line number (1-based), the edit."""

    def __init__(self, path, sid, line, op, start, end, new):
        self.path, self.id, self.line, self.op = path, sid, line, op
        self.start, self.end, self.new = start, end, new

    def apply(self, text):
        return text[:self.start] + self.new + text[self.end:]

    def diff(self, text):
        """The original and the mutated lines, for the report."""
        mk = Masked(text)
        lo = mk.line_starts[self.line - 1]
        last = mk.line_of(max(self.end - 1, self.start))
        hi = mk.line_span(last)[1]
        after = self.apply(text)
        hi_new = after.find("\n", lo + (self.start - lo) + len(self.new))
        hi_new = len(after) if hi_new < 0 else hi_new
        return text[lo:hi], after[lo:hi_new]


def normalized(line):
    return " ".join(line.split())


def line_hash(line):
    return hashlib.sha1(normalized(line).encode()).hexdigest()[:8]


def sites(path, text):
    """Every site of every operator in text (the file at path)."""
    mk = Masked(text)
    mk.depth = _depths(mk.code)
    seen, out = {}, []
    for no in range(len(mk.line_starts)):
        start, end = mk.line_span(no)
        if not mk.code[start:end].strip():
            continue
        h = line_hash(mk.nocomment[start:end])
        for op in OPS:
            for s, e, new in OPERATORS[op](mk, start, end):
                k = seen.get((h, op), 0)
                seen[(h, op)] = k + 1
                sid = "%s:%s:%s:%d" % (path, h, op, k)
                out.append(Site(path, sid, no + 1, op, s, e, new))
    return out
