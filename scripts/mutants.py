#!/usr/bin/env python3
"""scripts/mutants.py -- "make mutants": do the tests catch real bugs?

Two kinds of mutants, each one small bug in a scratch copy of the tree
(the files git knows, tracked or not ignored; the real tree is never
modified), built once and checked to pass its tests first:

  hand-written  the blocks of every tests/mutants/*.txt (but
                coverage-map.txt and equivalent.txt): an exact piece of
                a file, what to put in its place, the test that must
                notice.  They cover what a generator cannot aim at: the
                callbacks' hot path and their assembly.
  generated     sites nobody chose: scripts/mutgen.py finds every place
                in lib/*.c and tools/*.c where a mechanical operator
                applies (relational and equality flips, +-1 on literals
                and on x - 1 / x + 1, && and || swapped, a statement
                dropped, "- 1" dropped on PCs, two arguments swapped);
                a seeded, uniform sample of them is run against the
                tests tests/mutants/coverage-map.txt gives their file.

Per mutant: apply, rebuild (a build failure is NOT VIABLE, left out of
the score), compare the rebuilt objects with the unmutated ones (the
same code, debug info aside, is EQUIVALENT, left out too), run the
tests under a time limit, restore.  KILLED when a test fails (non-zero
exit, a "not ok" or "FAIL" line, "N passed, M failed" with M > 0) or
times out; SURVIVED otherwise.  The score is per directory and overall;
each survivor is printed with its lines before and after.  Exit status
0 only if every viable, non-equivalent mutant was killed.

    make mutants                      the hand-written list + a sample
                                      of 60 sites, seed 1
    scripts/mutants.py --seed 7 --sample 100 --no-hand
    scripts/mutants.py --list         the sampled sites, nothing run
    scripts/mutants.py --only ID,ID   hand-written names or site ids
    scripts/mutants.py --keep         keep the scratch tree and logs

MUTANTS_JOBS (default 2) is make's -j.  Too slow for "make test".

The hand-written format: blank-line separated blocks, '#' lines are
comments.

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

tests/mutants/coverage-map.txt has blocks of "files:" (globs), "build:"
and one or more "test:"; a file gets the builds and tests of every
block that matches it.  tests/mutants/equivalent.txt lists generated
sites known to be equivalent, "SITE-ID  reason", one a line; they are
never sampled.  A site id (file:hash:op:k) is in scripts/mutgen.py.
"""
import argparse
import fnmatch
import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutgen  # noqa: E402

FIELDS = {"file", "from", "to", "test", "build", "timeout", "why"}
MAP_FIELDS = {"files", "build", "test"}
NOT_HAND = {"coverage-map.txt", "equivalent.txt"}
DEFAULT_SEED, DEFAULT_SAMPLE = 1, 60
SOURCES = ("lib/*.c", "tools/*.c")


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


def parse_blocks(path, fields, multi=()):
    """[id] blocks of 'key: value' lines; keys in multi may repeat and
    collect into a list.  Returns (blocks, errors)."""
    blocks, cur, errors = [], None, []
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("#") or not line.strip():
                cur = None if not line.strip() else cur
                continue
            if line.startswith("[") and line.endswith("]"):
                cur = {"id": line[1:-1], "line": no, "path": path}
                blocks.append(cur)
                continue
            key, sep, val = line.partition(":")
            key = key.strip()
            if cur is None or not sep or key not in fields:
                errors.append("%s:%d: expected [id] or 'key: value'" % (path, no))
            elif key in multi:
                cur.setdefault(key, []).append(val.strip())
            else:
                cur[key] = val.lstrip(" \t")
    return blocks, errors


