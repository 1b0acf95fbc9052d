package llama405b

import (
	"fmt"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The reference's data set (mlperf_llama3.1_405b_dataset_8313_processed_fp16_eval.pkl)
// is a pandas DataFrame; dataset.py reads the prompts' token ids from
// "tok_input", evaluate-accuracy.py each sample's reference from
// "gt_output" and the metric it is scored by from "metric" (rouge,
// niah_em or qa_em).
const (
	targetColumn = "gt_output"
	metricColumn = "metric"
)

// The metrics of column "metric".
const (
	MetricROUGE = "rouge"
	MetricNIAH  = "niah_em"
	MetricQA    = "qa_em"
)

// Data is the data set: by row, the prompt's token ids, its reference
// and its metric.
type Data struct {
	Path    string
	Tokens  [][]int32
	Targets []string
	Metrics []string
}

// ReadData reads the data set pickle at path.
//
// # Errors
//
// Wraps [dataset.ErrCorrupt], naming path and the row, for a pickle that
// is not such a DataFrame or a metric the script does not know.
func ReadData(path string) (*Data, error) {
	f, err := pickle.ReadFrameFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", dataset.ErrCorrupt, err)
	}
	d := &Data{Path: path}
	corrupt := func(err error) error { return fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err) }
	if d.Tokens, err = llmtext.FrameTokens(f, llmtext.PromptColumn); err != nil {
		return nil, corrupt(err)
	}
	if d.Targets, err = llmtext.FrameTexts(f, targetColumn); err != nil {
		return nil, corrupt(err)
	}
	if d.Metrics, err = llmtext.FrameTexts(f, metricColumn); err != nil {
		return nil, corrupt(err)
	}
	for i, m := range d.Metrics {
		if m != MetricROUGE && m != MetricNIAH && m != MetricQA {
			return nil, corrupt(fmt.Errorf("row %d: metric %q: want %s, %s or %s", i, m, MetricROUGE, MetricNIAH, MetricQA))
		}
	}
	return d, nil
}

// Form is how `dataset info` names the form.
const Form = "Llama 3.1 405B prompts of token ids, each with its metric (the reference's pandas DataFrame pickle, column tok_input)"

// Open opens the data set pickle at path.
func Open(path string) (dataset.Dataset, error) {
	d, err := ReadData(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	return dataset.NewPrompts(path, Form, d.Tokens)
}

// Reader reads the data set pickle: a .pkl DataFrame with the columns
// tok_input, gt_output and metric.
var Reader = dataset.Reader{
	Is: func(p string, _ dataset.Options) bool {
		return dataset.IsFile(p) && filepath.Ext(p) == ".pkl" && pickle.IsFrameFile(p, llmtext.PromptColumn, targetColumn, metricColumn)
	},
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return Open(p) },
}
