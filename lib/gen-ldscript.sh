#!/bin/sh
# Print the libukcov.so linker script for the library directory $1.
# "-lukcov" then links the callbacks (libukcov_cb.a) into the executable and
# the rest of the runtime from the shared object, the way glibc's libc.so
# script pulls in libc_nonshared.a.
dir=$1
echo "/* GNU ld script: the __sanitizer_cov_* callbacks are linked statically,"
echo "   so instrumented code calls them directly; the runtime is shared. */"
# EXTERN pulls the callbacks' object in even when clang, driving the link
# with -fsanitize-coverage, has already linked its ubsan runtime's weak
# guard callbacks: the strong definitions then override them.
echo "EXTERN ( __ukcov_callbacks )"
echo "INPUT ( $dir/libukcov_cb.a $dir/libukcov.so.0 )"