def parse_hand(paths):
    """Every hand-written list; ids are unique across all of them."""
    mutants, errors, seen = [], [], set()
    for path in paths:
        blocks, errs = parse_blocks(path, FIELDS)
        errors += errs
        for m in blocks:
            for k in ("file", "from", "to", "test"):
                if k not in m:
                    errors.append("%s:%d: [%s] has no %s" % (path, m["line"], m["id"], k))
            if m["id"] in seen:
                errors.append("%s:%d: [%s] twice" % (path, m["line"], m["id"]))
            seen.add(m["id"])
        mutants += blocks
    if errors:
        sys.exit("\n".join(errors))
    return mutants


def hand_lists(top):
    return [p for p in sorted(glob.glob(os.path.join(top, "tests/mutants/*.txt")))
            if os.path.basename(p) not in NOT_HAND]


def parse_map(path):
    blocks, errors = parse_blocks(path, MAP_FIELDS, multi=("test",))
    for b in blocks:
        if "files" not in b or "test" not in b:
            errors.append("%s:%d: [%s] needs files: and test:" % (path, b["line"], b["id"]))
    if errors:
        sys.exit("\n".join(errors))
    return blocks


def cover(cmap, rel):
    """(build targets, test commands) of every block matching rel."""
    builds, tests = [], []
    for b in cmap:
        if any(fnmatch.fnmatchcase(rel, g) for g in b["files"].split()):
            builds += [t for t in b.get("build", "").split() if t not in builds]
            tests += [t for t in b["test"] if t not in tests]
    return builds, tests


def parse_equivalent(path):
    """site id -> reason; a site without a reason is refused."""
    out, errors = {}, []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            sid, _, why = line.strip().partition(" ")
            if not why.strip():
                errors.append("%s:%d: %s: say why it is equivalent" % (path, no, sid))
            out[sid] = why.strip()
    if errors:
        sys.exit("\n".join(errors))
    return out


def all_sites(top):
    """Every site of lib/*.c and tools/*.c, with each file's text."""
    sites, texts = [], {}
    for pattern in SOURCES:
        for path in sorted(glob.glob(os.path.join(top, pattern))):
            rel = os.path.relpath(path, top)
            with open(path, encoding="utf-8") as f:
                texts[rel] = f.read()
            sites += mutgen.sites(rel, texts[rel])
    return sites, texts


def site_rank(seed, sid):
    return hashlib.sha1(("%d %s" % (seed, sid)).encode()).digest()


def pick_sites(sites, equivalent, seed, sample, only):
    if only is not None:
        return [s for s in sites if s.id in only]
    # Each site's rank is a hash of the seed and its id: a uniform draw,
    # and one that an edit elsewhere (a new site, a site moved to
    # equivalent.txt) changes by that one site, not wholesale.
    eligible = [s for s in sites if s.id not in equivalent]
    chosen = sorted(eligible, key=lambda s: site_rank(seed, s.id))[:sample]
    # Grouped by file, so one file's objects are rebuilt back to back.
    return sorted(chosen, key=lambda s: (s.path, s.line, s.id))


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


def kill_session(sid):
    """SIGKILL every process of session sid: the test's process group
    and the groups its processes made (the core harness runs each test
    in a group of its own), which killpg alone would leave running."""
    for _ in range(3):
        found = False
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid:
                found = True
                try:
                    os.kill(int(d), 9)
                except OSError:
                    pass
        if not found:
            return
        time.sleep(0.1)


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
            kill_session(p.pid)
            p.wait()
            rc = None
    return rc, time.monotonic() - t0


def tail(path, n=15):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-n:])


_FAILED = re.compile(r"^(?:not ok\b|FAIL\b)|^\d+ passed, [1-9]\d* failed")


def log_says_failed(log):
    """A test that reports a failure but exits 0 still failed."""
    with open(log, errors="replace") as f:
        return any(_FAILED.search(line) for line in f)


def runs_nothing(log):
    """True if the last "N passed, N failed" line of log says 0 passed."""
    last = None
    with open(log, errors="replace") as f:
        for line in f:
            m = re.match(r"^(\d+) passed, (\d+) failed", line)
            if m:
                last = m
    return last is not None and last.group(1) == "0"


