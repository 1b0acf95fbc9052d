package llmtext

import (
	"fmt"
	"math"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// PromptColumn is the column of the LLM references' DataFrames that
// holds each prompt's token ids.
const PromptColumn = "tok_input"

// FrameTokens reads a DataFrame column of token-id lists (lists or numpy
// arrays of non-negative int32 ids, none empty), row by row.
//
// # Errors
//
// A missing column, a frame without rows or whose row index is not
// 0..n-1 (the scripts look the reference up by label, the prompt by
// position), or a cell that is no list of ids, naming its row.
func FrameTokens(f *pickle.Frame, column string) ([][]int32, error) {
	cells, ok := f.Column(column)
	if !ok {
		return nil, fmt.Errorf("no column %q (columns %q)", column, f.Columns)
	}
	if f.Index != nil {
		return nil, fmt.Errorf("the row index is not 0..%d", f.Len()-1)
	}
	if f.Len() == 0 {
		return nil, fmt.Errorf("no rows")
	}
	out := make([][]int32, len(cells))
	for i, c := range cells {
		ids, err := pickle.Ints(c, nil)
		if err != nil || len(ids) == 0 {
			return nil, fmt.Errorf("row %d: %q is not a list of token ids", i, column)
		}
		t := make([]int32, len(ids))
		for k, id := range ids {
			if id < 0 || id > math.MaxInt32 {
				return nil, fmt.Errorf("row %d: token id %d", i, id)
			}
			t[k] = int32(id)
		}
		out[i] = t
	}
	return out, nil
}

// FrameTexts reads a DataFrame column of strings, row by row.
//
// # Errors
//
// A missing column, or a cell that is not a string, naming its row.
func FrameTexts(f *pickle.Frame, column string) ([]string, error) {
	cells, ok := f.Column(column)
	if !ok {
		return nil, fmt.Errorf("no column %q (columns %q)", column, f.Columns)
	}
	out := make([]string, len(cells))
	for i, c := range cells {
		s, ok := c.(string)
		if !ok {
			return nil, fmt.Errorf("row %d: %q is not text", i, column)
		}
		out[i] = s
	}
	return out, nil
}
