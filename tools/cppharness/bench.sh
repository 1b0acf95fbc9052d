#!/usr/bin/env bash
# bench-cpu-harness: `mlperf-host run --plugin onnx-ort` against a CPU
# vendor's kind of harness, the official C++ LoadGen driving ONNX Runtime
# through its C API (cppharness, harness.cc), on the same model, samples,
# settings, threads and batch. Rounds interleave the two sides (the order
# alternates); each side's numbers come from its own mlperf_log_summary.txt
# and mlperf_log_detail.txt, its CPU time (user + system, children
# included: the plugin's subprocess) from bash's `time`.
#
# Environment: MLPERF_HOST, CPPHARNESS, ORT_LIB, PLUGIN_DIRS (bin/plugins),
# PERF_MODELS (resnet50.onnx, mobilenetv2.onnx), FASHION_MODEL, WORK (data
# sets and logs), and the knobs: ROUNDS (3), DURATION_MS (10000), BATCH (8),
# MODELS (fashion,mobilenetv2,resnet50), SCENARIOS (Offline,SingleStream),
# OFFLINE (INSTANCESxTHREADS, 2x1), SINGLESTREAM (1x2), and VARIANTS: the
# mlperf-host sides, separated by ';', each a space-separated list of --set
# KEY=VALUE ('' is the defaults), e.g. ';host.shared_rings=off'. BASELINE,
# when set, is a directory with another build (its mlperf-host and
# plugins/, e.g. main before a change): it adds the side base, defaults.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${MLPERF_HOST:?}" "${CPPHARNESS:?}" "${ORT_LIB:?}" "${PLUGIN_DIRS:?}" "${PERF_MODELS:?}" "${FASHION_MODEL:?}" "${WORK:?}"
ROUNDS=${ROUNDS:-3}
DURATION_MS=${DURATION_MS:-10000}
BATCH=${BATCH:-8}
MODELS=${MODELS:-fashion,mobilenetv2,resnet50}
SCENARIOS=${SCENARIOS:-Offline,SingleStream}
OFFLINE=${OFFLINE:-2x1}
SINGLESTREAM=${SINGLESTREAM:-1x2}
VARIANTS=${VARIANTS:-}
BASELINE=${BASELINE:-}
abs() { realpath "$1"; }
MLPERF_HOST=$(abs "$MLPERF_HOST") CPPHARNESS=$(abs "$CPPHARNESS") ORT_LIB=$(abs "$ORT_LIB")
PLUGIN_DIRS=$(abs "$PLUGIN_DIRS") PERF_MODELS=$(abs "$PERF_MODELS") FASHION_MODEL=$(abs "$FASHION_MODEL")
mkdir -p "$WORK"
WORK=$(abs "$WORK")

# The data sets: 256 synthetic 3×224×224 float32 images, and the bundled
# Fashion-MNIST subset (1000 uint8 1×28×28 images), both as .npy directories.
if [[ ! -f $WORK/img224/val_map.txt ]]; then
	(cd "$ROOT" && go run ./tools/cppharness/gensamples -out "$WORK/img224" -n 256)
fi
if [[ ! -f $WORK/fashion/val_map.txt ]]; then
	"$MLPERF_HOST" dataset export --format npy "$WORK/fashion" >/dev/null
fi

# model: its file, data set, sample count, Offline target_qps (sized so a
# run lasts about DURATION_MS on two cores) and SingleStream target latency
# (ms: below the model's, so that the LoadGen generates queries enough for
# DURATION_MS; the run stops once it has lasted that long).
declare -A FILE DATA COUNT QPS LAT
FILE[fashion]=$FASHION_MODEL DATA[fashion]=$WORK/fashion COUNT[fashion]=1000 QPS[fashion]=30000 LAT[fashion]=0.02
FILE[mobilenetv2]=$PERF_MODELS/mobilenetv2.onnx DATA[mobilenetv2]=$WORK/img224 COUNT[mobilenetv2]=256 QPS[mobilenetv2]=400 LAT[mobilenetv2]=2
FILE[resnet50]=$PERF_MODELS/resnet50.onnx DATA[resnet50]=$WORK/img224 COUNT[resnet50]=256 QPS[resnet50]=40 LAT[resnet50]=20

