#!/bin/bash
# tests/tool/x86len-all.sh CHECKER DIR -- run x86len-check (the sweep's
# length decoder against capstone, tests/tool/x86len_check.c) on every ELF
# file under DIR: the binaries a tool suite built.  Fails on any
# disagreement, and when no file had coverage points to compare (the
# check would prove nothing).  Prints the checker's output; its last line
# is the count of instructions decoded and of disagreements.
set -u
xc=$1 dir=$2
mapfile -t elfs < <(find "$dir" -type f -size +64c -print0 |
	xargs -0 -r sh -c 'for f; do [ "$(head -c4 "$f" | od -An -c | tr -d " ")" = "177ELF" ] && echo "$f"; done' _)
[ ${#elfs[@]} -gt 0 ] || { echo "no ELF files under $dir"; exit 1; }
out=$("$xc" "${elfs[@]}"); rc=$?
echo "$out"
echo "$out" | grep -q ': [1-9][0-9]* points, identical$' || { echo "no file with coverage points"; exit 1; }
exit $rc
