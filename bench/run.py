#!/usr/bin/env python3
"""bench/run.py -- run the benchmark that bench/workloads.mk built, print the
table of medians and ratios, check the three targets, and save the figures.

    bench/run.py [--quick] [--rounds N] [--only PART,...] [--cpu N] BUILDDIR

PART is ubench (micro-benchmark), icount (valgrind instruction counts),
time (interleaved wall-clock rounds).  Results go to
BUILDDIR/bench/results.json and BUILDDIR/bench/results.md (the tables in
the form docs/PERFORMANCE.md keeps them).  See bench/README.md.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import struct
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

DROP_WORDS = 512 << 10          # 4 MiB: a syzkaller-sized per-thread buffer
BIG_WORDS = 8 << 20             # 64 MiB, drained by the launcher (-r)

# Scales: full mode aims at ~0.5 s for the uninstrumented gcc build.
SCALES = {"full": {"sqlite": 4, "lua": 12, "zlib": 2},
          "quick": {"sqlite": 1, "lua": 4, "zlib": 1},
          "icount": {"sqlite": 1, "lua": 2, "zlib": 1}}

def text_span(path):
    """Bytes from the first executable PT_LOAD segment's start to the last's end (ELF64)."""
    with open(path, "rb") as f:
        data = f.read(1 << 16)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    lo, hi = None, 0
    for i in range(phnum):
        p_type, p_flags, _, p_vaddr, _, _, p_memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_flags & 1:        # PT_LOAD, PF_X
            lo = p_vaddr if lo is None else min(lo, p_vaddr)
            hi = max(hi, p_vaddr + p_memsz)
    return hi - lo if lo is not None else 0


def text_bytes(path):
    """Bytes of an ELF64 object's sections named .text or .text.* (hot and cold
    code alike: gcc's inline cold paths are in .text.unlikely.ukcov.*)."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    names_off = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)[0]
    total = 0
    for i in range(shnum):
        name, _, _, _, _, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        end = data.index(b"\0", names_off + name)
        sec = data[names_off + name:end]
        if sec == b".text" or sec.startswith(b".text."):
            total += size
    return total


# Object sets of bench/workloads.mk: uninstrumented and inline, per compiler.
TEXT_SETS = {"gcc": ("G0", "GI"), "clang": ("C0", "CI")}


def measure_text(cache):
    """.text of each workload's objects, uninstrumented and inline (I5)."""
    out = {}
    for wl in WORKLOADS:
        for cc, sets in TEXT_SETS.items():
            sizes = []
            for s in sets:
                d = os.path.join(cache, "obj", wl, s)
                objs = [os.path.join(d, f) for f in sorted(os.listdir(d))
                        if f.endswith(".o")] if os.path.isdir(d) else []
                sizes.append(sum(text_bytes(o) for o in objs) if objs else None)
            if None not in sizes:
                out.setdefault(wl, {})[cc] = {"a": sizes[0], "uki": sizes[1]}
    return out


