package mixtral

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The reference's data set (2024.06.06_mixtral_15k_v4.pkl) is a pandas
// DataFrame; dataset.py reads the prompts' token ids from "tok_input",
// evaluate-accuracy.py each sample's kind from "dataset" and its
// reference answer from "gt_output", and for MBXP the language and
// entry point from "id" (LANG_ENTRYPOINT) and the prompt from "input".
// Each sample is one tensor, "input_ids", int32 [tokens].
const (
	// PromptTensor is the name of a prompt's tensor.
	PromptTensor  = "input_ids"
	datasetColumn = "dataset"
	targetColumn  = "gt_output"
	idColumn      = "id"
	inputColumn   = "input"
)

// The sample kinds of column "dataset".
const (
	OpenOrca = "OpenOrca"
	GSM8K    = "GSM8K"
	MBXP     = "MBXP"
)

// Data is the data set: by row, the prompt's token ids, its kind, its
// reference answer (for MBXP, the test code), and for MBXP its id and
// prompt text.
type Data struct {
	Path    string
	Tokens  [][]int32
	Kinds   []string
	Targets []string
	IDs     []string // nil when the frame has no "id" column
	Inputs  []string // nil when the frame has no "input" column
}

// ReadData reads the data set pickle at path.
//
// # Errors
//
// Wraps [dataset.ErrCorrupt], naming path and the row, for a pickle that
// is not such a DataFrame.
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
	if d.Kinds, err = llmtext.FrameTexts(f, datasetColumn); err != nil {
		return nil, corrupt(err)
	}
	if d.Targets, err = llmtext.FrameTexts(f, targetColumn); err != nil {
		return nil, corrupt(err)
	}
	for _, c := range []struct {
		name string
		dst  *[]string
	}{{idColumn, &d.IDs}, {inputColumn, &d.Inputs}} {
		if _, ok := f.Column(c.name); ok {
			if *c.dst, err = llmtext.FrameTexts(f, c.name); err != nil {
				return nil, corrupt(err)
			}
		}
	}
	return d, nil
}

// isData reports whether path is a DataFrame pickle with the columns
// tok_input, dataset and gt_output.
func isData(path string) bool {
	if !dataset.IsFile(path) || filepath.Ext(path) != ".pkl" {
		return false
	}
	f, err := pickle.ReadFrameFile(path)
	if err != nil {
		return false
	}
	for _, c := range []string{llmtext.PromptColumn, datasetColumn, targetColumn} {
		if !slices.Contains(f.Columns, c) {
			return false
		}
	}
	return true
}

// data is the open data set.
type data struct {
	*dataset.Memory
	path string
}

var (
	_ dataset.Former  = (*data)(nil)
	_ dataset.Truther = (*data)(nil)
)

func (d *data) Truth() string { return d.path }
func (d *data) Form() string {
	return "Mixtral 8x7B prompts of token ids: OpenOrca, GSM8K and MBXP (the reference's pandas DataFrame pickle, column tok_input)"
}

// Open opens the data set pickle at path.
func Open(path string) (dataset.Dataset, error) {
	d, err := ReadData(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	samples := make([]dataset.MemorySample, len(d.Tokens))
	for i, t := range d.Tokens {
		samples[i] = dataset.MemorySample{Shapes: [][]int{{len(t)}}, Data: llmtext.Int32Bytes(t)}
	}
	m, err := dataset.NewTensorMemory(path, dataset.Schema{{Name: PromptTensor, DType: dataset.Int32, Shape: []int{dataset.Varies}}}, samples, nil)
	if err != nil {
		return nil, err
	}
	return &data{Memory: m, path: path}, nil
}

// Reader reads the data set pickle: a .pkl DataFrame with the columns
// tok_input, dataset and gt_output.
var Reader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return isData(p) },
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return Open(p) },
}