def object_digest(path):
    """SHA-1 of an object without its debug info and .comment: the
    same code at other line numbers digests the same."""
    tmp = path + ".mutstrip"
    try:
        subprocess.run(["objcopy", "--strip-debug", "-R", ".comment", path, tmp],
                       check=True, capture_output=True)
        with open(tmp, "rb") as f:
            return hashlib.sha1(f.read()).hexdigest()
    except subprocess.CalledProcessError:
        return None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def object_digests(build):
    out = {}
    for sub in ("lib", "tools"):
        for path in glob.glob(os.path.join(build, sub, "*.o")):
            out[path] = object_digest(path)
    return out


def mtimes(paths):
    return {p: os.stat(p).st_mtime_ns for p in paths if os.path.exists(p)}


def same_objects(baseline, before):
    """True if every object rebuilt (its mtime moved from 'before')
    equals its unmutated digest, and one was: no code changed."""
    after = mtimes(baseline)
    rebuilt = [p for p in after if after[p] != before.get(p)]
    return bool(rebuilt) and all(object_digest(p) == baseline[p] for p in rebuilt)


class Runner:
    """The scratch tree, its logs, and how long each test takes there."""

    def __init__(self, top, keep):
        self.jobs = os.environ.get("MUTANTS_JOBS", "2")
        self.scratch = tempfile.mkdtemp(prefix="ukcov-mutants.")
        self.tree = os.path.join(self.scratch, "tree")
        self.logs = os.path.join(self.scratch, "logs")
        self.keep = keep
        os.makedirs(self.logs)
        self.env = dict(os.environ, B="build")
        for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
            self.env.pop(k, None)
        self.limit = {}
        print("scratch tree: %s" % self.tree, flush=True)
        copy_tree(top, self.tree)

    def build_all(self):
        log = os.path.join(self.logs, "build.log")
        rc, secs = sh("make -j%s B=build test-prep" % self.jobs, self.tree, log, 3600, self.env)
        if rc != 0:
            sys.exit("the unmutated tree does not build (%s):\n%s" % (log, tail(log)))
        print("built in %.0f s" % secs, flush=True)
        self.objects = object_digests(os.path.join(self.tree, "build"))

    def baseline(self, cmds):
        """Each test must pass unmutated and run something; its time
        limit on a mutant is three times its time here, at least 20 s."""
        for i, cmd in enumerate(sorted(cmds)):
            log = os.path.join(self.logs, "baseline-%d.log" % i)
            rc, secs = sh(cmd, self.tree, log, 900, self.env)
            if rc != 0 or log_says_failed(log):
                sys.exit("the test fails without any mutant, so it cannot "
                         "judge one: %s (%s)\n%s" % (cmd, log, tail(log)))
            if runs_nothing(log):
                sys.exit("the test runs no test (a filter that matches "
                         "nothing?): %s (%s)" % (cmd, log))
            self.limit[cmd] = max(20, int(3 * secs))
            print("baseline ok (%.0f s): %s" % (secs, cmd), flush=True)

    def make(self, targets, log):
        return sh("make -j%s B=build %s" % (self.jobs, targets), self.tree, log, 1800, self.env)

    def test(self, cmds, log, timeout=None):
        """'killed', 'killed (time limit)' or None (all passed)."""
        for cmd in cmds:
            with open(log, "a") as f:
                f.write("\n==== %s\n" % cmd)
            start = os.path.getsize(log)
            rc, _ = sh(cmd, self.tree, log, timeout or self.limit[cmd], self.env)
            if rc is None:
                return "killed (time limit)"
            with open(log, errors="replace") as f:
                f.seek(start)
                failed = any(_FAILED.search(line) for line in f)
            if rc != 0 or failed:
                return "killed"
        return None

    def done(self):
        if self.keep:
            print("kept: %s" % self.scratch)
        else:
            shutil.rmtree(self.scratch, ignore_errors=True)


