#!/usr/bin/env bash
# The first steps of `make demo`: the bundled benchmark on the embedded,
# sandboxed onnx plugin, on the fastest engine it has. The plugin picks it
# at Load: wasinn (ONNX Runtime in the host behind the WASI-NN import; the
# plugin's batching and responses stay in the sandbox) when mlperf-host
# finds the library (`make ort && make build` installs it), else go (our
# engine inside the sandbox on WebAssembly SIMD128 kernels). The accuracy
# run goes first and its log says which engine ran; the Offline
# performance run then takes that engine's user.conf (CONF_DIR/user-ENGINE.conf,
# else CONF_DIR/user.conf), whose target_qps suits the engine's speed.
# The engine's name ends up in OUT/engine.
#
#   demo-wasm.sh HOST CONF_DIR OUT [RUN ARGS...]
set -euo pipefail
host=$1 confs=$2 out=$3
shift 3
mkdir -p "$out"

rc=0
"$host" run --scenario Offline --mode accuracy --user-conf "$confs/user.conf" --out "$out/accuracy" \
  --set host.log_level=info "$@" 2>"$out/accuracy.stderr" || rc=$?
cat "$out/accuracy.stderr" >&2
if [ "$rc" -ne 0 ]; then exit "$rc"; fi
engine=$(sed -n 's/.*msg="onnx: the \([a-z]*\) engine runs the model".*/\1/p' "$out/accuracy.stderr" | head -n 1)
case "$engine" in
  wasinn) what="ONNX Runtime in the host through the WASI-NN import; batching and responses in the sandbox" ;;
  go) what="our Go engine inside the sandbox on WebAssembly SIMD128 kernels; \`make ort && make build\` enables the faster wasinn" ;;
  "") echo "demo: the accuracy run's log does not say which engine ran (see $out/accuracy.stderr)" >&2; exit 1 ;;
  *) what="set by --set onnx.engine" ;;
esac
printf '%s\n' "$engine" >"$out/engine"
echo "sandboxed engine: $engine ($what)"

conf="$confs/user-$engine.conf"
if [ ! -f "$conf" ]; then conf="$confs/user.conf"; fi
"$host" run --scenario Offline --mode performance --user-conf "$conf" --out "$out/performance" --trace \
  --set "onnx.engine=$engine" "$@"
echo "sandboxed engine: $engine, Offline $(awk -F': *' '/^Samples per second/ { print $2 }' "$out/performance/mlperf_log_summary.txt") samples/s"
