#!/usr/bin/env bash
# The check step of action.yml, kept in a file so tests can run it under an
# emulated runner (internal/cli/action_test.go). It reads the inputs only from INPUT_*
# variables (action.yml maps them in env:), runs `mcp-lockcheck check`, then
# writes SARIF and annotations (`merge`, which re-roots file locations when
# working-directory is a subdirectory), the step outputs, the job summary and
# the sticky comment, and always exits 0: the action's last step exits with
# the saved exit code, so nothing here can fail the job before the outputs
# and the summary exist.
#
# MCP_LOCKCHECK_BIN names the binary (set by the install step).
#
# Portable to bash 3.2 (macOS runners): no mapfile, no empty "${a[@]}" under set -u.
set -uo pipefail

bin="${MCP_LOCKCHECK_BIN:-mcp-lockcheck}"

# The token is for the comment command only. Unexported here, it never
# reaches `check` or the servers it launches (which with sandbox: off would
# inherit the whole environment).
token="${INPUT_GITHUB_TOKEN:-}"
unset INPUT_GITHUB_TOKEN GITHUB_TOKEN

warn() { echo "::warning title=mcp-lockcheck::$*"; }

# output KEY VALUE appends a single-line output. Values are ours or paths;
# one holding a line break is refused rather than written.
output() {
	case "$2" in
	*$'\n'* | *$'\r'*)
		warn "output $1 not set: its value holds a line break"
		return
		;;
	esac
	if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi
}

# words LIST prints the items of a comma- or newline-separated list, trimmed.
words() {
	printf '%s\n' "$1" | tr ',' '\n' | while IFS= read -r w; do
		w="${w#"${w%%[![:space:]]*}"}"
		w="${w%"${w##*[![:space:]]}"}"
		if [ -n "$w" ]; then printf '%s\n' "$w"; fi
	done
}

sha() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi | cut -c1-12; }

wd="${INPUT_WORKING_DIRECTORY:-.}"
lockfile="${INPUT_LOCK:-mcp-lock.json}"
outdir=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-lockcheck.XXXXXX")
report="$outdir/report.json"
comment_md="$outdir/comment.md"
summary_md="$outdir/summary.md"
sarif="${INPUT_SARIF_FILE:-}"
if [ -z "$sarif" ]; then sarif="$outdir/mcp-lockcheck.sarif"; fi

