package llm

import (
	"fmt"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The Llama 2 70B reference reads OpenOrca as a pandas DataFrame pickle
// (language/llama2-70b/dataset.py and evaluate-accuracy.py:
// pandas.read_pickle): the column "tok_input" holds each prompt's token
// ids (a list, or a numpy array), "output" its reference response.
const pickleExt = ".pkl"

// readPicklePrompts reads a prompts pickle.
func readPicklePrompts(path string) (*Prompts, error) {
	f, err := pickle.ReadFrameFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", dataset.ErrCorrupt, err)
	}
	return FramePrompts(path, f, targetColumn)
}

// FramePrompts reads the prompts of a DataFrame read from path: column
// "tok_input"'s token ids and, where the frame has it, column target's
// texts.
//
// # Errors
//
// Wraps [dataset.ErrCorrupt], naming path and the row, for a frame
// without "tok_input", a cell that is not a list of token ids or not
// text, or a row index other than 0..n-1 (the scripts look the
// reference up by label, the prompt by position).
func FramePrompts(path string, f *pickle.Frame, target string) (*Prompts, error) {
	toks, err := llmtext.FrameTokens(f, promptColumn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
	}
	p := &Prompts{Path: path, Tokens: toks}
	if _, ok := f.Column(target); ok {
		if p.Targets, err = llmtext.FrameTexts(f, target); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
		}
	}
	return p, nil
}

// PickleReader reads a prompts pickle (OpenOrca as the Llama 2 70B
// reference reads it): any .pkl file that no other reader claims, so that
// a pickle no benchmark reads is an error saying why (the columns it
// lacks, the part of the frame that is not read).
var PickleReader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return dataset.IsFile(p) && filepath.Ext(p) == pickleExt },
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return OpenPrompts(p) },
	Last: true,
}

// WritePicklePrompts writes a prompts pickle as the Llama 2 70B
// reference's: columns input, tok_input and output.
func WritePicklePrompts(path string, tokens [][]int32, targets []string) error {
	n := len(tokens)
	inputs, toks, outs := make([]any, n), make([]any, n), make([]any, n)
	for i, t := range tokens {
		inputs[i], toks[i], outs[i] = fmt.Sprintf("prompt %d", i), t, ""
		if i < len(targets) {
			outs[i] = targets[i]
		}
	}
	return pickle.WriteFrameFile(path, []pickle.Column{{Name: "input", Cells: inputs}, {Name: promptColumn, Cells: toks}, {Name: targetColumn, Cells: outs}})
}
