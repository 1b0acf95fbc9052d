package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench"
	"github.com/mlperf-host/mlperf-host/internal/bench/bert"
	"github.com/mlperf-host/mlperf-host/internal/bench/deepseekr1"
	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv2"
	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv3"
	"github.com/mlperf-host/mlperf-host/internal/bench/gptoss"
	"github.com/mlperf-host/mlperf-host/internal/bench/llama405b"
	"github.com/mlperf-host/mlperf-host/internal/bench/llm"
	"github.com/mlperf-host/mlperf-host/internal/bench/mixtral"
	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/bench/retinanet"
	"github.com/mlperf-host/mlperf-host/internal/bench/rgat"
	"github.com/mlperf-host/mlperf-host/internal/bench/sdxl"
	"github.com/mlperf-host/mlperf-host/internal/bench/unet3d"
	"github.com/mlperf-host/mlperf-host/internal/bench/wan"
	"github.com/mlperf-host/mlperf-host/internal/bench/whisper"
	"github.com/mlperf-host/mlperf-host/internal/bench/yolo"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/hftokenizer"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/livecodebench"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// benchConf makes the performance runs of TestBenchmarksEndToEnd short:
// a handful of queries, whatever the verdict.
const benchConf = `*.*.min_duration = 0
*.*.min_query_count = 8
*.SingleStream.target_latency = 1
*.MultiStream.target_latency = 1
*.Server.target_qps = 50
*.Server.target_latency = 1000
*.Offline.target_qps = 1
`

// benchFixture is one benchmark's end-to-end case: a small data set in
// the reference form, written so that the benchmark's signature model
// (testdata/benchmarks, the onnx plugin's zoo) answers what the data set
// encodes, and the line the official accuracy script prints for those
// answers (the comment of each case says how it was obtained).
type benchFixture struct {
	name  string
	args  []string // --round, --benchmark, category
	model string   // under testdata/benchmarks
	// dataset is the path run's --dataset names under the case's
	// directory: "data" unless set; write writes into "data".
	dataset string
	write   func(t *testing.T, dir string)
	// scenarios are the benchmark's required scenarios of the category.
	scenarios []string
	line      string
	code      exitcode.Code // of the accuracy run: the target's verdict
	// unscored, for a benchmark whose metric's networks cannot run
	// here, checks the accuracy run and `accuracy` instead of line.
	unscored func(t *testing.T, dir string, run []string)
}