def unique_bitmap(path):
    """The bitmap ukcov run gives a unique run of path (tools/run.c default_bitmap):
    4096 words, plus a bit per byte of the executable's text, a quarter of the
    buffer at most."""
    return min(4096 + text_span(path) // 64 + 2, DROP_WORDS // 4)


# name -> (binary variant, kcovrun arguments, description)
CONFIGS = [
    ("a", "a", [], "uninstrumented"),
    ("b0", "b0", [], "trace-pc, empty callback"),
    ("ref", "ref", ["-k", "ref", "-w", str(DROP_WORDS)], "ref-append, PC on, 4 MiB, drop"),
    ("ref.64M", "ref", ["-k", "ref", "-w", str(BIG_WORDS), "-r"],
     "ref-append, PC on, 64 MiB, drained"),
    ("uk.off", "uk", [], "ukcov static, off"),
    ("uk.pc", "uk", ["-k", "ukcov", "-w", str(DROP_WORDS)], "ukcov static, PC on, 4 MiB, drop"),
    ("uk.pc.64M", "uk", ["-k", "ukcov", "-w", str(BIG_WORDS), "-r"],
     "ukcov static, PC on, 64 MiB, drained"),
    ("uks.off", "uks", [], "ukcov -lukcov, off"),
    ("uks.pc", "uks", ["-k", "ukcov", "-w", str(DROP_WORDS)], "ukcov -lukcov, PC on, 4 MiB, drop"),
    ("ukplt.off", "ukplt", [], "ukcov .so via PLT, off"),
    ("b0c", "b0c", [], "trace-pc,trace-cmp, empty callbacks"),
    ("refc", "refc", ["-k", "ref", "-m", "cmp", "-w", str(DROP_WORDS)],
     "ref-append, CMP on, 4 MiB, drop"),
    ("ukc.off", "ukc", [], "ukcov static, cmp build, off"),
    ("ukc.cmp", "ukc", ["-k", "ukcov", "-m", "cmp", "-w", str(DROP_WORDS)],
     "ukcov static, CMP on, 4 MiB, drop"),
    ("uk.uniq", "uk", ["-k", "ukcov", "-m", "unique", "-b", "TEXT", "-w", str(DROP_WORDS)],
     "ukcov static, unique PC (KCOV_UNIQUE_ENABLE, bitmap as ukcov run sizes it), 4 MiB"),
    ("ukc.cuniq", "ukc", ["-k", "ukcov", "-m", "cmp-unique", "-w", str(DROP_WORDS)],
     "ukcov static, unique CMP, 4 MiB"),
    ("crtg", "crtg", [], "trace-pc-guard, compiler-rt's runtime (first PC per guard)"),
    ("ukg.off", "ukg", [], "trace-pc-guard, ukcov static, off"),
    ("ukg.uniq", "ukg", ["-k", "ukcov", "-m", "unique", "-b", "TEXT", "-w", str(DROP_WORDS)],
     "trace-pc-guard, ukcov static, unique PC (bit g = guard g), 4 MiB"),
    # the other SanitizerCoverage configurations (clang; environment in ENV)
    ("crtg.cov", "crtg", [], "trace-pc-guard, compiler-rt, UBSAN_OPTIONS=coverage=1"),
    ("ukg.cov", "ukg", [], "trace-pc-guard, ukcov static, UKCOV_OPTIONS=coverage=1"),
    ("ukg.cnt", "ukg", [], "trace-pc-guard, ukcov static, coverage=1 + counters"),
    ("g0", "g0", [], "trace-pc-guard, empty callbacks"),
    ("i8", "i8", [], "inline-8bit-counters,pc-table (libFuzzer-style), ukcov static"),
    # inline instrumentation (plugins/, issue 21)
    ("uki.off", "uki", [], "inline (ukcov plugin), ukcov static, off"),
    ("uki.pc", "uki", ["-k", "ukcov", "-w", str(DROP_WORDS)],
     "inline (ukcov plugin), ukcov static, PC on, 4 MiB, drop"),
    ("uki.uniq", "uki", ["-k", "ukcov", "-m", "unique", "-b", "TEXT", "-w", str(DROP_WORDS)],
     "inline (ukcov plugin), ukcov static, unique PC, 4 MiB"),
]
# Per-configuration environment; COVDIR is replaced by a scratch directory.
ENV = {"crtg.cov": {"UBSAN_OPTIONS": "coverage=1:coverage_dir=COVDIR"},
       "ukg.cov": {"UKCOV_OPTIONS": "coverage=1:coverage_dir=COVDIR"},
       "ukg.cnt": {"UKCOV_OPTIONS": "coverage=1:coverage_counters=1:coverage_dir=COVDIR"}}
DESC = {c[0]: c[3] for c in CONFIGS}
COMPILERS = ["gcc", "clang"]
WORKLOADS = ["sqlite", "lua", "zlib"]

# (label, numerator, denominator, limit): the issue's three targets.
TARGETS = [
    ("T1 tracing off within 3% of the empty callback", [
        ("uk.off", "b0"), ("uks.off", "b0")], 1.03),
    ("T2 PC tracing within 10% of ref-append", [
        ("uk.pc", "ref"), ("uk.pc.64M", "ref.64M"), ("uks.pc", "ref")], 1.10),
    ("T3 -lukcov (libukcov.so) within 10% of static", [
        ("uks.off", "uk.off"), ("uks.pc", "uk.pc")], 1.10),
    ("(not a target) cmp build, off, vs empty callbacks", [("ukc.off", "b0c")], 1.03),
    ("(not a target) CMP tracing vs ref-append", [("ukc.cmp", "refc")], 1.10),
    ("U1 unique PC costs no more than PC tracing (64 MiB, drained)", [
        ("uk.uniq", "uk.pc.64M")], 1.00),
    ("(not a target) unique PC vs the empty callback", [("uk.uniq", "b0")], 1.10),
    ("(not a target) unique CMP vs CMP tracing (4 MiB, drop)", [("ukc.cuniq", "ukc.cmp")], 1.00),
    ("U2 unique on guard builds within 10% of compiler-rt's guard runtime", [
        ("ukg.uniq", "crtg")], 1.10),
    ("(not a target) guard build, off, vs compiler-rt's guard runtime", [("ukg.off", "crtg")], 1.10),
    ("T4 coverage=1 on trace-pc-guard vs compiler-rt's coverage=1", [
        ("ukg.cov", "crtg.cov")], 1.00),
    ("I1 inline, tracing off, vs uninstrumented (issue 21)", [("uki.off", "a")], 1.25),
    ("I2 inline, unique on, vs uninstrumented (issue 21)", [("uki.uniq", "a")], 1.35),
    ("I3 inline unique vs callback unique (issue 21: 1/1.3)", [("uki.uniq", "uk.uniq")], 0.77),
    ("I4 inline PC trace no slower than the callback's (issue 21)", [("uki.pc", "uk.pc")], 1.00),
]

# Bytes each configuration writes into the shared buffer per run: a record
# per append (8 or 32 bytes) plus its count-word store; unique modes also
# store one bitmap word per new point.  (trace, unique, limit): the unique
# configuration writes at least `limit` times fewer bytes.
BYTES = [("uk.pc.64M", "uk.uniq", 100), ("ukc.cmp", "ukc.cuniq", None)]

UB_RUNTIMES = [("nop", "empty"), ("ref", "ref-append"), ("uk", "ukcov static"),
               ("uks", "ukcov -lukcov"), ("ukplt", "ukcov .so PLT")]
UB_MODES = [("off", "trace_pc, tracing off"),
            ("cache", "trace_pc, PC on, 256 KiB buffer"),
            ("dram", "trace_pc, PC on, 64 MiB buffer"),
            ("full", "trace_pc, PC on, buffer full (drop)"),
            ("swoff", "trace_switch 128 cases, off"),
            ("cmpoff", "trace_cmp8, off"),
            ("cmp", "trace_cmp8, CMP on, 256 KiB buffer"),
            ("gdoff", "trace_pc_guard, nothing enabled"),
            ("guard", "trace_pc_guard, PC on, 256 KiB buffer")]
ON_MODES = {"cache", "dram", "full", "cmp", "guard"}


def log(msg):
    print(msg, flush=True)


class Bench:
    def __init__(self, args):
        self.args = args
        self.out = os.path.join(args.builddir, "bench")
        self.kcovrun = os.path.join(self.out, "kcovrun")
        self.cpu = str(args.cpu)
        self.res = {"meta": machine_info(args), "ubench": {}, "icount": {}, "time": {}}

    # ---- helpers ---------------------------------------------------------
    def binary(self, wl, variant, cc):
        return os.path.join(self.out, "bin", wl, f"{variant}_{cc}")

    def wl_args(self, wl, scale):
        if wl == "lua":
            return [os.path.join(self.out, "bin", "lua", "bench.lua"), str(scale)]
        return [str(scale)]

    def available(self, wl, variant, cc, kargs):
        if not os.path.exists(self.binary(wl, variant, cc)):
            return False
        return not kargs or os.path.exists(self.kcovrun)

    def chosen(self, wl, name):
        """--configs/--workloads restrict a run to the subset a question needs."""
        a = self.args
        return (not a.configs or name in a.configs.split(",")) and \
            (not a.workloads or wl in a.workloads.split(","))

    def launch(self, wl, name, cc, scale, prefix=()):
        """One run through kcovrun; returns (stats dict, stdout)."""
        variant, kargs = next((c[1], c[2]) for c in CONFIGS if c[0] == name)
        kargs = [str(unique_bitmap(self.binary(wl, variant, cc))) if a == "TEXT" else a
                 for a in kargs]
        cmd = [self.kcovrun] + kargs + ["-c", self.cpu, "--"] + list(prefix) + \
            [self.binary(wl, variant, cc)] + self.wl_args(wl, scale)
        if not os.path.exists(self.kcovrun):  # plain run, no launcher
            cmd = ["taskset", "-c", self.cpu] + cmd[cmd.index("--") + 1:]
        env = dict(os.environ)
        covdir = os.path.join(self.out, "sancov-files")
        for k, v in ENV.get(name, {}).items():
            os.makedirs(covdir, exist_ok=True)
            env[k] = v.replace("COVDIR", covdir)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env)
        st = parse_kcovrun(p.stderr)
        st["rc"] = p.returncode
        st["stderr"] = p.stderr
        return st, p.stdout.strip()

    # ---- micro-benchmark -------------------------------------------------
    def run_ubench(self):
        quick = self.args.quick
        rounds, iters = (1, 1000000) if quick else (3, 2000000)
        ub = os.path.join(self.out, "ub")
        res = self.res["ubench"]
        calib = run([f"{ub}/ub_nop", "calib", "2000000", "3"], self.cpu)
        res["calib"] = calib.strip()
        log(f"micro-benchmark: {rounds} round(s), {iters}x64 calls, min of 3; {calib.strip()}")
        for _ in range(rounds):
            for rt, _label in UB_RUNTIMES:
                exe = f"{ub}/ub_{rt}"
                if not os.path.exists(exe):
                    continue
                for mode, _ in UB_MODES:
                    if rt == "nop" and mode in ON_MODES:
                        continue
                    out = run([exe, mode, str(iters), "3"], self.cpu)
                    m = re.search(r": ([\d.]+) ns/call", out)
                    res.setdefault(rt, {}).setdefault(mode, {}).setdefault("ns", []).append(
                        float(m.group(1)))
        # Instructions per call, exact: the difference of two run lengths.
        jobs = [(rt, mode) for rt, _ in UB_RUNTIMES for mode, _ in UB_MODES
                if os.path.exists(f"{ub}/ub_{rt}") and not (rt == "nop" and mode in ON_MODES)]

        def icount(job):
            rt, mode = job
            n1, n2 = 20000, 40000
            i1 = valgrind_ir([f"{ub}/ub_{rt}", mode, str(n1), "1"])
            i2 = valgrind_ir([f"{ub}/ub_{rt}", mode, str(n2), "1"])
            return rt, mode, (i2 - i1) / ((n2 - n1) * 64)
        with ThreadPoolExecutor(2) as ex:
            for rt, mode, ipc in ex.map(icount, jobs):
                res[rt][mode]["insn"] = ipc
        for rt in res:
            if rt == "calib":
                continue
            for mode in res[rt]:
                res[rt][mode]["median"] = statistics.median(res[rt][mode]["ns"])

    # ---- valgrind instruction counts on the workloads ---------------------
    def run_icount(self):
        names = ["a", "b0", "ref", "uk.off", "uk.pc", "uks.off", "uks.pc", "b0c", "ukc.off",
                 "uk.uniq", "crtg", "ukg.uniq"]
        jobs = [(wl, cc, n) for wl in WORKLOADS for cc in COMPILERS for n in names
                if self.available(wl, next(c[1] for c in CONFIGS if c[0] == n), cc,
                                  next(c[2] for c in CONFIGS if c[0] == n))]
        log(f"instruction counts: {len(jobs)} valgrind runs at scales {SCALES['icount']}")

        def one(job):
            wl, cc, n = job
            vg = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                  "--cachegrind-out-file=/dev/null"]
            st, _ = self.launch(wl, n, cc, SCALES["icount"][wl], prefix=vg)
            m = re.search(r"I\s+refs:\s+([\d,]+)", st["stderr"])
            return wl, cc, n, int(m.group(1).replace(",", "")) if m else None, st
        with ThreadPoolExecutor(2) as ex:
            for wl, cc, n, ir, st in ex.map(one, jobs):
                d = self.res["icount"].setdefault(wl, {}).setdefault(cc, {})
                d[n] = {"ir": ir, "records": st.get("records"), "dropped": st.get("dropped")}

    # ---- interleaved wall-clock rounds ------------------------------------
    def run_time(self):
        mode = "quick" if self.args.quick else "full"
        rounds = self.args.rounds or (3 if self.args.quick else 7)
        scales = SCALES[mode]
        res = self.res["time"]
        order = [(wl, cc, c[0]) for wl in WORKLOADS for cc in COMPILERS for c in CONFIGS
                 if self.available(wl, c[1], cc, c[2]) and self.chosen(wl, c[0])]
        log(f"timing: {rounds} interleaved rounds of {len(order)} runs, pinned to CPU "
            f"{self.cpu}, scales {scales}")
        ref_out = {}
        loads = self.res["meta"].setdefault("loadavg", [])
        for r in range(rounds):
            wait_quiet(self.args.quiet_load)
            loads.append(loadavg())
            for wl, cc, name in order:
                st, out = self.launch(wl, name, cc, scales[wl])
                d = res.setdefault(wl, {"scale": scales[wl]}).setdefault(cc, {}).setdefault(
                    name, {"s": [], "cpu": [], "records": [], "dropped": []})
                want = ref_out.setdefault(wl, out)
                if st["rc"] != 0 or out != want:
                    log(f"!! {wl} {cc} {name}: rc={st['rc']} output {out!r} != {want!r}\n"
                        f"{st['stderr'].strip()}")
                    d["bad"] = True
                d["s"].append(st.get("wall_s", float("nan")))
                d["cpu"].append(st.get("user_s", float("nan")) + st.get("sys_s", 0.0))
                d["records"].append(st.get("records"))
                d["dropped"].append(st.get("dropped"))
            log(f"  round {r + 1}/{rounds} done (load average before it: {loads[-1]:.2f})")
        summarize(self.res)

    # ---- report ------------------------------------------------------------
    def save(self):
        with open(os.path.join(self.out, "results.json"), "w") as f:
            json.dump(self.res, f, indent=1)
        text = report(self.res)
        with open(os.path.join(self.out, "results.md"), "w") as f:
            f.write(text)
        print(text)
        log(f"saved {self.out}/results.json and {self.out}/results.md")


