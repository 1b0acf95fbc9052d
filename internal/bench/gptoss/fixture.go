package gptoss

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/hftokenizer"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/parquet"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// Sample is one row of a fixture set: its prompt, and in an accuracy
// set its sub-dataset and ground truth (a string, an int64 or nil).
type Sample struct {
	Tokens  []int64
	Dataset string
	Truth   any
}

// WriteSet writes a data set file in the reference's form, a DataFrame
// pickled as pandas pickles one: the prompts in "input_tokens" (numpy
// int64 arrays) and, with truth, each sample's "dataset" and
// "ground_truth" (an accuracy or compliance set).
func WriteSet(path string, samples []Sample, truth bool) error {
	prompts, datasets, truths := make([]any, len(samples)), make([]any, len(samples)), make([]any, len(samples))
	for i, s := range samples {
		prompts[i], datasets[i], truths[i] = pickle.Int64Array(s.Tokens), s.Dataset, s.Truth
	}
	cols := []pickle.Column{{Name: promptColumn, Cells: prompts}}
	if truth {
		cols = append(cols, pickle.Column{Name: datasetColumn, Cells: datasets}, pickle.Column{Name: truthColumn, Cells: truths})
	}
	return pickle.WriteFrameFile(path, cols)
}

// WriteParquetSet writes a data set file in the reference's Parquet form,
// as pandas.DataFrame.to_parquet writes it with pyarrow's defaults
// (snappy, the strings dictionary-encoded): "input_tokens" a list of
// int64s, and with truth "dataset" and "ground_truth" strings (a ground
// truth nil is a null).
func WriteParquetSet(path string, samples []Sample, truth bool) error {
	fields := []parquet.Field{{Name: promptColumn, Kind: parquet.Int64List}}
	if truth {
		fields = append(fields, parquet.Field{Name: datasetColumn, Kind: parquet.String}, parquet.Field{Name: truthColumn, Kind: parquet.String})
	}
	rows := make([][]any, len(samples))
	for i, s := range samples {
		rows[i] = []any{s.Tokens}
		if truth {
			rows[i] = append(rows[i], s.Dataset, s.Truth)
		}
	}
	var b bytes.Buffer
	if err := parquet.Write(&b, fields, rows, parquet.WriteOptions{Snappy: true, Dictionary: true}); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// DecoderVocab is the fixtures' 64-token vocabulary, for the signature
// decoder that answers a prompt with the six tokens after its last: the
// harmony format's markers are special tokens, and the runs after
// tokens 9, 20, 30, 40 and 57 read, decoded, a GPQA final channel
// answering C, an AIME \boxed{42}, a "Final Answer: (B)", an AIME
// "Answer: 7.5 Answer: 12" (12: a full stop follows the 7) and no
// answer. Token i is " w<i>" elsewhere.
func DecoderVocab() (vocab []string, specials map[int]string) {
	vocab = make([]string, 64)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("\u0120w%d", i)
	}
	specials = map[int]string{0: "<|startoftext|>", 1: "<|start|>", 2: "<|end|>",
		10: "<|channel|>", 12: "<|message|>", 14: "<|return|>"}
	for i, s := range specials {
		vocab[i] = s
	}
	for at, run := range map[int][]string{
		11: {"final"}, 13: {"**C**"}, 15: {"\u0120done"},
		21: {"\u0120The", "\u0120answer", "\u0120is", "\u0120\\boxed{", "42", "}"},
		31: {"\u0120Final", "\u0120Answer", ":", "\u0120(", "B", ")"},
		41: {"\u0120Answer:", "\u01207", ".", "5", "\u0120Answer:", "\u012012"},
		58: {"\u0120no", "\u0120idea", "\u0120at", "\u0120all", "\u0120sorry", "."},
	} {
		copy(vocab[at:], run)
	}
	return vocab, specials
}

// WriteDecoderTokenizer writes DecoderVocab's tokenizer.json into dir,
// with a tokenizer_config.json that asks for no clean-up of spaces, as
// gpt-oss's does not.
func WriteDecoderTokenizer(dir string) error {
	vocab, specials := DecoderVocab()
	if err := hftokenizer.WriteByteLevel(filepath.Join(dir, "tokenizer.json"), vocab, specials); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"clean_up_tokenization_spaces": false}`+"\n"), 0o644)
}

// DecoderAccuracySet is an accuracy set for DecoderVocab: each sample's
// prompt ends in the token whose run answers it. Its AIME samples
// answer 2 of 4 right (42, 12), its GPQA samples 2 of 4 (C, B): the
// script's final score is (2/8 + 2/5) / (4/8 + 4/5), 50%.
func DecoderAccuracySet() []Sample {
	return []Sample{
		{Tokens: []int64{1, 20}, Dataset: "aime25", Truth: "42"},
		{Tokens: []int64{1, 5, 40}, Dataset: "aime25", Truth: "12"},
		{Tokens: []int64{1, 40}, Dataset: "aime25", Truth: "7"},
		{Tokens: []int64{1, 9}, Dataset: "gpqa_diamond", Truth: "C"},
		{Tokens: []int64{1, 30}, Dataset: "gpqa_diamond", Truth: "B"},
		{Tokens: []int64{1, 3, 30}, Dataset: "gpqa_diamond", Truth: "A"},
		{Tokens: []int64{1, 57}, Dataset: "gpqa_diamond", Truth: "D"},
		{Tokens: []int64{1, 57}, Dataset: "aime25", Truth: int64(5)},
	}
}