func benchFixtures() []benchFixture {
	fs := []benchFixture{
		// 7 of 8 images hold their label's class; accuracy-imagenet.py
		// prints this line on the run's log (docs/benchmarks.md).
		{name: "resnet", args: []string{"--benchmark", "resnet"}, model: "resnet50-signature.onnx",
			write: func(t *testing.T, dir string) {
				require.NoError(t, resnet.WriteImageNet(dir, []int{0, 1, 2, 3, 4, 5, 6, 7}, []int{0, 1, 2, 3, 4, 5, 6, 8}))
			},
			scenarios: []string{"SingleStream", "MultiStream", "Offline"},
			line:      "accuracy=87.500%, good=7, total=8", code: exitcode.OK},
		// Category 5's one box is found exactly (AP 1), category 3's first
		// of two boxes only (recall 0.5: 51 of COCOeval's 101 recall points
		// at precision 1, AP 51/101), mAP (1+51/101)/2 = 75.248%.
		{name: "retinanet", args: []string{"--round", "v5.1", "--benchmark", "retinanet"}, model: "retinanet-signature.onnx",
			write: func(t *testing.T, dir string) {
				images := []retinanet.OpenImage{
					{FileName: "a.jpg", Width: 200, Height: 100,
						Truth:      []retinanet.Box{{X: 20, Y: 10, W: 60, H: 40, Category: 3}, {X: 100, Y: 50, W: 50, H: 30, Category: 5}},
						Detections: []retinanet.Detection{{XMin: 0.5, YMin: 0.5, XMax: 0.75, YMax: 0.8, Score: 0.9, Label: 5}, {XMin: 0.1, YMin: 0.1, XMax: 0.4, YMax: 0.5, Score: 0.8, Label: 3}}},
					{FileName: "b.jpg", Width: 100, Height: 100, Truth: []retinanet.Box{{X: 10, Y: 10, W: 30, H: 30, Category: 3}}},
				}
				require.NoError(t, retinanet.WriteOpenImages(dir, images, []int{3, 5}, 8))
			},
			scenarios: []string{"SingleStream", "MultiStream", "Offline"},
			line:      "mAP=75.248%", code: exitcode.OK},
		// The model answers each context's word of the highest vocabulary
		// id: right for questions a and b, "1895" for c (whose answer is
		// "cello"): evaluate_v1.1.py scores 2 of 3 exact, F1 2/3.
		{name: "bert", args: []string{"--benchmark", "bert-99"}, model: "bert-signature.onnx",
			write: func(t *testing.T, dir string) {
				require.NoError(t, bert.WriteSQuAD(dir, []bert.SQuADQuestion{
					{ID: "a", Context: "The river flows to Paris.", Question: "Where does the river flow?", Answer: "Paris"},
					{ID: "c", Context: "Smith played the cello in 1895.", Question: "What did Smith play?", Answer: "cello"},
					{ID: "b", Context: "Smith was born in 1895.", Question: "When was Smith born?", Answer: "1895"},
				}, 100))
			},
			scenarios: []string{"SingleStream", "Offline"},
			line:      `{"exact_match": 66.66666666666667, "f1": 66.66666666666667}`, code: exitcode.AccuracyBelowTarget},
		// Two volumes of 8³ and 12×8×16 voxels (the window, 8, and multiples of
		// its stride beyond, as the reference pads them), some voxels of each of the
		// wrong class (kitsCase); the line is accuracy_kits.py's
		// get_dice_score over the same arrays in numpy.
		{name: "3d-unet", args: []string{"--benchmark", "3d-unet-99"}, model: "unet3d-signature.onnx",
			write: func(t *testing.T, dir string) {
				require.NoError(t, unet3d.WriteKiTS(dir, []unet3d.FixtureCase{kitsCase("case_00000", 8, 8, 8, 11), kitsCase("case_00042", 12, 8, 16, 12)}))
			},
			scenarios: []string{"SingleStream", "Offline"},
			line:      "Accuracy: mean = 0.91352, kidney = 0.9071, tumor = 0.9199", code: exitcode.OK},
		// Positives at 0.9, 0.8, 0.4, negatives at 0.7, 0.3, 0.2, 0.1,
		// 0.05: 14 of the 15 pairs ordered (AUC 93.333%); rounded, 6 of 8
		// right.
		{name: "dlrm-v2", args: []string{"--round", "v5.1", "--benchmark", "dlrm-v2-99", "--set", "category=datacenter"}, model: "dlrm-signature.onnx",
			write: func(t *testing.T, dir string) {
				require.NoError(t, dlrmv2.WriteCriteo(dir, [][]dlrmv2.CriteoRow{
					{{Probability: 0.9, Label: 1}, {Probability: 0.7, Label: 0}},
					{{Probability: 0.3, Label: 0}},
					{{Probability: 0.8, Label: 1}, {Probability: 0.2, Label: 0}, {Probability: 0.4, Label: 1}},
					{{Probability: 0.1, Label: 0}, {Probability: 0.05, Label: 0}},
				}, dlrmMultiHot))
			},
			scenarios: []string{"Server", "Offline"},
			line:      "AUC=93.333%, accuracy=75.000%, good=6, total=8, queries=4", code: exitcode.OK},
		// Four requests at the one inference timestamp of ten; the model
		// predicts each candidate's id / 1024 and labels a rating of 3.5
		// or more positive. The predictions are 1/8 to 7/8, a positive's
		// of 1/2^k and a negative's of 1-1/2^k, so that each cross entropy
		// is a whole number of bits and their sum (20, over 5 positives
		// and 5 negatives: NE 20/10) is the same in any order of the log.
		// 2 of 10 candidates right; every positive ranked below every
		// negative: AUC 0 in the three requests of both classes, GAUC
		// 1e-9/(3+2e-9) (torchrec's formulas, by hand; accuracy.py itself
		// needs torch and torchrec, not here).
		{name: "dlrm-v3", args: []string{"--benchmark", "dlrm-v3", "--set", "category=datacenter"}, model: "dlrmv3-signature.onnx",
			write: func(t *testing.T, dir string) {
				require.NoError(t, dlrmv3.WriteStreaming(filepath.Join(dir, dlrmv3.SampledDir), 10, [][]dlrmv3.Slot{
					dlrmv3Requester([]int64{128, 768, 512, 896}, []float32{4, 1, 5, 2}),
					dlrmv3Requester([]int64{512, 256}, []float32{2, 3.5}),
					dlrmv3Requester([]int64{256, 896, 768}, []float32{5, 3, 1}),
					dlrmv3Requester([]int64{512}, []float32{4.5}),
				}))
			},
			scenarios: []string{"Server", "Offline"},
			line:      "metric/lifetime_ne/rating: 2.0, metric/lifetime_accuracy/rating: 0.2, metric/lifetime_gauc/rating: 3.333333331111111e-10",
			code:      exitcode.AccuracyBelowTarget},
		// The decoder counts up from each prompt's last token (to its
		// vocabulary's last, 63), six tokens each; token i reads " w<i>".
		// rouge_check.py prints these lines on the runs' logs (with NLTK's
		// Punkt tokenizer over the embedded parameters for ROUGE-Lsum and
		// gen_len); tokens per sample and gen_len are far below the
		// targets.
		// llama2-70b reads OpenOrca's pandas pickle, and runs Server and
		// Interactive besides Offline (round v6.1's choice for the
		// datacenter).
		{name: "llama2-70b", model: "decoder-signature.onnx", dataset: "data/prompts.pkl",
			args: []string{"--benchmark", "llama2-70b-99.9", "--set", "category=datacenter", "--set", "onnx-ort.max_new_tokens=6",
				"--set", "accuracy.vocab=data/tokenizer.json"},
			write: func(t *testing.T, dir string) {
				writeDecoderTokenizer(t, dir)
				require.NoError(t, llm.WritePicklePrompts(filepath.Join(dir, "prompts.pkl"), decoderPrompts,
					[]string{"w31 w32 w33 w34 w35 w36", "w41 w42, w50 w51.", "W61 w62 w63", "The w51 w52 tokens."}))
			},
			scenarios: []string{"Offline", "Server", "Interactive"},
			line:      "{'rouge1': 61.6667, 'rouge2': 51.7857, 'rougeL': 61.6667, 'rougeLsum': 61.6667, 'gen_len': 92, 'gen_num': 4, 'gen_tok_len': 24, 'tokens_per_sample': 6.0}", code: exitcode.AccuracyBelowTarget},
		// References of several sentences (an abbreviation, an initial):
		// ROUGE-Lsum differs from ROUGE-L.
		{name: "llama3.1-8b", model: "decoder-signature.onnx", dataset: "data/prompts.json",
			args: []string{"--benchmark", "llama3.1-8b", "--set", "category=datacenter", "--set", "onnx-ort.max_new_tokens=6",
				"--set", "accuracy.vocab=data/tokenizer.json"},
			write:     writeLlamaFixture([]string{"w31 w32. Mr. w33 w34! w35 w36?", "w44 w43. J. w42 w41.", "W61. W62 w63.", "The w51 w52 tokens. Dr. w53 said so."}),
			scenarios: []string{"Offline"},
			line:      "{'rouge1': '68.6397', 'rouge2': '36.6342', 'rougeL': '55.0033', 'rougeLsum': '59.5488', 'gen_len': 92, 'gen_num': 4}", code: exitcode.AccuracyBelowTarget},
		// Mixtral's pickle of OpenOrca and GSM8K prompts (no MBXP ones: the
		// fake model writes no code; internal/bench/mixtral's tests run
		// MBXP's): the first GSM8K answer's last
		// number, 46, is right, the second's, 56, wrong (gsm8k 50.0);
		// evaluate-accuracy.py prints this line on the run's log
		// (tools/accuracyref/verify.sh).
		{name: "mixtral-8x7b", model: "decoder-signature.onnx", dataset: "data/data.pkl",
			args: []string{"--round", "v6.0", "--benchmark", "mixtral-8x7b", "--set", "category=datacenter", "--set", "onnx-ort.max_new_tokens=6",
				"--set", "accuracy.vocab=data/tokenizer.json"},
			write: func(t *testing.T, dir string) {
				writeDecoderTokenizer(t, dir)
				require.NoError(t, mixtral.WriteData(filepath.Join(dir, "data.pkl"), []mixtral.Row{
					{Kind: mixtral.OpenOrca, Tokens: decoderPrompts[0], Target: "w31 w32 w33. W34 w35 w36 w37."},
					{Kind: mixtral.GSM8K, Tokens: decoderPrompts[1], Target: "46"},
					{Kind: mixtral.OpenOrca, Tokens: decoderPrompts[2], Target: "W61 w62 w63"},
					{Kind: mixtral.GSM8K, Tokens: decoderPrompts[3], Target: "52"},
				}))
			},
			scenarios: []string{"Offline", "Server"},
			line:      "{'rouge1': 79.4872, 'rouge2': 74.026, 'rougeL': 79.4872, 'rougeLsum': 79.4872, 'gsm8k': 50.0, 'mbxp': 0, 'gen_len': 46, 'gen_num': 4, 'gen_tok_len': 24, 'tokens_per_sample': 6.0}",
			code:      exitcode.AccuracyBelowTarget},
		// Llama 3.1 405B's pickle, a sample of each metric: ROUGE-L; qa_em,
		// right (the generated text, spaces removed, holds "w43w44") and
		// wrong; niah_em without a UUID generated (0); evaluate-accuracy.py
		// prints this line on the run's log (tools/accuracyref/verify.sh).
		// Its keys come in the order the log first names them: the seeded
		// schedule's, the decoder answering one sample at a time.
		{name: "llama3.1-405b", model: "decoder-signature.onnx", dataset: "data/data.pkl",
			args: []string{"--round", "v6.0", "--benchmark", "llama3.1-405b", "--set", "category=datacenter", "--set", "onnx-ort.max_new_tokens=6",
				"--set", "accuracy.vocab=data/tokenizer.json"},
			write: func(t *testing.T, dir string) {
				writeDecoderTokenizer(t, dir)
				require.NoError(t, llama405b.WriteData(filepath.Join(dir, "data.pkl"), []llama405b.Row{
					{Tokens: decoderPrompts[0], Target: "w31 w32 w33 w34", Metric: llama405b.MetricROUGE},
					{Tokens: decoderPrompts[1], Target: "w43 w44|w99", Metric: llama405b.MetricQA},
					{Tokens: decoderPrompts[2], Target: "the key is 3f2a9c1e-7b4d-4e2a-9f1c-0a1b2c3d4e5f", Metric: llama405b.MetricNIAH},
					{Tokens: decoderPrompts[3], Target: "Paris", Metric: llama405b.MetricQA},
				}))
			},
			scenarios: []string{"Offline", "Server", "Interactive"},
			line:      "{'exact_match': 33.333333333333336, 'rougeL': 80.0, 'gen_len': 92, 'gen_num': 4, 'gen_tok_len': 24, 'tokens_per_sample': 6.0}",
			code:      exitcode.AccuracyBelowTarget},
		// The decoder counts up from each prompt's last token, six tokens
		// each, over a vocabulary whose runs spell answers: "ANSWER: B.",
		// "\boxed{7}", "Answer: 12", a Python block printing 2 (run
		// in the code sandbox against the one LiveCodeBench problem, in
		// Offline, Server and Interactive) and a wrong letter: 4 of 5
		// right. eval_accuracy.py prints this line on the run's log
		// (tools/accuracyref/verify.sh).
		{name: "deepseek-r1", model: "decoder-signature.onnx", dataset: "data/dataset.pkl",
			args: []string{"--benchmark", "deepseek-r1", "--set", "category=datacenter", "--set", "onnx-ort.max_new_tokens=6",
				"--set", "accuracy.vocab=data/tokenizer.json", "--set", "accuracy.problems=data/problems.jsonl"},
			write:     writeDeepSeekFixture,
			scenarios: []string{"Offline", "Server", "Interactive"},
			line:      "{'exact_match': 80.0, 'tokens_per_sample': 6.0, 'num-samples': 5}", code: exitcode.AccuracyBelowTarget},
		// gpt-oss-120b's accuracy set in the reference's pickled
		// DataFrame: the decoder's six tokens after each prompt decode, with
		// the fixture's tokenizer, to a harmony final channel, a \boxed{42},
		// a "Final Answer: (B)", an "Answer:" after a decimal, or nothing
		// (gptoss.DecoderVocab); 2 of 4 AIME and 2 of 4 GPQA answers are
		// right. eval_mlperf_accuracy.py prints this line on the run's log
		// (tools/accuracyref/verify.sh), far below the target. Offline,
		// Server and Interactive (round 6.1's datacenter scenarios).
		{name: "gpt-oss-120b", model: "decoder-signature.onnx", dataset: "data/acc_eval_inputs.pkl",
			args: []string{"--benchmark", "gpt-oss-120b", "--set", "category=datacenter", "--set", "onnx-ort.max_new_tokens=6",
				"--set", "accuracy.vocab=data/tokenizer.json"},
			write:     writeGptossFixture,
			scenarios: []string{"Offline", "Server", "Interactive"},
			line:      "'exact_match': 50.000", code: exitcode.AccuracyBelowTarget},
		// The same accuracy set in the reference's Parquet form (the ground
		// truths strings, as a Parquet column holds one type).
		{name: "gpt-oss-120b-parquet", model: "decoder-signature.onnx", dataset: "data/acc_eval_inputs.parquet",
			args: []string{"--benchmark", "gpt-oss-120b", "--set", "category=datacenter", "--set", "onnx-ort.max_new_tokens=6",
				"--set", "accuracy.vocab=data/tokenizer.json"},
			write: func(t *testing.T, dir string) {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				samples := gptoss.DecoderAccuracySet()
				samples[7].Truth = "5"
				require.NoError(t, gptoss.WriteParquetSet(filepath.Join(dir, "acc_eval_inputs.parquet"), samples, true))
				require.NoError(t, gptoss.WriteDecoderTokenizer(dir))
			},
			scenarios: []string{"Offline"},
			line:      "'exact_match': 50.000", code: exitcode.AccuracyBelowTarget},
		// Each utterance's audio says its Spoken text in the tone code the
		// signature model reads back from the log-mel features (80 bins),
		// one character a token; the other two utterances are not samples
		// (over 30 s, a transcript that is not a string). Normalized, the
		// references have 12 words ("mr" and "mister", "$10" and "ten
		// dollars", "colour" and "color" agree) and the transcripts two
		// wrong ("read", "honr"), WER 2/12; accuracy_eval.py prints this
		// line on the run's log (tools/accuracyref/verify.sh).
		{name: "whisper", model: "whisper-signature.onnx",
			args: []string{"--benchmark", "whisper", "--set", "audio_features=mel80", "--set", "onnx-ort.decoder_prompt=43",
				"--set", "onnx-ort.eos_token_id=42", "--set", "accuracy.vocab=data/english.json"},
			write: func(t *testing.T, dir string) {
				require.NoError(t, whisper.WriteLibriSpeech(dir, []whisper.LibriSpeechUtterance{
					{Transcript: "hello world", Spoken: "hello world"},
					{Transcript: "the colour is red", Spoken: "the color is read"},
					{Transcript: "far too long", Spoken: "far", Duration: 31},
					{Transcript: nil, Spoken: "none"},
					{Transcript: "mister smith paid ten dollars", Spoken: "mr smith paid $10"},
					{Transcript: "an honour", Spoken: "an honr"},
				}))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "english.json"), []byte(`{"colour": "color", "honour": "honor"}`), 0o644))
			},
			scenarios: []string{"Offline"},
			line:      "Word Error Rate: 16.666666666666664%, accuracy=83.33333333333334%", code: exitcode.AccuracyBelowTarget},
		// YOLO: the model answers each class's box and score that the
		// image's cells encode (yolo.Detection); the onnx plugin's
		// response=yolo scales them back through the letterbox. Image
		// 139 (640×576, 32 rows of border) finds its person exactly and
		// its car at IoU 0.62 (3 of COCOeval's 10 thresholds: AP 0.3); 285
		// (320×288, grown twice) and 632 (576×640) have no detections,
		// 632's bicycle is missed: person AP 1, car 0.3, bicycle 0, mAP
		// 43.333%; accuracy-coco.py prints it on the run's log
		// (tools/accuracyref/verify.sh).
		{name: "yolo", args: []string{"--benchmark", "yolo-99"}, model: "yolo-signature.onnx",
			write: func(t *testing.T, dir string) {
				person := yolo.Detection{Class: 0, CX: 100, CY: 120, W: 40, H: 60, Score: 230}
				car := yolo.Detection{Class: 2, CX: 160, CY: 100, W: 50, H: 50, Score: 200}
				carTruth := yolo.TruthOf(car, 640, 576)
				carTruth.W *= 0.62
				require.NoError(t, yolo.WriteCOCO(dir, []yolo.Image{
					{FileName: "000000000139.jpg", ID: 139, Width: 640, Height: 576, Detections: []yolo.Detection{person, car},
						Truth: []yolo.Object{yolo.TruthOf(person, 640, 576), carTruth}},
					{FileName: "000000000285.jpg", ID: 285, Width: 320, Height: 288},
					{FileName: "000000000632.jpg", ID: 632, Width: 576, Height: 640,
						Truth: []yolo.Object{{X: 10, Y: 20, W: 100, H: 100, Category: 2}}},
				}, []int{1, 2, 3}))
			},
			scenarios: []string{"SingleStream", "MultiStream", "Offline"},
			line:      "mAP=43.333%", code: exitcode.AccuracyBelowTarget},
		// yolo.DetectionSet (tools/yoloset's data set, of the round's 1525
		// images there): every image's boxes found exactly, the border
		// slots' answers in categories without ground truth, mAP 100%;
		// accuracy-coco.py prints it on the run's log (on 1525 images
		// too, docs/submission.md). The accuracy run alone.
		{name: "yolo-detectionset", args: []string{"--benchmark", "yolo-99"}, model: "yolo-signature.onnx",
			write: func(t *testing.T, dir string) {
				require.NoError(t, yolo.WriteCOCO(dir, yolo.DetectionSet(6), yolo.DetectionSetCategories()))
			},
			line: "mAP=100.000%", code: exitcode.OK},
		// R-GAT: twelve validation papers of sixty, each sample its
		// sampled neighbourhood; the model answers the seed's first
		// feature, its label but for three papers whose feature is one
		// more, so 9 of 12 (75%, over rgat's 72.13) are right, one of
		// class 300, which only an int64 holds; accuracy_igbh.py
		// --dtype int64 writes this line on the run's log
		// (tools/accuracyref/verify.sh).
		{name: "rgat", model: "rgat-signature.onnx",
			args: []string{"--benchmark", "rgat", "--set", "category=datacenter", "--set", "graph_sample=neighbourhood", "--set", "accuracy.dtype=int64"},
			write: func(t *testing.T, dir string) {
				f := rgat.NewFixture(3, 60, rgat.FeatureDim, 12)
				f.Labels[f.ValIdx[0]] = 300
				label, wrong := f.Feature, map[int64]bool{f.ValIdx[2]: true, f.ValIdx[5]: true, f.ValIdx[9]: true}
				f.Feature = func(nodeType, id int) []float32 {
					v := label(nodeType, id)
					if nodeType == 0 && wrong[int64(id)] {
						v[0]++
					}
					return v
				}
				require.NoError(t, rgat.WriteIGBH(dir, "tiny", f))
			},
			scenarios: []string{"Offline"},
			line:      "accuracy=75.000%, good=9, total=12", code: exitcode.OK},
		// Five captions and latents of 2×2 cells: the signature model
		// makes 16×16 images of them. The scores come from the features
		// directory the case writes (the networks are not here): the
		// generated features' mean is (1, 2) and their covariance the
		// identity, the reference's mean 0 and covariance diag(4, 9),
		// FID 1+4 + 13 + 2 - 2(2+3) = 10; three image embeddings along
		// their text's, two across: CLIP 60 (both by hand). FID is below
		// the round's lower bound.
		{name: "stable-diffusion-xl", args: []string{"--benchmark", "stable-diffusion-xl", "--set", "category=datacenter,edge", "--set", "accuracy.features=data/features"},
			model:     "sdxl-signature.onnx",
			write:     writeSDXLFixture([]float64{1, 2}, [][]float32{{2, 0}, {0, 3}, {0, 3}, {2, 0}, {5, 0}}),
			scenarios: []string{"SingleStream", "Offline", "Server"},
			line:      "Accuracy Results: {'FID_SCORE': '10.0', 'CLIP_SCORE': '60.0'}", code: exitcode.AccuracyBelowTarget},
		// Five prompts with a latent of 2 frames of 1×1: the signature
		// model makes videos of 5 frames of 8×8 of one colour (the
		// prompt's first byte, the latent's first two channels). VBench
		// cannot run here: the run is unscored and `accuracy` writes the
		// frames and the commands (checkWanVideos).
		{name: "wan-2.2-t2v-a14b", args: []string{"--benchmark", "wan-2.2-t2v-a14b", "--set", "category=datacenter"}, model: "wan-signature.onnx",
			write: func(t *testing.T, dir string) {
				require.NoError(t, wan.WriteData(dir, wan.FixturePrompts, 2, 1, 1, 5))
			},
			scenarios: []string{"SingleStream", "Offline"}, unscored: checkWanVideos},
	}
	return append(fs, cachedFixtures(fs)...)
}

