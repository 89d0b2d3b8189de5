#!/bin/sh
# bench/deep.sh: the deep profile's wall time per server, with deep's
# defaults, side by side with a baseline (bench/deep/main.go says how).
#
# Usage: bench/deep.sh [-base REV] [-only name,name]
#
# -base REV also runs mcp-lockcheck as built from the git revision REV;
# every check of both starts at once. The baseline of deep before its
# gaps were confined to the first launch takes about 35 minutes.
set -eu
cd "$(dirname "$0")/.."
base=
if [ "${1:-}" = -base ]; then
	base=$2
	shift 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$tmp/mcp-lockcheck" ./cmd/mcp-lockcheck
(cd bench && go build -o "$tmp/deep" ./deep) # a module of its own
if [ -n "$base" ]; then
	mkdir "$tmp/base-src"
	git archive "$base" | tar -x -C "$tmp/base-src"
	(cd "$tmp/base-src" && CGO_ENABLED=0 go build -trimpath -o "$tmp/base" ./cmd/mcp-lockcheck)
	set -- -base "$tmp/base" "$@"
fi
echo "Measured $(date -u +%Y-%m-%d) on $(uname -sm), $(nproc) CPUs, $(go env GOVERSION); load average $(cut -d' ' -f1-3 /proc/loadavg); libfaketime: $(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null || echo none)."
echo
"$tmp/deep" -bin "$tmp/mcp-lockcheck" -repo . "$@"
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
