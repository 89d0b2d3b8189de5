#!/bin/sh
# bench/inspect-cost.sh: what inspecting a definition and an answer costs,
# for this tree and for git revisions, side by side in one run.
#
# Usage: bench/inspect-cost.sh [RUNS] [REV...]   (RUNS rounds, default 7)
#
# Builds the test binary of internal/inspect once for the working tree and
# once for each REV (in a temporary git worktree), then runs
# BenchmarkInspect1000Tools and BenchmarkInspectAnswer of every binary in
# rotation, RUNS rounds, and prints each one's median and fastest. The
# rotation puts a busy machine's load on every column alike; the figures
# are comparable within one run, not across machines (issue 45's budget is
# 50 µs a definition: BenchmarkInspect1000Tools's ms/op over 1,000).
set -eu
cd "$(dirname "$0")/.."
runs=7
case "${1:-}" in [0-9]*) runs=$1; shift ;; esac
tmp=$(mktemp -d)
trees=""
cleanup() {
	for t in $trees; do git worktree remove --force "$tmp/$t" >/dev/null 2>&1 || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
names="tree"
go test -c -o "$tmp/tree.test" ./internal/inspect
for rev in "$@"; do
	name=$(git rev-parse --short "$rev")
	git worktree add -q --detach "$tmp/$name" "$rev"
	trees="$trees $name"
	(cd "$tmp/$name" && go test -c -o "$tmp/$name.test" ./internal/inspect)
	names="$names $name"
done
dir() {
	if [ "$1" = tree ]; then echo internal/inspect; else echo "$tmp/$1/internal/inspect"; fi
}
i=0
while [ $i -lt "$runs" ]; do
	for n in $names; do
		# A benchmark that fails stops the run: a missing column must not
		# read as a fast one.
		if ! (cd "$(dir "$n")" && "$tmp/$n.test" -test.run '^$' -test.bench '^(BenchmarkInspect1000Tools|BenchmarkInspectAnswer)$' -test.count 1) >"$tmp/out" 2>&1; then
			echo "inspect-cost: the benchmarks of $n failed:" >&2
			cat "$tmp/out" >&2
			exit 1
		fi
		awk -v n="$n" '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print n, $1, $3 }' "$tmp/out" >>"$tmp/results"
	done
	i=$((i + 1))
done
echo "| build | benchmark | median | fastest | runs |"
echo "| --- | --- | ---: | ---: | ---: |"
benches=$(awk '{ print $2 }' "$tmp/results" | sort -u)
for n in $names; do
	for b in $benches; do
		awk -v n="$n" -v b="$b" '$1 == n && $2 == b { print $3 }' "$tmp/results" | sort -n |
			awk -v n="$n" -v b="$b" '{ v[NR] = $1 } END {
				if (NR == 0) exit
				m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				# BenchmarkInspect1000Tools inspects 1,000 definitions an op.
				per = (b == "BenchmarkInspect1000Tools") ? "µs a definition" : "µs an answer"
				div = (b == "BenchmarkInspect1000Tools") ? 1e6 : 1e3
				printf "| %s | %s | %.1f %s | %.1f | %d |\n", n, b, m / div, per, v[1] / div, NR
			}'
	done
done
