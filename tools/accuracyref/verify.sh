#!/usr/bin/env bash
# Runs the official MLPerf accuracy scripts and `mlperf-host accuracy` on
# the same logs (the demo's accuracy run, the fixtures under
# internal/bench/*/testdata and the benchmarks' end-to-end runs) and
# fails unless every pair prints the same result line. Outside `make test`: it needs a clone of mlcommons/inference
# (INFERENCE_REPO: a checkout or a bare mirror; PRM800K_REPO and
# LIVECODEBENCH_REPO the same of openai/prm800k and
# LiveCodeBench/LiveCodeBench, deepseek-r1's submodules, which
# gpt-oss-120b's link to) and Debian's python3 with
# numpy, sklearn, nibabel and pandas, which it installs when run as root.
# What Debian lacks is stood in for by tools/accuracyref/shims (see its
# README). Usage: INFERENCE_REPO=DIR PRM800K_REPO=DIR LIVECODEBENCH_REPO=DIR
# MLPERF_HOST=BIN tools/accuracyref/verify.sh
set -euo pipefail

PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${INFERENCE_REPO:?set INFERENCE_REPO to a clone or bare mirror of mlcommons/inference}"
: "${PRM800K_REPO:?set PRM800K_REPO to a clone or bare mirror of openai/prm800k (deepseek-r1's math grader)}"
: "${LIVECODEBENCH_REPO:?set LIVECODEBENCH_REPO to a clone or bare mirror of LiveCodeBench/LiveCodeBench (deepseek-r1's code grader)}"
: "${MLPERF_HOST:?set MLPERF_HOST to an mlperf-host binary with the onnx plugin embedded (make build)}"
MLPERF_HOST=$(realpath "$MLPERF_HOST")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/verify-accuracy.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

. "$ROOT/tools/accuracyref/debian_packages.sh"
need_debian_packages verify-accuracy python3-numpy python3-sklearn python3-nibabel python3-pandas python3-six python3-scipy python3-pil \
	python3-sympy python3-pylatexenc python3-tqdm
# The MBXP toolchains (mixtral-8x7b), as internal/bench/mixtral's tests
# need them.
need_debian_packages verify-accuracy $(mbxp_debian_packages)

if [[ -d $INFERENCE_REPO/.git || -f $INFERENCE_REPO/.git ]]; then
	REPO=$INFERENCE_REPO
else
	git clone -q --no-checkout "$INFERENCE_REPO" "$WORK/inference"
	git -C "$WORK/inference" checkout -q HEAD -- vision recommendation language speech2text graph compliance multimodal text_to_image 2>/dev/null || true
	REPO=$WORK/inference
fi
echo "official scripts: mlcommons/inference $(git -C "$REPO" rev-parse --short HEAD)"

# B/PACKAGE/testdata holds the fixtures of a benchmark's package.
B=$ROOT/internal/bench
fail=0
# same NAME OFFICIAL_PATTERN OURS -- OFFICIAL...: compares the last line of
# the official output matching the pattern with the first line of ours.
same() {
	local name=$1 pat=$2 ours=$3
	shift 4
	local theirs
	theirs=$("$@" 2>&1 | grep -E "$pat" | tail -1) || true
	if [[ -n $theirs && $theirs == "$ours" ]]; then
		printf 'same     %-22s %s\n' "$name" "$ours"
	else
		printf 'DIFFER   %-22s official: %s\n         %-22s ours:     %s\n' "$name" "$theirs" "" "$ours"
		fail=1
	fi
}
mh() { "$MLPERF_HOST" accuracy "$@" 2>/dev/null | head -1; }

# The demo: an accuracy run, scored with the val_map its data set exports.
(cd "$WORK" && "$MLPERF_HOST" run --mode accuracy --user-conf "$ROOT/cmd/mlperf-host/demo/user.conf" \
	--out demo >/dev/null && "$MLPERF_HOST" dataset export --format npy ds >/dev/null)
same demo-imagenet '^accuracy=' "$(mh "$WORK/demo/mlperf_log_accuracy.json")" -- \
	$PY "$REPO/vision/classification_and_detection/tools/accuracy-imagenet.py" \
	--mlperf-accuracy-file "$WORK/demo/mlperf_log_accuracy.json" --imagenet-val-file "$WORK/ds/val_map.txt"

# ResNet-50 with the log and the label map only, no data set.
same imagenet-label-map '^accuracy=' "$(mh --benchmark resnet50 --label-map "$B/resnet/testdata/imagenet/val_map.txt" "$B/resnet/testdata/imagenet/mlperf_log_accuracy.json")" -- \
	$PY "$REPO/vision/classification_and_detection/tools/accuracy-imagenet.py" \
	--mlperf-accuracy-file "$B/resnet/testdata/imagenet/mlperf_log_accuracy.json" --imagenet-val-file "$B/resnet/testdata/imagenet/val_map.txt"

DLRM=$REPO/recommendation/dlrm_v2/pytorch/tools/accuracy-dlrm.py
same dlrm-labels-in-log '^AUC=' "$(mh --scorer dlrm "$B/dlrmv2/testdata/dlrm/mlperf_log_accuracy.json")" -- \
	$PY "$DLRM" --mlperf-accuracy-file "$B/dlrmv2/testdata/dlrm/mlperf_log_accuracy.json"