// cachedFixtures are the llama3.1-8b and whisper cases again on models
// with a key-value cache, as Hugging Face optimum exports them (a
// decoder's model.onnx; Whisper's directory of encoder_model.onnx and
// decoder_model_merged.onnx): those models answer what their cache holds,
// so the same data sets score the same lines only when the plugin feeds
// the cache as the export wants. Each runs again with its weights in
// external data files (testdata/benchmarks/external).
func cachedFixtures(fs []benchFixture) []benchFixture {
	models := map[string]string{"llama3.1-8b": "decoder-kv-signature.onnx", "whisper": "whisper-kv-signature"}
	var out []benchFixture
	for _, f := range fs {
		if m, ok := models[f.name]; ok {
			f.name, f.model = f.name+"-kv", m
			out = append(out, f)
			// And with the weights in external data files beside the
			// graphs, as exports over 2 GB keep them.
			f.name, f.model = f.name+"-external", filepath.Join("external", m)
			out = append(out, f)
		}
	}
	return out
}

// dlrmMultiHot are DLRMv2's multi-hot sizes, the signature model's.
var dlrmMultiHot = []int{3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1}

// dlrmv3Requester is a user of a ten-timestamp streaming data set with a
// history (its first slot) and one request, at the inference timestamp.
func dlrmv3Requester(ids []int64, ratings []float32) []dlrmv3.Slot {
	slots := make([]dlrmv3.Slot, 12)
	slots[0] = dlrmv3.Slot{CandidateIDs: []int64{5}, CandidateRatings: []float32{3}, HistoryIDs: []int64{11, 12}, HistoryRatings: []float32{4, 2}}
	slots[11] = dlrmv3.Slot{CandidateIDs: ids, CandidateRatings: ratings}
	return slots
}