def run_hand(r, m):
    """One hand-written mutant: its verdict."""
    path = os.path.join(r.tree, m["file"])
    old, new = unescape(m["from"]), unescape(m["to"])
    log = os.path.join(r.logs, m["id"] + ".log")
    with open(path, encoding="utf-8") as f:
        orig = f.read()
    n = orig.count(old) if old else 0
    if n != 1:
        return "STALE (from: found %d times in %s)" % (n, m["file"])
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(orig.replace(old, new))
        rc, _ = r.make(m.get("build", "lib tools core-tests"), log)
        if rc != 0:
            return "UNBUILDABLE (%s)" % log
        return r.test([m["test"]], log, int(m.get("timeout", 900))) or "SURVIVED"
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(orig)


def run_site(r, site, builds, tests):
    """One generated mutant: its verdict."""
    path = os.path.join(r.tree, site.path)
    log = os.path.join(r.logs, site.id.replace("/", "_") + ".log")
    with open(path, encoding="utf-8") as f:
        orig = f.read()
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(site.apply(orig))
        before = mtimes(r.objects)
        rc, _ = r.make(" ".join(builds), log)
        if rc != 0:
            return "not viable (%s)" % log
        if same_objects(r.objects, before):
            return "equivalent (same object code)"
        return r.test(tests, log) or "SURVIVED"
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(orig)


def verdict_kind(v):
    if v.startswith("killed"):
        return "killed"
    if v == "SURVIVED":
        return "survived"
    if v.startswith("equivalent"):
        return "equivalent"
    return "bad"


def score_lines(results):
    """results: (directory, kind) pairs -> per-directory score lines."""
    lines = []
    dirs = sorted({d for d, _ in results})
    for d in dirs + ["all"]:
        kinds = [k for dd, k in results if d in (dd, "all")]
        killed, survived = kinds.count("killed"), kinds.count("survived")
        total = killed + survived
        extra = []
        if kinds.count("equivalent"):
            extra.append("%d equivalent" % kinds.count("equivalent"))
        if kinds.count("bad"):
            extra.append("%d not viable/stale" % kinds.count("bad"))
        lines.append("  %-7s %d/%d killed (%d%%)%s" % (
            d + ("/" if d != "all" else "") + ":", killed, total,
            100 * killed // total if total else 0,
            ", " + ", ".join(extra) if extra else ""))
    return lines


def print_site(s, text, tests=None):
    before, after = s.diff(text)
    print("  %s:%d  [%s]" % (s.path, s.line, s.id))
    for line in before.split("\n"):
        print("    - %s" % line.strip())
    for line in after.split("\n"):
        print("    + %s" % line.strip())
    if tests:
        print("    tests: %s" % " ; ".join(tests))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated hand-written names or site ids")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED,
                    help="seed of the generated sample (default %d)" % DEFAULT_SEED)
    ap.add_argument("--sample", type=int, default=DEFAULT_SAMPLE,
                    help="generated sites per run (default %d; 0: none)" % DEFAULT_SAMPLE)
    ap.add_argument("--no-hand", action="store_true",
                    help="only the generated sample")
    ap.add_argument("--list", action="store_true",
                    help="print the mutants that would run, run nothing")
    ap.add_argument("--keep", action="store_true", help="keep the scratch tree and logs")
    a = ap.parse_args()
    if a.sample < 0:
        ap.error("--sample: %d is negative" % a.sample)
    return a


