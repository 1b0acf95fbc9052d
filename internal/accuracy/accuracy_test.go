package accuracy

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func f32(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func TestWriteLogGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteLog(&b, []Entry{
		{SeqID: 0, QSLIdx: 3, Data: f32(1, 2)},
		{SeqID: 1, QSLIdx: 0, Data: []byte{0xAB}},
		{SeqID: 2, QSLIdx: 9, Data: nil},
	}))
	golden := filepath.Join("testdata", "accuracy_log.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String())

	var got []Entry
	require.NoError(t, ReadLog(bytes.NewReader(b.Bytes()), func(e Entry) error {
		e.Data = bytes.Clone(e.Data)
		got = append(got, e)
		return nil
	}))
	require.Len(t, got, 3)
	assert.Equal(t, f32(1, 2), got[0].Data)
	assert.Equal(t, uint64(9), got[2].QSLIdx)
}

func TestReadLogErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, log, err string }{
		{name: "not json", log: "hello", err: "invalid character"},
		{name: "object", log: `{"seq_id": 1}`, err: "want a JSON array"},
		{name: "missing data", log: `[{"seq_id": 0, "qsl_idx": 1}]`, err: "entry 0: want seq_id, qsl_idx and data"},
		{name: "odd hex", log: `[{"seq_id": 0, "qsl_idx": 1, "data": "ABC"}]`, err: "odd number"},
		{name: "bad hex", log: `[{"seq_id": 0, "qsl_idx": 1, "data": "ZZ"}]`, err: "qsl_idx 1): data"},
		{name: "unterminated", log: `[{"seq_id": 0, "qsl_idx": 1, "data": ""}`, err: "unterminated"},
		{name: "trailing", log: `[] []`, err: "after the array"},
		{name: "negative index", log: `[{"seq_id": 0, "qsl_idx": -1, "data": ""}]`, err: "entry 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := ReadLog(strings.NewReader(tt.log), func(Entry) error { return nil })
			require.ErrorIs(t, err, ErrLog)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	require.NoError(t, ReadLog(strings.NewReader("[]\n"), func(Entry) error { return nil }))
}

func FuzzReadLog(f *testing.F) {
	f.Add(`[{"seq_id": 0, "qsl_idx": 1, "data": "0A0B"}]`)
	f.Add("[\n{ \"seq_id\" : 0, \"qsl_idx\" : 3, \"data\" : \"0000803F\" }\n]\n")
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		n := 0
		err := ReadLog(strings.NewReader(s), func(e Entry) error {
			n++
			return nil
		})
		if err != nil {
			require.ErrorIs(t, err, ErrLog)
		}
	})
}
