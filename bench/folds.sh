#!/bin/sh
# bench/folds.sh: the text rules on attack folds (internal/inspect/folds_test.go):
# folds of public MCP attack suites, one folder per source, kept outside the
# repository (bench/README.md, "Attack folds"; the sources are listed in
# bench/folds-sources.md).
#
# Usage: bench/folds.sh DIR...
#
# Each DIR is one source folder or a directory of source folders. Prints per
# fold the attacks, the error-class attacks, the recall at error on those,
# the recall at warning or above on all attacks, and the errors and warnings
# on the fold's benign definitions; then the ids of the misses.
set -eu
[ $# -gt 0 ] || { echo "usage: bench/folds.sh DIR..." >&2; exit 2; }
folds=""
for d in "$@"; do
	abs=$(cd "$d" && pwd)
	folds="${folds:+$folds:}$abs"
done
cd "$(dirname "$0")/.."
MCP_LOCKCHECK_FOLDS="$folds" exec go test ./internal/inspect -run '^TestFolds$' -v -count=1
