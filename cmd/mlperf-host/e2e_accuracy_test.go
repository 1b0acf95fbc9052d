package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// TestAccuracyScorers runs `accuracy` on the scorers' fixtures: the line
// the official script prints (internal/accuracy's tests say how it was
// obtained), then the verdict of the benchmark's quality target.
func TestAccuracyScorers(t *testing.T) {
	t.Parallel()
	rooms, err := filepath.Abs(filepath.Join("..", "..", "internal", "bench"))
	require.NoError(t, err)
	// fixture is a file of a benchmark package's testdata.
	fixture := func(room string, elem ...string) string {
		return filepath.Join(append([]string{rooms, room, "testdata"}, elem...)...)
	}
	tests := []struct {
		name string
		args []string
		code exitcode.Code
		want []string
	}{
		// accuracy-imagenet.py needs the log and the label map only:
		// testdata/imagenet's line is its output (mlcommons/inference
		// b66003e1), a duplicate sample counted once.
		{name: "resnet with a label map and no data set", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "resnet50", "--label-map", fixture("resnet", "imagenet", "val_map.txt"), fixture("resnet", "imagenet", "mlperf_log_accuracy.json")},
			want: []string{"accuracy=75.000%, good=3, total=4\n", "target acc >= 75.6954 (99% of 76.46): FAIL"}},
		// DLRM v2 and RetinaNet left the suite after round v5.1.
		{name: "dlrm labels in the log", code: exitcode.OK,
			args: []string{"--round", "v5.1", "--benchmark", "dlrm-v2-99", fixture("dlrmv2", "dlrm", "mlperf_log_accuracy.json")},
			want: []string{"AUC=80.000%, accuracy=70.833%, good=17, total=24, queries=8\n", "target AUC >= 79.5069 (99% of 80.31): PASS"}},
		{name: "retinanet below target", code: exitcode.AccuracyBelowTarget,
			args: []string{"--round", "v5.1", "--benchmark", "retinanet", "--truth", fixture("retinanet", "openimages"), fixture("retinanet", "openimages", "mlperf_log_accuracy.json")},
			want: []string{"mAP=22.413%\n", "FAIL"}},
		{name: "squad", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "bert-99", "--truth", fixture("bert", "squad", "dev-v1.1.json"), "--vocab", fixture("bert", "squad", "vocab.txt"),
				fixture("bert", "squad", "mlperf_log_accuracy.json")},
			want: []string{`{"exact_match": 33.333333333333336, "f1": 46.666666666666664}`}},
		// Every target of the scenario the scorer measures is checked.
		{name: "rouge", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "llama2-70b-99.9", "--truth", fixture("llm", "rouge", "prompts.json"), "--vocab", fixture("llm", "rouge", "tokenizer.json"),
				fixture("llm", "rouge", "mlperf_log_accuracy.json")},
			want: []string{"{'rouge1': 74.7436, 'rouge2': 59.2657, 'rougeL': 69.7436, 'rougeLsum': 69.7436, 'gen_len': 128, 'gen_num': 4, 'gen_tok_len': 29, 'tokens_per_sample': 7.2}\n",
				"target ROUGEL >= 28.5876 (99.9% of 28.6162): PASS", "target TOKENS_PER_SAMPLE >= 265.0050 (90% of 294.45): FAIL"}},
		// qwen3-vl's accuracy.txt line (evaluation.py's, on 4 workers),
		// the data set read from its Parquet files for the ground truth.
		{name: "qwen3-vl", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "qwen3-vl-235b-a22b", "--truth", fixture("qwen3vl", "catalogue"), fixture("qwen3vl", "catalogue", "mlperf_log_accuracy.json")},
			want: []string{`{"f1": 0.43298969072164945}` + "\n", "target F1_HIERARCHICAL >= 0.7824 (99% of 0.7903): FAIL",
				"8 responses cannot be parsed against the expected schema\n", "From accuracy file | 0.43299 | 0.3 | 0.470588\n"}},
		// deepseek-r1's eval_accuracy.py lines on its fixtures
		// (tools/accuracyref/verify.sh): both of its targets checked; the
		// LiveCodeBench rows' programs run in the code sandbox, this
		// binary its launcher; without the problems file they are an
		// error, not a silent zero.
		{name: "deepseek-r1", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "deepseek-r1", "--truth", fixture("deepseekr1", "mixed", "dataset.pkl"), "--vocab", fixture("deepseekr1", "mixed", "tokenizer.json"),
				fixture("deepseekr1", "mixed", "mlperf_log_accuracy.json")},
			want: []string{"{'exact_match': 61.904761904761905, 'tokens_per_sample': 19.333333333333332, 'num-samples': 21}\n",
				"target exact_match >= 80.5446 (99% of 81.3582): FAIL", "target TOKENS_PER_SAMPLE >= 3497.6047 (90% of 3886.2274): FAIL"}},
		{name: "deepseek-r1 livecodebench", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "deepseek-r1", "--truth", fixture("deepseekr1", "livecodebench", "dataset.pkl"),
				"--vocab", fixture("deepseekr1", "livecodebench", "tokenizer.json"), "--problems", fixture("deepseekr1", "livecodebench", "problems.jsonl"),
				fixture("deepseekr1", "livecodebench", "mlperf_log_accuracy.json")},
			want: []string{"{'exact_match': 37.5, 'tokens_per_sample': 43.125, 'num-samples': 8}\n"}},
		{name: "deepseek-r1 livecodebench without problems", code: exitcode.Dataset,
			args: []string{"--benchmark", "deepseek-r1", "--truth", fixture("deepseekr1", "livecodebench", "dataset.pkl"),
				"--vocab", fixture("deepseekr1", "livecodebench", "tokenizer.json"), fixture("deepseekr1", "livecodebench", "mlperf_log_accuracy.json")},
			want: []string{"livecodebench rows need LiveCodeBench's problems"}},
		// llama3.1-8b's evaluation.py line; its ROUGE-Lsum and gen_len
		// targets checked too (the fixture's 12 texts are far from
		// 13368 samples' characters).
		{name: "cnndm", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "llama3.1-8b", "--truth", fixture("llm", "rougelsum", "prompts.json"), "--vocab", fixture("llm", "rougelsum", "tokenizer.json"),
				"--dtype", "int32", fixture("llm", "rougelsum", "mlperf_log_accuracy.json")},
			want: []string{"{'rouge1': '93.9288', 'rouge2': '86.8657', 'rougeL': '89.1988', 'rougeLsum': '93.1242', 'gen_len': 2318, 'gen_num': 12}\n",
				"target ROUGELSUM >= 35.4351 (99% of 35.793): PASS", "target GEN_LEN >= 7350879.6000 (90% of 8.167644e+06): FAIL"}},
		{name: "cnndm with a malformed punkt directory", code: exitcode.Dataset,
			args: []string{"--benchmark", "llama3.1-8b", "--truth", fixture("llm", "rougelsum", "prompts.json"), "--vocab", fixture("llm", "rougelsum", "tokenizer.json"),
				"--punkt", fixture("llm"), fixture("llm", "rougelsum", "mlperf_log_accuracy.json")},
			want: []string{"sentence splitter: punkt parameters: open " + fixture("llm", "abbrev_types.txt"), "hint: --punkt (accuracy.punkt) names NLTK's punkt_tab"}},
		// gpt-oss-120b's eval_mlperf_accuracy.py line on the answers
		// fixture (its official_stdout.golden); the ground truth is the
		// accuracy set's pickle, read as --truth or as the data set.
		{name: "gpt-oss", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "gpt-oss-120b", "--truth", fixture("gptoss", "answers", "acc_eval_inputs.pkl"),
				"--vocab", fixture("gptoss", "answers", "tokenizer.json"), fixture("gptoss", "answers", "mlperf_log_accuracy.json")},
			want: []string{"'exact_match': 45.802\n", "target exact_match >= 82.2987 (99% of 83.13): FAIL"}},
		{name: "gpt-oss with its data set and no tokenizer", code: exitcode.Dataset,
			args: []string{"--benchmark", "gpt-oss-120b", "--dataset", fixture("gptoss", "answers", "acc_eval_inputs.pkl"),
				fixture("gptoss", "answers", "mlperf_log_accuracy.json")},
			want: []string{"gpt-oss: no tokenizer.json given", "hint: pass the model's tokenizer.json (openai/gpt-oss-120b's) with --vocab"}},
		// Its LiveCodeBench samples' programs need the problems files
		// (the package's tests run them; the fixture's never-ending
		// program takes LiveCodeBench's 60 s here).
		{name: "gpt-oss livecodebench without problems", code: exitcode.Dataset,
			args: []string{"--benchmark", "gpt-oss-120b", "--truth", fixture("gptoss", "livecodebench", "acc_eval_inputs.pkl"),
				"--vocab", fixture("gptoss", "livecodebench", "tokenizer.json"), fixture("gptoss", "livecodebench", "mlperf_log_accuracy.json")},
			want: []string{"livecodebench samples need LiveCodeBench's problems", "--problems FILE[,FILE...] (accuracy.problems)"}},
		{name: "whisper", code: exitcode.AccuracyBelowTarget,
			args: []string{"--benchmark", "whisper", "--truth", fixture("whisper", "whisper", "manifest.json"), "--vocab", fixture("whisper", "whisper", "english.json"),
				fixture("whisper", "whisper", "mlperf_log_accuracy.json")},
			want: []string{"Word Error Rate: 10.666666666666668%, accuracy=89.33333333333333%\n", "target ACCURACY >= 96.9536 (99% of 97.9329): FAIL"}},
		{name: "whisper without spelling table", code: exitcode.Dataset,
			args: []string{"--benchmark", "whisper", "--truth", fixture("whisper", "whisper", "manifest.json"), fixture("whisper", "whisper", "mlperf_log_accuracy.json")},
			want: []string{"no spelling table (--vocab)", "hint: pass openai-whisper's normalizers/english.json (its spelling table) with --vocab"}},
		// A scorer named for another benchmark prints its line and no verdict.
		{name: "scorer without target", code: exitcode.OK,
			args: []string{"--scorer", "kits19", "--truth", fixture("unet3d", "kits19"), fixture("unet3d", "kits19", "mlperf_log_accuracy.json")},
			want: []string{"Accuracy: mean = 0.77913, kidney = 0.8912, tumor = 0.6671\n", "which the kits19 scorer does not measure"}},
		{name: "no ground truth", code: exitcode.Dataset,
			args: []string{"--benchmark", "3d-unet-99", fixture("unet3d", "kits19", "mlperf_log_accuracy.json")},
			want: []string{"no preprocessed data directory", "hint: pass the ground truth the official accuracy_kits.py reads with --truth"}},
		{name: "unknown scorer", code: exitcode.Usage,
			args: []string{"--scorer", "bleu", fixture("dlrmv2", "dlrm", "mlperf_log_accuracy.json")},
			want: []string{`no scorer "bleu": want one of imagenet, openimages`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mlperfHost(t, t.TempDir(), append([]string{"accuracy"}, tt.args...)...)
			require.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stdout+r.stderr, w)
			}
		})
	}
}
