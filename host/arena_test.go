package host

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInlineRequests(t *testing.T) {
	t.Parallel()
	sample := func(i uint64, n int) Sample { return Sample{Index: i, Data: make([]byte, n)} }
	tests := []struct {
		name    string
		samples []Sample
		limit   int
		want    [][]uint64 // indices per request
	}{
		{name: "none", want: [][]uint64{nil}},
		{name: "all in one", samples: []Sample{sample(1, 10), sample(2, 10)}, limit: 1000, want: [][]uint64{{1, 2}}},
		{name: "split at the limit", samples: []Sample{sample(1, 400), sample(2, 400), sample(3, 400)}, limit: 1000,
			want: [][]uint64{{1, 2}, {3}}},
		{name: "an oversized sample goes alone", samples: []Sample{sample(1, 10), sample(2, 5000), sample(3, 10)}, limit: 1000,
			want: [][]uint64{{1}, {2}, {3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got [][]uint64
			for _, r := range inlineRequests(tt.samples, tt.limit) {
				var idx []uint64
				for _, s := range r.GetSamples() {
					idx = append(idx, s.GetIndex())
					assert.Len(t, s.GetData(), int(s.GetLength()))
				}
				got = append(got, idx)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestWriteArena(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	req, path, err := writeArena(dir, []Sample{{Index: 5, Data: []byte("abc")}, {Index: 6}, {Index: 7, Data: []byte("defgh")}})
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, uint64(len(data)), req.GetArena().GetSize())
	assert.Equal(t, path, req.GetArena().GetPath())
	var offsets []uint64
	for _, s := range req.GetSamples() {
		offsets = append(offsets, s.GetOffset())
		assert.Zero(t, s.GetOffset()%arenaAlign, "aligned")
	}
	assert.Equal(t, []uint64{0, 64, 64}, offsets)
	assert.Equal(t, "abc", string(data[0:3]))
	assert.Equal(t, "defgh", string(data[64:69]))

	_, _, err = writeArena(dir+"/missing", nil)
	assert.ErrorContains(t, err, "create sample arena")
}
