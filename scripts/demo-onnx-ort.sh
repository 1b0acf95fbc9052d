#!/usr/bin/env bash
# The last step of `make demo`: the same Offline benchmark on the native
# onnx-ort plugin (ONNX Runtime), one line comparing its samples/s with
# the embedded, sandboxed WASM plugin's run, so a new user sees what the
# sandbox costs, and the two runs side by side in OUT/../compare.html
# (`mlperf-host report`). Without ONNX Runtime beside onnx-ort it says how
# to get it and exits 0: the demo needs no download.
#
#   demo-onnx-ort.sh HOST PLUGIN_DIR USER_CONF WASM_LOGS OUT
#
# HOST is bin/mlperf-host, PLUGIN_DIR bin/plugins/onnx-ort, WASM_LOGS the
# WASM run's log directory, OUT where this run's logs go.
set -euo pipefail
host=$1 plugin=$2 conf=$3 wasm=$4 out=$5

lib=""
for f in "$plugin"/libonnxruntime.*; do
  if [ -e "$f" ]; then lib=$f; break; fi
done
if [ -z "$lib" ]; then
  echo "onnx-ort: no ONNX Runtime in $plugin; run \`make ort\`, then \`make demo\` again to compare the sandboxed plugin with --plugin onnx-ort"
  exit 0
fi

# Offline samples/s from a run's summary.
samples_per_s() { awk -F': *' '/^Samples per second/ { print $2 }' "$1/mlperf_log_summary.txt"; }

# The results table goes to OUT/run.txt; the run's header and any
# warning still reach the terminal (stderr).
mkdir -p "$out"
rc=0
"$host" run --plugin onnx-ort --plugin-dirs "$(dirname "$plugin")" --set onnx-ort.engine=ort \
  --scenario Offline --mode performance --user-conf "$conf" --out "$out" >"$out/run.txt" || rc=$?
# 8 is an INVALID result: the run completed (too fast for the expected QPS
# in USER_CONF) and its samples/s stand; any other failure stops the demo.
if [ "$rc" -ne 0 ] && [ "$rc" -ne 8 ]; then
  cat "$out/run.txt"
  exit "$rc"
fi
note=""
if [ "$rc" -eq 8 ]; then note=" (onnx-ort run INVALID: raise target_qps in $conf)"; fi
# demo-wasm.sh wrote which engine the WASM run had beside its logs.
engine=$(cat "$(dirname "$wasm")/engine" 2>/dev/null || echo "default")
awk -v w="$(samples_per_s "$wasm")" -v n="$(samples_per_s "$out")" -v e="$engine" -v note="$note" 'BEGIN {
  printf "sandbox cost, Offline samples/s: onnx (embedded WASM, %s engine) %.0f, onnx-ort (native, ONNX Runtime) %.0f: %.1fx%s\n", e, w, n, n / w, note
}'
"$host" report --html "$(dirname "$out")/compare.html" "$wasm" "$out"
