#!/usr/bin/env bash
# accel-gpu-check: the tensorrt plugin on a real CUDA GPU without TensorRT.
#
# It links the fake TensorRT shim (whose "engine" copies each input row to
# the output: an identity model) against the real libcudart, writes 1024
# ResNet-sized samples (3x224x224 uint8, .npy), measures pinned
# host-to-device bandwidth, then runs through mlperf-host, with samples in
# host memory (the default, as the rules require) and the plugin's default
# Server batching (batches across queries, a fifth of the bound as the
# deadline), an Offline test and a Server peak search, and prints
#
#   gpu-check: offline=<samples/s> server=<qps> ratio=<server/offline> h2d_limit=<samples/s>
#
# where h2d_limit is the measured bandwidth over the sample size and server
# the highest Server QPS whose performance run is VALID under the latency
# bound (15 ms, ResNet-50's): the LoadGen's own peak search
# (FindPeakPerformance), then a confirming performance run at its peak,
# stepping down 5% at a time until one is VALID. With PyTorch importable
# (python3 -c 'import torch'), it also runs SingleStream and prints its p50
# next to PyTorch's for the same work, at the plugin's defaults and with
# GPU_CHECK_SINGLESTREAM_OPTIONS (default: spin_wait and cuda_graphs on).
#
# ACCEL_CHECK_FAKE=1 runs the same pipeline with no GPU: the fake CUDA
# runtime (plugins/tensorrt/trt/testdata/fake) stands for libcudart, its
# device running one kernel at a time of FAKE_TRT_DELAY (BASE_NS,PER_SAMPLE_NS
# per batch, default 1 ms + 200 us per sample) on one device, on the bundled Fashion-MNIST
# samples, under a 100 ms bound (a shared 2-core VM does not keep 15 ms at
# p99), and prints sim_limit, the simulated device's Offline ceiling, in
# place of h2d_limit.
#
# ACCEL_CHECK_PLUGIN=qaic (with ACCEL_CHECK_FAKE=1) runs the qaic plugin
# through the same pipeline on the fake AIC runtime
# (plugins/qaic/aic/testdata/fake): one card, one activation with two exec
# objects, a program compiled for batch 64 whose every run (a short batch is
# padded, as on a card) takes FAKEQAIC_DELAY (BASE_NS,PER_ROW_NS, the same
# default as FAKE_TRT_DELAY's).
#
# ACCEL_CHECK_BUNDLE=FILE.tar.gz runs from the binaries `make
# accel-gpu-check-bundle` packed (mlperf-host, the tensorrt plugin and the
# tensorrt package's test binary, for the bandwidth test), on a GPU machine
# without Go; it then also runs TestHardwareCUDA and prints its lines.
#
# Environment: MLPERF_HOST_CUDART (the libcudart.so.N to use; found when
# unset), GPU_CHECK_DIR (work directory, default $TMPDIR/accel-gpu-check),
# GPU_CHECK_OPTIONS (extra --set arguments for every run, e.g.
# "--set tensorrt.streams=4 --set tensorrt.gather=kernel", or
# "--set qaic.set_size=4" for qaic),
# GPU_CHECK_SECONDS (Offline duration, default 10), GPU_CHECK_SERVER_SECONDS
# (each Server trial, default 3), GPU_CHECK_BOUND_MS (the Server latency
# bound), PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."

