#!/bin/sh
# Fully static programs: cc -static ... $(pkg-config
# --static --libs ukcov), gcc and clang.  Every exec function keeps
# tracing into the same buffer (the new image's records arrive), the
# exec family gives glibc's errnos, posix_spawn and the interposed mmap
# work, threads run and inherit the remote common handle, and "ukcov run
# --threads all" follows them (both through the link's
# --wrap=pthread_create): each thread's records, symbolized, are those
# of the same program linked dynamically with -lukcov, also when only
# libukcov.a is static; linked without the wrap, the tool says which
# flag is missing; a static C++ program's std::thread is followed too,
# and so is a program linked by ukcov-cc -static.  clang driving the
# link with -fsanitize-coverage (or ubsan) uses libukcov.a's callbacks,
# not its sanitizer runtime's (pkg-config's -u __ukcov_callbacks).
# The programs are tests/static/prog.c and cxxthread.cc (harness) and
# tests/static/target.c (the only instrumented file).
. tests/lib.sh

export PKG_CONFIG_PATH="$B/pkgconfig"
U=$B/ukcov
touch "$T/noexec"
chmod 644 "$T/noexec"
for cc in gcc clang; do
    mkdir -p "$T/$cc"
    # The program is named "prog": execlp/execvp/execvpe find it on PATH.
    if $cc -g -O2 -fsanitize-coverage=trace-pc -c tests/static/target.c -o "$T/$cc/target.o" &&
       $cc -static -O2 $(pkg-config --cflags ukcov) tests/static/prog.c "$T/$cc/target.o" \
           $(pkg-config --static --libs ukcov) -o "$T/$cc/prog" >"$T/build.log" 2>&1 &&
       ! readelf -l "$T/$cc/prog" | grep -q INTERP; then
        ok "$cc/build-static"
    else
        bad "$cc/build-static" "$(tail -3 "$T/build.log" | tr '\n' ' ')"
        continue
    fi
    for how in execl execlp execle execv execvp execvpe execve execveat fexecve; do
        check "$cc/exec-$how-keeps-tracing" "$T/$cc/prog" exec "$how"
    done
    check "$cc/exec-errnos" "$T/$cc/prog" errors "$T"
    # The same errnos from glibc itself, in the dynamic build.
    if $cc -O2 $(pkg-config --cflags ukcov) tests/static/prog.c "$T/$cc/target.o" \
           $(pkg-config --libs ukcov) -o "$T/$cc/prog-dynamic" >"$T/build.log" 2>&1; then
        check "$cc/exec-errnos-dynamic" "$T/$cc/prog-dynamic" errors "$T"
    else
        bad "$cc/exec-errnos-dynamic" "$(tail -3 "$T/build.log" | tr '\n' ' ')"
    fi
    check "$cc/posix_spawn" "$T/$cc/prog" spawn
    check "$cc/mmap" "$T/$cc/prog" mmap
    check "$cc/pthread_create" "$T/$cc/prog" threads
    check "$cc/threads-inherit-common-handle" "$T/$cc/prog" common
    # --threads all, in pc mode (every call) and the default unique mode
    # (each point once per thread): the raw trace of each thread,
    # symbolized (function at file:line), is what the program linked
    # dynamically (-no-pie, so both have absolute PCs) records.
    if ! $cc -O2 -no-pie $(pkg-config --cflags ukcov) tests/static/prog.c "$T/$cc/target.o" \
           $(pkg-config --libs ukcov) -o "$T/$cc/prog-dyn" >"$T/build.log" 2>&1 ||
       ! $cc -O2 -no-pie $(pkg-config --cflags ukcov) tests/static/prog.c "$T/$cc/target.o" \
           "$B/libukcov.a" -lpthread -Wl,--wrap=pthread_create -o "$T/$cc/prog-ar" >"$T/build.log" 2>&1 ||
       ! $cc -static -O2 $(pkg-config --cflags ukcov) tests/static/prog.c "$T/$cc/target.o" \
           "$B/libukcov.a" -lpthread -o "$T/$cc/prog-nowrap" >"$T/build.log" 2>&1; then
        bad "$cc/threads-builds" "$(tail -3 "$T/build.log" | tr '\n' ' ')"
        continue
    fi
    for mode in pc unique; do
        for p in prog prog-dyn prog-ar; do
            (cd "$T/$cc" && "$OLDPWD/$U" run --mode $mode --threads all --raw -o "$T/$p.raw" -- "./$p" threads) \
                >"$T/$p.out" 2>"$T/$p.err"
            # Addresses -> "function at file:line"; tids -> "# thread".
            sed -n 's/^0x//p' "$T/$p.raw" | while read -r pc; do
                printf '%x\n' $((0x$pc - 1))
            done | addr2line -f -s -p -e "$T/$cc/$p" >"$T/$p.sym"
            awk -v sym="$T/$p.sym" '/^# thread [1-9][0-9]*$/ { print "# thread"; next }
                /^0x/ { getline line <sym; sub(/ \(discriminator [0-9]+\)$/, "", line); print line; next }
                { print }' "$T/$p.raw" | sed 's/ at .*target.c:/ target.c:/' >"$T/$p.txt"
        done
        if [ $mode = pc ]; then
            want="static_leaf
