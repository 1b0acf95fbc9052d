#!/usr/bin/env bash
# npm-fetch.sh PACKAGE VERSION SHA256 DEST [MEMBER...]: unpacks an npm
# package's tarball (only the named members, paths inside the package,
# when given) into DEST (idempotent). npm pack downloads it and checks it
# against the registry's integrity hash, and runs no install scripts; the
# tarball's sha256 is checked against the pinned one before anything is
# unpacked.
set -euo pipefail
pkg=$1 version=$2 sum=$3 dest=$4
shift 4
members=()
for m in "$@"; do
	members+=("package/$m")
done
stamp="$dest/.npm-$sum"
if [ -f "$stamp" ]; then
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "npm pack $pkg@$version"
(cd "$tmp" && npm pack --silent --ignore-scripts "$pkg@$version" >/dev/null)
tgz=$(ls "$tmp"/*.tgz)
if ! echo "$sum  $tgz" | sha256sum -c --status; then
	echo "npm-fetch: sha256 mismatch for $pkg@$version (want $sum)" >&2
	exit 1
fi
rm -rf "$dest"
mkdir -p "$dest"
tar -xzf "$tgz" -C "$dest" --strip-components=1 "${members[@]}"
touch "$stamp"