// kitsCase is a KiTS19 case whose voxel v is of class (v/7)%3, predicted
// as the next class where v is a multiple of every.
func kitsCase(name string, d, h, w, every int) unet3d.FixtureCase {
	n := d * h * w
	c := unet3d.FixtureCase{Name: name, D: d, H: h, W: w, Truth: make([]byte, n), Predicted: make([]byte, n)}
	for v := range n {
		c.Truth[v] = byte((v / 7) % 3)
		c.Predicted[v] = c.Truth[v]
		if v%every == 0 {
			c.Predicted[v] = (c.Truth[v] + 1) % 3
		}
	}
	return c
}

// keepBenchEnv names a directory where TestBenchmarksEndToEnd leaves
// each benchmark's data set and logs (DIR/NAME/data, DIR/NAME/acc), for
// tools/accuracyref/verify.sh to score with the official scripts.
const keepBenchEnv = "MLPERF_HOST_BENCH_KEEP"

// TestBenchmarksEndToEnd runs each benchmark as a vendor holding its data
// and model would: `run --benchmark B --dataset DIR --model M` on the
// native onnx plugin, a performance run in each required scenario, an
// accuracy run scored with the benchmark's scorer into accuracy.txt, and
// `accuracy` on its log printing the official line again.
func TestBenchmarksEndToEnd(t *testing.T) {
	t.Parallel()
	plugins, _ := onnxOrt(t)
	models, err := filepath.Abs(filepath.Join("testdata", "benchmarks"))
	require.NoError(t, err)
	for _, tt := range benchFixtures() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if keep := os.Getenv(keepBenchEnv); keep != "" {
				dir = filepath.Join(keep, tt.name)
				require.NoError(t, os.MkdirAll(dir, 0o755))
			}
			tt.write(t, filepath.Join(dir, "data"))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(benchConf), 0o644))
			dataset := tt.dataset
			if dataset == "" {
				dataset = "data"
			}
			base := append([]string{"run", "--dataset", dataset, "--model", filepath.Join(models, tt.model),
				"--plugin", "onnx-ort", "--plugin-dirs", plugins, "--user-conf", "user.conf"}, tt.args...)

			for _, sc := range tt.scenarios {
				out := "perf-" + sc
				r := mlperfHost(t, dir, append(base, "--scenario", sc, "--out", out)...)
				require.Contains(t, []exitcode.Code{exitcode.OK, exitcode.InvalidResult}, r.code, "%s\nstdout:\n%s\nstderr:\n%s", sc, r.stdout, r.stderr)
				assertVerdict(t, r, filepath.Join(dir, out))
			}

			if tt.unscored != nil {
				tt.unscored(t, dir, base)
				return
			}
			r := mlperfHost(t, dir, append(base, "--mode", "accuracy", "--out", "acc")...)
			require.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tt.line)
			b, err := os.ReadFile(filepath.Join(dir, "acc", "accuracy.txt"))
			require.NoError(t, err)
			assert.Equal(t, tt.line+"\n", string(b))

			r = mlperfHost(t, dir, append(append([]string{"accuracy", "--dataset", dataset}, tt.args...), filepath.Join("acc", "mlperf_log_accuracy.json"))...)
			require.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tt.line+"\n")
		})
	}
}