same dlrm-day-23 '^AUC=' "$(mh --scorer dlrm --truth "$B/dlrmv2/testdata/dlrm/day_23" --trace "$B/dlrmv2/testdata/dlrm/trace.txt" "$B/dlrmv2/testdata/dlrm/predictions_only.json")" -- \
	$PY "$DLRM" --mlperf-accuracy-file "$B/dlrmv2/testdata/dlrm/predictions_only.json" --day-23-file "$B/dlrmv2/testdata/dlrm/day_23" \
	--aggregation-trace-file "$B/dlrmv2/testdata/dlrm/trace.txt"

# dlrm-v3's TEST08: run_verification.py needs numpy alone. (accuracy.py
# needs torch, torchrec, gin and the reference model's modules: not here.)
D3=$B/dlrmv3/testdata/streaming
t08=$(cd "$ROOT" && go test ./internal/bench/dlrmv3 -run '^TestVerifyTEST08$' -count 1 >/dev/null 2>&1 && echo ok) || true
same dlrm-v3-test08 '^TEST (PASS|FAIL)$' "$([[ $t08 == ok ]] && tail -3 "$B/dlrmv3/testdata/test08_verify_accuracy.txt" | head -1)" -- \
	$PY "$REPO/compliance/TEST08/run_verification.py" -r "$D3/mlperf_log_accuracy.json" -t "$D3/test08_log_accuracy.json"
same dlrm-v3-test08-text '^num_' "$([[ $t08 == ok ]] && grep '^num_' "$B/dlrmv3/testdata/test08_verify_accuracy.txt" | tail -1)" -- \
	$PY "$REPO/compliance/TEST08/run_verification.py" -r "$D3/mlperf_log_accuracy.json" -t "$D3/test08_log_accuracy.json"

OI=$REPO/vision/classification_and_detection/tools/accuracy-openimages.py
export PYTHONPATH=$ROOT/tools/accuracyref/shims
same openimages '^mAP=' "$(mh --scorer openimages --truth "$B/retinanet/testdata/openimages" "$B/retinanet/testdata/openimages/mlperf_log_accuracy.json")" -- \
	$PY "$OI" --mlperf-accuracy-file "$B/retinanet/testdata/openimages/mlperf_log_accuracy.json" --openimages-dir "$B/retinanet/testdata/openimages" \
	--output-file "$WORK/openimages-results.json"
same openimages-inv-map '^mAP=' "$(mh --scorer openimages --inv-map --truth "$B/retinanet/testdata/openimages" "$B/retinanet/testdata/openimages/inv_map_log.json")" -- \
	$PY "$OI" --mlperf-accuracy-file "$B/retinanet/testdata/openimages/inv_map_log.json" --openimages-dir "$B/retinanet/testdata/openimages" \
	--output-file "$WORK/openimages-results.json" --use-inv-map
COCO=$REPO/vision/classification_and_detection/tools/accuracy-coco.py
same coco '^mAP=' "$(mh --scorer coco --truth "$B/yolo/testdata/coco" "$B/yolo/testdata/coco/mlperf_log_accuracy.json")" -- \
	$PY "$COCO" --mlperf-accuracy-file "$B/yolo/testdata/coco/mlperf_log_accuracy.json" --coco-dir "$B/yolo/testdata/coco" \
	--output-file "$WORK/coco-results.json"
same coco-removed-empty '^mAP=' "$(mh --scorer coco --remove-48-empty-images --truth "$B/yolo/testdata/coco" "$B/yolo/testdata/coco/removed_empty_log.json")" -- \
	$PY "$COCO" --mlperf-accuracy-file "$B/yolo/testdata/coco/removed_empty_log.json" --coco-dir "$B/yolo/testdata/coco" \
	--output-file "$WORK/coco-results.json" --remove-48-empty-images
same squad '^\{"exact_match"' "$(mh --scorer squad --truth "$B/bert/testdata/squad/dev-v1.1.json" --vocab "$B/bert/testdata/squad/vocab.txt" "$B/bert/testdata/squad/mlperf_log_accuracy.json")" -- \
	$PY "$REPO/language/bert/accuracy-squad.py" --vocab_file "$B/bert/testdata/squad/vocab.txt" --val_data "$B/bert/testdata/squad/dev-v1.1.json" \
	--log_file "$B/bert/testdata/squad/mlperf_log_accuracy.json" --out_file "$WORK/squad-predictions.json" \
	--features_cache_file "$WORK/squad-features.pickle"
unset PYTHONPATH

# qwen3-vl: evaluation.py needs pydantic 2 (Debian has 1.10), numpy and
# scikit-learn: Q3VL_PYTHON (default python3, which has pydantic 2 here)
# with Debian's packages on its path; q3vl_evaluate.py says what it stands
# in for.
Q3=$B/qwen3vl/testdata/catalogue
same qwen3-vl '^\{"f1"' "$(mh --scorer qwen3-vl --truth "$Q3" "$Q3/mlperf_log_accuracy.json")" -- \
	env Q3VL_RECORDS="$Q3/records.json" PYTHONPATH=/usr/lib/python3/dist-packages "${Q3VL_PYTHON:-python3}" \
	"$ROOT/tools/accuracyref/q3vl_evaluate.py" "$REPO/multimodal/qwen3-vl/src/mlperf_inf_mm_q3vl/evaluation.py" "$Q3/mlperf_log_accuracy.json"