fake=${ACCEL_CHECK_FAKE:-0}
plugin=${ACCEL_CHECK_PLUGIN:-tensorrt}
case $plugin/$fake in
tensorrt/* | qaic/1) ;;
qaic/*)
	echo "accel-gpu-check: the qaic plugin runs here against its fake runtime only: set ACCEL_CHECK_FAKE=1" >&2
	exit 2
	;;
*)
	echo "accel-gpu-check: ACCEL_CHECK_PLUGIN must be tensorrt or qaic, got $plugin" >&2
	exit 2
	;;
esac
suffix=
[ "$plugin" = tensorrt ] || suffix=-$plugin
work=${GPU_CHECK_DIR:-${TMPDIR:-/tmp}/accel-gpu-check$suffix}
seconds=${GPU_CHECK_SECONDS:-10}
server_seconds=${GPU_CHECK_SERVER_SECONDS:-3}
python=${PYTHON:-python3}
mkdir -p "$work"
work=$(cd "$work" && pwd)
bundle=${ACCEL_CHECK_BUNDLE:-}

find_cudart() {
	if [ -n "${MLPERF_HOST_CUDART:-}" ]; then
		echo "$MLPERF_HOST_CUDART"
		return
	fi
	for c in /usr/local/cuda/lib64/libcudart.so.13 /usr/local/cuda/lib64/libcudart.so.12 \
		/usr/local/cuda/lib64/libcudart.so; do
		[ -e "$c" ] && { echo "$c"; return; }
	done
	c=$(ldconfig -p 2>/dev/null | awk '/libcudart\.so\.[0-9]+ /{print $NF; exit}')
	[ -n "$c" ] && { echo "$c"; return; }
	# PyTorch's wheel ships one.
	c=$("$python" -c 'import nvidia.cuda_runtime, os, glob; d = os.path.join(nvidia.cuda_runtime.__path__[0], "lib"); print(sorted(glob.glob(d + "/libcudart.so.*"))[-1])' 2>/dev/null || true)
	[ -n "$c" ] && { echo "$c"; return; }
	echo "accel-gpu-check: no libcudart found: set MLPERF_HOST_CUDART=/path/to/libcudart.so.N" >&2
	exit 1
}

if [ -n "$bundle" ]; then
	rm -rf "$work/bundle"
	mkdir -p "$work/bundle"
	tar -xzf "$bundle" -C "$work/bundle"
	host=$work/bundle/mlperf-host
	plugin_dirs=$work/bundle/plugins
else
	make -s build accel-plugins >&2
	host=bin/mlperf-host
	plugin_dirs=bin/plugins
fi
# hardware_test PATTERN: the tensorrt package's hardware tests matching
# PATTERN on the GPU, verbose.
hardware_test() {
	if [ -n "$bundle" ]; then
		# The test binary cannot find the fakes' sources (it is built with
		# -trimpath): it takes the fake shim the script links.
		(cd plugins/tensorrt/trt && MLPERF_HOST_DEVICE=1 MLPERF_HOST_CUDART=$cudart MLPERF_HOST_FAKE_SHIM=$shim \
			"$work/bundle/trt.test" -test.count=1 -test.run "$1" -test.v)
	else
		MLPERF_HOST_DEVICE=1 MLPERF_HOST_CUDART=$cudart go test -count=1 -run "$1" -v ./plugins/tensorrt/trt/
	fi
}
calc() { awk "BEGIN { print $1 }"; }
shim=$work/libmlph_trt.so
if [ "$fake" = 1 ]; then
	# The bundled Fashion-MNIST samples, batches of up to 64.
	bound_ms=${GPU_CHECK_BOUND_MS:-100}
	batch=64
	data_args=()
	limit_name=sim_limit
fi
if [ "$fake" = 1 ] && [ "$plugin" = qaic ]; then
	# The fake AIC runtime: one card, one activation running one batch at
	# a time.
	library=$work/libQAic.so
	gcc -shared -fPIC -O2 -I plugins/internal/accel/acceltest/cfake -o "$library" \
		plugins/qaic/aic/testdata/fake/fakeqaic.c -lpthread
	export FAKEQAIC_DELAY=${FAKEQAIC_DELAY:-1000000,200000}
	delay=$FAKEQAIC_DELAY
	plugin_env=(MLPERF_QAIC_LIBRARY="$library" MLPERF_QAIC_DEVICES=0)
	plan=$work/fashion.qpc
	printf 'fakeqpc 1\nbatch %d\ncores 4\ninput x 784\noutput y 40\n' "$batch" >"$plan"
elif [ "$fake" = 1 ]; then
	# The fake runtime, its device running one kernel at a time.
	cudart=$work/libcudart.so.12
	gcc -shared -fPIC -O2 -I plugins/internal/accel/acceltest/cfake -o "$cudart" \
		plugins/tensorrt/trt/testdata/fake/fakecudart.c -Wl,-soname,libcudart.so.12 -lpthread
	export FAKECUDA_SERIAL=1 FAKECUDA_DEVICES=1 FAKE_TRT_DELAY=${FAKE_TRT_DELAY:-1000000,200000}
	delay=$FAKE_TRT_DELAY
	plan=$work/fashion.plan
	printf 'faketrt 1\ninput x uint8 -1x1x28x28 max=%d\noutput y float32 -1x10\n' "$batch" >"$plan"
else
	cudart=$(find_cudart)
	bound_ms=${GPU_CHECK_BOUND_MS:-15}
	# 1024 ResNet-sized samples, one .npy each.
	size=$((3 * 224 * 224))
	data=$work/data
	if [ "$(ls "$data"/*.npy 2>/dev/null | wc -l)" != 1024 ]; then
		mkdir -p "$data"
		dict="{'descr': '|u1', 'fortran_order': False, 'shape': (3, 224, 224), }"
		pad=$(( (64 - (10 + ${#dict} + 1) % 64) % 64 ))
		hlen=$(( ${#dict} + pad + 1 ))
		header=$(printf '%s%*s' "$dict" "$pad" '')
		for i in $(seq -w 0 1023); do
			{
				printf '\x93NUMPY\x01\x00'
				printf "\\x$(printf %02x $((hlen % 256)))\\x$(printf %02x $((hlen / 256)))"
				printf '%s\n' "$header"
				head -c "$size" /dev/urandom
			} >"$data/sample$i.npy"
		done
	fi
	data_args=(--benchmark resnet50 --dataset "$data")
	plan=$work/identity.plan
	printf 'faketrt 1\ninput x uint8 -1x3x224x224 max=256\noutput y int32 -1x1\n' >"$plan"
	# Pinned host-to-device bandwidth, from the plugin's own CUDA binding.
	h2d=$(hardware_test '^TestHardwareH2D$' | sed -n 's/.*h2d_bytes_per_s=\([0-9]*\).*/\1/p')
	[ -n "$h2d" ] || { echo "accel-gpu-check: the bandwidth test printed no h2d_bytes_per_s" >&2; exit 1; }
	limit=$(( h2d / size ))
	limit_name=h2d_limit