def summarize(res):
    for wres in res["time"].values():
        for cc in COMPILERS:
            for d in wres.get(cc, {}).values():
                d["median"] = statistics.median(d["s"])
                d["min"] = min(d["s"])
                if d.get("cpu"):
                    d["cpu_median"] = statistics.median(d["cpu"])


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def wait_quiet(limit, patience=120):
    """Other people's jobs on a shared VM: wait (a while) for a calmer machine."""
    if not limit:
        return
    for _ in range(patience // 5):
        if loadavg() < limit:
            return
        time.sleep(5)


def run(cmd, cpu):
    p = subprocess.run(["taskset", "-c", cpu] + cmd, stdout=subprocess.PIPE, text=True)
    if p.returncode:
        sys.exit(f"bench: {' '.join(cmd)} failed ({p.returncode})")
    return p.stdout


def valgrind_ir(cmd):
    p = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                        "--cachegrind-out-file=/dev/null"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
    if not m:
        sys.exit(f"bench: valgrind {' '.join(cmd)}: no count\n{p.stderr}")
    return int(m.group(1).replace(",", ""))


def parse_kcovrun(err):
    m = re.findall(r"^kcovrun: (.*)$", err, re.M)
    if not m:
        return {}
    st = {}
    for kv in m[-1].split():
        k, v = kv.split("=")
        st[k] = float(v) if "." in v else int(v)
    return st


def machine_info(args):
    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True).stdout.strip()
        except OSError:
            return ""
    lscpu = sh("lscpu")
    pick = lambda k: (re.search(rf"^{k}:\s*(.*)$", lscpu, re.M) or [None, "?"])[1]
    ncpu = pick(r"CPU\(s\)")
    return {
        "date": datetime.date.today().isoformat(),
        "cpu_model": f"{pick('Model name')} ({pick('Vendor ID')} family {pick('CPU family')} "
                     f"model {pick('Model')})",
        "cpu": f"{pick('Model name')} (family {pick('CPU family')} model {pick('Model')}), "
               f"{ncpu} CPUs, L2 {pick('L2 cache')}, L3 {pick('L3 cache')}, "
               f"{pick('Hypervisor vendor')} VM",
        "mem": sh("free -g | awk '/Mem:/{print $2\" GiB\"}'"),
        "os": sh(". /etc/os-release && echo $PRETTY_NAME") + ", Linux " + platform.release(),
        "gcc": sh("gcc --version | head -1"),
        "clang": sh("clang --version | head -1"),
        "valgrind": sh("valgrind --version"),
        "mode": "quick" if args.quick else "full",
    }


