#!/bin/sh
# bench/memory.sh: the checker's peak memory against a server that answers
# tools/list with one 48 MB description (bench/memory/main.go says how),
# beside a baseline when -base REV is given, alternating run by run.
#
# Usage: bench/memory.sh [RUNS] [-base REV]   (RUNS runs of each, default 5)
set -eu
cd "$(dirname "$0")/.."
runs=5
case "${1:-}" in [0-9]*) runs=$1; shift ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$tmp/mcp-lockcheck" ./cmd/mcp-lockcheck
(cd bench && go build -o "$tmp/memory" ./memory) # a module of its own
if [ "${1:-}" = -base ]; then
	mkdir "$tmp/base-src"
	git archive "$2" | tar -x -C "$tmp/base-src"
	(cd "$tmp/base-src" && CGO_ENABLED=0 go build -trimpath -o "$tmp/base" ./cmd/mcp-lockcheck)
	shift 2
	set -- -base "$tmp/base" "$@"
fi
echo "Measured $(date -u +%Y-%m-%d) on $(uname -sm), $(nproc) CPUs, $(go env GOVERSION); load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo
"$tmp/memory" -bin "$tmp/mcp-lockcheck" -runs "$runs" "$@"
