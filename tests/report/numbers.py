#!/usr/bin/env python3
"""tests/report/numbers.py -- numbers the report tests compare.

  numbers.py dom FILE.html         the totals ids of a page (as dumped by
                                   chromium --dump-dom): "lines 10 17 ..."
  numbers.py symcov FILE.symcov SUFFIX
                                   the same numbers for the one source file
                                   ending in SUFFIX, computed from the
                                   .symcov JSON (`ukcov symbolize`)
  numbers.py regions FILE.html     check the uncovered-region jump chain
"""
import json
import re
import sys


def dom(path):
    html = open(path, encoding="utf-8").read()
    out = []
    for what in ("lines", "functions", "points"):
        v = []
        for k in ("hit", "all"):
            m = re.search(r'id="%s-%s">(\d+)<' % (what, k), html)
            v.append(m.group(1) if m else "?")
        out.append("%s %s %s" % (what, v[0], v[1]))
    print(" ".join(out))


def symcov(path, suffix):
    j = json.load(open(path))
    covered = set(j["covered-points"])
    files = [f for f in j["point-symbol-info"] if f.endswith(suffix)]
    if len(files) != 1:
        sys.exit("numbers: %d files end in %s" % (len(files), suffix))
    fns = j["point-symbol-info"][files[0]]
    points, lines, hit_lines, fn_hit = set(), {}, set(), 0
    for fn, ids in fns.items():
        fn_cov = False
        for pid, loc in ids.items():
            points.add(pid)
            line = int(loc.split(":")[0])
            if line == 0:
                continue
            lines.setdefault(line, False)
            if pid in covered:
                hit_lines.add(line)
                fn_cov = True
        fn_hit += fn_cov
    print("lines %d %d functions %d %d points %d %d" % (
        len(hit_lines), len(lines), fn_hit, len(fns),
        len(points & covered), len(points)))


def regions(path):
    html = open(path, encoding="utf-8").read()
    ids = re.findall(r'class=nx id=u(\d+) href="#(u\d+|top)"', html)
    m = re.search(r"<p>(\d+) uncovered region", html)
    n = int(m.group(1)) if m else 0
    want = [(str(k), "u%d" % (k + 1) if k < n else "top") for k in range(1, n + 1)]
    if ids != want or n == 0:
        sys.exit("regions: %d announced, chain %s" % (n, ids))
    print(n)


if __name__ == "__main__":
    {"dom": dom, "symcov": symcov, "regions": regions}[sys.argv[1]](*sys.argv[2:])