def ratio(a, b):
    return a / b if a and b else float("nan")


def fmt(x, spec=".2f"):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def calls_of(cc_res):
    """Callbacks per run: records + drops of a drop-mode ukcov run, if any."""
    for name in ("uk.pc", "uks.pc"):
        d = cc_res.get(name)
        if d and d["dropped"] and d["dropped"][0] not in (None, -1):
            return d["records"][0] + d["dropped"][0]
    d = cc_res.get("ref.64M") or cc_res.get("uk.pc.64M")
    return d["records"][0] if d and d["records"][0] else None


def report(res):
    meta = res["meta"]
    L = [f"# ukcov benchmark ({meta['mode']} mode), {meta['date']}", "",
         f"Machine: {meta['cpu']}, {meta['mem']}; {meta['os']}; {meta['gcc']}; "
         f"{meta['clang']}; {meta['valgrind']}.", ""]
    L += report_time(res)
    L += report_targets(res)
    L += report_bytes(res)
    L += report_inline(res)
    L += report_icount(res)
    L += report_ubench(res)
    L += verdict_lines(res)
    return "\n".join(L) + "\n"


def cpu_model(meta):
    """The CPU every figure was taken on: the callbacks' costs differ by vendor."""
    return meta.get("cpu_model") or meta.get("cpu", "unknown CPU")


