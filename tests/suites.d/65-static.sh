#!/bin/sh
# Fully static programs (issue 6, defect 1): cc -static ... $(pkg-config
# --static --libs ukcov), gcc and clang.  Every exec function keeps
# tracing into the same buffer (the new image's records arrive), the
# exec family gives glibc's errnos, posix_spawn and the interposed mmap
# work, threads run and inherit the remote common handle (through the
# link's --wrap=pthread_create), and "ukcov run --threads all" says
# exactly why it cannot follow them.  The program is tests/static/prog.c (harness) and
# tests/static/target.c (the only instrumented file).
. tests/lib.sh

export PKG_CONFIG_PATH="$B/pkgconfig"
U=$B/ukcov
touch "$T/noexec"
chmod 644 "$T/noexec"
for cc in gcc clang; do
    mkdir -p "$T/$cc"
    # The program is named "prog": execlp/execvp/execvpe find it on PATH.
    if $cc -O2 -fsanitize-coverage=trace-pc -c tests/static/target.c -o "$T/$cc/target.o" &&
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
    (cd "$T/$cc" && "$OLDPWD/$U" run --threads all -o /dev/null -- ./prog threads) \
        >"$T/run.out" 2>"$T/run.err"
    printf '%s\n' "ukcov: warning: the program's runtime did not follow its threads: only the main thread was traced (libukcov.a and fully static programs cannot see pthread_create: link it dynamically with -lukcov)" \
        "ukcov: ./prog exited with status 0; 1 records, 0 dropped" >"$T/want.err"
    if cmp -s "$T/want.err" "$T/run.err" && grep -qx 'ok threads' "$T/run.out"; then
        ok "$cc/run-threads-all-says-static"
    else
        bad "$cc/run-threads-all-says-static" "$(tr '\n' ' ' <"$T/run.err")"
    fi
done
summary
