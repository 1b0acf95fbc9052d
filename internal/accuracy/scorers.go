package accuracy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/hftokenizer"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/punkt"
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
	// Dtype is the response's data type where the script takes one
	// (--output_dtype); empty for the script's default.
	Dtype string
	// Targets are an LLM data set's reference outputs, by sample, which
	// the caller reads from Truth (the prompts file's output column).
	Targets []string
	// Punkt is NLTK's punkt_tab/<language> directory, whose parameters
	// split an LLM's texts into sentences; empty for the embedded English
	// ones.
	Punkt string
}

// Scorer scores one benchmark's accuracy logs as its official script.
type Scorer struct {
	// Name is how users pick it: "openimages", "kits19", ...
	Name string
	// Script is the official script's path in mlcommons/inference.
	Script string
	// Benchmarks are the table names it scores by default.
	Benchmarks []string
	// Needs lists the inputs it cannot score without: "truth", "vocab".
	Needs []string
	// VocabIs names the file it reads as Inputs.Vocab; "" for a
	// tokenizer's vocabulary.
	VocabIs string
	Score   func(log io.Reader, in Inputs) (Score, error)
}

// The inputs a scorer may need (Scorer.Needs).
const (
	NeedTruth = "truth"
	NeedVocab = "vocab"
	// NeedTargets: the caller reads Inputs.Targets from Truth.
	NeedTargets = "targets"
)

// ErrNoScorer is wrapped by LookupScorer's errors.
var ErrNoScorer = errors.New("no scorer")

// Scorers lists the scorers besides top-1 (which reads the data set's
// labels, see [Top1]).
func Scorers() []Scorer {
	return []Scorer{
		{Name: "openimages", Script: "vision/classification_and_detection/tools/accuracy-openimages.py",
			Benchmarks: []string{"retinanet"}, Needs: []string{NeedTruth}, Score: scoreOpenImages},
		{Name: "kits19", Script: "vision/medical_imaging/3d-unet-kits19/accuracy_kits.py",
			Benchmarks: []string{"3d-unet"}, Needs: []string{NeedTruth}, Score: scoreKiTS},
		{Name: "dlrm", Script: "recommendation/dlrm_v2/pytorch/tools/accuracy-dlrm.py",
			Benchmarks: []string{"dlrm-v2"}, Score: scoreDLRM},
		{Name: "squad", Script: "language/bert/accuracy-squad.py",
			Benchmarks: []string{"bert"}, Needs: []string{NeedTruth, NeedVocab}, Score: scoreSQuAD},
		{Name: "rouge", Script: "language/llama2-70b/evaluate-accuracy.py",
			Benchmarks: []string{"llama2-70b"}, Needs: []string{NeedTruth, NeedVocab, NeedTargets}, Score: scoreROUGE(EvaluateAccuracy)},
		{Name: "cnndm", Script: "language/llama3.1-8b/evaluation.py",
			Benchmarks: []string{"llama3_1-8b", "llama3_1-8b-edge"}, Needs: []string{NeedTruth, NeedVocab, NeedTargets}, Score: scoreROUGE(Evaluation)},
		{Name: "whisper", Script: "speech2text/accuracy_eval.py", Benchmarks: []string{"whisper"},
			Needs: []string{NeedTruth, NeedVocab}, VocabIs: "openai-whisper's normalizers/english.json (its spelling table)", Score: scoreWER},
	}
}

// ScorerNames lists the names LookupScorer takes, "imagenet" (top-1)
// first.
func ScorerNames() []string {
	names := []string{"imagenet"}
	for _, s := range Scorers() {
		names = append(names, s.Name)
	}
	return names
}

// LookupScorer returns the scorer called name, or the default one of
// benchmark when name is empty. ok is false for top-1 ("imagenet", and
// the default of resnet50 and the demo), which the caller scores with
// the data set's labels.
func LookupScorer(name, benchmark string) (s Scorer, ok bool, err error) {
	for _, s := range Scorers() {
		if s.Name == name || name == "" && slices.Contains(s.Benchmarks, benchmark) {
			return s, true, nil
		}
	}
	if name == "" || name == "imagenet" {
		return Scorer{}, false, nil
	}
	return Scorer{}, false, fmt.Errorf("%w %q: want one of %s", ErrNoScorer, name, strings.Join(ScorerNames(), ", "))
}