# Targets judged on the worse of the wall-clock and CPU-time geomeans.
# uk.pc.64M has a consumer on the other CPU: on a loaded machine its wall
# time takes the consumer's waits and made unique PC look cheaper than
# the trace (wall 0.88, CPU time 1.03-1.26; docs/PERFORMANCE.md).
# T4 and U2 too: their gaps are a few percent, about what a busy
# machine's waits add to one side's wall time.
BOTH_CLOCKS = {("uk.uniq", "uk.pc.64M"), ("ukg.uniq", "crtg"), ("ukg.cov", "crtg.cov")}


def target_geomean(res, num, den):
    """The geomean a verdict uses (see BOTH_CLOCKS)."""
    g = geomean([v for *_, v in target_ratios(res, num, den)])
    if (num, den) in BOTH_CLOCKS:
        c = geomean([v for *_, v in target_ratios(res, num, den, "cpu_median")])
        if not math.isnan(c):
            g = max(g, c)
    return g


# The inline targets the issue sets "on each workload": judged on the
# worst single ratio, not the geomean.
EACH = {("uki.off", "a"), ("uki.uniq", "a")}
TEXT_LIMIT = 2.0        # I5: .text of the inline objects / uninstrumented
GCC_CLANG_LIMIT = 1.10  # I6: gcc plugin's ratio / clang plugin's, per mode
INLINE_MODES = ["uki.off", "uki.uniq", "uki.pc"]


def text_ratios(res):
    return [(wl, cc, d["uki"] / d["a"]) for wl, w in res.get("text", {}).items()
            for cc, d in w.items()]


