#!/bin/sh
# bench/corpus.sh: record the tool definitions of many real MCP servers into
# the inspect package's benign corpus, internal/inspect/testdata/corpus/servers
# (bench/corpus/main.go says how and which servers; the corpus README lists
# them). TestBenignCorpus replays the locks offline.
#
# Usage: bench/corpus.sh [-only slug,slug] [-jobs 2] [-deadline 4m]
#
# The servers are npm packages at exact versions (bench/corpus/npm/*, a few
# projects of a few dozen packages each, installed here with npm ci
# --ignore-scripts when a lock changed) and Go modules at exact versions (bench/corpus/gomod, a module of its own so the
# project's go.mod never names them, built into bench/corpus/bin). Nothing
# is pointed at any address but a closed loopback port or a .invalid host;
# servers whose tools reach a hosted API run under --sandbox strict.
# Prints the recorded servers and those left out as markdown tables;
# bench/corpus/out/status.json has every pin's exit code and last lines.
set -eu
cd "$(dirname "$0")/.."
for npm_dir in bench/corpus/npm/*/; do
	if ! cmp -s "$npm_dir/package-lock.json" "$npm_dir/node_modules/.install-stamp" 2>/dev/null; then
		(cd "$npm_dir" && npm ci --ignore-scripts --no-audit --no-fund >&2)
		cp "$npm_dir/package-lock.json" "$npm_dir/node_modules/.install-stamp"
	fi
done
if ! cmp -s bench/corpus/gomod/go.sum bench/corpus/bin/.corpus-stamp 2>/dev/null; then
	mkdir -p bench/corpus/bin
	(cd bench/corpus/gomod && go build -o ../bin/ \
		github.com/github/github-mcp-server/cmd/github-mcp-server \
		github.com/mark3labs/mcp-filesystem-server)
	cp bench/corpus/gomod/go.sum bench/corpus/bin/.corpus-stamp
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/mcp-lockcheck" ./cmd/mcp-lockcheck
(cd bench && go build -o "$tmp/corpus" ./corpus) # a module of its own
mkdir -p bench/corpus/out
echo "Recorded $(date -u +%Y-%m-%d) at $(git rev-parse --short HEAD) with $(go env GOVERSION), node $(node --version)."
echo
"$tmp/corpus" -bin "$tmp/mcp-lockcheck" -repo . -out internal/inspect/testdata/corpus/servers -status bench/corpus/out/status.json "$@"
