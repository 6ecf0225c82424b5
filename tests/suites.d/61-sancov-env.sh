#!/bin/sh
# Hostile files and environment, SanitizerCoverage side:
#  - coverage_direct=1 leaves a <pid>.pc.sancov.map it found taken
#    byte for byte as it was, and says so once;
#  - an AT_SECURE (set-user-ID) process reads no UKCOV_* variable and
#    takes over no inherited kcov descriptor (each with its positive
#    control: the same binary without the set-user-ID bit);
#  - a symlink planted at the UKCOV_MODULES or UKCOV_THREADS_OUT path
#    is not followed, and that is said once;
#  - without /proc the executable's .sancov is <prog>.<pid>.sancov;
#  - an executable at a path of PATH_MAX - 1 bytes names its .sancov
#    after its whole file name;
#  - an empty UKCOV_THREADS_OUT, or one of PATH_MAX bytes or more, is
#    refused: the program runs and records as without it;
#  - with stdin (and stdout and stderr) closed, the files the runtime
#    creates (then fd 0) are written all the same, and nothing is said.
# The set-user-ID and /proc parts need root (skipped otherwise).  Needs
# the runtime built (make B=$B lib); B may be absolute.
. tests/lib.sh
S=tests/sancov
L=$(cd "$B" && pwd)
SHARED="-L$L -Wl,-rpath,$L -lukcov"
D=$T/env
mkdir -p "$D"
# The set-user-ID program runs as nobody: every directory it might
# write to is writable by anyone, so that a file it does not write
# is one it chose not to write.
chmod 755 "$T"
chmod 1777 "$D"

build() {
    name=$1
    shift
    if "$@" >"$T/build.out" 2>&1; then
        return 0
    fi
    bad "$name" "$(tail -3 "$T/build.out" | tr '\n' ' ')"
    return 1
}

# A trace-pc program (20 functions), a guard one, and the exec helper.
sh $S/gen_pcdir.sh 20 >"$D/t.c"
build env-build clang -O0 -fsanitize-coverage=trace-pc -c "$D/t.c" -o "$D/t.o" &&
build env-build gcc -O1 -Iinclude -c $S/pcdir_main.c -o "$D/m.o" &&
build env-build gcc "$D/m.o" "$D/t.o" $SHARED -o "$D/prog" &&
build env-build clang -O1 -fsanitize-coverage=trace-pc-guard -c $S/feat_target.c -o "$D/ft.o" &&
build env-build gcc -O1 -Iinclude -c $S/feat_main.c -o "$D/fm.o" &&
build env-build gcc "$D/fm.o" "$D/ft.o" $SHARED -o "$D/feat" &&
build env-build gcc -O1 -Iinclude $S/secure_exec.c $SHARED -o "$D/sx" || { summary; exit; }

# count PATTERN FILE: lines of FILE that are exactly PATTERN.
count() { grep -c -x -F -- "$1" "$2"; }

# ---- 1. coverage_direct=1: a map file found taken survives ----------
# The pid is known before the program runs: sh plants the file as
# $$.pc.sancov.map (another owner's, as root), then execs the program
# in its place.
for prog in feat prog; do
    t=direct-foreign-pc-map-$prog
    rm -rf "$D/dir" && mkdir "$D/dir"
    printf 'not ours\n' >"$D/foreign"
    arg=api
    [ $prog = prog ] && arg=seq
    sh -c 'cp "$1/foreign" "$1/dir/$$.pc.sancov.map" &&
           { [ "$(id -u)" -ne 0 ] || chown nobody "$1/dir/$$.pc.sancov.map"; } &&
           stat -c "%i %U" "$1/dir/$$.pc.sancov.map" >"$1/before" && echo $$ >"$1/pid" &&
           exec env UKCOV_OPTIONS="coverage_direct=1:coverage_dir=$1/dir" "$1/$2" "$3"' \
        sh "$D" $prog $arg >/dev/null 2>"$D/err"
    pid=$(cat "$D/pid")
    f=$D/dir/$pid.pc.sancov.map
    msg="ukcov: cannot write $f: exists and is not this process's file; not overwritten"
    if cmp -s "$D/foreign" "$f" && [ "$(stat -c '%i %U' "$f")" = "$(cat "$D/before")" ] &&
       [ "$(count "$msg" "$D/err")" -eq 1 ] && [ "$(wc -l <"$D/err")" -eq 1 ]; then
        ok "$t"
    else
        bad "$t" "$(ls "$D/dir" | tr '\n' ' ') $(tr '\n' '|' <"$D/err")"
    fi
