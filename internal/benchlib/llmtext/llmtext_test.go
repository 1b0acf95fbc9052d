package llmtext

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIDs(t *testing.T) {
	t.Parallel()
	below := func(n int32) func(int32) bool { return func(id int32) bool { return id >= 0 && id < n } }
	tests := []struct {
		name, dtype string
		data        []byte
		want        []int32
		err         string
	}{
		{name: "int32", dtype: "int32", data: []byte{1, 0, 0, 0, 0xff, 0, 0, 0}, want: []int32{1, 255}},
		{name: "int64 by default", data: []byte{2, 0, 0, 0, 0, 0, 0, 0}, want: []int32{2}},
		{name: "torn id", dtype: "int32", data: []byte{1, 0, 0}, err: "3 bytes are not whole 4-byte token ids"},
		{name: "unknown id", dtype: "int32", data: []byte{0, 1, 0, 0}, err: "token id 256 is not in the tokenizer"},
		// An int64 id beyond int32 is not read as its low half.
		{name: "beyond int32", dtype: "int64", data: []byte{1, 0, 0, 0, 1, 0, 0, 0}, err: "token id 4294967297"},
		{name: "float", dtype: "float", err: `response dtype "float"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := IDs(tt.data, tt.dtype, below(256))
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	split, err := Splitter("")
	require.NoError(t, err)
	assert.Equal(t, "Mr. Smith sat.\nHe left.", Lines(split, "  Mr. Smith sat. He left.\n"))
	_, err = Splitter(t.TempDir())
	require.ErrorContains(t, err, "sentence splitter")
}
