package llmtext

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/punkt"
)

// IDs reads a response's bytes as the scripts' np.frombuffer(data,
// dtype) does, dtype "int32" or "int64" ("" is the scripts' default,
// int64), and checks each id with known (the tokenizer has it).
//
// # Errors
//
// Another dtype, data that is not whole ids, an id known rejects or
// beyond int32.
func IDs(data []byte, dtype string, known func(int32) bool) ([]int32, error) {
	size := 8
	switch dtype {
	case "", "int64":
	case "int32":
		size = 4
	default:
		return nil, fmt.Errorf("response dtype %q: want int32 or int64", dtype)
	}
	if len(data)%size != 0 {
		return nil, fmt.Errorf("%d bytes are not whole %d-byte token ids", len(data), size)
	}
	ids := make([]int32, len(data)/size)
	for i := range ids {
		id := int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
		if size == 8 {
			id = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
		if id != int64(int32(id)) || !known(int32(id)) {
			return nil, fmt.Errorf("token id %d is not in the tokenizer", id)
		}
		ids[i] = int32(id)
	}
	return ids, nil
}

// Splitter is NLTK's English sentence splitter: the punkt_tab
// parameters in dir, or the embedded English ones when dir is "".
//
// # Errors
//
// Wraps [punkt.ErrParams] for a malformed parameter file, naming it.
func Splitter(dir string) (*punkt.Tokenizer, error) {
	var p *punkt.Params
	var err error
	if dir != "" {
		p, err = punkt.ReadTab(dir)
	} else {
		p, err = punkt.English()
	}
	if err != nil {
		return nil, fmt.Errorf("sentence splitter: %w", err)
	}
	return punkt.NewTokenizer(p), nil
}

// Lines is the scripts' postprocess_text of one text:
// "\n".join(nltk.sent_tokenize(text.strip())).
func Lines(split *punkt.Tokenizer, text string) string {
	return strings.Join(split.Sentences(punkt.PyStrip(text)), "\n")
}