fi
if [ "$fake" = 1 ]; then
	# One device: a full batch every BASE + batch x PER_SAMPLE.
	limit=$(calc "int($batch * 1e9 / (${delay%,*} + $batch * ${delay#*,}))")
fi
if [ "$plugin" = tensorrt ]; then
	echo "accel-gpu-check: libcudart $cudart, work in $work, Server bound $bound_ms ms" >&2
	# The fake shim, linked against the runtime the plugin loads.
	gcc -shared -fPIC -O2 -I plugins/tensorrt/shim -o "$shim" plugins/tensorrt/trt/testdata/fake/faketrt.c \
		"$cudart" -Wl,-rpath,"$(dirname "$cudart")" -lpthread
	# The libraries as start-up options, so that Info lists the devices
	# Load runs on.
	plugin_env=(MLPERF_TENSORRT_CUDART="$cudart" MLPERF_TENSORRT_SHIM="$shim")
else
	echo "accel-gpu-check: $plugin on $library, work in $work, Server bound $bound_ms ms" >&2
fi

runs=0
run() { # OUT SCENARIO [ARGS...]: one mlperf-host run into $work/OUT
	local out=$1 scenario=$2
	shift 2
	runs=$((runs + 1))
	rm -rf "${work:?}/$out"
	# shellcheck disable=SC2086
	env "${plugin_env[@]}" \
		"$host" run "${data_args[@]}" --plugin "$plugin" --plugin-dirs "$plugin_dirs" \
		--scenario "$scenario" --out "$work/$out" --progress never --model "$plan" \
		${GPU_CHECK_OPTIONS:-} "$@" >"$work/$out.log" 2>&1 || true
}
field() { sed -n "s/^$2 *: *\([0-9.]*\).*/\1/p" "$work/$1/mlperf_log_summary.txt" 2>/dev/null | head -1; }
valid() { grep -q '^Result is : VALID' "$work/$1/mlperf_log_summary.txt" 2>/dev/null; }

