package gptoss

import (
	"fmt"
	"io"
	"slices"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/parquet"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// readParquet reads a data set, size bytes of r, in the reference's Parquet form
// (acc_eval_inputs.parquet, perf_eval_ref.parquet, as pyarrow writes a
// DataFrame): the prompts a list<int> column, the sub-dataset and ground
// truth flat columns.
func readParquet(path string, r io.ReaderAt, size int64) (*Set, error) {
	pf, err := parquet.Open(path, r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", dataset.ErrCorrupt, err)
	}
	byName := map[string]parquet.Leaf{}
	var names []string
	for _, l := range pf.Leaves() {
		if _, seen := byName[l.Path[0]]; !seen {
			names = append(names, l.Path[0])
		}
		byName[l.Path[0]] = l
	}
	col := legacyColumn
	leaf, ok := byName[col]
	if !ok {
		col = promptColumn
		if leaf, ok = byName[col]; !ok {
			return nil, fmt.Errorf("%s: %w: no %q or %q column of tokenized prompts (columns %v)", path, dataset.ErrCorrupt, legacyColumn, promptColumn, names)
		}
	}
	if leaf.MaxRep != 1 || leaf.Type != parquet.Int64 && leaf.Type != parquet.Int32 {
		return nil, fmt.Errorf("%s: %w: %q is a %s column, not a list of integers", path, dataset.ErrCorrupt, col, leaf.Type)
	}
	c, err := pf.Column(leaf.Path...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", dataset.ErrCorrupt, err)
	}
	lists, err := c.Lists()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
	}
	s := &Set{Path: path, Column: col}
	for i, l := range lists {
		ids := make([]int64, len(l))
		for k, v := range l {
			if v == nil {
				return nil, fmt.Errorf("%s: sample %d: %w: %q holds a null token id", path, i, dataset.ErrCorrupt, col)
			}
			ids[k] = v.Int
		}
		t, err := tokenIDs(ids)
		if err != nil {
			return nil, fmt.Errorf("%s: sample %d: %w: %q: %w", path, i, dataset.ErrCorrupt, col, err)
		}
		s.Tokens = append(s.Tokens, t)
	}
	if len(s.Tokens) == 0 {
		return nil, fmt.Errorf("%s: %w: no samples", path, dataset.ErrCorrupt)
	}
	if l, ok := byName[datasetColumn]; ok {
		cells, err := scalars(pf, l, len(s.Tokens))
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
		}
		s.Datasets = make([]string, len(cells))
		for i, c := range cells {
			s.Datasets[i], _ = c.(string)
		}
	}
	if l, ok := byName[truthColumn]; ok {
		if s.Truth, err = scalars(pf, l, len(s.Tokens)); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
		}
	}
	return s, nil
}

// scalars reads a flat column as the cells pandas reads it into: a
// string, an int64, a float64, a bool, or nil for a null.
func scalars(pf *parquet.File, l parquet.Leaf, rows int) ([]any, error) {
	c, err := pf.Column(l.Path...)
	if err != nil {
		return nil, err
	}
	vals, err := c.Scalars()
	if err != nil {
		return nil, err
	}
	if len(vals) != rows {
		return nil, fmt.Errorf("column %s: %d rows, not %d", l.Name(), len(vals), rows)
	}
	cells := make([]any, len(vals))
	for i, v := range vals {
		switch {
		case v == nil:
		case slices.Contains([]parquet.Type{parquet.ByteArray, parquet.FixedLenByteArray}, l.Type):
			cells[i] = string(v.Bytes)
		case l.Type == parquet.Int32 || l.Type == parquet.Int64:
			cells[i] = v.Int
		case l.Type == parquet.Float || l.Type == parquet.Double:
			cells[i] = v.Float
		case l.Type == parquet.Boolean:
			cells[i] = v.Bool
		default:
			return nil, fmt.Errorf("column %s of %s", l.Name(), l.Type)
		}
	}
	return cells, nil
}
