#!/usr/bin/env python3
"""scripts/layers.py -- lib/ calls only downward (docs/DESIGN.md, "Layers").

    scripts/layers.py [BUILD_DIR] [--table FILE] [--graph]

Reads the layer table (lib/layers.txt) and the runtime's objects
(BUILD_DIR/lib/*.o, default build, from "make lib"), with nm: a symbol
one object leaves undefined and another defines is a call (or a data
reference) between them.  Fails on
  - an object whose source is in no layer ("add lib/F.c to the layer
    table"), or a table entry with no object;
  - a reference to a higher layer (not an "anchor" of the table);
  - a reference to a libc function libukcov also exports (the exported
    names of lib/libukcov.map that lib/ defines and libc.so.6 defines
    too) from a file other than the table's "libc-names" files.
Prints "ok ..."/"not ok ..." lines, then "N passed, N failed"; exits
non-zero on any failure.  --graph prints the calls between files of one
layer (where cycles may remain) instead.  "make lint" runs this.
"""
import argparse
import os
import re
import subprocess
import sys

# Objects built twice from one source (lib/lib.mk).
VARIANTS = {"callbacks-only": "callbacks", "follow-shared": "follow"}
OURS = ("ukcov_", "__ukcov", "__sanitizer_", "__sancov", "__wrap_")


def read_table(path):
    layers, anchors, libc_ok = {}, set(), set()
    order = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] == "anchor" and len(words) == 3:
                anchors.add((words[1], words[2]))
            elif words[0] == "libc-names":
                libc_ok.update(words[1:])
            else:
                order.append(words[0])
                for src in words[1:]:
                    if src in layers:
                        sys.exit("%s:%d: %s is in two layers" % (path, n, src))
                    layers[src] = len(order) - 1
    return order, layers, anchors, libc_ok


def exported(map_path):
    text = open(map_path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    glob = text.split("global:", 1)[1].split("local:", 1)[0]
    return {w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", glob)}


def libc_names():
    """The functions the C library defines (nm -D of the libc.so.6 the
    compiler links), or None where it cannot be found."""
    cc = os.environ.get("CC", "cc")
    try:
        path = subprocess.run([cc, "-print-file-name=libc.so.6"],
                              capture_output=True, text=True).stdout.strip()
        if not os.path.isabs(path):
            return None
        return {n.split("@")[0] for n in nm(path, "-D", "--defined-only")}
    except (OSError, subprocess.CalledProcessError):
        return None


def nm(obj, *flags):
    out = subprocess.run(["nm", *flags, obj], check=True,
                         capture_output=True, text=True).stdout
    return {l.split()[-1] for l in out.splitlines() if l.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?", default=os.environ.get("B", "build"))
    ap.add_argument("--table", default="lib/layers.txt")
    ap.add_argument("--graph", action="store_true")
    opt = ap.parse_args()
    build, table = opt.build, opt.table
    order, layer, anchors, libc_ok = read_table(table)
    libdir = os.path.join(build, "lib")
    objs = sorted(f for f in os.listdir(libdir) if f.endswith(".o"))
    if not objs:
        sys.exit("scripts/layers.py: no objects in %s (run make lib)" % libdir)
    src = {o: VARIANTS.get(o[:-2], o[:-2]) for o in objs}
    defs, undef, definer = {}, {}, {}
    for o in objs:
        path = os.path.join(libdir, o)
        defs[o] = nm(path, "-g", "--defined-only")
        undef[o] = nm(path, "-u")
        for s in defs[o]:
            definer.setdefault(s, set()).add(src[o])
    libc = libc_names()
    interposed = {s for s in exported("lib/libukcov.map")
                  if s in definer and not s.startswith(OURS) and
                  (libc is None or s in libc)}
    results = []
    for f in sorted(set(src.values())):
        if f not in layer:
            results.append((False, "layers lib/%s.c: in no layer: add "
                            "lib/%s.c to the layer table (%s)" % (f, f, table)))
    for f in sorted(layer):
        if f not in src.values():
            results.append((False, "layers %s: %s is in the table but "
                            "%s/%s.o is missing" % (table, f, libdir, f)))
    up, libc, inner = {}, {}, {}
    for o in objs:
        a = src[o]
        for s in undef[o]:
            if s in interposed and a not in libc_ok:
                libc.setdefault(a, set()).add(s)
                continue    # one line for it, the libc-names one
            for b in definer.get(s, ()):
                if b == a or a not in layer or b not in layer:
                    continue
                if layer[b] > layer[a] and (a, s) not in anchors:
                    up.setdefault((a, b), set()).add(s)
                elif layer[b] == layer[a]:
                    inner.setdefault((a, b), set()).add(s)
    if opt.graph:
        for (a, b), syms in sorted(inner.items()):
            print("%s: %s -> %s: %s" % (order[layer[a]], a, b,
                                         " ".join(sorted(syms))))
        return 0
    for (a, b), syms in sorted(up.items()):
        results.append((False, "layers lib/%s.c (%s) calls up into lib/%s.c "
                        "(%s): %s" % (a, order[layer[a]], b, order[layer[b]],
                                      " ".join(sorted(syms)))))
    for a, syms in sorted(libc.items()):
        results.append((False, "libc-names lib/%s.c calls the interposed %s: "
                        "use ukcov__real_*" % (a, " ".join(sorted(syms)))))
    if not any(not ok for ok, _ in results):
        results.append((True, "layers lib/: %d files in %d layers call only "
                        "downward" % (len(layer), len(order))))
        results.append((True, "libc-names lib/: only %s name the "
                        "interposed libc functions" % " ".join(sorted(libc_ok))))
    for ok, msg in results:
        print(("ok " if ok else "not ok ") + msg)
    npass = sum(1 for ok, _ in results if ok)
    print("%d passed, %d failed" % (npass, len(results) - npass))
    return 0 if npass == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