def gcc_clang_ratios(res, name):
    """(workload, gcc plugin's ratio to gcc's plain build / clang's)."""
    out = []
    for wl, wres in res["time"].items():
        r = [wres.get(cc, {}) for cc in ("gcc", "clang")]
        if all(name in x and "a" in x for x in r):
            g, c = (x[name]["median"] / x["a"]["median"] for x in r)
            out.append((wl, g / c))
    return out


def inline_verdicts(res):
    """(label, worst or geomean, limit) of I5 and I6, when measured."""
    out = []
    t = text_ratios(res)
    if t:
        out.append(("I5 inline .text within 2.0x the uninstrumented .text (issue 21), worst",
                    max(v for *_, v in t), TEXT_LIMIT))
    for name in INLINE_MODES:
        r = gcc_clang_ratios(res, name)
        if r:
            out.append((f"I6 gcc plugin within 10% of the clang plugin, {name} (issue 21), "
                        "geomean", geomean([v for _, v in r]), GCC_CLANG_LIMIT))
    return out


def report_inline(res):
    L = []
    t = text_ratios(res)
    if t:
        L += ["## Inline instrumentation: `.text` of the workload objects (I5)", "",
              "Sections `.text` and `.text.*` of each workload's objects (the runtime "
              "excluded): the inline plugin's against the uninstrumented build.", "",
              "| workload | cc | uninstrumented | inline | × |", "|---|---|---|---|---|"]
        for wl, w in res["text"].items():
            for cc, d in w.items():
                L.append(f"| {wl} | {cc} | {d['a']} | {d['uki']} | {d['uki'] / d['a']:.2f} |")
        L.append("")
    rows = [(name, gcc_clang_ratios(res, name)) for name in INLINE_MODES]
    if any(r for _, r in rows):
        L += ["## Inline instrumentation: the gcc plugin against the clang plugin (I6)", "",
              "Each compiler's inline row over its own uninstrumented build; gcc's over "
              "clang's.", "", "| mode | " + " | ".join(res["time"]) + " | geomean |",
              "|---|" + "---|" * (len(res["time"]) + 1)]
        for name, r in rows:
            if r:
                cells = dict(r)
                L.append(f"| {name} | " + " | ".join(fmt(cells.get(wl), ".3f")
                                                      for wl in res["time"]) +
                         f" | {geomean([v for _, v in r]):.3f} |")
        L.append("")
    return L


def verdict_lines(res):
    """One line per target, each naming the CPU, printed last."""
    L = [f"## Verdict on {cpu_model(res['meta'])}", ""]
    for label, pairs, limit in TARGETS:
        if label.startswith("(not"):
            continue
        gs = [target_geomean(res, num, den) for num, den in pairs]
        gs = [g for g in gs if not math.isnan(g)]
        if not gs:
            L.append(f"- {label}: not measured ({cpu_model(res['meta'])})")
            continue
        if all((num, den) in EACH for num, den in pairs):
            worst = max(v for num, den in pairs for *_, v in target_ratios(res, num, den))
            what = "worst single ratio"
        else:
            worst = max(gs)
            what = "worst geomean"
        L.append(f"- {label}: {'met' if worst <= limit else 'NOT met'} ({what} "
                 f"{worst:.3f}, limit {limit}) on {cpu_model(res['meta'])}")
    for label, v, limit in inline_verdicts(res):
        L.append(f"- {label}: {'met' if v <= limit else 'NOT met'} ({v:.3f}, limit {limit}) "
                 f"on {cpu_model(res['meta'])}")
    L.append("")
    return L


def report_time(res):
    L = []
    for wl, wres in res["time"].items():
        L += [f"## {wl} (scale {wres['scale']}): median wall seconds of "
              f"{len(next(iter(next(iter(wres[c].values())) for c in COMPILERS if c in wres))['s'])}"
              " interleaved rounds", ""]
        L += ["| config | what | " + " | ".join(
            f"{cc} s | ×a | ×b0 | ×ref | ns/call" for cc in COMPILERS) + " |",
              "|---|---|" + "---|---|---|---|---|" * len(COMPILERS)]
        calls = {cc: calls_of(wres.get(cc, {})) for cc in COMPILERS}
        for name, *_ in CONFIGS:
            if not any(name in wres.get(cc, {}) for cc in COMPILERS):
                continue
            cells = []
            for cc in COMPILERS:
                r = wres.get(cc, {})
                if name not in r:
                    cells.append("– | – | – | – | –")
                    continue
                m = r[name]["median"]
                b0 = r.get("b0c" if name.startswith(("ukc", "refc", "b0c")) else
                           "g0" if name.startswith(("g", "i8")) else "b0", {})
                ref = r.get({"uk.pc.64M": "ref.64M", "ukc.cmp": "refc", "ukc.off": "b0c",
                             "ukg.cov": "crtg.cov", "ukg.cnt": "crtg.cov",
                             "i8": "crtg.cov"}.get(name, "ref"), {})
                ns = (m - r["a"]["median"]) / calls[cc] * 1e9 if calls[cc] and "a" in r else None
                bad = " ✗" if r[name].get("bad") else ""
                cells.append(f"{m:.3f}{bad} | {fmt(ratio(m, r.get('a', {}).get('median')))} | "
                             f"{fmt(ratio(m, b0.get('median')))} | "
                             f"{fmt(ratio(m, ref.get('median')) if name.startswith(('uk', 'ref', 'i8')) else None)}"
                             f" | {fmt(ns if name != 'a' and not name.startswith(('refc', 'b0c', 'ukc')) else None)}")
            L.append(f"| {name} | {DESC[name]} | " + " | ".join(cells) + " |")
        L.append("")
        L.append("Callbacks per run (trace-pc, from ukcov's record + drop counts): " + ", ".join(
            f"{cc} {calls[cc] / 1e9:.3f} G" if calls[cc] else f"{cc} –" for cc in COMPILERS)
            + ".  ×ref compares like with like: PC rows with ref, the 64 MiB row with "
              "ref.64M, CMP rows with refc; ns/call = (t − t_a) / callbacks.")
        L.append("")
    return L


