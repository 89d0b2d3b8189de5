#!/bin/sh
# bench/labelled.sh: recall and precision of the text rules on the labelled
# set (internal/inspect/labelled_test.go): every attack of
# internal/inspect/testdata/attacks and every payload of TestAttackEncodings
# in every encoding (attacks), beside every definition of the real servers in
# internal/inspect/testdata/corpus (honest). A definition counts as flagged
# when the inspection gives it an error, which is what fails a pin or check.
#
# Usage: bench/labelled.sh [COUNT]   (default 3 runs)
#
# Prints recall, precision, the set's size and the inspection time per
# definition (Definition, plus Across where the set needs it).
set -eu
cd "$(dirname "$0")/.."
go test ./internal/inspect -run '^$' -bench '^BenchmarkLabelledSet$' -benchtime 3x -count "${1:-3}" |
	grep '^BenchmarkLabelledSet'
