package backend

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// tokenText turns a byte-level BPE model's token ids into text as a
// Hugging Face tokenizer's decode(ids, skip_special_tokens=True) does
// (Whisper's tokenizer.json, which the reference's vLLM decodes with):
// each id's token (special ones skipped), the tokens joined, GPT-2's
// byte-level characters turned back into bytes.
type tokenText struct {
	// bytes is each ordinary token's bytes; special tokens are absent.
	bytes map[int64][]byte
}

// readTokenText reads the vocabulary of a tokenizer.json whose decoder
// is ByteLevel.
func readTokenText(path string) (*tokenText, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Added []struct {
			ID      int64  `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Decoder struct {
			Type string `json:"type"`
		} `json:"decoder"`
		Model struct {
			Vocab map[string]int64 `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Decoder.Type != "ByteLevel" || len(f.Model.Vocab) == 0 {
		return nil, fmt.Errorf("%s: want a byte-level BPE tokenizer (decoder ByteLevel, a model.vocab), as Whisper's", path)
	}
	back := byteLevelBytes()
	tt := &tokenText{bytes: make(map[int64][]byte, len(f.Model.Vocab)+len(f.Added))}
	for tok, id := range f.Model.Vocab {
		var out []byte
		for _, r := range tok {
			c, ok := back[r]
			if !ok {
				// Not a byte-level character: its UTF-8, as the decoder
				// leaves a character it does not map.
				out = utf8.AppendRune(out, r)
				continue
			}
			out = append(out, c)
		}
		tt.bytes[id] = out
	}
	for _, a := range f.Added {
		if a.Special {
			delete(tt.bytes, a.ID)
			continue
		}
		tt.bytes[a.ID] = []byte(a.Content)
	}
	return tt, nil
}

// byteLevelBytes maps GPT-2's byte-level characters to the bytes they
// stand for: the printable bytes (33-126, 161-172, 174-255) are
// themselves, the others 256, 257, ... in byte order.
func byteLevelBytes() map[rune]byte {
	m := make(map[rune]byte, 256)
	n := 0
	for b := range 256 {
		if b >= 33 && b <= 126 || b >= 161 && b <= 172 || b >= 174 {
			m[rune(b)] = byte(b)
			continue
		}
		m[rune(256+n)] = byte(b)
		n++
	}
	return m
}

// text decodes ids; an id the vocabulary lacks decodes to nothing, as
// the reference's detokenizer skips it.
func (tt *tokenText) text(ids []int64) string {
	var b []byte
	for _, id := range ids {
		b = append(b, tt.bytes[id]...)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
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
