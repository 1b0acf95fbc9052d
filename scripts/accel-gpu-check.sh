#!/usr/bin/env bash
# accel-gpu-check: the tensorrt plugin on a real CUDA GPU without TensorRT.
#
# It links the fake TensorRT shim (whose "engine" copies each input row to
# the output: an identity model) against the real libcudart, writes 1024
# ResNet-sized samples (3x224x224 uint8, .npy), measures pinned
# host-to-device bandwidth, then runs through mlperf-host an Offline test
# and a Server peak search (find-peak), with samples in host memory (the
# default, as the rules require), and prints
#
#   gpu-check: offline=<samples/s> server=<qps> ratio=<server/offline> h2d_limit=<samples/s>
#
# where h2d_limit is the measured bandwidth over the sample size. With
# PyTorch importable (python3 -c 'import torch'), it also runs SingleStream
# and prints its p50 next to PyTorch's for the same work.
#
# Environment: MLPERF_HOST_CUDART (the libcudart.so.N to use; found when
# unset), GPU_CHECK_DIR (work directory, default $TMPDIR/accel-gpu-check),
# GPU_CHECK_OPTIONS (extra --set arguments for every run, e.g.
# "--set tensorrt.streams=4 --set tensorrt.gather=kernel"),
# GPU_CHECK_SECONDS (Offline duration, default 10), PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."

work=${GPU_CHECK_DIR:-${TMPDIR:-/tmp}/accel-gpu-check}
seconds=${GPU_CHECK_SECONDS:-10}
python=${PYTHON:-python3}
mkdir -p "$work"

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
cudart=$(find_cudart)
echo "accel-gpu-check: libcudart $cudart, work in $work" >&2

# The plugin, the host and the fake shim linked against the real runtime.
make -s build accel-plugins >&2
shim=$work/libmlph_trt.so
gcc -shared -fPIC -O2 -I plugins/tensorrt/shim -o "$shim" plugins/tensorrt/trt/testdata/fake/faketrt.c \
	"$cudart" -Wl,-rpath,"$(dirname "$cudart")" -lpthread

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
plan=$work/identity.plan
printf 'faketrt 1\ninput x uint8 -1x3x224x224 max=256\noutput y int32 -1x1\n' >"$plan"

# Pinned host-to-device bandwidth, from the plugin's own CUDA binding.
h2d=$(MLPERF_HOST_DEVICE=1 MLPERF_HOST_CUDART=$cudart go test -count=1 -run '^TestHardwareH2D$' -v \
	./plugins/tensorrt/trt/ | sed -n 's/.*h2d_bytes_per_s=\([0-9]*\).*/\1/p')
[ -n "$h2d" ] || { echo "accel-gpu-check: the bandwidth test printed no h2d_bytes_per_s" >&2; exit 1; }
h2d_limit=$(( h2d / size ))

run() { # OUT SCENARIO [ARGS...]
	local out=$1 scenario=$2
	shift 2
	# shellcheck disable=SC2086
	bin/mlperf-host run --benchmark resnet50 --plugin tensorrt --plugin-dirs bin/plugins --dataset "$data" \
		--scenario "$scenario" --out "$work/$out" --progress never \
		--model "$plan" --set tensorrt.cudart="$cudart" --set tensorrt.shim="$shim" \
		${GPU_CHECK_OPTIONS:-} "$@" >"$work/$out.log" 2>&1 || true
}
field() { sed -n "s/^$2 *: *\([0-9.]*\).*/\1/p" "$work/$1/mlperf_log_summary.txt" | head -1; }

run offline Offline --set settings.min_duration=$((seconds * 1000)) \
	--set settings.target_qps=$((h2d_limit > 0 ? 2 * h2d_limit : 100000))
offline=$(field offline "Samples per second")
[ -n "$offline" ] || { echo "accel-gpu-check: the Offline run failed, see $work/offline.log" >&2; exit 1; }

calc() { awk "BEGIN { print $1 }"; }
# The peak search starts from a QPS that must meet the latency bound: half
# of Offline, else a quarter of that, and so on, three times.
start=$(printf '%.0f' "$(calc "$offline / 2")")
server=
for _ in 1 2 3; do
	run server Server --mode find-peak --set settings.target_qps="$start" \
		--set settings.min_duration=3000 --set settings.min_query_count=$(( start * 3 > 10000 ? start * 3 : 10000 ))
	server=$(sed -n 's/.*Found peak performance field: \([0-9.]*\).*/\1/p' "$work/server/mlperf_log_detail.txt" \
		2>/dev/null | tail -1)
	[ -n "$server" ] && break
	start=$(( start / 4 > 1 ? start / 4 : 1 ))
done
if [ -z "$server" ]; then
	echo "accel-gpu-check: no Server peak found down to $start QPS, see $work/server.log" >&2
	server=0
fi
ratio=$(printf '%.3f' "$(calc "$server / $offline")")
printf 'gpu-check: offline=%.0f server=%.0f ratio=%s h2d_limit=%d\n' "$offline" "$server" "$ratio" "$h2d_limit"

if "$python" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	run singlestream SingleStream --set settings.min_duration=5000 --set settings.min_query_count=10000
	ours=$(field singlestream "50.00 percentile latency (ns)")
	torch=$("$python" plugins/tensorrt/scripts/torch_singlestream.py)
	printf 'gpu-check: singlestream_p50_us=%.1f torch_p50_us=%.1f ratio=%.2f\n' "$(calc "$ours / 1000")" \
		"$torch" "$(calc "$ours / 1000 / $torch")"
else
	echo "gpu-check: PyTorch with CUDA not importable by $python: no SingleStream comparison"
fi
