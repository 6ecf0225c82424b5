#!/usr/bin/env python3
"""scripts/mutants.py -- "make mutants": do the tests catch real bugs?

Each mutant in tests/mutants/mutants.txt is one small, realistic bug:
an exact piece of a source file and what to put in its place.  The
script copies the tree (the files git knows, tracked or not ignored)
into a scratch directory -- the real tree is never modified -- builds
it once, checks that every listed test passes there, then for each
mutant, one at a time: applies it, rebuilds, runs the mutant's test
under a time limit, and puts the file back.  A mutant is KILLED when its
test fails (non-zero exit, or the time limit), SURVIVED when it passes.
The report ends with "score: K/N killed (P%)"; the exit status is 0 only
if every mutant was killed.

    make mutants                        every mutant
    scripts/mutants.py --only ID,ID     some of them
    scripts/mutants.py --keep           keep the scratch tree and logs

MUTANTS_JOBS (default 2) is make's -j.  Too slow for "make test".

The list (tests/mutants/mutants.txt): blank-line separated blocks,
'#' lines are comments.

    [unique-id]
    file: lib/os_linux.c
    from: if (d->cb->state != UKCOV_ST_OPEN)\\n\\t\\treturn -EBUSY;
    to:   if (d->cb->state != UKCOV_ST_OPEN)\\n\\t\\treturn -EINVAL;
    test: $B/tests/core/core-gcc --filter errno.
    why:  what the bug is, and what should notice it

file, from, to and test are required.  from must occur exactly once in
file (else the mutant is STALE: update it after changing that code);
in from and to, \\n is a newline, \\t a tab, \\\\ a backslash, and the
value starts after the blanks that follow the colon.  test is a shell
command run from the top of the scratch tree with B set to its build
directory: a suite (B=$B tests/suites.d/50-tool.sh) or, faster, one
test binary with a filter.  Optional: build (make targets rebuilt after
applying; default "lib tools core-tests"), timeout (seconds; default
900).  Add one mutant for each new capability, next to its tests.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FIELDS = {"file", "from", "to", "test", "build", "timeout", "why"}


def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "nt\\":
            out.append({"n": "\n", "t": "\t", "\\": "\\"}[s[i + 1]])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def parse_list(path):
    mutants, cur, errors = [], None, []
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("#") or not line.strip():
                cur = None if not line.strip() else cur
                continue
            if line.startswith("[") and line.endswith("]"):
                cur = {"id": line[1:-1], "line": no}
                mutants.append(cur)
                continue
            key, sep, val = line.partition(":")
            if cur is None or not sep or key.strip() not in FIELDS:
                errors.append("%s:%d: expected [id] or 'key: value'" % (path, no))
                continue
            cur[key.strip()] = val.lstrip(" \t")
    seen = set()
    for m in mutants:
        for k in ("file", "from", "to", "test"):
            if k not in m:
                errors.append("%s:%d: [%s] has no %s" % (path, m["line"], m["id"], k))
        if m["id"] in seen:
            errors.append("%s:%d: [%s] twice" % (path, m["line"], m["id"]))
        seen.add(m["id"])
    if errors:
        sys.exit("\n".join(errors))
    return mutants


def copy_tree(top, dst):
    files = subprocess.run(
        ["git", "-C", top, "ls-files", "-z", "--cached", "--others",
         "--exclude-standard"], check=True, capture_output=True).stdout
    for rel in files.decode().split("\0"):
        if not rel or not os.path.lexists(os.path.join(top, rel)):
            continue
        os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(os.path.join(top, rel), os.path.join(dst, rel),
                     follow_symlinks=False)


def sh(cmd, cwd, log, timeout, env):
    """Run cmd; returns (status, seconds); status None on timeout."""
    t0 = time.monotonic()
    with open(log, "ab") as out:
        p = subprocess.Popen(cmd, shell=True, cwd=cwd, stdout=out,
                             stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.wait()
            rc = None
    return rc, time.monotonic() - t0


def tail(path, n=15):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-n:])


def runs_nothing(log):
    """True if the last "N passed, N failed" line of log says 0 passed."""
    last = None
    with open(log, errors="replace") as f:
        for line in f:
            m = re.match(r"^(\d+) passed, (\d+) failed", line)
            if m:
                last = m
    return last is not None and last.group(1) == "0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", default="tests/mutants/mutants.txt")
    ap.add_argument("--only", help="comma-separated mutant ids")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"],
                         check=True, capture_output=True,
                         text=True).stdout.strip()
    mutants = parse_list(os.path.join(top, a.list))
    if a.only:
        want = set(a.only.split(","))
        mutants = [m for m in mutants if m["id"] in want]
        if not mutants:
            sys.exit("no mutant named %s" % a.only)
    jobs = os.environ.get("MUTANTS_JOBS", "2")
    scratch = tempfile.mkdtemp(prefix="ukcov-mutants.")
    tree, logs = os.path.join(scratch, "tree"), os.path.join(scratch, "logs")
    os.makedirs(logs)
    env = dict(os.environ, B="build")
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    print("scratch tree: %s" % tree, flush=True)
    copy_tree(top, tree)

    log = os.path.join(logs, "build.log")
    rc, secs = sh("make -j%s B=build test-prep" % jobs, tree, log, 3600, env)
    if rc != 0:
        sys.exit("the unmutated tree does not build (%s):\n%s" % (log, tail(log)))
    print("built in %.0f s" % secs, flush=True)
    for i, cmd in enumerate(sorted({m["test"] for m in mutants})):
        log = os.path.join(logs, "baseline-%d.log" % i)
        rc, secs = sh(cmd, tree, log, 900, env)
        if rc != 0:
            sys.exit("the test fails without any mutant, so it cannot "
                     "judge one: %s (%s)\n%s" % (cmd, log, tail(log)))
        if runs_nothing(log):
            sys.exit("the test runs no test (a filter that matches "
                     "nothing?): %s (%s)" % (cmd, log))
        print("baseline ok (%.0f s): %s" % (secs, cmd), flush=True)

    killed, bad, results = 0, 0, []
    for m in mutants:
        path = os.path.join(tree, m["file"])
        old, new = unescape(m["from"]), unescape(m["to"])
        log = os.path.join(logs, m["id"] + ".log")
        with open(path, encoding="utf-8") as f:
            orig = f.read()
        n = orig.count(old) if old else 0
        if n != 1:
            verdict, secs = "STALE (from: found %d times in %s)" % (n, m["file"]), 0
            bad += 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig.replace(old, new))
            rc, secs = sh("make -j%s B=build %s" % (jobs, m.get("build", "lib tools core-tests")),
                          tree, log, 1800, env)
            if rc != 0:
                verdict = "UNBUILDABLE (%s)" % log
                bad += 1
            else:
                rc, secs = sh(m["test"], tree, log, int(m.get("timeout", 900)), env)
                if rc is None:
                    verdict, killed = "killed (time limit)", killed + 1
                elif rc != 0:
                    verdict, killed = "killed", killed + 1
                else:
                    verdict = "SURVIVED"
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig)
        print("%-34s %s (%.0f s)" % (m["id"], verdict, secs), flush=True)
        if verdict == "SURVIVED":
            print("    %s\n    test: %s" % (m.get("why", ""), m["test"]))
            print("    " + tail(log, 5).replace("\n", "\n    "))
        results.append((m["id"], verdict))

    total = len(mutants)
    print("score: %d/%d killed (%d%%)%s" % (
        killed, total, 100 * killed // total if total else 0,
        ", %d stale or unbuildable" % bad if bad else ""))
    if a.keep:
        print("kept: %s" % scratch)
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0 if killed == total else 1


if __name__ == "__main__":
    sys.exit(main())
