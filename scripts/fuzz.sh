#!/usr/bin/env bash
# Runs every native Go fuzz target in the module for FUZZTIME each (default
# 30s). New crashers land in the package's testdata/fuzz/ as regression
# inputs; commit them with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
status=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $target ($fuzztime)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" || status=1
  done
done
exit $status