def select(top, a):
    """(hand-written mutants, generated sites, file texts, coverage map)."""
    only = set(a.only.split(",")) if a.only else None
    hand = [] if a.no_hand and not only else parse_hand(hand_lists(top))
    if only is not None:
        hand = [m for m in hand if m["id"] in only]
    sites, texts = all_sites(top)
    equivalent = parse_equivalent(os.path.join(top, "tests/mutants/equivalent.txt"))
    known = {s.id for s in sites}
    stale = sorted(set(equivalent) - known)
    if stale:
        print("equivalent.txt: no such site now (edit or remove): %s" % ", ".join(stale))
    picked = pick_sites(sites, equivalent, a.seed, a.sample, only)
    if only is not None:
        missing = only - {m["id"] for m in hand} - {s.id for s in picked}
        if missing:
            sys.exit("no mutant named %s" % ",".join(sorted(missing)))
    cmap = parse_map(os.path.join(top, "tests/mutants/coverage-map.txt"))
    for s in picked:
        if not cover(cmap, s.path)[1]:
            sys.exit("coverage-map.txt: no test covers %s" % s.path)
    print("generated: %d of %d sites (seed %d), %d in equivalent.txt" % (
        len(picked), len(sites), a.seed, len(equivalent)), flush=True)
    return hand, picked, texts, cmap


def main():
    a = parse_args()
    # The tests inherit every disposition: run under nohup, SIGHUP
    # ignored would hide a mutant that sends it (lib/desc.c's tgkill
    # with signal 0 made 1 survived that way).
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"],
                         check=True, capture_output=True,
                         text=True).stdout.strip()
    hand, picked, texts, cmap = select(top, a)
    if a.list:
        for m in hand:
            print("hand-written: %s  (%s)" % (m["id"], m["file"]))
        for s in picked:
            print_site(s, texts[s.path], cover(cmap, s.path)[1])
        return 0
    t_start = time.monotonic()
    r = Runner(top, a.keep)
    r.build_all()
    cmds = {m["test"] for m in hand}
    for s in picked:
        cmds.update(cover(cmap, s.path)[1])
    r.baseline(cmds)

    hand_res, gen_res, survivors, left_out = [], [], [], []
    for m in hand:
        t0 = time.monotonic()
        v = run_hand(r, m)
        print("%-40s %s (%.0f s)" % (m["id"], v, time.monotonic() - t0), flush=True)
        if v == "SURVIVED":
            print("    %s\n    test: %s" % (m.get("why", ""), m["test"]))
        hand_res.append((m["file"].split("/")[0], verdict_kind(v)))
    for s in picked:
        builds, tests = cover(cmap, s.path)
        t0 = time.monotonic()
        v = run_site(r, s, builds, tests)
        print("%-40s %s:%d %s (%.0f s)" % (s.id, s.path, s.line, v,
                                           time.monotonic() - t0), flush=True)
        if v == "SURVIVED":
            survivors.append((s, tests))
        elif verdict_kind(v) in ("equivalent", "bad"):
            left_out.append((s, v.split(" (")[0]))
        gen_res.append((s.path.split("/")[0], verdict_kind(v)))

    if hand_res:
        print("hand-written:")
        print("\n".join(score_lines(hand_res)))
    if gen_res:
        print("generated (seed %d, %d sites):" % (a.seed, len(gen_res)))
        print("\n".join(score_lines(gen_res)))
    if hand_res and gen_res:
        print("overall:")
        print("\n".join(score_lines(hand_res + gen_res)))
    if left_out:
        print("left out of the score:")
        for s, why in left_out:
            print("  %-40s %s:%d %s" % (s.id, s.path, s.line, why))
    if survivors:
        print("surviving generated mutants:")
        for s, tests in survivors:
            print_site(s, texts[s.path], tests)
    kinds = [k for _, k in hand_res + gen_res]
    judged = kinds.count("killed") + kinds.count("survived")
    print("score: %d/%d killed (%d%%)" % (kinds.count("killed"), judged,
                                          100 * kinds.count("killed") // judged if judged else 0))
    print("run time: %.0f s" % (time.monotonic() - t_start))
    r.done()
    return 0 if kinds.count("survived") == 0 and kinds.count("bad") == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