// TestBenchmarksEndToEndCoverTheRegistry: every benchmark of the
// registry (internal/bench) has a case in benchFixtures, but the demo,
// which the demo's own tests run: a benchmark added to the table fails
// here until its end-to-end case is added.
func TestBenchmarksEndToEndCoverTheRegistry(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, f := range benchFixtures() {
		round, name := benchmarks.Newest, ""
		for i := 0; i+1 < len(f.args); i++ {
			switch f.args[i] {
			case "--round":
				round = f.args[i+1]
			case "--benchmark":
				name = f.args[i+1]
			}
		}
		r, err := benchmarks.LookupRound(round)
		require.NoError(t, err, f.name)
		b, err := r.Lookup(name)
		require.NoError(t, err, f.name)
		row, ok := bench.For(b.Name)
		require.True(t, ok, "case %s: benchmark %s has no row in the registry", f.name, name)
		covered[row.Names[0]] = true
	}
	// Benchmarks whose end-to-end test is one of their own, through
	// another plugin than onnx-ort's: the test that runs each.
	for name := range benchmarksEndToEndElsewhere {
		covered[name] = true
	}
	for _, row := range bench.Rows() {
		if slices.Contains(row.Names, benchmarks.DemoName) {
			continue
		}
		assert.True(t, covered[row.Names[0]], "benchmark %v (internal/bench/%s) has no end-to-end case", row.Names, row.Package)
	}
}

