package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTEST06EOS: TEST06's EOS ids are the model's unless
// test06.eos_token_id lists others; a list that is not of integers is
// refused.
func TestTEST06EOS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, bench, eos string
		want             []int64
		err              bool
	}{
		{name: "Llama 3.1's three", bench: "llama3.1-8b", want: []int64{128001, 128008, 128009}},
		{name: "Llama 2's", bench: "llama2-70b-99.9", want: []int64{2}},
		{name: "DeepSeek-R1's", bench: "deepseek-r1", want: []int64{1}},
		{name: "a list of the user's", bench: "llama3.1-8b", eos: "128009, 7", want: []int64{128009, 7}},
		{name: "not integers", bench: "llama3.1-8b", eos: "128009,x", err: true},
		{name: "negative", bench: "llama3.1-8b", eos: "-1", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			flags := []FlagValue{{Key: KeyBenchmark, Value: tt.bench, Flag: "--benchmark"}}
			if tt.eos != "" {
				flags = append(flags, FlagValue{Key: KeyTEST06EOS, Value: tt.eos, Flag: "--set"})
			}
			c, err := Load(Inputs{Flags: flags})
			if tt.err {
				require.ErrorContains(t, err, KeyTEST06EOS)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.TEST06EOS)
		})
	}
}
