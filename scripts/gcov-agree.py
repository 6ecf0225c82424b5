#!/usr/bin/env python3
"""scripts/gcov-agree.py -- how far ukcov's coverage agrees with gcov's.

    scripts/gcov-agree.py GCOV.info UKCOV.info [--json] [--show-diff N]
                          [--hot CALLS] [--require NAME=VALUE,...]

GCOV.info is the lcov tracefile of a `gcc --coverage -O0` build
(`lcov --capture --rc lcov_branch_coverage=0`), UKCOV.info the one
`ukcov lcov` writes for a ukcov-cc build of the same source run through
the same tests.  The two builds may live in different directories:
source files are matched by their real path, else by the longest
common suffix of path components (each file matched at most once).
Records of the same file (lcov writes one per object: a static and a
shared build, example and example64) are united: counts add up.

Figures (issue 17's targets; percentages of exact counts):

  fn_file_ran   functions of either side, matched by (file, name), on
                which both say the same file and the same ran/never ran;
                a function one side does not report disagrees
  fn_contra     functions both report on which one says ran and the
                other never ran (a count: the contradictions among the
                disagreements of fn_file_ran, without the absent ones)
  fn_line       functions both report whose definition line (FN:) is
                gcov's
  line_share    gcov's instrumented lines (DA:) that ukcov reports too
  line_agree    lines both report on which both say hit or both not hit
  line_extra    ukcov's lines that gcov does not instrument (a count,
                printed: lines ukcov may colour wrongly)
  hot_never     functions gcov counts more than --hot calls (1000) for
                that ukcov reports as never run (hot_absent: that ukcov
                does not report at all, printed, not a target)

--show-diff N lists up to N disagreements of each kind, "file:line"
with both verdicts, for whoever debugs ukcov's model.  --require fails
(exit status 1, one "FAIL" line per figure) when a percentage is below
its VALUE or a count (fn_contra, line_extra, hot_never, hot_absent)
above it; otherwise the
exit status is 0.  A tracefile that cannot be read or parsed is an
error (exit status 2) with one line saying where.

Python 3 standard library only.
"""

import argparse
import json
import os
import sys

PERCENTS = ("fn_file_ran", "fn_line", "line_share", "line_agree")
COUNTS = ("fn_contra", "line_extra", "hot_never", "hot_absent")


class TraceError(Exception):
    pass


class SourceFile:
    """One source file's coverage, united over the records that name it."""

    def __init__(self, path):
        self.path = path
        self.fn_line = {}       # name -> definition line
        self.fn_calls = {}      # name -> calls (FNDA), summed
        self.lines = {}         # line -> hits (DA), summed


def parse_int(text, where):
    try:
        value = int(text)
    except ValueError:
        raise TraceError("%s: not a number: %r" % (where, text)) from None
    if value < 0:
        raise TraceError("%s: negative count %d" % (where, value))
    return value


def parse_fn(sf, rest, where):
    # lcov 1.x writes FN:line,name; lcov 2.x FN:line,end,name.
    parts = rest.split(",")
    if len(parts) < 2:
        raise TraceError("%s: FN without a name" % where)
    if len(parts) >= 3 and parts[1].isdigit():
        name = ",".join(parts[2:])
    else:
        name = ",".join(parts[1:])
    line = parse_int(parts[0], where)
    # Two objects of one file give the same line; keep the first.
    sf.fn_line.setdefault(name, line)
    sf.fn_calls.setdefault(name, 0)


def parse_fnda(sf, rest, where):
    count, sep, name = rest.partition(",")
    if not sep or not name:
        raise TraceError("%s: FNDA without a name" % where)
    sf.fn_calls[name] = sf.fn_calls.get(name, 0) + parse_int(count, where)


def parse_da(sf, rest, where):
    parts = rest.split(",")
    if len(parts) < 2:
        raise TraceError("%s: DA without a count" % where)
    line = parse_int(parts[0], where)
    sf.lines[line] = sf.lines.get(line, 0) + parse_int(parts[1], where)


RECORD_PARSERS = {"FN": parse_fn, "FNDA": parse_fnda, "DA": parse_da}


