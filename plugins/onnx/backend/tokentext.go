package backend

import (
	"encoding/binary"
	"strings"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// tokenText turns a model's token ids into text as the Whisper reference
// SUT's vLLM does: the model's Hugging Face tokenizer.json decoding them
// with skip_special_tokens=True (package sdk/tokenizer).
type tokenText struct {
	tok *tokenizer.Tokenizer
}

// readTokenText reads a tokenizer.json (Whisper's is byte-level BPE).
func readTokenText(path string) (*tokenText, error) {
	tok, err := tokenizer.Open(path)
	if err != nil {
		return nil, err
	}
	return &tokenText{tok: tok}, nil
}

// text decodes ids; an id the vocabulary lacks decodes to nothing, as
// the reference's detokenizer skips it.
func (tt *tokenText) text(ids []int64) string {
	in := make([]int32, 0, len(ids))
	for _, id := range ids {
		if id == int64(int32(id)) {
			in = append(in, int32(id))
		}
	}
	return tt.tok.Decode(in, true)
}

// transcript answers ids as the Whisper reference SUT does with vLLM's
// text: lower case, stripped, each character of the alphabet as its
// index (int64), every other character dropped.
func (tt *tokenText) transcript(dst []byte, ids []int64) []byte {
	for _, r := range strings.TrimSpace(strings.ToLower(tt.text(ids))) {
		if i := strings.IndexRune(whisperAlphabet, r); i >= 0 {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(i))
		}
	}
	return dst
}
