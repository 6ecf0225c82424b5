#!/bin/sh
# Install what building and testing ukcov needs on Debian 12.
# As root it runs apt-get itself; otherwise it prints the one apt-get
# line to run and fails.  Quiet when everything is there already.
set -u
# llvm-14-dev and gcc-12-plugin-dev: the inline plugins (plugins/plugins.mk).
PKGS="gcc g++ make clang-14 llvm-14 llvm-14-dev gcc-12-plugin-dev clang-tools-14 libclang-rt-14-dev \
pkgconf binutils libdw-dev libelf-dev libcapstone-dev nettle-dev lcov mandoc manpages-dev time \
libmicrohttpd-dev chromium curl cppcheck clang-tidy-14 clang-format-14 bear \
file gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user qemu-user-binfmt \
afl++ \
autoconf automake libtool bison flex libonig-dev"
# (autoconf to libonig-dev: jq 1.6 from its git tarball, for
# scripts/gcov-agree-jq.sh)

# clang, sancov and friends under their plain names, where only the -14
# packages are installed (the plain-name metapackages are not needed).
link_plain_names() {
    [ "$(id -u)" -eq 0 ] || return 0
    for t in clang clang++ sancov llvm-symbolizer; do
        command -v $t >/dev/null 2>&1 || [ ! -x /usr/lib/llvm-14/bin/$t ] ||
            ln -sf /usr/lib/llvm-14/bin/$t /usr/local/bin/$t
    done
}

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
# Commands that may come from elsewhere (python3 from pyenv, say).
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
if [ -z "$missing" ]; then
    link_plain_names
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "ukcov needs these Debian packages:$missing" >&2
    echo "run: sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null || {
    echo "apt-get install failed for:$missing" >&2
    exit 1
}
link_plain_names
exit 0
