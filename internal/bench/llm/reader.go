package llm

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// LLM prompts as the Llama 3.1 8B reference reads them
// (language/llama3.1-8b/dataset.py: pandas.read_json of cnn_eval.json): a
// JSON table with a column "tok_input" of token-id lists (the prompt) and
// "output" (the reference summary), as records ([{...}, ...]) or columns
// ({"tok_input": {"0": [...], ...}, ...}). Each sample is one tensor,
// "input_ids", int32 [tokens].
const (
	// PromptTensor is the name of a prompt's tensor.
	PromptTensor = "input_ids"
	promptColumn = "tok_input"
	targetColumn = "output"
)

// Prompts is a prompts file: each sample's token ids and reference text.
type Prompts struct {
	Path    string
	Tokens  [][]int32
	Targets []string // nil when the file has no "output" column
}

// ReadPrompts reads a prompts file: the JSON table, or a .pkl
// DataFrame pickle.
func ReadPrompts(path string) (*Prompts, error) {
	if filepath.Ext(path) == pickleExt {
		return readPicklePrompts(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rows, err := jsonTable(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, dataset.ErrCorrupt, err)
	}
	p := &Prompts{Path: path}
	for i, row := range rows {
		raw, ok := row[promptColumn]
		if !ok {
			return nil, fmt.Errorf("%s: sample %d: %w: no %q", path, i, dataset.ErrCorrupt, promptColumn)
		}
		var ids []int64
		if err := json.Unmarshal(raw, &ids); err != nil || len(ids) == 0 {
			return nil, fmt.Errorf("%s: sample %d: %w: %q is not a list of token ids", path, i, dataset.ErrCorrupt, promptColumn)
		}
		t := make([]int32, len(ids))
		for k, id := range ids {
			if id < 0 || id > 1<<31-1 {
				return nil, fmt.Errorf("%s: sample %d: %w: token id %d", path, i, dataset.ErrCorrupt, id)
			}
			t[k] = int32(id)
		}
		p.Tokens = append(p.Tokens, t)
		if raw, ok := row[targetColumn]; ok {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("%s: sample %d: %w: %q is not text", path, i, dataset.ErrCorrupt, targetColumn)
			}
			p.Targets = append(p.Targets, s)
		}
	}
	if p.Targets != nil && len(p.Targets) != len(p.Tokens) {
		return nil, fmt.Errorf("%s: %w: %d samples have %q, %d do not", path, dataset.ErrCorrupt, len(p.Targets), targetColumn, len(p.Tokens)-len(p.Targets))
	}
	return p, nil
}

// jsonTable reads a pandas table in the records or columns orientation
// as rows of raw values by column.
func jsonTable(b []byte) ([]map[string]json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var rows []map[string]json.RawMessage
		if err := json.Unmarshal(b, &rows); err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("no rows")
		}
		return rows, nil
	}
	var cols map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &cols); err != nil {
		return nil, fmt.Errorf("neither records nor columns: %w", err)
	}
	byIndex := map[int]map[string]json.RawMessage{}
	for col, vals := range cols {
		for k, v := range vals {
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 {
				return nil, fmt.Errorf("column %q: index %q", col, k)
			}
			if byIndex[i] == nil {
				byIndex[i] = map[string]json.RawMessage{}
			}
			byIndex[i][col] = v
		}
	}
	idx := make([]int, 0, len(byIndex))
	for i := range byIndex {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	if len(idx) == 0 || idx[len(idx)-1] != len(idx)-1 {
		return nil, fmt.Errorf("row indices are not 0..n-1")
	}
	rows := make([]map[string]json.RawMessage, len(idx))
	for _, i := range idx {
		rows[i] = byIndex[i]
	}
	return rows, nil
}

// prompts is an open prompts file.
type prompts struct{ p *Prompts }

var _ dataset.Dataset = (*prompts)(nil)