RUNS=$WORK/runs-$(date -u +%Y%m%dT%H%M%S)
RESULTS=$RUNS/results.tsv
mkdir -p "$RUNS"
echo "cpu-harness: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); rounds $ROUNDS, min_duration ${DURATION_MS} ms," \
	"Offline instances×threads $OFFLINE batch $BATCH, SingleStream instances×threads $SINGLESTREAM;" \
	"mlperf-host variants '$VARIANTS'; logs in $RUNS"
printf 'round\tmodel\tscenario\tside\tsamples_per_s\tp50_ms\tp90_ms\tcpu_s\tsamples\n' >"$RESULTS"

# detail KEY FILE prints the value of the detail log's KEY.
detail() { sed -n "s/.*\"key\": \"$1\", \"value\": \([0-9.e+]*\),.*/\1/p" "$2" | head -1; }
# summary LABEL FILE prints the summary's number after "LABEL:".
summary() { sed -n "s/^$1 *: *\([0-9.e+]*\).*/\1/p" "$2" | head -1; }

# The sides: cpp, and mlperf-host with each variant's settings.
IFS=';' read -r -a variants <<<"$VARIANTS"
((${#variants[@]})) || variants=("")
declare -A SETS
all_sides=(cpp)
for v in "${variants[@]}"; do
	name=mlperf-host${v:+[$v]}
	SETS[$name]=$v
	all_sides+=("$name")
done
if [[ -n $BASELINE ]]; then
	BASELINE=$(abs "$BASELINE")
	all_sides+=(base)
fi

# run SIDE MODEL SCENARIO ROUND: one test, its line appended to RESULTS.
run() {
	local side=$1 model=$2 scenario=$3 round=$4 layout instances threads dir
	local -a sets=()
	for kv in ${SETS[$side]:-}; do sets+=(--set "$kv"); done
	[[ $scenario == Offline ]] && layout=$OFFLINE || layout=$SINGLESTREAM
	instances=${layout%x*} threads=${layout#*x}
	dir=$RUNS/$model/$scenario/$(tr -c 'A-Za-z0-9.=_\n-' _ <<<"$side")-$round
	mkdir -p "$dir/out"
	cat >"$dir/user.conf" <<-CONF
		resnet50.*.performance_sample_count_override = ${COUNT[$model]}
		resnet50.Offline.target_qps = ${QPS[$model]}
		resnet50.Offline.min_duration = $DURATION_MS
		resnet50.Offline.min_query_count = 1
		resnet50.SingleStream.target_latency = ${LAT[$model]}
		resnet50.SingleStream.min_duration = $DURATION_MS
		resnet50.SingleStream.min_query_count = 100
	CONF
	local cmd
	if [[ $side == cpp ]]; then
		cmd=("$CPPHARNESS" --lib "$ORT_LIB" --model "${FILE[$model]}" --data "${DATA[$model]}" --user-conf user.conf
			--model-name resnet50 --scenario "$scenario" --instances "$instances" --threads "$threads" --batch "$BATCH" --out out)
	else
		local host=$MLPERF_HOST plugins=$PLUGIN_DIRS
		[[ $side == base ]] && host=$BASELINE/mlperf-host plugins=$BASELINE/plugins
		cmd=("$host" run --plugin onnx-ort --plugin-dirs "$plugins" --benchmark resnet50 --model "${FILE[$model]}"
			--dataset "${DATA[$model]}" --scenario "$scenario" --user-conf user.conf --out out --progress never
			--set onnx-ort.engine=ort --set onnx-ort.response=class --set onnx-ort.instances="$instances"
			--set onnx-ort.threads="$threads" --set onnx-ort.batch="$BATCH" "${sets[@]}")
	fi
	echo "${cmd[*]}" >"$dir/command"
	local TIMEFORMAT='%U %S'
	# Each side runs in its own directory: no audit.config is picked up.
	if ! { time (cd "$dir" && "${cmd[@]}" >log.txt 2>&1); } 2>"$dir/time"; then
		# An INVALID result (Offline faster than its target_qps) exits non-zero
		# on mlperf-host's side; the summary still holds the numbers.
		[[ -f $dir/out/mlperf_log_summary.txt ]] || { cat "$dir/log.txt" >&2; exit 1; }
	fi
	local s=$dir/out/mlperf_log_summary.txt d=$dir/out/mlperf_log_detail.txt
	local sps p50 p90 cpu samples
	sps=$(summary 'Samples per second' "$s")
	p50=$(summary '50.00 percentile latency (ns)' "$s")
	p90=$(summary '90.00 percentile latency (ns)' "$s")
	cpu=$(awk '{print $1 + $2}' "$dir/time")
	samples=$(($(detail result_query_count "$d") * $(detail effective_samples_per_query "$d")))
	sps=${sps:-0} # SingleStream's summary has none
	printf '%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\n' "$round" "$model" "$scenario" "$side" "$sps" \
		"$(awk -v v="$p50" 'BEGIN { print v / 1e6 }')" "$(awk -v v="$p90" 'BEGIN { print v / 1e6 }')" "$cpu" "$samples" |
		tee -a "$RESULTS"
}

IFS=, read -r -a models <<<"$MODELS"
IFS=, read -r -a scenarios <<<"$SCENARIOS"
for ((r = 1; r <= ROUNDS; r++)); do
	for model in "${models[@]}"; do
		for scenario in "${scenarios[@]}"; do
			# Odd rounds run the sides in order, even rounds in reverse.
			sides=("${all_sides[@]}")
			((r % 2)) || mapfile -t sides < <(printf '%s\n' "${all_sides[@]}" | tac)
			for side in "${sides[@]}"; do run "$side" "$model" "$scenario" "$r"; done
		done
	done
done
echo "cpu-harness: load after $(cut -d' ' -f1-3 /proc/loadavg)"

# The table: per model and scenario, each side's median and the median and
# range of the per-round ratios mlperf-host / C++ (samples/s: below 1 is
# slower; latency and CPU per sample: above 1 is slower).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f–%.3f", lo, hi }'; }
# column MODEL SCENARIO SIDE FIELD prints one side's FIELD per round (field
# 10 is CPU ms per sample).
column() {
	awk -F'\t' -v m="$1" -v s="$2" -v d="$3" -v f="$4" \
		'NR > 1 && $2 == m && $3 == s && $4 == d { if (f == 10) print 1000 * $8 / $9; else print $f }' "$RESULTS"
}
echo
echo "| model | scenario | metric | side | C++ LoadGen + ORT (median) | side (median) | side / C++ (median of rounds) | range |"
echo "|---|---|---|---|---:|---:|---:|---:|"
for model in "${models[@]}"; do
	for scenario in "${scenarios[@]}"; do
		if [[ $scenario == Offline ]]; then metrics=("5:samples/s" "10:CPU ms/sample"); else metrics=("6:p50 ms" "7:p90 ms" "10:CPU ms/sample"); fi
		for m in "${metrics[@]}"; do
			f=${m%%:*} name=${m#*:}
			for side in "${all_sides[@]:1}"; do
				ratios=$(paste <(column "$model" "$scenario" "$side" "$f") <(column "$model" "$scenario" cpp "$f") |
					awk '$2 > 0 { printf "%.4f\n", $1 / $2 }')
				printf '| %s | %s | %s | %s | %.4g | %.4g | %.3f | %s |\n' "$model" "$scenario" "$name" "$side" \
					"$(column "$model" "$scenario" cpp "$f" | median)" "$(column "$model" "$scenario" "$side" "$f" | median)" \
					"$(median <<<"$ratios")" "$(range <<<"$ratios")"
			done
		done
	done
done
