package llm

import (
	"fmt"
	"path/filepath"

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
	toks, ok := f.Column(promptColumn)
	if !ok {
		return nil, fmt.Errorf("%s: %w: no column %q (columns %q)", path, dataset.ErrCorrupt, promptColumn, f.Columns)
	}
	if f.Index != nil {
		return nil, fmt.Errorf("%s: %w: the row index is not 0..%d", path, dataset.ErrCorrupt, f.Len()-1)
	}
	if f.Len() == 0 {
		return nil, fmt.Errorf("%s: %w: no rows", path, dataset.ErrCorrupt)
	}
	p := &Prompts{Path: path}
	for i, c := range toks {
		ids, err := pickle.Ints(c, nil)
		if err != nil || len(ids) == 0 {
			return nil, fmt.Errorf("%s: row %d: %w: %q is not a list of token ids", path, i, dataset.ErrCorrupt, promptColumn)
		}
		t := make([]int32, len(ids))
		for k, id := range ids {
			if id < 0 || id > 1<<31-1 {
				return nil, fmt.Errorf("%s: row %d: %w: token id %d", path, i, dataset.ErrCorrupt, id)
			}
			t[k] = int32(id)
		}
		p.Tokens = append(p.Tokens, t)
	}
	if outs, ok := f.Column(target); ok {
		for i, c := range outs {
			s, ok := c.(string)
			if !ok {
				return nil, fmt.Errorf("%s: row %d: %w: %q is not text", path, i, dataset.ErrCorrupt, target)
			}
			p.Targets = append(p.Targets, s)
		}
	}
	return p, nil
}

// isPromptsPickle reports whether path is a DataFrame pickle with the
// columns tok_input and output: OpenOrca as the Llama 2 reference reads
// it.
func isPromptsPickle(path string) bool {
	if !dataset.IsFile(path) || filepath.Ext(path) != pickleExt {
		return false
	}
	f, err := pickle.ReadFrameFile(path)
	if err != nil {
		return false
	}
	_, hasTok := f.Column(promptColumn)
	_, hasOut := f.Column(targetColumn)
	return hasTok && hasOut
}

// PickleReader reads a prompts pickle (OpenOrca as the Llama 2 70B
// reference reads it).
var PickleReader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return isPromptsPickle(p) },
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return OpenPrompts(p) },
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