def target_ratios(res, num, den, stat="median"):
    out = []
    for wl, wres in res["time"].items():
        for cc in COMPILERS:
            r = wres.get(cc, {})
            if num in r and den in r and stat in r[num] and stat in r[den]:
                out.append((wl, cc, r[num][stat] / r[den][stat]))
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def report_targets(res):
    L = [f"## Targets on {cpu_model(res['meta'])} (ratio of medians; verdict on the geometric "
         "mean over workloads and compilers)", "", "| target | ratio | " + " | ".join(
             f"{wl} {cc}" for wl in res["time"] for cc in COMPILERS) +
         " | geomean | verdict | geomean of mins | geomean, CPU time |",
         "|---|---|" + "---|" * (len(res["time"]) * len(COMPILERS)) + "---|---|---|---|"]
    for label, pairs, limit in TARGETS:
        for num, den in pairs:
            rs = target_ratios(res, num, den)
            if not rs:
                L.append(f"| {label} | {num} / {den} | not measured |")
                continue
            cells = {(wl, cc): v for wl, cc, v in rs}
            g = geomean([v for *_, v in rs])
            judged = max(cells.values()) if (num, den) in EACH else \
                target_geomean(res, num, den)
            verdict = "met" if judged <= limit else "NOT met"
            if (num, den) in EACH:
                verdict += " (each)"
            if (num, den) in BOTH_CLOCKS:
                verdict += " (wall and CPU)"
            if label.startswith("(not"):
                verdict = "within" if g <= limit else "above"
            L.append(f"| {label} | {num} / {den} | " + " | ".join(
                fmt(cells.get((wl, cc)), ".3f") + ("" if cells.get((wl, cc), 0) <= limit else " !")
                for wl in res["time"] for cc in COMPILERS) + f" | {g:.3f} | {verdict} (≤ {limit}) | "
                f"{geomean([v for *_, v in target_ratios(res, num, den, 'min')]):.3f} | "
                f"{fmt(geomean([v for *_, v in target_ratios(res, num, den, 'cpu_median')]), '.3f')} |")
    L += ["", "`!` marks a single ratio above the limit.  Differences below ~5% are within "
          "this VM's run-to-run noise; see the instruction counts for an exact signal.  The "
          "last two columns use each configuration's fastest round instead of its median "
          "(interference only ever slows a run down), and the median of the workload's CPU "
          "time (user + sys, which other jobs' time slices do not inflate) instead of wall "
          "time.  1-min load average before each "
          "round: " + ", ".join(f"{x:.2f}" for x in res["meta"].get("loadavg", [])) + ".", ""]
    return L


def written_bytes(d, unique):
    """Bytes a run stores into the shared buffer (median over rounds).  A trace's
    drops count as the records a large enough buffer would have received; a unique
    run's do not: once unique CMP's trace is full it drops repeats too, so its drops
    say nothing of what more room would have held (they are shown beside it)."""
    if not d.get("records") or d["records"][0] is None:
        return None
    rec = 32 if d.get("cmp") else 8
    n = statistics.median((r or 0) + (0 if unique else max(x or 0, 0))
                          for r, x in zip(d["records"], d["dropped"]))
    return n * (rec + 8 + (8 if unique else 0))


def unique_drops(d):
    """Median drops of a unique run, as text for the bytes table ("" when none)."""
    x = statistics.median(max(v or 0, 0) for v in d.get("dropped") or [0])
    return f" ({x / 1e6:.1f} M records dropped: its trace was full)" if x else ""


