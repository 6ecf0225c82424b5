#!/usr/bin/env python3
# tests/tool/merge_ref.py -- an independent model of `ukcov merge` on
# dumps, for inputs where "same module" is an equivalence: modules with a
# build-id are one module per id, modules without one per path, and no
# id-less path is also the path of a module with an id.
#
#   merge_ref.py gen N OUT1 OUT2   write two dumps of N/2 modules each
#   merge_ref.py merge IN...       print the canonical union (stdout)
import sys

HDR = "ukcov-dump 1"


def gen(n, out1, out2):
    half = n // 2
    for f, base in ((out1, 0), (out2, half // 2)):
        # The second file shares half the first's modules, under other
        # paths and biases, so the union keeps the smaller description.
        mods, pcs, cmps = [], [], []
        for k in range(half):
            i = base + k
            bias = (i * 0x1000) if f == out1 else (i * 0x1000) ^ 0x5000
            path = "/p/%d/lib%d.so" % (i % 97, i) if f == out1 \
                else "/q/lib%d.so" % i
            if i % 5 == 0:
                bid, path = "-", "/noid/%d" % i
            else:
                bid = "%040x" % ((i * 2654435761) % (1 << 160))
            mods.append("module %d %s %x %x %x %s" %
                        (k, bid, bias, bias + 0x100, bias + 0x900, path))
            if i % 3:
                pcs.append((k, sorted({(i * 7 + j * 13) % 0x800 + 1
                                       for j in range(3 + (f == out2))})))
            if f == out2 and i % 4 == 0:
                cmps.append("cmp %d %x 5 %x %x" % (k, i % 0x900, i, 7))
        with open(f, "w") as o:
            o.write(HDR + "\nmode %s\n" % ("cmp" if f == out2 else "pc"))
            o.write("".join(m + "\n" for m in mods))
            for k, v in pcs:
                o.write("pcs %d %d\n" % (k, len(v)))
                o.write("".join("%x\n" % p for p in v))
            o.write("".join(c + "\n" for c in cmps))
            o.write("cmp - 10 1 2 3\nend\n")


def load(path):
    mode, mods, pcs, cmps = "pc", [], {}, []
    lines = open(path).read().split("\n")
    i = 1
    while lines[i] != "end":
        w = lines[i].split(" ")
        if w[0] == "mode":
            mode = w[1]
        elif w[0] == "module":
            mods.append((w[2], int(w[3], 16), int(w[4], 16),
                         int(w[5], 16), " ".join(w[6:])))
        elif w[0] == "pcs":
            n = int(w[2])
            pcs[int(w[1])] = [int(x, 16) for x in lines[i + 1:i + 1 + n]]
            i += n
        elif w[0] == "cmp":
            cmps.append((None if w[1] == "-" else int(w[1]),
                         tuple(int(x, 16) for x in w[2:6])))
        i += 1
    return mode, mods, pcs, cmps


def merge(paths):
    cmp_mode, desc, pcset, cmps = False, {}, {}, set()
    for p in paths:
        mode, mods, pcs, cs = load(p)
        cmp_mode |= mode == "cmp"
        keys = []
        for j, (bid, bias, lo, hi, path) in enumerate(mods):
            key = (bid, "") if bid != "-" else ("-", path)
            d = (path.encode(), bias, lo, hi)
            desc[key] = min(desc.get(key, d), d)
            pcset.setdefault(key, set()).update(pcs.get(j, []))
            keys.append(key)
        cmps.update((None if m is None else keys[m], r) for m, r in cs)

    def sort_key(key):
        idb = b"" if key[0] == "-" else bytes.fromhex(key[0])
        return (idb,) + desc[key]
    order = sorted(desc, key=sort_key)
    rank = {k: i for i, k in enumerate(order)}
    out = [HDR, "mode " + ("cmp" if cmp_mode else "pc")]
    for i, k in enumerate(order):
        path, bias, lo, hi = desc[k]
        out.append("module %d %s %x %x %x %s" %
                   (i, k[0], bias, lo, hi, path.decode()))
    for i, k in enumerate(order):
        v = sorted(pcset[k])
        if v:
            out.append("pcs %d %d" % (i, len(v)))
            out += ["%x" % x for x in v]
    rows = sorted((-1 if m is None else rank[m],) + r for m, r in cmps)
    for m, off, t, a1, a2 in rows:
        out.append("cmp %s %x %x %x %x" %
                   ("-" if m < 0 else m, off, t, a1, a2))
    out.append("end")
    sys.stdout.write("\n".join(out) + "\n")


if sys.argv[1] == "gen":
    gen(int(sys.argv[2]), sys.argv[3], sys.argv[4])
else:
    merge(sys.argv[2:])
