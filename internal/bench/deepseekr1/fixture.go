package deepseekr1

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/hftokenizer"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/llmtext"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// FixtureRow is one sample of a fixture in the reference's form.
type FixtureRow struct {
	// Dataset is its source data set's name.
	Dataset string
	// Truth is its ground truth: a string, an int or nil.
	Truth any
	// Prompt is its prompt's token ids.
	Prompt []int32
}

// WriteSet writes rows as the reference's data set pickle: a DataFrame
// with the columns dataset, question, ground_truth, text_input and
// tok_input.
func WriteSet(path string, rows []FixtureRow) error {
	cols := []pickle.Column{{Name: datasetColumn}, {Name: "question"}, {Name: truthColumn}, {Name: "text_input"}, {Name: llmtext.PromptColumn}}
	for r, x := range rows {
		truth := x.Truth
		if n, ok := truth.(int); ok {
			truth = int64(n)
		}
		q := fmt.Sprintf("question %d", r)
		for c, v := range []any{x.Dataset, q, truth, q, x.Prompt} {
			cols[c].Cells = append(cols[c].Cells, v)
		}
	}
	return pickle.WriteFrameFile(path, cols)
}

// Special tokens of the fixtures' byte tokenizer, DeepSeek-R1's.
const (
	BOS = 256 // <｜begin▁of▁sentence｜>
	EOS = 257 // <｜end▁of▁sentence｜>
)

// WriteByteTokenizer writes a byte-level tokenizer.json whose token i <
// 256 is byte i and whose BOS and EOS are special: a text's token ids are
// its bytes (ByteTokens).
func WriteByteTokenizer(path string) error {
	vocab := make([]string, 258)
	for i := range 256 {
		vocab[i] = byteChar(byte(i))
	}
	return hftokenizer.WriteByteLevel(path, vocab, map[int]string{BOS: "<｜begin▁of▁sentence｜>", EOS: "<｜end▁of▁sentence｜>"})
}

// byteChar is GPT-2's character standing for byte b in a byte-level
// token: the byte itself where it is printable, else 256 and up in
// byte order.
func byteChar(b byte) string {
	if printable(b) {
		return string(rune(b))
	}
	n := 0
	for c := range b {
		if !printable(c) {
			n++
		}
	}
	return string(rune(256 + n))
}

// printable: GPT-2's bytes_to_unicode keeps byte b as its character.
func printable(b byte) bool { return b >= '!' && b <= '~' || b >= 0xa1 && b <= 0xac || b >= 0xae }

// ByteTokens are text's token ids under WriteByteTokenizer's tokenizer,
// between BOS and EOS (which decoding skips).
func ByteTokens(text string) []int32 {
	ids := []int32{BOS}
	for _, b := range []byte(text) {
		ids = append(ids, int32(b))
	}
	return append(ids, EOS)
}

// WriteLog writes an accuracy log with one entry per output: qsl_idx i,
// its token ids as int32.
func WriteLog(path string, outputs [][]int32) error {
	type entry struct {
		SeqID  int    `json:"seq_id"`
		QSLIdx int    `json:"qsl_idx"`
		Data   string `json:"data"`
		TokenN int    `json:"token_count"`
	}
	var es []entry
	for i, ids := range outputs {
		b := make([]byte, 4*len(ids))
		for k, id := range ids {
			binary.LittleEndian.PutUint32(b[4*k:], uint32(id))
		}
		es = append(es, entry{SeqID: i, QSLIdx: i, Data: hex.EncodeToString(b), TokenN: len(ids)})
	}
	out, err := json.MarshalIndent(es, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}
