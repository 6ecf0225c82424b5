#!/usr/bin/env python3
"""scripts/format-check.py -- the lines a branch changes follow .clang-format.

    scripts/format-check.py [FILE...]

Formats, with clang-format (14, as CI has it) and the repository's
.clang-format, only the lines of each C file that differ from the base
(git diff -U0), and prints "not ok format FILE:LINE: ..." for each place
where the formatted text differs, then "N passed, N failed".  The base
is $FORMAT_BASE, else the merge-base of HEAD with main (or origin/main).
Without FILE arguments the files are the .c and .h files of lib/,
tools/, include/ and tests/ that differ from the base.  The tree keeps
one convention that clang-format 14 cannot express, a tab before a
trailing block comment; a difference only in the whitespace before a
"/*" is not counted.  "make lint" runs this (scripts/lint.sh).
"""
import os
import re
import shutil
import subprocess
import sys

DIRS = ("lib/", "tools/", "include/", "tests/")


def git(*args):
    r = subprocess.run(["git", *args], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def find_base():
    if os.environ.get("FORMAT_BASE"):
        return os.environ["FORMAT_BASE"]
    for ref in ("main", "origin/main"):
        b = git("merge-base", "HEAD", ref)
        if b:
            return b.strip()
    return None


def changed_ranges(base, path):
    """The new side's changed line ranges of path against base."""
    out = git("diff", "-U0", "--no-color", base, "--", path) or ""
    ranges = []
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", out, re.M):
        start, n = int(m.group(1)), int(m.group(2) or 1)
        if n:
            ranges.append((start, start + n - 1))
    return ranges


def squash(line):
    """A line with the whitespace before a trailing block comment dropped."""
    i = line.find("/*")
    return line if i < 0 else line[:i].rstrip() + line[i:]


def main():
    tool = shutil.which("clang-format-14") or shutil.which("clang-format")
    if not tool:
        print("not ok format: clang-format not installed (scripts/deps.sh)")
        print("0 passed, 1 failed")
        return 1
    base = find_base()
    if base is None:
        print("ok format: no base to compare with (no main branch); skipped")
        print("1 passed, 0 failed")
        return 0
    files = sys.argv[1:]
    if not files:
        names = git("diff", "--name-only", "--diff-filter=AM", base) or ""
        files = [f for f in names.split()
                 if f.startswith(DIRS) and f.endswith((".c", ".h"))]
    npass = nfail = 0
    for path in files:
        if not os.path.isfile(path):
            continue
        ranges = changed_ranges(base, path)
        if not ranges:
            print("ok format %s (unchanged)" % path)
            npass += 1
            continue
        args = [tool, "--style=file"]
        args += ["--lines=%d:%d" % r for r in ranges]
        old = open(path).read().split("\n")
        new = subprocess.run(args + [path], capture_output=True,
                             text=True, check=True).stdout.split("\n")
        bad = []
        diff = subprocess.run(["diff", "-U0", path, "-"], input="\n".join(new),
                              capture_output=True, text=True).stdout
        for h in re.split(r"^@@ ", diff, flags=re.M)[1:]:
            m = re.match(r"-(\d+)", h)
            lines = h.split("\n")[1:]
            was = [l[1:] for l in lines if l.startswith("-")]
            now = [l[1:] for l in lines if l.startswith("+")]
            if [squash(l) for l in was] == [squash(l) for l in now]:
                continue
            bad.append("%s:%s: clang-format writes: %s" %
                       (path, m.group(1), " / ".join(l.strip() for l in now)
                       [:150] or "(lines removed)"))
        if bad:
            nfail += 1
            print("not ok format " + "\n    ".join(bad))
        else:
            npass += 1
            print("ok format %s" % path)
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
