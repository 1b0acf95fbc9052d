// Package accuracytest helps the benchmarks' scorer tests: accuracy logs
// made in memory.
//
// Package accuracytest imports only the standard library, testify and
// package accuracy; only tests import it.
package accuracytest

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

// Log is an accuracy log of entries, as LoadGen writes it.
func Log(t testing.TB, entries []accuracy.Entry) *bytes.Reader {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&b, entries))
	return bytes.NewReader(b.Bytes())
}

// F32 is vs as a response holds them: little-endian float32.
func F32(vs ...float32) []byte {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}