// benchmarksEndToEndElsewhere names, by registry row, the benchmarks run
// end to end by a test of their own rather than by a case of
// TestBenchmarksEndToEnd.
var benchmarksEndToEndElsewhere = map[string]func(*testing.T){
	"qwen3-vl-235b-a22b": TestQwen3VLEndToEnd, // the openai plugin against a canned VLM
}

// writeDeepSeekFixture writes deepseek-r1's data set in the reference's
// pickle: five prompts ending in 9, 19, 29, 39 and 49, whose six next
// tokens spell an answer, the tokenizer that spells them and the
// LiveCodeBench problem q1 (no input, "2" out).
func writeDeepSeekFixture(t *testing.T, dir string) {
	require.NoError(t, os.MkdirAll(dir, 0o755))
	rows := []deepseekr1.FixtureRow{
		{Dataset: "gpqa", Truth: "B", Prompt: []int32{1, 9}},
		{Dataset: "math500", Truth: "7", Prompt: []int32{1, 19}},
		{Dataset: "aime2024", Truth: 12, Prompt: []int32{1, 29}},
		{Dataset: "livecodebench", Truth: "q1", Prompt: []int32{1, 39}},
		{Dataset: "mmlu_pro", Truth: "C", Prompt: []int32{1, 49}},
	}
	require.NoError(t, deepseekr1.WriteSet(filepath.Join(dir, "dataset.pkl"), rows))
	vocab := make([]string, 64)
	for i := range vocab {
		vocab[i] = "\u0120w" + strconv.Itoa(i)
	}
	// Byte-level tokens (\u0120 is a space, \u010a a newline), each
	// run's distinct from the others'.
	for i, run := range [][]string{
		{"ANSWER", ":", "\u0120B", ".", "\u0120so", "\u0120there"},
		{"\\", "boxed", "{", "7", "}", "\u0120done"},
		{"Answer", ":\u0120", "12", "\u0120", "ok", "!"},
		{"```", "python", "\u010a", "print(2)", "\u010a```", "\u0120end"},
		{"FINAL", "\u0120ANSWER", "=", "\u0120D", "..", "\u0120hm"},
	} {
		for k, tok := range run {
			vocab[10*(i+1)+k] = tok
		}
	}
	require.NoError(t, hftokenizer.WriteByteLevel(filepath.Join(dir, "tokenizer.json"), vocab, map[int]string{0: "<unk>", 1: "<s>", 2: "</s>"}))
	require.NoError(t, livecodebench.WriteProblems(filepath.Join(dir, "problems.jsonl"),
		map[string]livecodebench.Problem{"q1": {Inputs: []string{""}, Outputs: []string{"2\n"}}}, []string{"q1"}))
}