# The results table's row of the replies (brand and is_secondhand F1 too).
same qwen3-vl-table '^From accuracy file' "$("$MLPERF_HOST" accuracy --scorer qwen3-vl --truth "$Q3" "$Q3/mlperf_log_accuracy.json" 2>/dev/null | grep '^From accuracy file')" -- \
	env Q3VL_RECORDS="$Q3/records.json" PYTHONPATH=/usr/lib/python3/dist-packages "${Q3VL_PYTHON:-python3}" \
	"$ROOT/tools/accuracyref/q3vl_evaluate.py" "$REPO/multimodal/qwen3-vl/src/mlperf_inf_mm_q3vl/evaluation.py" "$Q3/mlperf_log_accuracy.json"
# Its requests: the reference's messages (task.py's f-strings) for the
# fixture's first products against the golden ones; Debian's python3-pil
# decodes the images.
same qwen3-vl-messages '^q3vl messages' "q3vl messages: identical (3 products)" -- \
	env PYTHONPATH=/usr/lib/python3/dist-packages "${Q3VL_PYTHON:-python3}" "$ROOT/tools/accuracyref/q3vl_messages.py" \
	"$REPO/multimodal/qwen3-vl/src/mlperf_inf_mm_q3vl/task.py" "$Q3/records.json" "$Q3/messages.json"

same kits19 '^Accuracy:' "$(mh --scorer kits19 --truth "$B/unet3d/testdata/kits19" "$B/unet3d/testdata/kits19/mlperf_log_accuracy.json")" -- \
	$PY "$REPO/vision/medical_imaging/3d-unet-kits19/accuracy_kits.py" --log_file "$B/unet3d/testdata/kits19/mlperf_log_accuracy.json" \
	--preprocessed_data_dir "$B/unet3d/testdata/kits19" --postprocessed_data_dir "$WORK/kits19-post" --num_proc 1

# R-GAT: torch is not in Debian; shims/torch stands in for the three
# calls accuracy_igbh.py makes. The script writes its line to
# --output-file, which igbh prints.
igbh() {
	PYTHONPATH=$ROOT/tools/accuracyref/shims $PY "$REPO/graph/R-GAT/tools/accuracy_igbh.py" --dataset-path "$1" \
		--dataset-size tiny --mlperf-accuracy-file "$2" --output-file "$WORK/igbh-results.txt" "${@:3}" >/dev/null &&
		cat "$WORK/igbh-results.txt" && echo
}
R=$B/rgat/testdata/igbh
same igbh '^accuracy=' "$(mh --scorer igbh --truth "$R" "$R/mlperf_log_accuracy.json")" -- igbh "$R" "$R/mlperf_log_accuracy.json"
same igbh-int64 '^accuracy=' "$(mh --scorer igbh --truth "$R" --dtype int64 "$R/int64_log_accuracy.json")" -- \
	igbh "$R" "$R/int64_log_accuracy.json" --dtype int64

# ROUGE: Debian lacks transformers, evaluate and NLTK's Punkt data, which
# the LLM evaluation scripts need; rouge_check.py is their algorithm over
# NLTK's own Porter stemmer and Punkt tokenizer, the latter built from the
# English parameters mlperf-host embeds (its docstring says what it stands
# in for). punkt_check.py splits texts with that tokenizer: the golden
# test of internal/benchlib/punkt runs on the curated fixture, generated
# texts, random characters and the paragraphs of Markdown files.
PUNKT=$(cd "$ROOT" && go list -m -f '{{.Dir}}' github.com/neurosnap/sentences)/data/english.json
punkt() {
	local name=$1
	shift
	$PY "$ROOT/tools/accuracyref/punkt_check.py" "$PUNKT" "$@" >/dev/null
	local json=${*: -1}
	[[ $1 == files ]] && json=$2
	if out=$(cd "$ROOT" && PUNKT_NLTK=$json go test ./internal/benchlib/punkt -run '^TestSentencesNLTK$' -count 1 -v 2>&1); then
		printf 'same     %-22s %s\n' "punkt-$name" "$(grep -o '[0-9]* of [0-9]* texts split as NLTK splits them' <<<"$out")"
	else
		printf 'DIFFER   %-22s\n%s\n' "punkt-$name" "$(grep -v '^=== ' <<<"$out" | head -40)"
		fail=1
	fi
}
punkt fixture fixture "$WORK/punkt-fixture.json"
punkt generated random 3000 1 "$WORK/punkt-random.json"
punkt characters chars 20000 2 "$WORK/punkt-chars.json"
mapfile -t MD < <(find "$REPO" "$ROOT/docs" -name '*.md' | sort)
punkt markdown files "$WORK/punkt-files.json" "${MD[@]}"

