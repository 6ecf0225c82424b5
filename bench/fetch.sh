#!/bin/sh
# bench/fetch.sh CACHE -- fetch and unpack the benchmark's workloads into
# CACHE/src, reproducibly: the upstream sources come from registries any
# machine reaches (Debian's source packages, one npm tarball), and each
# archive is checked against the sha256 recorded below before it is used.
#
#   sqlite 3.50.4  amalgamation shipped in npm better-sqlite3@12.4.1
#   lua 5.4.4      apt-get source lua5.4 -> lua5.4_5.4.4.orig.tar.gz
#   zlib 1.2.13    apt-get source zlib   -> zlib_1.2.13.dfsg.orig.tar.bz2
#
# Only the upstream "orig" tarballs are used; Debian's patches are not.
# Idempotent: a workload already unpacked is left alone.  As root the script
# installs what is missing (deb-src entries, compilers, valgrind); otherwise
# it prints the one command to run and fails.
set -eu

cache=${1:?usage: fetch.sh CACHE}
mkdir -p "$cache/dl" "$cache/src"
cache=$(cd "$cache" && pwd)

SQLITE_TGZ=better-sqlite3-12.4.1.tgz
SQLITE_SHA=14398acbf00d1e8fe0a2753df7d4f15c13138e4b874f4e6e96791f65b4536d0d
LUA_TGZ=lua5.4_5.4.4.orig.tar.gz
LUA_SHA=164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61
ZLIB_TBZ=zlib_1.2.13.dfsg.orig.tar.bz2
ZLIB_SHA=71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1

DEBSRC=/etc/apt/sources.list.d/ukcov-bench-debsrc.sources

need_root() {
	echo "bench/fetch.sh: $1; run as root:" >&2
	echo "  $2" >&2
	exit 1
}

check_sha() {	# file sha256
	echo "$2  $1" | sha256sum -c --quiet - || {
		echo "bench/fetch.sh: $1: sha256 mismatch, refusing to use it" >&2
		rm -f "$1"
		exit 1
	}
}

# Tools: the compilers, valgrind (instruction counts), taskset, npm.
missing=
for t in gcc clang valgrind taskset npm python3; do
	command -v $t >/dev/null 2>&1 || missing="$missing $t"
done
if [ -n "$missing" ]; then
	pkgs=$(echo "$missing" | sed -e 's/taskset/util-linux/' -e 's/python3/python3/')
	line="apt-get install -y$pkgs"
	[ "$(id -u)" = 0 ] || need_root "missing:$missing" "$line"
	DEBIAN_FRONTEND=noninteractive $line
fi

# Debian sources need deb-src entries for the mirror apt already uses.
apt_sources() {
	if grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return
	fi
	line="sed 's/^Types: deb\$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > $DEBSRC && apt-get update"
	[ "$(id -u)" = 0 ] || need_root "no deb-src entries for apt-get source" "$line"
	sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$DEBSRC"
	apt-get update -qq
}

fetch_deb() {	# package tarball sha
	[ -f "$cache/dl/$2" ] && return
	apt_sources
	# apt warns that root downloads unsandboxed; keep its output for errors only
	(cd "$cache/dl" && apt-get source --download-only -qq "$1" >apt.log 2>&1) ||
		{ cat "$cache/dl/apt.log" >&2; exit 1; }
	check_sha "$cache/dl/$2" "$3"
}

if [ ! -f "$cache/src/lua-5.4.4/src/lapi.c" ]; then
	fetch_deb lua5.4 $LUA_TGZ $LUA_SHA
	check_sha "$cache/dl/$LUA_TGZ" $LUA_SHA
	tar -C "$cache/src" -xzf "$cache/dl/$LUA_TGZ"
fi
if [ ! -f "$cache/src/zlib-1.2.13.dfsg/deflate.c" ]; then
	fetch_deb zlib $ZLIB_TBZ $ZLIB_SHA
	check_sha "$cache/dl/$ZLIB_TBZ" $ZLIB_SHA
	tar -C "$cache/src" -xjf "$cache/dl/$ZLIB_TBZ"
fi
if [ ! -f "$cache/src/sqlite/sqlite3.c" ]; then
	if [ ! -f "$cache/dl/$SQLITE_TGZ" ]; then
		(cd "$cache/dl" && npm pack --silent better-sqlite3@12.4.1 >/dev/null)
	fi
	check_sha "$cache/dl/$SQLITE_TGZ" $SQLITE_SHA
	rm -rf "$cache/src/npm" && mkdir -p "$cache/src/npm" "$cache/src/sqlite"
	tar -C "$cache/src/npm" -xzf "$cache/dl/$SQLITE_TGZ"
	cp "$cache/src/npm/package/deps/sqlite3/sqlite3.c" \
	   "$cache/src/npm/package/deps/sqlite3/sqlite3.h" "$cache/src/sqlite/"
	rm -rf "$cache/src/npm"
fi
echo "bench: workloads ready in $cache/src"
