#!/bin/sh
# bench/guard.sh: the guard's numbers (README, "guard"), measured with the
# fake server re-executed from the guard package's test binary, each chain
# (direct, plain pass-through process, guard process) over OS pipes in one run.
#
#   added latency per tools/call round trip (median, p99 over 10,000), beside
#   what a plain pass-through process adds; the same with 64 KB answers
#   tools/list answers of 100 tools: guard vs pass-through throughput
#   peak RSS of the guard process over a 10,000-message session
#   pipelined tools/call: calls/s direct, through a pass-through process and
#   through the guard, with answers of 3.7 KB of prose and of one word, and
#   the CPU each chain's server-side process spends per call
#
# Usage: bench/guard.sh [COUNT]   (COUNT runs of each, default 1)
set -eu
cd "$(dirname "$0")/.."
count=${1:-1}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench 'GuardRoundTrip$|GuardToolsList100' -benchtime 10000x -count "$count" ./internal/guard/ >"$out"
go test -run '^$' -bench 'GuardRoundTrip64K' -benchtime 5000x -count "$count" ./internal/guard/ >>"$out"
go test -run '^$' -bench 'GuardPeakRSS|GuardCheckList100Cold' -benchtime 1x -count "$count" ./internal/guard/ >>"$out"
go test -run '^$' -bench 'GuardRelist100Warm' -benchtime 10000x -count "$count" ./internal/guard/ >>"$out"
go test -run '^$' -bench 'GuardCalls$' -benchtime 20000x -count "$count" ./internal/guard/ >>"$out"
awk '
/^BenchmarkGuardRoundTrip\/direct/ { for (i=1;i<=NF;i++) { if ($(i+1)=="median-µs") dm+= $i; if ($(i+1)=="p99-µs") dp+= $i }; dn++ }
/^BenchmarkGuardRoundTrip\/guard/  { for (i=1;i<=NF;i++) { if ($(i+1)=="median-µs") gm+= $i; if ($(i+1)=="p99-µs") gp+= $i }; gn++ }
/^BenchmarkGuardRoundTrip\/pass-through/  { for (i=1;i<=NF;i++) { if ($(i+1)=="median-µs") pm+= $i }; pn++ }
/^BenchmarkGuardRoundTrip64K\/direct/ { for (i=1;i<=NF;i++) { if ($(i+1)=="median-µs") kdm+= $i; if ($(i+1)=="p99-µs") kdp+= $i }; kdn++ }
/^BenchmarkGuardRoundTrip64K\/guard/  { for (i=1;i<=NF;i++) { if ($(i+1)=="median-µs") kgm+= $i; if ($(i+1)=="p99-µs") kgp+= $i }; kgn++ }
/^BenchmarkGuardToolsList100\/direct/       { for (i=1;i<=NF;i++) if ($(i+1)=="MB/s") td+= $i; tdn++ }
/^BenchmarkGuardToolsList100\/pass-through/ { for (i=1;i<=NF;i++) if ($(i+1)=="MB/s") tp+= $i; tpn++ }
/^BenchmarkGuardToolsList100\/guard/        { for (i=1;i<=NF;i++) if ($(i+1)=="MB/s") tg+= $i; tgn++ }
/^BenchmarkGuardPeakRSS/ { for (i=1;i<=NF;i++) if ($(i+1)=="peak-RSS-MiB") { if ($i > rss) rss = $i } }
/^BenchmarkGuardCheckList100Cold/ { cold = $3 / 1000 }
/^BenchmarkGuardRelist100Warm/ { warm += $3 / 1000; wn++ }
/^BenchmarkGuardCalls\// {
  split($1, k, "/"); key = k[2] "/" k[3]; sub(/-[0-9]+$/, "", key)
  for (i=1;i<=NF;i++) { if ($(i+1)=="calls/s") cs[key] += $i; if ($(i+1)=="cpu-µs/call") cu[key] += $i }
  cn[key]++
}
END {
  printf "%-52s %12s %12s\n", "measure", "value", "target"
  printf "%-52s %9.1f µs %12s\n", "tools/call round trip, direct, median", dm/dn, ""
  printf "%-52s %9.1f µs %12s\n", "tools/call round trip, via guard, median", gm/gn, ""
  printf "%-52s %9.1f µs %12s\n", "tools/call round trip, via pass-through, median", pm/pn, ""
  printf "%-52s %9.1f µs %12s\n", "added latency, median", gm/gn - dm/dn, "< 100 µs"
  printf "%-52s %9.1f µs %12s\n", "added by a plain pass-through process, median", pm/pn - dm/dn, ""
  printf "%-52s %9.1f µs %12s\n", "added latency, p99", gp/gn - dp/dn, ""
  if (kdn) {
    printf "%-52s %9.1f µs %12s\n", "64 KB answers: round trip, direct, median", kdm/kdn, ""
    printf "%-52s %9.1f µs %12s\n", "64 KB answers: round trip, via guard, median", kgm/kgn, ""
    printf "%-52s %9.1f µs %12s\n", "64 KB answers: added latency, median", kgm/kgn - kdm/kdn, ""
    printf "%-52s %9.1f µs %12s\n", "64 KB answers: round trip, via guard, p99", kgp/kgn, ""
    printf "%-52s %9.1f µs %12s\n", "64 KB answers: added latency, p99", kgp/kgn - kdp/kdn, ""
  }
  printf "%-52s %7.0f MB/s %12s\n", "tools/list x100 tools, direct pipe", td/tdn, ""
  printf "%-52s %7.0f MB/s %12s\n", "tools/list x100 tools, plain pass-through process", tp/tpn, ""
  printf "%-52s %7.0f MB/s %12s\n", "tools/list x100 tools, guard process", tg/tgn, ""
  printf "%-52s %10.2fx %12s\n", "guard / pass-through time", (tp/tpn)/(tg/tgn), "< 1.5x"
  printf "%-52s %9.0f µs %12s\n", "first check of a 100-tool page (cold)", cold, ""
  printf "%-52s %9.1f µs %12s\n", "re-list of an accepted 100-tool page (in process)", warm/wn, ""
  printf "%-52s %8.1f MiB %12s\n", "guard peak RSS, 10,000-message session", rss, "< 30 MB"
  split("prose short", ans, " ")
  for (a=1; a<=2; a++) {
    d = ans[a] "/direct"; g = ans[a] "/guard"; p = ans[a] "/pass-through"
    if (!cn[d]) continue
    printf "%-52s %9.0f /s %12s\n", "tools/call pipelined, " ans[a] " answers, direct", cs[d]/cn[d], ""
    printf "%-52s %9.0f /s %12s\n", "tools/call pipelined, " ans[a] " answers, pass-through", cs[p]/cn[p], ""
    printf "%-52s %9.0f /s %12s\n", "tools/call pipelined, " ans[a] " answers, guard", cs[g]/cn[g], ""
    printf "%-52s %10.2fx %12s\n", "guard / direct calls/s, " ans[a] " answers", (cs[g]/cn[g])/(cs[d]/cn[d]), ">= 0.5x"
    printf "%-52s %9.1f µs %12s\n", "guard CPU per call over direct, " ans[a] " answers", cu[g]/cn[g] - cu[d]/cn[d], ""
  }
}' "$out"
