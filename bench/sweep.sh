#!/bin/sh
# bench/sweep.sh: mcp-lockcheck with its defaults against many real MCP
# servers, as a new user would run it: for each server pin, check three
# times, then check a copy of the config and lock at another path
# (bench/sweep/main.go says how and which servers).
#
# Usage: bench/sweep.sh [-only name,name] [-deadline 6m] [-keep]
#
# Prints one markdown table; bench/sweep/out/sweep.json and sweep.tsv hold
# every run's exit code, time and findings. The servers are npm packages
# at exact versions (bench/servers and bench/sweep/npm, installed here with
# npm ci --ignore-scripts when their lock changed; testdata/npm, installed
# by bench/sweep itself through internal/testing/npmtest into the user's cache
# directory, where the tests find it too)
# and Go modules at exact versions (bench/sweep/gomod, built into
# bench/sweep/bin). Nothing is pointed at any address but a closed
# loopback port; servers whose tools reach a hosted API run under
# --sandbox strict.
set -eu
cd "$(dirname "$0")/.."
npmci() { # dir: npm ci unless node_modules matches the lock
	if ! cmp -s "$1/package-lock.json" "$1/node_modules/.install-stamp" 2>/dev/null; then
		(cd "$1" && npm ci --ignore-scripts --no-audit --no-fund >&2)
		cp "$1/package-lock.json" "$1/node_modules/.install-stamp"
	fi
}
npmci bench/servers
npmci bench/sweep/npm
# Go servers: the exact versions in bench/sweep/gomod/go.mod (a module of
# its own, so the project's go.mod never names them). go install
# module@version is not used: it asks the proxy for the module's version
# list, which the proxy here does not serve for every module.
if ! cmp -s bench/sweep/gomod/go.sum bench/sweep/bin/.sweep-stamp 2>/dev/null; then
	mkdir -p bench/sweep/bin
	(cd bench/sweep/gomod && go build -o ../bin/ \
		github.com/github/github-mcp-server/cmd/github-mcp-server \
		github.com/mark3labs/mcp-filesystem-server)
	cp bench/sweep/gomod/go.sum bench/sweep/bin/.sweep-stamp
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/mcp-lockcheck" ./cmd/mcp-lockcheck
(cd bench && go build -o "$tmp/sweep" ./sweep) # a module of its own
echo "Measured $(date -u +%Y-%m-%d) at $(git rev-parse --short HEAD) on $(uname -sm), $(nproc) CPUs, $(go env GOVERSION); load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo
"$tmp/sweep" -bin "$tmp/mcp-lockcheck" -repo . -out bench/sweep/out "$@"