// decoderPrompts are the prompts of the LLM cases: the decoder counts up
// from each one's last token.
var decoderPrompts = [][]int32{{1, 20, 30}, {1, 40}, {1, 60}, {1, 50}}

// writeLlamaFixture writes the four prompts with the reference outputs
// targets and the decoder's tokenizer.
func writeLlamaFixture(targets []string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		writeDecoderTokenizer(t, dir)
		require.NoError(t, llm.WritePrompts(filepath.Join(dir, "prompts.json"), decoderPrompts, targets))
	}
}

// writeDecoderTokenizer writes the decoder's byte-level tokenizer into
// dir: 64 tokens " w<i>", the first three special.
func writeDecoderTokenizer(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	vocab := make([]string, 64)
	for i := range vocab {
		vocab[i] = "\u0120w" + strconv.Itoa(i)
	}
	require.NoError(t, hftokenizer.WriteByteLevel(filepath.Join(dir, "tokenizer.json"), vocab, map[int]string{0: "<unk>", 1: "<s>", 2: "</s>"}))
}

// writeSDXLFixture writes five captions with latents of 2×2 cells (16×16
// images from sdxl-signature) and a features directory (features/): the
// reference statistics mean 0 and covariance diag(4, 9), the images'
// Inception features of the given mean and identity covariance (so FID
// is |mean|² + 5), image embeddings (1, 0) and (0, 1) alternately and
// the text embeddings txt.
func writeSDXLFixture(mean []float64, txt [][]float32) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		require.NoError(t, sdxl.WriteCOCO(dir, sdxl.GenerateCaptions(5, []string{"A cat.", "Two kites on a beach.", `A board that says "exit".`}),
			sdxl.GenerateLatents(3, 16), 16, false))
		ref := sdxl.Statistics{Mu: []float64{0, 0}, Sigma: []float64{4, 0, 0, 9}}
		var inception [][]float64
		for _, d := range [][2]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}, {0, 0}} {
			inception = append(inception, []float64{mean[0] + d[0], mean[1] + d[1]})
		}
		img := [][]float32{{1, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 0}}
		require.NoError(t, sdxl.WriteFeatures(filepath.Join(dir, "features"), ref, inception, img, txt))
	}
}