run offline Offline --set settings.min_duration=$((seconds * 1000)) \
	--set settings.target_qps=$((limit > 0 ? 2 * limit : 100000))
offline=$(field offline "Samples per second")
[ -n "$offline" ] || { echo "accel-gpu-check: the Offline run failed, see $work/offline.log" >&2; exit 1; }

# The Server peak: the LoadGen's FindPeakPerformance from a lower bound
# that meets the latency bound (half of Offline, else halved up to four
# times), widening by doubling and then bisecting to a tenth of a QPS (the
# official defaults); then performance runs from that peak down, 5% at a
# time, until one is VALID.
server_args=(--set settings.target_latency="$bound_ms" --set settings.min_duration=$((server_seconds * 1000))
	--set settings.min_query_count=100)
start=$(printf '%.0f' "$(calc "$offline / 2")")
peak=
for _ in 1 2 3 4 5; do
	run server-peak Server --mode find-peak --set settings.target_qps="$start" "${server_args[@]}"
	peak=$(sed -n 's/.*Found peak performance field: \([0-9.]*\).*/\1/p' "$work/server-peak/mlperf_log_detail.txt" \
		2>/dev/null | tail -1)
	[ -n "$peak" ] && break
	start=$(( start / 2 > 1 ? start / 2 : 1 ))
done
server=0
if [ -z "$peak" ]; then
	echo "accel-gpu-check: no Server QPS met the bound down to $start, see $work/server-peak.log" >&2
else
	q=$peak
	for _ in 1 2 3 4 5 6; do
		run server Server --set settings.target_qps="$q" "${server_args[@]}"
		if valid server; then
			server=$q
			break
		fi
		q=$(printf '%.0f' "$(calc "$q * 0.95")")
	done
	[ "$server" != 0 ] || echo "accel-gpu-check: no performance run VALID from $peak down to $q QPS, see $work/server.log" >&2
fi
ratio=$(printf '%.3f' "$(calc "$server / $offline")")
printf 'gpu-check: offline=%.0f server=%.0f ratio=%s %s=%d\n' "$offline" "$server" "$ratio" "$limit_name" "$limit"
echo "accel-gpu-check: $runs runs; the plugin: $(sed -n 's/^plugin  *//p' "$work/offline.log" | head -1)" >&2

if [ "$fake" = 1 ]; then
	exit 0
fi
if [ -n "$bundle" ]; then
	# The CUDA half for real (no Go here to run `make accel-hw-test`).
	hardware_test '^TestHardwareCUDA$' | grep -E '^(=== RUN|--- |PASS|FAIL|ok)|hw_test' || true
fi
if "$python" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	torch=$("$python" plugins/tensorrt/scripts/torch_singlestream.py)
	# The defaults, then the latency options (GPU_CHECK_SINGLESTREAM_OPTIONS).
	ss_tuned=${GPU_CHECK_SINGLESTREAM_OPTIONS---set tensorrt.spin_wait=true --set tensorrt.cuda_graphs=true}
	for variant in defaults tuned; do
		extra=()
		# shellcheck disable=SC2206
		[ "$variant" = tuned ] && extra=($ss_tuned)
		run "singlestream-$variant" SingleStream --set settings.min_duration=5000 \
			--set settings.min_query_count=10000 "${extra[@]}"
		ours=$(field "singlestream-$variant" "50.00 percentile latency (ns)")
		[ -n "$ours" ] || { echo "gpu-check: SingleStream ($variant) failed, see $work/singlestream-$variant.log"; continue; }
		printf 'gpu-check: singlestream=%s p50_us=%.1f torch_p50_us=%.1f ratio=%.2f\n' "$variant" \
			"$(calc "$ours / 1000")" "$torch" "$(calc "$ours / 1000 / $torch")"
	done
else
	echo "gpu-check: PyTorch with CUDA not importable by $python: no SingleStream comparison"
fi
