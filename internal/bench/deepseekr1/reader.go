package deepseekr1

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The data set as the DeepSeek-R1 reference reads it
// (language/deepseek-r1: utils/data_utils.py's pandas.read_pickle of
// mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl): a pickled DataFrame with
// a row per sample and the columns tok_input (the prompt's token ids, a
// list or a numpy array), ground_truth (or gt_output), dataset (gpqa,
// mmlu_pro, math500, aime..., livecodebench; or a metric column it is
// inferred from) and question; text_input, the prompt as text, is not
// read. Each sample is one tensor, "input_ids", int32 [tokens].
const (
	truthColumn   = "ground_truth"
	datasetColumn = "dataset"
)

// Set is the data set's pickle: each sample's prompt, ground truth and
// source data set.
type Set struct {
	Path string
	// Tokens are the prompts' token ids.
	Tokens [][]int32
	// Truths are the ground truths as eval_accuracy.py reads them: a
	// string, an integer (int64), a float or nil (missing).
	Truths []any
	// Datasets are the rows' data set names ("unknown" without a
	// dataset or metric column).
	Datasets []string
}

// ReadSet reads the data set's pickle; without tokens, the prompts are
// not read (the scorer needs the ground truths alone).
//
// # Errors
//
// Wraps [dataset.ErrCorrupt], naming the file, and the row and column of
// a malformed value.
func ReadSet(path string, tokens bool) (*Set, error) {
	fr, err := pickle.ReadFrameFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", path, dataset.ErrNotFound)
	case err != nil && !errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("%w: %w", dataset.ErrCorrupt, err)
	case err != nil:
		return nil, err
	}
	corrupt := func(err error) error { return fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err) }
	s := &Set{Path: path}
	truth, ok := fr.Column("gt_output")
	if !ok {
		if truth, ok = fr.Column(truthColumn); !ok {
			return nil, corrupt(errors.New("no gt_output or ground_truth column"))
		}
	}
	for i, t := range truth {
		switch x := t.(type) {
		case string, int64, nil:
		case float64:
			if math.IsNaN(x) {
				t = nil
			}
		default:
			return nil, corrupt(fmt.Errorf("row %d: ground truth of type %T", i, t))
		}
		s.Truths = append(s.Truths, t)
	}
	if s.Datasets, err = datasetNames(fr); err != nil {
		return nil, corrupt(err)
	}
	if !tokens {
		return s, nil
	}
	if s.Tokens, err = llmtext.FrameTokens(fr, llmtext.PromptColumn); err != nil {
		return nil, corrupt(err)
	}
	return s, nil
}

// datasetNames are the rows' source data sets: the dataset column, else
// the metric column's names less "_em" and "_" (as the script infers
// them), else "unknown".
func datasetNames(fr *pickle.Frame) ([]string, error) {
	col, ok := fr.Column(datasetColumn)
	metric := false
	if !ok {
		col, metric = fr.Column("metric")
	}
	out := make([]string, fr.Len())
	for i := range out {
		if col == nil {
			out[i] = "unknown"
			continue
		}
		s, ok := col[i].(string)
		if !ok {
			return nil, fmt.Errorf("row %d: the data set's name is a %T", i, col[i])
		}
		if metric {
			s = strings.ReplaceAll(strings.ReplaceAll(s, "_em", ""), "_", "")
		}
		out[i] = s
	}
	return out, nil
}

// Open opens the data set's pickle.
func Open(path string) (dataset.Dataset, error) {
	s, err := ReadSet(path, true)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	return dataset.NewPrompts(path, "DeepSeek-R1 prompts (the reference's pandas DataFrame pickle, column tok_input)", s.Tokens)
}

// Reader reads the data set's pickle: a .pkl file holding a DataFrame
// with the columns tok_input, ground_truth and dataset (Mixtral's has
// gt_output for ground_truth, Llama 3.1 405B's metric for dataset).
var Reader = dataset.Reader{
	Is: func(p string, _ dataset.Options) bool {
		return dataset.IsFile(p) && filepath.Ext(p) == ".pkl" && pickle.IsFrameFile(p, llmtext.PromptColumn, truthColumn, datasetColumn)
	},
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return Open(p) },
}