// checkWanVideos runs wan-2.2's accuracy run, which VBench's networks
// would score, and `accuracy` on its log: the frames of every video are
// the signature model's colour, (x × 255) truncated as export_to_video
// converts them, and the printed command runs the official evaluation on
// the videos the script encodes.
func checkWanVideos(t *testing.T, dir string, run []string) {
	t.Helper()
	r := mlperfHost(t, dir, append(run, "--mode", "accuracy", "--out", "acc")...)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "not scored: the vbench scorer's metric needs VBench's networks")
	assert.NoFileExists(t, filepath.Join(dir, "acc", "accuracy.txt"))

	r = mlperfHost(t, dir, "accuracy", "--dataset", "data", "--benchmark", "wan-2.2-t2v-a14b", "--set", "category=datacenter", filepath.Join("acc", "mlperf_log_accuracy.json"))
	require.Equal(t, exitcode.Dataset, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	acc, err := filepath.Abs(filepath.Join(dir, "acc"))
	require.NoError(t, err)
	assert.Contains(t, r.stdout, "wrote the frames of 5 videos of 5 frames of 8×8")
	assert.Contains(t, r.stdout, wan.Command(acc, filepath.Join(acc, "evaluation_results")))
	assert.Contains(t, r.stderr, "not scored")
	d, err := wan.OpenData(filepath.Join(dir, "data"))
	require.NoError(t, err)
	lat, _, err := wan.ReadLatent(filepath.Join(dir, "data", wan.LatentFile))
	require.NoError(t, err)
	for i, p := range wan.FixturePrompts {
		frames, err := os.ReadFile(filepath.Join(acc, wan.FramesDir, strconv.Itoa(i)+".rgb"))
		require.NoError(t, err)
		require.Len(t, frames, 3*d.Video.Pixels())
		// The model's float32 operations, one rounding each.
		red := float32(p[0]) * float32(1.0/255)
		g := min(max(float32(lat.Values[0]*0.25)+0.5, 0), 1)
		bl := min(max(float32(lat.Values[2]*0.25)+0.5, 0), 1)
		want := []byte{byte(red * 255), byte(g * 255), byte(bl * 255)}
		for k := 0; k < len(frames); k += 3 {
			require.Equal(t, want, frames[k:k+3], "video %d pixel %d", i, k/3)
		}
	}
	script, err := os.ReadFile(filepath.Join(acc, wan.EncodeScript))
	require.NoError(t, err)
	assert.Contains(t, string(script), "'vbench_videos/a person'\\''s dog running on the beach-0.mp4'")
}

// writeGptossFixture writes gpt-oss-120b's accuracy set for the decoder
// and its tokenizer.
func writeGptossFixture(t *testing.T, dir string) {
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, gptoss.WriteSet(filepath.Join(dir, "acc_eval_inputs.pkl"), gptoss.DecoderAccuracySet(), true))
	require.NoError(t, gptoss.WriteDecoderTokenizer(dir))
}