def read_tracefile(name):
    """Return {real path: SourceFile} of an lcov tracefile."""
    try:
        with open(name, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError as e:
        raise TraceError("%s: %s" % (name, e.strerror)) from None
    files = {}
    sf = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = "%s:%d" % (name, n)
        if not line:
            continue
        if line == "end_of_record":
            sf = None
            continue
        key, sep, rest = line.partition(":")
        if key == "SF":
            path = os.path.realpath(rest)
            sf = files.setdefault(path, SourceFile(path))
        elif key in RECORD_PARSERS:
            if sf is None:
                raise TraceError("%s: %s outside an SF record" % (where, key))
            RECORD_PARSERS[key](sf, rest, where)
        elif not sep:
            raise TraceError("%s: not an lcov line: %r" % (where, line[:60]))
    if not files:
        raise TraceError("%s: no SF record" % name)
    return files


def common_suffix(a, b):
    """Number of trailing path components a and b share."""
    pa = a.split(os.sep)
    pb = b.split(os.sep)
    n = 0
    while n < min(len(pa), len(pb)) and pa[-1 - n] == pb[-1 - n]:
        n += 1
    return n


def match_files(gcov, ukcov):
    """Map gcov's paths to ukcov's: the longest common suffix first.

    Equal real paths share every component, so they win.  A pair
    counts only if the base names agree; each file is used once.
    """
    pairs = []
    for g in gcov:
        for u in ukcov:
            n = common_suffix(g, u)
            if n:
                pairs.append((-n, g, u))
    pairs.sort()
    g2u = {}
    used = set()
    for _, g, u in pairs:
        if g not in g2u and u not in used:
            g2u[g] = u
            used.add(u)
    return g2u


def verdict(count):
    return "hit(%d)" % count if count else "not-hit"


def ran(count):
    return "ran(%d)" % count if count else "never-ran"


class Comparison:
    def __init__(self, gcov, ukcov, hot):
        self.n = dict.fromkeys(("fn_all", "fn_agree", "fn_both",
                                "fn_line_eq", "ln_gcov", "ln_both",
                                "ln_agree", "ln_extra", "hot",
                                "hot_never",
                                "hot_absent"), 0)
        self.diffs = {k: [] for k in ("fn_missing", "fn_extra", "fn_ran",
                                      "fn_line", "line_missing",
                                      "line_extra",
                                      "line_hit", "hot_never")}
        g2u = match_files(gcov, ukcov)
        for g, gsf in sorted(gcov.items()):
            usf = ukcov.get(g2u.get(g), SourceFile(None))
            self.functions(gsf, usf, hot)
            self.lines(gsf, usf)
        mapped = set(g2u.values())
        for u, usf in sorted(ukcov.items()):
            if u not in mapped:
                self.functions(SourceFile(u), usf, hot)
                self.lines(SourceFile(u), usf)

    def functions(self, gsf, usf, hot):
        path = gsf.path or usf.path
        for name in sorted(set(gsf.fn_line) | set(usf.fn_line)):
            self.n["fn_all"] += 1
            if name not in usf.fn_line:
                self.note("fn_missing", path, gsf.fn_line[name], name,
                          ran(gsf.fn_calls[name]), "absent")
                self.hot(path, gsf, name, None, hot)
                continue
            if name not in gsf.fn_line:
                self.note("fn_extra", path, usf.fn_line[name], name,
                          "absent", ran(usf.fn_calls[name]))
                continue
            self.n["fn_both"] += 1
            g_ran = gsf.fn_calls[name] > 0
            u_ran = usf.fn_calls[name] > 0
            if g_ran == u_ran:
                self.n["fn_agree"] += 1
            else:
                self.note("fn_ran", path, gsf.fn_line[name], name,
                          ran(gsf.fn_calls[name]), ran(usf.fn_calls[name]))
            if gsf.fn_line[name] == usf.fn_line[name]:
                self.n["fn_line_eq"] += 1
            else:
                self.note("fn_line", path, gsf.fn_line[name], name,
                          "line %d" % gsf.fn_line[name],
                          "line %d" % usf.fn_line[name])
            self.hot(path, gsf, name, usf.fn_calls[name], hot)

    def hot(self, path, gsf, name, u_calls, hot):
        if gsf.fn_calls.get(name, 0) <= hot:
            return
        self.n["hot"] += 1
        if u_calls is None:
            self.n["hot_absent"] += 1
        elif u_calls == 0:
            self.n["hot_never"] += 1
            self.note("hot_never", path, gsf.fn_line[name], name,
                      ran(gsf.fn_calls[name]), "never-ran")

    def lines(self, gsf, usf):
        for line in sorted(gsf.lines):
            self.n["ln_gcov"] += 1
            g = gsf.lines[line]
            if line not in usf.lines:
                self.note("line_missing", gsf.path, line, None,
                          verdict(g), "absent")
                continue
            self.n["ln_both"] += 1
            u = usf.lines[line]
            if (g > 0) == (u > 0):
                self.n["ln_agree"] += 1
            else:
                self.note("line_hit", gsf.path, line, None,
                          verdict(g), verdict(u))
        for line in sorted(set(usf.lines) - set(gsf.lines)):
            self.n["ln_extra"] += 1
            self.note("line_extra", gsf.path or usf.path, line, None,
                      "absent", verdict(usf.lines[line]))

    def note(self, kind, path, line, name, gcov, ukcov):
        self.diffs[kind].append((path, line, name, gcov, ukcov))

    def figures(self):
        n = self.n

        def share(a, b):
            return None if b == 0 else 100.0 * a / b
        return {
            "fn_file_ran": share(n["fn_agree"], n["fn_all"]),
            "fn_contra": n["fn_both"] - n["fn_agree"],
            "fn_line": share(n["fn_line_eq"], n["fn_both"]),
            "line_share": share(n["ln_both"], n["ln_gcov"]),
            "line_agree": share(n["ln_agree"], n["ln_both"]),
            "line_extra": n["ln_extra"],
            "hot_never": n["hot_never"],
            "hot_absent": n["hot_absent"],
        }


def fmt(value):
    return "n/a" if value is None else "%.2f%%" % value


def print_text(cmp):
    n, f = cmp.n, cmp.figures()
    print("fn_file_ran %s (%d of %d functions agree on file and ran)"
          % (fmt(f["fn_file_ran"]), n["fn_agree"], n["fn_all"]))
    print("fn_contra %d (of %d functions both report, one says ran, "
          "the other never ran)" % (f["fn_contra"], n["fn_both"]))
    print("fn_line %s (%d of %d functions both report)"
          % (fmt(f["fn_line"]), n["fn_line_eq"], n["fn_both"]))
    print("line_share %s (%d of gcov's %d lines)"
          % (fmt(f["line_share"]), n["ln_both"], n["ln_gcov"]))
    print("line_agree %s (%d of %d lines both report)"
          % (fmt(f["line_agree"]), n["ln_agree"], n["ln_both"]))
    print("line_extra %d (ukcov's lines gcov does not instrument)"
          % f["line_extra"])
    print("hot_never %d (of %d functions gcov counts over the hot limit; "
          "%d absent from ukcov)" % (f["hot_never"], n["hot"],
                                    f["hot_absent"]))


def print_diffs(cmp, limit, out):
    for kind, rows in cmp.diffs.items():
        if not rows:
            continue
        print("%s: %d" % (kind, len(rows)), file=out)
        for path, line, name, g, u in rows[:limit]:
            what = " %s" % name if name else ""
            print("  %s:%d%s gcov=%s ukcov=%s" % (path, line, what, g, u),
                  file=out)


def parse_require(text):
    req = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in PERCENTS + COUNTS:
            raise SystemExit("gcov-agree: --require: bad item %r (one of %s)"
                             % (item, ", ".join(PERCENTS + COUNTS)))
        try:
            req[name] = float(value)
        except ValueError:
            raise SystemExit("gcov-agree: --require: %s: not a number: %r"
                             % (name, value)) from None
    return req


def unmet(figures, cmp, req):
    """The required figures that are not met, one message each."""
    fails = []
    for name, want in req.items():
        got = figures[name]
        if name in COUNTS:
            if got > want:
                fails.append("FAIL %s %d > %g" % (name, got, want))
        elif got is None:
            fails.append("FAIL %s n/a (nothing to compare)" % name)
        elif not meets(name, cmp.n, want):
            fails.append("FAIL %s %s < %g%%" % (name, fmt(got), want))
    return fails


def meets(name, n, want):
    # Compare exact counts, not a rounded percentage: 99.996% is not 100.
    a, b = {"fn_file_ran": ("fn_agree", "fn_all"),
            "fn_line": ("fn_line_eq", "fn_both"),
            "line_share": ("ln_both", "ln_gcov"),
            "line_agree": ("ln_agree", "ln_both")}[name]
    return 100 * n[a] >= want * n[b]


def main():
    ap = argparse.ArgumentParser(
        description="Compare ukcov's lcov tracefile with gcov's.")
    ap.add_argument("gcov", help="lcov tracefile of the gcov build")
    ap.add_argument("ukcov", help="ukcov lcov tracefile of the same source")
    ap.add_argument("--json", action="store_true",
                    help="print the figures and counts as one JSON object")
    ap.add_argument("--show-diff", type=int, default=0, metavar="N",
                    help="list N disagreements of each kind")
    ap.add_argument("--hot", type=int, default=1000, metavar="CALLS",
                    help="hot functions: gcov counts more calls (1000)")
    ap.add_argument("--require", default="", metavar="NAME=VALUE,...",
                    help="exit 1 unless every figure meets its VALUE")
    args = ap.parse_args()
    if args.show_diff < 0 or args.hot < 0:
        ap.error("--show-diff and --hot take a count >= 0")
    req = parse_require(args.require) if args.require else {}
    try:
        gcov = read_tracefile(args.gcov)
        ukcov = read_tracefile(args.ukcov)
    except TraceError as e:
        print("gcov-agree: %s" % e, file=sys.stderr)
        return 2
    cmp = Comparison(gcov, ukcov, args.hot)
    figures = cmp.figures()
    if args.json:
        out = dict(figures, counts=cmp.n)
        if args.show_diff:
            out["diffs"] = {k: [list(r) for r in v[:args.show_diff]]
                            for k, v in cmp.diffs.items()}
        print(json.dumps(out, indent=1, sort_keys=True))
    else:
        print_text(cmp)
        if args.show_diff:
            print_diffs(cmp, args.show_diff, sys.stdout)
    fails = unmet(figures, cmp, req)
    for line in fails:
        print(line)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
