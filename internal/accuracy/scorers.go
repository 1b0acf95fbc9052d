package accuracy

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Score is what a scorer found.
type Score interface {
	// Text is the line the official script prints, which accuracy.txt
	// holds and the submission checker reads.
	Text() string
	// Value returns the score in the unit of a quality target of metric
	// m, and false when the scorer does not measure m.
	Value(m benchmarks.Metric) (float64, bool)
}

// Detailer is implemented by the scores whose official script prints
// more than the line accuracy.txt holds (qwen3-vl's results table,
// gpt-oss-120b's per-dataset breakdown): the accuracy command prints
// Details after the line and the targets, for a reader.
type Detailer interface {
	Details() string
}

// Reporter is implemented by the scores whose official script's standard
// output must be reproduced byte for byte (gpt-oss-120b's, which TEST07's
// verify_accuracy.txt holds as run_verification.py captures it): Report
// is all the script prints, the line included, in its order.
//
// It is not Detailer: Details is text shown beside the line, in
// mlperf-host's order, where Report is the script's stdout in the
// script's (gpt-oss-120b's breakdown comes before its line, with the
// script's own separators), which no Details and Text can rebuild for
// every script. A score may implement both, Details cut from its Report.
type Reporter interface {
	Report() string
}

// Output is what the official script prints of s: its Report where it
// has one, else its line.
func Output(s Score) string {
	if r, ok := s.(Reporter); ok {
		return r.Report()
	}
	return s.Text() + "\n"
}

// Inputs are what a scorer reads besides the accuracy log, named as the
// official scripts' arguments are.
type Inputs struct {
	// Truth is the ground truth: the OpenImages directory
	// (annotations/openimages-mlperf.json), the preprocessed KiTS19
	// directory (nifti/), DLRM's day-23 file (with Trace; empty when the
	// log holds the labels), ...
	Truth string
	// Trace is DLRM's aggregation trace (dlrm_trace_of_aggregated_samples.txt).
	Trace string
	// Vocab is the tokenizer's vocabulary: BERT's vocab.txt, an LLM's
	// tokenizer.json; for Whisper the normalizer's spelling table,
	// openai-whisper's normalizers/english.json.
	Vocab string
	// InvMap is accuracy-openimages.py's --use-inv-map.
	InvMap bool
	// RemoveEmptyImages is accuracy-coco.py's --remove-48-empty-images:
	// qsl_idx indexes the images that have annotations.
	RemoveEmptyImages bool
	// Dtype is the response's data type where the script takes one
	// (--output_dtype); empty for the script's default.
	Dtype string
	// Targets are an LLM data set's reference outputs, by sample, which
	// the caller reads from Truth with Scorer.Targets.
	Targets []string
	// Punkt is NLTK's punkt_tab/<language> directory, whose parameters
	// split an LLM's texts into sentences; empty for the embedded English
	// ones.
	Punkt string
	// Features is the directory of the networks' outputs a scorer whose
	// metric needs a network reads instead (SDXL's Inception-v3 features
	// and CLIP embeddings).
	Features string
	// Problems are LiveCodeBench's problems files, separated by commas
	// (code_generation_lite's test.jsonl, ..., test6.jsonl), whose tests
	// deepseek-r1's and gpt-oss-120b's code answers run against.
	Problems string
	// Launcher is the code sandbox's launcher (the mlperf-host binary),
	// which runs generated programs confined.
	Launcher string
	// Workers is how many programs a scorer that runs them runs at once
	// (mixtral-8x7b's evaluate-accuracy.py --n_workers); 0 for the
	// script's default.
	Workers int
	// Context, where set, cancels a scorer that runs programs.
	Context context.Context
}

// Scorer scores one benchmark's accuracy logs as its official script:
// a benchmark's package (internal/bench/...) defines it, the registry's
// row names it.
type Scorer struct {
	// Name is how users pick it (`accuracy --scorer`): "openimages",
	// "kits19", ...
	Name string
	// Script is the official script's path in mlcommons/inference.
	Script string
	// Needs lists the inputs it cannot score without: "truth", "vocab",
	// "features".
	Needs []string
	// VocabIs names the file it reads as Inputs.Vocab; "" for a
	// tokenizer's vocabulary.
	VocabIs string
	// Targets, where set, reads the reference outputs from the ground
	// truth (Inputs.Truth) into Inputs.Targets before Score: an LLM
	// data set's prompts file holds them.
	Targets func(truth string) ([]string, error)
	// Tokens: the responses are generated token ids, whose type
	// (Inputs.Dtype) defaults to the one the plugins answer in
	// (test06.dtype).
	Tokens bool
	// Networks, where set, names the networks the metric needs that
	// mlperf-host cannot run (wan-2.2's VBench): a run leaves its log
	// unscored saying so, and `accuracy` writes what the official
	// evaluation reads and prints its command.
	Networks string
	Score    func(log io.Reader, in Inputs) (Score, error)
}

// The inputs a scorer may need (Scorer.Needs).
const (
	NeedTruth    = "truth"
	NeedVocab    = "vocab"
	NeedFeatures = "features"
)

// OpenInput opens path, one of a scorer's inputs, naming it as what in
// the error (the scorer's flag: "squad dev-v1.1.json (--truth)").
func OpenInput(what, path string) (*os.File, error) {
	if path == "" {
		return nil, fmt.Errorf("%s: no path given", what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return f, nil
}
