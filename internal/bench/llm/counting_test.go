package llm

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

// countingLog is the accuracy log of a model that counts up from each
// prompt's last token, generated tokens per prompt, as int32 ids.
func countingLog(p *Prompts, generated int) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i, toks := range p.Tokens {
		data := make([]byte, 4*generated)
		for k := range generated {
			binary.LittleEndian.PutUint32(data[4*k:], uint32(toks[len(toks)-1])+uint32(k)+1)
		}
		sep := ","
		if i == len(p.Tokens)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "{\"seq_id\": %d, \"qsl_idx\": %d, \"data\": \"%s\"}%s\n", i, i, strings.ToUpper(hex.EncodeToString(data)), sep)
	}
	b.WriteString("]\n")
	return b.String()
}

// TestCountingSet: the references are what a counting model generates,
// word for word (ROUGE 100), and their generated length is the prompts
// times the words and the spaces between them.
func TestCountingSet(t *testing.T) {
	t.Parallel()
	s := CountingSet{Prompts: 60, Vocab: 64, Generated: 6, WordLen: 10}
	dir := t.TempDir()
	require.NoError(t, s.Write(dir))
	p, err := ReadPrompts(filepath.Join(dir, "cnn_eval.json"))
	require.NoError(t, err)
	require.Len(t, p.Tokens, 60)
	assert.Equal(t, []int32{1, 3}, p.Tokens[0])
	assert.Equal(t, []int32{1, 57}, p.Tokens[54], "the last prompt token whose six successors are in the vocabulary")
	assert.Equal(t, []int32{1, 3}, p.Tokens[55], "then from the first again")
	assert.Equal(t, "w4xxxxxxxx w5xxxxxxxx w6xxxxxxxx w7xxxxxxxx w8xxxxxxxx w9xxxxxxxx", p.Targets[0])
	assert.Equal(t, "w58xxxxxxx w59xxxxxxx w60xxxxxxx w61xxxxxxx w62xxxxxxx w63xxxxxxx", p.Targets[54])

	sc := CNNDMScorer
	score, err := sc.Score(strings.NewReader(countingLog(p, 6)), accuracy.Inputs{Vocab: filepath.Join(dir, "tokenizer.json"), Targets: p.Targets, Dtype: "int32"})
	require.NoError(t, err)
	assert.Equal(t, "{'rouge1': '100.0', 'rouge2': '100.0', 'rougeL': '100.0', 'rougeLsum': '100.0', 'gen_len': 3900, 'gen_num': 60}", score.Text())
}

// TestCountingSetDefaults: llama3.1-8b's 13368 prompts of 611-character
// references generate 8167848 characters, within 0.01% of the reference
// implementation's 8167644.
func TestCountingSetDefaults(t *testing.T) {
	t.Parallel()
	s := CountingSet{Prompts: 13368, Vocab: 64, Generated: 6, WordLen: 101}
	require.NoError(t, s.Check())
	_, refs := s.Samples()
	n := 0
	for _, r := range refs {
		n += len(r)
	}
	assert.Equal(t, 8167848, n)
}

// TestCountingSetCheck: a set the model cannot generate is an error
// saying why.
func TestCountingSetCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    CountingSet
		want string
	}{
		{CountingSet{Prompts: 0, Vocab: 64, Generated: 6, WordLen: 4}, "0 prompts"},
		{CountingSet{Prompts: 1, Vocab: 64, Generated: 0, WordLen: 4}, "0 generated tokens"},
		{CountingSet{Prompts: 1, Vocab: 8, Generated: 6, WordLen: 4}, "a vocabulary of 8 has no prompt token whose 6 successors are words (want at least 10)"},
		{CountingSet{Prompts: 1, Vocab: 640, Generated: 6, WordLen: 3}, "words of 3 characters cannot name token 639"},
	} {
		err := tt.s.Write(t.TempDir())
		assert.ErrorContains(t, err, tt.want)
	}
}
