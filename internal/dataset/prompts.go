package dataset

import (
	"encoding/binary"
	"fmt"
)

// PromptTensor is the name of an LLM prompt's tensor: its token ids.
const PromptTensor = "input_ids"

// prompts is a data set of LLM prompts held in memory.
type prompts struct {
	*Memory
	truth, form string
}

var (
	_ Former  = (*prompts)(nil)
	_ Truther = (*prompts)(nil)
)

func (p *prompts) Form() string  { return p.form }
func (p *prompts) Truth() string { return p.truth }

// NewPrompts makes a data set of LLM prompts read from path: sample i is
// one tensor, "input_ids", int32 [len(tokens[i])]. Its Form is form; its
// Truth is path, whose file holds the references the scorer reads.
//
// # Errors
//
// A prompt without tokens, naming path and the sample.
func NewPrompts(path, form string, tokens [][]int32) (Dataset, error) {
	samples := make([]MemorySample, len(tokens))
	for i, t := range tokens {
		if len(t) == 0 {
			return nil, fmt.Errorf("data set %s: sample %d: %w: a prompt without tokens", path, i, ErrCorrupt)
		}
		b := make([]byte, 0, 4*len(t))
		for _, id := range t {
			b = binary.LittleEndian.AppendUint32(b, uint32(id))
		}
		samples[i] = MemorySample{Shapes: [][]int{{len(t)}}, Data: b}
	}
	m, err := NewTensorMemory(path, Schema{{Name: PromptTensor, DType: Int32, Shape: []int{Varies}}}, samples, nil)
	if err != nil {
		return nil, err
	}
	return &prompts{Memory: m, truth: path, form: form}, nil
}
