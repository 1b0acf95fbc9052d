package bert

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// SQuAD v1.1 as the BERT reference reads it (language/bert/squad_QSL.py):
// dev-v1.1.json and the tokenizer's vocab.txt in one directory, cut into
// features (sequence 384, query 64, stride 128) when the data set opens,
// exactly as accuracy-squad.py cuts them, so that sample i is the
// feature the scorer reads as qsl_idx i. Each sample is three int32
// [384] tensors, the reference ONNX model's inputs: input_ids,
// input_mask, segment_ids.
const (
	SQuADDevSet = "dev-v1.1.json"
	SQuADVocab  = "vocab.txt"
)

// IsSQuAD reports whether dir holds dev-v1.1.json and vocab.txt.
func IsSQuAD(dir string) bool {
	return dataset.IsFile(filepath.Join(dir, SQuADDevSet)) && dataset.IsFile(filepath.Join(dir, SQuADVocab))
}

// squad is an open SQuAD directory: every feature's inputs, already
// tokenized (the dev set's 10833 features are 50 MB of int32).
type squad struct {
	dir     string
	samples [][]byte
}

var _ dataset.Dataset = (*squad)(nil)

// OpenSQuAD opens a directory with dev-v1.1.json and vocab.txt.
func OpenSQuAD(dir string) (dataset.Dataset, error) {
	vf, err := os.Open(filepath.Join(dir, SQuADVocab))
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	defer vf.Close()
	vocab, err := ReadVocab(vf)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %s: %w: %w", dir, SQuADVocab, dataset.ErrCorrupt, err)
	}
	df, err := os.Open(filepath.Join(dir, SQuADDevSet))
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	defer df.Close()
	s, err := ReadSQuAD(df, vocab)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %s: %w: %w", dir, SQuADDevSet, dataset.ErrCorrupt, err)
	}
	if s.Features() == 0 {
		return nil, fmt.Errorf("data set %s: %s: %w: no questions", dir, SQuADDevSet, dataset.ErrCorrupt)
	}
	d := &squad{dir: dir, samples: make([][]byte, s.Features())}
	for i := range d.samples {
		ids, mask, seg := s.FeatureInputs(i, vocab)
		b := make([]byte, 0, 3*4*len(ids))
		for _, t := range [][]int32{ids, mask, seg} {
			for _, v := range t {
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			}
		}
		d.samples[i] = b
	}
	return d, nil
}

func (d *squad) Name() string  { return d.dir }
func (d *squad) Len() int      { return len(d.samples) }
func (d *squad) Labels() []int { return nil }
func (d *squad) Close() error  { return nil }

// Truth is the dev set accuracy-squad.py reads; Vocab its vocab_file.
func (d *squad) Truth() string { return filepath.Join(d.dir, SQuADDevSet) }
func (d *squad) Vocab() string { return filepath.Join(d.dir, SQuADVocab) }
func (d *squad) Form() string {
	return "SQuAD v1.1 with its vocab.txt, cut into BERT features as the reference does (384/64/128)"
}

func (d *squad) Schema() dataset.Schema {
	return dataset.Schema{
		{Name: "input_ids", DType: dataset.Int32, Shape: []int{squadSeq}},
		{Name: "input_mask", DType: dataset.Int32, Shape: []int{squadSeq}},
		{Name: "segment_ids", DType: dataset.Int32, Shape: []int{squadSeq}},
	}
}

// squadSeq is the reference's sequence length.
const squadSeq = 384

func (d *squad) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.samples) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.dir, i, len(d.samples))
	}
	return [][]int{{squadSeq}, {squadSeq}, {squadSeq}}, nil
}

func (d *squad) ReadSample(i int, dst []byte) error {
	if _, err := d.Shapes(i); err != nil {
		return err
	}
	if len(dst) != len(d.samples[i]) {
		return fmt.Errorf("data set %s: sample %d: buffer of %d bytes for %d", d.dir, i, len(dst), len(d.samples[i]))
	}
	copy(dst, d.samples[i])
	return nil
}

// Reader reads a directory with dev-v1.1.json and vocab.txt.
var Reader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return IsSQuAD(p) },
	Open: func(p string, _ dataset.Options) (dataset.Dataset, error) { return OpenSQuAD(p) },
}

// Scorer is BERT's: accuracy-squad.py's exact match and F1.
var Scorer = accuracy.Scorer{Name: "squad", Script: "language/bert/accuracy-squad.py",
	Needs: []string{accuracy.NeedTruth, accuracy.NeedVocab}, Score: scoreSQuAD}

func scoreSQuAD(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	vf, err := accuracy.OpenInput("bert vocab.txt (--vocab)", in.Vocab)
	if err != nil {
		return nil, err
	}
	defer vf.Close()
	vocab, err := ReadVocab(vf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Vocab, err)
	}
	df, err := accuracy.OpenInput("squad dev-v1.1.json (--truth)", in.Truth)
	if err != nil {
		return nil, err
	}
	defer df.Close()
	s, err := ReadSQuAD(df, vocab)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Truth, err)
	}
	return s.Score(log, in.Dtype)
}
