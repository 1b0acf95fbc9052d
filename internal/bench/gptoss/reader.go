package gptoss

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/parquet"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The data sets as language/gpt-oss-120b/utils/tokenization.py reads them
// (load_tokenized_dataset: pandas.read_pickle of a DataFrame): a column
// of token-id prompts, "input_tokens" (v4.0 and later) or "tok_input"
// (before), and in the accuracy and compliance sets "dataset" (the
// sub-dataset: aime25, gpqa_diamond, livecodebench_v6) and
// "ground_truth". Each sample is one tensor, "input_ids", int32 [tokens].
const (
	// PromptTensor is the name of a prompt's tensor.
	PromptTensor  = "input_ids"
	promptColumn  = "input_tokens"
	legacyColumn  = "tok_input"
	datasetColumn = "dataset"
	truthColumn   = "ground_truth"
)

// Set is a data set file: each sample's prompt tokens and, where the
// file has them, its sub-dataset and ground truth.
type Set struct {
	Path string
	// Column is the prompts' column: "input_tokens" or "tok_input".
	Column string
	Tokens [][]int32
	// Datasets are the "dataset" cells, nil when the file has none; a
	// cell that is not a string is "".
	Datasets []string
	// Truth are the "ground_truth" cells as read (a string, an int64, a
	// float64, nil), nil when the file has none.
	Truth []any
}

// ReadSet reads a data set file: a pickled DataFrame, or its Parquet form
// (a .parquet file).
//
// # Errors
//
// Wraps [dataset.ErrCorrupt] naming the file, and the sample where one
// is at fault: a file that is not a pickled DataFrame, no prompt column,
// a prompt that is not a list of token ids.
func ReadSet(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if filepath.Ext(path) == ".parquet" {
		return readParquet(path, f, st.Size())
	}
	fr, err := pickle.ReadFrame(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
	}
	return setOf(path, fr)
}

func setOf(path string, fr *pickle.Frame) (*Set, error) {
	col := legacyColumn
	if _, ok := fr.Column(col); !ok {
		col = promptColumn
		if _, ok := fr.Column(col); !ok {
			return nil, fmt.Errorf("%s: %w: no %q or %q column of tokenized prompts (columns %s)", path, dataset.ErrCorrupt,
				legacyColumn, promptColumn, strings.Join(fr.Columns, ", "))
		}
	}
	tokens, err := llmtext.FrameTokens(fr, col)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
	}
	s := &Set{Path: path, Column: col, Tokens: tokens}
	if ds, ok := fr.Column(datasetColumn); ok {
		s.Datasets = make([]string, fr.Len())
		for i, c := range ds {
			s.Datasets[i], _ = c.(string)
		}
	}
	if gt, ok := fr.Column(truthColumn); ok {
		s.Truth = gt
	}
	return s, nil
}

// tokenIDs are a prompt's token ids as int32s.
func tokenIDs(ids []int64) ([]int32, error) {
	t := make([]int32, len(ids))
	for k, id := range ids {
		if id < 0 || id > math.MaxInt32 {
			return nil, fmt.Errorf("token id %d", id)
		}
		t[k] = int32(id)
	}
	return t, nil
}

// set is an open data set file.
type set struct{ s *Set }

var _ dataset.Dataset = (*set)(nil)

// OpenSet opens a data set file.
func OpenSet(path string) (dataset.Dataset, error) {
	s, err := ReadSet(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	return &set{s: s}, nil
}

func (d *set) Name() string  { return d.s.Path }
func (d *set) Len() int      { return len(d.s.Tokens) }
func (d *set) Labels() []int { return nil }
func (d *set) Close() error  { return nil }

// Truth is the file itself: the accuracy set holds the ground truth.
func (d *set) Truth() string { return d.s.Path }

// Form says which set it is, with the prompts' lengths and, for the
// accuracy set, the samples of each sub-dataset.
func (d *set) Form() string {
	lo, hi, sum := math.MaxInt, 0, 0
	for _, t := range d.s.Tokens {
		lo, hi, sum = min(lo, len(t)), max(hi, len(t)), sum+len(t)
	}
	var b strings.Builder
	form := "pickled DataFrame"
	if filepath.Ext(d.s.Path) == ".parquet" {
		form = "Parquet file"
	}
	b.WriteString("gpt-oss-120b prompts of token ids (the reference's " + form)
	if d.s.Truth != nil {
		b.WriteString(", with ground truth: an accuracy set")
	} else {
		b.WriteString(", no ground truth: a performance set")
	}
	fmt.Fprintf(&b, "); prompt length min %d, max %d, mean %.1f", lo, hi, float64(sum)/float64(len(d.s.Tokens)))
	if d.s.Datasets != nil {
		counts := map[string]int{}
		for _, n := range d.s.Datasets {
			counts[n]++
		}
		names := make([]string, 0, len(counts))
		for n := range counts {
			names = append(names, n)
		}
		slices.Sort(names)
		for i, n := range names {
			sep := ", "
			if i == 0 {
				sep = "; "
			}
			fmt.Fprintf(&b, "%s%s %d", sep, n, counts[n])
		}
	}
	return b.String()
}

func (d *set) Schema() dataset.Schema {
	return dataset.Schema{{Name: PromptTensor, DType: dataset.Int32, Shape: []int{dataset.Varies}}}
}

func (d *set) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.s.Tokens) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.s.Path, i, len(d.s.Tokens))
	}
	return [][]int{{len(d.s.Tokens[i])}}, nil
}

func (d *set) ReadSample(i int, dst []byte) error {
	if _, err := d.Shapes(i); err != nil {
		return err
	}
	t := d.s.Tokens[i]
	if len(dst) != 4*len(t) {
		return fmt.Errorf("data set %s: buffer of %d bytes for the %d-byte sample %d", d.s.Path, len(dst), 4*len(t), i)
	}
	for k, id := range t {
		binary.LittleEndian.PutUint32(dst[4*k:], uint32(id))
	}
	return nil
}

// isParquet reports whether path is a .parquet file.
func isParquet(path string) bool {
	if filepath.Ext(path) != ".parquet" || !dataset.IsFile(path) {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(parquet.Magic))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == parquet.Magic
}

// isSet reports whether path is one of gpt-oss-120b's sets: a pickled
// DataFrame (.pkl, .pickle) or a Parquet file whose prompts are in
// "input_tokens" (the name the other LLM references do not use), or whose
// prompts are in "tok_input" and samples all come from gpt-oss-120b's
// sub-datasets (eval_mlperf_accuracy.py's DATASET_REPEATS).
func isSet(path string) bool {
	switch ext := filepath.Ext(path); {
	case ext == ".pkl" || ext == ".pickle":
		if !dataset.IsFile(path) || !pickle.IsFrameFile(path) {
			return false
		}
		if pickle.IsFrameFile(path, promptColumn) {
			return true
		}
		if !pickle.IsFrameFile(path, legacyColumn, datasetColumn) {
			return false
		}
	case !isParquet(path):
		return false
	}
	s, err := ReadSet(path)
	if err != nil {
		return false
	}
	if s.Column == promptColumn {
		return true
	}
	if s.Datasets == nil {
		return false
	}
	for _, n := range s.Datasets {
		if _, ok := repeats[strings.ToLower(n)]; !ok {
			return false
		}
	}
	return true
}

// Reader reads a data set file: a .pkl or .pickle file holding a
// pickled DataFrame of gpt-oss-120b's, or its .parquet form (isSet).
var Reader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return isSet(p) },
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return OpenSet(p) },
}