done

# ---- 2. symlinks planted at UKCOV_MODULES / UKCOV_THREADS_OUT -------
# The helper execs the program with a descriptor enabled: the takeover
# reads UKCOV_THREADS_OUT, the takeover and the exit (twice) write the
# module table, and four threads each write their block: one message
# per variable, the links' targets unchanged.
printf 'keep me\n' >"$D/target"
cp "$D/target" "$D/mtarget" && cp "$D/target" "$D/ttarget"
ln -sf "$D/mtarget" "$D/mlink"
ln -sf "$D/ttarget" "$D/tlink"
# (env(1) gives the variables to the program only: the helper has a
# runtime of its own, which writes UKCOV_MODULES too.)
"$D/sx" "$(command -v env)" UKCOV_MODULES="$D/mlink" UKCOV_THREADS_OUT="$D/tlink" \
    "$D/prog" threads >"$D/out" 2>"$D/err"
for v in MODULES:m THREADS_OUT:t; do
    var=UKCOV_${v%%:*} x=${v#*:}
    t=env-symlink-not-followed-$var
    msg="ukcov: $var: $D/${x}link is a symbolic link; not followed, nothing written"
    if cmp -s "$D/target" "$D/${x}target" && [ "$(count "$msg" "$D/err")" -eq 1 ] &&
       [ -L "$D/${x}link" ] && grep -q -E '^records [0-9]+$' "$D/out"; then
        ok "$t"
    else
        bad "$t" "$(cat "$D/out") $(tr '\n' '|' <"$D/err")"
    fi
done
[ "$(wc -l <"$D/err")" -eq 2 ] && ok env-symlink-two-lines-in-all ||
    bad env-symlink-two-lines-in-all "$(tr '\n' '|' <"$D/err")"

# A file the runtime creates by a name from the environment is 0600
# whatever the umask: the module table is the process's memory layout.
rm -f "$D/mods.new"
(umask 000 && UKCOV_MODULES="$D/mods.new" "$D/prog" seq >/dev/null 2>&1)
if [ "$(stat -c %a "$D/mods.new" 2>/dev/null)" = 600 ] && grep -q '^M ' "$D/mods.new"; then
    ok env-file-created-0600
else
    bad env-file-created-0600 "$(ls -l "$D/mods.new" 2>&1)"
fi

# ---- 3. AT_SECURE: no environment, no takeover ----------------------
# Run as root, a copy owned by nobody with the set-user-ID bit has
# euid != ruid: the kernel sets AT_SECURE.  Its control is the same
# binary without the bit.
# The build directory may sit under one that nobody cannot enter (a
# mkdtemp tree, 0700): both programs load a copy of the runtime from
# $D/lib, by an absolute run path (a setuid program ignores $ORIGIN).
suid_ok=no
if [ "$(id -u)" -eq 0 ] && ! findmnt -n -o OPTIONS -T "$D" | grep -q nosuid &&
   mkdir -p "$D/lib" && cp "$L/libukcov.so.0" "$D/lib/" &&
   build env-build-secure gcc "$D/m.o" "$D/t.o" -L"$L" -Wl,-rpath,"$D/lib" -lukcov -o "$D/prog-sec"; then
    cp "$D/prog-sec" "$D/prog-suid" && chown nobody "$D/prog-suid" && chmod 4755 "$D/prog-suid" &&
        [ "$(stat -c %U "$D/prog-suid")" = nobody ] && suid_ok=yes
fi
if [ $suid_ok = no ]; then
    echo "# skipped: AT_SECURE tests (need root and a suid-capable $D)"
else
    # secure_run TAG BIN: BIN seq under the helper, with every variable
    # pointing into a fresh $D/TAG.d; output in $D/TAG.out/.err.
    secure_run() {
        rm -rf "$D/$1.d" && mkdir "$D/$1.d" && chmod 1777 "$D/$1.d"
        "$D/sx" "$(command -v env)" UKCOV_OPTIONS="coverage=1:coverage_dir=$D/$1.d" \
            UKCOV_MODULES="$D/$1.d/modules" UKCOV_THREADS_OUT="$D/$1.d/threads" \
            "$2" seq >"$D/$1.out" 2>"$D/$1.err"
    }
    secure_run plain "$D/prog-sec"
    secure_run suid "$D/prog-suid"
    # Positive control: each of the three happens without the bit.
    set -- "$D/plain.d"/prog-sec.*.sancov
    [ -f "$1" ] && ok at-secure-control-options-read || bad at-secure-control-options-read "$(ls "$D/plain.d")"
    grep -q '^M ' "$D/plain.d/modules" 2>/dev/null && ok at-secure-control-modules-written ||
        bad at-secure-control-modules-written "$(ls "$D/plain.d")"
    [ -s "$D/plain.d/threads" ] && grep -q -E '^records [1-9]' "$D/plain.out" &&
        ok at-secure-control-takeover || bad at-secure-control-takeover "$(cat "$D/plain.out")"
    # With it: nothing of the three, and no message either.
    [ -z "$(ls "$D/suid.d")" ] && ok at-secure-no-env-file-created ||
        bad at-secure-no-env-file-created "$(ls -l "$D/suid.d")"
    [ "$(cat "$D/suid.out")" = "records 0" ] && ok at-secure-no-takeover ||
        bad at-secure-no-takeover "$(cat "$D/suid.out")"
    [ ! -s "$D/suid.err" ] && ok at-secure-silent || bad at-secure-silent "$(tr '\n' '|' <"$D/suid.err")"
    # UKCOV_OPTIONS alone, without the helper: no .sancov anywhere.
    rm -rf "$D/cwd.d" && mkdir "$D/cwd.d" && chmod 1777 "$D/cwd.d"
    (cd "$D/cwd.d" && UKCOV_OPTIONS=coverage=1 "$D/prog-suid" seq)
    [ -z "$(ls "$D/cwd.d")" ] && ok at-secure-options-ignored ||
        bad at-secure-options-ignored "$(ls -l "$D/cwd.d")"
fi

# ---- 4. without /proc: <prog>.<pid>.sancov --------------------------
# An empty directory bind-mounted over /proc in a mount namespace of
# its own: /proc/self/exe cannot be read; compiler-rt names the file
# after the module, so the runtime takes the name execve was given.
mkdir -p "$D/noproc.d" "$D/empty"
if [ "$(id -u)" -eq 0 ] &&
   unshare -m sh -c "mount --bind '$D/empty' /proc && [ ! -e /proc/self ]" 2>/dev/null; then
    unshare -m sh -c "mount --bind '$D/empty' /proc && echo \$\$ >'$D/pid' &&
        exec env UKCOV_OPTIONS=coverage=1:coverage_dir='$D/noproc.d' '$D/prog' seq" 2>"$D/err"
    pid=$(cat "$D/pid")
    if [ "$(ls "$D/noproc.d")" = "prog.$pid.sancov" ] && [ ! -s "$D/err" ]; then
        ok no-proc-sancov-named-after-program
    else
        bad no-proc-sancov-named-after-program "pid $pid: $(ls "$D/noproc.d") $(cat "$D/err")"
    fi
else
    echo "# skipped: no-proc test (needs root and unshare -m)"
fi
# ---- 5. an executable path of PATH_MAX - 1 bytes --------------------
# execve takes paths up to 4095 bytes and /proc/self/exe reads back all
# of them: the .sancov is <whole file name>.<pid>.sancov.  A buffer one
# byte short (lib/modules.c object_path's readlink, the module table of
# lib/sancov_dump.c) cuts the last byte off the name.
seg=$(printf '%0200d' 0 | tr 0 d)
p=$D/long
name=prog_long
rem=$((4095 - ${#p} - 1 - ${#name}))	# bytes of "/dir" still to add
while [ "$rem" -gt 201 ]; do p=$p/$seg; rem=$((rem - 201)); done
if [ "$rem" -eq 1 ]; then
    name=${name}x
elif [ "$rem" -gt 1 ]; then
    p=$p/$(printf '%s' "$seg" | cut -c 1-$((rem - 1)))
fi
mkdir -p "$p" "$D/long.d" && cp "$D/prog" "$p/$name"
sh -c 'echo $$ >"$1/pid" && exec env UKCOV_OPTIONS="coverage=1:coverage_dir=$1/long.d" "$2" seq' \
    sh "$D" "$p/$name" >/dev/null 2>"$D/err"
pid=$(cat "$D/pid")
if [ "${#p}" -eq $((4095 - 1 - ${#name})) ] &&
   [ "$(ls "$D/long.d")" = "$name.$pid.sancov" ] && [ ! -s "$D/err" ]; then
    ok path-max-executable-sancov-named-in-full
else
    bad path-max-executable-sancov-named-in-full \
        "path ${#p}+${#name}, pid $pid: $(ls "$D/long.d") $(head -c 200 "$D/err")"
fi
# ---- 6. UKCOV_THREADS_OUT empty or too long -------------------------
# The takeover reads UKCOV_THREADS_OUT into a PATH_MAX buffer: a value
# that cannot be a path (empty, or 4096 bytes and more) makes it follow
# no thread, and changes nothing else: the same records, exit 0,
# nothing said.  (Copying an 8 KiB value overran that buffer.)
"$D/sx" "$(command -v env)" "$D/prog" seq >"$D/tout.want" 2>&1
long=$(printf '%08192d' 0 | tr 0 a)
for v in empty:"" path-max:"$D/$(printf '%04096d' 0 | tr 0 a)" 8k:"$long"; do
    t=threads-out-refused-${v%%:*}
    for m in seq threads; do
        "$D/sx" "$(command -v env)" UKCOV_THREADS_OUT="${v#*:}" "$D/prog" $m \
            >"$D/tout.$m" 2>"$D/tout.err"
        echo "exit $? $(wc -c <"$D/tout.err")" >>"$D/tout.$m"
    done
    if [ "$(cat "$D/tout.seq")" = "$(cat "$D/tout.want")
exit 0 0" ] && [ "$(cat "$D/tout.threads")" = "records 0
exit 0 0" ]; then
        ok "$t"
    else
        bad "$t" "$(tr '\n' '|' <"$D/tout.seq") $(tr '\n' '|' <"$D/tout.threads")"
    fi
done
# ---- 7. stdin, stdout and stderr closed ----------------------------
# The first file the runtime creates then gets fd 0, a descriptor like
# any other: coverage=1's .sancov (feat_a alone: the magic and one
# PC, 16 bytes) and coverage_direct=1's raw table and map.
rm -rf "$D/cl.d" && mkdir "$D/cl.d"
UKCOV_OPTIONS="coverage=1:coverage_dir=$D/cl.d" "$D/feat" last <&- >&- 2>&-
set -- "$D/cl.d"/feat.*.sancov
[ -f "$1" ] && [ "$(wc -c <"$1")" -eq 16 ] && ok closed-stdio-sancov-written ||
    bad closed-stdio-sancov-written "$(ls -l "$D/cl.d")"
# stdin alone closed (stderr kept, where a failure would be said): the
# raw table is fd 0, and nothing is said.
rm -rf "$D/cl.d" && mkdir "$D/cl.d"
UKCOV_OPTIONS="coverage_direct=1:coverage_dir=$D/cl.d" "$D/feat" kill <&- >/dev/null 2>"$D/cl.err"
set -- "$D/cl.d"/[0-9]*[0-9].sancov.raw
# (the shell's own "Killed" for the SIGKILL aside)
[ -s "$1" ] && [ -s "${1%raw}map" ] && [ -z "$(grep -vx Killed "$D/cl.err")" ] &&
    ok closed-stdin-direct-files-written ||
    bad closed-stdin-direct-files-written "$(ls -l "$D/cl.d"; head -c 300 "$D/cl.err")"
summary
