#!/bin/sh
# bench/speed.sh: what a check costs against the server's own start, for real
# MCP servers, side by side in one run (bench/speed/main.go says how).
#
#   floor    spawn, initialize, tools/list with a minimal go-sdk client
#   quick    mcp-lockcheck check --warmup-calls 0 --launches 1
#   default  mcp-lockcheck check, and of it the time spent waiting for the
#            server's answers to its warm-up tools/call requests
#
# Usage: bench/speed.sh [RUNS] [-base REV] [-only name,name]   (RUNS rounds, default 5)
#
# -base REV also measures mcp-lockcheck as built from the git revision REV
# (quick and default), in the same rounds and rotation: a change and its
# baseline side by side on the same load. -only takes names, or a prefix
# ending in * (npx-*: the servers launched with npx -y, basic and strict).
#
# The servers are npm packages at exact versions: testdata/npm (the test
# servers) and bench/servers (more real servers that start offline without
# credentials; bench only), installed with npm ci --ignore-scripts when
# missing: bench/servers here, testdata/npm by bench/speed itself through
# internal/testing/npmtest, into the user's cache directory where the tests find it. Run it on a quiet machine if you can; the
# modes alternate round by round, so a busy one weighs on every column alike.
set -eu
cd "$(dirname "$0")/.."
runs=5
case "${1:-}" in [0-9]*) runs=$1; shift ;; esac
base=
if [ "${1:-}" = -base ]; then
	base=$2
	shift 2
fi
# For bench/servers a copy of package-lock.json in node_modules records
# what was installed; bench/sweep.sh reads and writes the same stamp, so
# one install serves both.
if ! cmp -s bench/servers/package-lock.json bench/servers/node_modules/.install-stamp 2>/dev/null; then
	(cd bench/servers && npm ci --ignore-scripts --no-audit --no-fund >&2)
	cp bench/servers/package-lock.json bench/servers/node_modules/.install-stamp
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Built as release/build.sh builds what users download.
CGO_ENABLED=0 go build -trimpath -o "$tmp/mcp-lockcheck" ./cmd/mcp-lockcheck
(cd bench && go build -o "$tmp/speed" ./speed) # a module of its own
if [ -n "$base" ]; then
	mkdir "$tmp/base-src"
	git archive "$base" | tar -x -C "$tmp/base-src"
	(cd "$tmp/base-src" && CGO_ENABLED=0 go build -trimpath -o "$tmp/base" ./cmd/mcp-lockcheck)
	set -- -base "$tmp/base" "$@"
fi
echo "Measured $(date -u +%Y-%m-%d) on $(uname -sm), $(nproc) CPUs, $(go env GOVERSION); load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo
"$tmp/speed" -bin "$tmp/mcp-lockcheck" -repo . -runs "$runs" "$@"