rouge() { $PY "$ROOT/tools/accuracyref/rouge_check.py" "$@" --punkt "$PUNKT"; }
same rouge '^\{.rouge1' "$(mh --scorer rouge --truth "$B/llm/testdata/rouge/prompts.json" --vocab "$B/llm/testdata/rouge/tokenizer.json" --dtype int32 "$B/llm/testdata/rouge/mlperf_log_accuracy.json")" -- \
	rouge "$B/llm/testdata/rouge/mlperf_log_accuracy.json" "$B/llm/testdata/rouge/prompts.json" "$B/llm/testdata/rouge/tokenizer.json" int32
# Texts of many sentences: the committed fixture and a larger one.
"$PY" "$ROOT/tools/accuracyref/llm_fixture.py" "$WORK/llm" 300 1
for L in "$B/llm/testdata/rougelsum" "$WORK/llm"; do
	n=$(basename "$L")
	same "rouge-$n" '^\{.rouge1' "$(mh --scorer rouge --truth "$L/prompts.json" --vocab "$L/tokenizer.json" --dtype int32 "$L/mlperf_log_accuracy.json")" -- \
		rouge "$L/mlperf_log_accuracy.json" "$L/prompts.json" "$L/tokenizer.json" int32
	same "cnndm-$n" '^\{.rouge1' "$(mh --scorer cnndm --truth "$L/prompts.json" --vocab "$L/tokenizer.json" --dtype int32 "$L/mlperf_log_accuracy.json")" -- \
		rouge "$L/mlperf_log_accuracy.json" "$L/prompts.json" "$L/tokenizer.json" int32 --script evaluation
done

# The LLM evaluate-accuracy.py scripts themselves, unchanged, over
# stand-ins for what Debian lacks (shims/: transformers' AutoTokenizer
# decoding, evaluate's rouge, rouge_score's RougeScorer, mxeval's
# checkers, which run MBXP's programs with Debian's toolchains) and an
# NLTK data directory whose
# English Punkt tokenizer is built from the embedded parameters.
NLTK=$WORK/nltk_data
$PY "$ROOT/tools/accuracyref/punkt_check.py" "$PUNKT" nltk_data "$NLTK"
official() {
	env NLTK_DATA="$NLTK" PYTHONPATH="$ROOT/tools/accuracyref/shims:$ROOT/tools/accuracyref" $PY "$@"
}
LLAMA2=$REPO/language/llama2-70b/evaluate-accuracy.py
# llama2-70b reads OpenOrca's pickle: here the fixtures' prompts as
# pandas pickles them, read by the script and by mlperf-host alike.
for L in "$B/llm/testdata/rougelsum" "$WORK/llm"; do
	n=$(basename "$L")
	$PY -c 'import sys, pandas as pd; pd.read_json(sys.argv[1]).to_pickle(sys.argv[2])' "$L/prompts.json" "$WORK/openorca-$n.pkl"
	same "llama2-70b-pickle-$n" '^\{.rouge1' "$(mh --scorer rouge --truth "$WORK/openorca-$n.pkl" --vocab "$L/tokenizer.json" --dtype int32 "$L/mlperf_log_accuracy.json")" -- \
		official "$LLAMA2" --checkpoint-path "$L" --mlperf-accuracy-file "$L/mlperf_log_accuracy.json" --dataset-file "$WORK/openorca-$n.pkl" --dtype int32
done
MIXTRAL=$REPO/language/mixtral-8x7b/evaluate-accuracy.py
M=$B/mixtral/testdata/mixtral
same mixtral '^\{.rouge1' "$(mh --scorer mixtral --truth "$M/data.pkl" --vocab "$M/tokenizer.json" --dtype int32 "$M/mlperf_log_accuracy.json")" -- \
	official "$MIXTRAL" --checkpoint-path "$M" --mlperf-accuracy-file "$M/mlperf_log_accuracy.json" --dataset-file "$M/data.pkl" --dtype int32
# MBXP: the fixture's solutions in C++, Python, PHP, JavaScript, Ruby and
# TypeScript, run by shims/mxeval's checkers here and by mlperf-host in
# its code sandbox (evaluate_mbxp.py writes evaluated_test.json where it
# runs: in $WORK). One worker: evaluate_mbxp.py prints its per-language
# dicts in the order the programs end, with one the order they are
# queued in, ours.
(cd "$WORK" && official "$MIXTRAL" --checkpoint-path "$M" --mlperf-accuracy-file "$M/mbxp_log_accuracy.json" --dataset-file "$M/mbxp.pkl" \
	--dtype int32 --n_workers 1 >"$WORK/mbxp-official.txt" 2>&1) || true
"$MLPERF_HOST" accuracy --scorer mixtral --truth "$M/mbxp.pkl" --vocab "$M/tokenizer.json" --dtype int32 "$M/mbxp_log_accuracy.json" \
	>"$WORK/mbxp-ours.txt" 2>/dev/null || true
