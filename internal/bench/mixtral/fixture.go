package mixtral

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// Row is one sample of a data set [WriteData] writes.
type Row struct {
	Kind   string // OpenOrca, GSM8K or MBXP
	Tokens []int32
	Target string // gt_output
	ID     string // "" writes KIND_ROW
	Input  string // "" writes "prompt ROW"
}

// WriteData writes a data set pickle in the reference's form: a
// DataFrame with the columns dataset, id, input, tok_input, tok_input_len
// and gt_output.
func WriteData(path string, rows []Row) error {
	n := len(rows)
	kinds, ids, inputs, toks, lens, targets := make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	for i, r := range rows {
		kinds[i], toks[i], lens[i], targets[i] = r.Kind, r.Tokens, int64(len(r.Tokens)), r.Target
		ids[i], inputs[i] = r.ID, r.Input
		if r.ID == "" {
			ids[i] = fmt.Sprintf("%s_%d", r.Kind, i)
		}
		if r.Input == "" {
			inputs[i] = fmt.Sprintf("prompt %d", i)
		}
	}
	return pickle.WriteFrameFile(path, []pickle.Column{
		{Name: datasetColumn, Cells: kinds}, {Name: idColumn, Cells: ids}, {Name: inputColumn, Cells: inputs},
		{Name: llmtext.PromptColumn, Cells: toks}, {Name: "tok_input_len", Cells: lens}, {Name: targetColumn, Cells: targets},
	})
}