// Value implements Score.
func (r MAPResult) Value(m benchmarks.Metric) (float64, bool) { return r.MAP, m == benchmarks.MAP }

// Value implements Score.
func (r AUCResult) Value(m benchmarks.Metric) (float64, bool) { return r.AUC, m == benchmarks.AUC }

// Value implements Score.
func (r DiceResult) Value(m benchmarks.Metric) (float64, bool) { return r.Mean, m == benchmarks.DICE }

func openIn(what, path string) (*os.File, error) {
	if path == "" {
		return nil, fmt.Errorf("%s: no path given", what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return f, nil
}

func scoreOpenImages(log io.Reader, in Inputs) (Score, error) {
	path := in.Truth
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "annotations", "openimages-mlperf.json")
	}
	f, err := openIn("openimages annotations", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ann, err := ReadAnnotations(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return OpenImagesMAP(log, ann, in.InvMap)
}

func scoreKiTS(log io.Reader, in Inputs) (Score, error) {
	if in.Truth == "" {
		return nil, errors.New("kits19: no preprocessed data directory given")
	}
	cases, err := ReadKiTSTruth(in.Truth)
	if err != nil {
		return nil, err
	}
	dtype := in.Dtype
	if dtype == "" {
		dtype = "uint8"
	}
	return KiTSDice(log, cases, dtype)
}

func scoreDLRM(log io.Reader, in Inputs) (Score, error) {
	if in.Dtype != "" && in.Dtype != "float32" {
		return nil, fmt.Errorf("dlrm: response dtype %q: only float32 (the reference's) is read", in.Dtype)
	}
	if in.Truth == "" {
		return AUC(log, nil)
	}
	day, err := openIn("dlrm day-23 file", in.Truth)
	if err != nil {
		return nil, err
	}
	defer day.Close()
	trace, err := openIn("dlrm aggregation trace", in.Trace)
	if err != nil {
		return nil, err
	}
	defer trace.Close()
	labels, err := ReadDLRMLabels(day, trace)
	if err != nil {
		return nil, err
	}
	return AUC(log, labels)
}

func scoreSQuAD(log io.Reader, in Inputs) (Score, error) {
	vf, err := openIn("bert vocab.txt (--vocab)", in.Vocab)
	if err != nil {
		return nil, err
	}
	defer vf.Close()
	vocab, err := ReadVocab(vf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Vocab, err)
	}
	df, err := openIn("squad dev-v1.1.json (--truth)", in.Truth)
	if err != nil {
		return nil, err
	}
	defer df.Close()
	s, err := ReadSQuAD(df, vocab)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Truth, err)
	}
	return s.Score(log, in.Dtype)
}

// scoreROUGE scores as script does, splitting sentences with the Punkt
// parameters of Inputs.Punkt, else the embedded English ones.
func scoreROUGE(script LLMScript) func(io.Reader, Inputs) (Score, error) {
	return func(log io.Reader, in Inputs) (Score, error) {
		if in.Targets == nil {
			return nil, errors.New("rouge: no reference outputs: the prompts file's output column holds them")
		}
		if in.Vocab == "" {
			return nil, errors.New("rouge: no tokenizer.json given")
		}
		tok, err := hftokenizer.Read(in.Vocab)
		if err != nil {
			return nil, err
		}
		var p *punkt.Params
		if in.Punkt != "" {
			p, err = punkt.ReadTab(in.Punkt)
		} else {
			p, err = punkt.English()
		}
		if err != nil {
			return nil, fmt.Errorf("rouge: sentence splitter: %w", err)
		}
		return ROUGE(log, tok, in.Targets, in.Dtype, punkt.NewTokenizer(p), script)
	}
}