# thread
thread_leaf_b
thread_leaf_b
# thread
thread_leaf_a"
            n=4
        else
            want="static_leaf
# thread
thread_leaf_b
# thread
thread_leaf_a"
            n=3
        fi
        # The functions alone, in order: the main thread's first.
        got=$(sed 's/ target.c:[0-9]*$//' "$T/prog.txt")
        if [ "$got" = "$want" ] && grep -qx 'ok threads' "$T/prog.out" &&
           cmp -s "$T/prog.txt" "$T/prog-dyn.txt" &&
           printf 'ukcov: ./prog exited with status 0; %s records, 0 dropped\n' $n | cmp -s - "$T/prog.err"; then
            ok "$cc/run-threads-all-$mode-static-follows"
        else
            bad "$cc/run-threads-all-$mode-static-follows" "$(tr '\n' ' ' <"$T/prog.txt") vs dynamic $(tr '\n' ' ' <"$T/prog-dyn.txt"); $(tr '\n' ' ' <"$T/prog.err")"
        fi
        if cmp -s "$T/prog-ar.txt" "$T/prog-dyn.txt" && grep -qx 'ok threads' "$T/prog-ar.out" &&
           printf 'ukcov: ./prog-ar exited with status 0; %s records, 0 dropped\n' $n | cmp -s - "$T/prog-ar.err"; then
            ok "$cc/run-threads-all-$mode-libukcov.a-follows"
        else
            bad "$cc/run-threads-all-$mode-libukcov.a-follows" "$(tr '\n' ' ' <"$T/prog-ar.txt"); $(tr '\n' ' ' <"$T/prog-ar.err")"
        fi
    done
    # Linked without --wrap: only the main thread, and the fix named.
    (cd "$T/$cc" && "$OLDPWD/$U" run --threads all -o /dev/null -- ./prog-nowrap threads) \
        >"$T/run.out" 2>"$T/run.err"
    printf '%s\n' "ukcov: warning: the program's runtime did not follow its threads: only the main thread was traced (a program linked with libukcov.a sees pthread_create only through the linker's wrap: link it with \$(pkg-config --static --libs ukcov) or -Wl,--wrap=pthread_create)" \
        "ukcov: ./prog-nowrap exited with status 0; 1 records, 0 dropped" >"$T/want.err"
    if cmp -s "$T/want.err" "$T/run.err" && grep -qx 'ok threads' "$T/run.out"; then
        ok "$cc/run-threads-all-without-wrap-says-so"
    else
        bad "$cc/run-threads-all-without-wrap-says-so" "$(tr '\n' ' ' <"$T/run.err")"
    fi
    # std::thread: libstdc++.a, scanned after libukcov.a, is where the
    # (wrapped) pthread_create reference comes from.  Its only thread's
    # one record, in thread_leaf_a.
    cxx=$([ $cc = gcc ] && echo g++ || echo clang++)
    if $cxx -static -O2 tests/static/cxxthread.cc "$T/$cc/target.o" \
           $(pkg-config --static --libs ukcov) -o "$T/$cc/cxxthread" >"$T/build.log" 2>&1; then
        (cd "$T/$cc" && "$OLDPWD/$U" run --threads all --raw -o "$T/cxx.raw" -- ./cxxthread) \
            >"$T/cxx.out" 2>"$T/cxx.err"
        pc=$(sed -n 's/^0x//p' "$T/cxx.raw")
        fn=$(printf '%x\n' $((0x${pc:-1} - 1)) | addr2line -f -s -e "$T/$cc/cxxthread" | head -1)
        if [ "$(grep -c . "$T/cxx.raw")" = 2 ] && grep -qx '# thread [1-9][0-9]*' "$T/cxx.raw" &&
           [ "$fn" = thread_leaf_a ] && grep -qx 'ok cxxthread' "$T/cxx.out" &&
           echo "ukcov: ./cxxthread exited with status 0; 1 records, 0 dropped" | cmp -s - "$T/cxx.err"; then
            ok "$cc/run-threads-all-static-std-thread"
        else
            bad "$cc/run-threads-all-static-std-thread" "$fn; $(tr '\n' ' ' <"$T/cxx.raw"); $(tr '\n' ' ' <"$T/cxx.err")"
        fi
    else
        bad "$cc/run-threads-all-static-std-thread" "$(tail -3 "$T/build.log" | tr '\n' ' ')"
    fi
    # ukcov-cc -static adds pkg-config --static's flags itself: both
    # threads are followed, and nothing is missing.  For clang it also
    # keeps the driver's ubsan_standalone runtime out (it crashed at
    # start-up in a -static program).
    if true; then
        (cd "$T/$cc" && UKCOV_CC=$cc "$OLDPWD/$B/ukcov-cc" -static -O2 "$OLDPWD/tests/static/prog.c" \
             "$OLDPWD/tests/static/target.c" -o prog-wrapped) >"$T/build.log" 2>&1 &&
        (cd "$T/$cc" && "$OLDPWD/$U" run --mode pc --threads all --raw -o "$T/w.raw" -- ./prog-wrapped threads) \
            >"$T/w.out" 2>"$T/w.err"
        sed -n 's/^0x//p' "$T/w.raw" | while read -r pc; do
            printf '%x\n' $((0x$pc - 1))
        done | addr2line -f -s -e "$T/$cc/prog-wrapped" | grep -x 'thread_leaf_[ab]' | sort | uniq -c | tr -s ' ' >"$T/w.fn"
        if [ "$(grep -c '^# thread [1-9][0-9]*$' "$T/w.raw")" = 2 ] &&
           [ "$(cat "$T/w.fn")" = "$(printf ' 1 thread_leaf_a\n 2 thread_leaf_b')" ] &&
           ! grep -q warning "$T/w.err" && grep -qx 'ok threads' "$T/w.out"; then
            ok "$cc/ukcov-cc-static-follows-threads"
        else
            bad "$cc/ukcov-cc-static-follows-threads" "$(tr '\n' ' ' <"$T/w.fn"); $(tail -n 3 "$T/build.log" "$T/w.err" | tr '\n' ' ')"
        fi
    fi
    # clang driving the link with -fsanitize-coverage (and ubsan) puts
    # its ubsan_standalone runtime, whose sancov callbacks are weak
    # definitions, before libukcov.a: nothing then pulls the callbacks'
    # object, and the program records nothing.  pkg-config --static's
    # -u __ukcov_callbacks pulls it.  A trace-pc-guard target, the
    # harness uninstrumented, libukcov.a with a dynamic libc (the
    # sanitizer runtime does not run in a -static program).
    if [ $cc = clang ]; then
        for drv in "-fsanitize-coverage=trace-pc-guard" "-fsanitize=undefined -fsanitize-coverage=trace-pc-guard"; do
            name=$(echo "$drv" | sed 's/ /,/g; s/-fsanitize[-a-z]*=//g')
            if ! { clang -g -O2 -fsanitize-coverage=trace-pc-guard -c tests/static/target.c -o "$T/tg.o" &&
                   clang -O2 $(pkg-config --cflags ukcov) -c tests/static/prog.c -o "$T/p.o" &&
                   clang -no-pie $drv "$T/p.o" "$T/tg.o" "$B/libukcov.a" $(pkg-config --static --libs-only-other ukcov) \
                       -lpthread -o "$T/$cc/prog-guard" &&
                   clang -no-pie $drv "$T/p.o" "$T/tg.o" "$B/libukcov.a" -lpthread \
                       -Wl,--wrap=pthread_create -Wl,-u,__wrap_pthread_create -o "$T/$cc/prog-guard-no-u"
                 } >"$T/build.log" 2>&1; then
                bad "clang/driver-$name-pulls-callbacks" "$(tail -3 "$T/build.log" | tr '\n' ' ')"
                continue
            fi
            for p in prog-guard prog-guard-no-u; do
                (cd "$T/$cc" && "$OLDPWD/$U" run --mode pc --threads all --raw -o "$T/$p.raw" -- "./$p" threads) \
                    >"$T/$p.out" 2>"$T/$p.err"
            done
            fns=$(sed -n 's/^0x//p' "$T/prog-guard.raw" | while read -r pc; do
                printf '%x\n' $((0x$pc - 1))
            done | addr2line -f -s -e "$T/$cc/prog-guard" | sed -n 'p;n' | tr '\n' ' ')
            if [ "$fns" = "static_leaf thread_leaf_b thread_leaf_b thread_leaf_a " ] &&
               [ "$(grep -c '^# thread [1-9][0-9]*$' "$T/prog-guard.raw")" = 2 ] &&
               echo "ukcov: ./prog-guard exited with status 0; 4 records, 0 dropped" | cmp -s - "$T/prog-guard.err"; then
                ok "clang/driver-$name-pulls-callbacks"
            else
                bad "clang/driver-$name-pulls-callbacks" "$fns; $(tr '\n' ' ' <"$T/prog-guard.err")"
            fi
            # The control: without -u, ubsan's no-op callbacks.
            if ! grep -q '^0x' "$T/prog-guard-no-u.raw" && grep -qx 'ok threads' "$T/prog-guard-no-u.out" &&
               printf '%s\n' "ukcov: ./prog-guard-no-u exited with status 0; 0 records, 0 dropped" \
                   "ukcov: warning: 0 records: ./prog-guard-no-u ran none of its instrumented code" | cmp -s - "$T/prog-guard-no-u.err"; then
                ok "clang/driver-$name-without-u-records-nothing"
            else
                bad "clang/driver-$name-without-u-records-nothing" "$(tr '\n' ' ' <"$T/prog-guard-no-u.err")"
            fi
        done
    fi
done
summary
