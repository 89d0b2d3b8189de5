#!/usr/bin/env bash
# Builds the release archives for the six targets, the way
# .github/workflows/release.yml does, so a release can be reproduced (and
# the action's `install: release` tested) locally:
#
#   release/build.sh v1.2.3 [outdir]      (outdir defaults to dist/)
#
# Each archive holds the one binary (mcp-lockcheck, or mcp-lockcheck.exe in
# the Windows zips) built with -trimpath, CGO off, and the tag stamped into
# `mcp-lockcheck --version`. Archive entries have fixed owners and times, so
# the same source and Go version give the same bytes. checksums.txt lists
# the SHA-256 of every archive in the format action/install.sh reads.
set -euo pipefail

tag="${1:?usage: release/build.sh vX.Y.Z [outdir]}"
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] || { echo "release/build.sh: tag $tag is not vX.Y.Z" >&2; exit 2; }
version="${tag#v}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "${2:-$root/dist}" && cd "${2:-$root/dist}" && pwd)"
targets="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"
# Fixed time for archive entries: the commit's, else the epoch.
mtime="$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)"

rm -f "$out/checksums.txt"
for target in $targets; do
	os="${target%/*}" arch="${target#*/}"
	stage="$(mktemp -d)"
	exe=mcp-lockcheck
	[ "$os" = windows ] && exe=mcp-lockcheck.exe
	(cd "$root" && CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
		-ldflags "-s -w -buildid= -X github.com/mcp-lockcheck/mcp-lockcheck/internal/cli.version=$tag" \
		-o "$stage/$exe" ./cmd/mcp-lockcheck)
	touch -d "@$mtime" "$stage/$exe"
	name="mcp-lockcheck_${version}_${os}_${arch}"
	if [ "$os" = windows ]; then
		rm -f "$out/$name.zip"
		(cd "$stage" && TZ=UTC zip -q -X "$out/$name.zip" "$exe")
		file="$name.zip"
	else
		tar -C "$stage" --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -cf - "$exe" | gzip -n -9 >"$out/$name.tar.gz"
		file="$name.tar.gz"
	fi
	rm -rf "$stage"
	(cd "$out" && sha256sum "$file") >>"$out/checksums.txt"
	echo "$out/$file"
done
sort -k2 -o "$out/checksums.txt" "$out/checksums.txt"
echo "$out/checksums.txt"
