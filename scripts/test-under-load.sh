#!/usr/bin/env bash
# Runs `make test` while CPU burners keep every core busy, as on a shared CI
# machine, and reports how long it took. BURNERS sets how many burners run
# (default: one per core, `nproc`); TEST_TARGET the make target (default
# test). The burners are ended however the run ends (success, failure,
# Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")/.."
cores=$(nproc)
burners=${BURNERS:-$cores}
target=${TEST_TARGET:-test}

pids=()
stop_burners() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  pids=()
}
trap stop_burners EXIT
trap 'exit 130' INT TERM

for _ in $(seq "$burners"); do
  # A busy loop in a subshell: one core's worth of CPU demand, no I/O.
  ( while :; do :; done ) &
  pids+=("$!")
done

echo "test-under-load: $burners CPU burners on $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
status=0
${MAKE:-make} --no-print-directory "$target" || status=$?
elapsed=$(( $(date +%s) - start ))
# The CPU time make and its children used (the burners, not waited for
# yet, are not in it): what the tests cost, whatever else ran.
# `times` in a command substitution would report the subshell's (empty)
# children, so it writes to a file from this shell.
times_file=$(mktemp)
times > "$times_file"
cpu=$(tail -n 1 "$times_file")
rm -f "$times_file"
stop_burners
echo "test-under-load: make $target exited $status after ${elapsed} s ($(( elapsed / 60 )) min $(( elapsed % 60 )) s) with $burners burners on $cores cores; load now $(cut -d' ' -f1-3 /proc/loadavg)"
echo "test-under-load: CPU time of make $target (user, system): $cpu"
exit "$status"
