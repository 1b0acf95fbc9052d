package e2erag

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The reference's query set (data/frames_dataset.tsv, Google's FRAMES
// test split) and the columns QSL.py reads.
const (
	FramesFile   = "frames_dataset.tsv"
	PromptColumn = "Prompt"
	AnswerColumn = "Answer"
	// LinkPrefix starts the columns of a question's Wikipedia links.
	LinkPrefix = "wikipedia_link_"
	// PromptTensor is a sample's question, uint8 [length]: its UTF-8
	// bytes.
	PromptTensor = "prompt"
)

// Query is one row of the query set.
type Query struct {
	Prompt, Answer string
	// URLs are the row's non-empty wikipedia_link_* cells, in column
	// order: the documents the retrieval metrics expect.
	URLs []string
}

// ReadFrames reads a FRAMES TSV as QSL.py's pd.read_csv(path, sep='\t')
// and its loop do: a header row, then one query a row (quoted cells may
// hold tabs, newlines and doubled quotes; blank lines are skipped; a row
// shorter than the header has empty cells). A bare quote inside an
// unquoted cell, which pandas keeps and to_csv never writes, is refused
// with the quoting that does not close.
//
// # Errors
//
// Names the file and row of a row longer than the header, of an empty
// Prompt (pandas' NaN, which the reference would send as the text
// "nan"), of a cell that is not UTF-8 or of malformed quoting; names the
// file when the Prompt or Answer column is missing or there are no rows.
func ReadFrames(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	name := filepath.Base(path)
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma, r.FieldsPerRecord = '\t', -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: header: %w", name, dataset.ErrCorrupt, err)
	}
	prompt, answer := -1, -1
	var links []int
	for i, h := range header {
		switch {
		case h == PromptColumn:
			prompt = i
		case h == AnswerColumn:
			answer = i
		case strings.HasPrefix(h, LinkPrefix):
			links = append(links, i)
		}
	}
	if prompt < 0 || answer < 0 {
		return nil, fmt.Errorf("%s: %w: no %s and %s columns in the header %q", name, dataset.ErrCorrupt, PromptColumn, AnswerColumn, header)
	}
	var out []Query
	for row := 0; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w: %w", name, row, dataset.ErrCorrupt, err)
		}
		if len(rec) > len(header) {
			return nil, fmt.Errorf("%s: row %d: %w: %d cells, the header has %d", name, row, dataset.ErrCorrupt, len(rec), len(header))
		}
		cell := func(i int) string {
			if i < len(rec) {
				return rec[i]
			}
			return ""
		}
		q := Query{Prompt: cell(prompt), Answer: cell(answer)}
		if q.Prompt == "" {
			return nil, fmt.Errorf("%s: row %d: %w: empty %s", name, row, dataset.ErrCorrupt, PromptColumn)
		}
		for _, i := range links {
			if u := cell(i); u != "" {
				q.URLs = append(q.URLs, u)
			}
		}
		for _, s := range append([]string{q.Prompt, q.Answer}, q.URLs...) {
			if !utf8.ValidString(s) {
				return nil, fmt.Errorf("%s: row %d: %w: a cell that is not UTF-8", name, row, dataset.ErrCorrupt)
			}
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: no queries", name, dataset.ErrCorrupt)
	}
	return out, nil
}

// Frames is an open query set: each sample is a question.
type Frames struct {
	path    string
	Queries []Query
}

var _ dataset.Dataset = (*Frames)(nil)

// OpenFrames opens a FRAMES TSV, or the directory holding
// frames_dataset.tsv.
//
// # Errors
//
// ReadFrames's, naming the data set.
func OpenFrames(path string) (*Frames, error) {
	if dataset.IsDir(path) {
		path = filepath.Join(path, FramesFile)
	}
	q, err := ReadFrames(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	return &Frames{path: path, Queries: q}, nil
}

func (d *Frames) Name() string  { return d.path }
func (d *Frames) Len() int      { return len(d.Queries) }
func (d *Frames) Labels() []int { return nil }
func (d *Frames) Close() error  { return nil }
func (d *Frames) Truth() string { return d.path }
func (d *Frames) Form() string {
	return "FRAMES questions (" + FramesFile + "), as the e2e-rag reference's QSL reads them"
}
func (d *Frames) Schema() dataset.Schema {
	return dataset.Schema{{Name: PromptTensor, DType: dataset.Uint8, Shape: []int{dataset.Varies}}}
}

func (d *Frames) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.Queries) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.path, i, len(d.Queries))
	}
	return [][]int{{len(d.Queries[i].Prompt)}}, nil
}

func (d *Frames) ReadSample(i int, dst []byte) error {
	if _, err := d.Shapes(i); err != nil {
		return err
	}
	if len(dst) != len(d.Queries[i].Prompt) {
		return fmt.Errorf("data set %s: sample %d: buffer of %d bytes, want %d", d.path, i, len(dst), len(d.Queries[i].Prompt))
	}
	copy(dst, d.Queries[i].Prompt)
	return nil
}

// Reader reads frames_dataset.tsv, or a directory holding it.
var Reader = dataset.Reader{
	Is: func(p string, _ dataset.Options) bool {
		if dataset.IsDir(p) {
			return dataset.IsFile(filepath.Join(p, FramesFile))
		}
		return filepath.Base(p) == FramesFile && dataset.IsFile(p)
	},
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return OpenFrames(p) },
}

// Response is what the reference SUT completes a query with (docs/benchmarks.md).
const Response = "int32 [n], n the final answer generation's output tokens (usage.completion_tokens), the ids zero"

// AppendResponse appends the reference's response for an answer of n
// output tokens: n int32 zeros.
func AppendResponse(dst []byte, n int) []byte {
	return append(dst, make([]byte, 4*n)...)
}

// Tokens is the output token count of a response, as TEST09's
// run_verification.py counts it (its int32s) and LoadGen's n_tokens
// reports it.
//
// # Errors
//
// Wraps accuracy.ErrLog for a length that is not int32s.
func Tokens(data []byte) (int, error) {
	if len(data)%4 != 0 {
		return 0, fmt.Errorf("%w: a response of %d bytes, want int32 token ids", accuracy.ErrLog, len(data))
	}
	return len(data) / 4, nil
}

// WriteFrames writes queries as a FRAMES TSV the way pandas' to_csv(sep='\t')
// writes the published file: an unnamed index column, Prompt, Answer, the
// link columns wikipedia_link_1..links, cells quoted where they hold a
// tab, a newline or a quote (and, unlike pandas, where they begin with a
// space).
func WriteFrames(path string, queries []Query, links int) error {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Comma = '\t'
	header := []string{"", PromptColumn, AnswerColumn}
	for i := range links {
		header = append(header, fmt.Sprintf("%s%d", LinkPrefix, i+1))
	}
	if err := w.Write(header); err != nil {
		return err
	}
	for i, q := range queries {
		rec := []string{fmt.Sprint(i), q.Prompt, q.Answer}
		for k := range links {
			u := ""
			if k < len(q.URLs) {
				u = q.URLs[k]
			}
			rec = append(rec, u)
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
