#!/usr/bin/env python3
"""Check ukcov's basic-block trace and caller-callee files (60-sancov)
independently of ukcov: points are mapped to functions with `nm`, call
sites with `objdump`.

bbcheck.py trace BINARY DIR PID [table]
    ("table": trace-points lists a PC table, every point whether it ran
    or not, not the points in order of first appearance)
    prints one line per thread: "<thread number> <functions>", the
    sequence of functions (a, b, c for bb_a, bb_b, bb_c) its events ran
    in, run-length encoded as pattern*count when it repeats.
bbcheck.py cc BINARY FILE
    prints "<caller function> <callee function>" for each pair of the
    caller-callee file, checking that each caller offset is a call site
    of __sanitizer_cov_trace_pc_indir (the call's end - 1).
"""
import os
import re
import struct
import subprocess
import sys


def functions(binary):
    out = subprocess.run([os.environ.get("CROSS", "") + "nm", "-S", "--defined-only", binary],
                         capture_output=True, text=True, check=True).stdout
    fns = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT":
            fns.append((int(f[0], 16), int(f[1], 16), f[3]))
    return fns


def function_of(fns, off):
    for start, size, name in fns:
        if start <= off < start + size:
            return name
    return "?%x" % off


def points(path, binary):
    """Offsets of the points of trace-points, checking the module."""
    offs = []
    for line in open(path):
        mod, off = line.split()
        if mod != binary:
            sys.exit("point in module %s, not %s" % (mod, binary))
        offs.append(int(off, 16))
    return offs


def u32s(path):
    data = open(path, "rb").read()
    return list(struct.unpack("<%dI" % (len(data) // 4), data))


def rle(s):
    for n in range(1, len(s) // 2 + 1):
        if len(s) % n == 0 and s[:n] * (len(s) // n) == s:
            return "%s*%d" % (s[:n], len(s) // n)
    return s


def trace(binary, d, pid, table=None):
    fns = functions(binary)
    offs = points("%s/trace-points.%s.sancov" % (d, pid), binary)
    names = [function_of(fns, o) for o in offs]
    ev = u32s("%s/trace-events.%s.sancov" % (d, pid))
    th = u32s("%s/trace-threads.%s.sancov" % (d, pid))
    if len(ev) != len(th):
        sys.exit("events %d, threads %d" % (len(ev), len(th)))
    seen = set()
    for i in ev:   # points are numbered by first appearance
        if i >= len(offs) or (not table and i > len(seen)):
            sys.exit("point %d before point %d" % (i, len(seen)))
        seen.add(i)
    if not table and len(seen) != len(offs):
        sys.exit("%d points, %d used" % (len(offs), len(seen)))
    per = {}
    for i, t in zip(ev, th):
        per.setdefault(t, []).append(names[i].replace("bb_", ""))
    for t in sorted(per):
        print(t, rle("".join(per[t])))


def cc(binary, path):
    fns = functions(binary)
    # A cross run (tests/lib.sh CROSS): the target's objdump; an aarch64
    # site is the bl itself (return address - 4), an x86-64 one the
    # call's last byte (the next instruction - 1).
    cross = os.environ.get("CROSS", "")
    dis = subprocess.run([cross + "objdump", "-d", "--no-show-raw-insn", binary],
                         capture_output=True, text=True, check=True).stdout
    sites = set()
    lines = dis.splitlines()
    for k, line in enumerate(lines):
        if not re.search(r"(call|bl)\s+[0-9a-f]+ <__sanitizer_cov_trace_pc_indir(@plt)?>", line):
            continue
        if cross.startswith("aarch64"):
            sites.add(int(line.split(":")[0], 16))
            continue
        nxt = next(l for l in lines[k + 1:] if re.match(r"\s+[0-9a-f]+:", l))
        sites.add(int(nxt.split(":")[0], 16) - 1)
    text = open(path).read().split("\n")
    if text[-1] != "" or len(text) % 2 != 1:
        sys.exit("not an even number of whole lines")
    for k in range(0, len(text) - 1, 2):
        cm, co = text[k].split(" ")
        em, eo = text[k + 1].split(" ")
        if cm != binary or em != binary:
            sys.exit("module %s / %s" % (cm, em))
        co, eo = int(co, 16), int(eo, 16)
        if co not in sites:
            sys.exit("caller 0x%x is not a call site" % co)
        callee = [n for s, z, n in fns if s == eo]
        print(function_of(fns, co), callee[0] if callee else "?%x" % eo)


if __name__ == "__main__":
    if sys.argv[1] == "trace":
        trace(*sys.argv[2:6])
    else:
        cc(*sys.argv[2:4])