// OpenPrompts opens a prompts file as a data set.
func OpenPrompts(path string) (dataset.Dataset, error) {
	p, err := ReadPrompts(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	return &prompts{p: p}, nil
}

func (d *prompts) Name() string  { return d.p.Path }
func (d *prompts) Len() int      { return len(d.p.Tokens) }
func (d *prompts) Labels() []int { return nil }
func (d *prompts) Close() error  { return nil }
func (d *prompts) Truth() string { return d.p.Path }
func (d *prompts) Form() string {
	if filepath.Ext(d.p.Path) == pickleExt {
		return "LLM prompts of token ids (the Llama 2 reference's pandas DataFrame pickle, column tok_input)"
	}
	return "LLM prompts of token ids (the Llama 3.1 reference's JSON, column tok_input)"
}

func (d *prompts) Schema() dataset.Schema {
	return dataset.Schema{{Name: PromptTensor, DType: dataset.Int32, Shape: []int{dataset.Varies}}}
}

func (d *prompts) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.p.Tokens) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.p.Path, i, len(d.p.Tokens))
	}
	return [][]int{{len(d.p.Tokens[i])}}, nil
}

func (d *prompts) ReadSample(i int, dst []byte) error {
	if _, err := d.Shapes(i); err != nil {
		return err
	}
	t := d.p.Tokens[i]
	if len(dst) != 4*len(t) {
		return fmt.Errorf("data set %s: buffer of %d bytes for the %d-byte sample %d", d.p.Path, len(dst), 4*len(t), i)
	}
	for k, id := range t {
		binary.LittleEndian.PutUint32(dst[4*k:], uint32(id))
	}
	return nil
}

// Reader reads a prompts file: any .json file that no other
// reader claims.
var Reader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return dataset.IsFile(p) && filepath.Ext(p) == ".json" },
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return OpenPrompts(p) },
	Last: true,
}

// The LLM scorers: ROUGEScorer is llama2-70b's evaluate-accuracy.py,
// CNNDMScorer llama3.1-8b's evaluation.py.
var (
	ROUGEScorer = accuracy.Scorer{Name: "rouge", Script: "language/llama2-70b/evaluate-accuracy.py",
		Needs: []string{accuracy.NeedTruth, accuracy.NeedVocab}, Targets: promptTargets, Tokens: true, Score: scoreROUGE(EvaluateAccuracy)}
	CNNDMScorer = accuracy.Scorer{Name: "cnndm", Script: "language/llama3.1-8b/evaluation.py",
		Needs: []string{accuracy.NeedTruth, accuracy.NeedVocab}, Targets: promptTargets, Tokens: true, Score: scoreROUGE(Evaluation)}
)

// promptTargets reads a prompts file's reference outputs.
func promptTargets(truth string) ([]string, error) {
	p, err := ReadPrompts(truth)
	if err != nil {
		return nil, fmt.Errorf("reference outputs: %w", err)
	}
	if p.Targets == nil {
		return nil, fmt.Errorf("%s has no output column (the reference outputs)", truth)
	}
	return p.Targets, nil
}

// scoreROUGE scores as script does, splitting sentences with the Punkt
// parameters of Inputs.Punkt, else the embedded English ones.
func scoreROUGE(script LLMScript) func(io.Reader, accuracy.Inputs) (accuracy.Score, error) {
	return func(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
		if in.Targets == nil {
			return nil, errors.New("rouge: no reference outputs: the prompts file's output column holds them")
		}
		if in.Vocab == "" {
			return nil, errors.New("rouge: no tokenizer.json given")
		}
		tok, err := tokenizer.Open(in.Vocab)
		if err != nil {
			return nil, err
		}
		split, err := llmtext.Splitter(in.Punkt)
		if err != nil {
			return nil, fmt.Errorf("rouge: %w", err)
		}
		return ROUGE(log, tok, in.Targets, in.Dtype, split, script)
	}
}
