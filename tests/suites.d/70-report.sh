#!/bin/bash
# tests/suites.d/70-report.sh -- `ukcov report -o DIR` (the multi-page
# report) and `ukcov serve` (the same pages over HTTP, watched
# directories, hostile paths), read back by a real browser: headless
# Chromium (Debian's chromium, scripts/deps.sh) dumps the DOM, takes the
# screenshots kept in $B/report-artifacts/, and, through
# tests/report/cdp.py, watches an open page update live.
#
# Inputs: gcc- and clang-built targets (ukcov-cc, `ukcov run` dumps), an
# ASan .sancov with its binary, a .symcov and a merged dump.  Numbers
# are compared with `ukcov stats` and with a count made from the .symcov
# (tests/report/numbers.py).  The server is only ever asked on
# 127.0.0.1; every wait is bounded.
#
# Run from the top of the tree after `make tools`:  B=build tests/suites.d/70-report.sh
set -u
. tests/lib.sh
TOP=$(pwd)
U=$TOP/$B/ukcov
CC_W=$TOP/$B/ukcov-cc
SRC=$TOP/tests/tool/src
NUM=$TOP/tests/report/numbers.py
CDP=$TOP/tests/report/cdp.py
ART=$TOP/$B/report-artifacts
# At exit, only this shell's background jobs still running (jobs -p):
# a process already waited for is never signalled by a reused PID.
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$T"' EXIT

for f in "$U" "$CC_W"; do
	[ -x "$f" ] || { bad "prerequisites" "missing $f (make tools)"; summary; exit; }
done
command -v chromium >/dev/null || { bad "prerequisites" "no chromium (scripts/deps.sh)"; summary; exit; }

# expect NAME RC "STDERR" CMD...: exact exit status and stderr.
expect() {
	local n=$1 rc=$2 msg=$3 r
	shift 3
	(cd "$T" && "$@") >"$T/out" 2>"$T/err"
	r=$?
	if [ $r -eq "$rc" ] && [ "$(cat "$T/err")" = "$msg" ]; then ok "$n"; else
		bad "$n" "rc $r (want $rc); stderr: $(head -c 400 "$T/err")"
	fi
}
# same NAME A B: the strings are equal.
same() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "'$2' != '$3'"; fi; }

chrome() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/chrome.XXXXXX")" "$@" 2>/dev/null
}
# The totals of a page as the browser's DOM has them.
dom_numbers() { chrome --dump-dom "$1" >"$T/dom.html" && "$NUM" dom "$T/dom.html"; }
stats_numbers() {  # the points and functions of `ukcov stats INPUTS`
	"$U" stats "$@" 2>/dev/null | awk '{v[$1]=$2} END {printf "functions %s %s points %s %s\n",
		v["cov-functions:"], v["all-functions:"], v["cov-edges:"], v["all-edges:"]}'
}
# "lines H A functions H A points H A" -> without the lines
fn_points() { echo "$1" | cut -d' ' -f4-; }

# ---- fixtures ------------------------------------------------------------
cd "$T" || exit 1
mkdir -p src && cp "$SRC/main.c" "$SRC/lib.c" src/
"$CC_W" -O0 src/main.c src/lib.c -o prog_gcc
UKCOV_CC=clang "$CC_W" -O0 src/main.c src/lib.c -o prog_clang
clang -g -O0 -fsanitize-coverage=trace-pc-guard -fsanitize=address src/main.c src/lib.c -o prog_asan
for f in prog_gcc prog_clang prog_asan; do
	[ -x "$f" ] || { bad "fixture $f" "not built"; summary; exit; }
