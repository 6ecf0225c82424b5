#!/usr/bin/env python3
"""tests/fuzz/hostile.py HARNESS -- the executor (lib/fuzz_exec.c) given
channels that were not made by ukcov fuzz: each must be refused with
its one line on stderr, or (an input longer than the block) end the
serving; never a crash.  Prints "ok WHAT" or "not ok WHAT: why" lines.
"""
import fcntl
import os
import struct
import subprocess
import sys

MAGIC = 0x32657a7a75666b75
IN_OFF = 4096
SIZE = 4 * 4096
RTN_AT = 144  # offset of rtn_off in the header (docs/FORMATS.md 4e)


def block(sealed=True, magic=MAGIC, size=SIZE, in_max=4096, out_off=8192,
          out_words=512, in_len=0, rtn_off=12288, rtn_max=16):
    fd = os.memfd_create("hostile", os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, SIZE)
    os.pwrite(fd, struct.pack("<6Q", magic, size, in_max, out_off,
                              out_words, in_len), 0)
    os.pwrite(fd, struct.pack("<2Q", rtn_off, rtn_max), RTN_AT)
    if sealed:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                    fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    return fd


def run(harness, shm, cmd=b""):
    ctl_r, ctl_w = os.pipe()
    st_r, st_w = os.pipe()
    env = dict(os.environ, UKCOV_FUZZ="%d,%d,%d" % (ctl_r, st_w, shm))
    p = subprocess.Popen([harness], env=env, pass_fds=(ctl_r, st_w, shm),
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    os.close(ctl_r)
    os.close(st_w)
    os.write(ctl_w, cmd)
    os.close(ctl_w)
    err = p.stderr.read().decode()
    p.wait()
    os.close(st_r)
    os.close(shm)
    return p.returncode, err


def expect(what, harness, shm, line, cmd=b""):
    rc, err = run(harness, shm, cmd)
    lines = err.splitlines()
    if rc == 0 and lines and lines[0] == "ukcov fuzz executor: " + line:
        print("ok", what)
    else:
        print("not ok %s: rc %d, stderr %r" % (what, rc, err))


def main():
    h = sys.argv[1]
    expect("unsealed block", h, block(sealed=False),
           "the shared block's size is not sealed")
    expect("bad magic", h, block(magic=1),
           "the shared block's header is inconsistent")
    expect("size field larger than the file", h, block(size=SIZE * 2),
           "the shared block's header is inconsistent")
    expect("input area past the file", h, block(in_max=SIZE),
           "the shared block's header is inconsistent")
    expect("records past the file", h, block(out_words=4096),
           "the shared block's header is inconsistent")
    expect("routine records over the CMP records", h, block(rtn_off=8192),
           "the shared block's header is inconsistent")
    expect("routine records past the file", h, block(rtn_max=100),
           "the shared block's header is inconsistent")
    expect("routine records above the bound", h, block(rtn_max=1 << 62),
           "the shared block's header is inconsistent")
    expect("input longer than the block", h, block(in_len=1 << 40),
           "input longer than the shared block", cmd=struct.pack("<I", 1))
    expect("unknown command", h, block(), "unknown command from the tool",
           cmd=struct.pack("<I", 7))


main()
