package llama405b

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// Row is one sample of a data set [WriteData] writes.
type Row struct {
	Tokens []int32
	Target string // gt_output
	Metric string // rouge, niah_em or qa_em
}

// WriteData writes a data set pickle in the reference's form: a
// DataFrame with the columns input, tok_input, tok_input_len, gt_output
// and metric.
func WriteData(path string, rows []Row) error {
	n := len(rows)
	inputs, toks, lens, targets, metrics := make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	for i, r := range rows {
		inputs[i], toks[i], lens[i] = fmt.Sprintf("prompt %d", i), r.Tokens, int64(len(r.Tokens))
		targets[i], metrics[i] = r.Target, r.Metric
	}
	return pickle.WriteFrameFile(path, []pickle.Column{
		{Name: "input", Cells: inputs}, {Name: llmtext.PromptColumn, Cells: toks}, {Name: "tok_input_len", Cells: lens},
		{Name: targetColumn, Cells: targets}, {Name: metricColumn, Cells: metrics},
	})
}