done
"$U" run -o g1.dump -- ./prog_gcc 5 2>/dev/null
"$U" run -o g2.dump -- ./prog_gcc 4 200 2>/dev/null
"$U" run -o c1.dump -- ./prog_clang 4 200 2>/dev/null
"$U" merge -o g12.dump g1.dump g2.dump
mkdir -p cov && ASAN_OPTIONS=coverage=1:coverage_dir=cov:detect_leaks=0 ./prog_asan 5 >/dev/null 2>&1
SAN=$(ls cov/prog_asan.*.sancov)
"$U" symbolize prog_asan "$SAN" >a.symcov
export SOURCE_DATE_EPOCH=1700000000
VERSION=$("$U" --version | cut -d' ' -f2)

# ---- report -o DIR: every kind of input, totals == ukcov stats ----------
for v in "gcc dump:g1.dump prog_gcc" "clang dump:c1.dump prog_clang" \
	"merged dumps:g12.dump prog_gcc" "sancov+binary:prog_asan $SAN" "symcov:a.symcov"; do
	name=${v%%:*} inputs=${v#*:}
	dir=r-${name// /-}; dir=${dir//+/-}
	# shellcheck disable=SC2086
	if ! "$U" report -o "$dir" $inputs 2>"$T/err"; then bad "report -o DIR ($name)" "$(cat "$T/err")"; continue; fi
	files=$(ls "$dir"/f/*.html 2>/dev/null | wc -l)
	[ -f "$dir/index.html" ] && [ "$files" -eq 2 ] && ok "report -o DIR ($name): index and one page per source file" ||
		bad "report -o DIR ($name)" "$files file pages"
	# shellcheck disable=SC2086
	want=$(stats_numbers $inputs)
	case $name in gcc*|clang*) got=$(dom_numbers "file://$T/$dir/index.html") ;;
	*) got=$("$NUM" dom "$dir/index.html") ;; esac
	same "index totals == ukcov stats ($name)" "$(fn_points "$got")" "$want"
done

# One file page, read from the DOM: its lines and functions against the
# lcov tracefile's record of the file (the same block model), its points
# against a count from the .symcov.
# lcov_numbers SUFFIX INPUTS...: "lines LH LF functions FNH FNF" of the
# record whose SF: ends in SUFFIX.
lcov_numbers() {
	local suf=$1
	shift
	"$U" lcov "$@" 2>/dev/null | awk -F: -v s="$suf" '
		/^SF:/ {on = substr($2, length($2) - length(s) + 1) == s}
		on && /^(LH|LF|FNH|FNF):/ {v[$1] = $2}
		END {print "lines", v["LH"], v["LF"], "functions", v["FNH"], v["FNF"]}'
}
# page_numbers PAGE SUFFIX SYMCOV INPUTS...: what the page must show.
page_numbers() {
	local page=$1 suf=$2 sc=$3
	shift 3
	echo "$(lcov_numbers "$suf" "$@") $("$NUM" symcov "$sc" "$suf" | cut -d' ' -f7-)"
}
"$U" symbolize g1.dump prog_gcc >g1.symcov
page=$(ls r-gcc-dump/f/*-main.c.html)
same "file page numbers == lcov's and the .symcov's for main.c (gcc)" \
	"$(dom_numbers "file://$T/$page")" "$(page_numbers "$page" src/main.c g1.symcov g1.dump prog_gcc)"
"$U" symbolize c1.dump prog_clang >c1.symcov
page=$(ls r-clang-dump/f/*-lib.c.html)
same "file page numbers == lcov's and the .symcov's for lib.c (clang)" \
	"$(dom_numbers "file://$T/$page")" "$(page_numbers "$page" src/lib.c c1.symcov c1.dump prog_clang)"
# An optimized build (helper() inlined into foo()).
clang -g -O2 -fsanitize-coverage=trace-pc-guard -fsanitize=address src/main.c src/lib.c -o prog_o2
mkdir -p cov_o2 && ASAN_OPTIONS=coverage=1:coverage_dir=cov_o2:detect_leaks=0 ./prog_o2 5 >/dev/null 2>&1
"$U" symbolize prog_o2 cov_o2/*.sancov >o2.symcov && "$U" report -o r-o2 prog_o2 cov_o2/*.sancov 2>/dev/null
same "optimized build: file page numbers == lcov's and the .symcov's (clang -O2)" \
	"$("$NUM" dom "$(ls r-o2/f/*-main.c.html)")" \
	"$(page_numbers "$(ls r-o2/f/*-main.c.html)" src/main.c o2.symcov prog_o2 cov_o2/*.sancov)"
same "index lines == the lcov tracefile's LH/LF sums" "$("$NUM" dom r-gcc-dump/index.html | cut -d' ' -f1-3)" \
	"$("$U" lcov g1.dump prog_gcc | awk -F: '/^LH:/{h+=$2} /^LF:/{a+=$2} END {print "lines", h, a}')"

# Structure of the pages.
grep -q '<h2>Directories</h2>' r-gcc-dump/index.html && grep -q '<td><a href="f/[0-9]*-main.c.html">main.c</a>' r-gcc-dump/index.html &&
	ok "index: directories, then files, common prefix removed" || bad "index structure" "$(grep -c '<tr>' r-gcc-dump/index.html) rows"
pos_t=$(grep -bo 'id="lines-hit"' r-gcc-dump/index.html | cut -d: -f1)
pos_d=$(grep -bo 'Directories' r-gcc-dump/index.html | cut -d: -f1)
[ -n "$pos_t" ] && [ -n "$pos_d" ] && [ "$pos_t" -lt "$pos_d" ] && ok "index: totals first" || bad "index: totals first" "$pos_t $pos_d"
check "file page: uncovered regions chained u1 -> u2 -> ... -> top" "$NUM" regions "$(ls r-gcc-dump/f/*-main.c.html)"
page=$(ls r-gcc-dump/f/*-main.c.html)
# never_called() is defined at line 20; its "return 42;" on line 22 is
# held by three blocks (gcc -O0 gives it two points, each ending a
# block, and the code after the second), none ran.
grep -q '<a href="#L20">never_called</a>' "$page" && grep -q '<span class=u><a id=L22 href="#L22">' "$page" &&
	grep -q '<span class=h>   0/3   </span>' "$page" && grep -q '<span class=c><a id=L31 ' "$page" &&
	ok "file page: function table links to its definition; blocks per line and ran" || bad "file page annotations" "$page"
bid=$(readelf -n prog_gcc | awk '/Build ID/{print $3}')
n=0; for p in r-gcc-dump/index.html r-gcc-dump/f/*.html; do
	grep -q "binary prog_gcc, build-id $bid" "$p" && grep -q "dump g1.dump: " "$p" &&
		grep -q "Generated 2023-11-14 22:13:20 UTC by ukcov $VERSION" "$p" && n=$((n + 1))
done
same "every page names the inputs, build-id, date (SOURCE_DATE_EPOCH) and version" "$n" 3
grep -q ".sancov $SAN" r-sancov-binary/index.html && ok "the .sancov input is named" || bad "sancov named" "not as expected"
"$U" report -o again g1.dump prog_gcc 2>/dev/null
check "deterministic: the same inputs give the same bytes" diff -r r-gcc-dump again
grep -q '<th>points</th>' again/index.html || true
mkdir -p again/f && echo old >again/f/9-gone.c.html && echo keep >again/f/notes.txt
"$U" report -o again g1.dump prog_gcc 2>/dev/null
[ ! -e again/f/9-gone.c.html ] && [ -f again/f/notes.txt ] && ok "a page of an earlier report is removed, nothing else" || bad "stale pages" "not as expected"
printf '{"covered-points": ["1"], "binary-hash": "", "point-symbol-info": {"%s/src/main.c": {"f": {"1": "0:0"}, "g": {"2": "3:1"}}}}' "$T" >l0.symcov
"$U" report -o r-l0 l0.symcov 2>/dev/null
grep -q '<tr class=c><td><a>f</a></td><td class=n data-v=0>-</td>' r-l0/f/1-main.c.html && grep -q '<a href="#L3">g</a>' r-l0/f/1-main.c.html &&
	ok "a function without a line links nowhere" || bad "line-0 function" "$(grep -o '<tr class=.>.*</tr>' r-l0/f/1-main.c.html)"
"$U" report -o one.html g1.dump prog_gcc && [ -f one.html ] && grep -q 'class="notcovered">.*never_called' one.html &&
	ok "-o FILE.html: still the single page" || bad "-o FILE.html" "not as expected"
# Each file's section is headed by its path (a generated mutant
# dropped it and no test saw).
heads=$(grep -o '<h2 id="f[0-9]*">[^<]*</h2>' one.html)
[ "$heads" = "<h2 id=\"f0\">$T/src/lib.c</h2>
<h2 id=\"f1\">$T/src/main.c</h2>" ] && ok "-o FILE.html: each file's heading is its path" ||
	bad "-o FILE.html: file headings" "$(echo "$heads" | tr '\n' ' ')"
# Bad input: missing sources, no debug info, an unwritable directory.
expect "missing sources: a warning, pages that say so" 0 \
	"ukcov: warning: 2 source files not found; their pages say so (--source-root DIR, --strip-path-prefix P)" \
	"$U" report --strip-path-prefix="$T/" --source-root /nonexistent -o r-missing g1.dump prog_gcc
grep -q 'Source not available: <code>/nonexistent/src/main.c</code> (No such file or directory' r-missing/f/*-main.c.html &&
	grep -q '<a id=L22 href="#L22">    22</a> <span class=h>   0/3   </span>' r-missing/f/*-main.c.html &&
	ok "missing source page keeps the lines and counts" || bad "missing source page" "not as expected"
strip --strip-debug -o prog_nodebug prog_gcc	# same build-id: g1.dump matches
"$U" report -o r-nodebug g1.dump prog_nodebug 2>"$T/nd.err"
grep -q "prog_nodebug: no DWARF debug info" "$T/nd.err" && grep -q 'have no source line: no DWARF debug info' r-nodebug/index.html &&
	ok "binary without debug info: the tool's warning, a note on the index" || bad "no debug info" "$(cat "$T/nd.err")"
expect "unwritable output directory" 1 "ukcov: error: /proc/nope: cannot create the report directory: No such file or directory" \
	"$U" report -o /proc/nope g1.dump prog_gcc

# Scripts off: the HTML itself holds the tables, in path order (the
# script only sorts; headless Chromium neither dumps nor shoots a page
# with scripts disabled).
same "scripts off: files table in path order" "$(grep -o '<a href="f/[^"]*">[^<]*</a>' r-gcc-dump/index.html | sed 's/.*">//; s/<.*//' | tr '\n' ' ')" "lib.c main.c "

# Screenshots (artifacts), then the page sorted by a click.
mkdir -p "$ART"
chrome --window-size=1200,800 --screenshot="$ART/index.png" "file://$T/r-gcc-dump/index.html" >/dev/null &&
	chrome --window-size=1200,1300 --screenshot="$ART/file.png" "file://$T/$(ls r-gcc-dump/f/*-main.c.html)" >/dev/null
[ -s "$ART/index.png" ] && [ -s "$ART/file.png" ] && ok "screenshots in $B/report-artifacts" || bad "screenshots" "not as expected"
# ---- serve -----------------------------------------------------------------
# start_serve OUT ARGS...: sets SPID and URL (bounded wait for the line).
start_serve() {
	local out=$1
	shift
	"$U" serve --port 0 "$@" >"$out" 2>"$out.err" &
	SPID=$!
	until_true 5 grep -q '^ukcov: serving ' "$out"
	URL=$(sed -n 's/^ukcov: serving //p' "$out")
}
code() { curl -s -o /dev/null -m 5 --path-as-is -w '%{http_code}' "$@"; }
# The served generation, a number (version.json's).
gen() { curl -s -m 5 "${URL}version.json" | tr -dc 0-9; }

mkdir -p root/sub && echo 'int x;' >root/sub/a.c && ln -s /etc/passwd root/sub/evil && ln -s /etc root/sub/etc
truncate -s 70M root/sub/huge.c
start_serve s1.out --source-root root g1.dump prog_gcc
case $URL in http://127.0.0.1:[0-9]*/) ok "serve prints its URL on 127.0.0.1" ;; *) bad "serve URL" "'$URL' $(cat s1.out.err)" ;; esac
curl -s -m 5 "$URL" | sed 's/data-gen="1"/data-gen="0"/' >served.html
"$U" report -o r-cmp g1.dump prog_gcc 2>/dev/null
check "served index == the static index (but for the generation)" cmp served.html r-cmp/index.html
same "version.json" "$(curl -s -m 5 "${URL}version.json")" '{"version": 1}'
same "a source under --source-root" "$(curl -s -m 5 "${URL}source/sub/a.c")" "int x;"
long=$(head -c 3000 /dev/zero | tr '\0' a)
for c in "400 ../etc/passwd" "400 %2e%2e/etc/passwd" "400 source/../../etc/passwd" \
	"400 source/%2e%2e/%2e%2e/etc/passwd" "400 source//etc/passwd" "400 source/%2fetc%2fpasswd" \
	"400 source/sub%5c..%5c..%5cx" "400 f/%00x" "400 source/sub/./a.c" "403 source/sub/evil" \
	"403 source/sub/etc/passwd" "403 source/sub/huge.c" "404 etc/passwd" "404 source/sub" \
	"404 f/nope.html" "414 $long" "400 %zz"; do
	same "hostile path /$(echo "${c#* }" | cut -c1-40) -> ${c%% *}" "$(code "$URL${c#* }")" "${c%% *}"
done
same "POST -> 405" "$(code -X POST "$URL")" 405
same "HEAD of the index: 200, its length, no body" "$(curl -s -m 5 -I "$URL" | tr -d '\r' | awk -F': ' 'tolower($1)=="content-length"{print $2}') $(curl -s -m 5 --head "$URL" -o /dev/null -w '%{size_download}')" \
	"$(wc -c <served.html | tr -d ' ') 0"
# An idle connection is closed by the server (5 s timeout).
python3 - "${URL#http://}" >"$T/to" 2>&1 <<'EOF'
import socket, sys, time
host, port = sys.argv[1].rstrip("/").split(":")
s = socket.create_connection((host, int(port)), timeout=20)
s.sendall(b"GET / HTTP/1.1\r\n")
t = time.time()
while s.recv(4096):
    pass
print("closed", round(time.time() - t))
EOF
t=$(awk '{print $2}' "$T/to")
[ -n "$t" ] && [ "$t" -ge 4 ] && [ "$t" -le 8 ] && ok "an idle connection times out (${t}s)" || bad "connection timeout" "$(cat "$T/to")"
port=${URL##*:}; port=${port%/}
expect "serve without inputs: a usage error, exit 2" 2 "ukcov: error: missing inputs (see ukcov --help)" \
	"$U" serve --port 0
expect "a port in use: a clear error, exit 1" 1 "ukcov: error: serve: cannot listen on 127.0.0.1 port $port: Address already in use" \
	"$U" serve --port "$port" g1.dump prog_gcc
expect "--bind to a non-loopback address warns" 1 "ukcov: warning: serving on 192.0.2.1, not a loopback address: whoever reaches it reads the report and the sources under --source-root
ukcov: error: serve: cannot listen on 192.0.2.1 port 0: Cannot assign requested address" \
	"$U" serve --bind 192.0.2.1 --port 0 g1.dump prog_gcc
kill -TERM "$SPID"; wait "$SPID"
same "SIGTERM stops serve with status 0" "$?" 0

# A watched directory: live update in the browser, corrupt dumps.
mkdir -p watch && cp g1.dump watch/
start_serve s2.out watch prog_gcc
UDD=$(mktemp -d "$T/cdp.XXXXXX")
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$UDD" --remote-debugging-port=0 "$URL" >/dev/null 2>&1 &
CPID=$!
E='(function(){var e=document.getElementById("points-hit");return e&&e.textContent;})()'
before=$(timeout 30 "$CDP" wait "$UDD" "$E" null 20 | cut -d' ' -f1)
same "the open page shows the first dump" "$before" "\"$("$U" stats watch/g1.dump prog_gcc | awk '/cov-edges/{print $2}')\""
cp g2.dump new.tmp && mv new.tmp watch/g2.dump
after=$(timeout 30 "$CDP" wait "$UDD" "$E" "$before" 2)
same "a dropped dump shows in the open page within 2 s, no reload by hand" "${after%% *}" \
	"\"$("$U" stats g1.dump g2.dump prog_gcc | awk '/cov-edges/{print $2}')\""
S='(function(){var t=document.querySelectorAll("table.sortable")[1];t.tHead.rows[0].cells[4].click();t.tHead.rows[0].cells[4].click();
return Array.prototype.map.call(t.tBodies[0].rows,function(r){return r.cells[4].dataset.v;}).join(" ");})()'
v=$("$CDP" eval "$UDD" "$S" | tr -d '"')
[ -n "$v" ] && [ "$v" = "$(echo "$v" | tr ' ' '\n' | sort -gr | tr '\n' ' ' | sed 's/ $//')" ] &&
	ok "a click on a header sorts the files table (points, descending: $v)" || bad "sorting" "'$v'"
printf 'ukcov-dump 1\nmode pc\nmodule 0 - 0 0 10 /x\npcs 0 3\n1\n' >bad.tmp && mv bad.tmp watch/bad.dump
# Wait for the report of the corrupt dump, then for the two rebuilds a
# touched good dump causes (left out while it changes, back once it is
# stable): the corrupt one, unchanged, must not be reported again.
until_true 10 grep -q 'bad.dump' s2.out.err
g0=$(gen)
touch watch/g1.dump
until_true 10 eval '[ "$(gen)" -ge $((g0 + 2)) ]'
same "a corrupt dump is reported once" "$(cat s2.out.err)" \
	"ukcov: error: watch/bad.dump: truncated: module 0 announces 3 PCs, the file ends after 1"
same "and serving continues" "$(code "$URL")" 200
kill "$CPID"; wait "$CPID" 2>/dev/null
kill -INT "$SPID"; wait "$SPID"
same "SIGINT stops serve with status 0" "$?" 0

# An ASan coverage_dir: the program writes its .sancov there; one with no
# binary among the inputs is left out with one warning.
mkdir -p cov2 && cp "$SAN" cov2/
start_serve s3.out cov2 prog_asan
cp "$SAN" cov2/other.9.sancov
ASAN_OPTIONS=coverage=1:coverage_dir=cov2:detect_leaks=0 ./prog_asan 4 200 >/dev/null 2>&1
until_true 4 eval '[ "$(gen)" = 2 ]'
curl -s -m 5 "$URL" >served3.html
same "coverage_dir: a new .sancov is merged in" "$(fn_points "$("$NUM" dom served3.html)")" "$(stats_numbers prog_asan cov2/prog_asan.*.sancov)"
same "coverage_dir: a .sancov without its binary is left out, said once" "$(cat s3.out.err)" \
	"ukcov: warning: cov2/other.9.sancov: no binary named 'other' among the inputs; left out (name the binary on the command line)"
kill -TERM "$SPID"; wait "$SPID"

# ---- every binary built above: the sweep's decoder agrees with capstone --
if "$TOP/tests/tool/x86len-all.sh" "$TOP/$B/tests/x86len-check" "$T" >"$T/xl.out" 2>&1; then
	ok "x86len: lengths and point sets equal capstone's on this suite's binaries ($(tail -1 "$T/xl.out"))"
else bad "x86len: disagreement with capstone on this suite's binaries" "$(grep -m3 'MISMATCH\|^no ' "$T/xl.out" | tr '\n' ' ')"; fi

summary