def report_bytes(res):
    L = ["## Bytes written into the buffer per run", "",
         "A record and its count-word store per append (PC 8 + 8, CMP 32 + 8 bytes), plus "
         "one bitmap-word store per new point in the unique modes.  Drop-mode traces count "
         "what a large enough buffer would have received (records + drops); unique runs "
         "count what they wrote, with their drops beside it.", "",
         "| workload | cc | trace | bytes | unique | bytes | trace / unique | target |",
         "|---|---|---|---|---|---|---|---|"]
    for wl, wres in res["time"].items():
        for cc in COMPILERS:
            r = wres.get(cc, {})
            for tr, un, limit in BYTES:
                if tr not in r or un not in r:
                    continue
                r[tr]["cmp"] = r[un]["cmp"] = tr.startswith("ukc")
                bt, bu = written_bytes(r[tr], False), written_bytes(r[un], True)
                if not bt or not bu:
                    continue
                verdict = "–" if limit is None else ("met" if bt / bu >= limit else "NOT met") + \
                    f" (≥ {limit}×)"
                ud = unique_drops(r[un])
                ratio = "–" if ud else f"{bt / bu:.0f}×"   # a full unique trace: no ratio
                L.append(f"| {wl} | {cc} | {tr} | {bt / 1e6:.1f} MB | {un} | {bu / 1e3:.1f} kB"
                         f"{ud} | {ratio} | {verdict} |")
    L.append("")
    return L


ICOUNT_RATIOS = [("b0", "a"), ("ref", "b0"), ("uk.off", "b0"), ("uks.off", "b0"),
                 ("uk.pc", "ref"), ("uks.pc", "uk.pc"), ("ukc.off", "b0c"),
                 ("uk.uniq", "b0"), ("ukg.uniq", "crtg")]


def report_icount(res):
    ic = res["icount"]
    if not ic:
        return []
    L = [f"## Instructions (valgrind, exact), scales {SCALES['icount']}", "",
         "| workload | cc | a | " + " | ".join(f"{n} ×{d}" for n, d in ICOUNT_RATIOS) +
         " | callbacks | insn/call b0 · uk.off · uk.pc |",
         "|---|---|---|" + "---|" * len(ICOUNT_RATIOS) + "---|---|"]
    for wl, wres in ic.items():
        for cc, r in wres.items():
            g = lambda n: (r.get(n) or {}).get("ir")
            calls = None
            if r.get("uk.pc") and r["uk.pc"]["dropped"] not in (None, -1):
                calls = r["uk.pc"]["records"] + r["uk.pc"]["dropped"]
            per = lambda n: fmt((g(n) - g("a")) / calls if calls and g(n) and g("a") else None)
            L.append(f"| {wl} | {cc} | {fmt(g('a') and g('a') / 1e9, '.3f')} G | " + " | ".join(
                fmt(ratio(g(n), g(d)), ".4f") for n, d in ICOUNT_RATIOS) +
                f" | {fmt(calls and calls / 1e6, '.1f')} M | "
                f"{per('b0')} · {per('uk.off')} · {per('uk.pc')} |")
    L += ["", "The drop-mode runs (4 MiB buffer) store the first 512 Ki records and drop the "
          "rest, so uk.pc/ref is mostly the full-buffer path.", ""]
    return L


def report_ubench(res):
    ub = res["ubench"]
    if not ub:
        return []
    rts = [(rt, label) for rt, label in UB_RUNTIMES if rt in ub]
    L = ["## Micro-benchmark: ns per call (median of rounds, each the min of 3 runs); "
         "instructions per call (valgrind) in brackets", "", ub.get("calib", ""), "",
         "| mode | " + " | ".join(label for _, label in rts) + " |",
         "|---|" + "---|" * len(rts)]
    for mode, label in UB_MODES:
        cells = []
        for rt, _ in rts:
            d = ub[rt].get(mode)
            cells.append(f"{d['median']:.3f} [{d.get('insn', float('nan')):.2f}]" if d else "–")
        L.append(f"| {label} | " + " | ".join(cells) + " |")
    L.append("")
    return L


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builddir")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--quiet-load", type=float, default=0,
                    help="before each round, wait up to 2 min for the 1-min load average to drop below this")
    ap.add_argument("--only", default="ubench,icount,time")
    ap.add_argument("--configs", default="", help="time only these configurations (comma-separated)")
    ap.add_argument("--workloads", default="", help="time only these workloads (comma-separated)")
    ap.add_argument("--report", action="store_true", help="reprint results.json only")
    ap.add_argument("--cache", default="bench/.cache",
                    help="the workloads' object cache (BENCH_CACHE), for .text sizes")
    args = ap.parse_args()
    b = Bench(args)
    if args.report:
        with open(os.path.join(b.out, "results.json")) as f:
            b.res = json.load(f)
        b.res.setdefault("text", measure_text(args.cache))
        summarize(b.res)
        print(report(b.res))
        return
    parts = args.only.split(",")
    if args.quick and "icount" in parts and args.only == ap.get_default("only"):
        parts.remove("icount")
    if "ubench" in parts:
        b.run_ubench()
    if "icount" in parts:
        b.run_icount()
    if "time" in parts:
        b.run_time()
    b.res["text"] = measure_text(args.cache)
    b.save()


if __name__ == "__main__":
    main()
