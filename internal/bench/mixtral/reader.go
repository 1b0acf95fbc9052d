package mixtral

import (
	"fmt"
	"path/filepath"

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

// Form is how `dataset info` names the form.
const Form = "Mixtral 8x7B prompts of token ids: OpenOrca, GSM8K and MBXP (the reference's pandas DataFrame pickle, column tok_input)"

// Open opens the data set pickle at path.
func Open(path string) (dataset.Dataset, error) {
	d, err := ReadData(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	return dataset.NewPrompts(path, Form, d.Tokens)
}

// Reader reads the data set pickle: a .pkl DataFrame with the columns
// tok_input, dataset and gt_output.
var Reader = dataset.Reader{
	Is: func(p string, _ dataset.Options) bool {
		return dataset.IsFile(p) && filepath.Ext(p) == ".pkl" && pickle.IsFrameFile(p, llmtext.PromptColumn, datasetColumn, targetColumn)
	},
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return Open(p) },
}
