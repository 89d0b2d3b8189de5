#!/usr/bin/env bash
# The install step of action.yml: puts an mcp-lockcheck binary somewhere and
# sets the step output "bin" to its path.
#
#   MCP_LOCKCHECK_BIN  an existing binary to use as it is (tests, self-hosted images)
#   INPUT_INSTALL      source: go build from $GITHUB_ACTION_PATH (Go set up by the
#                      previous step); release: download the release archive for this
#                      runner's OS/arch named in $GITHUB_ACTION_PATH/checksums.txt,
#                      verify its SHA-256 against that file, and cache it in the tool cache.
#
# checksums.txt is committed with each release, so the action at a given ref
# names exactly one version and the hashes of its archives: a download that
# does not match what the ref says is refused.
set -euo pipefail

out() { if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi; }
die() { echo "::error title=mcp-lockcheck install::$*"; exit 1; }

action="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}"

if [ -n "${MCP_LOCKCHECK_BIN:-}" ]; then
	[ -x "$MCP_LOCKCHECK_BIN" ] || die "MCP_LOCKCHECK_BIN=$MCP_LOCKCHECK_BIN is not an executable file"
	out bin "$MCP_LOCKCHECK_BIN"
	exit 0
fi

tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
case "${INPUT_INSTALL:-source}" in
source)
	dest="$tmp/mcp-lockcheck-bin"
	mkdir -p "$dest"
	exe=mcp-lockcheck
	[ "${RUNNER_OS:-}" = "Windows" ] && exe=mcp-lockcheck.exe
	(cd "$action" && go build -trimpath -o "$dest/$exe" ./cmd/mcp-lockcheck)
	out bin "$dest/$exe"
	;;
release)
	case "${RUNNER_OS:-$(uname -s)}" in
	Linux) os=linux ;;
	macOS | Darwin) os=darwin ;;
	Windows) os=windows ;;
	*) die "unsupported runner OS ${RUNNER_OS:-unknown}" ;;
	esac
	case "${RUNNER_ARCH:-$(uname -m)}" in
	X64 | x86_64) arch=amd64 ;;
	ARM64 | arm64 | aarch64) arch=arm64 ;;
	*) die "unsupported runner architecture ${RUNNER_ARCH:-unknown}" ;;
	esac
	sums="$action/checksums.txt"
	[ -f "$sums" ] || die "install: release needs $sums, which this ref of the action does not have (no release at ${ACTION_REF:-this ref}); use install: source"
	# Lines: "<sha256>  mcp-lockcheck_<version>_<os>_<arch>.tar.gz".
	line=$(grep -E "^[0-9a-f]{64}  mcp-lockcheck_[0-9A-Za-z.+-]+_${os}_${arch}\.(tar\.gz|zip)\$" "$sums" | head -n1 || true)
	[ -n "$line" ] || die "checksums.txt names no archive for ${os}/${arch}"
	want=${line%% *}
	file=${line##* }
	version=${file#mcp-lockcheck_}
	version=${version%%_*}
	if [[ "${ACTION_REF:-}" == v* && "${ACTION_REF}" != "v${version}" && "${ACTION_REF}" != "v${version%%.*}" ]]; then
		die "the action's ref ${ACTION_REF} does not match the release v${version} its checksums.txt names"
	fi
	cache="${RUNNER_TOOL_CACHE:-$tmp/tool-cache}/mcp-lockcheck/${version}/${arch}"
	exe=mcp-lockcheck
	[ "$os" = windows ] && exe=mcp-lockcheck.exe
	if [ -f "$cache.complete" ] && [ -x "$cache/$exe" ]; then
		out bin "$cache/$exe"
		exit 0
	fi
	repo="${ACTION_REPOSITORY:-mcp-lockcheck/mcp-lockcheck}"
	url="${GITHUB_SERVER_URL:-https://github.com}/${repo}/releases/download/v${version}/${file}"
	dl="$tmp/$file"
	curl -fsSL --retry 3 -o "$dl" "$url" || die "download of $url failed"
	if command -v sha256sum >/dev/null; then
		got=$(sha256sum "$dl" | cut -d' ' -f1)
	else
		got=$(shasum -a 256 "$dl" | cut -d' ' -f1)
	fi
	[ "$got" = "$want" ] || die "$file has SHA-256 $got, but checksums.txt at this ref says $want: refusing it"
	rm -rf "$cache"
	mkdir -p "$cache"
	case "$file" in
	*.zip) unzip -q "$dl" -d "$cache" ;;
	*) tar -xzf "$dl" -C "$cache" ;;
	esac
	[ -x "$cache/$exe" ] || die "$file holds no $exe"
	touch "$cache.complete"
	out bin "$cache/$exe"
	;;
*)
	die "install: ${INPUT_INSTALL} is not source or release"
	;;
esac