same mixtral-mbxp '^\{.gsm8k' "$(head -1 "$WORK/mbxp-ours.txt")" -- cat "$WORK/mbxp-official.txt"
same mixtral-mbxp-pass@1 'pass@1$' "$(grep 'pass@1$' "$WORK/mbxp-ours.txt")" -- cat "$WORK/mbxp-official.txt"
same mixtral-mbxp-languages "^\\{'cpp'" "$(grep "^{'cpp'" "$WORK/mbxp-ours.txt")" -- cat "$WORK/mbxp-official.txt"
LLAMA405=$REPO/language/llama3.1-405b/evaluate-accuracy.py
L=$B/llama405b/testdata/llama405b
same llama3.1-405b '^\{.(rougeL|exact_match)' "$(mh --scorer llama405b --truth "$L/data.pkl" --vocab "$L/tokenizer.json" --dtype int32 "$L/mlperf_log_accuracy.json")" -- \
	official "$LLAMA405" --checkpoint-path "$L" --mlperf-accuracy-file "$L/mlperf_log_accuracy.json" --dataset-file "$L/data.pkl" --dtype int32
# Larger sets that pandas itself pickles (llm_fixture.py: GSM8K answers
# right and wrong, with separators, after "\nQ:", in Arabic-Indic digits;
# UUIDs found, upper-cased, changed, missing; answers after "Answer: " or
# not), so that the means run numpy's pairwise sum over many samples.
for seed in 3 4; do
	M=$WORK/mixtral-$seed
	$PY "$ROOT/tools/accuracyref/llm_fixture.py" "$M" 400 "$seed" mixtral
	same "mixtral-$seed" '^\{.rouge1' "$(mh --scorer mixtral --truth "$M/data.pkl" --vocab "$M/tokenizer.json" --dtype int32 "$M/mlperf_log_accuracy.json")" -- \
		official "$MIXTRAL" --checkpoint-path "$M" --mlperf-accuracy-file "$M/mlperf_log_accuracy.json" --dataset-file "$M/data.pkl" --dtype int32
	L=$WORK/llama405b-$seed
	$PY "$ROOT/tools/accuracyref/llm_fixture.py" "$L" 400 "$seed" llama405b
	same "llama3.1-405b-$seed" '^\{.(rougeL|exact_match)' "$(mh --scorer llama405b --truth "$L/data.pkl" --vocab "$L/tokenizer.json" --dtype int32 "$L/mlperf_log_accuracy.json")" -- \
		official "$LLAMA405" --checkpoint-path "$L" --mlperf-accuracy-file "$L/mlperf_log_accuracy.json" --dataset-file "$L/data.pkl" --dtype int32
done

# WER: openai-whisper is not installable here; shims/whisper stands in for
# its EnglishTextNormalizer (its docstring says how it was written), so
# that accuracy_eval.py's own decoding and WER code run unchanged.
W=$B/whisper/testdata/whisper
same whisper '^Word Error Rate' "$(mh --scorer whisper --truth "$W/manifest.json" --vocab "$W/english.json" "$W/mlperf_log_accuracy.json")" -- \
	env PYTHONPATH="$ROOT/tools/accuracyref/shims" WHISPER_SPELLINGS="$W/english.json" \
	bash -c 'cd "$1/speech2text" && '$PY' accuracy_eval.py --log_dir "$2" --dataset_dir "$2" --manifest "$2/manifest.json"' _ "$REPO" "$W"

# wan-2.2: VBench cannot run here; the frames `accuracy` writes for
# export_to_video's ffmpeg pipe against wan_frames.py's numpy conversion.
WAN=$B/wan/testdata
"$MLPERF_HOST" accuracy --benchmark wan-2.2-t2v-a14b --dataset "$WAN/data" --videos "$WORK/wan" "$WAN/mlperf_log_accuracy.json" >/dev/null 2>&1 || true
same wan-frames '^frames sha256=' "frames sha256=$(cat "$WORK"/wan/frames/{0..4}.rgb 2>/dev/null | sha256sum | cut -d' ' -f1)" -- \
	$PY "$ROOT/tools/accuracyref/wan_frames.py" "$WAN/mlperf_log_accuracy.json" 5 8 8

# deepseek-r1: eval_accuracy.py as its directory holds it, with the
# PRM800K grader and LiveCodeBench's runner where its submodules go, run
# from there: its tokenizer checkpoint, deepseek-ai/DeepSeek-R1, is the
# fixture's tokenizer.json (the transformers stand-in reads the
# checkpoint's directory). The stand-ins for datasets' load_dataset
# (LiveCodeBench's problems, $LCB_PROBLEMS) and anthropic's two prompt
# constants, which LiveCodeBench's prompt modules import, are in shims/.
DS=$WORK/deepseek-r1
mkdir -p "$DS/submodules/prm800k" "$DS/submodules/LiveCodeBench" "$DS/deepseek-ai/DeepSeek-R1"
git -C "$REPO" show HEAD:language/deepseek-r1/eval_accuracy.py >"$DS/eval_accuracy.py"
git -C "$PRM800K_REPO" archive HEAD prm800k/grading | tar -x -C "$DS/submodules/prm800k"
git -C "$LIVECODEBENCH_REPO" archive HEAD lcb_runner | tar -x -C "$DS/submodules/LiveCodeBench"
# dsr1log NAME DIR LOG [FLAGS...]: our line and the official one on the
# data set and tokenizer of DIR (and its problems.jsonl).
dsr1log() {
	local name=$1 d=$2 log=$3
	shift 3
	cp "$d/tokenizer.json" "$DS/deepseek-ai/DeepSeek-R1/tokenizer.json"
	same "$name" "^\{'exact_match'" "$(mh --scorer deepseek-r1 --truth "$d/dataset.pkl" --vocab "$d/tokenizer.json" "$@" "$log")" -- \
		env PYTHONPATH="$ROOT/tools/accuracyref/shims:$ROOT/tools/accuracyref" LCB_PROBLEMS="$d/problems.jsonl" \
		bash -c 'cd "$1" && '$PY' eval_accuracy.py --input-file "$2" --dataset-file "$3/dataset.pkl" --output-file "$1/evaluated.pkl"' _ "$DS" "$log" "$d"
}
DF=$B/deepseekr1/testdata
dsr1log deepseek-r1-mixed "$DF/mixed" "$DF/mixed/mlperf_log_accuracy.json"
dsr1log deepseek-r1-livecodebench "$DF/livecodebench" "$DF/livecodebench/mlperf_log_accuracy.json" --problems "$DF/livecodebench/problems.jsonl"

# gpt-oss-120b: eval_mlperf_accuracy.py itself, over the pickled
# DataFrames of the fixtures, with a stand-in for transformers'
# AutoTokenizer (shims/transformers: tokenizer.json's byte-level decoding).
# The exact_match line, and its whole standard output against the golden
# file the Go tests hold the scorer's Report to.
GPTOSS=$REPO/language/gpt-oss-120b/eval_mlperf_accuracy.py
gptoss() { PYTHONPATH="$ROOT/tools/accuracyref/shims" $PY "$GPTOSS" --mlperf-log "$2" --reference-data "$1" --tokenizer "$(dirname "$3")"; }
for d in decoder answers; do
	G=$B/gptoss/testdata/$d
	same "gpt-oss-$d" "^'exact_match'" "$(mh --benchmark gpt-oss-120b --truth "$G/acc_eval_inputs.pkl" --vocab "$G/tokenizer.json" "$G/mlperf_log_accuracy.json")" -- \
		gptoss "$G/acc_eval_inputs.pkl" "$G/mlperf_log_accuracy.json" "$G/tokenizer.json"
	if gptoss "$G/acc_eval_inputs.pkl" "$G/mlperf_log_accuracy.json" "$G/tokenizer.json" 2>/dev/null | cmp -s - "$G/official_stdout.golden"; then
		printf 'same     %-22s %s\n' "gpt-oss-$d-stdout" "testdata/$d/official_stdout.golden"
	else
		printf 'DIFFER   %-22s the official stdout is not testdata/%s/official_stdout.golden\n' "gpt-oss-$d-stdout" "$d"
		fail=1
	fi
done
# gpt-oss-120b's LiveCodeBench samples: eval_mlperf_accuracy.py and its
# eval_accuracy.py laid out with LiveCodeBench's runner where their
# submodule goes (gpt-oss-120b's links to deepseek-r1's), run once (its
# never-ending program takes LiveCodeBench's 60 s): datasets'
# load_dataset reads the fixture's problems file ($LCB_PROBLEMS, shims/)
# for release_v6. The exact_match line, and the whole standard output
# against the golden file the Go tests hold the report to (LiveCodeBench's
# loader prints its count first).
GOSS=$WORK/gpt-oss-120b
mkdir -p "$GOSS/submodules"
for f in eval_mlperf_accuracy.py eval_accuracy.py; do git -C "$REPO" show "HEAD:language/gpt-oss-120b/$f" >"$GOSS/$f"; done
cp -r "$DS/submodules/LiveCodeBench" "$GOSS/submodules/LiveCodeBench"
G=$B/gptoss/testdata/livecodebench
env PYTHONPATH="$ROOT/tools/accuracyref/shims" LCB_PROBLEMS="$G/problems.jsonl" $PY "$GOSS/eval_mlperf_accuracy.py" \
	--mlperf-log "$G/mlperf_log_accuracy.json" --reference-data "$G/acc_eval_inputs.pkl" --tokenizer "$G" >"$WORK/gpt-oss-livecodebench.out" 2>/dev/null || true
same gpt-oss-livecodebench "^'exact_match'" "$(mh --benchmark gpt-oss-120b --truth "$G/acc_eval_inputs.pkl" --vocab "$G/tokenizer.json" \
	--problems "$G/problems.jsonl" "$G/mlperf_log_accuracy.json")" -- cat "$WORK/gpt-oss-livecodebench.out"
if cmp -s "$WORK/gpt-oss-livecodebench.out" "$G/official_stdout.golden"; then
	printf 'same     %-22s %s\n' "gpt-oss-lcb-stdout" "testdata/livecodebench/official_stdout.golden"
else
	printf 'DIFFER   %-22s the official stdout is not testdata/livecodebench/official_stdout.golden\n' "gpt-oss-lcb-stdout"
	fail=1
fi
# eval_accuracy.py's answer extraction itself on 20000 random outputs.
PYTHONPATH=$ROOT/tools/accuracyref/shims $PY "$ROOT/tools/accuracyref/gptoss_parse.py" "$(dirname "$GPTOSS")" 20000 1 "$WORK/gptoss-parse.json"
if out=$(cd "$ROOT" && GPTOSS_PARSE=$WORK/gptoss-parse.json go test ./internal/bench/gptoss -run '^TestParseOfficial$' -count 1 -v 2>&1); then
	printf 'same     %-22s %s\n' "gpt-oss-parse" "$(grep -o '[0-9]* of [0-9]* texts parsed as eval_accuracy.py parses them' <<<"$out")"
else
	printf 'DIFFER   %-22s\n%s\n' "gpt-oss-parse" "$(grep -v '^=== ' <<<"$out" | head -40)"
	fail=1
fi

# The benchmarks' end-to-end runs: TestBenchmarksEndToEnd leaves each
# data set in its reference form and the accuracy run's log under $E2E;
# the official script reads them as the test's `accuracy` did.
E2E=$WORK/e2e
(cd "$ROOT" && MLPERF_HOST_BENCH_KEEP=$E2E go test ./cmd/mlperf-host -run '^(TestBenchmarksEndToEnd|TestQwen3VLEndToEnd)$' -count 1 >/dev/null)
e2e() {
	local ds=data
	[[ -f $E2E/$1/data/prompts.json ]] && ds=data/prompts.json
	[[ -f $E2E/$1/data/prompts.pkl ]] && ds=data/prompts.pkl
	[[ -f $E2E/$1/data/data.pkl ]] && ds=data/data.pkl
	[[ -f $E2E/$1/data/dataset.pkl ]] && ds=data/dataset.pkl

	[[ -f $E2E/$1/data/acc_eval_inputs.pkl ]] && ds=data/acc_eval_inputs.pkl
	(cd "$E2E/$1" && "$MLPERF_HOST" accuracy --dataset "$ds" "${@:2}" acc/mlperf_log_accuracy.json 2>/dev/null | head -1)
}
same e2e-resnet '^accuracy=' "$(e2e resnet --benchmark resnet)" -- \
	$PY "$REPO/vision/classification_and_detection/tools/accuracy-imagenet.py" \
	--mlperf-accuracy-file "$E2E/resnet/acc/mlperf_log_accuracy.json" --imagenet-val-file "$E2E/resnet/data/val_map.txt"
export PYTHONPATH=$ROOT/tools/accuracyref/shims
same e2e-retinanet '^mAP=' "$(e2e retinanet --round v5.1 --benchmark retinanet)" -- \
	$PY "$OI" --mlperf-accuracy-file "$E2E/retinanet/acc/mlperf_log_accuracy.json" --openimages-dir "$E2E/retinanet/data" \
	--output-file "$WORK/e2e-openimages-results.json"
same e2e-yolo '^mAP=' "$(e2e yolo --benchmark yolo-99)" -- \
	$PY "$COCO" --mlperf-accuracy-file "$E2E/yolo/acc/mlperf_log_accuracy.json" --coco-dir "$E2E/yolo/data" \
	--output-file "$WORK/e2e-coco-results.json"
same e2e-bert '^\{"exact_match"' "$(e2e bert --benchmark bert-99)" -- \
	$PY "$REPO/language/bert/accuracy-squad.py" --vocab_file "$E2E/bert/data/vocab.txt" --val_data "$E2E/bert/data/dev-v1.1.json" \
	--log_file "$E2E/bert/acc/mlperf_log_accuracy.json" --out_file "$WORK/e2e-squad-predictions.json" \
	--features_cache_file "$WORK/e2e-squad-features.pickle"
unset PYTHONPATH
same e2e-3d-unet '^Accuracy:' "$(e2e 3d-unet --benchmark 3d-unet-99)" -- \
	$PY "$REPO/vision/medical_imaging/3d-unet-kits19/accuracy_kits.py" --log_file "$E2E/3d-unet/acc/mlperf_log_accuracy.json" \
	--preprocessed_data_dir "$E2E/3d-unet/data" --postprocessed_data_dir "$WORK/e2e-kits19-post" --num_proc 1
same e2e-dlrm-v2 '^AUC=' "$(e2e dlrm-v2 --round v5.1 --benchmark dlrm-v2-99)" -- \
	$PY "$DLRM" --mlperf-accuracy-file "$E2E/dlrm-v2/acc/mlperf_log_accuracy.json"
same e2e-llama2-70b '^\{.rouge1' "$(e2e llama2-70b --benchmark llama2-70b-99.9 --vocab data/tokenizer.json)" -- \
	official "$LLAMA2" --checkpoint-path "$E2E/llama2-70b/data" --mlperf-accuracy-file "$E2E/llama2-70b/acc/mlperf_log_accuracy.json" \
	--dataset-file "$E2E/llama2-70b/data/prompts.pkl" --dtype int32
same e2e-mixtral-8x7b '^\{.rouge1' "$(e2e mixtral-8x7b --round v6.0 --benchmark mixtral-8x7b --vocab data/tokenizer.json)" -- \
	official "$MIXTRAL" --checkpoint-path "$E2E/mixtral-8x7b/data" --mlperf-accuracy-file "$E2E/mixtral-8x7b/acc/mlperf_log_accuracy.json" \
	--dataset-file "$E2E/mixtral-8x7b/data/data.pkl" --dtype int32
same e2e-llama3.1-405b '^\{.(rougeL|exact_match)' "$(e2e llama3.1-405b --round v6.0 --benchmark llama3.1-405b --vocab data/tokenizer.json)" -- \
	official "$LLAMA405" --checkpoint-path "$E2E/llama3.1-405b/data" --mlperf-accuracy-file "$E2E/llama3.1-405b/acc/mlperf_log_accuracy.json" \
	--dataset-file "$E2E/llama3.1-405b/data/data.pkl" --dtype int32
same e2e-llama3.1-8b '^\{.rouge1' "$(e2e llama3.1-8b --benchmark llama3.1-8b --vocab data/tokenizer.json)" -- \
	rouge "$E2E/llama3.1-8b/acc/mlperf_log_accuracy.json" "$E2E/llama3.1-8b/data/prompts.json" \
	"$E2E/llama3.1-8b/data/tokenizer.json" int32 --script evaluation
dsr1log e2e-deepseek-r1 "$E2E/deepseek-r1/data" "$E2E/deepseek-r1/acc/mlperf_log_accuracy.json" --problems "$E2E/deepseek-r1/data/problems.jsonl"
same e2e-whisper '^Word Error Rate' "$(e2e whisper --benchmark whisper --vocab data/english.json)" -- \
	env PYTHONPATH="$ROOT/tools/accuracyref/shims" WHISPER_SPELLINGS="$E2E/whisper/data/english.json" \
	bash -c 'cd "$1/speech2text" && '$PY' accuracy_eval.py --log_dir "$2/acc" --dataset_dir "$2/data" --manifest "$2/data/dev-all-repack.json"' _ "$REPO" "$E2E/whisper"
same e2e-qwen3-vl '^\{"f1"' "$(e2e qwen3-vl --benchmark qwen3-vl-235b-a22b)" -- \
	env Q3VL_RECORDS="$E2E/qwen3-vl/data/records.json" PYTHONPATH=/usr/lib/python3/dist-packages "${Q3VL_PYTHON:-python3}" \
	"$ROOT/tools/accuracyref/q3vl_evaluate.py" "$REPO/multimodal/qwen3-vl/src/mlperf_inf_mm_q3vl/evaluation.py" "$E2E/qwen3-vl/acc/mlperf_log_accuracy.json"
same e2e-gpt-oss-120b "^'exact_match'" "$(e2e gpt-oss-120b --benchmark gpt-oss-120b --vocab data/tokenizer.json)" -- \
	gptoss "$E2E/gpt-oss-120b/data/acc_eval_inputs.pkl" "$E2E/gpt-oss-120b/acc/mlperf_log_accuracy.json" "$E2E/gpt-oss-120b/data/tokenizer.json"

same e2e-rgat '^accuracy=' "$(e2e rgat --benchmark rgat --set category=datacenter --set graph_sample=neighbourhood --dtype int64)" -- \
	igbh "$E2E/rgat/data" "$E2E/rgat/acc/mlperf_log_accuracy.json" --dtype int64

# stable-diffusion-xl: accuracy_coco.py runs Inception-v3 and CLIP, which
# are not installable here. sdxl_check.py runs the script's own FID
# function and CLIP's formula on the networks' outputs that the fixture
# and the end-to-end run give (FID to a relative 1e-9, CLIP to the digit),
# and decodes the log and saves its images as the script does.
sdxl() { # NAME DIR: DIR holds the data set (coco/ or data/), the log and features/
	local name=$1 dir=$2 data=$2/coco log=$2/mlperf_log_accuracy.json feats=$2/features ours imgs
	[[ -d $data ]] || data=$2/data log=$2/acc/mlperf_log_accuracy.json feats=$2/data/features
	imgs=$WORK/$name-images
	ours=$("$MLPERF_HOST" accuracy --benchmark stable-diffusion-xl --dataset "$data" --features "$feats" --images "$imgs" --all-images "$log" 2>/dev/null |
		grep '^Accuracy Results') || true
	$PY "$ROOT/tools/accuracyref/sdxl_check.py" compare "$name" "$REPO" "$log" "$feats" "$ours" || fail=1
	local pngs
	pngs=$($PY "$ROOT/tools/accuracyref/sdxl_check.py" images "$log" "$imgs") || true
	if [[ $pngs =~ ^images:\ ([0-9]+)\ of\ ([0-9]+) && ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" && ${BASH_REMATCH[1]} != 0 ]]; then
		printf 'same     %-22s %s\n' "$name-images" "$pngs"
	else
		printf 'DIFFER   %-22s %s\n' "$name-images" "$pngs"
		fail=1
	fi
}
sdxl sdxl "$B/sdxl/testdata"
sdxl e2e-sdxl "$E2E/stable-diffusion-xl"

if ((fail)); then
	echo "verify-accuracy: the scorers differ from the official scripts" >&2
	exit 1
fi
echo "verify-accuracy: every scorer prints the official script's line"