# Findings point at files relative to where check ran; code scanning and
# annotations want them relative to the repository root.
prefix=""
case "$wd" in
/*) warn "working-directory is absolute: file locations in SARIF and annotations are relative to it" ;;
*)
	prefix="${wd#./}"
	prefix="${prefix%/}"
	if [ "$prefix" = "." ]; then prefix=""; fi
	;;
esac

# Code scanning keeps one analysis per (tool, category): two checks in one
# workflow (a matrix, two lockfiles) must not replace each other's results.
category="${INPUT_CATEGORY:-}"
if [ -z "$category" ]; then
	category="mcp-lockcheck/${GITHUB_JOB:-job}"
	key="${RUNNER_OS:-}|$wd|$lockfile|${INPUT_CONFIG:-}|${INPUT_SERVERS:-}"
	# A deep and a quick check of the same lock are two analyses.
	if [ -n "${INPUT_PROFILE:-}" ] && [ "$INPUT_PROFILE" != quick ]; then key="$key|$INPUT_PROFILE"; fi
	if [ "$key" != "|.|mcp-lock.json||" ]; then category="$category/$(printf '%s' "$key" | sha)"; fi
fi

# The strict sandbox needs unprivileged user namespaces. GitHub's
# ubuntu-24.04 runners restrict them through AppArmor; the runner user may
# sudo, so lift the restriction for this job, only when it is on. Where it
# cannot be lifted, check stops with exit 2 and says why: strict is never
# quietly replaced by less.
sandbox="${INPUT_SANDBOX:-strict}"
if [ "$sandbox" = strict ] && [ "$(uname -s)" = Linux ]; then
	restrict=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
	if [ -r "$restrict" ] && [ "$(cat "$restrict")" = 1 ]; then
		if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
			echo "Allowing unprivileged user namespaces for the strict sandbox (sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)"
			sudo -n sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0 || warn "could not lift the AppArmor restriction on user namespaces: the strict sandbox will refuse to run"
		else
			warn "AppArmor restricts unprivileged user namespaces and sudo is not available: the strict sandbox will refuse to run (set kernel.apparmor_restrict_unprivileged_userns=0 on the runner)"
		fi
	fi
fi
if [ "$sandbox" != strict ]; then
	warn "sandbox: $sandbox does not contain a hostile server (it can read what the runner user can read, write to the workspace and the runner's files, and reach the network); use sandbox: strict"
fi

args=(check --format text --json "$report" --markdown "$comment_md" --summary "$summary_md" --automation-id "$category")
# The default lock is not named, so a repository adopting the check (no lock
# yet) gets its servers reported as unpinned; a lock the workflow names must
# exist.
if [ -n "${INPUT_LOCK:-}" ] && [ "$INPUT_LOCK" != mcp-lock.json ]; then args+=(--lock "$lockfile"); fi
if [ -n "${INPUT_FAIL_ON:-}" ]; then args+=(--fail-on "$INPUT_FAIL_ON"); fi
if [ -n "${INPUT_SANDBOX:-}" ]; then args+=(--sandbox "$INPUT_SANDBOX"); fi
# The profile is passed only when given: --profile on the command line
# wins over a policy's per-server profile, and the default must not.
if [ -n "${INPUT_PROFILE:-}" ]; then args+=(--profile "$INPUT_PROFILE"); fi
if [ -n "${INPUT_WARMUP_CALLS:-}" ]; then args+=(--warmup-calls "$INPUT_WARMUP_CALLS"); fi
if [ -n "${INPUT_LAUNCHES:-}" ]; then args+=(--launches "$INPUT_LAUNCHES"); fi
while IFS= read -r c; do args+=(--config "$c"); done < <(words "${INPUT_CONFIG:-}")
while IFS= read -r s; do args+=(--server "$s"); done < <(words "${INPUT_SERVERS:-}")
# One server's allowance per line: its destinations are comma-separated.
while IFS= read -r n; do
	n="${n#"${n%%[![:space:]]*}"}"
	n="${n%"${n##*[![:space:]]}"}"
	if [ -n "$n" ]; then args+=(--network "$n"); fi
done <<<"${INPUT_NETWORK:-}"

base="${INPUT_BASE:-}"
if [ -n "$base" ]; then
	# A pull_request checkout is one merge commit deep: fetch the base
	# commit so check --base can read the lock as it was there.
	if ! git -C "$wd" cat-file -e "$base^{commit}" 2>/dev/null; then
		git -C "$wd" fetch --quiet --no-tags --depth=1 origin "$base" 2>/dev/null || true
	fi
	# Passed even when the fetch failed: check --base then stops with exit 2
	# and says the base is missing. A required check that silently skipped
	# the review of what the pull request approves would fail open.
	args+=(--base "$base")
fi

# args: split on whitespace only; no quotes, globs or expansions are
# interpreted (an input is data, not shell).
while IFS= read -r line; do
	read -r -a ws <<<"$line" || true
	if [ "${#ws[@]}" -gt 0 ]; then args+=("${ws[@]}"); fi
done < <(printf '%s\n' "${INPUT_ARGS:-}")

# The command line quotes inputs and config paths: a "##[" anywhere in a
# line is a workflow command to the runner, so it is spelled escaped (the
# line starts with our own word, so a leading "::" cannot occur).
printf '%s\n' "mcp-lockcheck ${args[*]}" | sed 's/##\[/##\\u{005B}/g'
(cd "$wd" && "$bin" "${args[@]}")
code=$?
output exit-code "$code"
output category "$category"

if [ ! -s "$report" ]; then
	output drift-detected false
	output held-servers ""
	output findings-count 0
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		printf '## mcp-lockcheck\n\nThe check could not run (exit code %s): see the step log.\n' "$code" >>"$GITHUB_STEP_SUMMARY"
	fi
	exit 0
fi
output report-file "$report"
output comment-file "$comment_md"

merge=("$bin" merge "$report" --format annotations --sarif "$sarif" --lock "$lockfile" --automation-id "$category" --github-output)
if [ -n "$prefix" ]; then merge+=(--path-prefix "$prefix"); fi
"${merge[@]}"
mcode=$?
if [ "$mcode" -eq 2 ]; then
	warn "SARIF and step outputs could not be written (exit 2)"
else
	output sarif-file "$sarif"
fi

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$summary_md" >>"$GITHUB_STEP_SUMMARY"; fi

want_comment="${INPUT_COMMENT:-auto}"
if [ "$want_comment" = auto ]; then
	want_comment=false
	if [ "${GITHUB_EVENT_NAME:-}" = pull_request ]; then want_comment=true; fi
fi
if [ "$want_comment" = true ]; then
	if [ -z "$token" ]; then
		warn "comment: true but no github-token: no pull request comment"
	else
		GITHUB_TOKEN="$token" "$bin" comment --from "$report" --lock "$lockfile" --best-effort
	fi
fi
exit 0
